"""What the revealed-belief tables and figures are built from (:class:`Results`) and their captions.

Every builder of the study's ``ARTIFACTS`` takes a :class:`Results` and returns a
:class:`~choicelab.artifacts.Built`: the table (a DataFrame, with its Markdown) or figure and a note for its caption
(empty or starting with "; " / " (").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from choicelab.artifacts import Artifact, Built

__all__ = ["Built", "Results", "caption", "models_note"]


@dataclass(frozen=True)
class Results:
    """The metrics (rule rb_metrics), the scenario table, the models that ran (config order) and their role (base /
    instruct), and what only some artifacts read: the RevB dumps (figures), the paper's Llama-3-70B numbers
    (compare_paper) and the die face counts of the config (Fig. 4)."""

    metrics: pd.DataFrame
    scenarios: pd.DataFrame
    models: tuple[str, ...]
    roles: dict[str, str]
    revealed: pd.DataFrame | None = None
    paper: pd.DataFrame | None = None
    faces: tuple[int, ...] | None = None

    def of_role(self, role: str) -> list[str]:
        return [m for m in self.models if self.roles[m] == role]

    def need(self, field: str) -> Any:
        """A field only some artifacts read; an error naming it when the job did not load it."""
        value = getattr(self, field)
        if value is None:
            raise ValueError(f"this revealed-belief artifact needs {field!r}, which its job did not read")
        return value


def models_note(models: Sequence[str], roles: dict[str, str]) -> str:
    """A caption's sentence naming the models that actually ran, by role (RevB base / instruct; StaA: instruct)."""
    base = [m for m in models if roles.get(m) == "base"]
    instruct = [m for m in models if roles.get(m) == "instruct"]
    return (f"Base models: {', '.join(base) or 'none'}; instruction-tuned models: {', '.join(instruct) or 'none'} "
            "(StaA is asked of the instruction-tuned ones).")


def caption(artifact: Artifact, results: Results, note: str) -> str:
    """The caption a file's provenance sidecar (and the manifest) carries: what it reproduces, the artifact's
    caption, the builder's note and the models that ran."""
    return f"{artifact.reproduces}: {artifact.caption}{note}. {models_note(results.models, results.roles)}"
