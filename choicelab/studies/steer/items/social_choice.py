"""STEER setting 4 (decisions on behalf of other agents) generators: social-choice axioms, voting rules, fair
division, mechanism properties and mechanism design.

Voting profiles are lists of ``(count, ranking)`` with rankings as tuples of alternative indices, best first. Each
generator's docstring states its answer rule; the answer is computed by a solver in this module (vote counting,
brute-force checks of welfare functions and of mechanisms on their stated value grid, top trading cycles, and the
optimal-auction rules stated next to their generators).

Options carry no surface cue (checked by the cue battery, ``choicelab/studies/steer/cues.py``): Yes/No keys are
balanced per template, numeric distractors lie on both sides of the key (:func:`spread_distractors`), text options
are picked so the key's length, stem overlap and typicality rank is about uniform (:func:`balanced_decoys`), catch-all
verdicts ("non-dictatorial", "they all give the same") are offered in every question of their template and right in
about 1 of n_options, and every option is right in some questions.
"""

from __future__ import annotations

import itertools
import re
from collections import namedtuple
from collections.abc import Sequence
from fractions import Fraction
from functools import cache
from typing import Any

from choicelab.studies.steer.items.base import (
    Draft,
    GenContext,
    capitalized,
    fmt_money,
    fmt_num,
    generator,
    join_list,
    numeric_distractors,
    retry,
    unique_argmax,
    yes_no,
)
from choicelab.studies.steer.items.domains import TEMPLATES, TEXTS, VOCABULARY

T = TEMPLATES["social_choice"]  # the questions' fixed sentences (data/steer/templates.yaml)

Ranking = tuple[int, ...]
Profile = list[tuple[int, Ranking]]

# Who votes, what a group funds together and what a mechanism allocates, per domain (data/steer/domains.yaml).
VOTERS = {domain: words["voters"] for domain, words in VOCABULARY["social_choice"].items()}
PROJECTS = {domain: words["public_project"] for domain, words in VOCABULARY["social_choice"].items()}
HOUSES = {domain: tuple(words["allocated"]) for domain, words in VOCABULARY["social_choice"].items()}


def _short(alt: str) -> str:
    return re.sub(r"^(?:a|an|the) ", "", alt)  # without its leading article


def _alternatives(ctx: GenContext, m: int) -> list[str]:
    if ctx.rng.random() < 0.3:
        return [f"Option {i + 1}" for i in range(m)]  # numbers: never a display letter
    return [_short(a) for a in ctx.rng.sample(ctx.vocab.alternatives, m)]


def _rank_text(names: Sequence[str], ranking: Sequence[int]) -> str:
    return " > ".join(names[a] for a in ranking)


def _ranking_option(names: Sequence[str], ranking: Sequence[int]) -> str:
    """A social ranking as an option ("X, then Y, then Z"): not written like the ballots of the stem ("X > Y > Z"),
    so no option repeats a ballot verbatim."""
    return ", then ".join(names[a] for a in ranking)


def _profile_text(names: Sequence[str], profile: Profile, voters: str) -> str:
    return " ".join(T["ballots"].format(count=c, voters=voters, ranking=_rank_text(names, r)) if c != 1
                    else T["ballot"].format(voter=voters[:-1], ranking=_rank_text(names, r)) for c, r in profile)


def random_profile(rng, m: int, n_types: int, lo: int, hi: int) -> Profile:
    """``n_types`` distinct rankings of m alternatives with counts in [lo, hi]."""
    perms = list(itertools.permutations(range(m)))
    return [(rng.randint(lo, hi), r) for r in rng.sample(perms, min(n_types, len(perms)))]


def spread_distractors(
    rng, key: float | Fraction, below: Sequence, above: Sequence, k: int, fmt, stated: Sequence = ()
) -> list[str]:
    """``k`` formatted plausible-mistake distractors, some below and some above ``key``: the number below is drawn
    uniformly from what the candidates allow, so the key is the smallest, the median or the largest option about as
    often as any option is. Candidates that format like the key, like each other, like a number ``stated`` in the
    question (when the key is not one) or are negative are dropped."""
    shown = {fmt(x) for x in stated}
    right = fmt(key)

    def usable(cands: Sequence, side: int) -> list[str]:
        out: list[str] = []
        for c in cands:
            text = fmt(c)
            if (c - key) * side > 0 and c >= 0 and text != right and text not in out and (
                right in shown or text not in shown
            ):
                out.append(text)
        return out

    if right in shown:  # a stated key: stated numbers are distractors too, first
        below, above = [*stated, *below], [*stated, *above]
    lo, hi = usable(below, -1), usable(above, 1)
    rng.shuffle(lo)
    rng.shuffle(hi)
    lo.sort(key=lambda t: t not in shown)
    hi.sort(key=lambda t: t not in shown)
    n_lo = rng.randint(min(max(0, k - len(hi)), len(lo)), min(k, len(lo)))  # fewer than k when short
    return lo[:n_lo] + hi[: k - n_lo]


_WORDS = re.compile(r"[a-z0-9$]+")


def _word_set(text: str) -> set[str]:
    return set(_WORDS.findall(text.casefold()))


def _rank_of(values: Sequence[float], i: int) -> float:
    """Rank of values[i] among values, 0 = smallest; ties share the middle rank."""
    below = sum(v < values[i] for v in values)
    equal = sum(v == values[i] for v in values) - 1
    return below + equal / 2


def balanced_decoys(rng, stem: str, key: str, candidates: Sequence[str], k: int, tries: int = 200) -> list[int]:
    """Indices of ``k`` of ``candidates`` to offer beside ``key``, chosen so that the key's rank among the offered
    options in length, in word overlap with ``stem`` and in mean word overlap with the other options is about
    uniform: a target rank is drawn for each, and the subset (of up to ``tries`` random ones) closest to the targets
    is kept. Then neither the longest option nor the one most (or least) like the stem or like the others is the
    key more often than any option."""
    if len(candidates) <= k:
        return list(range(len(candidates)))
    stem_words = _word_set(stem)
    texts = [key, *candidates]
    words = [_word_set(t) for t in texts]
    length = [len(t) for t in texts]
    overlap = [len(w & stem_words) / max(1, len(w)) for w in words]
    targets = [rng.uniform(0, k) for _ in range(3)]
    subsets = list(itertools.combinations(range(len(candidates)), k))
    if len(subsets) > tries:
        subsets = rng.sample(subsets, tries)
    else:
        rng.shuffle(subsets)

    def cost(sub: tuple[int, ...]) -> float:
        idx = [0, *(j + 1 for j in sub)]
        typical = [sum(len(words[a] & words[b]) / max(1, len(words[a] | words[b])) for b in idx if b != a) for a in idx]
        ranks = (_rank_of([length[a] for a in idx], 0), _rank_of([overlap[a] for a in idx], 0), _rank_of(typical, 0))
        return sum(abs(r - t) for r, t in zip(ranks, targets, strict=True))

    return list(min(subsets, key=cost))


# ================================================================================================================
# Voting rules


def plurality_scores(profile: Profile, m: int) -> list[int]:
    s = [0] * m
    for c, r in profile:
        s[r[0]] += c
    return s


def borda_scores(profile: Profile, m: int) -> list[int]:
    """Position i (0 = top) earns m - 1 - i points."""
    s = [0] * m
    for c, r in profile:
        for pos, a in enumerate(r):
            s[a] += c * (m - 1 - pos)
    return s


def pairwise_support(profile: Profile, m: int) -> list[list[int]]:
    """support[a][b] = number of voters ranking a above b."""
    sup = [[0] * m for _ in range(m)]
    for c, r in profile:
        for i, a in enumerate(r):
            for b in r[i + 1 :]:
                sup[a][b] += c
    return sup


def copeland_scores_from_beats(beats: set[tuple[int, int]], m: int) -> list[int]:
    """Copeland score = pairwise wins - pairwise losses."""
    return [sum(1 for b in range(m) if (a, b) in beats) - sum(1 for b in range(m) if (b, a) in beats) for a in range(m)]


def majority_beats(profile: Profile, m: int) -> set[tuple[int, int]]:
    sup = pairwise_support(profile, m)
    return {(a, b) for a in range(m) for b in range(m) if a != b and sup[a][b] > sup[b][a]}


def is_transitive(beats: set[tuple[int, int]], m: int) -> bool:
    """A complete strict relation is transitive iff a > b and b > c always give a > c."""
    return all((a, c) in beats for a, b in beats for b2, c in beats if b == b2 and a != c)


def relation_ranking(beats: set[tuple[int, int]], m: int) -> Ranking | None:
    """The ranking of a transitive complete relation (by number of wins), else None."""
    if not is_transitive(beats, m) or len(beats) != m * (m - 1) // 2:
        return None
    wins = [sum(1 for b in range(m) if (a, b) in beats) for a in range(m)]
    return tuple(sorted(range(m), key=lambda a: -wins[a]))


def runoff_winner(profile: Profile, m: int) -> int | None:
    """Top-two runoff: the two alternatives with the most first places meet head to head. None on any tie."""
    s = plurality_scores(profile, m)
    order = sorted(range(m), key=lambda a: -s[a])
    if len(set(s)) != len(s) and s[order[1]] == s[order[2]]:
        return None
    a, b = order[0], order[1]
    sup = pairwise_support(profile, m)
    if sup[a][b] == sup[b][a]:
        return None
    return a if sup[a][b] > sup[b][a] else b


