"""STEER question validity over a large seeded generation, for every element: no option names a letter other than
the display letter it is listed under, and catch-all options ("all give the same", "cannot be compared", "any
action") are no answer cue: they appear as distractors too and are right at about the rate of any other option."""

from __future__ import annotations

import pytest

from choicelab.studies.steer.items.base import generate_benchmark, letter_collisions, letter_names, registered_elements


@pytest.fixture(scope="module")
def large():
    """Every element, every allowed domain and grade, 3 questions per test (about 4,200 questions)."""
    return generate_benchmark({"n_per_test": 3, "seed": 11})


def test_the_letter_detector_finds_letter_names_but_not_articles():
    assert letter_names("Investment C") == {"C"}
    assert letter_names("B and D") == {"B", "D"}
    assert letter_names("Grace plays A at point 1") == {"A"}
    assert letter_names("A sure gain of $50") == set() and letter_names("A 50% chance") == set()
    assert letter_names("I prefer Option 2") == set()
    assert letter_collisions(["Project A", "Project B"]) == []           # aligned with its display letter
    assert letter_collisions(["Project B", "Project A"]) == [(0, "B"), (1, "A")]
    assert letter_collisions(["Action K", "Action L"]) == []             # K, L are no display letter here


def test_no_option_names_a_display_letter_other_than_its_own_in_any_element(large):
    colliding = {}
    for q in large:
        if letter_collisions(q.options):
            colliding.setdefault(q.element, q.options)
    assert not colliding, f"options name another display letter: {colliding}"
    assert {q.element for q in large} == set(registered_elements())


def test_the_catch_all_detector_knows_the_blanket_verdicts():
    from choicelab.studies.steer.items.base import is_catch_all

    for text in ("All standard formats give the same expected revenue", "There is no pure-strategy Nash equilibrium",
                 "No voter; these cases already show the function is non-dictatorial", "Abandon all projects",
                 "It cannot be determined from these preferences", "I am indifferent between Options 1 and 2"):
        assert is_catch_all(text), text
    for text in ("Investment 2", "All analysts are auditors.", "Yes", "$1,250", "Action K"):
        assert not is_catch_all(text), text


def test_catch_all_options_are_no_answer_cue_in_any_element(large):
    """Where a catch-all is offered, it is also offered as a wrong option, it is not always wrong, and it is right
    about as often as a random option would be (mean 1/k), within 3 binomial standard errors or 0.12."""
    import math
    from collections import defaultdict

    from choicelab.studies.steer.items.base import is_catch_all

    shown, right, chance = defaultdict(int), defaultdict(int), defaultdict(float)
    for q in large:
        for i, option in enumerate(q.options):
            if is_catch_all(option):
                shown[q.element] += 1
                right[q.element] += i == q.correct
                chance[q.element] += 1 / len(q.options)
    assert len(shown) >= 10  # the detector sees the catch-alls of many elements
    cues = {}
    for element, n in shown.items():
        rate, r = right[element] / n, chance[element] / n
        tolerance = max(0.12, 3 * math.sqrt(r * (1 - r) / n))
        never = right[element] == 0 and n >= 10
        if right[element] == n or never or abs(rate - r) > tolerance:
            cues[element] = f"right in {right[element]} of {n} questions offering it (chance {r:.2f})"
    assert not cues, cues
