"""The STEER ambiguity battery: does every generated question have exactly one defensible answer?

The cue battery (:mod:`choicelab.studies.steer.cues`) asks whether a question can be answered without reasoning; this
one asks whether a careful solver reading the question could defend an option other than the key, or whether the
question tests something other than what its element names. Each check is written apart from the generators: it
re-solves the element from its own definition (linear programs for repeated games and best-response beliefs,
expected values and stochastic dominance read back from the question text, enumeration of equilibria and dominance,
vote tallies), never calling a generator's key logic.

- **Element checks** (:data:`ELEMENT_CHECKS`), per unit (a question, or both parts of a two-part question): a list
  of findings, each ``(kind, detail)``. Kinds: ``ambiguous`` (a distractor is also right, or the key is not the
  unique right option), ``form`` (the question does not test the element as the paper asks it: a dominated option in
  a risk trade-off, a reflection pair that is not mirrored, an enforceability distractor failing both conditions).
  Every question with numeric options is also checked for two options stating the same number.
- **Text checks** (:func:`text_findings`), over every question of every element: a question without its question
  mark, a count of 1 with a plural noun ("1 check-ups") or a plural verb ("1 of the 2 voters ... change"), "a"
  before a vowel, "they" for one named person.

``python -m choicelab.studies.steer.ambiguity --out FILE.md`` measures a seeded benchmark (seed 20261128, 10 units
per element x domain x grade) and writes one row per element; run it with ``PYTHONPATH`` at another checkout to
measure that checkout's generators (the module needs only ``items.base`` and ``items.domains`` from it).
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from scipy.optimize import linprog

from choicelab.studies.steer.items.base import BenchmarkScale, SteerQuestion, generate, plan_tests
from choicelab.studies.steer.items.domains import PEOPLE

AMBIGUITY_SEED = 20261128
UNITS_PER_TEST = 10

Finding = tuple[str, str]  # (kind, detail)
Unit = Sequence[SteerQuestion]  # one question, or the parts of a two-part question in order

# ----------------------------------------------------------------------------------------------------------------
# Lotteries read back from the question text

_OPTION_LABEL = re.compile(r"\b(Option \d+)(?: is|:| gives)")
_SURE = re.compile(r"sure (gain|loss) of \$([\d,]+(?:\.\d+)?)|\$([\d,]+(?:\.\d+)?) for sure")
_CHANCE = re.compile(r"(\d+(?:\.\d+)?)% chance (of a loss of|of|to gain|to lose) \$([\d,]+(?:\.\d+)?)")

Lottery = tuple[tuple[Fraction, Fraction], ...]  # ((probability, amount), ...), probabilities summing to 1


def _money(text: str) -> Fraction:
    return Fraction(text.replace(",", ""))


def read_lottery(text: str) -> Lottery:
    """The lottery one option's description states: a sure amount, or chances of amounts and nothing otherwise."""
    sure = _SURE.search(text)
    if sure:
        amount = _money(sure.group(2) or sure.group(3))
        return ((Fraction(1), -amount if sure.group(1) == "loss" else amount),)
    outcomes = [(Fraction(p) / 100, -_money(x) if verb in ("to lose", "of a loss of") else _money(x))
                for p, verb, x in _CHANCE.findall(text)]
    if not outcomes:
        raise ValueError(f"no lottery in {text!r}")
    rest = 1 - sum(p for p, _ in outcomes)
    return tuple(outcomes) + (((rest, Fraction(0)),) if rest else ())


def read_options(stem: str, labels: Sequence[str] | None = None) -> dict[str, Lottery]:
    """The lottery of every option the stem describes ("Option 2 is ...", "Investment 2 pays ...", "Option 2: ..."),
    by label, read up to the next label; ``labels`` None: every "Option N" of the stem."""
    found = labels if labels is not None else [m.group(1) for m in _OPTION_LABEL.finditer(stem)]
    marks = sorted((m.start(), m.end(), label) for label in found
                   for m in re.finditer(rf"\b{re.escape(label)}(?: is| gives| pays|:)", stem))
    return {label: read_lottery(stem[end: nxt[0] if nxt else len(stem)])
            for (_, end, label), nxt in zip(marks, [*marks[1:], None], strict=True)}


def mean(lottery: Lottery) -> Fraction:
    return sum((p * x for p, x in lottery), Fraction(0))


