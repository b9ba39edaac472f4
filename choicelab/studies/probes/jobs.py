"""The probes rules' input functions and params: :class:`Jobs` methods take a job's wildcards (``rules/probes.smk``
names them; the .smk file holds rules and constants only). No torch: the rules import this module to plan the jobs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from choicelab.artifacts import study_files
from choicelab.config import DOWNLOADS, ConfigError, chosen_benchmarks, data_root, model_dir
from choicelab.lm.recipe import Recipe
from choicelab.mc.commonsense import SOURCES, train_files
from choicelab.settings import read
from choicelab.studies import StudyJobs, mc_benchmarks, study_models, study_settings
from choicelab.studies.probes import RESULTS
from choicelab.studies.probes.settings import Finetune, Settings

# the registry's name of this study (probes.artifacts has it too; importing that module here would load matplotlib
# into the model jobs that plan with this one, probes_finetune, whose environment has none: envs/models.yaml)
STUDY = "probes"
CONTROL_KINDS = ("encoder", "seq2seq")


INPUT_FORMAT = "pair"  # every probes encoder reads (prompt, choice) text pairs, fine-tuned and scored alike


def finetune_recipe(finetune: Mapping[str, Any], seed: int) -> Recipe:
    """The recipe of a probes fine-tune: ``studies.probes.finetune`` of the validated config (a rule's
    ``params.finetune``), read as :class:`~choicelab.studies.probes.settings.Finetune`, with the job's seed."""
    return Recipe(seed=seed, input_format=INPUT_FORMAT, **asdict(read(Finetune, finetune, "studies.probes.finetune")))


def job_seeds(wildcards: Any, params: Any) -> list[int]:
    """The seeds a probes_finetune / probes_score job serves: its ``seed`` wildcard (one job per seed), or every seed
    of ``params.seeds`` (one job for all, :meth:`Jobs.seeds_share_a_job`)."""
    return [int(wildcards.seed)] if hasattr(wildcards, "seed") else [int(s) for s in params.seeds]


