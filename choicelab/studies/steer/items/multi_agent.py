"""STEER setting 3 (decisions in multi-agent environments) generators, with the game solvers and game renderers.

Games are finite. Payoffs are stored as integers and shown with ``dec`` decimals (the stored integer divided by
``10**dec``), so every comparison a solver makes is exact. Normal-form games are rendered in the three forms of the
paper's Fig. 16, chosen by template: a word description, a normal-form table (one text grid of payoffs per player)
and a bimatrix (one grid whose cells are "(row payoff, column payoff)"). The solvers are pure Python and exact; each
generator's docstring states its answer rule; the answer is computed by the code below it.

Distractors carry no surface cue (issue 25; checked by ``choicelab/studies/steer/cues.py``): where options are
numbers, the key's rank among them is drawn before the parameters (:func:`ranked_distractors`), and a distractor is a
number stated in the question exactly when the key is; Yes/No and two-way keys are drawn 50/50 before the
parameters; where a fixed set of answers is offered, the key is drawn uniformly from the answers that can be right
(options that never are, like "choose by a fair coin flip", are not offered); option sets of profiles and plans
give the key the role of the option most (or least) like the others no more often than a random option has it.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from choicelab.studies.steer.items.base import (
    Draft,
    GenContext,
    capitalized,
    fmt_frac,
    fmt_money,
    fmt_num,
    generator,
    join_list,
    percent_split,
    retry,
    unique_argmax,
    yes_no,
)
from choicelab.studies.steer.items.domains import TEMPLATES, VOCABULARY

T = TEMPLATES["multi_agent"]  # the questions' fixed sentences (data/steer/templates.yaml)

Profile = tuple[int, ...]

# ================================================================================================================
# Domain flavour for games


@dataclass(frozen=True)
class GameVocab:
    setting: str  # "{a} and {b} ..." -- who the two players are
    actions: tuple[str, ...]  # >= 5 action names
    unit: str  # what payoffs measure


GAME_VOCABS: dict[str, GameVocab] = {domain: GameVocab(entry["setting"], tuple(entry["actions"]), entry["unit"])
                                     for domain, entry in VOCABULARY["games"].items()}  # data/steer/domains.yaml
ABSTRACT_ACTIONS = tuple(VOCABULARY["abstract_actions"])


# ================================================================================================================
# Games: representation and rendering


@dataclass
class Game:
    """A finite normal-form game: ``pay[profile][i]`` is player i's integer payoff (shown divided by 10**dec)."""

    players: list[str]
    actions: list[list[str]]
    pay: dict[Profile, tuple[int, ...]]
    dec: int = 0

    @property
    def n(self) -> int:
        return len(self.players)

    def profiles(self) -> list[Profile]:
        return list(itertools.product(*(range(len(a)) for a in self.actions)))

    def u(self, i: int, prof: Sequence[int]) -> int:
        return self.pay[tuple(prof)][i]

    def set_u(self, i: int, prof: Profile, value: int) -> None:
        pay = list(self.pay[prof])
        pay[i] = value
        self.pay[prof] = tuple(pay)

    def params(self) -> dict[str, Any]:
        return {"players": self.players, "actions": self.actions, "dec": self.dec,
                "payoffs": [[list(p), list(self.pay[p])] for p in self.profiles()]}

    def label(self, prof: Sequence[int]) -> str:
        return ", ".join(T["plays"].format(player=self.players[i], action=self.actions[i][a])
                         for i, a in enumerate(prof))

    def fmt(self, v: int | Fraction) -> str:
        return fmt_payoff(v, self.dec)


def fmt_payoff(v: int | Fraction, dec: int) -> str:
    """A stored integer payoff shown with exactly ``dec`` decimals (``dec`` = 0: a plain integer)."""
    value = Fraction(v) / 10**dec
    if dec == 0:
        return str(value.numerator) if value.denominator == 1 else fmt_num(value)
    return f"{float(value):.{dec}f}"


def matrix_game(players: Sequence[str], row_actions: Sequence[str], col_actions: Sequence[str],
                a: Sequence[Sequence[int]], b: Sequence[Sequence[int]], dec: int = 0) -> Game:
    pay = {(i, j): (a[i][j], b[i][j]) for i in range(len(row_actions)) for j in range(len(col_actions))}
    return Game(list(players), [list(row_actions), list(col_actions)], pay, dec)


def random_game(rng, players: Sequence[str], actions: Sequence[Sequence[str]], lo: int, hi: int, dec: int = 0,
                distinct: bool = False) -> Game:
    """Uniform integer payoffs in [lo, hi] (in display units; 10**dec finer when ``dec`` > 0). ``distinct``: all
    payoffs of the game differ."""
    k = 10**dec
    profiles = list(itertools.product(*(range(len(a)) for a in actions)))
    n = len(players)
    if distinct:
        values = rng.sample(range(lo * k, hi * k + 1), n * len(profiles))
        pay = {p: tuple(values[idx * n : (idx + 1) * n]) for idx, p in enumerate(profiles)}
    else:
        pay = {p: tuple(rng.randint(lo * k, hi * k) for _ in range(n)) for p in profiles}
    return Game(list(players), [list(a) for a in actions], pay, dec)


def _grid(g: Game, cell: Callable[[int, int], str]) -> str:
    """A text grid of a two-player game: a row per first player's action and a column per second player's action,
    ``cell(row, column)`` in each, columns aligned."""
    rows = [[""] + g.actions[1]] + [[ra] + [cell(r, c) for c in range(len(g.actions[1]))]
                                    for r, ra in enumerate(g.actions[0])]
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    return "\n".join(" | ".join(text.ljust(w) for text, w in zip(r, widths, strict=False)).rstrip() for r in rows)


def render_word(g: Game) -> str:
    """Word form: one sentence per profile ("If Alice plays X and Ben plays Y, Alice gets 3 and Ben gets 5.")."""
    out = []
    for prof in g.profiles():
        acts = [T["plays"].format(player=g.players[i], action=g.actions[i][a]) for i, a in enumerate(prof)]
        pays = [T["gets"].format(player=g.players[i], payoff=g.fmt(v)) for i, v in enumerate(g.pay[prof])]
        out.append(T["game_if"].format(actions=join_list(acts), payoffs=join_list(pays)))
    return " ".join(out)


def render_normal(g: Game) -> str:
    """Normal form: one payoff grid per player, rows = first player's actions, columns = second player's."""
    if g.n != 2:
        raise ValueError("normal-form tables need a two-player game")
    p0, p1 = g.players
    return "\n\n".join(T["normal_header"].format(player=g.players[i], row=p0, column=p1)
                       + f"\n{_grid(g, lambda r, c, i=i: g.fmt(g.u(i, (r, c))))}" for i in range(2))


def render_bimatrix(g: Game) -> str:
    """Bimatrix form: one grid, each cell "(row player's payoff, column player's payoff)"."""
    if g.n != 2:
        raise ValueError("bimatrix tables need a two-player game")
    grid = _grid(g, lambda r, c: f"({g.fmt(g.u(0, (r, c)))}, {g.fmt(g.u(1, (r, c)))})")
    return T["bimatrix_note"].format(row=g.players[0], column=g.players[1]) + f"\n{grid}"


def render_game(g: Game, form: str) -> str:
    return {"word": render_word, "normal": render_normal, "bimatrix": render_bimatrix}[form](g)


def choose_form(rng, g: Game) -> str:
    """Word form only for small games; tables only for two players."""
    if g.n != 2:
        return "word"
    forms = ["normal", "bimatrix"] + (["word"] if len(g.profiles()) <= 9 else [])
    return rng.choice(forms)


# ================================================================================================================
# Normal-form solvers


def _mine(i: int, a: int, b: int) -> Profile:
    """The two-player profile in which player i plays ``a`` and the other player ``b``."""
    return (a, b) if i == 0 else (b, a)


def _with(prof: Sequence[int], i: int, a: int) -> Profile:
    p = list(prof)
    p[i] = a
    return tuple(p)


def expected_payoffs(g: Game, i: int, opp_mix: dict[int, Fraction]) -> list[Fraction]:
    """Two-player game: player i's expected payoff of each action when the opponent mixes by ``opp_mix``."""
    return [sum((p * g.u(i, _mine(i, a, b)) for b, p in opp_mix.items()), Fraction(0))
            for a in range(len(g.actions[i]))]


def pure_nash_equilibria(g: Game) -> list[Profile]:
    """Every pure-strategy profile from which no player gains by deviating alone (enumeration)."""
    return [p for p in g.profiles()
            if all(g.u(i, p) >= g.u(i, _with(p, i, a)) for i in range(g.n) for a in range(len(g.actions[i])))]


def strictly_dominates(g: Game, i: int, a: int, b: int, alive: Sequence[Sequence[int]] | None = None) -> bool:
    """Action a gives player i strictly more than b against every (surviving) action profile of the others."""
    alive = alive or [list(range(len(x))) for x in g.actions]
    rest = itertools.product(*(alive[j] if j != i else [0] for j in range(g.n)))  # the others' surviving profiles
    return all(g.u(i, _with(r, i, a)) > g.u(i, _with(r, i, b)) for r in rest)


def dominant_action(g: Game, i: int) -> int | None:
    """Player i's strictly dominant action, if any."""
    acts = range(len(g.actions[i]))
    for a in acts:
        if all(strictly_dominates(g, i, a, b) for b in acts if b != a):
            return a
    return None


def dominated_actions(g: Game, i: int, alive: Sequence[Sequence[int]] | None = None) -> list[int]:
    """Player i's (surviving) actions strictly dominated by another surviving pure action."""
    alive = alive or [list(range(len(x))) for x in g.actions]
    return [b for b in alive[i] if any(strictly_dominates(g, i, a, b, alive) for a in alive[i] if a != b)]


def irds(g: Game) -> tuple[list[list[int]], list[list[tuple[int, int]]]]:
    """Iterated removal of strictly dominated (pure) strategies: each round removes every strictly dominated action
    of every player simultaneously (the result does not depend on the order). Returns (survivors, rounds)."""
    alive = [list(range(len(x))) for x in g.actions]
    rounds: list[list[tuple[int, int]]] = []
    while True:
        removed = [(i, b) for i in range(g.n) for b in dominated_actions(g, i, alive)]
        if not removed:
            return alive, rounds
        for i, b in removed:
            alive[i].remove(b)
        rounds.append(removed)


# ================================================================================================================
# Shared helpers for generators


def _payoff_scale(ctx: GenContext, max_dec: int = 1) -> tuple[int, int, int]:
    """(lo, hi, dec) of payoffs: small non-negative integers at the easiest grades, signed and wider in the middle,
    with decimals at the hardest grades."""
    if ctx.level < 1 / 3:
        return 0, 20, 0
    if ctx.level < 2 / 3 or max_dec == 0:
        return -20, 50, 0
    return -50, 99, max_dec


def _action_names(ctx: GenContext, k: int) -> list[str]:
    if ctx.rng.random() < 0.3:
        return list(ABSTRACT_ACTIONS[:k])
    return ctx.rng.sample(GAME_VOCABS[ctx.domain].actions, k)


def _game_draft(ctx: GenContext, g: Game, phrased: tuple[str, str], correct: str, dis: Iterable[str],
                params: dict[str, Any], n_options: int) -> Draft:
    """A question about game ``g`` shown in ``params["form"]``: who plays, the game, then the question of
    ``phrased`` (template id, text); the form is appended to the template id."""
    (tid, ask), form, gv = phrased, params["form"], GAME_VOCABS[ctx.domain]
    intro = T["game_intro"].format(who=gv.setting.replace("{a} and {b}", join_list(g.players)), unit=gv.unit)
    return Draft(f"{tid}.{form}", f"{intro}\n{render_game(g, form)}\n{ask}", correct, tuple(dis), params, n_options)


_NUMBER = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?")


def _numbers(text: str) -> set[float]:
    """The unsigned numbers written in ``text`` ("$1,250" -> 1250.0; "2/3" -> 2.0 and 3.0)."""
    return {float(m.replace(",", "")) for m in _NUMBER.findall(text)}


def _is_stated(option: str, stem_numbers: set[float]) -> bool:
    """Every number of ``option`` is written somewhere in the question."""
    nums = _numbers(option)
    return bool(nums) and nums <= stem_numbers


