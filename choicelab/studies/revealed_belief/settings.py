"""The typed settings of the revealed-belief study: ``studies.revealed_belief`` of the config, after validation
filled the schema's defaults (schemas/config.schema.yaml is the only place they live)."""

from __future__ import annotations

from dataclasses import dataclass


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
