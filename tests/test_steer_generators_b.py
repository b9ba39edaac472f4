"""Specification of the STEER setting-3 (multi-agent) and setting-4 (on behalf of others) generators.

Every element's answer key is re-derived here from the question's recorded parameters by an independent check written
separately from the generator code: Nash equilibria, dominance and Bayes-Nash equilibria by enumerating every profile,
subgame perfection by trying every deviation in every subgame, bargaining by searching every integer offer, feasible
and enforceable payoffs by linear programming (scipy), trigger strategies by solving the deviation MDP exactly, voting
rules by counting, top trading cycles by a brute-force core search, mechanism properties by a separate brute-force
implementation of the stated rules, optimal reserves by maximizing a revenue integral. Only formatting helpers are
shared with the package.
"""

import itertools
import random
import re
from fractions import Fraction

import pytest
from scipy.optimize import linprog

from choicelab.studies.steer.items import base
from choicelab.studies.steer.items.base import fmt_money, fmt_num, join_list
from choicelab.studies.steer.items.social_choice import Mechanism, describe_mechanism  # text rendering only
from choicelab.studies.steer.items.taxonomy import load_taxonomy

TAX = load_taxonomy()
SETTING_3_4 = [e.id for e in TAX.elements if e.setting_id in ("3", "4")]
N_PER_TEST = 3


def all_questions(element_id):
    el = TAX.element(element_id)
    out = []
    for domain in el.domains:
        for grade in el.grades:
            out.extend(base.generate(element_id, domain, grade, N_PER_TEST, seed=11))
    return out


@pytest.fixture(scope="module")
def questions():
    return {eid: all_questions(eid) for eid in SETTING_3_4}


def frac(x):
    return Fraction(x) if not isinstance(x, str) else Fraction(*map(int, x.split("/")))


def parse_number(text):
    return float(text.replace("$", "").replace(",", "").replace("%", ""))


def shown_draft_positions(q):
    """Pairs (draft position, is the correct option) for every shown option."""
    return [(q.option_order[i], i == q.correct) for i in range(len(q.options))]


# ------------------------------------------------------------------------------------------------------------
# Normal-form games


class G:
    """A game rebuilt from the recorded parameters."""

    def __init__(self, pg):
        self.players = pg["players"]
        self.actions = pg["actions"]
        self.dec = pg["dec"]
        self.pay = {tuple(p): tuple(v) for p, v in pg["payoffs"]}
        self.profiles = list(itertools.product(*(range(len(a)) for a in self.actions)))
        assert set(self.pay) == set(self.profiles)

    def u(self, i, prof):
        return self.pay[tuple(prof)][i]

    def label(self, prof):
        return ", ".join(f"{self.players[i]} plays {self.actions[i][a]}" for i, a in enumerate(prof))

    def dev(self, prof, i, a):
        p = list(prof)
        p[i] = a
        return tuple(p)


def nash_set(g):
    return {
        p
        for p in g.profiles
        if not any(g.u(i, g.dev(p, i, a)) > g.u(i, p) for i in range(len(g.players)) for a in range(len(g.actions[i])))
    }


def strictly_dominated(g, i, alive):
    others = [alive[j] if j != i else [None] for j in range(len(g.players))]
    rests = list(itertools.product(*others))

    def worse(b, a):
        return all(g.u(i, g.dev(r, i, b)) < g.u(i, g.dev(r, i, a)) for r in rests)

    return [b for b in alive[i] if any(worse(b, a) for a in alive[i] if a != b)]


def irds_one_at_a_time(g, seed):
    """Remove one strictly dominated action at a time in a random order (the result must not depend on it)."""
    rnd = random.Random(seed)
    alive = [list(range(len(a))) for a in g.actions]
    while True:
        cands = [(i, b) for i in range(len(g.players)) for b in strictly_dominated(g, i, alive)]
        if not cands:
            return alive
        i, b = rnd.choice(cands)
        alive[i].remove(b)


def expected(g, i, mix):
    """Player i's expected payoff of each action against the opponent's mixture {action: prob}."""
    out = []
    for a in range(len(g.actions[i])):
        out.append(sum(p * g.u(i, (a, b) if i == 0 else (b, a)) for b, p in mix.items()))
    return out


def unique_best(vals):
    best = max(vals)
    assert list(vals).count(best) == 1
    return list(vals).index(best)


def level_k_matrix(g, i, k):
    j = 1 - i
    if k == 1:
        mix = {b: Fraction(1, len(g.actions[j])) for b in range(len(g.actions[j]))}
    else:
        mix = {level_k_matrix(g, j, k - 1): Fraction(1)}
    return unique_best(expected(g, i, mix))


def lp_feasible(points, target):
    k = len(points)
    a_eq = [[1.0] * k, [float(p[0]) for p in points], [float(p[1]) for p in points]]
    res = linprog([0.0] * k, A_eq=a_eq, b_eq=[1.0, float(target[0]), float(target[1])], bounds=[(0, None)] * k)
    return res.status == 0


def lp_minmax(g, i):
    """min over the punisher's mixtures q of max over i's actions of the expected payoff (variables q..., t)."""
    j = 1 - i
    nq = len(g.actions[j])
    a_ub = []
    for a in range(len(g.actions[i])):
        a_ub.append([float(g.u(i, (a, b) if i == 0 else (b, a))) for b in range(nq)] + [-1.0])
    res = linprog(
        [0.0] * nq + [1.0],
        A_ub=a_ub,
        b_ub=[0.0] * len(a_ub),
        A_eq=[[1.0] * nq + [0.0]],
        b_eq=[1.0],
        bounds=[(0, 1)] * nq + [(None, None)],
    )
    assert res.status == 0
    return res.fun


def best_stationary_value(delta, trans, start):
    """Exact optimal value of a 2-state deterministic MDP by enumerating the 4 stationary policies.
    trans[state][action] = (reward, next state). Returns {policy: value at start}."""
    values = {}
    for pol in itertools.product((0, 1), repeat=2):
        # v = r + delta * v[next]: solve the 2x2 system exactly
        r0, n0 = trans[0][pol[0]]
        r1, n1 = trans[1][pol[1]]
        # unknowns v0, v1
        a = [
            [1 - (delta if n0 == 0 else 0), -(delta if n0 == 1 else 0)],
            [-(delta if n1 == 0 else 0), 1 - (delta if n1 == 1 else 0)],
        ]
        det = a[0][0] * a[1][1] - a[0][1] * a[1][0]
        v0 = (r0 * a[1][1] - a[0][1] * r1) / det
        v1 = (a[0][0] * r1 - a[1][0] * r0) / det
        values[pol] = (v0, v1)[start]
    return values


def grim_sustains(p, delta):
    t, r, pp, s = p["T"], p["R"], p["P"], p["S"]
    # state 0: opponent still cooperating; state 1: punishment forever. action 0 = cooperate, 1 = defect
    trans = {0: {0: (r, 0), 1: (t, 1)}, 1: {0: (s, 1), 1: (pp, 1)}}
    vals = best_stationary_value(delta, trans, 0)
    return max(v for pol, v in vals.items() if pol[0] == 0) >= max(vals.values())