def ranked_distractors(rng, correct: float | Fraction, fmt, mistakes: Iterable[float | Fraction],
                       fill: Iterable[float | Fraction], n_options: int, stem: str,
                       rank: int | None = None) -> list[str]:
    """``n_options - 1`` formatted distractors around ``correct``: the key's rank among the options (by value) is drawn
    uniformly from the ranks the candidates allow, so neither the smallest, the largest nor the median option is the
    key more often than chance; each distractor is a number stated in ``stem`` exactly when the key is. Plausible
    ``mistakes`` are used first on each side, then values from ``fill`` (drawn at random). ``rank`` (0 = smallest)
    fixes the key's rank instead, for callers that redraw their parameters until it is possible (where the key sits
    near the end of its range, the feasible ranks alone are not uniform). Fails (ValueError) when the candidates do
    not allow it."""
    stated = _numbers(stem)
    key_text = fmt(correct)
    key_stated = _is_stated(key_text, stated)
    seen = {key_text}
    fill = list(fill)
    rng.shuffle(fill)
    below: tuple[list, list] = ([], [])  # (mistakes, fill) under the key
    above: tuple[list, list] = ([], [])
    for src, values in ((0, list(mistakes)), (1, fill)):
        for v in values:
            text = fmt(v)
            if text in seen or _is_stated(text, stated) != key_stated or float(v) == float(correct):
                continue
            seen.add(text)
            (below if float(v) < float(correct) else above)[src].append(text)
    n_below, n_above = len(below[0]) + len(below[1]), len(above[0]) + len(above[1])
    ranks = [r for r in range(n_options) if r <= n_below and n_options - 1 - r <= n_above]
    if rank is not None:
        ranks = [r for r in ranks if r == rank]
    if not ranks:
        raise ValueError(f"only {n_below} + {n_above} distractors around {key_text} for {n_options} options"
                         + ("" if rank is None else f" with the key at rank {rank}"))
    r = rng.choice(ranks)
    return (below[0] + below[1])[:r] + (above[0] + above[1])[: n_options - 1 - r]


_TOKEN = re.compile(r"[a-z0-9]+")


def _similarity_role(options: Sequence[str]) -> str:
    """Whether ``options[0]`` (the key) is the option most like the others ("central"), least like them ("outlier")
    or neither ("between"), by mean word-and-number overlap (Jaccard) with the other options."""
    sets = [set(_TOKEN.findall(o.casefold())) for o in options]
    return _role([sum(len(a & b) / len(a | b) for j, b in enumerate(sets) if j != i) for i, a in enumerate(sets)])


def _stem_role(options: Sequence[str], stem_tokens: set[str]) -> str:
    """Whether ``options[0]`` shares the largest ("central"), the smallest ("outlier") or neither share of its
    words and numbers with the question (``stem_tokens``)."""
    return _role([len(t & stem_tokens) / len(t) for t in (set(_TOKEN.findall(o.casefold())) for o in options)])


def _role(scores: Sequence[float]) -> str:
    """The key's role by ``scores`` (the key's first): "central" when it is the largest, "outlier" the smallest."""
    if max(scores) == min(scores):
        return "between"
    return "central" if scores[0] == max(scores) else "outlier" if scores[0] == min(scores) else "between"


def _draw_role(rng, n_options: int) -> str:
    """The similarity role the key should have: central and outlier each in 1 of ``n_options`` questions, as a
    random option would be."""
    u = rng.random() * n_options
    return "central" if u < 1 else "outlier" if u < 2 else "between"


def _coin(rng) -> bool:
    """A fair draw of the answer of a Yes/No (or two-way) question, made before its parameters are drawn."""
    return rng.random() < 0.5


# ================================================================================================================
# 3.1 Normal-form games


@generator("interpret_games")
def interpret_games(ctx: GenContext) -> Draft:
    """Answer = the asked player's payoff in the asked cell of the rendered game (all payoffs of the game differ).
    Distractors: the other player's payoff in that cell, the asked player's payoff in other cells."""
    rng = ctx.rng
    k = ctx.scale(2, 3)
    dec = ctx.scale(0, 2)
    lo, hi = (0, 30) if dec == 0 and k == 2 else (-60, 99)
    players = ctx.people(2)
    names = _action_names(ctx, k)
    g = random_game(rng, players, [names, names], lo, hi, dec, distinct=True)
    form = choose_form(rng, g)
    prof = (rng.randrange(k), rng.randrange(k))
    i = rng.randrange(2)
    who = players[i]
    act = T["interp_action"].format(a=players[0], x=names[prof[0]], b=players[1], y=names[prof[1]])
    tid, ask = ctx.phrase(T, "interp", who=who, act=act)
    correct = g.u(i, prof)
    cands = [g.u(1 - i, prof), g.u(i, prof[::-1])] + [g.u(i, p) for p in g.profiles() if p != prof]
    cands += [g.u(1 - i, p) for p in g.profiles()]
    dis = list(dict.fromkeys(g.fmt(c) for c in cands if c != correct))
    params = {"game": g.params(), "form": form, "player": i, "profile": list(prof)}
    return _game_draft(ctx, g, (tid, ask), g.fmt(correct), dis, params, ctx.n_options(3, 5))


@generator("best_response")
def best_response(ctx: GenContext) -> Draft:
    """Answer = the asked player's unique payoff-maximizing action against the opponent's stated action; at the
    harder grades the opponent may instead mix over two actions with stated probabilities and the answer is the
    unique expected-payoff maximizer."""
    rng = ctx.rng
    k = ctx.scale(2, 4)
    lo, hi, dec = _payoff_scale(ctx)
    players = ctx.people(2)
    names = _action_names(ctx, k)
    mixed = ctx.level >= 0.5 and rng.random() < 0.5
    i = rng.randrange(2)
    j = 1 - i

    def draw():
        g = random_game(rng, players, [names, names], lo, hi, dec)
        if mixed:
            b1, b2 = rng.sample(range(k), 2)
            p = rng.randint(1, 19) * 5
            mix = {b1: Fraction(p, 100), b2: Fraction(100 - p, 100)}
        else:
            mix = {rng.randrange(k): Fraction(1)}
        best = unique_argmax(expected_payoffs(g, i, mix))
        return None if best is None else (g, mix, best)

    g, mix, best = retry(draw)
    form = choose_form(rng, g)
    if mixed:
        (b1, p1), (b2, p2) = sorted(mix.items(), key=lambda kv: -kv[1])
        opp = T["br_mixed"].format(other=players[j], x=names[b1], px=fmt_num(p1 * 100), y=names[b2],
                                   py=fmt_num(p2 * 100))
    else:
        opp = T["br_pure"].format(other=players[j], x=names[next(iter(mix))])
    tid, ask = ctx.phrase(T, "br", player=players[i], opp=opp)
    correct = names[best]
    # no "any action; they all give the same payoff": the best response is unique, so it would never be right
    dis = [a for a in names if a != correct]
    params = {"game": g.params(), "form": form, "player": i, "opp_mix": {str(b): p for b, p in mix.items()}}
    return _game_draft(ctx, g, (tid, ask), correct, dis, params, min(k, ctx.n_options(3, 5)))


def _distinct_columns(g: Game, i: int) -> bool:
    """Player i's payoffs differ across own actions against every opponent action (so weak = strict dominance)."""
    own = range(len(g.actions[i]))
    return all(len({g.u(i, _mine(i, a, b)) for a in own}) == len(own) for b in range(len(g.actions[1 - i])))


@generator("dominant_strategies")
def dominant_strategies(ctx: GenContext) -> Draft:
    """Answer = the asked player's strictly dominant action (better against every opponent action); the 'does a
    dominant action exist?' template may have the answer 'none'. The asked player's payoffs differ within each
    opponent action, so weak and strict dominance coincide."""
    rng = ctx.rng
    k = ctx.scale(2, 4)
    lo, hi, dec = _payoff_scale(ctx)
    players = ctx.people(2)
    names = _action_names(ctx, k)
    i = rng.randrange(2)
    may_be_none = rng.random() < 0.5
    # 'exists' template: no dominant action in 1 of k + 1 questions, so "no action is dominant" is right about as
    # often as any of the k + 1 options
    want_none = may_be_none and rng.random() < 1 / (k + 1)

    def draw():
        g = random_game(rng, players, [names, names], lo, hi, dec)
        if want_none:
            return g if _distinct_columns(g, i) and dominant_action(g, i) is None else None
        # plant a dominant action: above every other action in every column
        d = rng.randrange(k)
        step = 10**dec
        for b in range(k):
            top = max(g.u(i, _mine(i, a, b)) for a in range(k) if a != d)
            g.set_u(i, _mine(i, d, b), top + rng.randint(1, 6) * step)
        return g if _distinct_columns(g, i) else None

    g = retry(draw)
    dom = dominant_action(g, i)
    form = choose_form(rng, g)
    tid, ask = ctx.phrase(T, "dom_exists" if may_be_none else "dom", player=players[i], other=players[1 - i])
    correct = T["dom_none"] if dom is None else names[dom]
    # "none" is offered by the 'exists' template only: elsewhere a dominant action was planted, so it is never right
    dis = [a for a in names if a != correct] + ([T["dom_none"]] if may_be_none and dom is not None else [])
    params = {"game": g.params(), "form": form, "player": i, "template": "exists" if may_be_none else "play"}
    return _game_draft(ctx, g, (tid, ask), correct, dis, params, min(len(dis) + 1, ctx.n_options(3, 5)))


@generator("dominated_strategies")
def dominated_strategies(ctx: GenContext) -> Draft:
    """Exactly one of the asked player's actions is strictly dominated by another action (never a best response);
    every other action is the unique best response to some opponent action. Answer = the dominated action. In 1 of
    k + 1 questions no action is dominated (each is the unique best response to its own opponent action) and the
    answer is "None; every action can be a best response", offered in every question."""
    rng = ctx.rng
    k = ctx.scale(2, 4)
    want_none = rng.random() < 1 / (k + 1)
    m = k if want_none else max(2, k - 1)  # opponent actions: one column per undominated action
    lo, hi, dec = _payoff_scale(ctx)
    players = ctx.people(2)
    names = _action_names(ctx, max(k, m))
    i = rng.randrange(2)
    own, opp = names[:k], names[:m]
    step = 10**dec

    def draw():
        acts = [own, opp] if i == 0 else [opp, own]
        g = random_game(rng, players, acts, lo, hi, dec)

        def make_best(a: int, c: int) -> None:  # a: the unique best response to c
            g.set_u(i, _mine(i, a, c), max(g.u(i, _mine(i, x, c)) for x in range(k)) + rng.randint(1, 5) * step)

        if want_none:  # every action the unique best response to its own opponent action: none dominated
            for a, c in zip(range(k), rng.sample(range(m), k), strict=False):
                make_best(a, c)
            return (g, None) if dominated_actions(g, i) == [] else None
        d = rng.randrange(k)
        others = [a for a in range(k) if a != d]
        for a, c in zip(others, rng.sample(range(m), len(others)), strict=False):
            make_best(a, c)
        e = rng.choice(others)
        for b in range(m):
            g.set_u(i, _mine(i, d, b), g.u(i, _mine(i, e, b)) - rng.randint(1, 8) * step)
        return (g, d) if dominated_actions(g, i) == [d] else None

    g, d = retry(draw)
    form = choose_form(rng, g)
    tid, ask = ctx.phrase(T, "dominated", player=players[i], other=players[1 - i])
    none = T["dominated_none"]
    correct = none if d is None else own[d]
    dis = [a for a in own if a != correct] + ([] if d is None else [none])
    params = {"game": g.params(), "form": form, "player": i}
    return _game_draft(ctx, g, (tid, ask), correct, dis, params, min(k + 1, ctx.n_options(3, 5)))


def _plant_irds(rng, g: Game, steps: int, step: int) -> None:
    """Make a planned elimination sequence valid: alternately pick a surviving action of one player and make it
    strictly worse than another surviving action against the opponent's surviving actions."""
    alive = [list(range(len(x))) for x in g.actions]
    i = rng.randrange(2)
    for _ in range(steps):
        if len(alive[i]) < 2:
            i = 1 - i
            if len(alive[i]) < 2:
                return
        b, a = rng.sample(alive[i], 2)
        for r in alive[1 - i]:
            g.set_u(i, _mine(i, b, r), g.u(i, _mine(i, a, r)) - rng.randint(1, 6) * step)
        alive[i].remove(b)
        i = 1 - i


def _action_set_text(names: Sequence[str]) -> str:
    return f"Only {names[0]}" if len(names) == 1 else join_list(list(names))


