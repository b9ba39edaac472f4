"""Scoring methods (Tsvilodub et al.): pragmatic items scored by free generation, string, label, rating and embedding
methods; accuracy and goodness of fit to human data."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from choicelab.studies import study_models

RESULTS = "results/scoring_methods"


def mc_benchmarks(config: Mapping[str, Any]) -> dict[str, str]:
    """The pragmatics items join the probes grid."""
    if not study_models(config, "scoring_methods"):
        return {}
    return {"pragmatics": f"{RESULTS}/benchmarks/pragmatics.parquet"}