def dominates(a: Lottery, b: Lottery) -> bool:
    """First-order stochastic dominance: P(a >= t) >= P(b >= t) at every amount t, strictly at some."""
    levels = sorted({x for _, x in a} | {x for _, x in b})
    above = [(sum(p for p, x in a if x >= t), sum(p for p, x in b if x >= t)) for t in levels]
    return all(pa >= pb for pa, pb in above) and any(pa > pb for pa, pb in above)


def _ev_findings(label: str, shown: Sequence[str], key: str, lotteries: dict[str, Lottery],
                 trade_off: bool = True) -> list[Finding]:
    """A choice among ``shown`` options keyed ``key``: the key must be the unique expected-value maximizer, and (with
    ``trade_off``) no option may dominate another (then the choice needs no trade-off between risk and reward)."""
    out: list[Finding] = []
    evs = {o: mean(lotteries[o]) for o in shown}
    best = max(evs.values())
    winners = [o for o in shown if evs[o] == best]
    if winners != [key]:
        out.append(("ambiguous", f"{label}: highest expected value {float(best):g} for {winners}, key {key}"))
    for a in shown if trade_off else ():
        for b in shown:
            if a != b and dominates(lotteries[a], lotteries[b]):
                out.append(("form", f"{label}: {a} dominates {b}"))
    return out


def check_lottery_choices(unit: Unit) -> list[Finding]:
    """Each part of a two-part lottery question (certainty effect, independence over lotteries): the key is the unique
    expected-value maximizer among the part's options, and no option of a part is dominated by another."""
    lotteries: dict[str, Lottery] = {}
    out: list[Finding] = []
    for q in unit:
        lotteries.update(read_options(q.question))
        out += _ev_findings(f"part {q.part}", q.options, q.answer, lotteries)
    return out


def check_best_prospect(unit: Unit) -> list[Finding]:
    """Maximize EU and the risk elements (options named "Investment 1", ...): the key is the unique expected-value
    maximizer of the prospects the stem describes (a dominated prospect is allowed: these elements ask for EU)."""
    (q,) = unit
    return _ev_findings("question", q.options, q.answer, read_options(q.question, q.options), trade_off=False)


def check_lottery_comparison(unit: Unit) -> list[Finding]:
    """Completeness over lotteries: prefer the option with the higher expected value, indifference on a tie."""
    (q,) = unit
    evs = {label: mean(lot) for label, lot in read_options(q.question, ("Option 1", "Option 2")).items()}
    one, two = evs["Option 1"], evs["Option 2"]
    right = "I prefer Option 1" if one > two else "I prefer Option 2" if two > one else "indifferent"
    return [] if right in q.answer else [("ambiguous", f"expected values {float(one):g}, {float(two):g}: {right}")]


def check_reflection(unit: Unit) -> list[Finding]:
    """The paper's reflection pair: part 2's options are part 1's with every amount negated (a mirror), and each part
    has a unique expected-value maximizer and no dominated option."""
    out = check_lottery_choices(unit)
    gains = sorted(read_options(unit[0].question).values())
    losses = sorted(tuple((p, -x) for p, x in lot) for lot in read_options(unit[1].question).values())
    if gains != losses:
        out.append(("form", "the losses are not the gains negated"))
    return out


# ----------------------------------------------------------------------------------------------------------------
# Repeated games: feasibility and enforceability by linear programs

_PROFILE = re.compile(r"^(\w+) (-?[\d.]+), (\w+) (-?[\d.]+)$")
_ASKED_PROFILE = re.compile(r"\((\w+) (-?[\d.]+), (\w+) (-?[\d.]+)\)|payoffs of (-?[\d.]+) for (\w+) and "
                            r"(-?[\d.]+) for (\w+)")


