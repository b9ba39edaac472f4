"""STEER setting 2 (decisions in single-agent environments) generators.

The normative model is risk-neutral von Neumann-Morgenstern expected utility (the paper's Module 2.4 framing):
stated utilities (or dollar amounts) are utilities, and the rational choice maximizes their expectation. Each
generator's docstring states its answer rule; the answer is computed by the code below it.
"""

from __future__ import annotations

from fractions import Fraction

from choicelab.studies.steer.items.base import (
    Draft,
    FollowUp,
    GenContext,
    Placement,
    capitalized,
    count_of,
    entity_numbers,
    fmt_money,
    fmt_num,
    fmt_pct,
    generator,
    join_list,
    percent_split,
    spread_distractors,
    unique_argmax,
)
from choicelab.studies.steer.items.domains import TEMPLATES

T = TEMPLATES["single_agent"]  # the questions' fixed sentences (data/steer/templates.yaml)

Lottery = list[tuple[int, int]]  # [(probability in percent, payoff), ...], probabilities sum to 100


def expected_value(lottery: Lottery) -> Fraction:
    """Expected payoff of a lottery with percent probabilities (exact)."""
    total = sum(p for p, _ in lottery)
    if total != 100:
        raise ValueError(f"lottery probabilities must sum to 100, got {total}: {lottery}")
    return sum((Fraction(p, 100) * x for p, x in lottery), Fraction(0))


def _describe(lottery: Lottery, money: bool = True) -> str:
    def fmt(x: int) -> str:
        if not money:
            return T["utility_of"].format(x=x)
        return T["loss_of"].format(amount=fmt_money(-x)) if x < 0 else fmt_money(x)

    if len(lottery) == 1:
        return T["for_sure"].format(outcome=fmt(lottery[0][1]))
    return join_list([T["chance_of"].format(p=p, outcome=fmt(x)) for p, x in lottery])


PREFERENCE_LABELS = {"A": T["prefer_1"], "B": T["prefer_2"], "=": T["indifferent"]}


def _preference(ua: Fraction | int, ub: Fraction | int) -> tuple[str, tuple[str, ...]]:
    """The key (prefer 1, prefer 2 or indifferent, by the higher value) and the other two labels."""
    key = "A" if ua > ub else "B" if ub > ua else "="
    return PREFERENCE_LABELS[key], tuple(label for k, label in PREFERENCE_LABELS.items() if k != key)


# ================================================================================================================
# 2.1 Axioms of utility, deterministic


@generator("completeness")
def completeness(ctx: GenContext) -> Draft:
    """Each option's utility is the sum of its stated component utilities; answer = the option with the higher
    total, or indifference when the totals are equal (a complete preference always exists). Three options (prefer
    1, prefer 2, indifferent), a tie in a third of the questions, so "indifferent" is right about as often as any
    option; "cannot be compared" is never offered (it is never right under completeness: an answer cue)."""
    rng, v = ctx.rng, ctx.vocab
    n_attr = ctx.scale(2, 3)
    a_parts = [rng.randint(10, 120)] + [-rng.randint(1, 60) for _ in range(n_attr - 1)]
    b_parts = [rng.randint(10, 120)] + [-rng.randint(1, 60) for _ in range(n_attr - 1)]
    if rng.random() < 1 / 3:  # a tie in a third of the questions: indifference is right as often as either option
        b_parts[0] += sum(a_parts) - sum(b_parts)
        if b_parts[0] <= 0:
            b_parts[0] = rng.randint(10, 120)
    ua, ub = sum(a_parts), sum(b_parts)
    x, y = rng.sample(v.alternatives, 2)
    describe = lambda parts: ", ".join([T["compl_benefit"].format(u=parts[0])] +  # noqa: E731
                                       [T["compl_drawback"].format(u=u) for u in parts[1:]])
    tid, lead = ctx.phrase(T, "compl_det", role=v.role, noun=v.option_noun)
    q = T["compl_question"].format(lead=lead, x=x, a=describe(a_parts), y=y, b=describe(b_parts))
    return Draft(tid, q, *_preference(ua, ub), {"a_parts": a_parts, "b_parts": b_parts}, 3)


@generator("transitivity")
def transitivity(ctx: GenContext) -> Draft:
    """Stated strict preferences form a chain x0 > x1 > ... > xk (stated in random order and form: "rather have a
    than b" or "like b less than a", so the order of mention is no cue); the asked pair
    is ordered by the transitive closure, so the answer is the one earlier in the chain. In a third of the
    questions one link between the asked pair is left out, so the statements do not order the pair and the answer
    is "It cannot be determined from these preferences" (three options; that catch-all is right about as often as
    any option). "Indifferent" is never offered: strict stated preferences never imply indifference."""
    rng, v = ctx.rng, ctx.vocab
    k = ctx.scale(3, 5)
    chain = rng.sample(v.alternatives, k)
    i = rng.randrange(0, k - 2)
    j = rng.randrange(i + 2, k)
    links = list(range(k - 1))
    determined = rng.random() >= 1 / 3
    if not determined:
        links.remove(rng.randrange(i, j))  # a missing link between x_i and x_j: the pair is not ordered
    stmts = [(chain[m], chain[m + 1]) for m in links]
    rng.shuffle(stmts)  # in chain order the key would be the asked alternative the stem mentions first
    first, second = (chain[i], chain[j]) if rng.random() < 0.5 else (chain[j], chain[i])
    tid, lead = ctx.phrase(T, "trans", n=v.option_noun, r=v.role)
    prefs = " ".join(rng.choice(T["trans_forms"]).format(a=a, b=b) for a, b in stmts)
    q = T["trans_question"].format(lead=lead, prefs=prefs, first=first, second=second)
    unknown = T["trans_unknown"]
    correct = chain[i] if determined else unknown
    dis = [x for x in (chain[i], chain[j], unknown) if x != correct]
    return Draft(tid, q, correct, tuple(dis), {"chain": chain, "asked": [chain[i], chain[j]],
                                               "statements": stmts, "determined": determined}, 3)