def irv_winner(profile: Profile, m: int) -> int | None:
    """Instant runoff: repeatedly eliminate the alternative with the fewest first places among those remaining.
    None on any tie."""
    alive = list(range(m))
    while len(alive) > 1:
        s = {a: 0 for a in alive}
        for c, r in profile:
            s[next(x for x in r if x in alive)] += c
        low = min(s.values())
        losers = [a for a in alive if s[a] == low]
        if len(losers) != 1:
            return None
        if len(alive) == 2:
            return next(a for a in alive if a != losers[0])
        alive.remove(losers[0])
    return alive[0]


def rule_winner(rule: str, profile: Profile, m: int) -> int | None:
    if rule in ("plurality", "borda"):
        return unique_argmax((plurality_scores if rule == "plurality" else borda_scores)(profile, m))
    return (runoff_winner if rule == "runoff" else irv_winner)(profile, m)


RULE_TEXT: dict[str, str] = TEXTS["voting_rules"]  # how each rule picks a winner (data/steer/texts.yaml)


# ================================================================================================================
# 4.1 Axioms of social choice


def pareto_dominated(profile: Profile, m: int) -> dict[int, list[int]]:
    """alternative -> the alternatives that every voter ranks above it."""
    sup = pairwise_support(profile, m)
    total = sum(c for c, _ in profile)
    return {b: [a for a in range(m) if a != b and sup[a][b] == total] for b in range(m)}


def _plant_unanimity(rng, profile: Profile) -> tuple[Profile, int, int]:
    """Make every voter rank x above y (swapping them where needed)."""
    m = len(profile[0][1])
    x, y = rng.sample(range(m), 2)
    out = []
    for c, r in profile:
        r = list(r)
        ix, iy = r.index(x), r.index(y)
        if iy < ix:
            r[ix], r[iy] = y, x
        out.append((c, tuple(r)))
    return _merged(out), x, y


def _merged(profile: Profile) -> Profile:
    """``profile`` with the counts of equal rankings added up (in order of first appearance)."""
    merged: dict[Ranking, int] = {}
    for c, r in profile:
        merged[r] = merged.get(r, 0) + c
    return [(c, r) for r, c in merged.items()]


@generator("pareto_efficiency")
def pareto_efficiency(ctx: GenContext) -> Draft:
    """An alternative is Pareto-dominated when some other alternative is ranked above it by every voter; a Pareto
    efficient choice is never Pareto-dominated, and a Pareto-respecting social ranking puts a above b whenever all
    voters do. Templates: is the stated choice Pareto efficient (Yes/No); which alternative is Pareto-dominated
    (exactly one dominated option); which social ranking respects the Pareto principle (exactly one does)."""
    rng = ctx.rng
    m = ctx.scale(3, 5)
    names = _alternatives(ctx, m)
    voters = VOTERS[ctx.domain]
    n_types = ctx.scale(2, 4)
    profile, x, y = _plant_unanimity(rng, random_profile(rng, m, n_types, 1, 10 * ctx.scale(1, 5)))
    dom = pareto_dominated(profile, m)
    kind = rng.choice(("chosen", "which", "ranking") if ctx.level >= 0.5 else ("chosen", "which"))
    setup = _committee_text(names, profile, voters)
    params: dict[str, Any] = {"m": m, "profile": profile, "kind": kind, "names": names}
    if kind == "chosen":
        chosen = y if rng.random() < 0.5 else rng.choice([a for a in range(m) if not dom[a]])
        tid, ask = ctx.phrase(T, "pareto_chosen", chosen=names[chosen])
        params["chosen"] = chosen
        return Draft(tid, f"{setup} {ask}", *yes_no(not dom[chosen]), params, 2)
    if kind == "which":
        return _pareto_which(ctx, names, voters, (profile, dom, n_types), params)
    unanimous = {(a, b) for b, above in dom.items() for a in above}
    perms = list(itertools.permutations(range(m)))
    rng.shuffle(perms)
    ok = [p for p in perms if all(p.index(a) < p.index(b) for a, b in unanimous)]
    bad = [p for p in perms if p not in ok]
    good = ok[0]
    tid, ask = ctx.phrase(T, "pareto_rank")
    params["shown"] = list(good)
    return Draft(tid, f"{setup} {ask}", _ranking_option(names, good), tuple(_ranking_option(names, p) for p in bad),
                 params, ctx.n_options(3, 4))


def _committee_text(names: Sequence[str], profile: Profile, voters: str) -> str:
    return T["committee"].format(alternatives=join_list(names), voters=voters) + " " + _profile_text(
        names, profile, voters)


def _pareto_which(ctx: GenContext, names: Sequence[str], voters: str, drawn: tuple, params: dict) -> Draft:
    """Which alternative is Pareto-dominated: exactly one is, or (in about 1 of n_opts questions, on a profile
    drawn afresh) none."""
    rng = ctx.rng
    profile, dom, n_types = drawn
    m = len(names)
    none = T["pareto_none"]
    n_opts = ctx.n_options(3, 5)
    if rng.random() < 1 / n_opts:  # "none of them" right in about 1 of n_opts questions: no answer cue
        for _ in range(2000):
            profile = random_profile(rng, m, n_types, 1, 10 * ctx.scale(1, 5))
            dom = pareto_dominated(profile, m)
            if not any(dom.values()):
                break
        else:
            raise RuntimeError("pareto_efficiency: no profile without a Pareto-dominated alternative")
        params["profile"] = profile
    setup = _committee_text(names, profile, voters)
    dominated = [a for a in range(m) if dom[a]]
    pick = rng.choice(dominated) if dominated else None
    others = [names[a] for a in range(m) if not dom[a]]
    tid, ask = ctx.phrase(T, "pareto_which")
    params["shown"] = pick
    correct = none if pick is None else names[pick]
    dis = ([] if pick is None else [none]) + [o for o in others if o != correct]
    return Draft(tid, f"{setup} {ask}", correct, tuple(dis), params, min(len(dis) + 1, n_opts))


def _raise(ranking: Ranking, w: int, steps: int) -> Ranking:
    r = list(ranking)
    i = r.index(w)
    j = max(0, i - steps)
    r.pop(i)
    r.insert(j, w)
    return tuple(r)


@generator("monotonicity")
def monotonicity(ctx: GenContext) -> Draft:
    """Monotonicity: if the winner W rises in some voters' rankings (nothing else changes), W should still win.
    The stated rule is applied to both profiles by the vote-counting solvers (no ties anywhere); plurality and Borda
    never fail, the runoff rules sometimes do. Templates: who wins after the change; did the rule respect
    monotonicity here (Yes/No). No answer cue: half the Yes/No questions show a violation (a runoff rule), and in the
    who-wins template the initial winner still wins in about 1 of n_options questions, like any other option."""
    rng = ctx.rng
    m = ctx.scale(3, 4)
    runoffs = ("runoff", "irv") if m == 4 else ("runoff",)
    ask_who = rng.random() < 0.5
    n_opts = min(m, ctx.n_options(3, 4))
    want_violation = rng.random() < ((1 - 1 / n_opts) if ask_who else 0.5)
    rule = rng.choice(runoffs) if want_violation else rng.choice(("plurality", "borda") + runoffs)
    names = _alternatives(ctx, m)
    voters = VOTERS[ctx.domain]
    found = None
    for _ in range(4000):
        profile = random_profile(rng, m, rng.randint(3, 4 + m - 3), 2, 12)
        w = rule_winner(rule, profile, m)
        if w is None:
            continue
        movable = [i for i, (c, r) in enumerate(profile) if r[0] != w]
        if not movable:
            continue
        idx = rng.choice(movable)
        c, r = profile[idx]
        k = rng.randint(1, c)
        new_r = _raise(r, w, rng.randint(1, r.index(w)))
        new_profile = _merged([p for i, p in enumerate(profile) if i != idx] + ([(c - k, r)] if c > k else [])
                              + [(k, new_r)])
        w2 = rule_winner(rule, new_profile, m)
        if w2 is None:
            continue
        found = (profile, w, idx, k, new_r, new_profile, w2)
        if (w2 != w) == want_violation:
            break
    profile, w, idx, k, new_r, new_profile, w2 = found
    c, r = profile[idx]
    setup = T["mono_setup"].format(voters=voters, alternatives=join_list(names), rule=RULE_TEXT[rule],
                                   profile=_profile_text(names, profile, voters), winner=names[w], k=k, c=c,
                                   ranking=_rank_text(names, r), change="changes" if k == 1 else "change",
                                   new_ranking=_rank_text(names, new_r))
    params = {"m": m, "rule": rule, "profile": profile, "new_profile": new_profile, "winner": w, "names": names}
    if ask_who:
        tid, ask = ctx.phrase(T, "mono_who")
        correct = names[w2]
        others = [x for x in names if x != correct]
        rng.shuffle(others)
        if names[w] != correct:  # the initial winner is always offered, so it is right about 1 in n_opts times
            others = [names[w]] + [x for x in others if x != names[w]]
        return Draft(tid, f"{setup} {ask}", correct, tuple(others), params, n_opts)
    tid, ask = ctx.phrase(T, "mono_yn", winner=names[w])
    return Draft(tid, f"{setup} {ask}", *yes_no(w2 == w), params, 2)


