"""Bets (Tang & Kejriwal, "Can language representation models think in bets?"): value and bet questions, SWAG-then-task
fine-tuning of encoders, Tables 1-20 and Figs. 1-3. Module by module: docs/bets.md, "Code layout"."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from choicelab.studies import study_models

RESULTS = "results/bets"


def question_set_names(templates: Sequence[str], modalities: Sequence[str]) -> list[str]:
    """The value question sets (one per template) and the bet question sets (one per modality)."""
    return [f"value_{t}" for t in templates] + [f"bet_{m}" for m in modalities]


def question_sets(section: Mapping[str, Any]) -> list[str]:
    """The question sets a config's ``studies.bets`` section builds."""
    return question_set_names(section["templates"], section["modalities"])


def mc_benchmarks(config: Mapping[str, Any]) -> dict[str, str]:
    """The test split of every question set joins the probes and scoring-methods grids."""

    if not study_models(config, "bets"):
        return {}
    return {f"bets_{qset.lower()}": f"{RESULTS}/benchmarks/{qset}.test.parquet"
            for qset in question_sets(config["studies"]["bets"])}