@dataclass(frozen=True)
class StageGame:
    """Two players' stage payoffs as shown, ``pay[(a, b)] = (u0, u1)``."""

    players: tuple[str, str]
    pay: dict[tuple[int, int], tuple[Fraction, Fraction]]

    @classmethod
    def from_params(cls, game: dict) -> StageGame:
        scale = Fraction(1, 10 ** game.get("dec", 0))
        pay = {tuple(p): (Fraction(u[0]) * scale, Fraction(u[1]) * scale) for p, u in game["payoffs"]}
        return cls(tuple(game["players"]), pay)

    def hull_margin(self, point: tuple[Fraction, Fraction]) -> float | None:
        """None when the point is outside the convex hull of the stage payoff profiles; otherwise the largest s such
        that it is a convex combination with every weight at least s (positive iff it is inside, not on the
        boundary, of a two-dimensional hull)."""
        profiles = list(self.pay.values())
        k = len(profiles)
        a_eq = [[1.0] * k + [0.0], [float(u[0]) for u in profiles] + [0.0], [float(u[1]) for u in profiles] + [0.0]]
        a_ub = [[-1.0 if j == i else 0.0 for j in range(k)] + [1.0] for i in range(k)]  # s - w_i <= 0
        res = linprog([0.0] * k + [-1.0], A_ub=a_ub, b_ub=[0.0] * k, A_eq=a_eq,
                      b_eq=[1.0, float(point[0]), float(point[1])], bounds=[(0, None)] * k + [(None, 1)])
        return -float(res.fun) if res.status == 0 else None

    def minmax(self, i: int) -> float:
        """Player i's mixed minmax value: min over the other's mixtures q of max over i's actions (LP over q, t)."""
        acts_i = sorted({p[i] for p in self.pay})
        acts_j = sorted({p[1 - i] for p in self.pay})
        a_ub = [[float(self.pay[(a, b) if i == 0 else (b, a)][i]) for b in acts_j] + [-1.0] for a in acts_i]
        res = linprog([0.0] * len(acts_j) + [1.0], A_ub=a_ub, b_ub=[0.0] * len(acts_i),
                      A_eq=[[1.0] * len(acts_j) + [0.0]], b_eq=[1.0], bounds=[(0, 1)] * len(acts_j) + [(None, None)])
        return float(res.fun)


def _read_profile(text: str, players: tuple[str, str]) -> tuple[Fraction, Fraction] | None:
    m = _PROFILE.match(text.strip())
    if m is None:
        return None
    got = {m.group(1): Fraction(m.group(2)), m.group(3): Fraction(m.group(4))}
    return got[players[0]], got[players[1]]


def _asked_profile(stem: str, players: tuple[str, str]) -> tuple[Fraction, Fraction]:
    m = _ASKED_PROFILE.search(stem.rsplit("\n", 1)[-1])
    if m is None:
        raise ValueError(f"no payoff profile asked about in {stem[-200:]!r}")
    if m.group(1):
        got = {m.group(1): Fraction(m.group(2)), m.group(3): Fraction(m.group(4))}
    else:
        got = {m.group(6): Fraction(m.group(5)), m.group(8): Fraction(m.group(7))}
    return got[players[0]], got[players[1]]


_NEAR = 1e-7


def _profile_status(game: StageGame, point: tuple[Fraction, Fraction],
                    enforceability: bool = True) -> tuple[bool, bool, list[str]]:
    """(feasible, individually rational, problems): a point on the hull's boundary, or (for enforceability) at a
    minmax value, is a problem (a solver cannot tell which side it is meant to be on)."""
    problems = []
    margin = game.hull_margin(point)
    feasible = margin is not None
    if feasible and margin < _NEAR:
        problems.append("on the boundary of the feasible set")
    rational = True
    for i in (0, 1):
        v = game.minmax(i)
        if enforceability and abs(float(point[i]) - v) < _NEAR:
            problems.append(f"{game.players[i]} exactly at the minmax value")
        rational &= float(point[i]) > v
    return feasible, rational, problems


def check_repeated(unit: Unit, enforceability: bool) -> list[Finding]:
    """Feasibility: a profile is right iff it is in the convex hull of the stage payoffs. Enforceability (the paper:
    enforceable in a Nash equilibrium of the repeated game, the folk theorem): iff it is feasible and gives every
    player more than their minmax value. Yes/No: the key is the answer; which-profile: exactly the key is right."""
    (q,) = unit
    params = json.loads(q.params_json)
    if params.get("kind") == "value":
        game = StageGame.from_params(params["game"])
        v = game.minmax(params["player"])
        near = [o for o in q.options if abs(float(Fraction(o.replace(",", ""))) - v) < 0.006]
        return [] if near == [q.answer] else [("ambiguous", f"minmax {v:g}; options within rounding: {near}")]
    game = StageGame.from_params(params["game"])
    out: list[Finding] = []

    def right(point: tuple[Fraction, Fraction], label: str) -> bool:
        feasible, rational, problems = _profile_status(game, point, enforceability)
        out.extend(("ambiguous", f"{label}: {p}") for p in problems)
        return feasible and (rational or not enforceability)

    if set(q.options) == {"Yes", "No"}:
        point = _asked_profile(q.question, game.players)
        ok = right(point, "asked profile")
        if ("Yes" if ok else "No") != q.answer:
            out.append(("ambiguous", f"asked profile {tuple(map(float, point))}: right answer {'Yes' if ok else 'No'}"))
        return out
    rights = []
    for option in q.options:
        point = _read_profile(option, game.players)
        if point is None:
            raise ValueError(f"{q.item_id}: cannot read a profile from option {option!r}")
        if right(point, option):
            rights.append(option)
    if rights != [q.answer]:
        out.append(("ambiguous", f"right options {rights}, key {q.answer!r}"))
    if enforceability:  # every option the folk theorem is asked about should be a feasible profile or fail one test
        for option in q.options:
            point = _read_profile(option, game.players)
            feasible, rational, _ = _profile_status(game, point)
            if not feasible and not rational:
                out.append(("form", f"{option}: fails both conditions (infeasible and below a minmax value)"))
    return out