@generator("independence")
def independence(ctx: GenContext) -> Draft:
    """You chose X over Y (a stated choice: with no stated utility there is no rational first choice to ask for);
    then new options appear. By independence of irrelevant alternatives a new option never makes Y better than X:
    the answer stays X, unless a new option dominates X (higher quality and lower price), in which case it is the
    answer (monotone preferences). Dominated decoys (worse and dearer than Y or than X) are the usual new options; a
    dominating one appears in a third of the questions, so the new options are right in some questions too."""
    rng, v = ctx.rng, ctx.vocab
    qa, qb = rng.sample(range(50, 100), 2)
    pa, pb = rng.sample(range(100, 901), 2)
    if (qa > qb) != (pa > pb):  # a trade-off: the better one costs more (neither dominates the other)
        pa, pb = pb, pa
    x_is_a = rng.random() < 0.5
    names = entity_numbers(4)
    x_quality, x_price = (qa, pa) if x_is_a else (qb, pb)
    y_quality, y_price = (qb, pb) if x_is_a else (qa, pa)
    n_decoys = ctx.scale(1, 2)
    dominating = rng.randrange(n_decoys) if rng.random() < 1 / 3 else -1
    decoys = []
    for d in range(n_decoys):
        if d == dominating:
            decoys.append((min(100, x_quality + rng.randint(1, 10)), max(50, x_price - rng.randint(10, 80))))
        else:
            ref_q, ref_p = (y_quality, y_price) if rng.random() < 0.5 else (x_quality, x_price)
            decoys.append((ref_q - rng.randint(1, 10 * (d + 1)), ref_p + rng.randint(10, 150)))
    items = [(qa, pa), (qb, pb)] + decoys
    noun = v.option_noun.capitalize()
    entries = [T["indep_item"].format(noun=noun, name=names[i], quality=qq, price=fmt_money(pp))
               for i, (qq, pp) in enumerate(items)]
    listing, extra = " ".join(entries[:2]), " ".join(entries[2:])
    chosen = names[0] if x_is_a else names[1]
    tid, lead = ctx.phrase(T, "indep", n=v.option_noun, r=v.role)
    q = T["indep_question"].format(lead=lead, listing=listing, noun=noun, chosen=chosen, extra=extra)
    opts = [T["indep_option"].format(noun=noun, name=n) for n in names[: 2 + n_decoys]]
    correct = opts[2 + dominating] if dominating >= 0 else opts[0] if x_is_a else opts[1]
    params = {"items": items, "chosen_first": chosen}
    return Draft(tid, q, correct, tuple(o for o in opts if o != correct), params)


# ================================================================================================================
# 2.2 Cognitive biases, deterministic


@generator("sunk_cost")
def sunk_cost(ctx: GenContext) -> Draft:
    """Only future flows matter: continue a project iff its future revenue exceeds its remaining cost; with several
    projects (one can be funded) pick the largest positive future net value, or abandon all; sunk costs ignored.
    With one project, continuing is right in half the questions."""
    rng, v = ctx.rng, ctx.vocab
    n_proj = ctx.scale(1, 3)
    go_on = rng.random() < 0.5  # one project: "continue" and "abandon" each right in half the questions
    for _ in range(100):
        projects = []
        for _p in range(n_proj):
            sunk = rng.randint(10, 90) * 10_000
            remaining = rng.randint(10, 90) * 10_000
            revenue = remaining + rng.randint(-40, 30) * 10_000
            projects.append((sunk, remaining, max(revenue, 10_000)))
        nets = [r - f for _, f, r in projects]
        if len(set(nets)) == n_proj and 0 not in nets and (n_proj > 1 or (nets[0] > 0) == go_on):
            break
    if n_proj == 1:
        sunk, rem, rev = projects[0]
        tid, lead = ctx.phrase(T, "sunk", project=v.project, role=v.role)
        q = T["sunk_one"].format(lead=lead, sunk=fmt_money(sunk), remaining=fmt_money(rem), revenue=fmt_money(rev))
        cont, stop = T["sunk_continue"], T["sunk_abandon"]
        correct = cont if rev > rem else stop
        return Draft(tid, q, correct, (stop if correct == cont else cont,), {"projects": projects}, 2)
    names = [T["sunk_name"].format(n=n) for n in entity_numbers(n_proj)]
    desc = " ".join(T["sunk_project"].format(name=n, sunk=fmt_money(s), remaining=fmt_money(f), revenue=fmt_money(r))
                    for n, (s, f, r) in zip(names, projects, strict=False))
    tid = "sunk.multi"
    q = T["sunk_multi"].format(role=v.role, projects=desc)
    best = max(range(n_proj), key=lambda i: nets[i])
    opts = [T["sunk_finish"].format(name=n) for n in names] + [T["sunk_abandon_all"]]
    correct = opts[best] if nets[best] > 0 else opts[-1]
    return Draft(tid, q, correct, tuple(o for o in opts if o != correct), {"projects": projects})


