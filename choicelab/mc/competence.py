"""The competence gate of a fine-tuned checkpoint, shared by every study that trains one (probes, bets).

A checkpoint that did not learn its task (the exact 95 % interval of its accuracy on unseen items covers chance)
has a near-constant head: every statistic built on it measures that head, not what the study asks. :func:`judge`
checks one checkpoint's accuracy against chance, against its untrained control (the same encoder before the task
fine-tuning, on the same items) and, where a config sets one, against a premise (e.g. the probes paper's model
"verified to achieve over 80%"). The verdict text is what the studies write into a ``model_competence`` column of
every table built on the checkpoint and into figure captions; nothing is dropped.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from choicelab.stats import exact_interval

COLUMN = "model_competence"
OK = "above chance and control"
NO_CONTROL = "above chance (no untrained control scored)"


def not_above_chance(subject: str) -> str:
    """The verdict of a checkpoint whose interval covers (or lies below) chance; ``subject`` names what it makes
    uninterpretable (probes: ``probe statistics``)."""
    return f"model not above chance: {subject} not interpretable"


def not_above_control(subject: str, control: str = "untrained-head control") -> str:
    return f"model not above its {control}: {subject} not interpretable"


def below_premise(premise: float) -> str:
    return f"below the paper's premise (dev accuracy >= {premise:g}); above chance"


@dataclass(frozen=True)
class Gate:
    """One checkpoint's gate: its accuracy on ``n`` unseen items with the exact 95 % interval, the chance level, the
    control's accuracy (NaN and 0 items when none was scored), the premise, and the verdict."""

    n: int
    accuracy: float
    ci95_low: float
    ci95_high: float
    chance: float
    above_chance: bool
    control_accuracy: float
    control_items: int
    above_control: bool | None
    premise: float | None
    meets_premise: bool | None
    verdict: str

    def record(self) -> dict[str, object]:
        return asdict(self)


def judge(correct: int, n: int, chance: float, *, control_accuracy: float = math.nan, control_items: int = 0,
          premise: float | None = None, subject: str, control: str = "untrained-head control") -> Gate:
    """The gate of one checkpoint with ``correct`` of ``n`` unseen items right: not above chance when the exact 95 %
    interval's low end is not above ``chance``; not above the control when it is not above ``control_accuracy``
    (only where a control was scored: ``control_items`` > 0); below the premise when the accuracy is under
    ``premise``; else above chance and control. ``n`` = 0 is refused (a checkpoint with no evaluated items cannot be
    judged: say which items are missing upstream)."""
    if n <= 0:
        raise ValueError(f"the competence gate needs evaluated items; got n={n} ({subject})")
    if not 0 <= correct <= n:
        raise ValueError(f"correct={correct} is not between 0 and n={n}")
    low, high = exact_interval(correct, n)
    above_chance = bool(low > chance)
    above_control = bool(low > control_accuracy) if control_items else None
    meets_premise = None if premise is None else bool(correct / n >= premise)
    if not above_chance:
        verdict = not_above_chance(subject)
    elif above_control is False:
        verdict = not_above_control(subject, control)
    elif meets_premise is False:
        verdict = below_premise(float(premise))  # type: ignore[arg-type]
    else:
        verdict = OK if above_control else NO_CONTROL
    return Gate(n, correct / n, float(low), float(high), float(chance), above_chance, float(control_accuracy),
                int(control_items), above_control, premise, meets_premise, verdict)


def seeds_verdict(failed: list[bool], subject: str) -> str:
    """The verdict of a mean over seed checkpoints: in how many seeds the gate failed (``failed``: per seed, not
    above chance)."""
    if any(failed):
        return f"{not_above_chance(subject)} ({sum(failed)} of {len(failed)} seeds)"
    return f"above chance in all {len(failed)} seeds"