def punishment_deviation_fails(p, delta, length):
    """An L-period punishment ("after any defection both defect for L periods, then cooperate") is subgame perfect
    iff no single deviation pays: in the cooperative phase, compare the two payoff streams period by period (they
    agree from period L + 1 on, when both are back to mutual cooperation); in the punishment phase, cooperating
    earns S < P and restarts the punishment."""
    t, r, pp, s = p["T"], p["R"], p["P"], p["S"]
    stay = [r] * (length + 1)
    deviate = [t] + [pp] * length
    assert s < pp
    return sum((x - y) * delta**k for k, (x, y) in enumerate(zip(stay, deviate, strict=True))) >= 0


def tft_is_nash(p, delta):
    t, r, pp, s = p["T"], p["R"], p["P"], p["S"]
    # state = the opponent's action this period (= my previous action)
    trans = {0: {0: (r, 0), 1: (t, 1)}, 1: {0: (s, 0), 1: (pp, 1)}}
    vals = best_stationary_value(delta, trans, 0)
    return vals[(0, 0)] >= max(vals.values())


# ------------------------------------------------------------------------------------------------------------
# Extensive-form games


def decision_nodes(tree):
    out, stack = [], [tree]
    while stack:
        node = stack.pop()
        if "moves" in node:
            out.append(node)
            stack.extend(c for _, c in node["moves"])
    return out


def leaf_payoffs(node):
    if "pay" in node:
        return [tuple(node["pay"])]
    return [leaf for _, child in node["moves"] for leaf in leaf_payoffs(child)]


def play(node, plan):
    while "moves" in node:
        node = dict(node["moves"])[plan[node["id"]]]
    return tuple(node["pay"])


def path_of(node, plan):
    out = []
    while "moves" in node:
        out.append(plan[node["id"]])
        node = dict(node["moves"])[plan[node["id"]]]
    return out


def is_spe(tree, plan):
    """Brute force: in every subgame no player gains from any change of their own choices inside it."""
    for sub in decision_nodes(tree):
        nodes = decision_nodes(sub)
        base_pay = play(sub, plan)
        for i in (0, 1):
            mine = [n for n in nodes if n["player"] == i]
            for alt in itertools.product(*([m[0] for m in n["moves"]] for n in mine)):
                trial = {**plan, **{n["id"]: a for n, a in zip(mine, alt, strict=True)}}
                if play(sub, trial)[i] > base_pay[i]:
                    return False
    return True


def spe_plan(tree):
    """The SPE found by checking every plan (trees have at most 7 decision points); asserted unique."""
    nodes = decision_nodes(tree)
    found = []
    for combo in itertools.product(*([m[0] for m in n["moves"]] for n in nodes)):
        plan = {n["id"]: c for n, c in zip(nodes, combo, strict=True)}
        if is_spe(tree, plan):
            found.append(plan)
    assert len(found) == 1
    return found[0]


def plan_from_text(text):
    return {int(nid): letter for letter, nid in re.findall(r"\b([A-Z][a-z]+) at point (\d+)", text)}


def bargain_brute(pies, t=0):
    """(proposer payoff, responder payoff) in round t by trying every integer offer, including unacceptable ones;
    a responder accepts when the offer is at least what rejecting gives."""
    if t == len(pies):
        return 0, 0
    nxt_prop, nxt_resp = bargain_brute(pies, t + 1)
    reject = (nxt_resp, nxt_prop)  # roles swap next round
    best = None
    for x in range(pies[t] + 1):
        outcome = (pies[t] - x, x) if x >= reject[1] else reject
        if best is None or outcome[0] > best[0][0]:
            best = (outcome, x)
    return best[0]


def bargain_first_offer(pies):
    resp_cont = bargain_brute(pies, 1)[0] if len(pies) > 1 else 0
    return min(x for x in range(pies[0] + 1) if x >= resp_cont)


# ------------------------------------------------------------------------------------------------------------
# Social choice


def first_counts(profile, m, alive=None):
    alive = set(range(m)) if alive is None else alive
    c = {a: 0 for a in alive}
    for n, r in profile:
        c[[x for x in r if x in alive][0]] += n
    return c


def prefers(profile, a, b):
    return sum(n for n, r in profile if list(r).index(a) < list(r).index(b))


def the_max(d):
    best = max(d.values())
    keys = [k for k, v in d.items() if v == best]
    assert len(keys) == 1
    return keys[0]


def winner(rule, profile, m):
    if rule == "plurality":
        return the_max(first_counts(profile, m))
    if rule == "borda":
        return the_max({a: sum(n * (m - 1 - list(r).index(a)) for n, r in profile) for a in range(m)})
    if rule == "runoff":
        c = first_counts(profile, m)
        top2 = sorted(c, key=lambda a: -c[a])[:2]
        a, b = top2
        return a if prefers(profile, a, b) > prefers(profile, b, a) else b
    alive = set(range(m))
    while len(alive) > 1:
        c = first_counts(profile, m, alive)
        low = min(c.values())
        assert list(c.values()).count(low) == 1
        alive.remove(next(a for a in c if c[a] == low))
    return alive.pop()


def majority(profile, m):
    return {(a, b) for a in range(m) for b in range(m) if a != b and prefers(profile, a, b) > prefers(profile, b, a)}


def rank_text(names, r):
    return " > ".join(names[a] for a in r)


def swf(rule, k, prof, m):
    n = len(prof)
    if rule == "copy":
        return prof[k]
    if rule == "reverse":
        return tuple(reversed(prof[k]))
    if rule == "switch":
        return prof[(k + 1) % n] if prof[k][0] == 0 else prof[k]
    if rule == "unless_others":
        others = {prof[i] for i in range(n) if i != k}
        return others.pop() if len(others) == 1 else prof[k]
    if rule == "borda":
        pts = {a: sum(m - 1 - r.index(a) for r in prof) for a in range(m)}
        return tuple(sorted(range(m), key=lambda a: (-pts[a], a)))
    if rule == "unless_all":
        return prof[k] if len(set(prof)) > 1 else prof[0]
    if rule == "defer":
        return prof[k] if prof[(k + 1) % n] == prof[k] else prof[(k + 1) % n]
    if rule == "unanimity_k":
        def over(a, b):  # a placed above b: unanimous, or not unanimously below and voter k has it higher
            votes = [r.index(a) < r.index(b) for r in prof]
            return all(votes) or (any(votes) and prof[k].index(a) < prof[k].index(b))

        out = list(range(m))
        for i in range(m):  # insertion by the pairwise relation (a ranking when it is transitive)
            for j in range(m - 1 - i):
                if over(out[j + 1], out[j]):
                    out[j], out[j + 1] = out[j + 1], out[j]
        return tuple(out)
    firsts = {a: sum(1 for r in prof if r[0] == a) for a in range(m)}
    return tuple(sorted(range(m), key=lambda a: (-firsts[a], prof[k].index(a))))


def bundles(vals, alloc, n):
    return [[sum(vals[i][x] for x in range(len(alloc)) if alloc[x] == j) for j in range(n)] for i in range(n)]


# ------------------------------------------------------------------------------------------------------------
# Mechanisms: an independent implementation of the stated rules


MECH_FIELDS = ("setting", "rule", "n", "grid", "param", "frac")


def mech_from(p):
    return {**p, "frac": frac(p["frac"]), "grid": tuple(p["grid"])}


