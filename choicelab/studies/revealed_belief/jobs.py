"""The revealed-belief rules' inputs and params under one config (``rules/revealed_belief.smk`` binds them; the .smk
file holds rules only). No torch: the rules import this module to plan the jobs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from choicelab.artifacts import Artifact
from choicelab.studies import StudyJobs, study_models, study_settings
from choicelab.studies.revealed_belief import RESULTS
from choicelab.studies.revealed_belief.artifacts import written
from choicelab.studies.revealed_belief.settings import Settings

STUDY = "revealed_belief"
PAPER = "data/revealed_belief/paper/llama3_70b_chebyshev.csv"  # the paper's Table 1 (Llama-3-70B), shipped


@dataclass(frozen=True)
class Jobs(StudyJobs):
    """What the revealed-belief jobs read and are given, for one config."""

    settings: Settings
    roles: Mapping[str, str]  # model -> base or instruct: its block in the RevB tables ("" = none); StaA asks instruct

    @classmethod
    def from_config(cls, config: Mapping[str, Any], basedir: Path) -> Jobs:
        models = tuple(study_models(config, STUDY))
        roles = {m: config["models"][m].get("role", "") for m in models}
        return cls(STUDY, study_settings(config, STUDY), models, roles)

    def declared(self) -> tuple[Artifact, ...]:
        """The artifacts this config writes: an appendix table only when its scenario family is generated and its
        block has a model of its role (:func:`choicelab.studies.revealed_belief.artifacts.written`)."""
        return written(self.models, self.roles, self.settings.families)

    def revealed_dumps(self, wildcards: Any = None) -> list[str]:
        """RevB of every model."""
        return [f"{RESULTS}/dumps/{model}.revealed.parquet" for model in self.models]

    def stated_dumps(self, wildcards: Any = None) -> list[str]:
        """StaA of the instruct models."""
        return [f"{RESULTS}/dumps/{model}.stated.parquet" for model in self.models if self.roles[model] == "instruct"]
