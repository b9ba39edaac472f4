"""Revealed-belief scenarios (provisional single-die slice; the revealed-belief issue completes the grid)."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any


@dataclass(frozen=True)
class Scenario:
    setting_id: str
    family: str
    variant: str
    row_label: str
    table_id: str
    prompt: str
    outcomes: tuple[str, ...]
    true_distribution: tuple[Fraction, ...]
    params: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


def single_die_scenarios(faces: tuple[int, ...] = (4, 6, 8, 10, 12)) -> list[Scenario]:
    """One fair die with ``n`` faces, cast once (Appendix A wording); outcome = the face number."""
    return [
        Scenario(
            setting_id=f"dice-single-1d{n}",
            family="dice",
            variant="single",
            row_label="Regular – 1 die",
            table_id="b1_1",
            prompt=(
                f"A die has {n} faces. The die is equally likely to land on any of its faces. The die is cast. "
                "The die lands on face number"
            ),
            outcomes=tuple(str(k) for k in range(1, n + 1)),
            true_distribution=tuple(Fraction(1, n) for _ in range(n)),
            params={"dice": 1, "faces": n},
        )
        for n in faces
    ]