def _cyclic_profile(rng, m: int, lo: int, hi: int) -> Profile:
    """A Condorcet-cycle profile on three alternatives (Latin square), others appended in a random fixed order."""
    a, b, c = rng.sample(range(m), 3)
    rest = [x for x in range(m) if x not in (a, b, c)]
    tail = tuple(rng.sample(rest, len(rest)))
    return [(rng.randint(lo, hi), r + tail) for r in ((a, b, c), (b, c, a), (c, a, b))]


@generator("swf_transitivity")
def swf_transitivity(ctx: GenContext) -> Draft:
    """Pairwise majority voting (odd electorate, no ties) yields a complete relation; it is a transitive social
    ranking iff it has no cycle (checked on every triple). Templates: is the majority relation transitive (Yes/No);
    which social ranking does pairwise majority produce (or 'none: the majority preferences are cyclic'). No answer
    cue: the relation is cyclic in half the Yes/No questions and in about 1 of n_options ranking questions; ranking
    options read "X, then Y, then Z", unlike the ballots of the stem."""
    rng = ctx.rng
    m = ctx.scale(3, 4)
    names = _alternatives(ctx, m)
    voters = VOTERS[ctx.domain]

    def draw():
        if rng.random() < 0.5:
            profile = _cyclic_profile(rng, m, 1, 20)
            if m == 4 and rng.random() < 0.5:
                profile += random_profile(rng, m, 1, 1, 3)
        else:
            profile = random_profile(rng, m, ctx.scale(3, 5), 1, 20)
        if sum(c for c, _ in profile) % 2 == 0:
            profile[0] = (profile[0][0] + 1, profile[0][1])
        return profile

    ask_yn = rng.random() < 0.5
    n_opts = ctx.n_options(3, 4)
    # no answer cue: the majority relation is cyclic in half the Yes/No questions and in about 1 of n_opts ranking
    # questions (where "no such ranking" is offered every time)
    want_cyclic = rng.random() < (0.5 if ask_yn else 1 / n_opts)
    for _ in range(2000):
        profile = draw()
        beats = majority_beats(profile, m)
        trans = is_transitive(beats, m)
        if trans != want_cyclic:
            break
    setup = T["swft_setup"].format(voters=voters, alternatives=join_list(names),
                                   profile=_profile_text(names, profile, voters))
    params = {"m": m, "profile": profile, "names": names}
    cyc = T["swft_cyclic"]
    if ask_yn:
        tid, ask = ctx.phrase(T, "swft_yn")
        params["kind"] = "yn"
        return Draft(tid, f"{setup} {ask}", *yes_no(trans), params, 2)
    tid, ask = ctx.phrase(T, "swft_rank")
    params["kind"] = "rank"
    perms = list(itertools.permutations(range(m)))
    rng.shuffle(perms)
    ranking = relation_ranking(beats, m)
    correct = cyc if ranking is None else _ranking_option(names, ranking)
    borda = tuple(sorted(range(m), key=lambda a: (-borda_scores(profile, m)[a], a)))
    dis = [_ranking_option(names, p) for p in [borda] + perms if p != ranking] + ([cyc] if ranking else [])
    if ranking is not None:
        dis = [dis[0], cyc] + dis[1:]
    return Draft(tid, f"{setup} {ask}", correct, tuple(dis), params, n_opts)


# Social welfare functions for the dictatorship check (each maps a tuple of rankings to one ranking).
def swf_apply(rule: str, k: int, prof: Sequence[Ranking], m: int) -> Ranking:
    """``copy``: voter k's ranking. ``borda``: Borda scores, ties broken by alternative index. ``plurality_k``:
    number of first places, ties broken by voter k's ranking. ``unless_others``: voter k's ranking unless all other
    voters submit the same ranking, then theirs. ``reverse``: voter k's ranking reversed. ``switch``: voter k's
    ranking unless voter k ranks alternative 0 first, then the next voter's ranking. ``unless_all``: voter k's ranking
    unless all voters submit the same ranking, then that ranking. ``unanimity_k``: a above b whenever every voter
    ranks a above b, every other pair as voter k orders it. ``defer``: the next voter's ranking whenever it differs
    from voter k's, otherwise voter k's."""
    if rule == "copy":
        return prof[k]
    if rule == "borda":
        s = borda_scores([(1, r) for r in prof], m)
        return tuple(sorted(range(m), key=lambda a: (-s[a], a)))
    if rule == "plurality_k":
        s = plurality_scores([(1, r) for r in prof], m)
        return tuple(sorted(range(m), key=lambda a: (-s[a], prof[k].index(a))))
    if rule == "unless_others":
        others = [r for i, r in enumerate(prof) if i != k]
        return others[0] if len(set(others)) == 1 else prof[k]
    if rule == "reverse":
        return tuple(reversed(prof[k]))
    if rule == "switch":
        return prof[(k + 1) % len(prof)] if prof[k][0] == 0 else prof[k]
    if rule == "unless_all":
        return prof[0] if len(set(prof)) == 1 else prof[k]
    if rule == "unanimity_k":
        def above(a: int, b: int) -> bool:
            if all(r.index(a) < r.index(b) for r in prof):
                return True
            return not all(r.index(b) < r.index(a) for r in prof) and prof[k].index(a) < prof[k].index(b)

        return tuple(sorted(range(m), key=lambda a: -sum(above(a, b) for b in range(m) if b != a)))
    if rule == "defer":
        nxt = prof[(k + 1) % len(prof)]
        return nxt if nxt != prof[k] else prof[k]
    raise ValueError(rule)


@cache
def swf_dictators(rule: str, k: int, n: int, m: int) -> tuple[int, ...]:
    """Voters whose ranking equals the social ranking at *every* profile (brute force over all m!^n profiles)."""
    perms = list(itertools.permutations(range(m)))
    cands = set(range(n))
    for prof in itertools.product(perms, repeat=n):
        out = swf_apply(rule, k, prof, m)
        cands = {d for d in cands if prof[d] == out}
        if not cands:
            break
    return tuple(sorted(cands))


def _swf_text(rule: str, k: int, names: Sequence[str], n: int) -> str:
    who, nxt = T["voter"].format(voter=k + 1), T["voter"].format(voter=(k + 1) % n + 1)
    return T["swf_rules"][rule].format(who=who, next=nxt, order=", ".join(names), first=names[0])


DICTATORIAL_SWFS = ("copy", "unless_all", "unanimity_k", "defer")
NON_DICTATORIAL_SWFS = ("borda", "plurality_k", "unless_others", "reverse", "switch")


@generator("non_dictatorship")
def non_dictatorship(ctx: GenContext) -> Draft:
    """A social welfare function is dictatorial iff some voter's ranking equals the social ranking at every profile.
    Rule template: the stated rule is checked by brute force over every profile of n voters on 3 alternatives.
    Observation template: outcomes of an unnamed rule on several profiles are shown; answer = the only voter whose
    ranking matched the social ranking every time, or 'no voter' (then the rule is non-dictatorial). No answer cue:
    the non-dictatorial verdict is offered in every question and right in about 1 of n_options of them; some
    dictatorial rules hide the dictator (a voter other than the one the rule names first)."""
    rng = ctx.rng
    n = ctx.scale(3, 4)
    m = 3
    names = _alternatives(ctx, m)
    k = rng.randrange(n)
    if rng.random() < 0.5:
        return _nd_rule(ctx, n, names, k)
    return _nd_observed(ctx, n, names, k)


def _nd_rule(ctx: GenContext, n: int, names: Sequence[str], k: int) -> Draft:
    """Is a stated rule non-dictatorial (checked by brute force), or which voter is its dictator."""
    rng, m = ctx.rng, len(names)
    n_opts = ctx.n_options(3, 4)
    rule = rng.choice(NON_DICTATORIAL_SWFS if rng.random() < 1 / n_opts else DICTATORIAL_SWFS)
    voter_list = join_list([T["voter"].format(voter=i + 1) for i in range(n)])  # every voter number is stated
    dictators = swf_dictators(rule, k, n, m)
    tid, ask = ctx.phrase(T, "nd_rule", n=n, voters=voter_list, alternatives=join_list(names),
                          rule=_swf_text(rule, k, names, n))
    verdicts = T["nd_rule_verdicts"][int(tid.rsplit(".p", 1)[1])]
    yes = verdicts["non_dictatorial"]
    no = [verdicts["dictator"].format(voter=d + 1) for d in range(n)]
    correct = no[dictators[0]] if dictators else yes
    others = [x for x in no if x != correct]
    rng.shuffle(others)
    dis = ([yes] if dictators else []) + others  # the verdict "non-dictatorial" is offered every time
    params = {"kind": "rule", "rule": rule, "k": k, "n": n, "m": m, "names": names}
    return Draft(tid, ask, correct, tuple(dis), params, n_opts)