@generator("irds")
def irds_element(ctx: GenContext) -> Draft:
    """Iterated removal of strictly dominated strategies (dominance by a single other action; all dominated actions
    removed each round; the result is order-independent). The game needs at least two rounds. Answer = the
    surviving profile (when unique) or the asked player's surviving actions."""
    rng = ctx.rng
    k = ctx.scale(3, 4)
    lo, hi, dec = _payoff_scale(ctx)
    players = ctx.people(2)
    names = _action_names(ctx, k)

    def draw():
        g = random_game(rng, players, [names, names], lo, hi, dec)
        _plant_irds(rng, g, rng.randint(2 * k - 3, 2 * k - 2), 10**dec)
        alive, rounds = irds(g)
        return (g, alive, rounds) if len(rounds) >= 2 else None

    g, alive, rounds = retry(draw)
    form = choose_form(rng, g)
    if len(alive[0]) == 1 and len(alive[1]) == 1 and rng.random() < 0.6:
        tid, ask = ctx.phrase(T, "irds_prof", rule=T["irds_rule"])
        surv = (alive[0][0], alive[1][0])
        correct = g.label(surv)
        dis = [g.label(p) for p in g.profiles() if p != surv]
        rng.shuffle(dis)
        asked = None
    else:
        asked = rng.randrange(2)
        tid, ask = ctx.phrase(T, "irds_set", rule=T["irds_rule"], player=players[asked])
        surv_names = [names[a] for a in alive[asked]]
        correct = _action_set_text(surv_names)
        subsets = [list(c) for r in range(1, k + 1) for c in itertools.combinations(names, r)]
        subsets.sort(key=lambda s: (abs(len(s) - len(surv_names)), rng.random()))
        dis = [_action_set_text(s) for s in subsets if s != surv_names]
    params = {"game": g.params(), "form": form, "asked": asked}
    return _game_draft(ctx, g, (tid, ask), correct, dis, params, ctx.n_options(3, 5))


def _plant_equilibria(rng, g: Game, c: int) -> None:
    """Two-player game: make ``c`` cells in distinct rows and columns mutual best responses by swapping the row
    player's payoffs within each cell's column and the column player's within its row (the game keeps its payoff
    values; cells in distinct rows and columns do not disturb each other). Other cells may become equilibria too:
    the caller checks the count."""
    rows = rng.sample(range(len(g.actions[0])), c)
    cols = rng.sample(range(len(g.actions[1])), c)
    for r, col in zip(rows, cols, strict=True):
        top = max(range(len(g.actions[0])), key=lambda x: g.u(0, (x, col)))
        a, b = g.pay[(r, col)], g.pay[(top, col)]
        g.pay[(r, col)], g.pay[(top, col)] = (b[0], a[1]), (a[0], b[1])
        top = max(range(len(g.actions[1])), key=lambda y: g.u(1, (r, y)))
        a, b = g.pay[(r, col)], g.pay[(r, top)]
        g.pay[(r, col)], g.pay[(r, top)] = (a[0], b[1]), (b[0], a[1])


@generator("pure_nash")
def pure_nash(ctx: GenContext) -> Draft:
    """Pure Nash equilibria by enumeration of every profile. 'Which is a pure NE?': options hold exactly one
    equilibrium (or, if there is none, the statement that none exists) and non-equilibrium profiles. 'How many?':
    answer = the count. The hardest grade also uses three-player games in word form."""
    rng = ctx.rng
    k = ctx.scale(2, 4)
    lo, hi, dec = _payoff_scale(ctx)
    three = ctx.level >= 1 and rng.random() < 0.3
    players = ctx.people(3) if three else ctx.people(2)
    names = _action_names(ctx, 2 if three else k)
    acts = [names] * len(players) if three else [names, names]
    n_opts = ctx.n_options(3, 5)

    which = three or rng.random() < 0.7
    # 'which' template: no pure equilibrium in 1 of n_opts questions, and "there is none" offered in every one, so
    # that catch-all is right about as often as any option. 'How many' template (two players): the options are the
    # counts 0 .. n_opts - 1 and the count is drawn uniformly from them first, so that no numeric rank (smallest,
    # median, ...) points at the key; equilibria are planted by swapping payoffs within a column / row.
    want_none = rng.random() < 1 / n_opts
    want_count = rng.randrange(min(n_opts, k + 1))

    def draw():
        g = random_game(rng, players, acts, lo, hi, dec)
        if not which:
            _plant_equilibria(rng, g, want_count)
        eqs = pure_nash_equilibria(g)
        fits = (not eqs) == want_none if which else len(eqs) == want_count
        return (g, eqs) if fits and len(g.profiles()) - len(eqs) >= n_opts - 1 else None

    g, eqs = retry(draw)
    form = choose_form(rng, g)
    non = [p for p in g.profiles() if p not in eqs]
    rng.shuffle(non)
    none = T["pne_none"]
    if which:
        tid, ask = ctx.phrase(T, "pne")
        eq = rng.choice(eqs) if eqs else None
        correct, dis = (none, []) if eq is None else (g.label(eq), [none])
        dis += [g.label(p) for p in non]
        params = {"game": g.params(), "form": form, "template": "which", "shown_eq": list(eq) if eq else None}
    else:
        tid, ask = ctx.phrase(T, "pne_count")
        correct = str(len(eqs))
        dis = [str(c) for c in range(min(n_opts, k + 1)) if c != len(eqs)]
        params = {"game": g.params(), "form": form, "template": "count"}
    return _game_draft(ctx, g, (tid, ask), correct, dis, params, ctx.n_options(3, 5))


# ---------------------------------------------------------------------------------------------------------------
# Level-k reasoning


def beauty_contest_guess(top: int, p: Fraction, k: int) -> Fraction:
    """Level-0 guesses uniformly on [0, top] (mean top/2); a level-k player's best guess is p times the average guess
    of level-(k-1) players (the target is p times the average of the *other* players' guesses)."""
    return Fraction(top, 2) * p**k


def request_best_responses(opp: int, lo: int, hi: int, bonus: int) -> list[int]:
    """11-20 money-request game: you get your request, plus ``bonus`` if it is exactly one below the opponent's."""
    vals = {r: r + (bonus if r == opp - 1 else 0) for r in range(lo, hi + 1)}
    top = max(vals.values())
    return [r for r, v in vals.items() if v == top]


def level_k_request(lo: int, hi: int, bonus: int, k: int, start: int | None = None) -> int | None:
    """Level-0 requests ``start`` (default: the maximum); level-k best responds to level-(k-1). None if some best
    response is not unique."""
    r = hi if start is None else start
    for _ in range(k):
        brs = request_best_responses(r, lo, hi, bonus)
        if len(brs) != 1:
            return None
        r = brs[0]
    return r


def level_k_action(g: Game, i: int, k: int) -> int | None:
    """Two-player matrix game: level-0 players pick each action with equal probability; player i at level k >= 1
    best responds to the opponent at level k-1. None if a best response on the way is not unique."""
    j = 1 - i
    if k == 1:
        n = len(g.actions[j])
        mix = {b: Fraction(1, n) for b in range(n)}
    else:
        b = level_k_action(g, j, k - 1)
        if b is None:
            return None
        mix = {b: Fraction(1)}
    return unique_argmax(expected_payoffs(g, i, mix))


@generator("level_k")
def level_k(ctx: GenContext) -> Draft:
    """Level-k: level-0 behaviour is stated; level-k best responds to level-(k-1). Guessing game: level-k guess =
    (top/2) * p^k. 11-20 game: level-0 requests a stated amount, each level best responds by enumeration. Matrix game:
    level-0 mixes uniformly, level-k best responds to the opponent's level-(k-1) action. k grows with grade."""
    rng = ctx.rng
    k = ctx.scale(1, 3)
    kind = rng.choice(("beauty", "request", "matrix"))
    n_opts = ctx.n_options(3, 5)
    rank = rng.randrange(n_opts)  # guessing and request games: the key's rank among the options, drawn first
    if kind == "beauty":
        return _level_k_guess(ctx, k, n_opts, rank)
    if kind == "request":
        return _level_k_request(ctx, k, n_opts, rank)
    return _level_k_matrix(ctx, k)


def _level_k_guess(ctx: GenContext, k: int, n_opts: int, rank: int) -> Draft:
    """The guessing (beauty-contest) game: a level-k player guesses (top/2) * p^k."""
    rng = ctx.rng

    def draw_beauty():
        p = rng.choice((Fraction(2, 3), Fraction(1, 2), Fraction(3, 4), Fraction(4, 5), Fraction(3, 5)))
        top = rng.choice((100, 100, 60, 80, 120, 200))
        ans = beauty_contest_guess(top, p, k)
        n = rng.choice([x for x in range(5, 41) if x != ans])  # the number of players is not the key
        setup = T["lk_beauty_setup"].format(domain=ctx.domain, n=n, top=top, p=fmt_frac(p))
        tid, ask = ctx.phrase(T, "lk_beauty", k=k, below=k - 1)
        half = Fraction(top, 2)
        # plausible mistakes: one level too few / too many, p applied to the top instead of the mean, 1 - p
        mistakes = [half * p ** (k - 1), half * p ** (k + 1), top * p**k, half * (1 - p) ** k]
        # other guesses of the same kind: the mean or the top scaled by powers of p, 1 - p and the other ratios
        ratios = (Fraction(2, 3), Fraction(1, 2), Fraction(3, 4), Fraction(4, 5), Fraction(3, 5), 1 - p, p)
        fill = [base * r**j for base in (half, Fraction(top)) for r in ratios for j in range(1, 5)]
        stem = f"{setup} {ask}"
        try:
            dis = ranked_distractors(rng, ans, fmt_num, [v for v in mistakes if 0 < v < top],
                                     [v for v in fill if 0 < v < top], n_opts, stem, rank)
        except ValueError:
            return None
        return tid, stem, ans, dis, {"kind": "beauty", "p": p, "top": top, "n": n, "k": k}

    tid, stem, ans, dis, params = retry(draw_beauty)
    return Draft(tid, stem, fmt_num(ans), tuple(dis), params, n_opts)


def _level_k_request(ctx: GenContext, k: int, n_opts: int, rank: int) -> Draft:
    """The 11-20 money request game: level 0 requests a stated amount, each level best responds by enumeration."""
    rng = ctx.rng
    a, b = ctx.people(2)
    tid, ask = ctx.phrase(T, "lk_request", a=a, b=b, k=k, below=k - 1)

    def draw():
        lo = rng.choice((11, 1, 21, 5))
        hi = lo + rng.choice((9, 9, 7, 11))
        bonus = rng.randint(2, 25)
        # level 0 requests a stated amount (the maximum in the original 11-20 game, any amount here), so the
        # level-k request lies anywhere in the range and is not itself a number of the question
        start = rng.randint(lo + 2, hi)
        ans = level_k_request(lo, hi, bonus, k, start)
        if ans is None:
            return None
        stem = T["lk_request_setup"].format(a=a, b=b, lo=fmt_money(lo), hi=fmt_money(hi), bonus=fmt_money(bonus),
                                            start=fmt_money(start), ask=ask)
        if _is_stated(fmt_money(ans), _numbers(stem)):
            return None
        mistakes = [start - k + 1, start - k - 1, hi - k, start - 1, hi - 1]
        try:
            dis = ranked_distractors(rng, ans, fmt_money, [c for c in mistakes if lo <= c <= hi],
                                     range(lo, hi + 1), n_opts, stem, rank)
        except ValueError:  # too few unstated amounts in the range: draw again
            return None
        return lo, hi, bonus, start, ans, stem, dis

    lo, hi, bonus, start, ans, stem, dis = retry(draw)
    params = {"kind": "request", "lo": lo, "hi": hi, "bonus": bonus, "k": k, "start": start}
    return Draft(tid, stem, fmt_money(ans), tuple(dis), params, n_opts)


def _level_k_matrix(ctx: GenContext, k: int) -> Draft:
    """A matrix game: level 0 mixes uniformly, level k best responds to the opponent's level-(k-1) action."""
    rng = ctx.rng
    m = ctx.scale(2, 3)
    players = ctx.people(2)
    names = _action_names(ctx, m)
    kk = min(k, 2) if m == 3 else k
    i = rng.randrange(2)

    def draw_game():
        g = random_game(rng, players, [names, names], 0, 20)
        a = level_k_action(g, i, kk)
        return None if a is None else (g, a)

    g, a = retry(draw_game)
    form = choose_form(rng, g)
    tid, ask = ctx.phrase(T, "lk_matrix", player=players[i], other=players[1 - i], k=kk, below=kk - 1)
    correct = names[a]
    # no "each action with equal probability" (level-0 play): a level-k >= 1 player never does that, so it would
    # never be right -- an answer cue
    dis = [x for x in names if x != correct]
    params = {"kind": "matrix", "game": g.params(), "form": form, "player": i, "k": kk}
    return _game_draft(ctx, g, (tid, ask), correct, dis, params, min(m, ctx.n_options(3, 4)))


# ================================================================================================================
# 3.2 Extensive-form games (perfect information)

Tree = dict[str, Any]  # decision node {"id", "player", "moves": [[letter, child], ...]} or leaf {"pay": [..]}


def tree_decision_nodes(tree: Tree) -> list[Tree]:
    """Decision nodes in breadth-first order."""
    out, queue = [], [tree]
    while queue:
        node = queue.pop(0)
        if "moves" in node:
            out.append(node)
            queue.extend(child for _, child in node["moves"])
    return out


