"""The STEER jobs' plan: which files they read and write under a config (rules/steer.smk binds these as its input
functions and params; keeping them here keeps the rules file free of function definitions)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from choicelab.artifacts import Artifact
from choicelab.studies import StudyJobs, study_models, study_settings
from choicelab.studies.steer import RESULTS
from choicelab.studies.steer.adaptations import names as adaptation_names
from choicelab.studies.steer.artifacts import ARTIFACTS, STUDY, report_cards
from choicelab.studies.steer.items.taxonomy import load_taxonomy
from choicelab.studies.steer.report import check_rubric_ids, load_rubric
from choicelab.studies.steer.settings import Settings, check_scale_ids

DATA = "data/steer"  # the taxonomy, its dependencies and the shipped rubrics, in the workflow's folder


@dataclass(frozen=True)
class Jobs(StudyJobs):
    """What the STEER jobs read and are given, for one config: its typed settings (those of the study switched off
    when the config has no ``studies.steer`` section: then it runs no model and plans no job), the scored models'
    config entries and the shipped rubrics."""

    settings: Settings
    model_entries: Mapping[str, Mapping[str, Any]]
    rubric_dir: Path

    @classmethod
    def from_config(cls, config: Mapping[str, Any], basedir: Path) -> Jobs:
        """Fails at config load when the scale or a shipped rubric names something the taxonomy lacks."""
        models = tuple(study_models(config, STUDY))
        data_dir = basedir / DATA
        jobs = cls(STUDY, study_settings(config, STUDY), models, {m: config["models"][m] for m in models},
                   data_dir / "rubrics")
        if models:
            jobs.check(data_dir)
        return jobs

    def check(self, data_dir: Path) -> None:
        """Fail at config load, naming the key or file, when the scale or a shipped rubric names an element, module,
        setting or domain the taxonomy lacks, or a rubric's cut-offs do not fit its metric's scale."""

        taxonomy = load_taxonomy(data_dir / "taxonomy.yaml", data_dir / "dependencies.yaml")
        check_scale_ids(self.settings.scale, taxonomy)
        for path in self.rubric_files():
            check_rubric_ids(load_rubric(path), taxonomy)

    def chat_template(self, wildcards: Any) -> bool | str | None:
        """The scored model's ``chat_template`` (true: apply its tokenizer's template, false: raw text, null: as the
        model ships); see :func:`choicelab.studies.steer.scoring.chat_format`."""
        return self.model_entries[wildcards.model].get("chat_template")

    def _runs(self, kind: str) -> list[str]:
        names = adaptation_names(self.settings.adaptations)
        return [f"{RESULTS}/{kind}/{m}__{a}.parquet" for m in self.models for a in names]

    def dumps(self, wildcards: Any = None) -> list[str]:
        """Every (model, adaptation) dump."""
        return self._runs("dumps")

    def prompts(self, wildcards: Any = None) -> list[str]:
        """Every (model, adaptation) prompt record."""
        return self._runs("prompts")

    def rubric_files(self) -> list[str]:
        """The shipped rubrics (data/steer/rubrics/*.yaml): one report card each."""
        return [str(p) for p in sorted(self.rubric_dir.glob("*.yaml"))]

    def report_cards(self) -> tuple[Artifact, ...]:
        return report_cards(Path(p).stem for p in self.rubric_files())

    def declared(self) -> tuple[Artifact, ...]:
        """Every STEER table and figure, and a report card per shipped rubric."""
        return (*ARTIFACTS, *self.report_cards())