def _nd_observed(ctx: GenContext, n: int, names: Sequence[str], k: int) -> Draft:
    """Outcomes of an unnamed rule on several profiles: the only voter who always matched, or no voter."""
    rng, m = ctx.rng, len(names)
    n_obs = ctx.scale(2, 4)
    perms = list(itertools.permutations(range(m)))
    # "no voter" right in 1 of n_options questions (and offered in every one): no answer cue
    n_opts = ctx.n_options(3, 4)
    want_none = rng.random() < 1 / n_opts
    rule = "borda" if want_none else rng.choice(("copy", "borda"))

    def draw():
        obs = []
        for _ in range(n_obs):
            prof = tuple(rng.choice(perms) for _ in range(n))
            obs.append((prof, swf_apply(rule, k, prof, m)))
        match = [d for d in range(n) if all(p[d] == out for p, out in obs)]
        return (obs, match) if len(match) <= 1 and (not match) == want_none else None

    obs, match = retry(draw)
    cases = [T["nd_case"].format(case=i + 1, social=_rank_text(names, out), rankings="; ".join(
        T["nd_voter_ranks"].format(voter=d + 1, ranking=_rank_text(names, p[d])) for d in range(n)))
        for i, (p, out) in enumerate(obs)]
    tid, ask = ctx.phrase(T, "nd_obs")
    none = T["nd_none"]
    opts = [T["voter"].format(voter=d + 1) for d in range(n)]
    correct = opts[match[0]] if match else none
    voters_left = [o for o in opts if o != correct]
    rng.shuffle(voters_left)  # which voters are offered does not depend on their number
    dis = ([none] if match else []) + voters_left
    params = {"kind": "observe", "n": n, "m": m, "obs": [[list(map(list, p)), list(out)] for p, out in obs],
              "names": names}
    q = " ".join([T["nd_intro"].format(n=n, alternatives=join_list(names)), *cases, ask])
    return Draft(tid, q, correct, tuple(dis), params, n_opts)

# ================================================================================================================
# 4.2 Social choice: voting rules and fair division


def _voting_profile(ctx: GenContext, score_fn, m: int, n_types: int) -> tuple[Profile, int]:
    rng = ctx.rng
    hi = 10 ** ctx.scale(1, 3) - 1
    for _ in range(500):
        profile = random_profile(rng, m, n_types, 1, hi)
        w = unique_argmax(score_fn(profile))
        if w is not None:
            return profile, w
    raise RuntimeError("no profile with a unique winner")


@generator("plurality")
def plurality(ctx: GenContext) -> Draft:
    """Plurality winner = the alternative ranked first by the most voters (unique); distractors start with the
    Borda winner."""
    m = ctx.scale(3, 5)
    names = _alternatives(ctx, m)
    voters = VOTERS[ctx.domain]
    profile, w = _voting_profile(ctx, lambda p: plurality_scores(p, m), m, ctx.scale(2, 5))
    tid, ask = ctx.phrase(T, "plur")
    q = T["election"].format(alternatives=join_list(names), profile=_profile_text(names, profile, voters)) + f" {ask}"
    bw = unique_argmax(borda_scores(profile, m))
    order = ([bw] if bw is not None and bw != w else []) + [a for a in range(m) if a != w and a != bw]
    params = {"m": m, "profile": profile, "names": names}
    return Draft(tid, q, names[w], tuple(names[a] for a in order), params, ctx.n_options(3, 5) if m >= 3 else m)


@generator("borda")
def borda(ctx: GenContext) -> Draft:
    """Borda count: with m alternatives a voter's i-th choice earns m - i points; answer = the (unique) highest
    total, or an alternative's total when asked for a score. Winner distractors start with the plurality winner;
    score distractors are plausible slips on both sides of the key (:func:`spread_distractors`), none of them a
    number the question states unless the key is one."""
    rng = ctx.rng
    m = ctx.scale(3, 5)
    names = _alternatives(ctx, m)
    voters = VOTERS[ctx.domain]
    profile, w = _voting_profile(ctx, lambda p: borda_scores(p, m), m, ctx.scale(2, 5))
    scores = borda_scores(profile, m)
    setup = T["election"].format(alternatives=join_list(names), profile=_profile_text(names, profile, voters))
    params = {"m": m, "profile": profile, "names": names}
    if rng.random() < 0.7:
        tid, ask = ctx.phrase(T, "borda_win", m=m, first=m - 1, second=m - 2)
        pw = unique_argmax(plurality_scores(profile, m))
        order = ([pw] if pw is not None and pw != w else []) + [a for a in range(m) if a != w and a != pw]
        params["kind"] = "winner"
        return Draft(tid, f"{setup} {ask}", names[w], tuple(names[a] for a in order), params, ctx.n_options(3, 5))
    a = rng.randrange(m)
    tid, ask = ctx.phrase(T, "borda_score", alternative=names[a])
    total = sum(c for c, _ in profile)
    s = scores[a]
    # plausible slips on both sides: one ballot group miscounted by a position or left out or counted twice,
    # first places only, the reversed or 1-based point scale, other alternatives' totals
    slips = [s + sign * c * step for c, r in profile for sign in (-1, 1) for step in (1, m - 1 - r.index(a)) if step]
    cands = slips + [plurality_scores(profile, m)[a], total * (m - 1) - s, s + total, *scores]
    n_opts = ctx.n_options(3, 5)
    stated = [c for c, _ in profile] + [m, m - 1, m - 2]
    dis = spread_distractors(rng, s, cands, cands, n_opts - 1, fmt_num, stated)
    if len(dis) < n_opts - 1:
        more = numeric_distractors(rng, s, fmt_num, (), k=n_opts + 4, integer=True)
        dis += [d for d in more if d not in dis][: n_opts - 1 - len(dis)]
    params.update({"kind": "score", "asked": a})
    return Draft(tid, f"{setup} {ask}", fmt_num(s), tuple(dis), params, n_opts)


@generator("copeland")
def copeland(ctx: GenContext) -> Draft:
    """Copeland: each alternative scores (pairwise majority wins) - (pairwise losses); answer = the unique top
    scorer. Either the head-to-head results are stated directly (a random tournament) or a ballot profile with an
    odd number of voters is given."""
    rng = ctx.rng
    m = ctx.scale(3, 5) if ctx.level < 1 else 5
    names = _alternatives(ctx, m)
    voters = VOTERS[ctx.domain]
    params: dict[str, Any] = {"m": m, "names": names}
    if rng.random() < 0.5:
        for _ in range(500):
            beats = {(a, b) if rng.random() < 0.5 else (b, a) for a, b in itertools.combinations(range(m), 2)}
            w = unique_argmax(copeland_scores_from_beats(beats, m))
            if w is not None:
                break
        listed = lambda pairs: join_list([names[b] for a, b in pairs]) or T["copeland_nobody"]  # noqa: E731
        desc = " ".join(T["copeland_result"].format(
            alternative=names[a], beaten=listed((a, b) for b in range(m) if (a, b) in beats),
            beaten_by=listed((a, b) for b in range(m) if (b, a) in beats)) for a in range(m))
        setup = T["copeland_tournament"].format(alternatives=join_list(names), results=desc)
        params.update({"kind": "tournament", "beats": sorted(beats)})
    else:
        for _ in range(500):
            profile = random_profile(rng, m, ctx.scale(3, 6), 1, 30)
            if sum(c for c, _ in profile) % 2 == 0:
                profile[0] = (profile[0][0] + 1, profile[0][1])
            beats = majority_beats(profile, m)
            w = unique_argmax(copeland_scores_from_beats(beats, m))
            if w is not None:
                break
        setup = T["election"].format(alternatives=join_list(names), profile=_profile_text(names, profile, voters))
        params.update({"kind": "profile", "profile": profile})
    tid, ask = ctx.phrase(T, "copeland")
    order = [a for a in range(m) if a != w]
    rng.shuffle(order)
    return Draft(tid, f"{setup} {ask}", names[w], tuple(names[a] for a in order), params, ctx.n_options(3, 5))


Allocation = tuple[int, ...]  # item -> agent


def bundle_values(vals: Sequence[Sequence[int]], alloc: Allocation) -> list[list[int]]:
    """bv[i][j] = agent i's value for agent j's bundle (additive values)."""
    n = len(vals)
    bv = [[0] * n for _ in range(n)]
    for item, owner in enumerate(alloc):
        for i in range(n):
            bv[i][owner] += vals[i][item]
    return bv


def is_envy_free(vals: Sequence[Sequence[int]], alloc: Allocation) -> bool:
    bv = bundle_values(vals, alloc)
    return all(bv[i][i] >= bv[i][j] for i in range(len(vals)) for j in range(len(vals)))


def is_proportional(vals: Sequence[Sequence[int]], alloc: Allocation) -> bool:
    bv = bundle_values(vals, alloc)
    n = len(vals)
    return all(n * bv[i][i] >= sum(vals[i]) for i in range(n))


def round_robin(vals: Sequence[Sequence[int]], order: Sequence[int]) -> Allocation:
    """Agents pick in the stated order, repeatedly, each taking their most valued remaining item."""
    left = set(range(len(vals[0])))
    alloc = [-1] * len(vals[0])
    turn = 0
    while left:
        agent = order[turn % len(order)]
        item = max(left, key=lambda x: (vals[agent][x], -x))
        alloc[item] = agent
        left.remove(item)
        turn += 1
    return tuple(alloc)