def interim_fee(grid, r):
    """Two bidders, second-price auction, the other's value uniform on the grid: E[payment | report r]."""
    total = sum(Fraction(o) for o in grid if o < r) + (Fraction(r, 2) if r in grid else 0)
    return total / len(grid)


def first_price_fee(grid, r):
    """Two bidders, first-price auction, the other truthful and uniform on the grid: E[payment | report r] =
    r x P(win), a tie won half the time."""
    p_win = (sum(1 for o in grid if o < r) + Fraction(1, 2) * (r in grid)) / len(grid)
    return r * p_win


def auction_result(mech, bids):
    """(win probabilities, expected payments) of the stated auction rules, derived from the tied-top set."""
    n, rule, par = mech["n"], mech["rule"], mech["param"]
    win = [Fraction(0)] * n
    pay = [Fraction(0)] * n
    if rule in ("posted", "posted_bid"):
        for i in range(n):
            if bids[i] >= par:
                win[i], pay[i] = Fraction(1), Fraction(par if rule == "posted" else bids[i])
                break
        return win, pay
    top = max(bids)
    tied = [i for i in range(n) if bids[i] == top]
    if rule == "second_wins":
        if len(tied) >= 2:
            cands = tied
        else:
            second = max(b for i, b in enumerate(bids) if i not in tied)
            cands = [i for i in range(n) if bids[i] == second]
        for i in cands:
            win[i] = Fraction(1, len(cands))
            pay[i] = win[i] * bids[i]
        return win, pay
    if rule in ("reserve", "reserve_first") and top < par:
        return win, pay
    for i in tied:
        win[i] = Fraction(1, len(tied))
        other = max(b for j, b in enumerate(bids) if j != i)
        price = {
            "first": bids[i],
            "reserve_first": bids[i],
            "second": other,
            "reserve": max(other, par),
            "second_plus": other + par,
            "fraction": mech["frac"] * bids[i],
        }.get(rule, 0)
        pay[i] = win[i] * price
    if rule == "allpay":
        pay = [Fraction(b) for b in bids]
    if rule == "entry_fee":  # second-price, and everyone pays the fee
        second = [Fraction(0)] * n
        for i in tied:
            second[i] = Fraction(1, len(tied)) * max(b for j, b in enumerate(bids) if j != i)
        pay = [x + par for x in second]
    if rule == "interim":
        pay = [interim_fee(mech["grid"], b) for b in bids]
    if rule == "interim_first":
        assert n == 2
        pay = [first_price_fee(mech["grid"], b) for b in bids]
    return win, pay


def project_result(mech, reps):
    n, cost, rule = mech["n"], mech["param"], mech["rule"]
    share = Fraction(cost, n)
    if rule in ("fixed", "dictator"):  # always built / built on the first resident's word; equal shares
        built = rule == "fixed" or reps[0] * n >= cost
        return [Fraction(int(built))] * n, [share if built else Fraction(0)] * n
    built = sum(reps) >= cost
    if rule == "clarke":
        net = [r - share for r in reps]
        pays = []
        for i in range(n):
            others = sum(net) - net[i]
            built_without = others >= 0
            # the tax is the others' loss from i's report changing the decision
            tax = abs(others) if built_without != built else 0
            pays.append((share if built else 0) + tax)
        return [Fraction(int(built))] * n, pays
    if not built:
        return [Fraction(0)] * n, [Fraction(0)] * n
    pays = {
        "equal": [share] * n,
        "proportional": [Fraction(cost * r, sum(reps)) for r in reps],
        "pay_report": [Fraction(r) for r in reps],
        "fee": [share + mech["frac"]] * n,
        "capped": [min(Fraction(r), share) for r in reps],
    }[rule]
    return [Fraction(1)] * n, pays


def util(mech, i, v, reps):
    res = auction_result if mech["setting"] == "auction" else project_result
    win, pay = res(mech, reps)
    return v * win[i] - pay[i]


def prop_holds(mech, prop):
    grid, n = mech["grid"], mech["n"]
    profiles = list(itertools.product(grid, repeat=n))
    if prop == "ir":
        return all(util(mech, i, v[i], v) >= 0 for v in profiles for i in range(n))
    if prop == "bb":
        for r in profiles:
            win, pay = project_result(mech, r)
            if sum(pay) != (mech["param"] if win[0] else 0):
                return False
        return True
    for i in range(n):
        for v in grid:
            if prop == "dsic":
                for prof in profiles:
                    truth = list(prof)
                    truth[i] = v
                    for r in grid:
                        lie = list(prof)
                        lie[i] = r
                        if util(mech, i, v, lie) > util(mech, i, v, truth):
                            return False
            else:  # bic: others truthful with uniform values

                def eu(r, i=i, v=v):
                    return sum(util(mech, i, v, p[:i] + (r,) + p[i + 1 :]) for p in profiles if p[i] == grid[0])

                if any(eu(r) > eu(v) for r in grid):
                    return False
    return True


def ttc_core(prefs):
    """All core allocations (no coalition can do better by trading its own items), by brute force."""
    n = len(prefs)
    rank = [{h: k for k, h in enumerate(p)} for p in prefs]
    cores = []
    for alloc in itertools.permutations(range(n)):
        blocked = False
        for size in range(1, n + 1):
            for coal in itertools.combinations(range(n), size):
                for re_alloc in itertools.permutations(coal):
                    better = [rank[a][h] <= rank[a][alloc[a]] for a, h in zip(coal, re_alloc, strict=True)]
                    strict = [rank[a][h] < rank[a][alloc[a]] for a, h in zip(coal, re_alloc, strict=True)]
                    if all(better) and any(strict):
                        blocked = True
                        break
                if blocked:
                    break
            if blocked:
                break
        if not blocked:
            cores.append(alloc)
    return cores


def seller_payoff(x, n, s):
    """Normalized expected seller payoff of a second-price auction with reserve x, n iid U[0,1] values and seller
    value s (price max(second value, x) if the top value clears x, else keep the item), integrated over the joint
    density n(n-1) y2^(n-2) of the top two values."""
    return (1 - x) * x**n + (n - 1) * (1 - x ** (n + 1)) / (n + 1) + s * x**n


# ------------------------------------------------------------------------------------------------------------
# The checks


