"""STEER setting 1 (Foundations) generators: arithmetic, optimization, probability, logic, theory of mind.

Each generator's docstring states its answer rule; the answer is always computed by the code below it.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from choicelab.studies.steer.items.base import (
    Draft,
    GenContext,
    capitalized,
    count_of,
    entity_numbers,
    fmt_frac,
    fmt_money,
    fmt_num,
    fmt_pct,
    generator,
    join_list,
    percent_split,
    yes_no,
)
from choicelab.studies.steer.items.domains import TEMPLATES, VOCABULARY

T = TEMPLATES["foundations"]  # the questions' fixed sentences (data/steer/templates.yaml)

# ================================================================================================================
# Distractors without surface cues (see choicelab/studies/steer/cues.py): the key's rank among the options is
# uniform (no "pick the median/largest/smallest"), and numeric distractors are written like the key (same number of
# decimals, so no "pick the most precise / longest" option).


def rank_balanced(rng, key: Any, items: Sequence[tuple[Any, str]], n: int) -> list[str]:
    """``n - 1`` distractor texts from ``items`` ((value, text) in order of plausibility, none equal to the key's
    text) such that the key's rank by value among the ``n`` options is uniform over the ranks the items allow;
    an item whose value equals the key's goes to a random side."""
    below, above = [], []
    for value, text in items:
        if value < key or (value == key and rng.random() < 0.5):
            below.append(text)
        else:
            above.append(text)
    lo, hi = max(0, n - 1 - len(above)), min(n - 1, len(below))
    if lo > hi:
        raise ValueError(f"only {len(items)} distractors for {n} options (key {key!r})")
    r = rng.randint(lo, hi)
    return below[:r] + above[: n - 1 - r]


_FIRST_NUMBER = re.compile(r"\d[\d,]*(?:\.(\d+))?")


def decimals(text: str) -> int:
    """Digits after the decimal point of the first number in ``text`` (0 for whole numbers)."""
    m = _FIRST_NUMBER.search(text)
    return len(m.group(1)) if m and m.group(1) else 0


@dataclass(frozen=True)
class NumberForm:
    """The values :func:`numeric_draft` may offer and how: within ``[lo, hi]`` (open bounds for probabilities are
    the caller's), ``unit`` scaling a value to what is shown (100 for percentages), whole numbers when ``integer``,
    as many decimals as the key when ``same_form``, perturbations up to about ``spread`` times the key."""

    lo: float | None = 0
    hi: float | None = None
    unit: float = 1
    integer: bool = False
    same_form: bool = True
    spread: float = 0.5


WHOLE = NumberForm(integer=True)
PERCENT = NumberForm(lo=Fraction(1, 100), hi=Fraction(99, 100), unit=100, spread=0.4)


def numeric_draft(ctx: GenContext, phrased: tuple[str, str], key: float | Fraction, fmt: Callable[[Any], str],
                  candidates: Sequence[Any], params: dict[str, Any], form: NumberForm = NumberForm()) -> Draft:
    """The question ``phrased`` (template id, text) with 3-5 numeric options: ``key`` and distractors, the
    plausible-mistake ``candidates`` first, then perturbations on both sides, as ``form`` allows, the key's rank
    among the options uniform (:func:`rank_balanced`)."""
    rng, n = ctx.rng, ctx.n_options(3, 5)
    lo, hi, unit, integer, same_form, spread = form.lo, form.hi, form.unit, form.integer, form.same_form, form.spread
    key_text = fmt(key)
    places = decimals(key_text)
    seen = {key_text}
    items: list[tuple[float, str]] = []

    def offer(value) -> bool:
        value = Fraction(value) if not isinstance(value, float) else value
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            return False
        text = fmt(value)
        if text in seen or (same_form and decimals(text) != places):
            return False
        seen.add(text)
        items.append((float(value), text))
        return True

    for c in candidates:
        offer(c)
    shown = float(key) * unit
    base = abs(shown) or 1.0
    step = 10 ** -places if same_form else (1 if integer else 10 ** -2)
    for _ in range(600):
        n_below = sum(v < float(key) for v, _ in items)
        if n_below >= n - 1 and len(items) - n_below >= n - 1:
            break
        side = -1 if n_below < n - 1 and (len(items) - n_below >= n - 1 or rng.random() < 0.5) else 1
        delta = step * rng.randint(1, max(2 * n, round(base * spread / step)))
        value = round(shown + side * delta, places if same_form else 2)
        if integer:
            value = round(value)
        offer(Fraction(str(value)) / Fraction(str(unit)))
    return Draft(*phrased, key_text, tuple(rank_balanced(rng, float(key), items, n)), params, n)


# ================================================================================================================
# 1.1 Arithmetic


def _digits_number(rng, digits: int) -> int:
    return rng.randint(10 ** (digits - 1) if digits > 1 else 1, 10**digits - 1)