@generator("fair_division")
def fair_division(ctx: GenContext) -> Draft:
    """Indivisible items with additive values. Envy-free: nobody values another's bundle above their own;
    proportional: everyone gets at least 1/n of their total value. Templates: which allocation is envy-free
    (exactly one option is, checked exhaustively); is an allocation proportional (Yes/No); round-robin picking
    (each picks their favourite remaining item; values of each agent distinct) -> an agent's bundle. No answer cue:
    the stated division is proportional in half the Yes/No questions, and envy-free questions offer divisions that
    give each person as many items as the key does where possible."""
    rng = ctx.rng
    n = ctx.scale(2, 3)
    m = ctx.scale(3, 6)
    people = ctx.people(n)
    items = [_short(a) for a in rng.sample(ctx.vocab.alternatives, m)]
    kind = rng.choice(("ef", "prop", "rr"))
    allocs = list(itertools.product(range(n), repeat=m))
    everyone = [a for a in allocs if all(i in a for i in range(n))]
    want_prop = rng.random() < 0.5  # proportional in half the Yes/No questions: no answer cue
    for _ in range(200):
        vals = [rng.sample(range(1, 30), m) for _ in range(n)]
        if (kind == "rr" or (kind == "ef" and any(is_envy_free(vals, al) for al in allocs))
                or (kind == "prop" and any(is_proportional(vals, a) == want_prop for a in everyone))):
            break
    desc = " ".join(T["fd_values"].format(person=p, values=join_list(
        [T["fd_value"].format(item=items[x], value=vals[i][x]) for x in range(m)])) for i, p in enumerate(people))
    setup = T["fd_setup"].format(people=join_list(people), m=m, items=join_list(items), values=desc)
    alloc_text = lambda al: "; ".join(  # noqa: E731
        T["fd_share"].format(person=p, items=join_list([items[x] for x in range(m) if al[x] == i]) or T["fd_nothing"])
        for i, p in enumerate(people))
    params: dict[str, Any] = {"vals": vals, "kind": kind, "people": people, "items": items}
    if kind == "ef":
        ef = [al for al in allocs if is_envy_free(vals, al)]
        if not ef:
            kind = "prop"
            params["kind"] = kind
        else:
            good = rng.choice(ef)
            bad = [al for al in allocs if not is_envy_free(vals, al) and all(i in al for i in range(n))]
            rng.shuffle(bad)
            # distractors give each person as many items as the envy-free division does where possible, so the
            # text's length and shape do not single the key out
            sizes = sorted(good.count(i) for i in range(n))
            bad.sort(key=lambda al: sorted(al.count(i) for i in range(n)) != sizes)
            tid, ask = ctx.phrase(T, "fd_ef")
            params["shown"] = list(good)
            return Draft(tid, f"{setup} {ask}", alloc_text(good), tuple(alloc_text(al) for al in bad), params,
                         ctx.n_options(3, 4))
    if kind == "prop":
        same = [a for a in everyone if is_proportional(vals, a) == want_prop]
        al = rng.choice(same or everyone)
        tid, ask = ctx.phrase(T, "fd_prop", division=alloc_text(al), n=n)
        params["alloc"] = list(al)
        return Draft(tid, f"{setup} {ask}", *yes_no(is_proportional(vals, al)), params, 2)
    return _fd_round_robin(ctx, setup, vals, items, people, params)


def _fd_round_robin(ctx: GenContext, setup: str, vals: list[list[int]], items: Sequence[str],
                    people: Sequence[str], params: dict[str, Any]) -> Draft:
    """Round-robin picking in a drawn order: one person's final bundle (the greedy top items a tempting mistake)."""
    rng = ctx.rng
    n, m = len(people), len(items)
    order = list(range(n))
    rng.shuffle(order)
    alloc = round_robin(vals, order)
    who = rng.randrange(n)
    tid, ask = ctx.phrase(T, "fd_rr", order=", ".join(people[i] for i in order), person=people[who])
    params.update(order=order, asked=who)
    mine = [items[x] for x in range(m) if alloc[x] == who]
    correct = join_list(mine) if mine else "Nothing"
    size = len(mine)
    cands = [join_list(list(c)) for c in itertools.combinations(items, size) if list(c) != mine]
    rng.shuffle(cands)
    greedy = sorted(range(m), key=lambda x: -vals[who][x])[:size]
    first = join_list([items[x] for x in sorted(greedy)])
    return Draft(tid, f"{setup} {ask}", correct, tuple([first] + cands), params, ctx.n_options(3, 4))

# ================================================================================================================
# 4.3 Mechanism properties: stated mechanisms checked by brute force on their stated finite value grid
#
# A mechanism is a frozen spec. Single-item auctions ("auction"): every bidder's value and report lie on ``grid``;
# bidders are ordered by report, highest first, ties in a uniformly random order (so outcomes are lotteries and
# utilities are expectations). Rules ("the winner" = first in that order unless stated):
#   first        winner pays own bid                      second       winner pays the highest other bid
#   reserve      sale only if top bid >= r; winner pays max(highest other bid, r)
#   second_plus  winner pays highest other bid + c        fraction     winner pays frac x own bid
#   second_wins  the *second* bidder in the order wins and pays own bid
#   posted       bidders asked in index order; the first whose report >= p buys at p
#   allpay       winner as in first; every bidder pays own bid
#   interim      winner as in first; every bidder pays t(own report), t = the interim expected payment of the
#                second-price auction when the others' values are uniform on the grid (BIC but not DSIC)
#   interim_first  winner as in first; every bidder pays t(own report), t = the interim expected payment of the
#                first-price auction under truthful bids, r * P(win | r) (a fee list like interim's; not BIC)
#   reserve_first  sale only if top bid >= r; winner pays own bid
#   posted_bid   bidders asked in index order; the first whose report >= p buys and pays own report
#   entry_fee    winner as in second, pays the highest other bid; every bidder also pays the entry fee p
# Public projects ("project"): built iff the reports sum to at least the cost C (fixed: always built; dictator:
# built iff the first resident reports at least C/n); payments when built:
#   equal C/n | proportional C*r_i/sum(r) | pay_report r_i | fee C/n + f (f stored in frac) | capped min(r_i, C/n)
#   | fixed C/n | dictator C/n
#   clarke: C/n plus the Clarke pivot tax on net values w_i = r_i - C/n (also charged when not built)
# Properties: DSIC = truthful reporting maximizes expected utility against every report profile of the others;
# BIC = truthful reporting maximizes expected utility when the others are truthful and their values are
# independent and uniform on the grid; IR (ex post) = every truthful participant's utility is >= 0 at every value
# profile; budget balance = at every report profile the payments sum exactly to C when built and to 0 when not.


class Mechanism(namedtuple("Mechanism", "setting rule n grid param frac")):
    """(setting, rule, n, grid, param, frac) -- a hashable spec; see the table above."""

    __slots__ = ()

    def __new__(cls, setting: str, rule: str, n: int, grid: tuple[int, ...], param: int = 0,
                frac: Fraction = Fraction(1)):
        return super().__new__(cls, setting, rule, n, tuple(grid), param, Fraction(frac))

    def to_params(self) -> dict[str, Any]:
        return {**self._asdict(), "grid": list(self.grid)}


def _orders(bids: Sequence[int]) -> list[tuple[int, ...]]:
    """Equally likely orders of bidders: by bid, highest first, ties in every order."""
    return [p for p in itertools.permutations(range(len(bids)))
            if all(bids[p[k]] >= bids[p[k + 1]] for k in range(len(p) - 1))]


@cache
def _interim_payments(rule: str, n: int, grid: tuple[int, ...]) -> dict[int, Fraction]:
    """Bid -> a bidder's expected payment in the auction ``rule`` when the others' values are uniform on the grid."""
    auction = Mechanism("auction", rule, n, grid)
    others = list(itertools.product(grid, repeat=n - 1))
    return {r: sum((mech_outcome(auction, (r,) + o)[1][0] for o in others), Fraction(0)) / len(others) for r in grid}


def interim_fees(mech: Mechanism) -> dict[int, Fraction]:
    """The fee list of an ``interim`` or ``interim_first`` mechanism (bid -> fee)."""
    return _interim_payments("second" if mech.rule == "interim" else "first", mech.n, mech.grid)


def mech_outcome(mech: Mechanism, reports: Sequence[int]) -> tuple[list[Fraction], list[Fraction]]:
    """Auctions: (win probabilities, expected payments). Projects: ([1 or 0] * n for built, payments)."""
    n = mech.n
    reports = tuple(reports)
    if mech.setting == "project":
        cost = mech.param
        share = Fraction(cost, n)
        built = {"fixed": True, "dictator": reports[0] >= share}.get(mech.rule, sum(reports) >= cost)
        if mech.rule == "clarke":
            w = [r - share for r in reports]
            pays = []
            for i in range(n):
                rest = sum(w) - w[i]
                tax = max(Fraction(0), -rest) if built else max(Fraction(0), rest)
                pays.append((share if built else 0) + tax)
            return [Fraction(int(built))] * n, pays
        if not built:
            return [Fraction(0)] * n, [Fraction(0)] * n
        total = sum(reports)
        if mech.rule in ("equal", "fixed", "dictator"):
            pays = [share] * n
        elif mech.rule == "proportional":
            pays = [Fraction(cost * r, total) for r in reports]
        elif mech.rule == "pay_report":
            pays = [Fraction(r) for r in reports]
        elif mech.rule == "fee":  # the fee is stored in ``frac``
            pays = [share + mech.frac] * n
        elif mech.rule == "capped":
            pays = [min(Fraction(r), share) for r in reports]
        else:
            raise ValueError(f"unknown project rule {mech.rule!r}")
        return [Fraction(1)] * n, pays
    probs = [Fraction(0)] * n
    pays = [Fraction(0)] * n
    if mech.rule in ("posted", "posted_bid"):
        for i, r in enumerate(reports):
            if r >= mech.param:
                probs[i], pays[i] = Fraction(1), Fraction(mech.param if mech.rule == "posted" else r)
                break
        return probs, pays
    orders = _orders(reports)
    weight = Fraction(1, len(orders))
    for order in orders:
        top = order[0]
        if mech.rule in ("reserve", "reserve_first") and reports[top] < mech.param:
            continue
        winner = order[1] if mech.rule == "second_wins" else top
        other = max(reports[j] for j in range(n) if j != winner)
        own = reports[winner]
        price = {"first": own, "second": other, "reserve": max(other, mech.param), "reserve_first": own,
                 "second_plus": other + mech.param, "entry_fee": other, "fraction": mech.frac * own,
                 "second_wins": own, "allpay": 0, "interim": 0, "interim_first": 0}[mech.rule]
        probs[winner] += weight
        pays[winner] += weight * price
    if mech.rule == "allpay":
        pays = [Fraction(r) for r in reports]
    elif mech.rule == "entry_fee":
        pays = [x + mech.param for x in pays]
    elif mech.rule in ("interim", "interim_first"):
        t = interim_fees(mech)
        pays = [t[r] for r in reports]
    return probs, pays


