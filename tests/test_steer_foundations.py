"""STEER setting-1 (Foundations) questions carry no answer cue and state what their keys assume.

The answer keys themselves are re-derived by the independent checks of tests/test_steer_generators_a.py; the cue
battery (tests/test_steer_cues.py) covers every element with fixed surface heuristics. These tests pin the rules the
foundations generators follow to pass it: plausible values only, Yes/No keys balanced per template, no premise
restated as an option, the existential-import assumption stated."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from fractions import Fraction

import pytest

from choicelab.studies.steer.items import base
from choicelab.studies.steer.items.foundations import decimals, rank_balanced
from choicelab.studies.steer.items.taxonomy import load_taxonomy

TAX = load_taxonomy()


def questions(element_id: str, n: int = 6, seed: int = 3) -> list[base.SteerQuestion]:
    el = TAX.element(element_id)
    return [q for d in el.domains for g in el.grades for q in base.generate(element_id, d, g, n, seed)]


def test_rank_balanced_puts_the_key_at_every_rank_about_equally_often():
    import random

    rng = random.Random(0)
    items = [(v, str(v)) for v in (1, 2, 3, 4, 6, 7, 8, 9)]
    ranks = Counter()
    for _ in range(4000):
        chosen = [int(t) for t in rank_balanced(rng, 5, items, 4)]
        ranks[sum(v < 5 for v in chosen)] += 1
    assert set(ranks) == {0, 1, 2, 3} and min(ranks.values()) > 900


def test_rank_balanced_fails_when_the_items_cannot_fill_the_options():
    import random

    with pytest.raises(ValueError, match="only 1 distractors for 3 options"):
        rank_balanced(random.Random(0), 5, [(1, "1")], 3)


@pytest.mark.parametrize("element_id", ["complement_rule", "bayes_rule", "outcome_probabilities"])
def test_probability_options_lie_strictly_between_0_and_1(element_id):
    for q in questions(element_id):
        for option in q.options:
            value = Fraction(option) if "/" in option else Fraction(option.rstrip("%")) / 100
            assert 0 < value < 1, (q.item_id, q.options)


@pytest.mark.parametrize("element_id", ["add_subtract", "multiply_divide", "compute_expectations", "complement_rule",
                                        "bayes_rule"])
def test_numeric_distractors_are_written_like_the_key_and_lie_on_both_sides(element_id):
    below = above = 0
    for q in questions(element_id):
        assert len({decimals(o) for o in q.options}) == 1, (q.item_id, q.options)
        values = [float(re.sub(r"[$,%]", "", o)) for o in q.options]
        below += sum(v < values[q.correct] for v in values)
        above += sum(v > values[q.correct] for v in values)
    assert 0.4 < below / (below + above) < 0.6


@pytest.mark.parametrize("element_id", ["categorical_syllogism", "conditional_syllogism"])
def test_yes_no_keys_are_balanced_per_template(element_id):
    """Within 3 binomial standard errors of one half, for every Yes/No template."""
    yes = defaultdict(Counter)
    for q in questions(element_id, n=30):
        if set(q.options) == {"Yes", "No"}:
            yes[q.template_id][q.answer] += 1
    assert yes
    for template, counts in yes.items():
        n = sum(counts.values())
        assert n >= 100 and abs(counts["Yes"] / n - 0.5) < 3 * (0.25 / n) ** 0.5, (template, counts)


def test_categorical_syllogisms_state_that_no_term_is_empty():
    for q in questions("categorical_syllogism"):
        terms = q.params["terms"]
        assert "none of these groups is empty" in q.question and all(t in q.question for t in terms), q.question


def test_every_conclusion_form_is_the_key_of_some_categorical_question():
    forms = Counter(tuple(q.params["option_statements"][0])[0] for q in questions("categorical_syllogism")
                    if "option_statements" in q.params)
    assert set(forms) == {"all", "no", "some", "some_not"}


def test_conditional_syllogism_options_never_restate_a_premise():
    for q in questions("conditional_syllogism"):
        premises = q.params["premises"]
        for key in ("conclusion", "option_formulas"):
            formulas = q.params.get(key)
            formulas = [formulas] if key == "conclusion" else formulas or []
            assert not [f for f in formulas if f in premises], q.question


@pytest.mark.parametrize("element_id", ["first_order_false_belief", "second_order_false_belief"])
def test_false_belief_options_are_places_of_the_story_and_the_key_is_not_always_the_start(element_id):
    starts = 0
    qs = questions(element_id)
    for q in qs:
        for option in q.options:
            assert option.removeprefix("In the ") in q.question, (q.item_id, option)
        starts += q.answer == f"In the {q.params['start']}"
    assert 0.2 < starts / len(qs) < 0.7


def test_discrete_optimization_options_name_alternatives_not_amounts():
    for q in questions("discrete_optimization"):
        assert all(re.fullmatch(r"[A-Z][\w -]* \d+", o) for o in q.options), q.options
