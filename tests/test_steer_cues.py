"""STEER questions measure rationality, not surface cues: no fixed surface heuristic (longest option, median number,
the number the stem states, always "Yes", the odd one out, ...) finds the key much more often than guessing.

The battery (choicelab/studies/steer/cues.py) runs every heuristic on a seeded benchmark of at least 240 questions per
element, spread over its domains and grades. An element fails when a heuristic beats its own chance rate by more than
0.15 at z > 5 on at least 100 of its questions."""

from __future__ import annotations

import random

import pytest

from choicelab.studies.steer.cues import (
    HEURISTICS,
    MAX_EXCESS,
    MAX_Z,
    MIN_N,
    CueQuestion,
    cue_failures,
    markdown_report,
    picks,
    read_before,
    run_battery,
    score_battery,
    worst_per_element,
)
from choicelab.studies.steer.items.base import registered_elements


@pytest.fixture(scope="session")
def battery():
    """The battery's table on its seeded benchmark of every element (generated once per session)."""
    return run_battery()


def _synthetic(key_rule: str, n: int = 300, seed: int = 0) -> list[CueQuestion]:
    """Questions of four options of different lengths; the key is the longest option, or a random one."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        options = tuple(rng.sample(["Hold", "Sell now", "Buy more shares", "Wait for the next quarterly report",
                                    "Hedge"], 4))
        if key_rule == "longest":
            correct = max(range(4), key=lambda i: len(options[i]))
        else:
            correct = rng.randrange(4)
        out.append(CueQuestion("planted", "Which should the fund do?", options, correct))
    return out


def test_the_battery_catches_a_planted_cue():
    failures = cue_failures(score_battery(_synthetic("longest")))
    flagged = set(failures["heuristic"])
    assert "longest" in flagged and "most_words" in flagged
    row = failures.set_index("heuristic").loc["longest"]
    assert row.accuracy == 1.0 and row.chance == pytest.approx(0.25) and row.n == 300


def test_a_key_at_random_shows_no_cue():
    assert cue_failures(score_battery(_synthetic("random"))).empty


def test_ties_split_credit_and_chance_is_one_over_the_number_of_options():
    # "always Yes" on Yes/No questions whose key alternates: accuracy 0.5, chance 0.5, z 0
    questions = [CueQuestion("yn", "Is it?", ("Yes", "No"), i % 2) for i in range(200)]
    row = score_battery(questions, ["always_yes"]).iloc[0]
    assert (row.n, row.accuracy, row.chance, row.z) == (200, 0.5, 0.5, 0.0)
    # two options tie for the largest number: each gets half the credit
    assert picks("number_largest", "", ("$5", "$9", "9")) == frozenset({1, 2})
    tied = [CueQuestion("tie", "", ("$5", "$9", "9"), 1)] * 10
    row = score_battery(tied, ["number_largest"]).iloc[0]
    assert row.accuracy == 0.5 and row.chance == pytest.approx(1 / 3)


def test_a_heuristic_that_picks_none_or_all_options_does_not_apply():
    assert picks("always_yes", "Which?", ("Hold", "Sell")) is None
    assert picks("longest", "Which?", ("Hold", "Sell")) is None  # equal lengths
    assert picks("numbers_stated_in_stem", "You have $8 and receive $9.", ("$17", "$8", "$9")) == frozenset({1, 2})
    assert picks("numbers_absent_from_stem", "You have $8 and receive $9.", ("$17", "$8", "$9")) == frozenset({0})
    assert picks("number_median", "", ("$16", "$18", "$17")) == frozenset({2})


@pytest.mark.slow
def test_the_benchmark_covers_every_element_with_enough_questions(battery):
    assert set(battery["element"]) == set(registered_elements())
    first = battery[battery["heuristic"] == "first_option"].set_index("element")["n"]
    assert first.min() >= 240  # "first option" applies to every question


@pytest.mark.parametrize("element", registered_elements())
@pytest.mark.slow
def test_no_surface_heuristic_finds_the_key_of_the_element(battery, element):
    failures = cue_failures(battery[battery["element"] == element])
    lines = [f"{element}: {r.heuristic} accuracy {r.accuracy:.3f} vs chance {r.chance:.3f} "
             f"(excess {r.excess:.3f}, z {r.z:.1f}, n {r.n})" for r in failures.itertuples(index=False)]
    assert not lines, (f"surface heuristics beat chance by more than {MAX_EXCESS} at z > {MAX_Z} on >= {MIN_N} "
                       "questions:\n" + "\n".join(lines))


def test_the_markdown_report_names_each_elements_worst_heuristic_and_reads_back(tmp_path):
    table = score_battery(_synthetic("longest") + [CueQuestion("fair", "Is it?", ("Yes", "No"), i % 2)
                                                   for i in range(200)])
    text = markdown_report(table, seed=1, per_element=300)
    assert "| `planted` | " in text and "**cue**" in text
    path = tmp_path / "before.md"
    path.write_text(text)
    before = read_before(path)
    assert set(before) == {"planted", "fair"} and before["planted"].startswith(
        worst_per_element(table).set_index("element").loc["planted", "heuristic"])
    both = markdown_report(table, seed=1, per_element=300, before=before)
    assert "worst heuristic (before)" in both


def test_every_heuristic_is_named_and_callable():
    for name in HEURISTICS:
        picks(name, "You have $8 and receive $9. Is it 50%?", ("Yes", "No, 17", "$9 still"))