@generator("endowment_effect")
def endowment_effect(ctx: GenContext) -> Draft:
    """Willingness to accept equals willingness to pay v: sell iff the offer exceeds v (offers never equal v; Yes
    and No are each right in half the questions); the minimum acceptable selling price is v. In the selling-price
    template the stem states two other prices, which are also options: the shop price of a new one, always above v
    (a shop price below v would make "sell at the replacement price" a second defensible answer: sell, then buy
    another for less), and what a friend paid for one last year (no offer anyone makes now, on either side of v). In
    half the questions v is not stated as one number but as a price plus a fee you would also have paid, so "pick
    the number the stem states" is no cue; the other distractors lie on both sides of v."""
    rng, v = ctx.rng, ctx.vocab
    wtp = rng.randint(4, 60) * 5
    item = v.owned_item
    if ctx.level < 0.5:
        sell = rng.random() < 0.5
        offer = wtp + (1 if sell else -1) * rng.randint(1, 10) * 5
        tid, lead = ctx.phrase(T, "endow", item=item, wtp=fmt_money(wtp))
        q = T["endow_offer"].format(lead=lead, offer=fmt_money(offer))
        correct, other = (T["endow_sell"], T["endow_keep"]) if offer > wtp else (T["endow_keep"], T["endow_sell"])
        return Draft(tid, q, correct, (other,), {"wtp": wtp, "offer": offer, "kind": "offer"}, 2)
    who = ctx.people(1)[0]
    fee = rng.randint(1, min(8, wtp // 5 - 1)) * 5 if rng.random() < 0.5 else 0
    price = wtp - fee  # the stated price; with a fee the value is price + fee, a number the stem does not state
    shop = wtp + rng.randint(2, 12) * 5
    resale = wtp + rng.choice((-1, 1)) * rng.randint(2, 12) * 5
    while resale in (shop, price, wtp) or resale <= 0:
        resale += 5
    value = T["endow_value_fee" if fee else "endow_value"].format(price=fmt_money(price), fee=fmt_money(fee))
    tid, lead = ctx.phrase(T, "endow.wta", item=item, role=v.role, who=who)
    facts = [T["endow_before"].format(value=value), T["endow_shop"].format(price=fmt_money(shop)),
             T["endow_friend"].format(price=fmt_money(resale))]
    rng.shuffle(facts)  # the order the prices are mentioned in is no cue
    q = T["endow_wta_question"].format(lead=lead, facts=" ".join(facts))
    k = ctx.n_options(3, 5) - 1
    stated = [shop, resale] + ([price] if fee else [])
    dis = spread_distractors(rng, wtp, fmt_money, stated + ([price + 2 * fee] if fee else []), k,
                             Placement(lo=0, step=5))
    return Draft(tid, q, fmt_money(wtp), tuple(dis),
                 {"wtp": wtp, "kind": "wta", "fee": fee, "shop": shop, "resale": resale}, k + 1)


@generator("time_inconsistency")
def time_inconsistency(ctx: GenContext) -> Draft:
    """Stationary (time-consistent) preferences: shifting both payments by the same delay D does not change the
    choice, so the answer repeats the earlier choice (smaller-sooner or larger-later, 50/50). Two options: the
    consistent and the switched choice ("it depends on the delay" would never be right, an answer cue). The order in
    which the stem mentions the two payments, in the earlier choice and in the new one, is drawn at random, so the
    option mentioned first is no cue."""
    rng, v = ctx.rng, ctx.vocab
    small = rng.randint(2, 50) * 5
    large = small + rng.randint(1, 20) * 5
    gap = rng.randint(1, 30)
    shift = rng.randint(gap + 1, 365)
    chose_small = rng.random() < 0.5
    days = lambda n: count_of(n, "day", "days")  # noqa: E731
    sooner = T["time_today"].format(amount=fmt_money(small))
    later = T["time_later"].format(amount=fmt_money(large), days=days(gap))
    first, other = (sooner, later) if chose_small else (later, sooner)
    pair = (sooner, later) if rng.random() < 0.5 else (later, sooner)
    phrasings = (T["time"][0], T["time"][1] if rng.random() < 0.5 else T["time_turned_down"])
    tid, lead = ctx.phrasing("time", [t.format(x=pair[0], y=pair[1], first=first, other=other, role=v.role)
                                      for t in phrasings])
    a = T["time_later"].format(amount=fmt_money(small), days=days(shift))
    b = T["time_later"].format(amount=fmt_money(large), days=days(shift + gap))
    new_pair = (a, b) if rng.random() < 0.5 else (b, a)
    q = T["time_question"].format(lead=lead, x=new_pair[0], y=new_pair[1])
    correct, wrong = (a, b) if chose_small else (b, a)
    return Draft(tid, q, correct, (wrong,), {"small": small, "large": large, "gap": gap, "shift": shift,
                                             "chose_small": chose_small}, 2)


# ================================================================================================================
# 2.3 Axioms of utility, stochastic


def _draw_lottery(rng, k: int, lo: int, hi: int) -> Lottery:
    probs = percent_split(rng, k)
    return [(p, rng.randint(lo, hi) * 100) for p in probs]


@generator("completeness_lotteries")
def completeness_lotteries(ctx: GenContext) -> Draft:
    """Compare two lotteries (base amount plus chance outcomes) by expected value; answer = the higher one, or
    indifference on a tie (a third of the questions; three options, no "cannot be compared", as in completeness)."""
    rng, v = ctx.rng, ctx.vocab
    k = ctx.scale(2, 3)
    base_a = rng.randint(300, 800) * 100
    la = [(p, base_a + x) for p, x in _draw_lottery(rng, k, 0, 100)]
    if rng.random() < 1 / 3:  # a different lottery with the same expected value
        lb = list(la[::-1])
        shift = rng.randint(1, 5)
        # moving shift*p2 to outcome 1 and shift*p1 away from outcome 2 keeps the expectation unchanged
        (p1, x1), (p2, x2) = lb[0], lb[1]
        lb[0], lb[1] = (p1, x1 + shift * p2), (p2, x2 - shift * p1)
    else:
        lb = [(p, base_a + x + rng.randint(-20, 20) * 100) for p, x in _draw_lottery(rng, k, 0, 100)]
    ea, eb = expected_value(la), expected_value(lb)
    tid, lead = ctx.phrase(T, "compl_lot", noun=v.option_noun, role=v.role)
    q = T["compl_lot_question"].format(lead=lead, a=_describe(la), b=_describe(lb))
    return Draft(tid, q, *_preference(ea, eb), {"a": la, "b": lb}, 3)


@generator("transitivity_lotteries")
def transitivity_lotteries(ctx: GenContext) -> Draft:
    """Stated preferences between lotteries form a chain L0 > L1 > ... ; the consistent statement is that an
    earlier lottery is preferred to a later one that is not adjacent to it (transitive closure: never a stated
    preference copied); the distractors reverse a stated or implied preference. The options go round a cycle of
    lotteries (i > j, m > i, j > m for i < m < j; with four options i > j, m > i, n > m, j > n for i < m < n < j), so
    every lottery appears in exactly two options and no option is the "most typical" or the odd one out."""
    rng, v = ctx.rng, ctx.vocab
    k = ctx.scale(3, 5)
    outcomes = rng.sample(v.alternatives, k)
    probs = rng.sample(range(5, 96), k)
    lots = [T["chance_of"].format(p=p, outcome=o) for p, o in zip(probs, outcomes, strict=False)]
    stmts = [(i, i + 1) for i in range(k - 1)]
    if ctx.level >= 0.5:
        rng.shuffle(stmts)
    prefs = " ".join(T["trans_lot_pref"].format(a=lots[a], b=lots[b]) for a, b in stmts)
    n_opt = min(ctx.n_options(3, 4), k)
    cycle = sorted(rng.sample(range(k), n_opt))  # i < (m < n <) j
    i, j = cycle[0], cycle[-1]
    tid, lead = ctx.phrase(T, "trans_lot", role=v.role)
    q = T["trans_lot_question"].format(lead=lead, prefs=prefs)
    correct = T["trans_lot_option"].format(a=capitalized(lots[i]), b=lots[j])
    # the other edges of the cycle i -> m -> (n ->) j, each stated the wrong way round (a later over an earlier)
    dis = [T["trans_lot_option"].format(a=capitalized(lots[b]), b=lots[a])
           for a, b in zip(cycle, cycle[1:], strict=False)]
    return Draft(tid, q, correct, tuple(dis), {"lotteries": list(zip(probs, outcomes, strict=False)), "asked": [i, j],
                                               "cycle": cycle}, n_opt)


def trade_off(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Whether two one-prize lotteries (chance in percent, prize; nothing otherwise) trade risk against reward: one
    has the higher chance, the other the larger prize. Otherwise one dominates the other and the choice between them
    needs no expected-value reasoning."""
    return (a[0] - b[0]) * (a[1] - b[1]) < 0


def _one_prize(rng, taken: list[tuple[int, int]], above: Fraction | None, below: Fraction | None,
               avoid: list[Fraction]) -> tuple[int, int] | None:
    """A one-prize lottery (chance, prize) with a prize of its own, in a risk trade-off with every lottery in
    ``taken``, its expected value strictly between ``above`` and ``below`` (None: unbounded) and not in ``avoid``."""
    for _ in range(500):
        cand = (rng.randint(5, 95), rng.randint(2, 40) * 50)
        ev = Fraction(cand[0] * cand[1], 100)
        if (cand[1] in {x for _, x in taken} or not all(trade_off(cand, t) for t in taken) or ev in avoid
                or (above is not None and ev <= above) or (below is not None and ev >= below)):
            continue
        return cand
    return None


@generator("independence_lotteries")
def independence_lotteries(ctx: GenContext) -> Draft:
    """The paper's two successive choices, no criterion in the stem: two lotteries ("Which would you choose?"),
    then the same two plus one or two new ones ("Now which would you choose?"). The risk-neutral choice maximizes
    expected value in each part; a new option changes the choice only when it is itself the best (independence: it
    never reverses the first two), which is drawn in a third of the questions, so every option is right in some.
    Every lottery is one prize of its own with a chance of it, and every two lotteries trade chance against prize
    (no option dominates another, so neither part is settled by dominance); expected values all differ."""
    rng, v = ctx.rng, ctx.vocab
    n_new = ctx.scale(1, 2)
    winner = rng.randrange(n_new) if rng.random() < 1 / 3 else -1  # which new option (if any) is the best
    for _ in range(200):
        first = _one_prize(rng, [], None, None, [])
        second = _one_prize(rng, [first], None, None, [Fraction(first[0] * first[1], 100)])
        if second is None:
            continue
        pairs = [first, second]
        for d in range(n_new):
            evs = [Fraction(c * x, 100) for c, x in pairs]
            best = max(evs)
            found = _one_prize(rng, pairs, best if d == winner else None, None if d == winner else best, evs)
            if found is None:
                break
            pairs.append(found)
        else:
            break
    else:  # pragma: no cover - practically unreachable
        raise ValueError("independence_lotteries: no lotteries in a risk trade-off found")
    lots: list[Lottery] = [[(c, x), (100 - c, 0)] for c, x in pairs]
    evs = [expected_value(lot) for lot in lots]
    names = entity_numbers(len(lots))
    describe = lambda lot: T["one_prize"].format(p=lot[0][0], prize=fmt_money(lot[0][1]))  # noqa: E731
    entries = [T["option_entry"].format(name=n, lottery=describe(lot)) for n, lot in zip(names, lots, strict=True)]
    listing, extra = " ".join(entries[:2]), " ".join(entries[2:])
    tid, lead = ctx.phrase(T, "indep_lot", noun=v.option_noun, role=v.role)
    q1 = T["indep_lot_first"].format(lead=lead, listing=listing)
    more = T["another_option"] if len(lots) == 3 else T["more_options"]
    q2 = T["indep_lot_second"].format(more=more, extra=extra)
    option = [T["option_name"].format(name=n) for n in names]
    first_key = unique_argmax(evs[:2])
    overall = unique_argmax(evs)
    k1, k2 = option[first_key], option[overall]
    params = {"lotteries": lots}
    return Draft(tid, q1, k1, (option[1 - first_key],), params, 2,
                 follow_up=FollowUp(q2, k2, tuple(o for o in option if o != k2)))


# ================================================================================================================
# 2.4 Risk-neutral expected utility


@generator("compute_eu")
def compute_eu(ctx: GenContext) -> Draft:
    """EU = sum_i p_i * u_i over the stated outcomes (utilities may be negative at higher grades). Distractors are
    plausible mistakes and steps on the key's 0.05 grid, all strictly between the smallest and largest utility, with
    the key's rank among the options uniform."""
    rng, v = ctx.rng, ctx.vocab
    k = ctx.scale(2, 4)
    probs = percent_split(rng, k)
    lo = -50 if ctx.level >= 0.5 else 0
    utils = rng.sample(range(lo, 101), k)
    eu = expected_value(list(zip(probs, utils, strict=False)))
    outcomes = enumerate(zip(probs, utils, strict=False))
    events = [T["ceu_event"].format(i=i + 1, u=u, p=p) for i, (p, u) in outcomes]
    # drawn for every phrasing, in this order, whichever is used
    alternative, person, other_alternative = rng.choice(v.alternatives), ctx.people(1)[0], rng.choice(v.alternatives)
    tid, lead = ctx.phrase(T, "ceu", role=v.role, alternative=alternative, noun=v.option_noun, person=person,
                           other_alternative=other_alternative)
    q = T["ceu_question"].format(lead=lead, events="; ".join(events))
    # plausible mistakes (the plain mean, probabilities matched to the wrong outcomes, one outcome left out), on
    # the key's grid of 0.05, then steps of uneven size on both sides: the key's rank among the options is uniform
    grid = Fraction(1, 20)
    snap = lambda x: round(Fraction(x) / grid) * grid  # noqa: E731
    cands = [snap(Fraction(sum(utils), k)), expected_value(list(zip(probs[::-1], utils, strict=False))),
             eu - Fraction(probs[-1] * utils[-1], 100)]
    dis = spread_distractors(rng, eu, fmt_num, cands, ctx.n_options(3, 5) - 1,
                             Placement(min(utils), max(utils), grid, max(0.5, abs(float(eu)) * 0.06)))
    return Draft(tid, q, fmt_num(eu), tuple(dis), {"probs_pct": probs, "utils": utils}, ctx.n_options(3, 5))


def _prospects(rng, m: int, k_max: int, lo: int, hi: int) -> list[Lottery]:
    out = []
    for _ in range(m):
        k = rng.randint(1, k_max)
        out.append(list(zip(percent_split(rng, k), [rng.randint(lo, hi) * 100 for _ in range(k)], strict=False))
                   if k > 1 else [(100, rng.randint(lo, hi) * 100)])
    return out


@generator("maximize_eu")
def maximize_eu(ctx: GenContext) -> Draft:
    """Answer = the prospect with the (unique) highest expected value; more prospects and outcomes at higher
    grades."""
    rng, v = ctx.rng, ctx.vocab
    m, k_max = ctx.scale(2, 4), ctx.scale(2, 3)
    for _ in range(200):
        pros = _prospects(rng, m, k_max, 10, 200)
        evs = [expected_value(p) for p in pros]
        if unique_argmax(evs) is not None:
            break
    names = [T["numbered"].format(noun=v.option_noun.capitalize(), name=n) for n in entity_numbers(m)]
    listing = " ".join(T["meu_pays"].format(name=n, lottery=_describe(p)) for n, p in zip(names, pros, strict=False))
    tid, lead = ctx.phrase(T, "meu", noun=v.option_noun, role=v.role, m=m)
    q = T["meu_question"].format(lead=lead, listing=listing)
    best = unique_argmax(evs)
    return Draft(tid, q, names[best], tuple(n for i, n in enumerate(names) if i != best), {"prospects": pros})


def _risk_question(ctx: GenContext, kind: str) -> Draft:
    """Two core prospects -- a safer one and a riskier one -- plus 0-2 extra prospects at higher grades; the answer is
    the prospect of highest expected value. Which core prospect has the higher EV is drawn 50/50, so the safe
    option is the key about as often as the risky one (a rule "always take the gamble" or "never take it" is at
    chance); an extra prospect is the best in about 1 of (k+1) questions."""
    rng, v = ctx.rng, ctx.vocab
    safe_wins = rng.random() < 0.5
    factor = Fraction(rng.randint(55, 92), 100) if safe_wins else Fraction(rng.randint(108, 160), 100)

    def core() -> list[Lottery]:
        """[safer, riskier] with EV(riskier) = factor * EV(safer) (rounded to whole hundreds / tens)."""
        if kind == "aversion":  # a sure amount against a gamble
            p = rng.randint(2, 9) * 10
            sure = rng.randint(10, 100) * 100
            big = int(sure * factor * 100 / p) // 100 * 100
            return [[(100, sure)], [(p, big), (100 - p, 0)]]
        if kind == "seeking":  # a likely moderate payoff against a long shot with a big prize
            p_safe = rng.randint(6, 9) * 10
            safe = rng.randint(10, 60) * 100
            p_long = rng.randint(1, 4) * 5
            long_shot = int(p_safe * safe * factor / p_long) // 100 * 100
            return [[(p_safe, safe), (100 - p_safe, 0)], [(p_long, long_shot), (100 - p_long, 0)]]
        # loss aversion: a small sure-ish gain against a gamble that can lose money
        p2 = rng.randint(3, 9) * 10
        safe_gain = rng.randint(2, 40) * 10
        p = rng.randint(3, 7) * 10
        loss = -rng.randint(5, 40) * 10
        target = Fraction(p2 * safe_gain, 100) * factor  # EV of the gamble: p*gain + (1-p)*loss = target
        gain = int((target * 100 - (100 - p) * loss) / p) // 10 * 10
        return [[(p2, safe_gain), (100 - p2, 0)], [(p, gain), (100 - p, loss)]]

    def extras(n: int, top: Fraction) -> list[Lottery]:
        """n more two-outcome prospects with EV 50-95% of ``top`` (the better core EV); one of them beats it
        (105-130%) in about 1 of (n + 2) questions, so an extra option is the key about as often as a core one."""
        out = []
        winner = rng.randrange(n + 2) if n else -1
        for e in range(n):
            q_ = rng.randint(1, 16) * 5
            f = Fraction(rng.randint(105, 130), 100) if e == winner else Fraction(rng.randint(50, 95), 100)
            out.append([(q_, max(100, int(top * f * 100 / q_) // 100 * 100)), (100 - q_, 0)])
        return out

    n_extra = ctx.scale(0, 2)
    for _ in range(500):
        pros = core()
        pros += extras(n_extra, max(expected_value(x) for x in pros))
        evs = [expected_value(x) for x in pros]
        if unique_argmax(evs) is not None and (evs[0] > evs[1]) == safe_wins and min(evs[:2]) > 0:
            break
    while unique_argmax(evs) is None:  # no draw in 500 met every wish: at least one option must be the best
        pros = core()
        pros += extras(n_extra, max(expected_value(x) for x in pros))
        evs = [expected_value(x) for x in pros]
    names = [T["numbered"].format(noun=v.option_noun.capitalize(), name=n) for n in entity_numbers(len(pros))]
    order = list(range(len(pros)))
    rng.shuffle(order)
    pros = [pros[i] for i in order]
    evs = [expected_value(x) for x in pros]
    listing = " ".join(T["risk_gives"].format(name=n, lottery=_describe(p)) for n, p in zip(names, pros, strict=False))
    tid, lead = ctx.phrasing(f"risk_{kind}", [t.format(role=v.role, noun=v.option_noun, count=len(pros))
                                              for t in T["risk"]])
    q = T["risk_question"].format(lead=lead, listing=listing, noun=v.option_noun)
    best = unique_argmax(evs)
    return Draft(tid, q, names[best], tuple(n for i, n in enumerate(names) if i != best),
                 {"prospects": pros, "safe_first": order.index(0) < order.index(1)})


@generator("avoid_risk_aversion")
def avoid_risk_aversion(ctx: GenContext) -> Draft:
    """A sure amount against a gamble whose EV is 108-160% of it (half the questions) or 55-92% of it (the other
    half); a risk-neutral agent picks the argmax-EV option, so the sure amount is right as often as the gamble."""
    return _risk_question(ctx, "aversion")


@generator("avoid_risk_seeking")
def avoid_risk_seeking(ctx: GenContext) -> Draft:
    """A likely moderate payoff against a long shot with a big prize whose EV is 55-92% (half the questions) or
    108-160% of the safe EV; answer = argmax EV, so the long shot is right as often as the safe payoff."""
    return _risk_question(ctx, "seeking")


@generator("avoid_loss_aversion")
def avoid_loss_aversion(ctx: GenContext) -> Draft:
    """A likely small gain against a gamble that can lose money, whose EV is 55-92% or 108-160% of the gain's
    (50/50); losses count at face value, so answer = argmax expected net payoff."""
    return _risk_question(ctx, "loss")


# ================================================================================================================
# 2.5 Cognitive biases, stochastic


@generator("gamblers_fallacy")
def gamblers_fallacy(ctx: GenContext) -> Draft:
    """Independent draws: after any streak the next outcome has its unconditional probability p. Draws without
    replacement are not independent: the next outcome's chance is (remaining count)/(remaining total) -- the rule is
    independence, not 'nothing ever changes'. Verbal template (lower grades): "X is now more likely / less likely /
    exactly as likely as before", with a fair device or a red/black box drawn with replacement (as likely), or a
    red/black box drawn without replacement after a streak of X (less likely) or of the other colour (more likely),
    a third each, so every statement is right in a third of the questions. Numeric template: the probability, with
    distractors (plausible mistakes and other values, strictly between 0% and 100%) on both sides of the key."""
    rng, v = ctx.rng, ctx.vocab
    streak = rng.randint(3, 3 + ctx.scale(2, 8))
    device = rng.choice(("coin", "die", "wheel"))
    if device == "coin":
        same, other = rng.sample(("heads", "tails"), 2)
        p = Fraction(1, 2)
        setup = T["gf_coin"]
    elif device == "die":
        face = rng.randint(1, 6)
        same, other, p = T["gf_face"].format(face=face), T["gf_not_face"].format(face=face), Fraction(1, 6)
        setup = T["gf_die"]
    else:
        n_red = rng.randint(1, 9)
        same, other = rng.sample(("red", "black"), 2)
        p = Fraction(n_red if same == "red" else 10 - n_red, 10)
        setup = T["gf_wheel"].format(red=n_red, black=10 - n_red)
    who = ctx.people(1)[0]
    _, context = ctx.phrase(T, "gf", story=v.urn_story, role=v.role, setup=setup, who=who, domain=v.name)
    if ctx.level < 0.5:
        tid = "gf.verbal"
        case = rng.choice(("independent", "box_same", "box_other"))
        replaced = case == "independent" and rng.random() < 0.5  # a box drawn with replacement is independent too
        if case == "independent" and not replaced:
            q = T["gf_streak"].format(context=context, outcome=same, streak=streak)
            subject, before = same, fmt_pct(p)
            params = {"kind": "verbal", "device": device, "p": [p.numerator, p.denominator], "streak": streak,
                      "outcome": same}
        else:
            color, rest = rng.sample(("red", "black"), 2)  # the wheel's colours: a colour tells nothing
            n_color = rng.randint(streak + 1, streak + 8)
            n_rest = rng.randint(streak + 1, streak + 8)
            total = n_color + n_rest
            drawn = color if case == "box_same" or (replaced and rng.random() < 0.5) else rest
            back = T["gf_replaced"] if replaced else T["gf_not_replaced"]
            q = T["gf_box"].format(story=v.urn_story, who=who, total=total, n_color=n_color, color=color,
                                   n_rest=n_rest, rest=rest, back=back, streak=streak, drawn=drawn)
            subject, before = color, fmt_pct(Fraction(n_color, total))
            params = {"kind": "verbal_box", "n_color": n_color, "n_rest": n_rest, "streak": streak,
                      "drawn_is_color": drawn == color, "replaced": replaced}
        says = {"independent": "gf_as_likely", "box_same": "gf_less_likely", "box_other": "gf_more_likely"}
        statements = {c: T[key].format(subject=subject.capitalize(), before=before) for c, key in says.items()}
        return Draft(tid, q, statements[case], tuple(t for c, t in statements.items() if c != case), params, 3)
    without = rng.random() < 0.3
    if without:
        total = rng.randint(streak + 4, streak + 20)
        target = rng.randint(streak + 1, total - 1)
        answer = Fraction(target - streak, total - streak)
        tid = "gf.noreplace"
        q = T["gf_noreplace"].format(role=ctx.vocab.role.capitalize(), total=total, target=target, streak=streak)
        cands = [Fraction(target, total), Fraction(target - streak, total), Fraction(target - streak - 1,
                                                                                     total - streak)]
        params = {"kind": "noreplace", "total": total, "target": target, "streak": streak}
    else:
        answer = p
        tid = "gf.numeric"
        q = T["gf_numeric"].format(context=context, outcome=same, streak=streak)
        cands = [1 - p, p / 2, (1 + p) / 2, p * 2]
        params = {"kind": "independent", "device": device, "p": [p.numerator, p.denominator], "streak": streak}
    dis = spread_distractors(rng, answer, fmt_pct, cands, ctx.n_options(3, 5) - 1, Placement(lo=0, hi=1, gap=0.06))
    return Draft(tid, q, fmt_pct(answer), tuple(dis), params, ctx.n_options(3, 5))


# Options and gambles are numbered 1-4 (not lettered A-D), so no answer names a letter other than its own.


def _two_choices(first_better: bool, second_better: bool, noun: str = "Option") -> tuple[str, str, str, str]:
    """Keys of a two-part question with Options 1, 2 in part 1 and Options 3, 4 in part 2, given whether Option 1
    and Option 3 are the better ones: returns (key 1, other 1, key 2, other 2)."""
    k1, o1 = (f"{noun} 1", f"{noun} 2") if first_better else (f"{noun} 2", f"{noun} 1")
    k2, o2 = (f"{noun} 3", f"{noun} 4") if second_better else (f"{noun} 4", f"{noun} 3")
    return k1, o1, k2, o2


@generator("certainty_effect")
def certainty_effect(ctx: GenContext) -> Draft:
    """The paper's two successive choices (common-ratio Allais pair), no criterion in the stem: first a sure amount
    x against a p chance of y ("Which would you choose?"), then ("Now consider two more options ...") an r chance of x
    against an r*p chance of y. The second pair scales both chances by r, so EV(3)/EV(1) = EV(4)/EV(2) = r: the
    risk-neutral (expected-value) choice is the sure side in both or the risky side in both, and the pair is right
    only when both choices are. Which side has the higher EV is drawn 50/50 (the sure amount wins in half the
    questions); which option is listed first is drawn too."""
    rng, v = ctx.rng, ctx.vocab
    sure_better = rng.random() < 0.5
    for _ in range(200):
        x = rng.randint(2, 60) * 10
        p = rng.randint(5, 9) * 10 if ctx.level < 0.5 else rng.randint(50, 95)
        y = rng.randint(x // 10 + 1, x // 10 * 2 + 5) * 10
        if p * y != 100 * x and (100 * x > p * y) == sure_better:
            break
    sure_better = 100 * x > p * y
    r = rng.choice((10, 20, 25, 50)) if ctx.level < 0.5 else rng.choice((10, 15, 20, 25, 30, 40, 50))
    sure_first, scaled_first = rng.random() < 0.5, rng.random() < 0.5
    sure = T["for_sure"].format(outcome=fmt_money(x))
    risky = T["one_prize"].format(p=p, prize=fmt_money(y))
    c_text = T["one_prize"].format(p=r, prize=fmt_money(x))
    d_text = T["one_prize"].format(p=fmt_num(Fraction(r * p, 100)), prize=fmt_money(y))
    one, two = (sure, risky) if sure_first else (risky, sure)
    three, four = (c_text, d_text) if scaled_first else (d_text, c_text)
    tid, lead = ctx.phrase(T, "cert", role=v.role, noun=v.option_noun)
    q1 = T["cert_first"].format(lead=lead, one=one, two=two)
    q2 = T["cert_second"].format(three=three, four=four)
    k1, o1, k2, o2 = _two_choices(sure_better == sure_first, sure_better == scaled_first)
    params = {"x": x, "p": p, "y": y, "r": r, "sure_first": sure_first, "scaled_sure_first": scaled_first}
    return Draft(tid, q1, k1, (o1,), params, 2, follow_up=FollowUp(q2, k2, (o2,), 2))


@generator("reflection_effect")
def reflection_effect(ctx: GenContext) -> Draft:
    """The paper's mirror pair (Illustration 2.5.c), two successive choices with no criterion in the stem: a sure
    gain g against a p chance to gain G ("Which would you choose?"), then the same amounts as losses, a sure loss g
    against a p chance to lose G ("Suppose you were given another choice ..."). The risk-neutral choice in each part
    is the option with the higher expected value; negating every amount reverses the comparison, so the consistent
    (rational) pair takes the sure side in one part and the gamble in the other, and the pair is right only when both
    choices are. g < G, so neither option dominates the other and each part is a risk trade-off; g != p * G, so each
    part's key is unique. Which side wins in the gains is drawn 50/50, and which option is listed first in each part
    too (the key's position in part 2 is not the mirror of its position in part 1)."""
    rng, v = ctx.rng, ctx.vocab
    sure_better = rng.random() < 0.5  # in the gains; in the losses the gamble is then the better side
    for _ in range(200):
        g, p, big_g = rng.randint(2, 20) * 10, rng.randint(2, 8) * 10, rng.randint(3, 40) * 10
        if g < big_g and 100 * g != p * big_g and (100 * g > p * big_g) == sure_better:
            break
    sure_better = 100 * g > p * big_g
    gain_sure_first, loss_sure_first = rng.random() < 0.5, rng.random() < 0.5
    sure, gamble = {"amount": fmt_money(g)}, {"p": p, "amount": fmt_money(big_g)}
    gains = (T["refl_sure_gain"].format(**sure), T["refl_gamble_gain"].format(**gamble))
    losses = (T["refl_sure_loss"].format(**sure), T["refl_gamble_loss"].format(**gamble))
    one, two = gains if gain_sure_first else gains[::-1]
    three, four = losses if loss_sure_first else losses[::-1]
    tid, lead = ctx.phrase(T, "refl", role=v.role)
    q1 = T["refl_first"].format(lead=lead, one=one, two=two)
    q2 = T["refl_second"].format(three=three, four=four)
    k1, o1, k2, o2 = _two_choices(sure_better == gain_sure_first, sure_better != loss_sure_first)
    params = {"g": g, "p": p, "G": big_g, "gain_sure_first": gain_sure_first, "loss_sure_first": loss_sure_first}
    return Draft(tid, q1, k1, (o1,), params, 2, follow_up=FollowUp(q2, k2, (o2,), 2))


@generator("ambiguity_aversion")
def ambiguity_aversion(ctx: GenContext) -> Draft:
    """Ellsberg urn as two successive choices (two-part question, no criterion in the stem): N balls, R red, the
    rest black or yellow in an unknown proportion, nothing known about the split. First Gamble 1 (pays on red) or
    Gamble 2 (on black); then Gamble 3 (red or yellow) or Gamble 4 (black or yellow). For any belief b about the
    black count, 1 > 2 iff R > b iff 3 > 4, so the consistent pairs are 1 and 3 or 2 and 4; with no information the
    symmetric belief b = (N-R)/2 applies (R != b drawn), and each part's answer is its expected-value-maximizing
    gamble under it (R > (N-R)/2 in half the questions, drawn 50/50)."""
    rng, v = ctx.rng, ctx.vocab
    n = rng.choice((60, 90, 100, 120))
    red_better = rng.random() < 0.5  # red beats the symmetric belief's black count (N-R)/2 iff 3R > N
    red = rng.randint(n // 3 + 1, n * 6 // 10) if red_better else rng.randint(n // 10, (n - 1) // 3)
    prize = rng.choice((50, 100, 200))
    tid, lead = ctx.phrase(T, "ambig", story=v.urn_story, role=v.role)
    q1 = T["ambig_first"].format(lead=lead, n=n, red=red, rest=n - red, prize=fmt_money(prize))
    q2 = T["ambig_second"].format(prize=fmt_money(prize))
    red_better = 2 * red > n - red
    k1, o1, k2, o2 = _two_choices(red_better, red_better, "Gamble")
    return Draft(tid, q1, k1, (o1,), {"n": n, "red": red, "prize": prize}, 2, follow_up=FollowUp(q2, k2, (o2,), 2))