@generator("add_subtract")
def add_subtract(ctx: GenContext) -> Draft:
    """Answer = the signed sum of the terms (running total never negative). Digits grow 1 -> 3 and the number of
    terms 2 -> 4 with grade."""
    rng, v = ctx.rng, ctx.vocab
    digits, n_terms = ctx.scale(1, 3), ctx.scale(2, 4)
    terms = [_digits_number(rng, digits)]
    total = terms[0]
    for _ in range(n_terms - 1):
        x = _digits_number(rng, digits)
        if rng.random() < 0.5 and x <= total:
            x = -x
        terms.append(x)
        total += x
    name = ctx.people(1)[0]
    tid, style = ctx.phrasing("add", ("expr", "story", "money"))
    if style == "expr":
        expr = str(terms[0]) + "".join(f" {'+' if t > 0 else '-'} {abs(t)}" for t in terms[1:])
        q, fmt = T["add_expr"].format(expr=expr), fmt_num
    elif style == "story":
        steps = " ".join(T["add_step"].format(name=name, verb=T["add_gets" if t > 0 else "add_gives"],
                                              amount=count_of(abs(t), *v.counted)) for t in terms[1:])
        q = T["add_story"].format(name=name, amount=count_of(terms[0], *v.counted), steps=steps, things=v.counted[1])
        fmt = fmt_num
    else:
        steps = " ".join(T["add_money_step"].format(verb=T["add_receive" if t > 0 else "add_spend"],
                                                    amount=fmt_money(abs(t))) for t in terms[1:])
        q = T["add_money"].format(role=v.role, amount=fmt_money(terms[0]), steps=steps)
        fmt = fmt_money
    no_sign = sum(abs(t) for t in terms)
    cands = [total + 1, total - 1, total + 10, total - 10, no_sign]
    return numeric_draft(ctx, (tid, q), total, fmt, cands, {"terms": terms, "style": style}, WHOLE)