def check(q):  # noqa: C901 - one branch per element by design
    p = q.params
    e = q.element
    ans = q.answer
    if e == "interpret_games":
        g = G(p["game"])
        assert parse_number(ans) == pytest.approx(g.u(p["player"], p["profile"]) / 10**g.dec)
    elif e == "best_response":
        g = G(p["game"])
        mix = {int(b): frac(pr) for b, pr in p["opp_mix"].items()}
        assert sum(mix.values()) == 1
        assert ans == g.actions[p["player"]][unique_best(expected(g, p["player"], mix))]
    elif e == "dominant_strategies":
        g = G(p["game"])
        i = p["player"]
        cols = range(len(g.actions[1 - i]))

        def pay(a, c):
            return g.u(i, (a, c) if i == 0 else (c, a))

        own = range(len(g.actions[i]))
        dominant = [a for a in own if all(pay(a, c) > pay(b, c) for b in own if b != a for c in cols)]
        weakly = [a for a in own if all(pay(a, c) >= pay(b, c) for b in own if b != a for c in cols)]
        assert len(dominant) <= 1 and weakly == dominant
        if dominant:
            assert ans == g.actions[i][dominant[0]]
        else:
            assert p["template"] == "exists" and ans.startswith("No action is dominant")
    elif e == "dominated_strategies":
        g = G(p["game"])
        i = p["player"]
        alive = [list(range(len(a))) for a in g.actions]
        dom = strictly_dominated(g, i, alive)
        assert [g.actions[i][d] for d in dom] == ([] if ans == "None; every action can be a best response" else [ans])
        j = 1 - i
        for a in alive[i]:  # every other action is a best response to some opponent action
            if a not in dom:
                assert any(a == unique_best(expected(g, i, {b: 1})) for b in alive[j])
    elif e == "irds":
        g = G(p["game"])
        surv = irds_one_at_a_time(g, q.seed)
        assert surv == irds_one_at_a_time(g, q.seed + 1)
        if p["asked"] is None:
            assert len(surv[0]) == len(surv[1]) == 1
            assert ans == g.label((surv[0][0], surv[1][0]))
        else:
            names = [g.actions[p["asked"]][a] for a in surv[p["asked"]]]
            assert ans == (f"Only {names[0]}" if len(names) == 1 else join_list(names))
    elif e == "pure_nash":
        g = G(p["game"])
        eqs = nash_set(g)
        if p["template"] == "count":
            assert ans == str(len(eqs))
        else:
            by_label = {g.label(pr): pr for pr in g.profiles}
            for opt in q.options:
                if opt != ans and opt != "There is no pure-strategy Nash equilibrium":
                    assert by_label[opt] not in eqs
            if eqs:
                assert by_label[ans] in eqs
            else:
                assert ans == "There is no pure-strategy Nash equilibrium"
    elif e == "level_k":
        if p["kind"] == "beauty":
            guess = p["top"] / 2
            for _ in range(p["k"]):
                guess = float(frac(p["p"])) * guess  # best reply to an average of `guess`
            assert parse_number(ans) == pytest.approx(guess, abs=0.006)
        elif p["kind"] == "request":
            lo, hi, bonus = p["lo"], p["hi"], p["bonus"]
            assert lo <= p["start"] <= hi
            req = p["start"]  # the stated level-0 request
            for _ in range(p["k"]):
                pay = {r: r + (bonus if r == req - 1 else 0) for r in range(lo, hi + 1)}
                req = the_max(pay)
            assert ans == fmt_money(req)
        else:
            g = G(p["game"])
            assert ans == g.actions[p["player"]][level_k_matrix(g, p["player"], p["k"])]
    elif e in ("backward_induction", "subgame_perfect_ne") and p["kind"] in ("node", "outcome", "path", "tree"):
        tree = p["tree"]
        assert len(decision_nodes(tree)) <= 7
        plan = spe_plan(tree)
        if p["kind"] == "node":
            assert ans == f"Strategy {plan[p['node']]}"
        elif p["kind"] == "outcome":
            assert ans == str(play(tree, plan)[p["asked"]])
            leaf_pays = {str(leaf[p["asked"]]) for leaf in leaf_payoffs(tree)}
            assert set(q.options) <= leaf_pays  # every option is the asked player's payoff somewhere in the tree
        elif p["kind"] == "path":
            assert ans == ", then ".join(f"Strategy {x}" for x in path_of(tree, plan))
        else:
            assert plan_from_text(ans) == plan
            for opt in q.options:
                if opt != ans:
                    other = plan_from_text(opt)
                    assert set(other) == set(plan) and not is_spe(tree, other)
    elif e == "subgame_perfect_ne":
        pies = p["pies"]
        assert all(a > b > 0 for a, b in itertools.pairwise(pies))
        first = bargain_first_offer(pies)
        if p["kind"] == "offer":
            assert ans == fmt_money(first)
        elif p["kind"] == "keep":
            assert ans == fmt_money(pies[0] - first)
        else:
            verb = "Accept" if p["offer"] >= first else "Reject"
            assert ans == f"{verb} the offer of {fmt_money(p['offer'])}"
    elif e == "sequential_equilibrium":
        check_sequential(q, p, ans)
    elif e == "repeated_feasibility":
        g = G(p["game"])
        pts = [(frac(a), frac(b)) for a, b in p["points"]]
        feas = [lp_feasible(list(g.pay.values()), pt) for pt in pts]
        if p["kind"] == "yn":
            assert ans == ("Yes" if feas[0] else "No")
        else:
            assert feas == [True] + [False] * (len(pts) - 1)
            assert ans == f"{g.players[0]} {fmt_num(pts[0][0])}, {g.players[1]} {fmt_num(pts[0][1])}"
    elif e == "repeated_enforceability":
        g = G(p["game"])
        v = [lp_minmax(g, 0), lp_minmax(g, 1)]
        if p["kind"] == "value":
            assert parse_number(ans) == pytest.approx(v[p["player"]], abs=0.006)
        else:
            pts = [(frac(a), frac(b)) for a, b in p["points"]]
            # the paper's definition (enforceable in a Nash equilibrium, by the folk theorem): feasible and above
            # both minmax values
            ok = [lp_feasible(list(g.pay.values()), (x, y)) and float(x) > v[0] + 1e-9 and float(y) > v[1] + 1e-9
                  for x, y in pts]
            assert all(abs(float(x) - v[0]) > 1e-6 and abs(float(y) - v[1]) > 1e-6 for x, y in pts)
            if p["kind"] == "yn":
                assert ans == ("Yes" if ok[0] else "No")
            else:
                assert ok == [True] + [False] * (len(pts) - 1)
                assert ans == f"{g.players[0]} {fmt_num(pts[0][0])}, {g.players[1]} {fmt_num(pts[0][1])}"
    elif e == "trigger_strategies":
        assert p["T"] > p["R"] > p["P"] > p["S"]
        if p["kind"] == "threshold":  # the exact threshold lies within half a cent of the two-decimal answer
            th = Fraction(ans)
            assert ans == f"{float(th):.2f}"
            assert grim_sustains(p, th + Fraction(5, 1000)) and not grim_sustains(p, th - Fraction(5001, 10**6))
        elif p["kind"] == "yn":
            assert ans == ("Yes" if grim_sustains(p, frac(p["delta"])) else "No")
        elif p["kind"] == "tft":
            assert ans == ("Yes" if tft_is_nash(p, frac(p["delta"])) else "No")
        else:
            delta = frac(p["delta"])
            works = [L for L in (1, 2, 3) if punishment_deviation_fails(p, delta, L)]
            works += ["forever"] if grim_sustains(p, delta) else []
            expect = {1: "Punish for 1 period", 2: "Punish for 2 periods", 3: "Punish for 3 periods",
                      "forever": "Punish forever (grim trigger)"}
            assert ans == (expect[works[0]] if works else "None of these punishments sustains cooperation")
            assert set(q.options) == set(expect.values()) | {"None of these punishments sustains cooperation"}
    elif e == "bayes_nash":
        check_bayes_nash(q, p, ans)
    elif e == "subgame_perfect_bayes_nash":
        check_spbne(q, p, ans)
    else:
        check_setting4(q, p, ans)