@dataclass(frozen=True)
class TreeShape:
    """A random game tree's shape: at most ``depth`` moves deep, ``root_branch`` moves at the root and ``branch``
    elsewhere, a move ending the game early with probability ``p_leaf``, ``n_players`` moving in turn, payoffs in
    ``[lo, hi]``, between ``min_nodes`` and ``max_nodes`` decision nodes."""

    depth: int
    root_branch: int
    branch: int
    p_leaf: float
    n_players: int
    lo: int
    hi: int
    min_nodes: int
    max_nodes: int


def random_tree(rng, shape: TreeShape) -> Tree | None:
    """Random perfect-information game tree of ``shape`` (``None`` when its size is out of bounds); players move in
    turn by depth; every player's leaf payoffs differ (so no decision node has a tie). Node ids and move names
    (:data:`MOVE_NAMES`) are assigned breadth-first."""

    def build(d: int) -> Tree:
        if d == shape.depth or (d >= 1 and rng.random() < shape.p_leaf):
            return {"pay": None}
        b = shape.root_branch if d == 0 else shape.branch
        return {"player": d % shape.n_players, "moves": [[None, build(d + 1)] for _ in range(b)]}

    tree = build(0)
    nodes = tree_decision_nodes(tree)
    if not shape.min_nodes <= len(nodes) <= shape.max_nodes:
        return None
    letter = iter(MOVE_NAMES)
    leaves = []
    for idx, node in enumerate(nodes, 1):
        node["id"] = idx
        for mv in node["moves"]:
            mv[0] = next(letter)
            if "pay" in mv[1]:
                leaves.append(mv[1])
    columns = [rng.sample(range(shape.lo, shape.hi + 1), len(leaves)) for _ in range(shape.n_players)]
    for li, leaf in enumerate(leaves):
        leaf["pay"] = [columns[p][li] for p in range(shape.n_players)]
    return tree


# Move names of game trees: words, so that no strategy is named by a letter that could be confused with the answer
# letters A, B, C... under which the options are listed.
MOVE_NAMES = tuple(VOCABULARY["move_names"])


def backward_induction(tree: Tree) -> tuple[tuple[int, ...], dict[int, str]]:
    """Payoffs of the backward-induction outcome and the plan (node id -> chosen letter) at every decision node."""
    plan: dict[int, str] = {}

    def solve(node: Tree) -> tuple[int, ...]:
        if "pay" in node:
            return tuple(node["pay"])
        vals = [(solve(child), letter) for letter, child in node["moves"]]
        best = max(vals, key=lambda v: v[0][node["player"]])
        if sum(1 for v in vals if v[0][node["player"]] == best[0][node["player"]]) > 1:
            raise ValueError("tie in backward induction")
        plan[node["id"]] = best[1]
        return best[0]

    return solve(tree), plan


def play_tree(tree: Tree, plan: dict[int, str]) -> tuple[tuple[int, ...], list[str]]:
    """Outcome payoffs and the path of move names when everyone follows ``plan``."""
    node, path = tree, []
    while "moves" in node:
        letter = plan[node["id"]]
        path.append(letter)
        node = dict(node["moves"])[letter]
    return tuple(node["pay"]), path


def tree_is_nash(tree: Tree, plan: dict[int, str], n_players: int) -> bool:
    """No player gains by switching to any other complete plan for their own decision nodes."""
    nodes = tree_decision_nodes(tree)
    base_pay, _ = play_tree(tree, plan)
    for i in range(n_players):
        mine = [n for n in nodes if n["player"] == i]
        for alt in itertools.product(*([m[0] for m in n["moves"]] for n in mine)):
            trial = dict(plan)
            trial.update({n["id"]: a for n, a in zip(mine, alt, strict=False)})
            if play_tree(tree, trial)[0][i] > base_pay[i]:
                return False
    return True


def all_plans(tree: Tree) -> list[dict[int, str]]:
    nodes = tree_decision_nodes(tree)
    return [
        dict(zip((n["id"] for n in nodes), combo, strict=False))
        for combo in itertools.product(*([m[0] for m in n["moves"]] for n in nodes))
    ]


def render_tree_words(tree: Tree, players: Sequence[str]) -> str:
    out = []
    for node in tree_decision_nodes(tree):
        who = players[node["player"]]
        moves = [T["strategy"].format(move=m[0]) for m in node["moves"]]
        parts = []
        for letter, child in node["moves"]:
            if "pay" in child:
                pays = join_list([T["tree_payoff"].format(payoff=v, player=players[p])
                                  for p, v in enumerate(child["pay"])])
                parts.append(T["tree_ends"].format(move=letter, payoffs=pays))
            else:
                parts.append(T["tree_leads"].format(move=letter, node=child["id"]))
        out.append(T["tree_node"].format(node=node["id"], player=who, moves=join_list(moves, "or"),
                                         parts="; ".join(parts)))
    return " ".join(out)


def render_tree_outline(tree: Tree, players: Sequence[str]) -> str:
    lines = []

    def walk(node: Tree, indent: int) -> None:
        for letter, child in node["moves"]:
            pad = "  " * indent
            if "pay" in child:
                pays = ", ".join(f"{players[p]} {v}" for p, v in enumerate(child["pay"]))
                lines.append(pad + T["outline_end"].format(move=letter, payoffs=pays))
            else:
                lines.append(pad + T["outline_node"].format(move=letter, node=child["id"],
                                                            player=players[child["player"]]))
                walk(child, indent + 1)

    lines.append(T["outline_root"].format(player=players[tree["player"]]))
    walk(tree, 0)
    return "\n".join(lines)


def _tree_for_grade(ctx: GenContext, offset: int = 0) -> Tree:
    shape = min(3, ctx.scale(0, 3) + offset)
    spec = {0: (2, 2, 2, 0.0, 3, 3), 1: (3, 2, 2, 0.5, 4, 7), 2: (3, 2, 2, 0.2, 5, 7), 3: (3, 3, 2, 0.5, 5, 7)}
    depth, rb, b, p_leaf, lo_n, hi_n = spec[shape]
    lo, hi = (0, 12) if shape < 2 else (-10, 30)
    return retry(lambda: random_tree(ctx.rng, TreeShape(depth, rb, b, p_leaf, 2, lo, hi, lo_n, hi_n)))


def _tree_text(ctx: GenContext, tree: Tree, players: Sequence[str]) -> tuple[str, str]:
    gv = GAME_VOCABS[ctx.domain]
    intro = T["tree_intro"].format(setting=gv.setting.format(a=players[0], b=players[1]), unit=gv.unit)
    if ctx.rng.random() < 0.5:
        return "words", f"{intro} {render_tree_words(tree, players)}"
    return "outline", f"{intro}\n{render_tree_outline(tree, players)}"


@generator("backward_induction")
def backward_induction_element(ctx: GenContext) -> Draft:
    """Backward induction on a perfect-information tree (all payoffs of a player differ, so it is unique). Asked:
    the optimal strategy at a decision point (possibly off the equilibrium path), one player's payoff in the
    outcome, or the path played. Trees grow from 3 to 7 decision points with grade. Outcome template: the options
    are the asked player's payoffs at other ends of the tree, and the key's rank among them is drawn first (the tree
    is redrawn until it allows that rank), since the backward-induction payoff is otherwise usually the largest."""
    rng = ctx.rng
    players = ctx.people(2)
    kind = rng.choice(("node", "outcome", "path"))
    who = rng.randrange(2)
    n_out = ctx.n_options(3, 5)
    rank = rng.randrange(n_out)

    def draw():
        tree = _tree_for_grade(ctx)
        if kind != "outcome":
            return tree
        pay, _ = backward_induction(tree)
        vals = [lp[who] for _, lp in tree_leaves(tree)]
        below = sum(v < pay[who] for v in vals)
        above = sum(v > pay[who] for v in vals)
        return tree if below >= rank and above >= n_out - 1 - rank else None

    tree = retry(draw)
    pay, plan = backward_induction(tree)
    _, path = play_tree(tree, plan)
    form, text = _tree_text(ctx, tree, players)
    params = {"tree": tree, "kind": kind, "players": players}
    n_opts = n_out
    if kind == "node":
        params["node"], tid, ask, correct, dis, n_opts = _bi_node(ctx, tree, plan, players)
    elif kind == "outcome":
        tid, ask = ctx.phrase(T, "bi_out", player=players[who])
        vals = [lp[who] for _, lp in tree_leaves(tree)]
        below = sorted({v for v in vals if v < pay[who]})
        above = sorted({v for v in vals if v > pay[who]})
        rng.shuffle(below)
        rng.shuffle(above)
        correct = str(pay[who])
        dis = [str(v) for v in below[:rank] + above[: n_out - 1 - rank]]
        params["asked"] = who
    else:
        tid, ask = ctx.phrase(T, "bi_path")
        correct = _fmt_path(path)
        routes = [r for r, _ in tree_leaves(tree) if r != path]
        rng.shuffle(routes)  # not the first leaves in tree order: those share their first move, the key stood out
        dis = [_fmt_path(r) for r in routes]
    return Draft(f"{tid}.{form}", f"{text}\n{ask}", correct, tuple(dis), params, min(n_opts, len(dis) + 1))


def tree_leaves(tree: Tree) -> list[tuple[list[str], list[int]]]:
    """Every end of ``tree`` in depth-first order: the moves leading there and its payoffs."""
    leaves: list[tuple[list[str], list[int]]] = []

    def collect(node, route):
        for letter, child in node["moves"]:
            if "pay" in child:
                leaves.append((route + [letter], child["pay"]))
            else:
                collect(child, route + [letter])

    collect(tree, [])
    return leaves


def _fmt_path(route: Sequence[str]) -> str:
    return ", then ".join(T["strategy"].format(move=x) for x in route)


def _bi_node(ctx: GenContext, tree: Tree, plan: dict, players: Sequence[str]):
    """Backward induction asked at a random decision point (possibly off the path): the strategy chosen there."""
    node = ctx.rng.choice(tree_decision_nodes(tree))
    tid, ask = ctx.phrase(T, "bi_node", node=node["id"], mover=players[node["player"]])
    correct = T["strategy"].format(move=plan[node["id"]])
    # no "either strategy; same payoff": the tree has no ties, so it would never be right
    dis = [T["strategy"].format(move=m[0]) for m in node["moves"] if m[0] != plan[node["id"]]]
    return node["id"], tid, ask, correct, dis, min(len(dis) + 1, ctx.n_options(3, 4))


def bargaining_offers(pies: Sequence[int]) -> list[int]:
    """Alternating offers over shrinking pies (rounds 1..R, proposers alternate, a rejected last offer gives both
    nothing, a responder accepts when indifferent). Backward induction: the round-t offer to the responder equals
    what the responder would keep as next round's proposer (0 in the last round)."""
    offers = [0] * len(pies)
    keep_next = 0
    for t in reversed(range(len(pies))):
        offers[t] = keep_next
        keep_next = pies[t] - offers[t]
    return offers


def _plan_text(tree: Tree, plan: dict[int, str], players: Sequence[str]) -> str:
    parts = []
    for i, who in enumerate(players):
        mine = [n["id"] for n in tree_decision_nodes(tree) if n["player"] == i]
        parts.append(T["plan"].format(player=who, moves=join_list([T["plan_move"].format(move=plan[nid], node=nid)
                                                                   for nid in mine])))
    return "; ".join(parts)


def _hamming(p: dict[int, str], q: dict[int, str]) -> int:
    return sum(p[k] != q[k] for k in p)


def _plans_around(rng, key: dict[int, str], pool: list[dict[int, str]], must: list[dict[int, str]], k: int):
    """``k`` distractor plans, the plans in ``must`` among them, such that the key is the option closest to all the
    others (fewest changed choices) in about 1 of k + 1 questions and the one farthest from them in about 1 of k + 1,
    as any option would be: option sets are drawn around a pivot (the key, a ``must`` plan or a plan one change from
    either) until one gives the key the role drawn first."""
    want = _draw_role(rng, k + 1)
    anchors = [key] + must
    chosen: list[dict[int, str]] = []
    for _ in range(60):
        anchor = rng.choice(anchors)
        near = [p for p in pool if _hamming(p, anchor) == 1]
        pivot = anchor if not near or rng.random() < 0.3 else rng.choice(near)
        chosen = [p for p in must if p != key][:k]
        rest = [p for p in pool if p not in chosen]
        rng.shuffle(rest)
        rest.sort(key=lambda p: _hamming(p, pivot))
        chosen += rest[: k - len(chosen)]
        opts = [key] + chosen
        spread = [sum(_hamming(x, y) for y in opts) for x in opts]
        role = "central" if spread[0] == min(spread) else "outlier" if spread[0] == max(spread) else "between"
        if role == want:
            break
    return chosen