@generator("multiply_divide")
def multiply_divide(ctx: GenContext) -> Draft:
    """Answer = a*b for products; for divisions the dividend is drawn as a*b so the answer a is exact."""
    rng, v = ctx.rng, ctx.vocab
    digits = ctx.scale(1, 3)
    a, b = _digits_number(rng, digits), rng.randint(2, 9 if digits < 3 else 19)
    op = rng.choice(("mul", "div"))
    tid, style = ctx.phrasing("muldiv", ("expr", "story"))
    if op == "mul":
        answer = a * b
        if style == "expr":
            q = T["mul_expr"].format(a=a, b=b)
        else:
            q = T["mul_story"].format(b=b, item=v.price_item, price=fmt_money(a))
        cands = [a + b, a * (b - 1), a * (b + 1), a * b + 10]
    else:
        answer = a
        if style == "expr":
            q = T["div_expr"].format(ab=a * b, b=b)
        else:
            q = T["div_story"].format(total=fmt_money(a * b), item=v.price_item, b=b)
        cands = [a * b - b, a + 1, a - 1, a * b // max(b - 1, 1)]
    fmt = fmt_num if style == "expr" else fmt_money
    return numeric_draft(ctx, (tid, q), answer, fmt, cands, {"op": op, "a": a, "b": b, "style": style}, WHOLE)


@generator("compute_expectations")
def compute_expectations(ctx: GenContext) -> Draft:
    """Answer = sum_i p_i * x_i over the stated outcomes (probabilities sum to 100%)."""
    rng, v = ctx.rng, ctx.vocab
    k = ctx.scale(2, 4)
    probs = percent_split(rng, k)
    values = rng.sample(range(0, 10 * ctx.scale(2, 20) + 1), k)
    ev = sum(Fraction(p, 100) * x for p, x in zip(probs, values, strict=False))
    parts = [T["exp_chance"].format(p=p, amount=count_of(x, *v.counted)) for p, x in zip(probs, values, strict=False)]
    tid, lead = ctx.phrase(T, "exp", parts=join_list(parts), person=ctx.people(1)[0])
    q = T["exp_question"].format(lead=lead, things=v.counted[1])
    cands = [Fraction(sum(values), k), max(values), sum(values), sum(Fraction(p, 100) for p in probs) * min(values)]
    return numeric_draft(ctx, (tid, q), ev, fmt_num, cands, {"probs_pct": probs, "values": values})


# ================================================================================================================
# 1.2 Optimization


@generator("discrete_optimization")
def discrete_optimization(ctx: GenContext) -> Draft:
    """Answer = the numbered alternative with the largest (or smallest, as asked) of the listed amounts; all amounts
    distinct. The options name the alternatives, not the amounts: offered the amounts themselves, "pick the largest
    (smallest) number" would answer every question asking for the largest (smallest) without reading it."""
    rng, v = ctx.rng, ctx.vocab
    k = ctx.scale(2, 6)
    cents = ctx.level >= 0.5
    pool = range(1, 20 * ctx.scale(5, 50))
    values = [x + (rng.randint(1, 99) / 100 if cents else 0) for x in rng.sample(pool, k)]
    want_max = rng.random() < 0.5
    best = max(values) if want_max else min(values)
    noun = v.option_noun.capitalize()
    labels = [f"{noun} {i}" for i in entity_numbers(k)]

    def listed(key: str) -> list[str]:
        return [T[key].format(label=lab, value=fmt_money(x)) for lab, x in zip(labels, values, strict=True)]

    tid, q = ctx.phrase(T, "disc", worth=join_list(listed("disc_worth")), costs=join_list(listed("disc_costs")),
                        entries="; ".join(listed("disc_entry")), noun=v.option_noun, role=v.role,
                        than_others=T["disc_than_others"] if k > 2 else "",
                        **T["disc_words"]["max" if want_max else "min"])
    others = [lab for lab, x in zip(labels, values, strict=True) if x != best]
    return Draft(tid, q, labels[values.index(best)], tuple(others), {"values": values, "want_max": want_max}, k)


@generator("continuous_optimization")
def continuous_optimization(ctx: GenContext) -> Draft:
    """Closed-form calculus optima: box from an s x s sheet V=x(s-2x)^2 -> x=s/6; fence along a wall
    A=x(P-2x) -> x=P/4; profit (p-c)(a-bp) -> p=(a+bc)/(2b)."""
    rng, v = ctx.rng, ctx.vocab
    family = rng.choice(("fence", "profit") if ctx.level < 0.5 else ("box", "profit", "fence"))
    if family == "box":
        s = rng.choice(range(6, 61, 6)) if ctx.level < 0.75 else rng.randint(8, 60)
        answer = Fraction(s, 6)
        q = T["cont_box"].format(s=s)
        cands = [Fraction(s, 4), Fraction(s, 3), Fraction(s, 8), Fraction(s, 5), Fraction(s, 2)]
        params = {"family": family, "s": s}
    elif family == "fence":
        perimeter = rng.randint(10, 100) * 4 if ctx.level < 0.5 else rng.randint(40, 400)
        answer = Fraction(perimeter, 4)
        q = T["cont_fence"].format(role=v.role, perimeter=perimeter)
        cands = [Fraction(perimeter, 2), Fraction(perimeter, 3), Fraction(perimeter, 6), Fraction(perimeter, 8)]
        params = {"family": family, "perimeter": perimeter}
    else:
        b = rng.randint(1, 5)
        c = rng.randint(0, 20) if ctx.level >= 0.5 else 0
        a = rng.randint(b * c + 20, b * c + 200)
        answer = Fraction(a + b * c, 2 * b)
        cost = T["cont_unit_cost"].format(cost=fmt_money(c)) if c else ""
        q = T["cont_profit"].format(role=v.role, item=v.price_item, a=a, b=b, cost=cost)
        cands = [Fraction(a, b), Fraction(a, 2 * b), Fraction(a + b * c, b), Fraction(a, 4 * b) + c]
        params = {"family": family, "a": a, "b": b, "c": c}
    return numeric_draft(ctx, (f"cont.{family}", q), answer, fmt_num, cands, params, NumberForm(lo=Fraction(1, 100)))


# two products made in batches per domain (data/steer/domains.yaml)
_PRODUCTS = {domain: tuple(words["products"]) for domain, words in VOCABULARY["counting"].items()}


def _best_mixes(profit, hours, limit_h, material, limit_m):
    """Every feasible integer mix (x, y) with its profit, the most profitable first."""
    feasible = [((x, y), x * profit[0] + y * profit[1])
                for x in range(limit_h // hours[0] + 1) for y in range(limit_h // hours[1] + 1)
                if x * hours[0] + y * hours[1] <= limit_h
                and (material is None or x * material[0] + y * material[1] <= limit_m)]
    return sorted(feasible, key=lambda t: -t[1])


@generator("constrained_optimization")
def constrained_optimization(ctx: GenContext) -> Draft:
    """Integer production mix maximizing profit subject to a labour limit (and, at higher grades, a material
    limit); the answer is the unique optimum found by enumerating every feasible mix. Distractors are other
    feasible mixes and infeasible mixes with higher profit."""
    rng = ctx.rng
    two = ctx.level >= 0.5
    for _ in range(200):
        profit = (rng.randint(2, 30), rng.randint(2, 30))
        hours = (rng.randint(1, 6), rng.randint(1, 6))
        limit_h = rng.randint(8, 30)
        material = (rng.randint(1, 5), rng.randint(1, 5)) if two else None
        limit_m = rng.randint(6, 25) if two else None
        feas = _best_mixes(profit, hours, limit_h, material, limit_m)
        if len(feas) >= 4 and feas[0][1] > feas[1][1] and feas[0][1] > 0:
            break
    else:  # pragma: no cover - practically unreachable
        raise ValueError("constrained_optimization: no unique optimum found")
    a, b = _PRODUCTS[ctx.domain]
    # every option names both products the same way ("audits: 1"), so no count-noun agreement sets one apart
    mix = lambda m: T["constr_mix"].format(first=capitalized(a), x=m[0], second=b, y=m[1])  # noqa: E731
    extra = " " + T["constr_material"].format(a=a, b=b, ma=material[0], mb=material[1], limit=limit_m) if two else ""
    tid, lead = ctx.phrase(T, "constr", role=ctx.vocab.role)
    q = T["constr_question"].format(lead=lead, a=a, pa=fmt_money(profit[0]), ha=count_of(hours[0], "hour", "hours"),
                                    b=b, pb=fmt_money(profit[1]), hb=count_of(hours[1], "hour", "hours"),
                                    limit=limit_h, extra=extra)
    best = feas[0][0]
    infeasible = []
    for x in range(0, limit_h + 2):
        for y in range(0, limit_h + 2):
            over = x * hours[0] + y * hours[1] > limit_h or (two and x * material[0] + y * material[1] > limit_m)
            if over and x * profit[0] + y * profit[1] > feas[0][1] and x + y <= best[0] + best[1] + 3:
                infeasible.append((x, y))
    rng.shuffle(infeasible)
    # mixes made of numbers the stem states (hours, limits): the optimum often is one (limit / hours), so the
    # distractors are too, else "pick the plan whose numbers the stem mentions" finds the key
    stated = sorted({*hours, limit_h, *(material or ()), *((limit_m,) if two else ())})
    from_stem = [m for s in stated for m in ((s, best[1]), (best[0], s), (s, 0), (0, s))]
    rng.shuffle(from_stem)
    ordered = ([m for m, _ in feas[1:3]] + from_stem[:2] + infeasible[:2] + [m for m, _ in feas[3:]] + from_stem[2:]
               + infeasible[2:])
    mixes = [m for m in dict.fromkeys(ordered) if m != best]
    # the key's rank by the number of the first product is uniform (no "pick the largest/smallest first number")
    n = ctx.n_options(3, 5)
    dis = rank_balanced(rng, best[0], [(m[0], mix(m)) for m in mixes], n)
    params = {"profit": profit, "hours": hours, "limit_h": limit_h, "material": material, "limit_m": limit_m}
    return Draft(tid, q, mix(best), tuple(dis), params, n)


# ================================================================================================================
# 1.3 Probability

COLOURS = tuple(VOCABULARY["colours"])  # the colours urn draws use (data/steer/domains.yaml)
# an urn and what it holds, per domain (data/steer/domains.yaml)
_CONTAINERS = {domain: tuple(words["urn"]) for domain, words in VOCABULARY["counting"].items()}


@generator("outcome_probabilities")
def outcome_probabilities(ctx: GenContext) -> Draft:
    """One draw: P(colour) = count/total; 'either' question: (c1+c2)/total; two draws without replacement:
    P(both colour c) = c/N * (c-1)/(N-1). Answers are exact reduced fractions."""
    rng = ctx.rng
    k = ctx.scale(2, 5)
    colours = rng.sample(COLOURS, k)
    counts = [rng.randint(1, ctx.scale(6, 15)) for _ in colours]
    total = sum(counts)
    container, things = _CONTAINERS[ctx.domain]
    listing = join_list([T["prob_count"].format(n=n, colour=c) for n, c in zip(counts, colours, strict=False)])
    kind = rng.choice(("one", "either", "two") if ctx.level >= 0.5 else ("one",))
    i = rng.randrange(k)
    if kind == "two" and counts[i] < 2:
        kind = "one"
    if kind == "one":
        answer = Fraction(counts[i], total)
        ask = T["prob_one"].format(colour=colours[i])
        cands = [Fraction(counts[i], total - counts[i]) if total > counts[i] else Fraction(1, 2), 1 - answer,
                 Fraction(1, k), Fraction(counts[i], total + 1)]
    elif kind == "either":
        j = (i + 1) % k
        answer = Fraction(counts[i] + counts[j], total)
        ask = T["prob_either"].format(colour=colours[i], other=colours[j])
        cands = [Fraction(counts[i] * counts[j], total * total), Fraction(counts[i], total), 1 - answer, Fraction(2, k)]
    else:
        answer = Fraction(counts[i], total) * Fraction(counts[i] - 1, total - 1)
        ask = T["prob_two"].format(colour=colours[i])
        cands = [Fraction(counts[i], total) ** 2, Fraction(counts[i], total), Fraction(2 * counts[i], total),
                 Fraction(counts[i] - 1, total - 1)]
    params = {"kind": kind, "counts": counts, "target": [i, (i + 1) % k] if kind == "either" else [i]}
    tid, lead = ctx.phrase(T, "prob", Container=container.capitalize(), container=container, listing=listing,
                           things=things)
    n = ctx.n_options(3, 5)
    dis = rank_balanced(rng, answer, _frac_distractors(rng, answer, cands, n), n)
    return Draft(tid, f"{lead} {ask}", fmt_frac(answer), tuple(dis), params, n)


def _frac_distractors(rng, answer: Fraction, cands, n: int) -> list[tuple[Fraction, str]]:
    """(value, text) of the plausible-mistake ``cands`` strictly between 0 and 1, then random fractions with the
    key's denominator (or a near one) until ``n - 1`` lie on each side of the key where that is possible."""
    items: dict[str, Fraction] = {}
    for c in cands:
        c = Fraction(c)
        if 0 < c < 1 and c != answer:
            items.setdefault(fmt_frac(c), c)
    den = answer.denominator
    for _ in range(400):
        below = sum(v < answer for v in items.values())
        if below >= n - 1 and len(items) - below >= n - 1:
            break
        frac = Fraction(rng.randint(1, den + 4), den if rng.random() < 0.7 else den + rng.randint(1, 5))
        if 0 < frac < 1 and frac != answer:
            items.setdefault(fmt_frac(frac), frac)
    return [(v, t) for t, v in items.items()]


@generator("complement_rule")
def complement_rule(ctx: GenContext) -> Draft:
    """P(not E) = 1 - P(E); for mutually exclusive events P(neither A nor B) = 1 - P(A) - P(B); for n independent
    tries P(at least once) = 1 - (1 - p)^n."""
    rng, v = ctx.rng, ctx.vocab
    event, _ = rng.choice(v.chance_events)
    kinds = ("single",) if ctx.level < 0.34 else ("single", "neither") if ctx.level < 0.67 else ("neither", "atleast")
    kind = rng.choice(kinds)
    if kind == "single":
        p = Fraction(rng.randint(1, 99), 100)
        answer = 1 - p
        tid, q = ctx.phrase(T, "compl", event=event, p=fmt_pct(p))
        # the stated probability itself (a number of the stem) in half of the questions: the key never is one
        cands = ([p] if rng.random() < 0.5 else []) + [1 - p / 2, p / 2, p + (1 - p) / 2]
        params = {"kind": kind, "p": [p.numerator, p.denominator]}
    elif kind == "neither":
        pa, pb = Fraction(rng.randint(5, 60), 100), Fraction(rng.randint(5, 35), 100)
        a, b = rng.sample(v.alternatives, 2)
        answer = 1 - pa - pb
        tid = "compl.neither"
        q = T["compl_neither"].format(noun=v.option_noun, a=a, pa=fmt_pct(pa), b=b, pb=fmt_pct(pb))
        cands = [(1 - pa) * (1 - pb), 1 - pa, 1 - pb, pa + pb]
        params = {"kind": kind, "pa": [pa.numerator, pa.denominator], "pb": [pb.numerator, pb.denominator]}
    else:
        p = Fraction(rng.choice((10, 20, 25, 30, 40, 50)), 100)
        n = rng.randint(2, 4)
        answer = 1 - (1 - p) ** n
        tid = "compl.atleast"
        q = T["compl_atleast"].format(event=event, p=fmt_pct(p), n=n)
        cands = [n * p, p**n, (1 - p) ** n, 1 - p**n]
        params = {"kind": kind, "p": [p.numerator, p.denominator], "n": n}
    return numeric_draft(ctx, (tid, q), answer, fmt_pct, cands, params, PERCENT)


@generator("bayes_rule")
def bayes_rule(ctx: GenContext) -> Draft:
    """P(A|B) = P(B|A)P(A)/P(B); at lower grades P(B) is stated (drawn consistent), at higher grades it must be
    computed as P(B|A)P(A) + P(B|not A)(1-P(A))."""
    rng, v = ctx.rng, ctx.vocab
    (ea, _), (eb, _) = rng.sample(v.chance_events, 2)
    prior = Fraction(rng.randint(5, 60), 100)
    lik = Fraction(rng.randint(40, 95), 100)
    false_pos = Fraction(rng.randint(5, 50), 100)
    pb = lik * prior + false_pos * (1 - prior)
    answer = lik * prior / pb
    given_pb = ctx.level < 0.5
    kind = "given" if given_pb else "total"  # P(B) stated, or its parts
    tid = f"bayes.{kind}"
    q = T[f"bayes_{kind}"].format(a=ea, b=eb, prior=fmt_pct(prior), pb=fmt_pct(pb), lik=fmt_pct(lik),
                                  false_pos=fmt_pct(false_pos))
    # base-rate neglect (the stated P(B|A)) in half of the questions: the key is never a number of the stem
    cands = ([lik] if rng.random() < 0.5 else []) + [lik * prior, 1 - answer,
                                                      lik * prior / (lik * prior + false_pos), lik * (1 - prior)]
    params = {"prior_pct": int(prior * 100), "lik_pct": int(lik * 100), "false_pos_pct": int(false_pos * 100),
              "given_pb": given_pb}
    return numeric_draft(ctx, (tid, q), answer, fmt_pct, cands, params, PERCENT)


# ================================================================================================================
# 1.4 Logic — categorical statements are checked in Venn-region models; propositional ones by truth tables.

_FORMS = ("all", "no", "some", "some_not")


def _cat_text(form: str, x: str, y: str) -> str:
    return T["categorical"][form].format(x=x, y=y)


def _cat_holds(form: str, x: int, y: int, regions: frozenset[int]) -> bool:
    # "all" denies and "some_not" asserts an inhabited region of x outside y; "no" denies and "some" asserts one of
    # x inside y
    inhabited = any(r >> x & 1 and bool(r >> y & 1) == (form in ("no", "some")) for r in regions)
    return inhabited if form in ("some", "some_not") else not inhabited


def categorical_valid(premises: list[tuple[str, int, int]], conclusion: tuple[str, int, int]) -> bool:
    """Does ``conclusion`` hold in every Venn model (inhabited regions over 3 terms, every term non-empty)
    of the premises? Statements are (form, subject term index, predicate term index)."""
    for bits in range(1, 256):
        regions = frozenset(r for r in range(8) if bits >> r & 1)
        if not all(any(r >> t & 1 for r in regions) for t in range(3)):
            continue
        if all(_cat_holds(f, x, y, regions) for f, x, y in premises) and not _cat_holds(*conclusion, regions):
            return False
    return True


@functools.cache
def _valid_conclusions(p1: tuple[str, int, int], p2: tuple[str, int, int]) -> tuple[tuple[str, int, int], ...]:
    """The conclusions about terms 0 and 2 that follow from premises ``p1`` and ``p2`` (64 premise pairs: cached)."""
    return tuple(c for c in ((f, x, y) for f in _FORMS for x, y in ((0, 2), (2, 0))) if categorical_valid([p1, p2], c))


def existence_note(terms: Sequence[str]) -> str:
    """The sentence that states the existential-import assumption the answer keys rely on (every term non-empty):
    under modern (Boolean) logic, without it, some keys would flip (e.g. "All A are B. All B are C." does not give
    "Some A are C" when there may be no A)."""
    return T["existence_note"].format(terms=join_list(terms))


@generator("categorical_syllogism")
def categorical_syllogism(ctx: GenContext) -> Draft:
    """Premises about terms A-B and B-C; a conclusion about A and C follows iff it holds in every Venn model of
    the premises with non-empty terms (model checker above), an assumption every question states
    (:func:`existence_note`). Lower grades: 'does it follow?' (Yes/No, valid and invalid conclusions equally
    often); higher grades: 'which conclusion follows?' with one valid and several invalid candidates, chosen so
    that the key's length rank among the options is uniform (valid conclusions are more often the longer
    "Some ... are not ..." form)."""
    rng = ctx.rng
    terms = rng.sample(ctx.vocab.categories, 3)
    candidates = [(f, x, y) for f in _FORMS for x, y in ((0, 2), (2, 0))]
    mc = ctx.level >= 0.5
    key_form = rng.choice(_FORMS) if mc else None  # the valid conclusion's form, uniform over the four forms
    for _ in range(2000):
        p1 = (rng.choice(_FORMS), *rng.choice(((0, 1), (1, 0))))
        p2 = (rng.choice(_FORMS), *rng.choice(((1, 2), (2, 1))))
        valid = list(_valid_conclusions(p1, p2))
        invalid = [c for c in candidates if c not in valid]
        if valid and (not mc or (len(invalid) >= 3 and any(c[0] == key_form for c in valid))):
            break
    else:  # pragma: no cover - every form is valid for some premises (about 1 draw in 64 for "all")
        raise ValueError(f"categorical_syllogism: no premises with a valid {key_form!r} conclusion")
    premises_text = (f"{_cat_text(p1[0], terms[p1[1]], terms[p1[2]])} {_cat_text(p2[0], terms[p2[1]], terms[p2[2]])} "
                     f"{existence_note(terms)}")
    render = lambda c: _cat_text(c[0], terms[c[1]], terms[c[2]])  # noqa: E731
    params = {"terms": terms, "premises": [list(p1), list(p2)]}
    if not mc:
        concl = rng.choice(valid) if rng.random() < 0.5 or not invalid else rng.choice(invalid)
        follows = concl in valid
        claim = render(concl)[0].lower() + render(concl)[1:].rstrip(".")
        tid, q = ctx.phrasing("cat", [t.format(premises=premises_text, conclusion=render(concl), claim=claim)
                                      for t in T["cat_yn"]])
        params["conclusion"] = list(concl)
        return Draft(tid, q, *yes_no(follows), params, 2)
    correct = rng.choice([c for c in valid if c[0] == key_form])
    rng.shuffle(invalid)
    invalid.sort(key=lambda c: c[0] != key_form)  # an invalid conclusion of the key's form first: no odd one out
    if key_form in ("no", "some"):  # symmetric forms: both directions are valid, so take one about another pair
        others = [(key_form, x, y) for x, y in ((0, 1), (1, 0), (1, 2), (2, 1))
                  if (key_form, x, y) not in (p1, p2) and not categorical_valid([p1, p2], (key_form, x, y))]
        if others:
            invalid.insert(0, rng.choice(others))
    n = min(ctx.n_options(3, 5), 1 + len(invalid))
    size = lambda c: (len(render(c).split()), len(render(c)))  # noqa: E731
    chosen = rank_balanced(rng, size(correct), [(size(c), render(c)) for c in invalid], n)
    invalid = [c for c in invalid if render(c) in chosen]
    invalid.sort(key=lambda c: chosen.index(render(c)))
    params["conclusion"] = list(correct)
    params["option_statements"] = [list(c) for c in [correct] + invalid]  # draft order: correct first
    tid, q = ctx.phrasing("cat", [t.format(premises=premises_text) for t in T["cat_which"]])
    return Draft(tid, q, render(correct), tuple(render(c) for c in invalid), params, n)


# Propositional formulas: ("var", i) | ("not", f) | ("imp", f, g) | ("and", f, g) | ("or", f, g)


def evaluate(formula, assignment) -> bool:
    op = formula[0]
    if op == "var":
        return assignment[formula[1]]
    if op == "not":
        return not evaluate(formula[1], assignment)
    a, b = evaluate(formula[1], assignment), evaluate(formula[2], assignment)
    return {"imp": (not a) or b, "and": a and b, "or": a or b}[op]


def entails(premises, conclusion, n_vars: int) -> bool:
    """Truth-table check: the conclusion is true under every assignment that makes all premises true."""
    for values in itertools.product((False, True), repeat=n_vars):
        if all(evaluate(p, values) for p in premises) and not evaluate(conclusion, values):
            return False
    return True


def equivalent(f, g, n_vars: int) -> bool:
    return entails([f], g, n_vars) and entails([g], f, n_vars)


def render(formula, props) -> str:
    op = formula[0]
    if op == "var":
        return props[formula[1]]
    if op == "not":
        inner = formula[1]
        if inner[0] == "var":
            return T["not_simple"].format(x=props[inner[1]])
        return T["not_compound"].format(x=render(inner, props))
    if op == "imp":
        return T["implies"].format(p=render(formula[1], props), q=render(formula[2], props))  # and/or bare here
    left, right = (render(f, props) if f[0] in ("var", "not") else f"({render(f, props)})" for f in formula[1:])
    return T["conjunction" if op == "and" else "disjunction"].format(p=left, q=right)


def _sentence(text: str) -> str:
    """Capitalize the first letter (after any opening parenthesis) and end with a full stop."""
    i = next((k for k, ch in enumerate(text) if ch.isalpha()), 0)
    return text[:i] + text[i].upper() + text[i + 1:] + "."


V = lambda i: ("var", i)  # noqa: E731
NOT = lambda f: ("not", f)  # noqa: E731
IMP = lambda f, g: ("imp", f, g)  # noqa: E731


@generator("conditional_syllogism")
def conditional_syllogism(ctx: GenContext) -> Draft:
    """A chain of conditionals P0->P1->...->Pm (m grows with grade), sometimes plus a fact Pj or not-Pj; a
    candidate conclusion follows iff it is true in every truth assignment satisfying the premises (truth-table
    check). Candidates are every conditional between two chain members (plain or with both sides negated) when
    there is no fact, every literal Pk / not-Pk (k != j) when there is one, never a premise restated. Yes/No
    questions (lower grades) ask about a valid and an invalid conclusion equally often."""
    rng = ctx.rng
    m = ctx.scale(2, 4)
    props = rng.sample(ctx.vocab.propositions, m + 1)
    premises = [IMP(V(i), V(i + 1)) for i in range(m)]
    mc = ctx.level >= 0.5
    if mc:
        rng.shuffle(premises)
    want_valid = rng.random() < 0.5
    for _ in range(200):
        kind, j = rng.choice(("none", "true", "false")), rng.randint(0, m)
        if mc and kind != "none" and not 0 < j < m:
            continue  # a fact at an end of the chain leaves only literals of the key's polarity as distractors
        fact = None if kind == "none" else V(j) if kind == "true" else NOT(V(j))
        all_premises = premises + ([fact] if fact else [])
        if fact is None:
            pool = [f for a in range(m + 1) for b in range(m + 1) if a != b
                    for f in (IMP(V(a), V(b)), IMP(NOT(V(a)), NOT(V(b))))]
        else:
            pool = [f for k in range(m + 1) if k != j for f in (V(k), NOT(V(k)))]
        pool = [f for f in pool if f not in all_premises]
        valid = [c for c in pool if entails(all_premises, c, m + 1)]
        invalid = [c for c in pool if c not in valid]
        if (mc and valid and len(invalid) >= 2) or (not mc and (valid if want_valid else invalid)):
            break
    else:  # pragma: no cover - most draws qualify
        raise ValueError("conditional_syllogism: no premises with the conclusions asked for")
    text = " ".join(_sentence(render(p, props)) for p in all_premises)
    params = {"props": props, "premises": all_premises}
    if not mc:
        concl = rng.choice(valid if want_valid else invalid)
        params["conclusion"] = concl
        tid, q = ctx.phrasing("cond", [t.format(premises=text, conclusion=_sentence(render(concl, props)),
                                                claim=render(concl, props)) for t in T["cond_yn"]])
        return Draft(tid, q, *yes_no(want_valid), params, 2)
    correct = rng.choice(valid)
    params["conclusion"] = correct
    rng.shuffle(invalid)
    n = min(ctx.n_options(3, 4), 1 + len(invalid))
    # A literal option reads "It is the case that X" / "It is not the case that X" (a bare "X." would repeat a
    # premise's ending word for word and be much shorter than its negation), without a full stop; negated
    # statements stay longer, so distractors are chosen for a uniform length rank of the key.

    def option(f) -> str:
        text = render(f, props)
        return _sentence(T["it_is_the_case"].format(x=text) if f[0] == "var" else text)[:-1]

    chosen = rank_balanced(rng, len(option(correct)), [(len(option(f)), option(f)) for f in invalid], n)
    invalid = sorted((f for f in invalid if option(f) in chosen), key=lambda f: chosen.index(option(f)))
    params["option_formulas"] = [correct] + invalid  # draft order: correct first
    tid, q = ctx.phrasing("cond", [t.format(premises=text) for t in T["cond_which"]])
    return Draft(tid, q, option(correct), tuple(option(c) for c in invalid), params, n)


def _neg(f):
    """The negation of ``f``, without a double negation: not-not-P is written P."""
    return f[1] if f[0] == "not" else NOT(f)


@generator("contrapositive")
def contrapositive(ctx: GenContext) -> Draft:
    """'If P then Q' (P or Q compound at higher grades; P and Q each negated in half of the questions) is
    equivalent to exactly one option — its contrapositive 'if not Q then not P' (double negations dropped); the
    converse, inverse and other distractors are checked non-equivalent by truth table. The negated statements
    keep "pick the option with negations" from finding the key, and distractors are chosen so that the key's
    length rank among the options is uniform."""
    rng = ctx.rng
    props = rng.sample(ctx.vocab.propositions, 4)
    p, q = V(0), V(1)
    if ctx.level >= 0.5:
        p = rng.choice((("and", V(0), V(2)), ("or", V(0), V(2)), V(0)))
        q = rng.choice((("and", V(1), V(3)), ("or", V(1), V(3)), V(1))) if p == V(0) else V(1)
    p, q = (_neg(p) if rng.random() < 0.5 else p), (_neg(q) if rng.random() < 0.5 else q)
    stmt = IMP(p, q)
    correct = IMP(_neg(q), _neg(p))
    # conditionals first (converse and inverse among them, in random order), so the key is no more typical of the
    # options than they are; then both directions (biconditionals), then conjunctions and disjunctions
    conditionals = [IMP(q, p), IMP(_neg(p), _neg(q)), IMP(p, _neg(q)), IMP(_neg(q), p), IMP(q, _neg(p)),
                    IMP(_neg(p), q)]
    rng.shuffle(conditionals)
    pool = conditionals + [("and", IMP(p, q), IMP(q, p)), ("and", correct, IMP(_neg(p), _neg(q))),
                           ("and", p, _neg(q)), ("or", p, q), ("and", _neg(q), _neg(p)), ("or", _neg(q), _neg(p))]
    pool = [f for f in pool if not equivalent(f, stmt, 4)]
    n = ctx.n_options(3, 5)
    size = lambda f: len(_sentence(render(f, props)))  # noqa: E731
    chosen = rank_balanced(ctx.rng, size(correct), [(size(f), _sentence(render(f, props))) for f in pool], n)
    distractors = sorted((f for f in pool if _sentence(render(f, props)) in chosen),
                         key=lambda f: chosen.index(_sentence(render(f, props))))
    name = ctx.people(1)[0]
    tid, lead = ctx.phrase(T, "contra", name=name, statement=render(stmt, props))
    question = T["contra_question"].format(lead=lead)
    dis = tuple(_sentence(render(f, props)) for f in distractors)
    params = {"props": props, "statement": stmt, "option_formulas": [correct] + distractors}
    return Draft(tid, question, _sentence(render(correct, props)), dis, params, n)


# ================================================================================================================
# 1.5 Theory of mind — an explicit belief-state model over a story of events.


def run_story(events, agents, start):
    """Replay events; return (true location, first-order beliefs, second-order beliefs).

    events: ("leave", a) | ("enter", a) | ("move", mover, place) | ("peek", a) (a watches the next move
    secretly). An agent's belief about the object's place changes when they witness a move (present or peeking);
    X's belief about Y's belief changes only when X witnesses the move and sees that Y is openly present.
    """
    present = set(agents)
    loc = start
    belief = {a: start for a in agents}
    belief2 = {(x, y): start for x in agents for y in agents if x != y}
    peeking: set[str] = set()
    for ev in events:
        kind = ev[0]
        if kind == "leave":
            present.discard(ev[1])
        elif kind == "enter":
            present.add(ev[1])
        elif kind == "peek":
            peeking.add(ev[1])
        elif kind == "move":
            loc = ev[2]
            witnesses = present | peeking
            for a in witnesses:
                belief[a] = loc
            for x, y in belief2:
                if x in witnesses and y in present:
                    belief2[(x, y)] = loc
            peeking.clear()
    return loc, belief, belief2


def _tom_story(ctx: GenContext, second_order: bool):
    """A story of ``n_moves`` moves; the owner (first agent) puts the object somewhere and leaves before a move
    drawn uniformly from the moves or stays throughout (a true-belief control), so the owner's belief is the
    start, a later place or the true one about equally often: "pick the place mentioned first" finds no key.
    Returns the agents, the places the story mentions (first mention first), the start, events and story text."""
    rng, v = ctx.rng, ctx.vocab
    n_agents = ctx.scale(2, 3)
    n_moves = ctx.scale(1, 3)
    agents = ctx.people(n_agents)
    places = rng.sample(v.tom_places, min(len(v.tom_places), max(3, n_moves + 2)))
    start = places[0]
    owner = agents[0]
    owner_leaves = rng.randint(0, n_moves)  # before this move; n_moves: the owner stays
    events, lines = [], [T["tom_put"].format(owner=owner, object=v.tom_object, place=start)]
    current = start
    mentioned = [start]
    absent: set[str] = set()
    for i in range(n_moves):
        if i == owner_leaves:
            leaver = owner
        elif i > owner_leaves and rng.random() < 0.6:
            leaver = rng.choice(agents[1:])
        else:
            leaver = None
        if leaver is not None and leaver not in absent:
            events.append(("leave", leaver))
            absent.add(leaver)
            lines.append(T["tom_leave"].format(person=leaver))
        if second_order and ctx.level >= 0.5 and rng.random() < 0.5 and absent:
            peeker = rng.choice(sorted(absent))
            events.append(("peek", peeker))
            lines.append(T["tom_peek"].format(person=peeker))
        movers = [a for a in agents if a not in absent]
        if not movers:
            back = rng.choice(sorted(absent - {owner}) or [owner])
            events.append(("enter", back))
            absent.discard(back)
            lines.append(T["tom_back"].format(person=back))
            movers = [back]
        mover = rng.choice(movers)
        new = rng.choice([p for p in places if p != current])
        events.append(("move", mover, new))
        lines.append(T["tom_move"].format(person=mover, object=v.tom_object, place=new))
        current = new
        if new not in mentioned:
            mentioned.append(new)
    for a in sorted(absent):
        events.append(("enter", a))
        lines.append(T["tom_back"].format(person=a))
    return agents, mentioned, start, events, " ".join(lines)


@generator("first_order_false_belief")
def first_order_false_belief(ctx: GenContext) -> Draft:
    """Answer = where the asked agent believes the object is (belief-state model: beliefs update only on
    witnessed moves); the options are the places the story mentions, the true location among them."""
    agents, places, start, events, story = _tom_story(ctx, second_order=False)
    loc, belief, _ = run_story(events, agents, start)
    target = agents[0] if ctx.rng.random() < 0.7 else ctx.rng.choice(agents)
    tid, q = ctx.phrase(T, "tom1", target=target, object=ctx.vocab.tom_object)
    dis = [T["tom_place"].format(place=p) for p in [loc] + places if p != belief[target]]
    params = {"agents": agents, "start": start, "events": events, "target": target}
    return Draft(tid, f"{story} {q}", T["tom_place"].format(place=belief[target]), tuple(dis), params,
                 min(ctx.n_options(2, 4), len(places)))


@generator("second_order_false_belief")
def second_order_false_belief(ctx: GenContext) -> Draft:
    """Answer = where agent X believes agent Y will look, i.e. X's model of Y's belief: it changes only on moves
    X witnessed while seeing Y openly present (secret watching by Y is unknown to X). The options are the places
    the story mentions."""
    agents, places, start, events, story = _tom_story(ctx, second_order=True)
    loc, belief, belief2 = run_story(events, agents, start)
    y = agents[0]
    x = ctx.rng.choice(agents[1:])
    tid, q = ctx.phrase(T, "tom2", x=x, y=y, object=ctx.vocab.tom_object)
    answer = belief2[(x, y)]
    dis = [T["tom_place"].format(place=p) for p in [loc, belief[y]] + places if p != answer]
    params = {"agents": agents, "start": start, "events": events, "x": x, "y": y}
    return Draft(tid, f"{story} {q}", T["tom_place"].format(place=answer), tuple(dis), params,
                 min(ctx.n_options(2, 4), len(places)))