@dataclass(frozen=True)
class Jobs(StudyJobs):
    """What the probes jobs read and are given, for one config (``models``: the fine-tuned encoders)."""

    settings: Settings
    data_root: str  # the data mirror, else the download rules' folder (config.data_root)
    mc_benchmarks: Mapping[str, str]  # other studies' multiple-choice benchmarks: name -> item file
    model_kinds: Mapping[str, str | None]  # every configured model's kind

    @classmethod
    def from_config(cls, config: Mapping[str, Any], basedir: Path) -> Jobs:
        kinds = {name: entry.get("kind") for name, entry in config["models"].items()}
        return cls(STUDY, study_settings(config, STUDY), tuple(study_models(config, STUDY)), data_root(config),
                   mc_benchmarks(config), kinds)

    # -- what the study builds --------------------------------------------------------------------------------------

    def check_models(self) -> None:
        """An enabled study needs a model to probe: fine-tuned encoders (``models``), or causal LMs alone
        (``models: []``: the robustness matrix only). Neither raises ConfigError naming the keys and the fix."""
        if self.settings.enabled and not self.settings.models and not self.settings.causal_models:
            raise ConfigError(
                "config key 'studies.probes.models' is empty and so is studies.probes.causal_models: the probes study "
                "has no model to probe; list encoders (kind: encoder) to fine-tune under studies.probes.models, or "
                "causal LMs under studies.probes.causal_models for the robustness matrix alone, or set "
                "studies.probes.enabled: false"
            )

    def artifact_files(self) -> list[str]:
        """The tables' and figures' files (targets of ``rule all``): every artifact with a fine-tuned encoder; with
        causal LMs only (``studies.probes.models: []``) the robustness matrix and its heat map, the artifacts that
        need no encoder; none when the study is off."""
        if self.models:
            return self.declared_files()
        if self.settings.enabled and self.settings.causal_models:
            return study_files(STUDY, self.artifacts("probes_robustness"))
        return []

    def _encoders_needed(self, what: str) -> None:
        if not self.models:
            raise ConfigError(
                f"config key 'studies.probes.models' is empty, but {what} needs fine-tuned encoders (Tables 1-2, the "
                "accuracy, controls and timing tables, Figs 3-6, the comparison with the paper); add an encoder "
                "(kind: encoder) to studies.probes.models, or ask only for probes_robustness (the causal LMs' "
                "robustness matrix), which is what a run with studies.probes.models: [] builds"
            )

    # -- inputs ----------------------------------------------------------------------------------------------------

    def source_files(self, wildcards: Any) -> list[str]:
        """Public files a benchmark is read from (the data mirror's, else the download rules'), and the official full
        train release (always downloaded, checksummed) when studies.probes.train_data is full."""

        files = [f"{self.data_root}/{f.mirror_path}" for (benchmark, _), remotes in SOURCES.items()
                 if benchmark == wildcards.benchmark for f in remotes]
        if self.settings.train_data == "full":
            files += [f"{DOWNLOADS}/{f.mirror_path}" for f in train_files(wildcards.benchmark, "full")]
        return files

    def checkpoint(self, wildcards: Any) -> str:
        """The job's checkpoint: that of its ``seed`` wildcard, else (the timing job: the time does not depend on the
        seed) that of the first seed."""
        seed = getattr(wildcards, "seed", None) or self.settings.seeds[0]
        return f"{RESULTS}/checkpoints/{wildcards.model}__{wildcards.benchmark}__seed{seed}"

    def seeds_share_a_job(self) -> bool:
        """Whether one probes_finetune job trains every seed of an encoder and benchmark: where the recipe keeps
        bottom layers frozen (their encodings, computed once, serve every seed). A whole-encoder recipe shares
        nothing, so its seeds stay separate jobs (on a cluster, on separate GPUs)."""
        return self.settings.finetune.frozen_layers > 0

    def seed_checkpoints(self, wildcards: Any) -> list[str]:
        """The checkpoints of every seed of the job's encoder and benchmark (the scoring job that shares them)."""
        return [f"{RESULTS}/checkpoints/{wildcards.model}__{wildcards.benchmark}__seed{s}" for s in self.settings.seeds]

    def checkpoints(self, wildcards: Any) -> list[str]:
        """Every fine-tuned checkpoint (each encoder, benchmark and seed): the training records table_accuracy
        reports."""
        return [f"{RESULTS}/checkpoints/{m}__{b}__seed{s}"
                for m in self.models for b in self.settings.benchmarks for s in self.settings.seeds]

    def embedder(self, wildcards: Any) -> str:
        return model_dir(self.settings.embedder)

    def dumps(self, wildcards: Any) -> list[str]:
        """One dump per fine-tuned checkpoint: every encoder, benchmark and seed."""
        return [f"{RESULTS}/dumps/{m}__{b}__seed{s}.parquet"
                for m in self.models for b in self.settings.benchmarks for s in self.settings.seeds]

    def encoder_dumps(self, wildcards: Any) -> list[str]:
        """The fine-tuned encoders' dumps the confidences (and every table and figure but the robustness matrix) are
        computed from; none configured raises ConfigError naming studies.probes.models."""
        self._encoders_needed(f"{RESULTS}/metrics/confidences.parquet")
        return self.dumps(wildcards)

    def control_models(self) -> list[str]:
        """Pre-trained encoders scored with an untrained multiple-choice head, or seq2seq QA models (Sec. 4.2-4.4
        controls); null: the fine-tuned encoders' base models."""
        chosen = self.settings.control_models
        names = list(self.models if chosen is None else chosen)
        for name in names:
            kind = self.model_kinds.get(name)
            if kind not in CONTROL_KINDS:
                raise ValueError(
                    f"config key 'studies.probes.control_models': {name!r} is "
                    f"{'not under models:' if kind is None else f'a {kind} model'}; controls are encoders "
                    "(untrained multiple-choice head) or seq2seq QA models (UnifiedQA)"
                )
        return names

    def control_dumps(self, wildcards: Any) -> list[str]:
        return [f"{RESULTS}/dumps/{m}.control.parquet" for m in self.control_models()]

    def probed(self, wildcards: Any) -> list[str]:
        return [f"{RESULTS}/probed/{b}.parquet" for b in self.settings.benchmarks]

    def timings(self, wildcards: Any) -> list[str]:
        self._encoders_needed("the timing table")
        return [f"{RESULTS}/timing/{m}__{b}.csv" for m in self.models for b in self.settings.benchmarks]

    def causal_benchmarks(self) -> list[str]:
        """The benchmarks the causal LMs score probes on: studies.probes.causal_benchmarks (null = every one the
        workflow builds, the commonsense ones first); a name the workflow does not build raises ConfigError."""
        every = list(dict.fromkeys([*self.settings.benchmarks, *sorted(self.mc_benchmarks)]))
        return chosen_benchmarks(every, self.settings.causal_benchmarks, "studies.probes.causal_benchmarks")

    def causal_dumps(self, wildcards: Any) -> list[str]:
        return [f"{RESULTS}/dumps/{m}__{b}.causal.parquet"
                for m in self.settings.causal_models for b in self.causal_benchmarks()]

    def all_probed(self, wildcards: Any) -> list[str]:
        """The probes of every benchmark in the robustness matrix: the encoders' and the causal LMs'."""
        benchmarks = dict.fromkeys([*self.settings.benchmarks, *self.causal_benchmarks()])
        return [f"{RESULTS}/probed/{b}.parquet" for b in benchmarks]

    def external_items(self, wildcards: Any) -> str:
        return self.mc_benchmarks[wildcards.benchmark]

    def train(self, wildcards: Any) -> list[str]:
        return [f"{RESULTS}/benchmarks/{b}.train.parquet" for b in self.settings.benchmarks]

    def dev(self, wildcards: Any) -> list[str]:
        return [f"{RESULTS}/benchmarks/{b}.dev.parquet" for b in self.settings.benchmarks]
