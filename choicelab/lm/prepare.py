"""Rule ``prepare_model``: materialize a configured model once into ``results/models/<name>/``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from choicelab.lm.registry import materialize, parse_model_spec


def prepare_model(name: str, entry: dict[str, Any], out_dir: Path, seed: int) -> dict[str, Any]:
    """Validate the config entry and build the model folder; returns its model.json record."""
    return materialize(parse_model_spec(name, entry), Path(out_dir), seed=seed)