def check_sequential(q, p, ans):
    if p["kind"] == "pooling":
        prior = Fraction(p["prior_pct"], 100)
        base_, cost, recv = p["base"], p["cost"], p["recv"]
        beliefs = [Fraction(k, 100) for k in range(101)]

        def brs(mu):
            ev = [mu * recv[0][a] + (1 - mu) * recv[1][a] for a in (0, 1)]
            return [a for a in (0, 1) if ev[a] == max(ev)]

        def pooling(m):
            for r_on in brs(prior):
                for mu in beliefs:
                    for r_off in brs(mu):
                        if all(base_[r_on] - cost[t][m] >= base_[r_off] - cost[t][1 - m] for t in (0, 1)):
                            return True
            return False

        pool = [pooling(0), pooling(1)]
        msgs = p["msgs"]
        if "asked" in p:
            assert ans == ("Yes" if pool[p["asked"]] else "No")
        else:
            expect = {
                (True, False): f"Only pooling on {msgs[0]}",
                (False, True): f"Only pooling on {msgs[1]}",
                (True, True): f"Pooling on either {msgs[0]} or {msgs[1]}",
                (False, False): "Neither pooling outcome",
            }[tuple(pool)]
            assert ans == expect
        return
    out = p["out"]
    pay = {(s1, s2): (x, y) for s1, s2, x, y in p["pay"]}
    a, b = p["players"]
    acts1, acts2 = p["acts1"], p["acts2"]

    def u1(s1, s2):
        return out[0] if s1 == 0 else pay[(s1, s2)][0]

    def rational2(s2, mu):
        ev = [mu * pay[(1, y)][1] + (1 - mu) * pay[(2, y)][1] for y in (0, 1)]
        return ev[s2] >= ev[1 - s2]

    def is_se(s1, s2):
        if any(u1(x, s2) > u1(s1, s2) for x in (0, 1, 2)):
            return False
        mus = [Fraction(1)] if s1 == 1 else [Fraction(0)] if s1 == 2 else [Fraction(k, 100) for k in range(101)]
        return any(rational2(s2, mu) for mu in mus)

    if p["kind"] == "belief":
        mu = frac(p["mu"])
        ev = [mu * pay[(1, y)][1] + (1 - mu) * pay[(2, y)][1] for y in (0, 1)]
        assert ans == acts2[unique_best(ev)]
        return
    labels = {f"{a} chooses {acts1[s1]}; {b} would choose {acts2[s2]}": (s1, s2) for s1 in (0, 1, 2) for s2 in (0, 1)}
    for opt in q.options:
        assert is_se(*labels[opt]) == (opt == ans)


def check_bayes_nash(q, p, ans):
    if p["kind"] == "offer":
        evs = [
            sum(Fraction(pr, 100) * (b - x)
                for pr, s, b in zip(p["probs"], p["seller"], p["buyer"], strict=True) if x >= s)
            for x in p["offers"]
        ]
        assert sum(p["probs"]) == 100
        assert ans == fmt_money(p["offers"][unique_best(evs)])
        return
    prior = Fraction(p["prior_pct"], 100)
    u1, u2 = p["u1"], p["u2"]
    (a, b), acts1, acts2, types = p["players"], p["acts1"], p["acts2"], p["types"]
    n = len(acts2)

    def is_bne(s, y):
        if any(u1[t][x][y] > u1[t][s[t]][y] for t in (0, 1) for x in (0, 1)):
            return False
        ev = lambda z: prior * u2[0][s[0]][z] + (1 - prior) * u2[1][s[1]][z]  # noqa: E731
        return all(ev(z) <= ev(y) for z in range(n))

    labels = {
        f"{a} plays {acts1[s[0]]} if {types[0]} and {acts1[s[1]]} if {types[1]}; {b} plays {acts2[y]}": (s, y)
        for s in itertools.product((0, 1), repeat=2)
        for y in range(n)
    }
    any_bne = any(is_bne(*v) for v in labels.values())
    for opt in q.options:
        if opt in labels:
            assert is_bne(*labels[opt]) == (opt == ans)
        else:  # "there is no pure-strategy Bayes-Nash equilibrium": right iff none exists
            assert opt.startswith("There is no") and (opt == ans) == (not any_bne)


def check_spbne(q, p, ans):
    prior = Fraction(p["prior_pct"], 100)
    modes, ent, inc = p["modes"], p["ent"], p["inc"]
    e_name, i_name = p["players"]
    actions = ["Stay out"] + (["Enter"] if modes == 1 else ["Enter small", "Enter big"])
    found = []
    for e in range(modes + 1):
        for resp in itertools.product((0, 1), repeat=2 * modes):
            r = [[resp[2 * m], resp[2 * m + 1]] for m in range(modes)]
            seq_rational = all(inc[m][t][r[m][t]] >= inc[m][t][1 - r[m][t]] for m in range(modes) for t in (0, 1))
            val = [Fraction(0)] + [prior * ent[m][0][r[m][0]] + (1 - prior) * ent[m][1][r[m][1]] for m in range(modes)]
            if seq_rational and val[e] == max(val):
                found.append((e, r))
    assert len(found) == 1
    e, r = found[0]
    if p["kind"] == "entrant":
        assert ans == actions[e]
    else:
        word = ("fights", "accommodates")
        assert ans == f"{e_name}: {actions[e]}; {i_name} {word[r[0][0]]} if tough and {word[r[0][1]]} if weak"


