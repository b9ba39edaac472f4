"""STEER two-part questions (the paper's consistency elements): two successive choices asked in one conversation,
the second after the model's own first answer, scored as one question that is right only when both choices are."""

from __future__ import annotations

import pandas as pd
import pytest

from choicelab.dumps import DumpRow
from choicelab.studies.steer import scoring as ps
from choicelab.studies.steer.items.base import generate, generate_benchmark_with_pool, questions_to_items
from choicelab.studies.steer.metrics import combine_parts, per_question_results, question_metadata

TWO_PART = ("certainty_effect", "reflection_effect", "independence_lotteries", "ambiguity_aversion")
SCALE = {"n_per_test": 2, "max_domains": 1, "seed": 3, "elements": ["certainty_effect", "add_subtract"],
         "grades": [3, 6]}


@pytest.fixture(scope="module")
def bench():
    scored, pool = generate_benchmark_with_pool(SCALE, 2)
    return questions_to_items(scored), questions_to_items(pool, "fewshot")


@pytest.mark.parametrize("element", TWO_PART)
def test_a_consistency_element_asks_two_successive_choices_without_stating_a_criterion(element):
    questions = generate(element, "finance", 8, 4, seed=1)
    assert len(questions) == 8 and [q.part for q in questions] == [1, 2] * 4
    for first, second in zip(questions[::2], questions[1::2], strict=True):
        assert first.index == second.index and first.unit_id == second.unit_id
        assert first.item_id == f"{first.unit_id}/p1" and second.item_id == f"{first.unit_id}/p2"
        assert first.question.endswith("would you choose?") and second.question.endswith("would you choose?")
        for text in (first.question, second.question):
            assert "expected" not in text.lower() and "risk-neutral" not in text.lower()
            assert "you chose" not in text.lower() and "you choose option" not in text.lower()
        assert second.letter_offset == len(first.options)


def test_part_two_is_lettered_after_part_one_and_asked_after_the_models_first_letter(bench):
    items, _ = bench
    first, second = (it for it in items if it.meta.get("pair_id") == "certainty_effect/finance/g6/0")
    assert ps.item_letters(first) == ["A", "B"] and ps.item_letters(second) == ["C", "D"]
    assert ps.options_block(second).startswith("C. ") and "\nD. " in ps.options_block(second)
    firsts, seconds = ps.split_follow_ups(items)
    assert second in seconds and first in firsts and not any(ps.is_follow_up(it) for it in firsts)
    [p1] = ps.build_prompts([first], [], "0shot", seed=0)
    [p2] = ps.build_follow_up_prompts([second], [p1], {first.item_id: "B"}, "0shot")
    assert p2.context == f"{p1.context}B\n{ps.mc_question(second)}"
    assert p2.context.endswith(ps.ANSWER_CUE)


def test_few_shot_examples_of_a_two_part_question_are_whole_solved_pairs(bench):
    items, pool = bench
    first = next(it for it in items if it.meta.get("part") == 1)
    [prompt] = ps.build_prompts([first], pool, "2shot", seed=0)
    examples = prompt.context.split("\n\n" + ps.mc_question(first))[0]
    assert prompt.n_examples == 2 and all(i.endswith("/p1") for i in prompt.example_ids)
    follow_ups = ps.follow_ups_by_part_one(pool)
    for example_id in prompt.example_ids:
        example = next(it for it in pool if it.item_id == example_id)
        part2 = follow_ups[example_id]
        assert ps.solved_example(example, part2) in examples
        assert ps.mc_question(part2) + ps.item_letters(part2)[part2.label] in examples


def test_a_part_two_without_its_part_one_fails_naming_it(bench):
    items, _ = bench
    second = next(it for it in items if ps.is_follow_up(it))
    with pytest.raises(ValueError, match="without their part 1"):
        ps.split_follow_ups([second])


def test_subsamples_keep_both_parts_of_a_two_part_question(bench):
    items, _ = bench
    assert len(ps.item_units(items)) == 4  # two pairs and two single questions
    for size in (1, 2, 3, 5):
        chosen = ps.scored_questions(items, "explain-separate", size, seed=4)
        assert len(ps.item_units(chosen)) == min(size, 4)
        ps.split_follow_ups(chosen)  # every part 2 with its part 1


def _rows(items, chosen):
    """Dump rows giving probability .7 to the option index ``chosen[item_id]`` (and the rest spread evenly)."""
    rows = []
    for it in items:
        k = len(it.choices)
        for j in range(k):
            prob = 0.7 if j == chosen[it.item_id] else 0.3 / (k - 1)
            rows.append(DumpRow("steer", it.benchmark, it.split, it.item_id, j, it.choices[j], "0shot", "ctx", "m",
                                "letter_prob", (), (), 0.0, 0.0, prob, j == it.label))
    return rows


def test_a_pair_is_right_only_when_both_choices_are_and_its_chance_is_one_in_k1_k2(bench):
    items, _ = bench
    pairs = ps.item_units(it for it in items if it.meta.get("part"))
    (a1, a2), (b1, b2) = pairs[0], pairs[1]
    chosen = {a1.item_id: a1.label, a2.item_id: a2.label,  # pair a: both right
              b1.item_id: b1.label, b2.item_id: 1 - b2.label}  # pair b: the second choice wrong
    singles = [it for it in items if not it.meta.get("part")][:2]
    chosen.update({it.item_id: it.label for it in singles})
    scored = [a1, a2, b1, b2, *singles]
    assert ps.chosen_letters(_rows([a1], chosen), [a1]) == {a1.item_id: ps.item_letters(a1)[a1.label]}
    scores = pd.DataFrame([r.__dict__ for r in _rows(scored, chosen)])
    frame = combine_parts(per_question_results(scores, question_metadata(scored)), scored)
    by_id = frame.set_index("item_id")
    assert len(frame) == 4 and set(by_id.index) == {a1.meta["pair_id"], b1.meta["pair_id"],
                                                    *(it.item_id for it in singles)}
    a, b = by_id.loc[a1.meta["pair_id"]], by_id.loc[b1.meta["pair_id"]]
    assert bool(a["correct"]) and not bool(b["correct"])
    assert a["n_options"] == 4 and a["random_accuracy"] == pytest.approx(0.25)
    assert a["top_prob"] == pytest.approx(0.49) and a["element"] == "certainty_effect"
    for it in singles:
        assert by_id.loc[it.item_id, "n_options"] == len(it.choices) and bool(by_id.loc[it.item_id, "correct"])
    with pytest.raises(ValueError, match="both are needed"):
        combine_parts(per_question_results(scores[scores["item_id"] != b2.item_id],
                                           question_metadata(scored)), scored)


def test_examples_are_dropped_until_part_two_fits_the_window_too(bench):
    items, pool = bench
    first, second = ps.item_units(it for it in items if it.meta.get("part"))[0]
    then = {first.item_id: second}
    [roomy] = ps.build_prompts([first], pool, "2shot", seed=0, then=then)
    part2 = len(f"A\n{ps.mc_question(second)}")
    window = len(roomy.context) + part2 - 10  # part 1 with both examples fits, but part 2 would not
    [fitted] = ps.build_prompts([first], pool, "2shot", seed=0, window=ps.ContextWindow(len, window), then=then)
    assert fitted.n_examples < 2 and len(fitted.context) + part2 + 2 <= window
    [p2] = ps.build_follow_up_prompts([second], [fitted], {first.item_id: "A"}, "2shot",
                                      window=ps.ContextWindow(len, window))
    assert p2.n_examples == fitted.n_examples and len(p2.context) + 2 <= window