@generator("subgame_perfect_ne")
def subgame_perfect_ne(ctx: GenContext) -> Draft:
    """Tree template: the subgame-perfect equilibrium is the backward-induction plan at *every* decision point (on
    and off the path); the distractors hold a Nash equilibrium that is not subgame perfect where one exists (found
    by checking every plan) and plans close to a pivot plan (so the key is not the option most like the others).
    Bargaining template (two or three rounds): alternating offers over shrinking amounts; the SPE first offer is
    computed by backward induction; asked are the round-1 offer (three rounds; with two it is a stated amount) or
    what the first proposer keeps, or whether the responder accepts a stated offer (iff it is at least the SPE offer;
    accept and reject each right in half of the questions)."""
    rng = ctx.rng
    players = ctx.people(2)
    if rng.random() < 0.55:
        return _spe_tree(ctx, players)
    return _spe_bargaining(ctx, players)


def _spe_tree(ctx: GenContext, players: Sequence[str]) -> Draft:
    """The subgame-perfect plan of a tree among Nash equilibria that are not and plans close to a pivot plan."""
    rng = ctx.rng
    tree = _tree_for_grade(ctx)
    _, plan = backward_induction(tree)
    plans = all_plans(tree)
    nash_not_spe = [p for p in plans if p != plan and tree_is_nash(tree, p, 2)]
    others = [p for p in plans if p != plan]
    form, text = _tree_text(ctx, tree, players)
    tid, ask = ctx.phrase(T, "spe_tree")
    n_opts = ctx.n_options(3, 5)
    must = [rng.choice(nash_not_spe)] if nash_not_spe else []
    chosen = _plans_around(rng, plan, others, must, n_opts - 1)
    dis = [_plan_text(tree, p, players) for p in chosen]
    params = {"kind": "tree", "tree": tree, "n_nash_not_spe": len(nash_not_spe), "players": players}
    return Draft(f"{tid}.{form}", f"{text}\n{ask}", _plan_text(tree, plan, players), tuple(dis), params, n_opts)


def _bargaining_rules(ctx: GenContext, a: str, b: str, pies: Sequence[int]) -> str:
    """The rules of alternating offers over the shrinking ``pies``, ``a`` proposing first."""
    rounds = len(pies)
    desc = [T["bargaining_intro"].format(a=a, b=b, domain=ctx.domain),
            T["bargaining_first_round"].format(a=a, b=b, pie=fmt_money(pies[0]))]
    desc += [T["bargaining_next_round"].format(round=t, pie=fmt_money(pies[t]), next=t + 1,
                                               proposer=a if t % 2 == 0 else b) for t in range(1, rounds)]
    desc.append(T["bargaining_end"].format(round=rounds))
    return " ".join(desc)