def check_setting4(q, p, ans):  # noqa: C901
    e = q.element
    if e in ("pareto_efficiency", "monotonicity", "swf_transitivity", "plurality", "borda", "copeland"):
        names, m = p["names"], p["m"]
        prof = [(n, tuple(r)) for n, r in p.get("profile", [])]
        total = sum(n for n, _ in prof)
    if e == "pareto_efficiency":
        unanimous = {(a, b) for a in range(m) for b in range(m) if a != b and prefers(prof, a, b) == total}
        assert unanimous or (p["kind"] == "which" and ans.startswith("None of them"))
        if p["kind"] == "chosen":
            assert ans == ("No" if any(b == p["chosen"] for _, b in unanimous) else "Yes")
        elif p["kind"] == "which":
            dominated = {b for _, b in unanimous}
            for opt in q.options:
                if opt in names:
                    assert (names.index(opt) in dominated) == (opt == ans)
                else:  # "none of them": right iff no alternative is Pareto-dominated
                    assert opt.startswith("None of them") and (opt == ans) == (not dominated)
        else:
            for opt in q.options:
                r = [names.index(x) for x in opt.split(", then ")]
                assert all(r.index(a) < r.index(b) for a, b in unanimous) == (opt == ans)
    elif e == "monotonicity":
        new = [(n, tuple(r)) for n, r in p["new_profile"]]
        w = winner(p["rule"], prof, m)
        assert w == p["winner"] and sum(n for n, _ in new) == total
        w2 = winner(p["rule"], new, m)
        if p["rule"] in ("plurality", "borda"):
            assert w2 == w
        if q.template_id.startswith("mono_who"):
            assert ans == names[w2]
        else:
            assert ans == ("Yes" if w2 == w else "No")
    elif e == "swf_transitivity":
        assert total % 2 == 1
        beats = majority(prof, m)
        trans = all((a, c) in beats for a, b in beats for b2, c in beats if b2 == b and c != a)
        if p["kind"] == "yn":
            assert ans == ("Yes" if trans else "No")
        elif trans:
            order = sorted(range(m), key=lambda a: -sum(1 for b in range(m) if (a, b) in beats))
            assert ans == ", then ".join(names[a] for a in order)
        else:
            assert ans.endswith("cyclic")
    elif e == "non_dictatorship":
        names, n, m = p["names"], p["n"], p["m"]
        perms = list(itertools.permutations(range(m)))
        if p["kind"] == "rule":
            dict_ = [
                d
                for d in range(n)
                if all(swf(p["rule"], p["k"], prof, m) == prof[d] for prof in itertools.product(perms, repeat=n))
            ]
            assert len(dict_) <= 1
            if dict_:
                assert ans.endswith(f"Voter {dict_[0] + 1} is a dictator")
            else:
                assert "non-dictatorial" in ans
        else:
            obs = [([tuple(r) for r in prof], tuple(out)) for prof, out in p["obs"]]
            match = [d for d in range(n) if all(prof[d] == out for prof, out in obs)]
            assert len(match) <= 1
            if match:
                assert ans == f"Voter {match[0] + 1}"
            else:
                assert ans.startswith("No voter")
    elif e == "plurality":
        assert ans == names[the_max(first_counts(prof, m))]
    elif e == "borda":
        pts = {a: sum(n * (m - 1 - list(r).index(a)) for n, r in prof) for a in range(m)}
        assert ans == (names[the_max(pts)] if p["kind"] == "winner" else fmt_num(pts[p["asked"]]))
    elif e == "copeland":
        if p["kind"] == "tournament":
            beats = {tuple(x) for x in p["beats"]}
            assert all(((a, b) in beats) != ((b, a) in beats) for a, b in itertools.combinations(range(m), 2))
        else:
            assert total % 2 == 1
            beats = majority(prof, m)
        score = {
            a: sum(1 for b in range(m) if (a, b) in beats) - sum(1 for b in range(m) if (b, a) in beats)
            for a in range(m)
        }
        assert ans == names[the_max(score)]
    elif e == "fair_division":
        vals, people, items = p["vals"], p["people"], p["items"]
        n, m = len(people), len(items)

        def parse_alloc(text):
            alloc = [None] * m
            for part in text.split("; "):
                who, _, got = part.partition(" gets ")
                for x, it in enumerate(items):
                    if re.search(rf"(^|, |and ){re.escape(it)}(,|$| and)", got):
                        alloc[x] = people.index(who)
            assert None not in alloc
            return alloc

        if p["kind"] == "ef":
            for opt in q.options:
                bv = bundles(vals, parse_alloc(opt), n)
                envy_free = all(bv[i][i] >= bv[i][j] for i in range(n) for j in range(n))
                assert envy_free == (opt == ans)
        elif p["kind"] == "prop":
            bv = bundles(vals, p["alloc"], n)
            assert ans == ("Yes" if all(bv[i][i] * n >= sum(vals[i]) for i in range(n)) else "No")
        else:
            left = list(range(m))
            got = {i: [] for i in range(n)}
            for turn in range(m):
                who = p["order"][turn % n]
                pick = max(left, key=lambda x: vals[who][x])
                assert [vals[who][x] for x in left].count(vals[who][pick]) == 1
                got[who].append(pick)
                left.remove(pick)
            mine = [items[x] for x in sorted(got[p["asked"]])]
            assert ans == (join_list(mine) if mine else "Nothing")
    elif e in ("dsic", "bic", "individual_rationality", "budget_balance"):
        prop = {"dsic": "dsic", "bic": "bic", "individual_rationality": "ir", "budget_balance": "bb"}[e]
        if p["kind"] == "yn":
            assert ans == ("Yes" if prop_holds(mech_from(p["mech"]), prop) else "No")
        else:
            mechs = [mech_from(x) for x in p["options"]]
            for (pos, is_correct), text in zip(shown_draft_positions(q), q.options, strict=True):
                mech = mechs[pos]
                assert text == describe_mechanism(Mechanism(*[p["options"][pos][k] for k in MECH_FIELDS]))
                if mech["rule"].startswith("interim"):  # the fee list shown is the one the check uses
                    fee = interim_fee if mech["rule"] == "interim" else first_price_fee
                    shown = re.findall(r"(\$[\d,.]*\d) for a bid of (\$[\d,]*\d)", text)
                    assert shown == [(fmt_money(fee(mech["grid"], b)), fmt_money(b)) for b in mech["grid"]]
                holds = (
                    (prop_holds(mech, "bic") and not prop_holds(mech, "dsic"))
                    if p["kind"] == "bic_not_dsic"
                    else prop_holds(mech, prop)
                )
                assert holds == (is_correct if p["kind"] != "which_not" else not is_correct)
    elif e == "top_trading_cycles":
        prefs, people, noun = p["prefs"], p["people"], p["noun"]
        cores = ttc_core(prefs)
        assert len(cores) == 1
        alloc = cores[0]
        if p["kind"] == "gets":
            assert ans == f"{people[alloc[p['asked']]]}'s {noun}"
        elif p["kind"] == "owner":
            assert ans == people[alloc.index(p["asked"])]
        else:
            point = {i: prefs[i][0] for i in range(len(prefs))}
            on_cycle = []
            for i in range(len(prefs)):
                cur = point[i]
                for _ in range(len(prefs)):
                    if cur == i:
                        on_cycle.append(i)
                        break
                    cur = point[cur]
            assert ans == join_list([people[i] for i in on_cycle])
    elif e == "optimal_auction_risk":
        if p["kind"] == "reserve":
            hi, s, n = p["hi"], p["s"], p["n"]
            xs = [k / 20000 for k in range(20001)]
            best = max(xs, key=lambda x: seller_payoff(x, n, s / hi))
            assert parse_number(ans) == pytest.approx(best * hi, abs=hi / 10000 + 0.01)
        else:
            bids, people, res = p["bids"], p["people"], p["reserve"]
            order = sorted(range(len(bids)), key=lambda i: -bids[i])
            w = order[0]
            # risk-averse: first-price and Dutch (the winner pays their bid) beat second-price and English;
            # risk-seeking: the reverse (the winner pays the second bid or the reserve); risk-neutral: all equal
            pay_own = ("First-price sealed-bid auction", "Dutch auction")
            pay_second = ("Second-price sealed-bid auction", "English auction")
            best = {"risk-averse": pay_own, "risk-seeking": pay_second, "risk-neutral": ()}[p["attitude"]]
            assert bids[w] >= res
            for opt in q.options:
                if opt.startswith("All standard formats"):
                    assert (opt == ans) == (p["attitude"] == "risk-neutral")
                    continue
                head, _, outcome = opt.partition("; ")
                assert head in pay_own + pay_second
                price = bids[w] if head in pay_own else max(bids[order[1]], res)
                right = head in best and outcome == f"{people[w]} wins and pays {fmt_money(price)}"
                assert right == (opt == ans), opt
    elif e == "optimal_auction_affiliated":
        check_affiliated(q, p, ans)
    else:
        raise AssertionError(f"no independent check for {e}")