# ----------------------------------------------------------------------------------------------------------------
# Endowment effect


def check_endowment(unit: Unit) -> list[Finding]:
    """Willingness to accept = willingness to pay v. The lowest acceptable selling price is v, unless the stem lets
    the owner buy the item again for less (a shop price s < v): then selling at s and buying a replacement is as good,
    and s is a defensible answer too."""
    (q,) = unit
    params = json.loads(q.params_json)
    if params.get("kind") != "wta":
        return [] if params["offer"] != params["wtp"] else [("ambiguous", "offer equals the value")]
    shop = re.search(r"[Ss]hops sell it for \$([\d,]+)", q.question)
    value = params["wtp"]
    defensible = {value}
    if shop and _money(shop.group(1)) < value:
        defensible.add(int(_money(shop.group(1))))
    shown = {int(_money(o.strip("$"))) for o in q.options}
    both = sorted(defensible & shown)
    return [] if len(both) == 1 else [("ambiguous", f"defensible selling prices among the options: {both}")]


def pure_equilibria(game: dict) -> set[tuple[int, ...]]:
    """Every pure profile at which no player gains by deviating alone (enumeration over the recorded game)."""
    pay = {tuple(p): tuple(u) for p, u in game["payoffs"]}
    sizes = [len(a) for a in game["actions"]]

    def stable(prof: tuple[int, ...]) -> bool:
        return all(pay[prof][i] >= pay[prof[:i] + (b,) + prof[i + 1:]][i] for i in range(len(sizes))
                   for b in range(sizes[i]))

    return {p for p in pay if stable(p)}


def check_pure_nash(unit: Unit) -> list[Finding]:
    """Pure Nash equilibrium: the count template's key is the number of equilibria; in the which template the right
    options are the equilibria shown and, when there is none, the statement that none exists: a second equilibrium
    among the options would be a second right answer."""
    (q,) = unit
    game = json.loads(q.params_json)["game"]
    eq = pure_equilibria(game)
    if all(o.isdigit() for o in q.options):
        right = [o for o in q.options if int(o) == len(eq)]
    else:
        def profile(option: str) -> tuple[int, ...] | None:
            played = [re.search(rf"\b{re.escape(name)} plays (.+?)(?:,|$)", option) for name in game["players"]]
            if not all(played):
                return None
            return tuple(game["actions"][i].index(m.group(1)) for i, m in enumerate(played))

        shown = {o: profile(o) for o in q.options}  # None: the statement that there is no equilibrium
        right = [o for o, prof in shown.items() if (prof in eq if prof is not None else not eq)]
    return [] if right == [q.answer] else [("ambiguous", f"{len(eq)} equilibria; right options {right}")]


def _own_payoffs(game: dict, i: int) -> dict[tuple[int, int], Fraction]:
    """Player i's payoff by (own action, other's action) in a two-player game."""
    return {(p[i], p[1 - i]): Fraction(u[i]) for p, u in game["payoffs"]}


def _one_right(q: SteerQuestion, right: list[str], what: str) -> list[Finding]:
    return [] if right == [q.answer] else [("ambiguous", f"{what}: right options {right}, key {q.answer!r}")]


