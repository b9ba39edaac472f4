"""The typed settings of the revealed-belief study: ``studies.revealed_belief`` of the config, after validation
filled the schema's defaults (schemas/config.schema.yaml is the only place they live)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from choicelab.settings import read

STUDY = "revealed_belief"


@dataclass(frozen=True)
class Settings:
    """One field per key of ``studies.revealed_belief`` in the schema."""

    enabled: bool
    models: tuple[str, ...]
    families: tuple[str, ...]  # scenario families: dice, coins, choice, preference
    faces: tuple[int, ...]  # die face counts
    n_dice: tuple[int, ...]  # numbers of dice (1-3)
    staa_max_outcomes: int | None  # stated-answer questions per setting; None = every outcome
    symkl_epsilon: float  # smoothing of the symmetric KL


def from_config(config: Mapping[str, Any]) -> Settings:
    """The study's settings from a validated config (every key present: validation filled the defaults), read by
    :func:`choicelab.settings.read`. The workflow reads them through :func:`choicelab.studies.study_settings`, which
    gives a config without a ``studies.revealed_belief`` section the study's switched-off section; called on such a
    config directly, this raises naming the key."""
    if STUDY not in config["studies"]:
        raise KeyError(f"config key 'studies.{STUDY}' is missing; write it (enabled: false leaves the study out)")
    return read(Settings, config["studies"][STUDY], f"studies.{STUDY}")