def revenue_levels(env, n_bidders):
    """Expected-revenue level of each format (higher is more): linkage principle with affiliated values (English
    and second-price coincide with two bidders), revenue equivalence with independent private values, first-price
    and Dutch ahead with risk-averse bidders."""
    E, S, F, D = "english auction", "second-price sealed-bid auction", "first-price sealed-bid auction", "dutch auction"
    if env == "affiliated":
        assert n_bidders >= 3
        return {E: 2, S: 1, F: 0, D: 0}
    if env == "affiliated_two":
        assert n_bidders == 2
        return {E: 1, S: 1, F: 0, D: 0}
    if env == "independent":
        return {E: 0, S: 0, F: 0, D: 0}
    assert env == "independent_averse"
    return {E: 0, S: 0, F: 1, D: 1}


def check_affiliated(q, p, ans):
    people = p["people"]
    assert (" are affiliated" in q.question) == p["env"].startswith("affiliated")
    assert ("risk-averse" in q.question) == (p["env"] == "independent_averse")
    assert all(person in q.question for person in people)
    level = revenue_levels(p["env"], len(people))
    if p["kind"] == "best":
        offered = [f.lower() for f in p["offered"]]
        top = max(level[f] for f in offered)
        best = [f for f in offered if level[f] == top]
        for opt in q.options:
            if opt.lower() in level:
                assert opt.lower() in offered
                assert (opt == ans) == (best == [opt.lower()])
            else:
                assert opt == "They all give the same expected revenue"
                assert (opt == ans) == (len(best) == len(offered))
    elif p["kind"] == "ranking":
        for opt in q.options:
            parts = re.split(r" ([>=]) ", opt.lower())
            fmts, rels = parts[::2], parts[1::2]
            assert sorted(fmts) == sorted(["english auction", "second-price sealed-bid auction",
                                           "first-price sealed-bid auction"])
            holds = all(
                (level[a] > level[b]) if rel == ">" else (level[a] == level[b])
                for a, rel, b in zip(fmts, rels, fmts[1:], strict=False)
            )
            assert holds == (opt == ans), opt
    else:
        drops = p["drops"]
        order = sorted(range(len(drops)), key=lambda i: -drops[i])
        assert ans == f"{people[order[0]]} wins and pays {fmt_money(drops[order[1]])}"


@pytest.mark.parametrize("element_id", SETTING_3_4)
def test_answer_key_matches_independent_check(questions, element_id):
    qs = questions[element_id]
    assert qs
    for q in qs:
        check(q)


# ------------------------------------------------------------------------------------------------------------
# Rendering: the game shown in the question is the game in the parameters


def parse_rendered(q, g):
    """Payoffs (display numbers) read back from the question text for every profile."""
    text = q.question
    form = q.params["form"]
    out = {}
    acts = [sorted(a, key=len, reverse=True) for a in g.actions]
    if form == "word":
        for sent in re.findall(r"If (.+?)\.(?= If |\n|$)", text):
            prof = tuple(
                g.actions[i].index(
                    re.search(rf"{g.players[i]} plays ({'|'.join(map(re.escape, acts[i]))})", sent).group(1)
                )
                for i in range(len(g.players))
            )
            out[prof] = tuple(
                float(re.search(rf"{g.players[i]} gets (-?[\d.]+)", sent).group(1)) for i in range(len(g.players))
            )
        return out
    lines = text.split("\n")
    header_idx = [k for k, line in enumerate(lines) if line.startswith(" ") or line.startswith("|")]
    grids = []
    for k in header_idx:
        cols = [c.strip() for c in lines[k].split("|")[1:]]
        rows = {}
        for line in lines[k + 1 : k + 1 + len(g.actions[0])]:
            cells = [c.strip() for c in line.split("|")]
            rows[g.actions[0].index(cells[0])] = cells[1:]
        grids.append((cols, rows))
    for r in range(len(g.actions[0])):
        for c, col in enumerate(g.actions[1]):
            if form == "bimatrix":
                cols, rows = grids[0]
                a, b = re.fullmatch(r"\((-?[\d.]+), (-?[\d.]+)\)", rows[r][cols.index(col)]).groups()
                out[(r, c)] = (float(a), float(b))
            else:
                out[(r, c)] = tuple(float(grids[i][1][r][grids[i][0].index(col)]) for i in range(2))
    return out


def test_rendered_games_match_parameters(questions):
    forms = set()
    for eid in (
        "interpret_games",
        "best_response",
        "dominant_strategies",
        "dominated_strategies",
        "irds",
        "pure_nash",
        "repeated_feasibility",
        "repeated_enforceability",
    ):
        for q in questions[eid]:
            g = G(q.params["game"])
            shown = parse_rendered(q, g)
            expected_ = {pr: tuple(v / 10**g.dec for v in g.pay[pr]) for pr in g.profiles}
            assert shown == pytest.approx(expected_), q.question
            forms.add(q.params["form"])
    assert forms == {"word", "normal", "bimatrix"}


# ------------------------------------------------------------------------------------------------------------
# Framework behaviour


def test_every_taxonomy_element_has_a_generator():
    assert set(TAX.element_ids) == set(base.registered_elements())
    assert len(SETTING_3_4) == 30 and len(TAX.element_ids) == 62
    assert "level_k" in SETTING_3_4


@pytest.mark.parametrize("element_id", SETTING_3_4)
def test_options_unique_exactly_one_correct_and_no_duplicate_questions(questions, element_id):
    by_test = {}
    for q in questions[element_id]:
        assert len(q.options) >= 2
        assert len({" ".join(o.split()).casefold() for o in q.options}) == len(q.options)
        assert q.option_order[q.correct] == 0 and sorted(q.option_order) == list(range(len(q.options)))
        by_test.setdefault((q.domain, q.grade), []).append(q)
    for (domain, grade), qs in by_test.items():
        assert len(qs) == N_PER_TEST
        assert len({q.question for q in qs}) == len(qs), f"duplicate question in {element_id}/{domain}/g{grade}"


@pytest.mark.parametrize("element_id", SETTING_3_4)
def test_generator_covers_grade_range_domains_and_several_templates(questions, element_id):
    el = TAX.element(element_id)
    got = {(q.domain, q.grade) for q in questions[element_id]}
    assert got == {(d, g) for d in el.domains for g in range(el.min_grade, el.max_grade + 1)}
    assert len({q.domain for q in questions[element_id]}) >= 3
    assert len({q.template_id.split(".")[0] + q.template_id.split(".")[1] for q in questions[element_id]}) >= 2


def test_domain_vocabulary_reaches_the_text(questions):
    for eid in ("best_response", "plurality", "top_trading_cycles"):
        texts = {q.domain: q.question for q in questions[eid]}
        assert len(set(texts.values())) == len(texts)


def test_harder_grades_are_bigger():
    def mean(eid, grade, fn):
        qs = [q for d in TAX.element(eid).domains for q in base.generate(eid, d, grade, 6, seed=3)]
        return sum(fn(q) for q in qs) / len(qs)

    def n_actions(q):
        return len(q.params["game"]["actions"][0])

    for eid in ("best_response", "pure_nash", "dominated_strategies"):
        el = TAX.element(eid)
        assert mean(eid, el.max_grade, n_actions) > mean(eid, el.min_grade, n_actions), eid
    for eid in ("plurality", "borda", "top_trading_cycles"):
        el = TAX.element(eid)
        size = (lambda q: q.params["m"]) if eid != "top_trading_cycles" else (lambda q: len(q.params["prefs"]))
        assert mean(eid, el.max_grade, size) > mean(eid, el.min_grade, size), eid
        assert mean(eid, el.max_grade, lambda q: len(q.options)) > mean(eid, el.min_grade, lambda q: len(q.options))
    el = TAX.element("interpret_games")
    assert mean("interpret_games", el.max_grade, lambda q: q.params["game"]["dec"]) > 0
    assert mean("interpret_games", el.min_grade, lambda q: q.params["game"]["dec"]) == 0