def _spe_bargaining(ctx: GenContext, players: Sequence[str]) -> Draft:
    """Alternating offers: the SPE round-1 offer, what the first proposer keeps, or the response to an offer."""
    rng = ctx.rng
    rounds = ctx.scale(2, 3)
    a, b = players
    asked = rng.choice(("respond", "keep") + (("offer",) if rounds == 3 else ()))
    accept = _coin(rng)
    n_opts = ctx.n_options(3, 5)
    rank = rng.randrange(n_opts)  # offer / keep: the key's rank among the options, drawn before the amounts

    def draw():
        unit = rng.choice((1, 10, 100))
        pies = [rng.randint(6, 20) * 10 * unit]
        for _ in range(rounds - 1):
            pies.append(pies[-1] - rng.randint(1, pies[-1] // (10 * unit) - 2) * 5 * unit)
        offers = bargaining_offers(pies)
        if asked == "respond":
            return unit, pies, offers, None, None
        key = {"offer": offers[0], "keep": pies[0] - offers[0]}[asked]
        # the asked amount is no amount of the question (an unstated key among unstated distractors)
        if key <= 0 or key in pies:
            return None
        tid, ask = ctx.phrase(T, f"spe_{asked}", a=a, b=b, pie=fmt_money(pies[0]))
        stem = f"{_bargaining_rules(ctx, a, b, pies)} {ask}"
        half, short = pies[0] // 2, bargaining_offers(pies[:-1])[0]
        mistakes = [half, pies[0] - pies[1], pies[1] - pies[-1], short, pies[0] - short, pies[0] - key]
        try:
            dis = ranked_distractors(rng, key, fmt_money, [m for m in mistakes if 0 < m < pies[0]],
                                     range(5 * unit, pies[0], 5 * unit), n_opts, stem, rank)
        except ValueError:
            return None
        return unit, pies, offers, key, (tid, stem, dis)

    unit, pies, offers, key, amount = retry(draw)
    if asked == "respond":
        return _spe_respond(ctx, players, pies, offers[0], unit, accept)
    tid, stem, dis = amount
    params = {"kind": asked, "pies": pies}
    return Draft(tid, stem, fmt_money(key), tuple(dis), params, n_opts)


def _spe_respond(ctx: GenContext, players: Sequence[str], pies: list[int], spe_offer: int, unit: int,
                 accept: bool) -> Draft:
    """Whether the responder accepts a stated round-1 offer near the SPE offer: ``accept``-ing ones lie as many steps
    above it (the SPE offer itself included) as rejected ones below."""
    rng = ctx.rng
    a, b = players
    step = rng.choice((unit, 5 * unit))
    if accept:
        x = spe_offer + step * rng.randint(0, max(0, min(5, (pies[0] - spe_offer) // step - 1)))
    else:
        x = spe_offer - step * rng.randint(1, max(1, min(5, (spe_offer - unit) // step)))
    x = max(unit, x)
    tid, ask = ctx.phrase(T, "spe_resp", a=a, b=b, offer=fmt_money(x))
    accept = x >= spe_offer
    yes, no = T["accept_offer"].format(offer=fmt_money(x)), T["reject_offer"].format(offer=fmt_money(x))
    correct, other = (yes, no) if accept else (no, yes)
    params = {"kind": "respond", "pies": pies, "offer": x}
    return Draft(tid, f"{_bargaining_rules(ctx, a, b, pies)} {ask}", correct, (other,), params, 2)


# ================================================================================================================
# 3.3 Imperfect information: sequential equilibrium


def selten_sequential_equilibria(out: Sequence[int], pay: dict[tuple[int, int], Sequence[int]]) -> list[Profile]:
    """Pure profiles (s1, s2) of a sequential equilibrium in the game: player 1 chooses Out (payoffs ``out``, game
    ends), L (=1) or R (=2); player 2, not seeing whether L or R was chosen, picks action 0 or 1; ``pay[(s1, s2)]``.
    Beliefs mu = P(L | player 2 moves) follow Bayes' rule on the path; when Out is played the information set is
    off the path and every mu in [0, 1] is consistent (trembles towards L and R in any ratio). Player 2's expected
    gain of one action over the other is linear in mu, so 'optimal for some mu' is checked at mu = 0 and mu = 1."""

    def u1(s1: int, s2: int) -> int:
        return out[0] if s1 == 0 else pay[(s1, s2)][0]

    def p2_ok(s2: int, mu: Fraction) -> bool:
        ev = [mu * pay[(1, b)][1] + (1 - mu) * pay[(2, b)][1] for b in (0, 1)]
        return ev[s2] >= ev[1 - s2]

    eqs = []
    for s1 in (0, 1, 2):
        for s2 in (0, 1):
            if any(u1(a, s2) > u1(s1, s2) for a in (0, 1, 2)):
                continue
            mus = [Fraction(1)] if s1 == 1 else [Fraction(0)] if s1 == 2 else [Fraction(0), Fraction(1)]
            if any(p2_ok(s2, mu) for mu in mus):
                eqs.append((s1, s2))
    return eqs


def selten_nash(out: Sequence[int], pay: dict[tuple[int, int], Sequence[int]]) -> list[Profile]:
    """Pure Nash equilibria of the same game (player 2's choice is unrestricted when Out is played)."""
    u = {(0, b): (out[0], out[1]) for b in (0, 1)} | {k: tuple(v) for k, v in pay.items()}
    return [(a, b) for a in (0, 1, 2) for b in (0, 1)
            if all(u[(a, b)][0] >= u[(x, b)][0] for x in (0, 1, 2))
            and all(u[(a, b)][1] >= u[(a, y)][1] for y in (0, 1))]


def pooling_sequential(
    prior0: Fraction, base: Sequence[int], cost: Sequence[Sequence[int]], recv: Sequence[Sequence[int]], m: int
) -> bool:
    """Signalling game: sender type 0 (probability prior0) or 1 sends message 0 or 1 (type t pays cost[t][m]); the
    receiver, seeing only the message, takes action 0 or 1; sender gets base[action] - cost; receiver gets
    recv[type][action]. A pooling sequential equilibrium on message m exists iff some receiver best reply r* to the
    prior at m and some reply r' at the other message that is a best reply to *some* belief (checked at beliefs 0
    and 1, the gain is linear) leave both types weakly preferring m."""

    def brs(mu0: Fraction) -> list[int]:
        ev = [mu0 * recv[0][a] + (1 - mu0) * recv[1][a] for a in (0, 1)]
        return [a for a in (0, 1) if ev[a] == max(ev)]

    off = 1 - m
    feasible_off = set(brs(Fraction(0))) | set(brs(Fraction(1)))
    for r_on in brs(prior0):
        for r_off in feasible_off:
            if all(base[r_on] - cost[t][m] >= base[r_off] - cost[t][off] for t in (0, 1)):
                return True
    return False


SIGNAL_VOCAB: dict[str, tuple[str, str, tuple[str, str], tuple[str, str], tuple[str, str]]] = {
    # sender, receiver, (type 0, type 1), (free message, costly message), (receiver action 0, action 1)
    domain: (entry["sender"], entry["receiver"], tuple(entry["types"]), tuple(entry["messages"]),
             tuple(entry["actions"]))
    for domain, entry in VOCABULARY["signalling"].items()
}


@generator("sequential_equilibrium")
def sequential_equilibrium(ctx: GenContext) -> Draft:
    """Template 'profile': a game where player 1 takes an outside option or one of two moves that player 2 cannot
    tell apart; answer = the one option that is a pure sequential equilibrium profile (solver above; distractors are
    first the Nash equilibria that are not sequential, then non-equilibria). Template 'belief': given player 2's
    belief mu, the sequentially rational action maximizes expected payoff. Template 'pooling' (signalling game):
    which pooling outcomes can be sustained in a sequential equilibrium (solver above)."""
    rng = ctx.rng
    kind = rng.choice(("profile", "belief", "pooling") if ctx.level > 0 else ("profile", "belief"))
    if kind == "pooling":
        return _pooling_question(ctx)
    players = ctx.people(2)
    gv = GAME_VOCABS[ctx.domain]
    acts1 = ["Stay out"] + rng.sample(gv.actions, 2)
    acts2 = rng.sample(["Respond", "Ignore", "Match", "Retreat", "Escalate", "Wait"], 2)
    a, b = players
    n_opts = ctx.n_options(3, 4)

    def draw():
        out = [rng.randint(0, 6), rng.randint(0, 12)]
        pay = {(s1, s2): [rng.randint(-4, 12), rng.randint(-4, 12)] for s1 in (1, 2) for s2 in (0, 1)}
        eqs = selten_sequential_equilibria(out, pay)
        mu = Fraction(rng.randint(1, 19) * 5, 100)
        if kind == "profile" and not 1 <= len(eqs) <= 7 - n_opts:
            return None
        if kind == "belief" and (
            mu * pay[(1, 0)][1] + (1 - mu) * pay[(2, 0)][1] == mu * pay[(1, 1)][1] + (1 - mu) * pay[(2, 1)][1]
        ):
            return None
        return out, pay, eqs, mu

    out, pay, eqs, mu = retry(draw)
    intro = T["entry_game"].format(setting=gv.setting.format(a=a, b=b), unit=gv.unit, a=a, b=b, stay=acts1[0],
                                   x=acts1[1], y=acts1[2], out_a=out[0], out_b=out[1], r=acts2[0], s=acts2[1])
    desc = " ".join([intro] + [T["entry_outcome"].format(a=a, b=b, x=acts1[s1], r=acts2[s2], pay_a=pay[(s1, s2)][0],
                                                         pay_b=pay[(s1, s2)][1]) for s1 in (1, 2) for s2 in (0, 1)])
    label = lambda p: T["entry_profile"].format(a=a, b=b, x=acts1[p[0]], r=acts2[p[1]])  # noqa: E731
    params = {"kind": kind, "out": out, "pay": [[s1, s2, *pay[(s1, s2)]] for s1 in (1, 2) for s2 in (0, 1)],
              "players": players, "acts1": acts1, "acts2": acts2}
    if kind == "profile":
        eq = rng.choice(eqs)
        nash_only = [p for p in selten_nash(out, pay) if p not in eqs]
        rest = [(s1, s2) for s1 in (0, 1, 2) for s2 in (0, 1) if (s1, s2) not in eqs and (s1, s2) not in nash_only]
        rng.shuffle(rest)
        tid, ask = ctx.phrase(T, "seq_prof", b=b)
        params["shown"] = list(eq)
        return Draft(tid, f"{desc} {ask}", label(eq), tuple(label(p) for p in nash_only + rest), params, n_opts)
    ev = [mu * pay[(1, s2)][1] + (1 - mu) * pay[(2, s2)][1] for s2 in (0, 1)]
    best = 0 if ev[0] > ev[1] else 1
    tid, ask = ctx.phrase(T, "seq_belief", a=a, b=b, x=acts1[1], y=acts1[2], pct=fmt_num(mu * 100))
    params["mu"] = mu
    correct = acts2[best]
    # no "either; indifferent": the expected payoffs never tie here, so it would never be right
    return Draft(tid, f"{desc} {ask}", correct, (acts2[1 - best],), params, 2)


def _pooling_question(ctx: GenContext) -> Draft:
    """Pooling on the free message can always be supported (off the path the receiver may answer the costly message
    with the action the sender likes less), so the question is whether pooling on the costly message can be too: its
    answer is drawn 50/50 first and the payoffs are drawn until they give it."""
    rng = ctx.rng
    sender, receiver, types, msgs, racts = SIGNAL_VOCAB.get(ctx.domain, SIGNAL_VOCAB["finance"])
    costly_too = _coin(rng)

    def draw():
        prior = rng.randint(2, 8) * 10
        base = [rng.randint(3, 8), rng.randint(0, 2)]  # what the sender gets from receiver action 0 / 1
        cost = [[0, rng.randint(1, 4)], [0, rng.randint(1, 6)]]
        recv = [[rng.randint(-3, 4), rng.randint(-3, 4)] for _ in (0, 1)]
        pool = [pooling_sequential(Fraction(prior, 100), base, cost, recv, m) for m in (0, 1)]
        assert pool[0], "pooling on the free message is always supportable"
        return (prior, base, cost, recv, pool) if pool[1] == costly_too else None

    prior, base, cost, recv, pool = retry(draw)
    words = {"free": msgs[0], "costly": msgs[1]}
    desc = T["pooling_game"].format(
        sender=capitalized(sender), receiver=capitalized(receiver), t0=types[0], t1=types[1],
        prior=prior, cost0=cost[0][1], cost1=cost[1][1], r0=racts[0], r1=racts[1], base0=base[0], base1=base[1],
        recv00=recv[0][0], recv01=recv[0][1], recv10=recv[1][0], recv11=recv[1][1], **words)
    # no "only pooling on the costly message" and no "neither": pooling on the free message is always supportable,
    # so they would never be right
    only_free = T["pooling_only_free"].format(**words)
    either = T["pooling_either"].format(**words)
    params = {"kind": "pooling", "prior_pct": prior, "base": base, "cost": cost, "recv": recv, "msgs": list(msgs)}
    if rng.random() < 0.5:
        tid, ask = ctx.phrase(T, "seq_pool_which")
        correct, other = (either, only_free) if costly_too else (only_free, either)
        return Draft(tid, f"{desc} {ask}", correct, (other,), params, 2)
    params["asked"] = 1
    tid, ask = ctx.phrase(T, "seq_pool_yn", **words)
    correct, dis = yes_no(costly_too)
    return Draft(tid, f"{desc} {ask}", correct, dis, params, 2)


# ================================================================================================================
# 3.4 Infinitely repeated games


Point = tuple[Fraction, Fraction]


def _cross(o: Point, a: Point, b: Point) -> Fraction:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def convex_hull(points: Iterable[Point]) -> list[Point]:
    """Counter-clockwise hull vertices (Andrew's monotone chain, exact)."""
    pts = sorted(set(points))
    if len(pts) <= 2:
        return pts

    def chain(seq: Iterable[Point]) -> list[Point]:
        out: list[Point] = []
        for p in seq:
            while len(out) >= 2 and _cross(out[-2], out[-1], p) <= 0:
                out.pop()
            out.append(p)
        return out

    return chain(pts)[:-1] + chain(reversed(pts))[:-1]


def hull_position(hull: Sequence[Point], pt: Point) -> str:
    """'inside', 'boundary' or 'outside' of a convex polygon with >= 3 CCW vertices."""
    crosses = [_cross(hull[i], hull[(i + 1) % len(hull)], pt) for i in range(len(hull))]
    if any(c < 0 for c in crosses):
        return "outside"
    return "boundary" if any(c == 0 for c in crosses) else "inside"


def _hull_distance(hull: Sequence[Point], pt: Point) -> float:
    """Euclidean distance from ``pt`` to the boundary of a convex polygon (floating point; used to pick points)."""
    px, py = float(pt[0]), float(pt[1])
    best = math.inf
    for i in range(len(hull)):
        (ax, ay), (bx, by) = hull[i], hull[(i + 1) % len(hull)]
        ax, ay, bx, by = float(ax), float(ay), float(bx), float(by)
        dx, dy = bx - ax, by - ay
        t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)))
        best = min(best, math.hypot(px - ax - t * dx, py - ay - t * dy))
    return best


def polygon_area(poly: Sequence[Point]) -> Fraction:
    """The shoelace formula."""
    return abs(sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(poly, [*poly[1:], poly[0]], strict=True))) / 2


def minmax_value(g: Game, i: int) -> Fraction:
    """Player i's (mixed) minmax value in a two-player game where the punisher has two actions:
    min over q in [0,1] of max over i's actions of the expected payoff; the max of lines is convex and piecewise
    linear, so the minimum is at q = 0, q = 1 or where two lines cross."""
    if len(g.actions[1 - i]) != 2:
        raise ValueError("minmax_value needs a punisher with two actions")
    # player i's payoff of each own action when the punisher plays action 0 / action 1
    lines = [(g.u(i, _mine(i, a, 0)), g.u(i, _mine(i, a, 1))) for a in range(len(g.actions[i]))]
    qs = {Fraction(0), Fraction(1)}
    for (x0, x1), (y0, y1) in itertools.combinations(lines, 2):
        denom = (x0 - x1) - (y0 - y1)
        if denom:
            q = Fraction(y1 - x1, denom)
            if 0 <= q <= 1:
                qs.add(q)
    return min(max(q * l0 + (1 - q) * l1 for l0, l1 in lines) for q in qs)


def _stage_game(ctx: GenContext, k: int, lo: int, hi: int) -> Game:
    players = ctx.people(2)
    names = _action_names(ctx, k)
    return random_game(ctx.rng, players, [names, names], lo, hi)


def _repeated_intro(ctx: GenContext, g: Game, form: str, template: str = "repeated_intro") -> str:
    return T[template].format(setting=GAME_VOCABS[ctx.domain].setting.format(a=g.players[0], b=g.players[1]),
                                      game=render_game(g, form))


def _pt_text(g: Game, pt: Point) -> str:
    return f"{g.players[0]} {fmt_num(pt[0])}, {g.players[1]} {fmt_num(pt[1])}"


def _points_ranked(rng, sample_good, sample_bad, k: int, ranks: tuple[int, int],
                   accept=None) -> tuple[Point, list[Point]] | None:
    """One good point and ``k`` distinct bad ones, ``ranks[0]`` of them below the good point in the first coordinate
    and ``ranks[1]`` in the second (points tied with the good one left out), and ``accept(good, bad)`` true when
    given. The caller draws the ranks once, before redrawing games, so that neither the largest, the smallest nor
    the median payoff points at the key. None when the draws cannot give them."""
    good = sample_good()
    if good is None:
        return None
    quads: dict[tuple[bool, bool], list[Point]] = {(x, y): [] for x in (True, False) for y in (True, False)}
    seen: set[Point] = set()
    for _ in range(60 * k):
        p = sample_bad()
        if p is None or p in seen or p[0] == good[0] or p[1] == good[1]:
            continue
        seen.add(p)
        quads[(p[0] < good[0], p[1] < good[1])].append(p)
    rx, ry = ranks
    plans = []
    for both in range(k + 1):  # bad points below in both coordinates; the rest follow
        only_x, only_y = rx - both, ry - both
        neither = k - both - only_x - only_y
        counts = {(True, True): both, (True, False): only_x, (False, True): only_y, (False, False): neither}
        if all(0 <= c <= len(quads[q]) for q, c in counts.items()):
            plans.append(counts)
    if not plans:
        return None
    for _ in range(30):
        counts = rng.choice(plans)
        bad = [p for q, c in counts.items() for p in rng.sample(quads[q], c)]
        if accept is None or accept(good, bad):
            return good, bad
    return None


@generator("repeated_feasibility")
def repeated_feasibility(ctx: GenContext) -> Draft:
    """A payoff profile is feasible iff it is a convex combination of the stage game's payoff profiles, i.e. in
    their convex hull (exact hull test; points on the hull's boundary are never asked). Asked points lie in the box
    spanned by the stage payoffs (so no point is infeasible merely for exceeding every payoff). Yes/No (the answer
    drawn 50/50 first) or 'which is feasible' (exactly one feasible option; its rank by either payoff drawn at
    random)."""
    rng = ctx.rng
    k = ctx.scale(2, 3)
    yn = rng.random() < 0.5
    yes = _coin(rng)
    n = ctx.n_options(3, 4)
    ranks = (rng.randrange(n), rng.randrange(n))
    role = _draw_role(rng, n)  # the feasible point is central among the options otherwise: it is drawn inside

    def draw():
        g = _stage_game(ctx, k, 0, 10)
        hull = convex_hull((Fraction(a), Fraction(b)) for a, b in g.pay.values())
        if len(hull) < 3 or not 8 <= polygon_area(hull) <= 70:
            return None
        xs = [x for x, _ in hull]
        ys = [y for _, y in hull]

        def point(want: str):
            for _ in range(400):
                pt = (Fraction(rng.randint(int(2 * min(xs)), int(2 * max(xs))), 2),
                      Fraction(rng.randint(int(2 * min(ys)), int(2 * max(ys))), 2))
                # infeasible points near the hull (near misses), not in the far corners of the box where they would
                # share extreme payoffs with each other and leave the feasible key the odd one out
                if hull_position(hull, pt) == want and (want == "inside" or _hull_distance(hull, pt) <= 1.5):
                    return pt
            return None

        if yn:
            pt = point("inside" if yes else "outside")
            return None if pt is None else (g, [pt])
        found = _points_ranked(rng, lambda: point("inside"), lambda: point("outside"), n - 1, ranks,
                               lambda good, bad: _similarity_role([_pt_text(g, p) for p in [good, *bad]]) == role)
        return None if found is None else (g, [found[0]] + found[1])

    g, points = retry(draw)
    form = choose_form(rng, g)
    if yn:
        pt = points[0]
        tid, ask = ctx.phrase(T, "feas_yn", profile=_pt_text(g, pt), x=fmt_num(pt[0]), a=g.players[0],
                              y=fmt_num(pt[1]), b=g.players[1])
        correct, dis = yes_no(yes)
        params = {"game": g.params(), "form": form, "kind": "yn", "points": [pt]}
        return Draft(f"{tid}.{form}", f"{_repeated_intro(ctx, g, form)}\n{ask}", correct, dis, params, 2)
    tid, ask = ctx.phrase(T, "feas_which")
    params = {"game": g.params(), "form": form, "kind": "which", "points": points}
    return Draft(f"{tid}.{form}", f"{_repeated_intro(ctx, g, form)}\n{ask}", _pt_text(g, points[0]),
                 tuple(_pt_text(g, p) for p in points[1:]), params, n)


@generator("repeated_enforceability")
def repeated_enforceability(ctx: GenContext) -> Draft:
    """The paper's definition: a payoff profile is enforceable iff it is the long-run average payoff of a Nash
    equilibrium of the infinitely repeated game, which by the folk theorem (limit-of-means payoffs, as the stem says)
    holds iff it is feasible (in the convex hull of the stage payoffs) and gives every player more than their
    (mixed-strategy) minmax value (solver above). Points on the hull's boundary or exactly at a minmax value are never
    asked, and every phrasing names the criterion ("in a Nash equilibrium of the repeated game"). Templates: the
    minmax value itself (the key's rank among the options drawn at random; the distractors are payoffs of the table
    when the key is one, other fractions when it is not), Yes/No for a profile (the answer drawn 50/50 first; a "No"
    profile fails exactly one condition), or which profile is enforceable (exactly one; each distractor fails exactly
    one condition: it is infeasible though above both minmax values, or feasible but below one player's minmax
    value; the key's rank by either payoff drawn at random)."""
    rng = ctx.rng
    lo, hi = (0, 10) if ctx.level < 0.5 else (-5, 15)
    kind = rng.choice(("value", "yn", "which"))
    yes = _coin(rng)
    n = ctx.n_options(3, 4)
    ranks = (rng.randrange(n), rng.randrange(n))
    role = _draw_role(rng, n)
    stem_role = _draw_role(rng, n)  # nor does the key share the most (or fewest) numbers with the payoff table
    n_value = ctx.n_options(3, 5)
    value_rank = rng.randrange(n_value)  # 'value' template: the key's rank, drawn before the game

    def draw():
        g = _stage_game(ctx, 2, lo, hi)
        v = [minmax_value(g, 0), minmax_value(g, 1)]
        hull = convex_hull((Fraction(a), Fraction(b)) for a, b in g.pay.values())
        if not (max(v) <= hi - 2 and min(v) >= lo + 1) or len(hull) < 3:
            return None
        if kind == "value":
            found_value = _minmax_value_question(ctx, g, v, (lo, hi), n_value, value_rank)
            return None if found_value is None else (g, v, found_value)
        failing = lambda: _enforcement_point(rng, hull, v, rng.choice(("infeasible", "below")))  # noqa: E731
        if kind == "yn":
            pt = _enforcement_point(rng, hull, v, "enforceable") if yes else failing()
            return None if pt is None else (g, v, [pt])
        table = " ".join(g.players + [str(x) for p in g.profiles() for x in g.pay[p]])
        stated = set(_TOKEN.findall(table.casefold()))

        def accept(good: Point, bad: list[Point]) -> bool:
            texts = [_pt_text(g, p) for p in [good, *bad]]
            return _similarity_role(texts) == role and _stem_role(texts, stated) == stem_role

        found = _points_ranked(rng, lambda: _enforcement_point(rng, hull, v, "enforceable"), failing, n - 1, ranks,
                               accept)
        return None if found is None else (g, v, [found[0]] + found[1])

    g, v, points = retry(draw)
    if kind == "value":
        form, i, tid, stem, dis = points
        params: dict[str, Any] = {"game": g.params(), "form": form, "kind": kind, "player": i}
        return Draft(f"{tid}.{form}", stem, fmt_num(v[i]), tuple(dis), params, n_value)
    form = choose_form(rng, g)
    intro = _repeated_intro(ctx, g, form)
    params = {"game": g.params(), "form": form, "kind": kind, "points": points}
    if kind == "yn":
        tid, ask = ctx.phrase(T, "enf_yn", profile=_pt_text(g, points[0]))
        correct, dis = yes_no(yes)
        return Draft(f"{tid}.{form}", f"{intro}\n{ask}", correct, dis, params, 2)
    tid, ask = ctx.phrase(T, "enf_which")
    return Draft(f"{tid}.{form}", f"{intro}\n{ask}", _pt_text(g, points[0]), tuple(_pt_text(g, p) for p in points[1:]),
                 params, n)


def _enforcement_point(rng, hull: Sequence[Point], v: list[Fraction], want: str) -> Point | None:
    """A half-integer profile of kind ``want``: 'enforceable' (inside the hull, above both minmax values ``v``),
    'infeasible' (outside the hull but near it, above both) or 'below' (inside, below exactly one minmax value)."""
    xs, ys = [x for x, _ in hull], [y for _, y in hull]
    for _ in range(400):
        pt = (Fraction(rng.randint(int(2 * min(xs)) - 3, int(2 * max(xs)) + 3), 2),
              Fraction(rng.randint(int(2 * min(ys)) - 3, int(2 * max(ys)) + 3), 2))
        where = hull_position(hull, pt)
        if where == "boundary" or pt[0] == v[0] or pt[1] == v[1]:
            continue
        above = (pt[0] > v[0]) + (pt[1] > v[1])
        got = ("enforceable" if above == 2 else "below" if above == 1 else None) if where == "inside" else (
            "infeasible" if above == 2 and _hull_distance(hull, pt) <= 1.5 else None)
        if got == want:
            return pt
    return None


def _minmax_value_question(ctx: GenContext, g: Game, v: list[Fraction], payoff_range: tuple[int, int], n_value: int,
                           value_rank: int):
    """(form, player, template id, stem, distractors) of the minmax-value template (payoffs of the game within
    ``payoff_range``), or None when the game does not allow the drawn rank of the key."""
    rng = ctx.rng
    lo, hi = payoff_range
    form = choose_form(rng, g)
    i = rng.randrange(2)
    tid, ask = ctx.phrase(T, "enf_value", player=g.players[i], other=g.players[1 - i])
    stem = f"{_repeated_intro(ctx, g, form)}\n{ask}"
    own = [g.u(i, p) for p in g.profiles()]
    pure = min(max(g.u(i, _mine(i, a, b)) for a in range(2)) for b in range(2))
    maxmin = max(min(g.u(i, _mine(i, a, b)) for b in range(2)) for a in range(2))
    # stated candidates (payoffs of the table) serve a stated key, fractions between them an unstated one
    fill = [Fraction(x, d) for d in range(2, 8) for x in range(lo * d, hi * d + 1)]
    fill += [Fraction(x) for x in range(lo, hi + 1)]
    mistakes = [pure, maxmin, v[1 - i], *own, *[u for p in g.profiles() for u in g.pay[p]]]
    try:
        dis = ranked_distractors(rng, v[i], fmt_num, mistakes, fill, n_value, stem, value_rank)
    except ValueError:
        return None
    return form, i, tid, stem, dis


def grim_trigger_threshold(t: int, r: int, p: int) -> Fraction:
    """Grim trigger sustains mutual cooperation (as an SPE) iff delta >= (T - R) / (T - P)."""
    return Fraction(t - r, t - p)


def tit_for_tat_threshold(t: int, r: int, p: int, s: int) -> Fraction:
    """Tit-for-tat against tit-for-tat is a Nash equilibrium iff delta >= max((T-R)/(T-P), (T-R)/(R-S)): neither
    always defecting nor alternating defect/cooperate beats cooperating."""
    return max(Fraction(t - r, t - p), Fraction(t - r, r - s))


def punishment_sustains(t: int, r: int, p: int, delta: Fraction, length: int | None) -> bool:
    """Trigger strategy "play C; after any defection play D for ``length`` periods (None: forever), then C again":
    by the one-shot deviation principle it is a subgame-perfect equilibrium iff deviating once from cooperation
    does not pay, T - R <= (R - P) * (delta + ... + delta^length) (punishing costs the punisher nothing, since
    mutual D is a stage Nash equilibrium). ``length`` None gives grim trigger, delta >= (T - R) / (T - P)."""
    loss = Fraction(delta, 1 - delta) if length is None else sum(delta**k for k in range(1, length + 1))
    return t - r <= (r - p) * loss


PUNISHMENTS: tuple[int | None, ...] = (1, 2, 3, None)


def _punishment_text(length: int | None) -> str:
    if length is None:
        return T["punish_forever"]
    return T["punish_more" if length > 1 else "punish_one"].format(length=length)


NO_PUNISHMENT = T["no_punishment"]


@generator("trigger_strategies")
def trigger_strategies(ctx: GenContext) -> Draft:
    """Prisoner's-dilemma stage game (T > R > P > S, symmetric). Grim trigger sustains cooperation as a
    subgame-perfect equilibrium iff delta >= (T-R)/(T-P); tit-for-tat is a Nash equilibrium iff delta >=
    max((T-R)/(T-P), (T-R)/(R-S)); an L-period punishment iff T - R <= (R - P)(delta + ... + delta^L). Templates:
    the grim-trigger threshold (two decimals; the key's rank among the options drawn at random), Yes/No at a stated
    delta for grim trigger or tit-for-tat (the answer drawn 50/50 first, delta never at the threshold), and the
    shortest of the punishments 1, 2, 3 periods and forever that sustains cooperation at a stated delta, or none of
    them (each of the five answers drawn with equal probability)."""
    rng = ctx.rng
    players = ctx.people(2)
    coop, defect = rng.choice((("High", "Low"), ("Cooperate", "Defect"), ("Share", "Grab"), ("Hold back", "Undercut")))
    kinds = ["threshold", "yn", "punish"] + (["tft"] if ctx.level >= 0.5 else [])
    kind = rng.choice(kinds)
    yes = _coin(rng)
    target = rng.choice(PUNISHMENTS + ("none",))
    t_, r_, p_, s_, d = retry(lambda: _dilemma_payoffs(rng, kind, yes, target), 5000)
    a = [[r_, s_], [t_, p_]]
    g = matrix_game(players, [coop, defect], [coop, defect], a, [[a[j][i] for j in range(2)] for i in range(2)])
    form = choose_form(rng, g)
    grim = grim_trigger_threshold(t_, r_, p_)
    tft = tit_for_tat_threshold(t_, r_, p_, s_)
    intro = _repeated_intro(ctx, g, form, "trig_intro")
    params: dict[str, Any] = {"T": t_, "R": r_, "P": p_, "S": s_, "form": form, "kind": kind}
    if kind == "threshold":
        tid, ask = ctx.phrase(T, "trig_th", coop=coop, defect=defect)
        stem = f"{intro}\n{ask}"
        fmt2 = lambda x: f"{float(x):.2f}"  # noqa: E731
        mistakes = [Fraction(t_ - r_, r_ - s_), Fraction(r_ - p_, t_ - p_), 1 - grim, Fraction(t_ - r_, t_),
                    Fraction(t_ - r_, r_ - p_), Fraction(r_ - p_, r_ - s_)]
        fill = [Fraction(x, 100) for x in range(3, 98)]
        dis = ranked_distractors(rng, grim, fmt2, [m for m in mistakes if 0 < m < 1], fill, ctx.n_options(3, 5), stem)
        return Draft(f"{tid}.{form}", stem, fmt2(grim), tuple(dis), params, ctx.n_options(3, 5))
    params["delta"] = d
    tid, ask = ctx.phrase(T, {"yn": "trig_yn", "tft": "trig_tft", "punish": "trig_punish"}[kind], coop=coop,
                          defect=defect, delta=fmt_num(d))
    if kind in ("yn", "tft"):
        correct, dis = yes_no(d >= (grim if kind == "yn" else tft))
        return Draft(f"{tid}.{form}", f"{intro}\n{ask}", correct, dis, params, 2)
    options = [_punishment_text(L) for L in PUNISHMENTS] + [NO_PUNISHMENT]
    correct = NO_PUNISHMENT if target == "none" else _punishment_text(target)
    return Draft(f"{tid}.{form}", f"{intro}\n{ask}", correct, tuple(o for o in options if o != correct), params)


def _dilemma_payoffs(rng, kind: str, yes: bool, target: Any):
    """Prisoner's-dilemma payoffs (T, R, P, S) and a discount factor that fit the template ``kind``: a delta on the
    drawn side (``yes``) of the threshold, one whose shortest sustaining punishment is ``target``, or none with a
    grim-trigger threshold strictly between 0.05 and 0.95; None when the draw does not fit."""
    s_, p_ = sorted(rng.sample(range(-4, 10), 2))
    r_ = rng.randint(p_ + 1, p_ + 8)
    t_ = rng.randint(r_ + 1, r_ + 8)
    grim = grim_trigger_threshold(t_, r_, p_)
    tft = tit_for_tat_threshold(t_, r_, p_, s_)
    th = tft if kind == "tft" else grim
    if kind in ("yn", "tft"):
        # a delta on the drawn side of the threshold, two decimals, never equal to it
        grid = [Fraction(x, 100) for x in range(5, 99)]
        side = [d for d in grid if (d > th if yes else d < th)]
        return (t_, r_, p_, s_, rng.choice(side)) if side else None
    if kind == "punish":
        d = Fraction(rng.randint(5, 98), 100)
        works = [L for L in PUNISHMENTS if punishment_sustains(t_, r_, p_, d, L)]
        key = works[0] if works else "none"
        return (t_, r_, p_, s_, d) if key == target else None
    return (t_, r_, p_, s_, None) if Fraction(5, 100) < grim < Fraction(95, 100) else None

# ================================================================================================================
# 3.5 Bayesian games


def bayes_nash_2type(prior0: Fraction, u1: Sequence, u2: Sequence) -> list[tuple[tuple[int, int], int]]:
    """Pure Bayes-Nash equilibria: player 1 has type 0 (probability prior0) or 1 and plays (action of type 0,
    action of type 1); player 2 does not know the type. u1[t][a][b], u2[t][a][b]. Each type best responds to b, and
    b maximizes player 2's expected payoff given the type-contingent strategy."""
    m, n = len(u1[0]), len(u1[0][0])
    out = []
    for s in itertools.product(range(m), repeat=2):
        for b in range(n):
            if any(u1[t][x][b] > u1[t][s[t]][b] for t in (0, 1) for x in range(m)):
                continue
            ev = [prior0 * u2[0][s[0]][y] + (1 - prior0) * u2[1][s[1]][y] for y in range(n)]
            if ev[b] == max(ev):
                out.append((s, b))
    return out


def lemons_payoffs(
    probs: Sequence[int], seller: Sequence[int], buyer: Sequence[int], offers: Sequence[int]
) -> list[Fraction]:
    """Buyer's expected payoff of each take-it-or-leave-it price: a seller of quality q accepts iff price >=
    seller[q]; then the buyer gets buyer[q] - price."""
    return [
        sum((Fraction(p, 100) * (b - x) for p, s, b in zip(probs, seller, buyer, strict=False) if x >= s), Fraction(0))
        for x in offers
    ]


@generator("bayes_nash")
def bayes_nash(ctx: GenContext) -> Draft:
    """Template 'matrix': player 1 has two types with stated prior; pure Bayes-Nash equilibria by enumerating
    every type-contingent strategy profile; options contain exactly one equilibrium (or 'none'). Template 'offer'
    (market for lemons): the buyer's best take-it-or-leave-it price maximizes expected payoff given which seller
    types accept (unique); the candidate prices are the seller values and one buyer value (all stated), and the
    key's rank among them is drawn first."""
    rng = ctx.rng
    a_name, b_name = ctx.people(2)
    if rng.random() < 0.5:
        return _bne_offer(ctx, a_name, b_name)
    return _bne_matrix(ctx, a_name, b_name)


def _bne_offer(ctx: GenContext, a_name: str, b_name: str) -> Draft:
    """Market for lemons: the buyer's best take-it-or-leave-it offer (its rank among the candidates drawn first)."""
    rng = ctx.rng
    n_q = ctx.scale(2, 3)
    qualities = ["good", "bad"] if n_q == 2 else ["excellent", "average", "poor"]
    item = ctx.vocab.owned_item if ctx.vocab.owned_item else "an item"
    rank = rng.randrange(n_q + 1)

    def draw():
        probs = percent_split(rng, n_q)
        seller = sorted(rng.sample(range(10, 50), n_q), reverse=True)  # two-digit amounts: no length cue
        buyer = [s + rng.randint(1, 20) for s in seller]
        # the candidate offers: every seller value and one buyer value, all amounts the question states (an
        # unstated extra amount was never the best offer, which left the key among the stated ones)
        offers = sorted(set(seller + [rng.choice(buyer)]))
        if len(offers) != n_q + 1:
            return None
        vals = lemons_payoffs(probs, seller, buyer, offers)
        if unique_argmax(vals) != rank:  # the key's rank is drawn first
            return None
        return probs, seller, buyer, offers, vals

    probs, seller, buyer, offers, vals = retry(draw)
    names = {"a": a_name, "b": b_name}
    desc = " ".join([T["lemons_intro"].format(item=item, **names)]
                    + [T["lemons_quality"].format(p=p, quality=q, seller=fmt_money(s), buyer=fmt_money(b), **names)
                       for p, q, s, b in zip(probs, qualities, seller, buyer, strict=False)]
                    + [T["lemons_rule"].format(**names)])
    tid, ask = ctx.phrase(T, "bne_offer", b=b_name)
    best = offers[vals.index(max(vals))]
    params = {"kind": "offer", "probs": probs, "seller": seller, "buyer": buyer, "offers": offers}
    return Draft(tid, f"{desc} {ask}", fmt_money(best), tuple(fmt_money(x) for x in offers if x != best), params)


def _bne_matrix(ctx: GenContext, a_name: str, b_name: str) -> Draft:
    """Two types of the first player: the one pure Bayes-Nash equilibrium among the options (or that there is none)."""
    rng = ctx.rng
    n = ctx.scale(2, 3)
    gv = GAME_VOCABS[ctx.domain]
    acts1 = rng.sample(gv.actions, 2)
    acts2 = rng.sample(gv.actions, n)
    types = ("High", "Low")
    prior = rng.randint(2, 8) * 10
    # no pure Bayes-Nash equilibrium in 1 of n_opts questions, and "there is none" offered in every one
    n_opts = ctx.n_options(3, 5)
    want_none = rng.random() < 1 / n_opts

    def draw():
        u1 = [[[rng.randint(0, 12) for _ in range(n)] for _ in range(2)] for _ in range(2)]
        u2 = [[[rng.randint(0, 12) for _ in range(n)] for _ in range(2)] for _ in range(2)]
        eqs = bayes_nash_2type(Fraction(prior, 100), u1, u2)
        return (u1, u2, eqs) if (not eqs) == want_none else None

    u1, u2, eqs = retry(draw)
    names = {"a": a_name, "b": b_name}
    parts = [T["bne_game"].format(setting=gv.setting.format(**names), t0=types[0], t1=types[1], prior=prior,
                                  unit=gv.unit, **names)]
    for t in (0, 1):
        parts.append(T["bne_type"].format(type=types[t], **names))
        parts += [T["bne_outcome"].format(x=acts1[x], y=acts2[y], pay_a=u1[t][x][y], pay_b=u2[t][x][y], **names)
                  for x in range(2) for y in range(n)]

    def label(s: Sequence[int], b: int) -> str:
        return T["bne_profile"].format(x=acts1[s[0]], t0=types[0], y=acts1[s[1]], t1=types[1], r=acts2[b], **names)

    profiles = [(s, b) for s in itertools.product(range(2), repeat=2) for b in range(n)]
    non = [p for p in profiles if p not in eqs]
    rng.shuffle(non)
    tid, ask = ctx.phrase(T, "bne_matrix", **names)
    none = T["bne_none"]
    eq = rng.choice(eqs) if eqs else None
    correct = none if eq is None else label(*eq)
    params = {"kind": "matrix", "players": [a_name, b_name], "acts1": acts1, "acts2": acts2, "types": list(types),
              "prior_pct": prior, "u1": u1, "u2": u2, "shown": None if eq is None else [list(eq[0]), eq[1]]}
    dis = ([none] if eqs else []) + [label(*p) for p in non]
    return Draft(tid, " ".join([*parts, ask]), correct, tuple(dis), params, n_opts)


def entry_spbne(prior0: Fraction, modes: int, ent: Sequence, inc: Sequence) -> tuple[list[list[int]], int, list]:
    """Entry game: the entrant stays out (payoff 0) or enters in mode m = 1..modes; the incumbent, of type 0
    (probability prior0) or 1 and knowing its type, then fights (0) or accommodates (1). ent[m-1][t][r] and
    inc[m-1][t][r] are the payoffs. Subgame perfection: each type best responds after *every* entry mode (unique by
    construction); the entrant then maximizes expected payoff. Returns (responses[m-1][t], entrant action,
    expected payoffs [out, mode 1, ...])."""
    resp = [[max((0, 1), key=lambda r, m=m, t=t: inc[m][t][r]) for t in (0, 1)] for m in range(modes)]
    vals = _entrant_values(prior0, modes, ent, resp)
    return resp, vals.index(max(vals)), vals


def _entrant_values(prior0: Fraction, modes: int, ent: Sequence, resp: Sequence) -> list[Fraction]:
    """The entrant's expected payoff of staying out and of each entry mode, given the types' responses."""
    return [Fraction(0)] + [prior0 * ent[m][0][resp[m][0]] + (1 - prior0) * ent[m][1][resp[m][1]] for m in range(modes)]


def entry_bne(prior0: Fraction, modes: int, ent: Sequence, inc: Sequence, e: int, resp: Sequence) -> bool:
    """Bayes-Nash (not necessarily subgame-perfect) check of a full profile: the entrant best responds to the
    responses, and each incumbent type best responds only after the entry mode actually chosen."""
    vals = _entrant_values(prior0, modes, ent, resp)
    if vals[e] < max(vals):
        return False
    return e == 0 or all(inc[e - 1][t][resp[e - 1][t]] >= inc[e - 1][t][1 - resp[e - 1][t]] for t in (0, 1))


@generator("subgame_perfect_bayes_nash")
def subgame_perfect_bayes_nash(ctx: GenContext) -> Draft:
    """Entry game with a privately informed incumbent (tough/weak). Subgame perfection rules out non-credible
    threats: each type's response to every entry mode is its payoff-maximizing one; the entrant picks the action
    with the highest expected payoff (unique). Templates: the entrant's action (1-2 entry modes; every action the key
    equally often) or the full equilibrium profile (one entry mode; each of the 8 profiles the key equally often;
    the distractors hold a Bayes-Nash equilibrium that is not subgame perfect where there is one)."""
    rng = ctx.rng
    e_name, i_name = ctx.people(2)
    modes = 1 if ctx.level < 1 or rng.random() < 0.4 else 2
    mode_names = ["Enter"] if modes == 1 else ["Enter small", "Enter big"]
    types = ("tough", "weak")
    prior = rng.randint(2, 8) * 10
    pr0 = Fraction(prior, 100)
    profile_template = modes == 1 and rng.random() < 0.6
    # the key is drawn first, uniformly: the entrant's action (entrant template) or the entrant's action and both
    # types' responses (profile template); the payoffs are drawn until they give it
    want_e = rng.randrange(modes + 1)
    want_resp = [[rng.randrange(2), rng.randrange(2)]]

    def draw():
        # entering against a fight loses money; against accommodation it usually pays, but not always (so that
        # staying out although both types would accommodate can be the equilibrium too)
        ent = [[[rng.randint(-8, 2), rng.randint(-3, 10)] for _ in (0, 1)] for _ in range(modes)]
        inc = [[[rng.randint(0, 10), rng.randint(0, 10)] for _ in (0, 1)] for _ in range(modes)]
        if any(inc[m][t][0] == inc[m][t][1] for m in range(modes) for t in (0, 1)):
            return None
        resp, e, vals = entry_spbne(pr0, modes, ent, inc)
        ok = vals.count(max(vals)) == 1 and e == want_e and not (profile_template and resp != want_resp)
        return (ent, inc, resp, e, vals) if ok else None

    ent, inc, resp, e, vals = retry(draw, 20000)
    stay = [rng.randint(5, 15), rng.randint(5, 15)]  # incumbent's payoff by type if the entrant stays out
    gv = GAME_VOCABS[ctx.domain]
    names = {"e": e_name, "i": i_name, "t0": types[0], "t1": types[1]}
    desc = [T["spbne_intro"].format(setting=gv.setting.format(a=e_name, b=i_name), prior=prior, stay0=stay[0],
                                    stay1=stay[1], modes=join_list([m.lower() for m in mode_names], "or"), **names)]
    desc += [T["spbne_case"].format(mode=mode_names[m].lower(), type=types[t], fight_e=ent[m][t][0],
                                    fight_i=inc[m][t][0], accommodate_e=ent[m][t][1], accommodate_i=inc[m][t][1],
                                    **names) for m in range(modes) for t in (0, 1)]
    params = {"prior_pct": prior, "modes": modes, "ent": ent, "inc": inc, "stay": stay, "players": [e_name, i_name]}
    actions = ["Stay out"] + mode_names
    if profile_template:
        r_word = ("fights", "accommodates")

        def label(ea: int, rs: Sequence[Sequence[int]]) -> str:
            return T["spbne_profile"].format(action=actions[ea], response0=r_word[rs[0][0]],
                                             response1=r_word[rs[0][1]], **names)

        correct_prof = (e, resp)
        dis_profiles, (tid, ask) = _spbne_profile_options(ctx, pr0, ent, inc, correct_prof, names)
        params["kind"] = "profile"
        return Draft(tid, " ".join([*desc, ask]), label(*correct_prof), tuple(label(*p) for p in dis_profiles),
                     params, ctx.n_options(3, 5))
    tid, ask = ctx.phrase(T, "spbne_entrant", **names)
    params["kind"] = "entrant"
    correct = actions[e]
    # no "choose by a fair coin flip": with a unique best action it is never right (offered 146 times, right 0)
    dis = [x for x in actions if x != correct]
    return Draft(tid, " ".join([*desc, ask]), correct, tuple(dis), params)


def _spbne_profile_options(ctx: GenContext, pr0: Fraction, ent: list, inc: list, correct_prof: tuple,
                            names: dict[str, str]):
    """The distractor profiles of the profile template (a non-credible Bayes-Nash equilibrium first in half of the
    questions, then the other profiles shuffled) and its (template id, question)."""
    rng = ctx.rng
    profs = [(ea, [[r0, r1]]) for ea in (0, 1) for r0 in (0, 1) for r1 in (0, 1)]
    bne_only = [p for p in profs if p != correct_prof and entry_bne(pr0, 1, ent, inc, *p)]
    # the non-credible Bayes-Nash equilibrium (typically staying out against a threatened fight) is offered in
    # half of the questions only: always offering it made it the option right less often than chance
    if rng.random() < 0.5:
        bne_only = []
    rest = [p for p in profs if p != correct_prof and p not in bne_only[:1]]
    rng.shuffle(rest)
    return bne_only[:1] + rest, ctx.phrase(T, "spbne_prof", **names)