def check_best_response(unit: Unit) -> list[Finding]:
    """Best response: the asked player's actions with the highest expected payoff against the other's stated
    (possibly mixed) action; exactly the key."""
    (q,) = unit
    params = json.loads(q.params_json)
    game, i = params["game"], params["player"]
    own = _own_payoffs(game, i)
    mix = {int(b): Fraction(w) for b, w in params["opp_mix"].items()}
    value = {a: sum(w * own[(k, b)] for b, w in mix.items()) for k, a in enumerate(game["actions"][i])}
    return _one_right(q, [o for o in q.options if value.get(o) == max(value.values())], "best responses")


def check_dominant(unit: Unit) -> list[Finding]:
    """Dominant strategies: an action better than every other against every action of the other player; the
    statement that none is dominant is right when there is none."""
    (q,) = unit
    params = json.loads(q.params_json)
    game, i = params["game"], params["player"]
    own = _own_payoffs(game, i)
    mine, theirs = range(len(game["actions"][i])), range(len(game["actions"][1 - i]))
    dominant = [game["actions"][i][a] for a in mine
                if all(own[(a, b)] > own[(c, b)] for c in mine if c != a for b in theirs)]
    right = [o for o in q.options if o in dominant or (o not in game["actions"][i] and not dominant)]
    return _one_right(q, right, "dominant actions")


def can_be_best_response(game: dict, i: int, a: int) -> bool:
    """Whether some belief about the other player's action makes action a a best response (an LP over beliefs);
    an action that never is one is strictly dominated, possibly by a mixture."""
    own = _own_payoffs(game, i)
    theirs = range(len(game["actions"][1 - i]))
    others = [c for c in range(len(game["actions"][i])) if c != a]
    res = linprog([0.0] * len(theirs), A_ub=[[float(own[(c, b)] - own[(a, b)]) for b in theirs] for c in others],
                  b_ub=[0.0] * len(others), A_eq=[[1.0] * len(theirs)], b_eq=[1.0], bounds=[(0, 1)] * len(theirs))
    return res.status == 0


def check_dominated(unit: Unit) -> list[Finding]:
    """Avoidance of dominated strategies ("which action should you never play"): the actions that are a best
    response to no belief, including those dominated only by a mixture; the statement that every action can be a
    best response is right when there is none."""
    (q,) = unit
    params = json.loads(q.params_json)
    game, i = params["game"], params["player"]
    never = [name for a, name in enumerate(game["actions"][i]) if not can_be_best_response(game, i, a)]
    right = [o for o in q.options if o in never or (o not in game["actions"][i] and not never)]
    return _one_right(q, right, "actions never a best response")


def _tallies(params: dict, rule: str) -> dict[str, Fraction]:
    """Each alternative's score under a voting rule, from the recorded ballots ``[[count, ranking], ...]`` (a ranking
    lists alternative indices, first choice first) or, for Copeland, the recorded head-to-head wins ``beats``."""
    names, m = params["names"], params["m"]
    score = dict.fromkeys(range(m), Fraction(0))
    if rule == "copeland" and "beats" in params:
        for winner, _ in params["beats"]:
            score[winner] += 1
        return {names[a]: v for a, v in score.items()}
    ballots = params["profile"]
    for count, ranking in ballots:
        for pos, a in enumerate(ranking):
            score[a] += count * ((m - 1 - pos) if rule == "borda" else (pos == 0) if rule == "plurality" else 0)
    if rule == "copeland":  # a point per head-to-head majority win, half a point per tie
        for a in range(m):
            for b in range(m):
                if a != b:
                    pro = sum(c for c, r in ballots if r.index(a) < r.index(b))
                    con = sum(c for c, r in ballots if r.index(b) < r.index(a))
                    score[a] += 1 if pro > con else Fraction(1, 2) if pro == con else 0
    return {names[a]: v for a, v in score.items()}


def check_voting(rule: str) -> Callable[[Unit], list[Finding]]:
    """Plurality, Borda and Copeland winners: the alternatives with the highest score (a tie would make two options
    right); Borda's score template: the asked alternative's total."""

    def check(unit: Unit) -> list[Finding]:
        (q,) = unit
        params = json.loads(q.params_json)
        score = _tallies(params, rule)
        if params.get("kind") == "score":
            asked = score[params["names"][params["asked"]]]
            return _one_right(q, [o for o in q.options if option_value(o) == asked], "Borda score")
        return _one_right(q, [o for o in q.options if score.get(o) == max(score.values())], f"{rule} winners")

    return check


