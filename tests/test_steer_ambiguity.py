"""Every STEER question has exactly one defensible answer, and the consistency elements are asked in the paper's form.

The ambiguity battery (choicelab/studies/steer/ambiguity.py) re-solves questions from their own definitions, apart
from the generators: repeated games by linear programs, lottery choices by expected value and stochastic dominance
read back from the question text, the endowment effect with the replacement price; and it reads every template's
text for question marks, number agreement and "they" for one named person."""

from __future__ import annotations

import ast
import json
from fractions import Fraction
from pathlib import Path

import pytest

from choicelab.studies.steer import ambiguity
from choicelab.studies.steer.ambiguity import (
    AMBIGUITY_SEED,
    ELEMENT_CHECKS,
    StageGame,
    check_best_prospect,
    check_dominated,
    check_endowment,
    check_lottery_choices,
    check_pure_nash,
    check_reflection,
    check_voting,
    dominates,
    read_lottery,
    same_number_findings,
    text_findings,
    unit_findings,
    units_of,
)
from choicelab.studies.steer.items.base import BenchmarkScale, SteerQuestion, generate, plan_tests


def _question(element: str, stem: str, options: tuple[str, ...], key: str, params: dict | None = None,
              part: int = 0) -> SteerQuestion:
    return SteerQuestion(element, "m", "s", "finance", 7, "t", 0, 0, 0, json.dumps(params or {}), stem, options,
                         options.index(key), tuple(range(len(options))), part)


# ---------------------------------------------------------------------------------------------------------------
# The solvers, on hand-made cases


def test_lotteries_are_read_back_from_the_text():
    assert read_lottery("a sure gain of $50") == ((1, 50),)
    assert read_lottery("$1,200 for sure") == ((1, 1200),)
    assert read_lottery("a 25% chance to lose $100 and nothing otherwise") == ((Fraction(1, 4), -100),
                                                                                (Fraction(3, 4), 0))


def test_dominance_is_first_order_stochastic_dominance():
    sure_50, half_100 = ((Fraction(1), Fraction(50)),), ((Fraction(1, 2), Fraction(100)), (Fraction(1, 2), 0))
    sure_110 = ((Fraction(1), Fraction(110)),)
    assert not dominates(sure_50, half_100) and not dominates(half_100, sure_50)  # a risk trade-off
    assert dominates(sure_110, half_100)  # more than the gamble's best prize, for sure
    assert not dominates(sure_50, sure_50)


def test_the_paper_illustrations_reflection_pair_is_mirrored_but_its_tie_is_reported():
    """Illustration 2.5.c (sure $50 vs 50% of $100, then the losses) is a mirror pair with equal expected values, so
    neither option of a part is the unique key."""
    p1 = _question("reflection_effect", "Option 1 is a sure gain of $50; Option 2 is a 50% chance to gain $100 and "
                   "nothing otherwise. Which would you choose?", ("Option 1", "Option 2"), "Option 1", part=1)
    p2 = _question("reflection_effect", "Suppose you were given another choice: Option 3 is a sure loss of $50; "
                   "Option 4 is a 50% chance to lose $100 and nothing otherwise. Which would you choose?",
                   ("Option 3", "Option 4"), "Option 4", part=2)
    found = check_reflection([p1, p2])
    assert {kind for kind, _ in found} == {"ambiguous"} and len(found) == 2


def test_an_unmirrored_reflection_pair_and_a_dominated_gamble_are_reported():
    p1 = _question("reflection_effect", "Option 1 is a sure gain of $110; Option 2 is a 50% chance to gain $100 and "
                   "nothing otherwise. Which would you choose?", ("Option 1", "Option 2"), "Option 1", part=1)
    p2 = _question("reflection_effect", "Option 3 is a sure loss of $30; Option 4 is a 20% chance to lose $200 and "
                   "nothing otherwise. Which would you choose?", ("Option 3", "Option 4"), "Option 3", part=2)
    details = [detail for _, detail in check_reflection([p1, p2])]
    assert "part 1: Option 1 dominates Option 2" in details
    assert "the losses are not the gains negated" in details


def test_a_lottery_key_that_is_not_the_best_expected_value_is_reported():
    q = _question("independence_lotteries", "Option 1: a 30% chance of $1,000 and nothing otherwise. Option 2: a "
                  "60% chance of $400 and nothing otherwise. Which option would you choose?",
                  ("Option 1", "Option 2"), "Option 2", part=1)
    assert [kind for kind, _ in check_lottery_choices([q])] == ["ambiguous"]