def mech_utility(mech: Mechanism, i: int, value: int, reports: Sequence[int]) -> Fraction:
    probs, pays = mech_outcome(mech, reports)
    return value * probs[i] - pays[i]


@cache
def is_dsic(mech: Mechanism) -> bool:
    for i in range(mech.n):
        for rest in itertools.product(mech.grid, repeat=mech.n - 1):
            for v in mech.grid:
                truth = mech_utility(mech, i, v, rest[:i] + (v,) + rest[i:])
                if any(mech_utility(mech, i, v, rest[:i] + (r,) + rest[i:]) > truth for r in mech.grid):
                    return False
    return True


@cache
def is_bic(mech: Mechanism) -> bool:
    others = list(itertools.product(mech.grid, repeat=mech.n - 1))
    for i in range(mech.n):
        for v in mech.grid:

            def eu(r: int, i: int = i, v: int = v) -> Fraction:
                return sum((mech_utility(mech, i, v, o[:i] + (r,) + o[i:]) for o in others), Fraction(0))

            truth = eu(v)
            if any(eu(r) > truth for r in mech.grid):
                return False
    return True


@cache
def is_ir(mech: Mechanism) -> bool:
    return all(mech_utility(mech, i, vals[i], vals) >= 0
               for vals in itertools.product(mech.grid, repeat=mech.n) for i in range(mech.n))


@cache
def is_budget_balanced(mech: Mechanism) -> bool:
    if mech.setting != "project":
        raise ValueError("budget balance is judged for public-project mechanisms")
    for reports in itertools.product(mech.grid, repeat=mech.n):
        built, pays = mech_outcome(mech, reports)
        if sum(pays) != (mech.param if built[0] else 0):
            return False
    return True


PROPERTY_CHECKS = {"dsic": is_dsic, "bic": is_bic, "ir": is_ir, "bb": is_budget_balanced}


def describe_mechanism(mech: Mechanism) -> str:
    texts = T["mechanisms"][mech.setting]
    if mech.rule in ("interim", "interim_first"):
        fees = ", ".join(T["interim_fee"].format(fee=fmt_money(t), bid=fmt_money(b))
                         for b, t in interim_fees(mech).items())
        return texts["interim"].format(fees=fees)
    percent = fmt_num(mech.frac * 100) if mech.rule == "fraction" else None
    fee = fmt_money(mech.frac) if mech.rule == "fee" else None
    return texts[mech.rule].format(price=fmt_money(mech.param), fee=fee, percent=percent)


def _grid_text(grid: Sequence[int]) -> str:
    return join_list([fmt_money(x) for x in grid], "or")


def _mech_setup(ctx: GenContext, mech: Mechanism, prior: bool) -> str:
    if mech.setting == "auction":
        head = T["mech_auction"].format(n=mech.n, item=ctx.vocab.owned_item, grid=_grid_text(mech.grid))
    else:
        head = T["mech_project"].format(n=mech.n, project=PROJECTS[ctx.domain], cost=fmt_money(mech.param),
                                        grid=_grid_text(mech.grid))
    return head + (T["mech_prior"] if prior else "")


def _mech_pool(ctx: GenContext, prop: str) -> list[Mechanism]:
    """Candidate mechanisms for a property question, with parameters drawn for this question."""
    rng = ctx.rng
    k = ctx.scale(4, 5)  # >= 4 grid values: on 3 values equal cost sharing is trivially truthful
    step = rng.choice((10, 20, 5, 25, 50))  # many grids: few questions share all their parameters
    grid = tuple(step * i for i in range(k))
    n = 2 if prop == "bic" or k > 4 else rng.choice((2, 3))
    res = step * rng.randint(1, k - 2)
    # each auction's parameter: a reserve or posted price, a bid increment or an entry fee (0: none)
    param = {"reserve": res, "second_plus": step, "posted": res, "reserve_first": res, "posted_bid": res,
             "entry_fee": step}
    fraction = Fraction(rng.choice((50, 75, 80)), 100)
    auctions = [Mechanism("auction", rule, n, grid, param.get(rule, 0), fraction if rule == "fraction" else 1)
                for rule in ("first", "second", "reserve", "second_plus", "fraction", "second_wins", "posted", "allpay",
                             "reserve_first", "posted_bid", "entry_fee")]
    if prop == "bic":
        return auctions + [Mechanism("auction", "interim", n, grid), Mechanism("auction", "interim_first", n, grid)]
    cost = n * step * rng.randint(1, k - 2)  # equal cost shares lie on the grid
    projects = [
        Mechanism("project", r, n, grid, cost)
        for r in ("equal", "proportional", "pay_report", "capped", "clarke", "fixed", "dictator")
    ]
    projects.append(Mechanism("project", "fee", n, grid, cost, Fraction(step)))
    return projects if prop == "bb" else auctions + projects


# each mechanism property's name and what it means (data/steer/texts.yaml)
PROP_TEXT = {prop: (text["name"], text["gloss"]) for prop, text in TEXTS["mechanism_properties"].items()}


def _property_question(ctx: GenContext, prop: str) -> Draft:
    """Yes/No (the property holds in half the questions), which mechanism has the property (exactly one of the
    offered does) or which lacks it (exactly one does not), the last two equally often: a surface trait of the
    mechanisms that have the property (a longer text, a word of the stem) points to the key in one and away from it
    in the other. BIC also asks which is BIC but not DSIC, beside a fee-list twin that is not BIC."""
    rng = ctx.rng
    pool = _mech_pool(ctx, prop)
    check = PROPERTY_CHECKS[prop]
    name, gloss = PROP_TEXT[prop]
    defn = T["mech_defined"].format(gloss=gloss) if ctx.level < 0.5 else ""
    words = {"name": name, "defn": defn}
    if prop == "bic" and ctx.level >= 0.5 and rng.random() < 0.3:  # BIC but not DSIC
        good = [m for m in pool if is_bic(m) and not is_dsic(m)]
        bad = [m for m in pool if not (is_bic(m) and not is_dsic(m))]
        mech = rng.choice(good)
        rng.shuffle(bad)
        bad.sort(key=lambda m: m.rule != "interim_first")  # the twin fee list is always offered
        tid, ask = ctx.phrasing(f"{prop}_notdsic", T["mech_notdsic"])
        q = f"{_mech_setup(ctx, mech, True)} {ask}"
        n_opts = ctx.n_options(3, 4)
        twin, rest = bad[:1], bad[1:]
        bad = twin + [rest[j] for j in balanced_decoys(rng, q, describe_mechanism(mech),
                                                       [describe_mechanism(m) for m in rest], n_opts - 2)]
        params = {"kind": "bic_not_dsic", "options": [m.to_params() for m in [mech] + bad]}
        return Draft(tid, q, describe_mechanism(mech), tuple(describe_mechanism(m) for m in bad), params, n_opts)
    if rng.random() < 0.5:
        want = rng.random() < 0.5
        mech = rng.choice([m for m in pool if check(m) == want])
        tid, ask = ctx.phrasing(f"{prop}_yn", [t.format(mechanism=describe_mechanism(mech), **words)
                                               for t in T["mech_yn"]])
        q = f"{_mech_setup(ctx, mech, prop == 'bic')} {ask}"
        return Draft(tid, q, *yes_no(check(mech)), {"kind": "yn", "mech": mech.to_params()}, 2)
    n_opts = ctx.n_options(3, 4)
    setting = rng.choice(sorted({m.setting for m in pool}))  # drawn before, and whatever, the question asks
    same = [m for m in pool if m.setting == setting]
    has = [m for m in same if check(m)]
    lacking = [m for m in same if not check(m)]
    feasible = [lk for lk, (one, rest) in ((False, (has, lacking)), (True, (lacking, has)))
                if one and len(rest) >= n_opts - 1]
    if not feasible:
        raise RuntimeError(f"{prop}: no {setting} mechanisms for a which-question with {n_opts} options")
    lacks = rng.choice(feasible) if len(feasible) == 2 else feasible[0]
    good, bad = (lacking, has) if lacks else (has, lacking)  # good: the one offered mechanism with the asked trait
    mech = rng.choice(good)
    bad = list(bad)
    rng.shuffle(bad)
    which = "whichnot" if lacks else "which"
    tid, ask = ctx.phrasing(f"{prop}_{which}", [t.format(**words) for t in T[f"mech_{which}"]])
    q = f"{_mech_setup(ctx, mech, prop == 'bic')} {ask}"
    picked = balanced_decoys(rng, q, describe_mechanism(mech), [describe_mechanism(m) for m in bad], n_opts - 1)
    bad = [bad[j] for j in picked]
    params = {"kind": "which_not" if lacks else "which", "options": [m.to_params() for m in [mech] + bad]}
    return Draft(tid, q, describe_mechanism(mech), tuple(describe_mechanism(m) for m in bad), params, n_opts)


