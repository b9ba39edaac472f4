"""The scoring-methods rules' input functions and params under one config (``rules/scoring_methods.smk`` binds
them; the .smk file holds rules only). No torch: the rules import this module to plan the jobs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from choicelab.config import data_root, model_dir
from choicelab.studies import StudyJobs, mc_benchmarks, study_models, study_settings
from choicelab.studies.probes import RESULTS as PROBES_RESULTS
from choicelab.studies.scoring_methods import RESULTS, grid, sources
from choicelab.studies.scoring_methods.artifacts import STUDY
from choicelab.studies.scoring_methods.settings import Settings
from choicelab.studies.scoring_methods.trained_coder import ALL_HAND_CODES, coder_folds, hand_code_models


@dataclass(frozen=True)
class Jobs(StudyJobs):
    """What the scoring-methods jobs read and are given, for one config (a config without the study's section runs
    no part of it: its settings are those of the study off)."""

    settings: Settings
    data_root: str  # the data mirror, else the download rules' folder
    coder_gpus: int  # the GPUs of the jobs that code free generations: an LLM judge's model entry's, else none
    train_coder_gpus: int  # the GPUs of a job that trains the coder: its encoder's model entry's (none untrained)
    model_sources: Mapping[str, str]  # the study's models -> their sources (the tables and figures name them)
    grid_benchmarks: tuple[str, ...]  # the method x score grid's benchmarks
    grid_items: Mapping[str, list[str]]  # grid benchmark -> the files its items come from

    @classmethod
    def from_config(cls, config: Mapping[str, Any], basedir: Path) -> Jobs:
        settings = study_settings(config, STUDY)
        root = data_root(config)
        built = mc_benchmarks(config)
        probes = study_settings(config, "probes")
        # the grid's benchmarks: studies.scoring_methods.grid_benchmarks, or (null) every multiple-choice benchmark the
        # workflow builds, the probes' commonsense ones too (built also when probes run causal LMs only); a selection
        # naming one this config does not build fails here, before any job runs
        benchmarks = grid.grid_benchmarks(settings, list(probes.benchmarks) if probes.enabled else [], built)
        source_files = [f"{root}/{path}" for path in sorted(sources.SOURCES)]
        items = {b: grid.item_files(b, source_files, built, PROBES_RESULTS) for b in benchmarks}

        def gpus(kind: str) -> int:
            coder = settings.coder
            return config["models"][coder.model]["gpu"] if coder.kind == kind and coder.model else 0

        models = tuple(study_models(config, STUDY))
        return cls(STUDY, settings, models, root, gpus("judge"), gpus("trained"),
                   {m: config["models"][m]["source"] for m in models}, tuple(benchmarks), items)

    # -- the data ---------------------------------------------------------------------------------------------------

    def sources(self, wildcards: Any = None) -> list[str]:
        """The pragmatics items and human data: the mirror's files, else the download rules'."""
        return [f"{self.data_root}/{path}" for path in sorted(sources.SOURCES)]

    def hand_codes(self, wildcards: Any = None) -> list[str]:
        """The authors' hand-coded free generations (the coder's agreement, their free-generation accuracy)."""
        return [f"{self.data_root}/{path}" for path in sorted(sources.HAND_CODE_SOURCES)]

    def authors_outputs(self, wildcards: Any = None) -> list[str]:
        """The authors' released outputs (LLM_link results/ and analysis/ at the pinned commit), reanalysed."""
        return [f"{self.data_root}/{path}" for path in sorted(sources.AUTHORS_OUTPUT_SOURCES)]

    # -- the coder of free generations ------------------------------------------------------------------------------

    def trains_coder(self) -> bool:
        return self.settings.coder.kind == "trained" and bool(self.settings.coder.model)

    def coder_folds(self) -> list[str]:
        """The trained coders: ``all`` and one leaving out each hand-coded model (its held-out agreement)."""
        return coder_folds(hand_code_models(sorted(sources.HAND_CODE_SOURCES)))

    def coder(self, wildcards: Any = None) -> list[str]:
        """The model that codes free generations: the trained coder on every hand code, else the coder model's folder
        (an encoder's embeddings or an LLM judge); none without one."""
        if self.trains_coder():
            return [f"{RESULTS}/coders/{ALL_HAND_CODES}"]
        return [model_dir(self.settings.coder.model)] if self.settings.coder.model else []

    def coder_base(self, wildcards: Any = None) -> str:
        """The encoder a trained coder is fine-tuned from."""
        return model_dir(self.settings.coder.model or "none")

    def held_out_coders(self, wildcards: Any = None) -> list[str]:
        """The trained coders that leave out one hand-coded model each."""
        return [f"{RESULTS}/coders/{fold}" for fold in self.coder_folds()[1:]] if self.trains_coder() else []

    # -- scores -----------------------------------------------------------------------------------------------------

    def scores(self, wildcards: Any = None) -> list[str]:
        return [f"{RESULTS}/scores/{model}.parquet" for model in self.models]

    def grid_scores(self, wildcards: Any = None) -> list[str]:
        return [f"{RESULTS}/grid/{model}__{benchmark}.parquet"
                for model in self.settings.grid_models for benchmark in self.grid_benchmarks]

    def grid_item_files(self, wildcards: Any) -> list[str]:
        return self.grid_items[wildcards.benchmark]