def check_ambiguity_aversion(unit: Unit) -> list[Finding]:
    """Under the symmetric belief (black = yellow = (N - R) / 2) the gambles must not tie: 3R != N."""
    params = json.loads(unit[0].params_json)
    return [] if 3 * params["red"] != params["n"] else [("ambiguous", "red count equals the expected black count")]


ELEMENT_CHECKS: dict[str, Callable[[Unit], list[Finding]]] = {
    "repeated_enforceability": lambda unit: check_repeated(unit, enforceability=True),
    "repeated_feasibility": lambda unit: check_repeated(unit, enforceability=False),
    "endowment_effect": check_endowment,
    "reflection_effect": check_reflection,
    "certainty_effect": check_lottery_choices,
    "independence_lotteries": check_lottery_choices,
    "ambiguity_aversion": check_ambiguity_aversion,
    "maximize_eu": check_best_prospect,
    "avoid_risk_aversion": check_best_prospect,
    "avoid_risk_seeking": check_best_prospect,
    "avoid_loss_aversion": check_best_prospect,
    "completeness_lotteries": check_lottery_comparison,
    "pure_nash": check_pure_nash,
    "best_response": check_best_response,
    "dominant_strategies": check_dominant,
    "dominated_strategies": check_dominated,
    "plurality": check_voting("plurality"),
    "borda": check_voting("borda"),
    "copeland": check_voting("copeland"),
}

# ----------------------------------------------------------------------------------------------------------------
# Text checks, over every template

_AUX = r"(?:Does|Do|Did|Is|Are|Was|Were|Can|Could|Should|Would|Will|Has|Have)"
_WH = r"(?:What|Which|Where|Who|Whom|Whose|How|Why)"  # not "When": it opens conditions too
_AUX_LOWER = r"(?:does|do|did|is|are|was|were|can|could|should|would|will|has|have)"
_BODY = r"(?:\b(?:i\.e|e\.g)\.|[^.?!\n]|\.(?=\d))*"  # a decimal point or "i.e." does not end a sentence
_QUESTION_SENTENCE = re.compile(
    rf"(?:^|(?<=[.!?]\s)|(?<=\n))((?:{_AUX}\b|{_WH}(?:\s+\S+){{0,2}}?\s+{_AUX_LOWER}\b){_BODY})([.?!]|$)")
_COLOURS = frozenset(["red", "blue", "green", "yellow", "black", "white", "orange", "purple", "pink", "grey"])
_NOT_PLURAL = frozenset(["is", "was", "has", "does", "plus", "minus", "this", "its", "thus", "us", "yes", "less", "as"])
_ONE_AND = re.compile(r"(?<![\w$.,/-])1 ([a-z-]+)(?: ([a-z-]+))?(?=(\s+and\b|[.,;:)]|$|\s+\w))")
_ONE_OF = re.compile(r"\b1 of the \d+ [a-z -]+? who [^.;?]*?\b(change|prefer|rank|vote|switch|move)\b")
_A_VOWEL = re.compile(r"\ba (?!one\b|eu)[aeio][a-z]+")
_NAMES = "|".join(PEOPLE)
_THEY = re.compile(rf"\b({_NAMES})\b([^.?!;:\n]*?)\b(they|their|them|themselves)\b")


def _plural(word: str) -> bool:
    return word.endswith("s") and not word.endswith("ss") and word not in _NOT_PLURAL and len(word) > 2


def text_findings(text: str) -> list[str]:
    """Problems in one question or option text: a question sentence ending without "?", a count of 1 with a plural
    noun or verb, "a" before a vowel, "they" for one named person."""
    out = []
    for m in _QUESTION_SENTENCE.finditer(text):
        if m.group(2) != "?" and ": " not in m.group(1):  # "...is the following true: X." quotes a statement
            out.append(f"question without '?': {m.group(1)[-60:]!r}")
    for m in _ONE_AND.finditer(text):
        before = text[: m.start()].rstrip().rsplit(" ", 1)[-1].lstrip("(")
        numbered = re.search(rf"(?<!\w){re.escape(before)} 2\b", text)
        if before[:1].isupper() or numbered or before in ("bidder", "level", "round"):
            continue  # a label: "Option 1 is", "Training plan 1 gives", "(bidder 1 first)"
        first, second, after = m.group(1), m.group(2), m.group(3)
        if _plural(first) or (second and first not in _COLOURS and _plural(second) and after.strip() in
                              ("and", ".", ",", ";", ":", ")", "")):
            out.append(f"number agreement: {text[m.start(): m.end()]!r}")
    out += [f"number agreement: {m.group(0)[-60:]!r}" for m in _ONE_OF.finditer(text)]
    out += [f"article: {m.group(0)!r}" for m in _A_VOWEL.finditer(text)]
    for m in _THEY.finditer(text):
        if not re.search(rf"\b({_NAMES})\b", m.group(2)):
            out.append(f"'{m.group(3)}' for {m.group(1)}: {m.group(0)[-60:]!r}")
    return out