@generator("dsic")
def dsic(ctx: GenContext) -> Draft:
    """DSIC judged by brute force over the stated grid: for every bidder, value, others' reports and misreport,
    truthful reporting is at least as good (mechanism table above). Yes/No for one mechanism, or which of several
    is DSIC (exactly one is)."""
    return _property_question(ctx, "dsic")


@generator("bic")
def bic(ctx: GenContext) -> Draft:
    """BIC judged by brute force with independent uniform values on the grid: truthful reporting maximizes
    interim expected utility when the others are truthful. Yes/No, which is BIC, or which is BIC but not DSIC
    (the all-pay mechanism charging the second-price auction's interim expected payment)."""
    return _property_question(ctx, "bic")


@generator("individual_rationality")
def individual_rationality(ctx: GenContext) -> Draft:
    """Ex-post individual rationality judged by brute force: at every value profile every truthful participant's
    utility (value received minus payment) is >= 0. Yes/No or which mechanism is IR (exactly one)."""
    return _property_question(ctx, "ir")


@generator("budget_balance")
def budget_balance(ctx: GenContext) -> Draft:
    """Budget balance judged by brute force over every report profile of a public-project mechanism: payments sum
    exactly to the cost when the project is built and to zero when it is not. Yes/No or which is budget balanced."""
    return _property_question(ctx, "bb")


# ================================================================================================================
# 4.4 Mechanism design


def top_trading_cycles(prefs: Sequence[Sequence[int]]) -> tuple[list[int], list[list[list[int]]]]:
    """Agent i owns house i; prefs[i] ranks houses best first. Each round every remaining agent points to the
    owner of their favourite remaining house; every cycle trades (each member gets the house they point to) and
    leaves. Returns (house of each agent, cycles per round)."""
    n = len(prefs)
    left = set(range(n))
    house = [-1] * n
    rounds = []
    while left:
        point = {i: next(h for h in prefs[i] if h in left) for i in left}
        cycles, done = [], set()
        for start in sorted(left):
            path, cur = [], start
            while cur not in path and cur not in done:
                path.append(cur)
                cur = point[cur]
            if cur in path:
                cyc = path[path.index(cur) :]
                cycles.append(cyc)
            done.update(path)
        for cyc in cycles:
            for i in cyc:
                house[i] = point[i]
            left -= set(cyc)
        rounds.append(cycles)
    return house, rounds


@generator("top_trading_cycles")
def top_trading_cycles_element(ctx: GenContext) -> Draft:
    """Top trading cycles with one owned item per agent (solver above). Asked: which item an agent ends up with,
    who ends up with a given agent's item, or who trades in the first round."""
    rng = ctx.rng
    n = ctx.scale(3, 5)
    people = ctx.people(n)
    noun, plural = HOUSES[ctx.domain]
    prefs = [rng.sample(range(n), n) for _ in range(n)]
    house, rounds = top_trading_cycles(prefs)
    item = lambda h: T["ttc_item"].format(owner=people[h], noun=noun)  # noqa: E731
    desc = " ".join(T["ttc_ranks"].format(person=p, ranking=" > ".join(item(h) for h in prefs[i]))
                    for i, p in enumerate(people))
    setup = T["ttc_setup"].format(people=join_list(people), noun=noun, plural=plural, preferences=desc)
    kind = rng.choice(("gets", "owner", "first"))
    params = {"prefs": prefs, "kind": kind, "people": people, "noun": noun}
    if kind == "gets":
        who = rng.randrange(n)
        tid, ask = ctx.phrase(T, "ttc_gets", noun=noun, person=people[who])
        params["asked"] = who
        return Draft(tid, f"{setup} {ask}", item(house[who]), tuple(item(h) for h in prefs[who] if h != house[who]),
                     params, ctx.n_options(3, 5))
    if kind == "owner":
        h = rng.randrange(n)
        owner = house.index(h)
        tid, ask = ctx.phrase(T, "ttc_owner", item=item(h))
        params["asked"] = h
        order = [i for i in range(n) if i != owner]
        rng.shuffle(order)
        return Draft(tid, f"{setup} {ask}", people[owner], tuple(people[i] for i in order), params, ctx.n_options(3, 5))
    first = sorted(i for cyc in rounds[0] for i in cyc)
    tid, ask = ctx.phrase(T, "ttc_first")
    correct = join_list([people[i] for i in first])
    subsets = [list(c) for r in range(1, n + 1) for c in itertools.combinations(range(n), r) if list(c) != first]
    texts = [join_list([people[i] for i in s]) for s in subsets]
    n_opts = ctx.n_options(3, 5)
    picked = balanced_decoys(rng, f"{setup} {ask}", correct, texts, n_opts - 1)  # no size or overlap cue
    return Draft(tid, f"{setup} {ask}", correct, tuple(texts[j] for j in picked), params, n_opts)


# Revenue rule for differing risk attitudes (stated theory, Krishna "Auction Theory" ch. 4): with risk-averse
# bidders a first-price (or Dutch) auction raises more expected revenue than a second-price or English auction;
# with risk-seeking bidders the second-price (or English) auction raises more; with risk-neutral bidders and
# independent private values all four raise the same (revenue equivalence). Payment given the stated bids:
# first-price/Dutch winner pays own bid; second-price/English winner pays the second-highest bid (and at least the
# reserve when there is one; no sale if the highest bid is below it).
RISK_BEST = {
    "risk-averse": ("first-price sealed-bid auction", "Dutch auction"),
    "risk-seeking": ("second-price sealed-bid auction", "English auction"),
}


def optimal_reserve(hi: int, seller_value: int = 0) -> Fraction:
    """Myerson: values iid uniform on [0, hi], virtual value 2v - hi; optimal reserve solves 2r - hi = seller value,
    i.e. r = (hi + seller_value) / 2, for any number of bidders."""
    return Fraction(hi + seller_value, 2)


def _auction_price(fmt_: str, bids: Sequence[int], reserve: int = 0) -> tuple[int | None, int | None]:
    """(winner index, price) of a format applied to the stated bids (distinct)."""
    order = sorted(range(len(bids)), key=lambda i: -bids[i])
    w = order[0]
    if bids[w] < reserve:
        return None, None
    if fmt_ in ("first-price sealed-bid auction", "Dutch auction"):
        return w, bids[w]
    return w, max(bids[order[1]], reserve)


@generator("optimal_auction_risk")
def optimal_auction_risk(ctx: GenContext) -> Draft:
    """Template 'format': all bidders share one stated risk attitude; the revenue-maximizing format follows the
    rule above (risk-averse -> first-price or Dutch; risk-seeking -> second-price or English, optionally with a
    reserve; risk-neutral -> revenue equivalence), and the winner pays what that format charges on the stated bids.
    Template 'reserve': risk-neutral bidders with values uniform on [0, H] and a seller value s: optimal reserve
    (H + s) / 2. No answer cue: the format options are a grid of {a best format, a worse one} x {the price each
    charges}, so the key's price is the higher one as often as the lower one; reserve distractors (plausible
    slips, none of them a stated number) lie on both sides of the key."""
    if ctx.rng.random() < 0.35:
        return _oar_reserve(ctx)
    return _oar_format(ctx)