def test_a_shop_price_below_the_owners_value_makes_the_replacement_price_defensible():
    stem = ("You now own a rare coin. Before you owned it, the most you were willing to pay for it was $200, "
            "delivery included. Shops sell it for {shop}. How much you value it has not changed since before you "
            "owned it. What is the lowest price at which you should be willing to sell it?")
    options = ("$200", "$150", "$250", "$300")
    params = {"kind": "wta", "wtp": 200}
    assert check_endowment([_question("endowment_effect", stem.format(shop="$150"), options, "$200", params)])
    assert not check_endowment([_question("endowment_effect", stem.format(shop="$250"), options, "$200", params)])


def test_a_tie_in_expected_value_between_prospects_is_reported():
    stem = ("Investment 1 gives a 50% chance of $400 and a 50% chance of $0. Investment 2 gives $200 for sure. "
            "Investment 3 gives a 40% chance of $450 and a 60% chance of a loss of $50. Which investment should you "
            "choose to maximize your expected utility?")
    options = ("Investment 1", "Investment 2", "Investment 3")
    assert [k for k, _ in check_best_prospect([_question("maximize_eu", stem, options, "Investment 1")])] == [
        "ambiguous"]
    untied = stem.replace("$200 for sure", "$190 for sure")
    assert check_best_prospect([_question("maximize_eu", untied, options, "Investment 1")]) == []


def test_a_second_equilibrium_among_the_options_is_reported():
    """A coordination game has two pure equilibria; showing both makes two options right."""
    game = {"players": ["Ann", "Bo"], "actions": [["Left", "Right"], ["Left", "Right"]], "dec": 0,
            "payoffs": [[[0, 0], [2, 2]], [[0, 1], [0, 0]], [[1, 0], [0, 0]], [[1, 1], [1, 1]]]}
    none = "There is no pure-strategy Nash equilibrium"
    both = ("Ann plays Left, Bo plays Left", "Ann plays Right, Bo plays Right", none)
    one = ("Ann plays Left, Bo plays Left", "Ann plays Left, Bo plays Right", none)
    params = {"game": game}
    assert check_pure_nash([_question("pure_nash", "Which is an equilibrium?", both, both[0], params)])
    assert check_pure_nash([_question("pure_nash", "Which is an equilibrium?", one, one[0], params)]) == []
    assert check_pure_nash([_question("pure_nash", "How many?", ("1", "2", "3"), "2", params)]) == []


def test_two_options_stating_the_same_number_in_different_forms_are_reported():
    assert same_number_findings(_question("bayes_rule", "P?", ("50%", "1/2", "25%"), "50%"))
    assert same_number_findings(_question("bayes_rule", "P?", ("0.5", "$1,000", "1/3"), "0.5")) == []


def test_an_action_dominated_only_by_a_mixture_is_never_a_best_response():
    """Row payoffs T (3, 0), M (0, 3), B (1, 1) against L, R: no pure action beats B everywhere, but half T and half M
    gives 1.5 against either, so B is never a best response and "none" is not the answer."""
    game = {"players": ["Ann", "Bo"], "actions": [["T", "M", "B"], ["L", "R"]], "dec": 0,
            "payoffs": [[[0, 0], [3, 0]], [[0, 1], [0, 0]], [[1, 0], [0, 0]], [[1, 1], [3, 0]], [[2, 0], [1, 0]],
                        [[2, 1], [1, 0]]]}
    none = "None; every action can be a best response"
    options = ("B", "T", none)
    params = {"game": game, "player": 0}
    assert check_dominated([_question("dominated_strategies", "Never play?", options, none, params)])
    assert check_dominated([_question("dominated_strategies", "Never play?", options, "B", params)]) == []


def test_a_tie_for_the_plurality_or_borda_winner_is_reported():
    """Ballots 3 x (A > B > C) and 3 x (B > A > C): A and B tie under plurality and under Borda."""
    params = {"m": 3, "names": ["A", "B", "C"], "profile": [[3, [0, 1, 2]], [3, [1, 0, 2]]]}
    for rule in ("plurality", "borda"):
        assert check_voting(rule)([_question(rule, "Who wins?", ("A", "B", "C"), "A", params)])
    params["profile"][0][0] = 4
    assert check_voting("plurality")([_question("plurality", "Who wins?", ("A", "B", "C"), "A", params)]) == []