def test_subgame_perfect_distractors_include_non_credible_nash_equilibria(questions):
    seen = sum(q.params.get("n_nash_not_spe", 0) > 0 for q in questions["subgame_perfect_ne"])
    assert seen > 0


SETTING_3_MODULE_ELEMENTS = ("sequential_equilibrium", "repeated_feasibility", "repeated_enforceability",
                             "trigger_strategies", "subgame_perfect_ne", "subgame_perfect_bayes_nash", "level_k")


def test_setting_3_two_way_keys_are_drawn_evenly_per_template(questions):
    """Yes/No (and accept/reject, "only ... / either ...") keys: each answer is the key in 25-75% of a template's
    questions; before, feasibility and enforceability answered "No" about 70% of the time and pooling "Yes"."""
    shares = {}
    for eid in SETTING_3_MODULE_ELEMENTS:
        for q in questions[eid]:
            if len(q.options) == 2:
                first = min(q.options, key=lambda o: o.split()[0])  # "Accept ..." / "No" / "Only ..."
                shares.setdefault((eid, q.template_id.split(".")[0]), []).append(q.answer == first)
    assert len(shares) >= 7
    for template, keys in shares.items():
        if len(keys) >= 15:
            assert 0.25 <= sum(keys) / len(keys) <= 0.75, (template, sum(keys), len(keys))


def test_setting_3_fixed_answer_options_are_each_right_in_some_question(questions):
    """Where a template offers a fixed set of answers (punishment lengths, pooling outcomes, entrant actions),
    every answer it offers is the key of some question; the never-right "choose by a fair coin flip" is gone."""
    offered, right = {}, {}
    for eid in ("trigger_strategies", "subgame_perfect_bayes_nash", "sequential_equilibrium"):
        for q in questions[eid]:
            if q.template_id.split(".")[0] not in ("trig_punish", "spbne_entrant", "seq_pool_which"):
                continue
            names = [str(x) for x in q.params.get("msgs", [])]
            for o in q.options:
                shape = o
                for i, name in enumerate(names):
                    shape = shape.replace(name, f"<message {i}>")
                offered.setdefault(q.template_id.split(".")[0], set()).add(shape)
                if o == q.answer:
                    right.setdefault(q.template_id.split(".")[0], set()).add(shape)
            assert not any("coin flip" in o for o in q.options)
    assert set(offered) == {"trig_punish", "spbne_entrant", "seq_pool_which"}
    for template, shapes in offered.items():
        assert shapes == right[template], (template, shapes - right[template])


def test_monotonicity_violations_are_generated():
    qs = [
        q
        for d in TAX.element("monotonicity").domains
        for g in (9, 10)
        for q in base.generate("monotonicity", d, g, 8, seed=5)
    ]
    changed = [
        q
        for q in qs
        if winner(q.params["rule"], [(n, tuple(r)) for n, r in q.params["new_profile"]], q.params["m"])
        != q.params["winner"]
    ]
    assert changed and all(q.params["rule"] in ("runoff", "irv") for q in changed)


def test_same_seed_same_questions():
    for eid, dom, grade in (("pure_nash", "food", 9), ("dsic", "politics", 11), ("top_trading_cycles", "travel", 10)):
        a = base.generate(eid, dom, grade, 3, seed=2)
        assert a == base.generate(eid, dom, grade, 3, seed=2)
        assert [q.question for q in a] != [q.question for q in base.generate(eid, dom, grade, 3, seed=9)]


# ------------------------------------------------------------------------------------------------------------
# Setting 4 answer keys carry no surface cue (the cue battery, tests/test_steer_cues.py, checks every element; these
# pin the template-level designs of social_choice.py)

YES_NO_SETTING_4 = ("pareto_efficiency", "monotonicity", "swf_transitivity", "fair_division", "dsic", "bic",
                    "individual_rationality", "budget_balance")


@pytest.fixture(scope="module")
def setting4_sample():
    out = {}
    for eid in YES_NO_SETTING_4 + ("borda", "optimal_auction_risk", "optimal_auction_affiliated"):
        el = TAX.element(eid)
        n = 16 if eid in ("borda", "optimal_auction_risk") else 8  # their numeric templates are 30-35% of them
        out[eid] = [q for d in el.domains for g in el.grades for q in base.generate(eid, d, g, n, seed=4)]
    return out


def test_yes_no_keys_of_setting_4_are_balanced_per_template(setting4_sample):
    for eid in YES_NO_SETTING_4:
        by_template = {}
        for q in setting4_sample[eid]:
            if set(q.options) == {"Yes", "No"}:
                by_template.setdefault(q.template_id.split(".")[0], []).append(q.answer == "Yes")
        assert by_template, eid
        for template, yes in by_template.items():
            assert len(yes) >= 40, (template, len(yes))
            assert abs(sum(yes) / len(yes) - 0.5) <= 0.15, (template, sum(yes), len(yes))


def test_numeric_keys_of_setting_4_sit_anywhere_among_the_options(setting4_sample):
    """Borda scores and optimal reserves: the key is the smallest, a middle or the largest number about as often as
    any option is (distractors on both sides), and no distractor is a number the question states."""
    for eid, kind in (("borda", "score"), ("optimal_auction_risk", "reserve")):
        qs = [q for q in setting4_sample[eid] if q.params["kind"] == kind]
        lowest = highest = 0
        for q in qs:
            values = [parse_number(o) for o in q.options]
            lowest += values[q.correct] == min(values)
            highest += values[q.correct] == max(values)
            stated = {parse_number(x) for x in re.findall(r"\$?\d[\d,]*(?:\.\d+)?", q.question)}
            if parse_number(q.answer) not in stated:
                assert not stated & {v for i, v in enumerate(values) if i != q.correct}, q.question
        chance = sum(1 / len(q.options) for q in qs)
        assert len(qs) >= 60
        assert abs(lowest - chance) / len(qs) <= 0.12 and abs(highest - chance) / len(qs) <= 0.12, (eid, lowest,
                                                                                                   highest, chance)


def test_every_auction_format_and_ordering_offered_is_right_in_some_question(setting4_sample):
    shown, right = {}, {}
    for q in setting4_sample["optimal_auction_affiliated"] + setting4_sample["optimal_auction_risk"]:
        if q.params["kind"] in ("best", "ranking", "format"):
            for i, option in enumerate(q.options):
                head = option.split(";")[0]
                shown[head] = shown.get(head, 0) + 1
                right[head] = right.get(head, 0) + (i == q.correct)
    never = {h: n for h, n in shown.items() if n >= 10 and right[h] == 0}
    always = {h: n for h, n in shown.items() if n >= 10 and right[h] == n}
    assert not never and not always, (never, always)
