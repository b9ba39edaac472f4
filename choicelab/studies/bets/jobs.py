"""The bets rules' input functions and params: :class:`Jobs` methods take a job's wildcards (``rules/bets.smk`` names
them; the .smk file holds rules only). No torch: the rules import this module to plan the jobs."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from choicelab.config import DOWNLOADS, data_root
from choicelab.mc.commonsense import SOURCES
from choicelab.studies import StudyJobs, study_models, study_settings
from choicelab.studies.bets import RESULTS, stages
from choicelab.studies.bets.artifacts import STUDY
from choicelab.studies.bets.settings import Settings
from choicelab.studies.bets.swag import SWAG_FILES


def hellaswag_files() -> list[str]:
    """The HellaSwag validation files the default stage's stand-in splits, relative to the data root."""

    return [f.mirror_path for (benchmark, split), files in SOURCES.items()
            if benchmark == "hellaswag" and split == "dev" for f in files]


def swag_files() -> list[str]:
    return [f.mirror_path for f in SWAG_FILES.values()]


@dataclass(frozen=True)
class Jobs(StudyJobs):
    """What the bets jobs read and are given, for one config."""

    settings: Settings
    data_root: str  # the data mirror, else the download rules' folder

    @classmethod
    def from_config(cls, config: Mapping[str, Any], basedir: Path) -> Jobs:
        jobs = cls(STUDY, study_settings(config, STUDY), tuple(study_models(config, STUDY)), data_root(config))
        if jobs.models and jobs.stage_root() != jobs.data_root:
            print(f"choicelab: the data mirror {jobs.data_root} lacks {', '.join(jobs.stage_files())}: bets' default "
                  f"stage reads them from {DOWNLOADS}, where rule download_swag fetches them (needs the internet; "
                  "offline, set studies.bets.default_stage.data: hellaswag for the HellaSwag stand-in)",
                  file=sys.stderr)
        return jobs

    def stage_files(self) -> list[str]:
        """The default stage's files, relative to a data root: SWAG train / val, or the HellaSwag stand-in's."""
        return swag_files() if self.settings.default_stage.data == "swag" else hellaswag_files()

    def stage_root(self) -> str:
        """Where the default stage reads its files: the data root, or the download folder where a mirror lacks
        them (the shipped mirror has no SWAG: its download rule stands in, said at planning time)."""
        if self.data_root == DOWNLOADS or all((Path(self.data_root) / f).is_file() for f in self.stage_files()):
            return self.data_root
        return DOWNLOADS

    # -- params (the settings themselves reach the rules through rules/common.smk's setting()) --------------------

    def root(self, wildcards: Any) -> str:
        """The default stage's data root (:meth:`stage_root`)."""
        return self.stage_root()

    # -- inputs --------------------------------------------------------------------------------------------------------

    def default_stage_data(self, wildcards: Any) -> list[str]:
        """The files the default stage reads (declared, so hashed and tracked): SWAG train / val, or the HellaSwag
        stand-in's, in the mirror or the download folder."""
        return [f"{self.stage_root()}/{path}" for path in self.stage_files()]

    def seeded_models(self, wildcards: Any = None) -> list[str]:
        """Every encoder once per training seed (:func:`.stages.seeded_model`): the models the evaluations and
        tables show."""
        return [stages.seeded_model(model, seed) for model in self.models for seed in self.settings.seeds]

    def task_checkpoint_inputs(self, wildcards: Any) -> dict[str, str]:
        return {
            "base": f"{RESULTS}/checkpoints/{wildcards.model}__seed{wildcards.seed}__default",
            "train": f"{RESULTS}/benchmarks/{wildcards.qset}.train.parquet",
            "dev": f"{RESULTS}/benchmarks/{wildcards.qset}.dev.parquet",
        }

    def checkpoint(self, wildcards: Any) -> str:
        return f"{RESULTS}/checkpoints/{wildcards.model}__seed{wildcards.seed}__{wildcards.stage}"

    def score_benchmarks(self, wildcards: Any) -> list[str]:
        return [f"{RESULTS}/benchmarks/{qset}.{split}.parquet"
                for qset, split in stages.scoring_plan(wildcards.stage, self.settings)]

    def dumps(self, wildcards: Any) -> list[str]:
        return [f"{RESULTS}/dumps/{model}__{stage}.parquet"
                for model in self.seeded_models() for stage in stages.stages(self.settings)]

    def checkpoints(self, wildcards: Any) -> list[str]:
        return [f"{RESULTS}/checkpoints/{model}__{stage}"
                for model in self.seeded_models() for stage in stages.stages(self.settings)]

    def benchmarks(self, wildcards: Any) -> list[str]:
        return [f"{RESULTS}/benchmarks/{qset}.{split}.parquet"
                for qset in self.settings.question_sets() for split in ("train", "dev", "test")]