def _oar_reserve(ctx: GenContext) -> Draft:
    """The optimal reserve (H + s) / 2 for risk-neutral bidders with values uniform on [0, H], seller value s."""
    rng = ctx.rng
    hi = rng.randint(2, 40) * 50
    s = 0 if ctx.level < 0.5 else rng.randint(0, hi // 100) * 50
    n = rng.randint(2, 6)
    r = optimal_reserve(hi, s)
    tid, ask = ctx.phrase(T, "oar_reserve", n=n, hi=fmt_money(hi), s=fmt_money(s), item=ctx.vocab.owned_item)
    # slips: hi/2 ignoring the seller's value, hi/n, the expected highest and second-highest values, thirds
    # and quarters of the range
    cands = [Fraction(hi, 2), Fraction(hi, 3), Fraction(hi, 4), Fraction(2 * hi, 3), Fraction(3 * hi, 4),
             Fraction(hi, n), Fraction(hi + s, 3), Fraction(hi * n, n + 1), Fraction(hi * (n - 1), n + 1),
             s + Fraction(hi - s, 3), s + Fraction(2 * (hi - s), 3), Fraction(hi + s, 4), Fraction(3 * (hi + s), 4)]
    n_opts = ctx.n_options(3, 5)
    step = 25 if hi >= 400 else 5
    cands = [round(c / step) * step for c in cands]  # whole dollars like the key's: no length cue
    cands += [r + step * j for j in range(-6, 7) if 0 < r + step * j < hi]  # near misses where slips coincide
    dis = spread_distractors(rng, r, cands, cands, n_opts - 1, fmt_money, [hi, s, n, 0])
    return Draft(tid, ask, fmt_money(r), tuple(dis), {"kind": "reserve", "hi": hi, "s": s, "n": n}, n_opts)


def _oar_format(ctx: GenContext) -> Draft:
    """The revenue-maximizing format for bidders of one stated risk attitude and what the winner pays in it."""
    rng = ctx.rng
    n = ctx.scale(3, 5)
    people = ctx.people(n)
    bids = rng.sample(range(10, 100), n)
    bids = [b * 5 for b in bids]
    # risk-neutral bidders (answer: revenue equivalence) in 1 of n_opts questions, and that answer offered in the
    # other templates too, so it is right about as often as any option
    n_opts = ctx.n_options(3, 4)
    equal = T["oar_equal"]
    attitude = "risk-neutral" if rng.random() < 1 / n_opts else rng.choice(("risk-averse", "risk-seeking"))
    reserve = 0
    if attitude == "risk-seeking" and ctx.level >= 0.5 and rng.random() < 0.5:
        srt = sorted(bids)
        if rng.random() < 0.6 and srt[-1] - srt[-2] >= 10:  # binding reserve strictly between the top two bids
            reserve = rng.randint(srt[-2] // 5 + 1, srt[-1] // 5 - 1) * 5
        else:
            reserve = srt[-2] - 5 * rng.randint(1, 5)
    bid_text = join_list([T["oar_bid"].format(person=p, bid=fmt_money(b)) for p, b in zip(people, bids, strict=False)])
    res_text = T["oar_reserve_rule"].format(reserve=fmt_money(reserve)) if reserve else ""
    setup = T["oar_setup"].format(item=capitalized(ctx.vocab.owned_item), n=n, attitude=attitude, bids=bid_text,
                                  reserve=res_text)

    def price(fmt_: str) -> int:
        w, p = _auction_price(fmt_, bids, reserve if fmt_ in RISK_BEST["risk-seeking"] else 0)
        assert w is not None  # any reserve lies below the highest bid
        return p

    w = max(range(n), key=lambda i: bids[i])

    def text(fmt_: str, p: int) -> str:
        return T["oar_outcome"].format(format=capitalized(fmt_), winner=people[w], price=fmt_money(p))

    params = {"kind": "format", "attitude": attitude, "bids": bids, "reserve": reserve, "people": people}
    # one wording for every attitude (one template whatever the answer): neither the question nor its id tells
    # which kind of answer is expected
    tid, ask = ctx.phrase(T, "oar_format")
    if attitude == "risk-neutral":
        best, worse = rng.choice(RISK_BEST["risk-averse"]), rng.choice(RISK_BEST["risk-seeking"])
        dis = [text(f, price(g)) for f in (best, worse) for g in (best, worse)]
        rng.shuffle(dis)
        return Draft(tid, f"{setup} {ask}", equal, tuple(dis), params, n_opts)
    other = "risk-seeking" if attitude == "risk-averse" else "risk-averse"
    best, worse = rng.choice(RISK_BEST[attitude]), rng.choice(RISK_BEST[other])
    params["formats"] = [best, worse]
    correct = text(best, price(best))
    near = [text(best, price(worse)), text(worse, price(best))]  # one attribute of the key wrong
    far = text(worse, price(worse))  # both wrong
    rng.shuffle(near)
    # with two grid distractors the key is the option most like the others (both its neighbours shown) in 1 of 4
    # questions, like any of the 4 options
    if n_opts == 3:
        dis = [rng.choice([*near, far])]
    else:
        dis = near if rng.random() < 0.25 else [near[0], far]
    return Draft(tid, f"{setup} {ask}", correct, (equal, *dis), params, n_opts)


# Revenue ranking of the four standard formats (risk-neutral symmetric bidders unless stated):
#   affiliated values, >= 3 bidders (Milgrom & Weber 1982, linkage principle): English > second-price > first-price
#     = Dutch;
#   affiliated values, 2 bidders: English = second-price (an English auction with two bidders reveals nothing before
#     it ends, so it is strategically a second-price auction) > first-price = Dutch;
#   independent private values: all four equal (revenue equivalence);
#   independent private values, risk-averse bidders (Krishna ch. 4): first-price = Dutch > second-price = English.
# A higher number is more expected revenue.
_FORMATS = ("English auction", "second-price sealed-bid auction", "first-price sealed-bid auction", "Dutch auction")
AFFILIATED_ENVS = {env: dict(zip(_FORMATS, ranks, strict=True)) for env, ranks in (
    ("affiliated", (3, 2, 1, 1)), ("affiliated_two", (2, 2, 1, 1)), ("independent", (1, 1, 1, 1)),
    ("independent_averse", (1, 1, 2, 2)))}  # each format's rank, in _FORMATS order

_RANK_SHORT = _FORMATS[:3]


def revenue_ordering_text(ranks: dict[str, int]) -> str:
    """The English, second-price and first-price formats ordered by expected revenue, highest first, ties as '='."""
    fmts = sorted(_RANK_SHORT, key=lambda f: (-ranks[f], _RANK_SHORT.index(f)))
    text = fmts[0]
    for a, b in itertools.pairwise(fmts):
        text += (" = " if ranks[a] == ranks[b] else " > ") + b
    return capitalized(text)


@generator("optimal_auction_affiliated")
def optimal_auction_affiliated(ctx: GenContext) -> Draft:
    """The environment (affiliated values with three or more bidders or with two, independent private values with
    risk-neutral or risk-averse bidders) fixes the revenue ranking in the table above. Template 'best': the offered
    format with the highest expected revenue (offered sets have a unique top), or 'they all give the same' when the
    offered formats tie. Template 'ranking': the ordering of English, second-price and first-price (four possible
    orderings, one per environment, each offered). Template 'english': in an English auction the bidder with the
    highest drop-out price wins and pays the second-highest drop-out price. No answer cue: every option is right in
    some environment, and the English outcomes offered form a grid of two bidders by two prices, one price on each
    side of the key's."""
    rng = ctx.rng
    item = ctx.vocab.owned_item
    kind = rng.choice(("best", "best", "ranking", "english"))
    if kind == "english":
        env = "affiliated"
    elif kind == "best" and rng.random() < 0.3:  # 'they all give the same' right in about 1 of 3 questions
        env = "independent"
    elif kind == "best":  # first-price/Dutch win only with risk-averse bidders: as often as English/second-price
        env = rng.choice(("independent_averse", "independent_averse", "affiliated", "affiliated_two"))
    else:
        env = rng.choice(sorted(AFFILIATED_ENVS))
    n = 2 if env == "affiliated_two" else rng.randint(3, 5) if env == "affiliated" else rng.randint(2, 5)
    people = ctx.people(n)
    attitude = "risk-averse" if env == "independent_averse" else "risk-neutral"
    setup = T["oaa_affiliated" if env.startswith("affiliated") else "oaa_independent"].format(
        item=capitalized(item), people=join_list(people), attitude=attitude)
    ranks = AFFILIATED_ENVS[env]
    params: dict[str, Any] = {"kind": kind, "env": env, "people": people}
    if kind == "best":
        return _oaa_best(ctx, setup, ranks, env == "independent", params)
    if kind == "ranking":
        orderings = sorted({revenue_ordering_text(r) for r in AFFILIATED_ENVS.values()})
        correct = revenue_ordering_text(ranks)
        others = [o for o in orderings if o != correct]
        rng.shuffle(others)
        tid, ask = ctx.phrase(T, "oaa_rank")
        return Draft(tid, f"{setup} {ask}", correct, tuple(others), params, ctx.n_options(3, 4))
    drops = [d * 5 for d in rng.sample(range(20, 200), n)]
    order = sorted(range(n), key=lambda i: -drops[i])
    desc = " ".join(T["oaa_drop"].format(person=p, price=fmt_money(d)) for p, d in zip(people, drops, strict=True))
    tid, ask = ctx.phrase(T, "oaa_english")
    w, second = order[0], order[1]
    other_person = rng.choice([i for i in range(n) if i != w])
    # the wrong price is the winner's own drop-out price (above the key's) or a lower one (below it)
    other_price = rng.choice([drops[w]] + [drops[i] for i in order[2:]])
    grid = [(w, drops[second]), (w, other_price), (other_person, drops[second]), (other_person, other_price)]
    text = lambda wp: T["oaa_outcome"].format(winner=people[wp[0]], price=fmt_money(wp[1]))  # noqa: E731
    dis = [text(x) for x in grid[1:]]
    rng.shuffle(dis)
    params["drops"] = drops
    return Draft(tid, f"{setup} {desc} {ask}", text(grid[0]), tuple(dis), params, ctx.n_options(3, 4))


def _oaa_best(ctx: GenContext, setup: str, ranks: dict[str, int], all_equal: bool, params: dict[str, Any]) -> Draft:
    """The offered format with the highest expected revenue (offered sets have a unique top), or that they tie
    (``all_equal``: independent private values, risk-neutral bidders)."""
    rng = ctx.rng
    equal = T["oaa_equal"]
    n_opts = ctx.n_options(3, 4)
    fmts = list(ranks)
    for _ in range(200):
        offered = rng.sample(fmts, rng.randint(2, n_opts - 1))
        top = [f for f in offered if ranks[f] == max(ranks[f] for f in offered)]
        if len(top) == 1 or all_equal:
            break
    correct = capitalized(top[0]) if len(top) == 1 else equal
    tid, ask = ctx.phrase(T, "oaa_best")
    dis = [capitalized(f) for f in offered if capitalized(f) != correct] + ([equal] if correct != equal else [])
    params["offered"] = offered
    return Draft(tid, f"{setup} {ask}", correct, tuple(dis), params, len(dis) + 1)
