"""Revealed-belief scenarios (dice, coins, choice, preference) with exact true distributions, and the scenario table
the workflow writes (schema ``rb_scenarios/1``).

Every scenario has a stable ``setting_id``, the appendix ``row_label`` and ``appendix`` group it is reported under
(``b1``..``b4`` for dice, ``c``, ``d``, ``e``), the outcome support, and its true distribution as fractions:
convolutions of uniform dice, conditioning on observations (excluded outcomes get 0), binomial coins with
p = b/(b+1), and shifts for dependent repeats. Wording follows the paper's Appendix A; where the appendix gives no
example (several dice, observations pairs, biased preferences) our sentences are written next to the generator and
documented in docs/revealed_belief.md. The stated-answer questions built from a scenario are in
:mod:`choicelab.studies.revealed_belief.stated`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import pyarrow as pa

FAMILIES = ("dice", "coins", "choice", "preference")
OBSERVATIONS = ("Smaller", "Larger", "Even", "Odd", "Not first", "Not middle")
OBSERVATION_PAIRS = (
    ("Smaller", "Even"), ("Smaller", "Odd"), ("Smaller", "Not first"), ("Smaller", "Not middle"),
    ("Larger", "Even"), ("Larger", "Odd"), ("Larger", "Not first"), ("Larger", "Not middle"),
    ("Even", "Not first"), ("Even", "Not middle"),
)
PREFERENCE_PAIRS = (("Left", "Right"), ("Heads", "Tails"))
LETTERS = "ABCDEFGHIJKL"


@dataclass(frozen=True)
class Scenario:
    """One setting. ``prompt`` = ``scenario_text`` + " " + the completion clause the outcome follows."""

    setting_id: str
    family: str
    variant: str
    row_label: str
    appendix: str
    scenario_text: str
    completion: str
    question: str  # the stated-answer question with "{outcome}" for the queried outcome
    outcomes: tuple[str, ...]
    true_distribution: tuple[Fraction, ...]
    params: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def prompt(self) -> str:
        return f"{self.scenario_text} {self.completion}"


# -- distributions --------------------------------------------------------------------------------------------


def dice_sum_distribution(n_dice: int, faces: int) -> dict[int, Fraction]:
    """Exact distribution of the sum of ``n_dice`` fair dice with ``faces`` faces (repeated convolution)."""
    dist = {0: Fraction(1)}
    for _ in range(n_dice):
        nxt: dict[int, Fraction] = {}
        for total, p in dist.items():
            for face in range(1, faces + 1):
                nxt[total + face] = nxt.get(total + face, Fraction(0)) + p / faces
        dist = nxt
    return dict(sorted(dist.items()))


def binomial_distribution(n: int, p: Fraction) -> dict[int, Fraction]:
    return {k: math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)}


def shift(dist: dict[int, Fraction], by: int) -> dict[int, Fraction]:
    return {k + by: p for k, p in dist.items()}


def condition(dist: dict[int, Fraction], keep: Callable[[int], bool]) -> dict[int, Fraction]:
    """Condition on an event: excluded outcomes get probability 0, the rest is renormalized."""
    mass = sum((p for k, p in dist.items() if keep(k)), Fraction(0))
    if mass == 0:
        raise ValueError("the observation excludes every outcome")
    return {k: (p / mass if keep(k) else Fraction(0)) for k, p in dist.items()}


# -- dice -----------------------------------------------------------------------------------------------------


def _dice_intro(n: int, faces: int) -> str:
    if n == 1:
        return f"A die has {faces} faces. The die is equally likely to land on any of its faces."
    return f"There are {n} dice. Each die has {faces} faces and is equally likely to land on any of its faces."


def _dice_label(base: str, n: int, sep: str = " – ") -> str:
    return f"{base}{sep}{n} dice" if n > 1 else base


def observation_rule(name: str, support: Sequence[int]) -> tuple[str, Callable[[int], bool]]:
    """The sentence and predicate of an observation on a support lo..hi (thresholds at the midpoint)."""
    lo, hi = support[0], support[-1]
    smaller, larger = math.ceil((lo + hi) / 2), math.floor((lo + hi) / 2)  # the midpoint's neighbours
    rules = {
        "Smaller": (f"smaller than {smaller}", lambda v: v < smaller),
        "Larger": (f"larger than {larger}", lambda v: v > larger),
        "Even": ("an even number", lambda v: v % 2 == 0),
        "Odd": ("an odd number", lambda v: v % 2 == 1),
        "Not first": (f"different from {lo}", lambda v: v != lo),
        "Not middle": (f"different from {larger}", lambda v: v != larger),
    }
    if name not in rules:
        raise ValueError(f"unknown observation {name!r}; use one of {OBSERVATIONS}")
    return rules[name]


def _scenario(where: tuple[str, str, str, str, str], text: str, completion: str, question: str,
              dist: Mapping[Any, Fraction], params: dict[str, Any]) -> Scenario:
    """A setting from ``where`` it sits (its id, family, variant, the appendix row's label and the appendix table),
    its texts and its true distribution over outcomes."""
    return Scenario(*where, text, completion, question, tuple(str(k) for k in dist), tuple(dist.values()), params)


def dice_scenarios(faces: Iterable[int], n_dice: Iterable[int]) -> list[Scenario]:
    """Every dice setting of ``n_dice`` dice (in that order) with each face count of ``faces``."""
    out: list[Scenario] = []
    for n in n_dice:
        for f in faces:
            intro = _dice_intro(n, f)
            base = dice_sum_distribution(n, f)
            support = list(base)
            one = n == 1
            cast = "The die is cast." if one else "The dice are cast."
            result_is = "The die lands on face number" if one else "The sum of the results is equal to"
            question_single = (
                "the die lands on face {outcome}" if one else "the sum of the results is equal to {outcome}"
            )
            key = f"{n}d{f}"
            params = {"dice": n, "faces": f}
            out.append(_scenario((f"dice-single-{key}", "dice", "single",
                                 "Regular – 1 die" if one else f"Regular – {n} dice", "b1"),
                                 f"{intro} {cast}", result_is, question_single, base, params))
            previous_values = sorted({support[0], math.floor((support[0] + support[-1]) / 2), support[-1]})
            for r in previous_values:
                first = (f"The die lands on face number {r}. The die is cast again." if one
                         else f"The sum of the results is {r}. The dice are cast again.")
                out.append(_scenario(
                    (f"dice-independent-{key}-prev{r}", "dice", "independent",
                    "Independent 1 die" if one else f"Independent – {n} dice", "b1"),
                    f"{intro} {cast} {first}", result_is, question_single, base, {**params, "previous": r}))
                dependent_clause = (
                    "The sum of both results is equal to" if one else "The sum of the results of both casts is equal to"
                )
                out.append(_scenario(
                    (f"dice-dependent-{key}-prev{r}", "dice", "dependent",
                    "Dependant 1 die" if one else f"Dependant – {n} dice", "b1"),
                    f"{intro} {cast} {first}", dependent_clause,
                    "the sum of both results is equal to {outcome}", shift(base, r), {**params, "previous": r}))
            subject = "the result" if one else "the sum of the results"
            indeed = "Indeed, the result is equal to" if one else "Indeed, the sum is equal to"
            for obs in OBSERVATIONS:
                sentence, keep = observation_rule(obs, support)
                out.append(_scenario(
                    (f"dice-obs-{key}-{obs.lower().replace(' ', '')}", "dice", "observation", _dice_label(obs, n),
                     "b2"),
                    f"{intro} {cast} We observe that {subject} is {sentence}.", indeed,
                    f"{subject} is equal to {{outcome}}", condition(base, keep), {**params, "observations": [obs]}))
            for a, b in OBSERVATION_PAIRS:
                sa, ka = observation_rule(a, support)
                sb, kb = observation_rule(b, support)
                try:
                    dist = condition(base, lambda v, ka=ka, kb=kb: ka(v) and kb(v))
                except ValueError:
                    continue  # the pair excludes every outcome for this die: no such setting
                label = f"{a} – {b}" + (f" – {n} dice" if n > 1 else "")
                out.append(_scenario(
                    (f"dice-obs2-{key}-{a.lower().replace(' ', '')}-{b.lower().replace(' ', '')}", "dice",
                    "two observations", label, "b3" if one else "b4"),
                    f"{intro} {cast} We observe that {subject} is {sa} and that it is {sb}.", indeed,
                    f"{subject} is equal to {{outcome}}", dist, {**params, "observations": [a, b]}))
    return out


# -- coins ----------------------------------------------------------------------------------------------------


def coin_scenarios(n_coins: Iterable[int] = (2, 3), biases: Iterable[int] = (1, 3, 5)) -> list[Scenario]:
    out: list[Scenario] = []
    for n in n_coins:
        for bias in biases:
            if bias == 1:
                intro = f"There are {n} coins. Each coin is fair and is equally likely to land on Heads and Tails."
            else:
                intro = (f"There are {n} coins. Each coin is biased and is {bias} times more likely to land on Heads "
                         "than on Tails.")
            bias_label = "" if bias == 1 else f" {bias}x Bias"
            for face in ("Heads", "Tails"):
                p = Fraction(bias, bias + 1) if face == "Heads" else Fraction(1, bias + 1)
                base = binomial_distribution(n, p)
                params = {"coins": n, "bias": bias, "face": face}
                key = f"{n}c-b{bias}-{face.lower()}"
                question = f"the resulting number of {face} is equal to {{outcome}} after flipping the coins"
                out.append(_scenario((f"coins-single-{key}", "coins", "single", f"{n} coins Regular{bias_label}", "c"),
                                     intro, f"The coins are flipped and the resulting number of {face} is equal to",
                                     question, base, params))
                for r in (0, n):
                    first = f"{intro} The coins are flipped a first time and the resulting number of {face} is {r}."
                    out.append(_scenario(
                        (f"coins-independent-{key}-prev{r}", "coins", "independent",
                        f"{n} coins Independent{bias_label}",
                        "c"), first, f"The coins are flipped again and the resulting number of {face} is equal to",
                        question, base, {**params, "previous": r}))
                    out.append(_scenario(
                        (f"coins-dependent-{key}-prev{r}", "coins", "dependent", f"{n} coins Dependant{bias_label}",
                         "c"),
                        first,
                        f"The coins are flipped again and the total number of {face} showed in the two launches "
                        "is equal to",
                        f"the total number of {face} in the two launches is equal to {{outcome}}", shift(base, r),
                        {**params, "previous": r}))
    return out


# -- choice and preference ------------------------------------------------------------------------------------


def _listing(options: Sequence[str]) -> str:
    return ", ".join(options[:-1]) + f" and {options[-1]}"


def choice_scenarios(n_options: Iterable[int] = (2, 4, 6)) -> list[Scenario]:
    out: list[Scenario] = []
    for k in n_options:
        options = list(LETTERS[:k])
        intro = (f"A person has to choose randomly between {k} options. The options are {_listing(options)}. "
                 "All possible options are equally likely.")
        uniform = {o: Fraction(1, k) for o in options}
        question = "the person chooses option {outcome}"
        out.append(Scenario(f"choice-single-{k}", "choice", "single", f"Regular – {k} choices", "d", intro,
                            "The person chooses at random option", question, tuple(options), tuple(uniform.values()),
                            {"options": k}))
        for previous in (options[0], options[-1]):
            out.append(Scenario(
                f"choice-independent-{k}-prev{previous}", "choice", "independent", f"Independent – {k} choices", "d",
                f"{intro} The person first chooses at random option {previous}.",
                "Then the person performs another random choice and chooses option", question, tuple(options),
                tuple(uniform.values()), {"options": k, "previous": previous}))
    return out


def preference_scenarios(
    pairs: Iterable[tuple[str, str]] = PREFERENCE_PAIRS, biases: Iterable[int] = (1, 2, 3)
) -> list[Scenario]:
    """Two named options; the first of each pair is the favoured one (``bias`` times more likely); both orders."""
    out: list[Scenario] = []
    for favoured, other in pairs:
        for bias in biases:
            dist = {favoured: Fraction(bias, bias + 1), other: Fraction(1, bias + 1)}
            for order in ((favoured, other), (other, favoured)):
                if bias == 1:
                    odds = "The choice is fair and each option equally likely to be chosen."
                else:
                    odds = f"The option {favoured} is {bias} times more likely to be chosen than the option {other}."
                intro = f"A person has to choose randomly between two options: {order[0]} and {order[1]}. {odds}"
                outcomes = order
                probs = tuple(dist[o] for o in outcomes)
                bias_label = "" if bias == 1 else f" {bias}x"
                key = f"{favoured.lower()}-b{bias}-{order[0].lower()}first"
                params = {"pair": [favoured, other], "bias": bias, "order": list(order)}
                out.append(Scenario(f"preference-single-{key}", "preference", "single", f"{favoured}{bias_label}", "e",
                                    intro, "The person chooses at random option", "the person chooses option {outcome}",
                                    outcomes, probs, params))
                for previous in order:
                    out.append(Scenario(
                        f"preference-independent-{key}-prev{previous.lower()}", "preference", "independent",
                        f"{favoured} Independent{bias_label}", "e",
                        f"{intro} The person first chooses at random option {previous}.",
                        "Then the person performs another random choice and chooses option",
                        "the person chooses option {outcome}", outcomes, probs, {**params, "previous": previous}))
    return out


def all_scenarios(faces: Iterable[int], n_dice: Iterable[int], families: Iterable[str]) -> list[Scenario]:
    """The scenario grid of a config (``studies.revealed_belief``: faces, n_dice, families), families in the given
    order; dice settings by number of dice ascending."""
    dice_counts = sorted(set(n_dice))
    builders: dict[str, Callable[[], list[Scenario]]] = {
        "dice": lambda: dice_scenarios(faces, dice_counts), "coins": coin_scenarios, "choice": choice_scenarios,
        "preference": preference_scenarios,
    }
    out: list[Scenario] = []
    for family in families:
        if family not in builders:
            raise ValueError(f"unknown scenario family {family!r}; use one of {', '.join(FAMILIES)}")
        out += builders[family]()
    ids = [s.setting_id for s in out]
    if len(set(ids)) != len(ids):
        raise AssertionError("setting ids are not unique")
    return out


_VARIANT_ORDER = {"single": 0, "independent": 1, "dependent": 2}
_COIN_VARIANT_ORDER = {"single": 0, "dependent": 1, "independent": 2}


def row_sort_key(scenario: Scenario) -> tuple:
    """Row order of the paper's appendix tables."""
    p = scenario.params
    if scenario.family == "dice":
        if scenario.appendix == "b1":
            return (_VARIANT_ORDER[scenario.variant], p["dice"])
        if scenario.appendix == "b2":
            return (p["dice"], OBSERVATIONS.index(p["observations"][0]))
        return (p["dice"], OBSERVATION_PAIRS.index(tuple(p["observations"])))
    if scenario.family == "coins":
        return (p["coins"], _COIN_VARIANT_ORDER[scenario.variant], p["bias"])
    if scenario.family == "choice":
        return (_VARIANT_ORDER[scenario.variant], p["options"])
    return (p["pair"][0], _VARIANT_ORDER[scenario.variant], p["bias"])


# -- the scenario table ---------------------------------------------------------------------------------------

SCENARIO_SCHEMA = pa.schema(
    [
        pa.field("setting_id", pa.string(), nullable=False),
        pa.field("family", pa.string(), nullable=False),
        pa.field("variant", pa.string(), nullable=False),
        pa.field("row_label", pa.string(), nullable=False),
        pa.field("appendix", pa.string(), nullable=False),
        pa.field("row_key", pa.string(), nullable=False),
        pa.field("prompt", pa.string(), nullable=False),
        pa.field("outcomes", pa.list_(pa.string()), nullable=False),
        pa.field("true_probs", pa.list_(pa.float64()), nullable=False),
        pa.field("true_fractions", pa.list_(pa.string()), nullable=False),
        pa.field("params", pa.string(), nullable=False),
    ],
    metadata={b"choicelab.schema": b"rb_scenarios/1"},
)


def scenarios_table(scenarios: Sequence[Scenario]) -> pa.Table:
    """Scenarios as an Arrow table; true distributions also kept as exact fractions (text)."""
    if not scenarios:
        raise ValueError("no revealed-belief scenarios were generated: check studies.revealed_belief in the config")
    named = ("setting_id", "family", "variant", "row_label", "appendix")
    columns = {name: [getattr(s, name) for s in scenarios] for name in named}
    return pa.table(
        {
            **columns,
            "row_key": [json.dumps(row_sort_key(s)) for s in scenarios],
            "prompt": [s.prompt for s in scenarios],
            "outcomes": [list(s.outcomes) for s in scenarios],
            "true_probs": [[float(p) for p in s.true_distribution] for s in scenarios],
            "true_fractions": [[str(Fraction(p)) for p in s.true_distribution] for s in scenarios],
            "params": [json.dumps(s.params, sort_keys=True, default=str) for s in scenarios],
        },
        schema=SCENARIO_SCHEMA,
    )
