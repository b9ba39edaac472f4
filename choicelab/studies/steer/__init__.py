"""STEER (Raman et al.): economic rationality of LLMs from generated multiple-choice questions across a taxonomy of
elements, domains and grades; normalized accuracy, calibration, robustness and rubric-driven report cards."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from choicelab.studies import study_models

RESULTS = "results/steer"
FIGURES = "figures/steer"
# The study's shipped files (taxonomy, dependencies, rubrics, the paper's numbers): defaults for library use; the
# workflow passes each as a declared input.
DATA = Path(__file__).resolve().parents[3] / "data" / "steer"


def mc_benchmarks(config: Mapping[str, Any]) -> dict[str, str]:
    """The generated questions join the probes and scoring-methods grids."""

    if not study_models(config, "steer"):
        return {}
    return {"steer": f"{RESULTS}/benchmark.parquet"}