# ----------------------------------------------------------------------------------------------------------------
# The battery


def units_of(questions: Sequence[SteerQuestion]) -> list[list[SteerQuestion]]:
    """Questions grouped into scored units (the two parts of a pair together), in order."""
    units: dict[str, list[SteerQuestion]] = {}
    for q in questions:
        units.setdefault(q.unit_id, []).append(q)
    return [sorted(u, key=lambda q: q.part) for u in units.values()]


_ONE_NUMBER = re.compile(r"^(-?)\$?(-?[\d,]*\.?\d+)(?:/(\d+))?(%?)$")


def option_value(option: str) -> Fraction | None:
    """The number an option states when it is only a number ("$1,250", "21.5%", "3/7", "-2"); percents as
    fractions of 1, so "50%", "0.5" and "1/2" are the same answer."""
    m = _ONE_NUMBER.match(option.strip())
    if m is None:
        return None
    value = Fraction(m.group(2).replace(",", "")) / (int(m.group(3)) if m.group(3) else 1)
    value = -value if m.group(1) else value
    return value / 100 if m.group(4) else value


def same_number_findings(q: SteerQuestion) -> list[Finding]:
    """Two options that state the same number in different forms would both be right (or both wrong)."""
    values = [v for v in map(option_value, q.options) if v is not None]
    return [] if len(values) == len(set(values)) else [("ambiguous", f"options state the same number: {q.options}")]


def unit_findings(unit: Unit) -> list[Finding]:
    """Every finding of one unit: its element's check (if it has one), the same-number check and the text checks of
    each part."""
    check = ELEMENT_CHECKS.get(unit[0].element)
    out = list(check(unit)) if check else []
    for q in unit:
        out += same_number_findings(q)
        out += [("text", f"{q.template_id}: {t}") for t in text_findings(q.question)]
        out += [("text", f"{q.template_id} option: {t}") for o in q.options for t in text_findings(o)]
    return out


@dataclass(frozen=True)
class ElementResult:
    element: str
    units: int
    checked: bool  # whether the element has an element check
    with_finding: Counter  # kind -> units with at least one finding of that kind
    examples: tuple[str, ...]


def run_element(element: str, seed: int = AMBIGUITY_SEED, per_test: int = UNITS_PER_TEST) -> ElementResult:
    counts: Counter = Counter()
    examples: list[str] = []
    n = 0
    for element_id, domain, grade in plan_tests(BenchmarkScale(elements=(element,))):
        for unit in units_of(generate(element_id, domain, grade, per_test, seed)):
            n += 1
            found = unit_findings(unit)
            for kind in {k for k, _ in found}:
                counts[kind] += 1
            examples += [f"{unit[0].unit_id}: {kind}: {detail}" for kind, detail in found][: 3 - len(examples)]
    return ElementResult(element, n, element in ELEMENT_CHECKS, counts, tuple(examples))


def markdown_table(results: Sequence[ElementResult], title: str) -> str:
    lines = [f"## {title}", "", "| element | units | ambiguous | form | text |", "|---|---|---|---|---|"]
    for r in results:
        cells = [str(r.with_finding[k]) if (r.checked or k == "text") else "-" for k in ("ambiguous", "form", "text")]
        lines.append(f"| `{r.element}` | {r.units} | {' | '.join(cells)} |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--title", default="STEER ambiguity battery")
    parser.add_argument("--elements", nargs="*", default=None, help="default: every element with a generator")
    parser.add_argument("--seed", type=int, default=AMBIGUITY_SEED)
    parser.add_argument("--per-test", type=int, default=UNITS_PER_TEST)
    args = parser.parse_args(argv)
    elements = args.elements or sorted({e for e, _, _ in plan_tests(BenchmarkScale())})
    results = [run_element(e, args.seed, args.per_test) for e in elements]
    args.out.write_text(markdown_table(results, args.title))
    for r in results:
        for line in r.examples:
            print(line)


if __name__ == "__main__":
    main()