def test_feasible_and_enforceable_profiles_of_the_prisoners_dilemma():
    """Stage payoffs (2, 2), (-1, 3), (3, -1), (0, 0): each player's minmax value is 0; (3, 3) is above it but
    infeasible, (2.5, -0.5) feasible but below the second player's minmax value."""
    game = StageGame(("A", "B"), {(0, 0): (Fraction(2), Fraction(2)), (0, 1): (Fraction(-1), Fraction(3)),
                                  (1, 0): (Fraction(3), Fraction(-1)), (1, 1): (Fraction(0), Fraction(0))})
    assert game.minmax(0) == pytest.approx(0) and game.minmax(1) == pytest.approx(0)
    assert game.hull_margin((Fraction(1), Fraction(1))) > 0
    assert game.hull_margin((Fraction(3), Fraction(3))) is None
    assert game.hull_margin((Fraction(2), Fraction(2))) == pytest.approx(0)  # a vertex: on the boundary


@pytest.mark.parametrize("text", [
    "Assume: All analysts are advisers. Does it logically follow that some analysts are advisers.",
    "Which plan is best? 1 check-ups and 1 vaccination clinics",
    "Then 1 of the 2 voters who ranked A > B change their ranking to B > A.",
    "Where does Alice think they will find the key?",
    "Each of the cakes takes 1 hours.",
    "As an investor, you pick a investment.",
])
def test_text_slips_are_found(text):
    assert text_findings(text)


@pytest.mark.parametrize("text", [
    "Does it logically follow that some analysts are advisers?",
    "Solely from the information provided, is the following also true: All analysts are advisers.",
    "Is (Alice 7, Isla 8.5) enforceable, i.e. the payoffs of an equilibrium?",
    "Option 1 is worth $5 and Training plan 1 costs $3; Training plan 2 costs $4.",
    "2 black, 1 blue, and 1 yellow tickets. 1 voter ranks A > B. Payoffs of 1 for Liam and 0 for Grace.",
    "Alice and Ben play, and they both gain.",
    "Play Action A and a one-off bonus.",
])
def test_correct_text_is_not_flagged(text):
    assert text_findings(text) == []


def test_the_checks_are_written_apart_from_the_generators():
    """The battery imports from the item package only the framework (generate, the question record) and the list of
    names, never a generator module, so no check can reuse a generator's key logic."""
    tree = ast.parse(Path(ambiguity.__file__).read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    items = {m for m in imported if m and m.startswith("choicelab.studies.steer.items")}
    assert items == {"choicelab.studies.steer.items.base", "choicelab.studies.steer.items.domains"}


# ---------------------------------------------------------------------------------------------------------------
# The generated benchmark


@pytest.fixture(scope="module")
def findings() -> dict[str, list[tuple[str, str, str]]]:
    """(unit id, kind, detail) per element, on 2 units of every test of every element (seed 20261128)."""
    out: dict[str, list[tuple[str, str, str]]] = {}
    for element, domain, grade in plan_tests(BenchmarkScale()):
        for unit in units_of(generate(element, domain, grade, 2, AMBIGUITY_SEED)):
            out.setdefault(element, []).extend((unit[0].unit_id, k, d) for k, d in unit_findings(unit))
    return out


def test_the_elements_the_paper_defines_by_a_criterion_have_an_independent_check():
    assert {"repeated_enforceability", "repeated_feasibility", "endowment_effect", "reflection_effect",
            "certainty_effect", "independence_lotteries", "ambiguity_aversion", "maximize_eu", "avoid_risk_aversion",
            "avoid_risk_seeking", "avoid_loss_aversion", "completeness_lotteries", "pure_nash", "best_response",
            "dominant_strategies", "dominated_strategies", "plurality", "borda", "copeland"} <= set(ELEMENT_CHECKS)


@pytest.mark.parametrize("element", sorted(ELEMENT_CHECKS))
def test_no_distractor_is_also_right_and_each_element_is_asked_in_its_form(findings, element):
    problems = [f for f in findings[element] if f[1] != "text"]
    assert problems == [], problems[:5]


def test_every_template_reads_correctly(findings):
    slips = [f for element_findings in findings.values() for f in element_findings if f[1] == "text"]
    assert slips == [], slips[:10]
