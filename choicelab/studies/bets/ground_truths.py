"""Ground truths of the bets questions, derived from rules, never from hand-written labels.

* A **value question** has three choices, each stating a relation between the high-value item h and the low-value
  item l ("h>l", "l>h", "h=l"). With the truth h > l, the label sets follow from the relations (see
  :func:`value_label_sets`).
* A **bet question** has two equiprobable outcomes A and B, each paying "win <item>" or "lose <item>", and the
  choices bet on A, bet on B, do not bet. The expected gain of every prediction (a set of choices) is a linear form in
  the item values H, L and the wager X (the paper's Tables 7-8), and its sign is decided exactly on the region the
  paper assumes, 0 < L < X < (H - L) / 2 (see :func:`sign_on_region`). Strict, Positive Gain and Non-Negative Gain
  follow from those signs (see :func:`bet_label_sets`).

A prediction of the threshold method is a set of choices, written as the sorted letters of the chosen options
("", "a", "ac", "abc", ...). Label sets are lists of such strings.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from typing import Any

RELATIONS = ("h>l", "l>h", "h=l")
LETTERS = "abc"
# Every prediction the threshold method can make on a 3-choice question: the 8 subsets of {a, b, c}.
ALL_SETS: tuple[str, ...] = tuple("".join(c) for k in range(4) for c in combinations(LETTERS, k))

VALUE_GROUND_TRUTHS = ("normal", "weak_normal", "weak")
BET_GROUND_TRUTHS = ("strict", "positive_gain", "non_negative_gain")
GROUND_TRUTH_NAMES = {
    "standard": "Standard",
    "normal": "Normal",
    "weak_normal": "Weak Normal",
    "weak": "Weak",
    "strict": "Strict",
    "positive_gain": "Positive Gain",
    "non_negative_gain": "Non-Negative Gain",
}


# -- value questions ---------------------------------------------------------------------------------------------------


def opposite(relation: str) -> str:
    return {"h>l": "l>h", "l>h": "h>l", "h=l": "h=l"}[relation]


def value_label_sets(relations: Sequence[str], truth: str = "h>l") -> dict[str, list[str]]:
    """Correct prediction sets of a value question whose choices state ``relations``, when ``truth`` holds.

    Normal: exactly the true statement. Weak Normal: the true statement, optionally with "same value" (read as
    h >= l), never its opposite. Weak: any non-empty set that does not assert both strict relations.
    """
    strict = [i for i, r in enumerate(relations) if r != "h=l"]
    true_index = relations.index(truth)
    opposite_index = relations.index(opposite(truth))
    equal_index = relations.index("h=l")
    sets: dict[str, list[str]] = {"normal": [], "weak_normal": [], "weak": []}
    for name in ALL_SETS:
        chosen = {LETTERS.index(ch) for ch in name}
        if not chosen:
            continue
        if chosen == {true_index}:
            sets["normal"].append(name)
        if true_index in chosen and opposite_index not in chosen and chosen <= {true_index, equal_index}:
            sets["weak_normal"].append(name)
        if not set(strict) <= chosen:
            sets["weak"].append(name)
    return sets


# -- expected gains of bet questions -----------------------------------------------------------------------------------

LinearForm = tuple[Fraction, Fraction, Fraction]  # coefficients of (H, L, X)
# 0 < L < X < (H - L)/2 is the open cone l*(3,1,1) + d*(2,0,1) + e*(1,0,0), l, d, e > 0 (in (H, L, X) coordinates).
_REGION_RAYS: tuple[tuple[int, int, int], ...] = ((3, 1, 1), (2, 0, 1), (1, 0, 0))
HALF = Fraction(1, 2)


def _value_form(symbol: str) -> LinearForm:
    return {"H": (Fraction(1), Fraction(0), Fraction(0)), "L": (Fraction(0), Fraction(1), Fraction(0))}[symbol]


def single_bet_gain(action: str, value_symbol: str) -> LinearForm:
    """Expected gain of wagering X on one outcome (probability 1/2) that wins or loses an item of value H or L.

    The paper's Tables 7-8: 0.5 * (payoff + X) + 0.5 * 0 - X = 0.5 * payoff - 0.5 * X, payoff = +value or -value.
    """
    sign = {"win": 1, "lose": -1}[action]
    coef_h, coef_l, _ = _value_form(value_symbol)
    return (HALF * sign * coef_h, HALF * sign * coef_l, -HALF)


def set_gain(forms: Sequence[LinearForm]) -> LinearForm:
    """Expected gain of betting on several outcomes with X split equally: the mean of the single-bet gains."""
    n = len(forms)
    return tuple(sum((f[k] for f in forms), Fraction(0)) / n for k in range(3))  # type: ignore[return-value]


def sign_on_region(form: LinearForm) -> int:
    """Sign (+1, 0, -1) of a linear form on the whole region 0 < L < X < (H - L)/2; raises if it is not constant."""
    values = [sum(c * r for c, r in zip(form, ray, strict=True)) for ray in _REGION_RAYS]
    if all(v == 0 for v in values):
        return 0
    if all(v >= 0 for v in values):
        return 1
    if all(v <= 0 for v in values):
        return -1
    raise ValueError(f"expected gain {format_form(form)} changes sign on the region 0 < L < X < (H-L)/2")


def format_form(form: LinearForm) -> str:
    """'0.5*H - 0.5*X' style rendering of a linear form in H, L, X."""
    parts = []
    for coef, symbol in zip(form, "HLX", strict=True):
        if coef == 0:
            continue
        magnitude = abs(coef)
        text = symbol if magnitude == 1 else f"{float(magnitude):g}*{symbol}"
        parts.append(("-" if coef < 0 else "+", text))
    if not parts:
        return "0"
    first_sign, first = parts[0]
    out = ("-" if first_sign == "-" else "") + first
    for sign, text in parts[1:]:
        out += f" {sign} {text}"
    return out


@dataclass(frozen=True)
class BetOutcome:
    action: str  # win | lose
    item_role: str  # h | l


def variant_outcomes(templates: Mapping[str, Any], variant: str) -> tuple[BetOutcome, BetOutcome]:
    spec = templates["variants"][variant]
    return BetOutcome(*spec["a"]), BetOutcome(*spec["b"])


def prediction_gains(outcomes: Sequence[BetOutcome], belief: str = "h>l") -> dict[str, LinearForm | None]:
    """Expected gain of each of the 8 prediction sets (choices a = bet on A, b = bet on B, c = do not bet).

    ``belief`` says which item is worth more: "h>l" (the truth) gives h the value H; "l>h" swaps the roles.
    Sets that are contradictory or a non-decision (empty, all three, "do not bet" with a bet) map to ``None``.
    """
    if belief not in ("h>l", "l>h"):
        raise ValueError(f"belief must be 'h>l' or 'l>h' here, not {belief!r}")
    symbol = {"h": "H", "l": "L"} if belief == "h>l" else {"h": "L", "l": "H"}
    singles = [single_bet_gain(o.action, symbol[o.item_role]) for o in outcomes]
    zero: LinearForm = (Fraction(0), Fraction(0), Fraction(0))
    gains: dict[str, LinearForm | None] = {}
    for name in ALL_SETS:
        if name in ("a", "b"):
            gains[name] = singles[LETTERS.index(name)]
        elif name == "ab":
            gains[name] = set_gain(singles)
        elif name == "c":
            gains[name] = zero
        else:
            gains[name] = None
    return gains


def bet_label_sets(outcomes: Sequence[BetOutcome], belief: str = "h>l") -> dict[str, Any]:
    """A fresh copy of :func:`_bet_label_sets` (cached: the sets depend only on the outcomes and the belief)."""
    return copy.deepcopy(_bet_label_sets(tuple(outcomes), belief))


@functools.lru_cache(maxsize=64)
def _bet_label_sets(outcomes: tuple[BetOutcome, ...], belief: str) -> dict[str, Any]:
    """Standard label, Strict / Positive Gain / Non-Negative Gain sets and the Positive Gain eligibility flag.

    A "same value" belief ("h=l") makes "do not bet" the only optimal choice (the spec's decision for BCA).
    """
    if belief == "h=l":
        return {
            "standard": 2,
            "strict": ["c"],
            "positive_gain": [],
            "positive_gain_eligible": False,
            "non_negative_gain": ["c"],
        }
    gains = prediction_gains(outcomes, belief)
    signs = {name: sign_on_region(form) for name, form in gains.items() if form is not None}
    singles = {name: gains[name] for name in ("a", "b", "c")}
    # The optimal single choice: its gain minus every other admissible gain is positive on the whole region.
    optimal = [
        name
        for name, form in singles.items()
        if all(
            sign_on_region(tuple(x - y for x, y in zip(form, other, strict=True))) > 0  # type: ignore[arg-type]
            for other_name, other in gains.items()
            if other is not None and other_name != name
        )
    ]
    if len(optimal) != 1:
        raise ValueError(f"no unique optimal choice for outcomes {outcomes} under belief {belief}")
    positive = [name for name, s in signs.items() if s > 0]
    return {
        "standard": LETTERS.index(optimal[0]),
        "strict": optimal,
        "positive_gain": positive,
        "positive_gain_eligible": bool(positive),
        "non_negative_gain": [name for name, s in signs.items() if s >= 0],
    }
