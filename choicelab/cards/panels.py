"""A card's numbers: one :class:`Panel` per registered study that declares a card entry
(``choicelab.studies.<name>.card.CARD``, a :class:`~choicelab.card_entry.CardEntry`), in the registry's order.

Every headline number carries its n and a 95 % interval, and, where the study's paper comparison has them, the
papers' models on the same scale (labelled as the papers' numbers). A panel of a study that does not apply to the
model's kind, or whose tables the card run did not build, says so instead; the other panels do not depend on it.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from choicelab.card_entry import FAILED, OK, SKIPPED, CardEntry, Headline, Panel
from choicelab.studies import STUDIES

__all__ = ["FAILED", "OK", "SKIPPED", "Headline", "Panel", "build_panels", "card_entries"]


def card_entries() -> dict[str, CardEntry]:
    """Every registered study's card entry, in the registry's order; a study without a ``card`` module has none."""
    found = {}
    for name in STUDIES:
        module = f"choicelab.studies.{name}.card"
        if importlib.util.find_spec(module) is not None:
            found[name] = importlib.import_module(module).CARD
    return found


def build_panels(root: str | Path, model: str, studies: Sequence[str], skipped: Mapping[str, str],
                 failures: Mapping[str, str], options: Mapping[str, Mapping[str, Any]] | None = None) -> list[Panel]:
    """Every study's panel for ``model``: built from its tables by its entry's ``panel`` (with ``options[study]``),
    skipped (with the reason), or failed (the card run did not build its tables, or they hold nothing for the
    model: the error says which file). One panel's failure never stops the others."""
    panels = []
    for study, entry in card_entries().items():
        if study in skipped:
            panels.append(Panel(study, entry.title, SKIPPED, reason=skipped[study]))
        elif study in failures:
            panels.append(Panel(study, entry.title, FAILED, reason=failures[study]))
        elif study in studies:
            try:
                panel = entry.panel(root, model, **dict((options or {}).get(study, {})))
                panels.append(dataclasses.replace(panel, axis=entry.axis))
            except (FileNotFoundError, ValueError, KeyError) as error:
                panels.append(Panel(study, entry.title, FAILED, reason=f"{type(error).__name__}: {error}"))
    return panels
