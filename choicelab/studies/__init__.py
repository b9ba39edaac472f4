"""The studies: one package each (``choicelab.studies.<name>``), registered once in :data:`STUDIES`.

A study package holds its items, its scoring steps, its metrics, its tables and figures, and an ``artifacts`` module
with its ``ARTIFACTS`` table (:mod:`choicelab.artifacts`); its rules are ``rules/<name>.smk`` (the Snakefile includes
the rules of every registered study). A study whose questions other studies may score as a multiple-choice
benchmark defines ``mc_benchmarks(config) -> {benchmark name: item file}`` in its package ``__init__``.

Shared layers (``choicelab.lm``, ``choicelab.mc``, ``choicelab.stats``, the dump/provenance/io contract) never import
a study.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from choicelab.artifacts import Artifact, captions, of_rule, study_files
from choicelab.config import fill_defaults, load_schema
from choicelab.settings import read

# name -> what it reproduces; the order is the order of the Snakefile's includes and of the manifest.
STUDIES: dict[str, str] = {
    "revealed_belief": "Revealed vs stated belief of causal LMs (dice, coins, choice, preference)",
    "bets": "Can language representation models think in bets? (Tang & Kejriwal)",
    "steer": "STEER: economic rationality of LLMs (Raman et al.)",
    "probes": "Prior bias and choice paralysis probes of commonsense MC models",
    "scoring_methods": "Scoring methods for pragmatic MC items (Tsvilodub et al., LLM_link)",
}


def study_module(name: str) -> ModuleType:
    if name not in STUDIES:
        raise ValueError(f"unknown study {name!r}; registered studies: {list(STUDIES)}")
    return importlib.import_module(f"choicelab.studies.{name}")


def study_settings(config: Mapping[str, Any], name: str) -> Any:
    """The study's typed settings (its package's ``settings.Settings``) from a validated config: the one reader of a
    study's section, :func:`choicelab.settings.read`, then the package's ``settings.resolve(settings, config)`` where
    a setting names something outside the section (scoring methods' coder model, checked against ``models:``).

    A config without a section for the study leaves it out: its settings are then those of the study switched off
    (``enabled: false``, no models, every other key the schema's default)."""
    study_module(name)
    module = importlib.import_module(f"choicelab.studies.{name}.settings")
    if name not in config["studies"]:
        config = {**config, "studies": {**config["studies"], name: switched_off_section(name)}}
    settings = read(module.Settings, config["studies"][name], f"studies.{name}")
    resolve = getattr(module, "resolve", None)
    return resolve(settings, config) if resolve else settings


def settings_of_record(name: str, record: Mapping[str, Any]) -> Any:
    """The typed settings a job was given as its ``settings`` param (``choicelab.settings.plain`` of
    :func:`study_settings`, the rules' ``setting(study)``): what the job's script reads back."""
    study_module(name)
    return read(importlib.import_module(f"choicelab.studies.{name}.settings").Settings, record, f"studies.{name}")


def switched_off_section(name: str) -> dict[str, Any]:
    """A study's config section with the study off: ``enabled`` false, no models, the schema's defaults elsewhere
    (a required key without a default -- a probes benchmark list or learning rate, say -- is the empty value of its
    type, null where it allows null: nothing reads it, and the typed reader accepts it)."""
    empty = {"array": [], "number": 0.0, "integer": 0, "string": "", "boolean": False}

    def complete(section: dict[str, Any], schema: Mapping[str, Any]) -> dict[str, Any]:
        fill_defaults(section, schema)
        for key in schema.get("required", []):
            if key not in section:
                sub = schema["properties"][key]
                kind = sub.get("type")
                section[key] = (complete({}, sub) if kind == "object" else None if not isinstance(kind, str)
                                else empty[kind])
        return section

    return complete({"enabled": False, "models": []}, load_schema()["properties"]["studies"]["properties"][name])


def study_artifacts(name: str) -> tuple[Any, ...]:
    """The study's ARTIFACTS table (``choicelab.studies.<name>.artifacts``)."""
    study_module(name)
    return importlib.import_module(f"choicelab.studies.{name}.artifacts").ARTIFACTS


def study_of_rule(rule: str) -> str:
    """The study whose ARTIFACTS table names ``rule`` (a table, figure or report-card rule); raises naming the
    registered studies when none or two do."""
    def writes(name: str) -> bool:
        module = importlib.import_module(f"choicelab.studies.{name}.artifacts")
        # RUNTIME_RULES: rules whose artifacts are known only at run time (STEER's report cards, one per rubric)
        return any(a.rule == rule for a in module.ARTIFACTS) or rule in getattr(module, "RUNTIME_RULES", ())

    owners = [name for name in STUDIES if writes(name)]
    if len(owners) != 1:
        raise ValueError(f"rule {rule!r} is the artifact rule of {owners or 'no study'}; registered studies: "
                         f"{list(STUDIES)} (each study's artifacts.ARTIFACTS names the rules that write its files)")
    return owners[0]


def study_models(config: Mapping[str, Any], study: str) -> list[str]:
    """The models a study runs: ``studies.<study>.models``, or none when the study is disabled or the config has no
    section for it."""
    section = config["studies"].get(study)
    return list(section["models"]) if section and section["enabled"] else []


def mc_benchmarks(config: Mapping[str, Any]) -> dict[str, str]:
    """Every multiple-choice benchmark a study of this config builds for the others to score: name -> item file."""
    found: dict[str, str] = {}
    for name in STUDIES:
        provide = getattr(study_module(name), "mc_benchmarks", None)
        for benchmark, path in (provide(config) if provide else {}).items():
            if benchmark in found:
                raise ValueError(f"two studies build a benchmark named {benchmark!r}")
            found[benchmark] = path
    return found


@dataclass(frozen=True)
class StudyJobs:
    """The plan of one study's jobs under one config: what its rules file binds as input functions, params, outputs
    and targets (rules/<study>.smk: ``XX_JOBS = study_jobs("<study>")``; docs/architecture.md, "A rules file").
    Each study's ``jobs.Jobs`` extends it with its own fields and input functions and is built by
    ``Jobs.from_config(config, basedir)`` (:func:`study_jobs`)."""

    study: str
    settings: Any  # the study's typed settings (those of the study switched off without a section)
    models: tuple[str, ...]  # the models it runs (none when it is off)

    def declared(self) -> tuple[Artifact, ...]:
        """The artifacts its artifact rules declare as outputs under this config: its ARTIFACTS table (a study whose
        artifacts depend on the config -- STEER's report cards, revealed belief's appendix -- says which)."""
        return tuple(study_artifacts(self.study))

    def artifacts(self, rule: str) -> list[Artifact]:
        """The artifacts ``rule`` writes."""
        return of_rule(self.declared(), rule)

    def captions(self, rule: str) -> dict[str, str]:
        """``rule``'s artifacts' captions: the report caption's list (the rule's ``captions`` param)."""
        return captions(self.artifacts(rule))

    def declared_files(self) -> list[str]:
        """The files of every declared artifact."""
        return study_files(self.study, self.declared())

    def artifact_files(self) -> list[str]:
        """The files of every artifact it writes (targets of ``rule all``); none when it runs no model."""
        return self.declared_files() if self.models else []

    def caption_file(self) -> str:
        """The report caption of its artifacts, relative to rules/ (a Jinja template listing the job's captions)."""
        return f"../report/{self.study}.rst"


def study_jobs(config: Mapping[str, Any], name: str, basedir: str | Path) -> StudyJobs:
    """The study's jobs under ``config`` (its package's ``jobs.Jobs.from_config(config, basedir)``; ``basedir``: the
    workflow's folder, where data/ lies)."""
    study_module(name)
    return importlib.import_module(f"choicelab.studies.{name}.jobs").Jobs.from_config(config, Path(basedir))
