"""Specifications of the STEER metrics (choicelab.studies.steer.metrics), on small hand-computed cases."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from choicelab.stats import expected_calibration_error
from choicelab.studies.steer import metrics as sm
from choicelab.studies.steer.adaptations import of_label


def score_rows(model, variant, item_id, probs, label):
    return [
        {"study": "steer", "benchmark": "steer", "split": "test", "item_id": item_id, "option_id": i,
         "option_text": f"opt{i}", "variant": variant, "model": model, "method": "letter_prob",
         "score": p, "prob": p, "is_label": i == label}
        for i, p in enumerate(probs)
    ]


def meta_row(item_id, element, domain="finance", grade=3, module="1.1", setting="1"):
    return {"benchmark": "steer", "split": "test", "item_id": item_id, "element": element, "module": module,
            "setting": setting, "domain": domain, "grade": grade, "template_id": f"{element}.p0"}


@pytest.fixture()
def tiny():
    """Three questions for model m: q1 (2 options) right, q2 (4 options) wrong, q3 (4 options) right."""
    rows = (score_rows("m", "0shot", "q1", [0.8, 0.2], 0)
            + score_rows("m", "0shot", "q2", [0.1, 0.6, 0.2, 0.1], 0)
            + score_rows("m", "0shot", "q3", [0.1, 0.1, 0.1, 0.7], 3)
            + score_rows("m", "other_method", "q1", [0.8, 0.2], 0))
    scores = pd.DataFrame(rows)
    scores.loc[scores["variant"] == "other_method", "method"] = "sum_logprob"
    meta = pd.DataFrame([meta_row("q1", "a", "finance"), meta_row("q2", "a", "medical"),
                         meta_row("q3", "a", "medical")])
    return scores, meta


def test_per_question_uses_argmax_and_marks_correctness(tiny):
    scores, meta = tiny
    res = sm.per_question_results(scores, meta).set_index("item_id")
    assert list(res.index) == ["q1", "q2", "q3"]  # only letter_prob rows count
    assert res.loc["q1", "correct"] and not res.loc["q2", "correct"] and res.loc["q3", "correct"]
    assert res.loc["q2", "predicted_option"] == 1
    assert res.loc["q2", "top_prob"] == pytest.approx(0.6)
    assert res.loc["q2", "random_accuracy"] == pytest.approx(0.25)
    assert res.loc["q1", "adaptation"] == "0shot"


def test_ties_go_to_the_lowest_option_position():
    scores = pd.DataFrame(score_rows("m", "", "q", [0.5, 0.5], 1))
    res = sm.per_question_results(scores, pd.DataFrame([meta_row("q", "a")]))
    assert res["predicted_option"].iloc[0] == 0 and not res["correct"].iloc[0]


def test_probabilities_are_renormalized_for_confidence():
    scores = pd.DataFrame(score_rows("m", "", "q", [0.3, 0.1], 0))  # sums to 0.4
    res = sm.per_question_results(scores, pd.DataFrame([meta_row("q", "a")]))
    assert res["top_prob"].iloc[0] == pytest.approx(0.75)


def test_both_normalized_accuracies_use_mean_of_one_over_k(tiny):
    scores, meta = tiny
    summ = sm.summarize(sm.per_question_results(scores, meta), by=["model"]).iloc[0]
    acc, r = 2 / 3, (0.5 + 0.25 + 0.25) / 3  # r = 1/3
    assert summ["accuracy"] == pytest.approx(acc)
    assert summ["random_accuracy"] == pytest.approx(r)
    assert summ["normalized_accuracy"] == pytest.approx((acc - r) / r)  # = 1.0
    assert summ["gap_closed"] == pytest.approx((acc - r) / (1 - r))  # = 0.5
    assert summ["random_gap"] == pytest.approx(acc - r)
    assert summ["n_questions"] == 3


def test_normalized_accuracy_scalar_definitions():
    assert sm.normalized_accuracy(0.75, 0.25) == pytest.approx(2.0)  # paper's: can exceed 1
    assert sm.gap_closed(0.75, 0.25) == pytest.approx(2 / 3)
    assert sm.normalized_accuracy(0.0, 0.5) == pytest.approx(-1.0)
    assert sm.gap_closed(0.0, 0.25) == pytest.approx(-1 / 3)
    assert math.isnan(sm.gap_closed(1.0, 1.0))


def test_ece_matches_hand_computation():
    # bins: 9 -> {0.95: right}, 8 -> {0.85: right}, 6 -> {0.62: wrong}, 5 -> {0.58: right, 0.55: wrong}
    ece = expected_calibration_error([0.95, 0.85, 0.62, 0.58, 0.55], [True, True, False, True, False])
    expected = (0.05 + 0.15 + 0.62) / 5 + 2 / 5 * abs(0.5 - 0.565)
    assert ece == pytest.approx(expected)
    assert expected == pytest.approx(0.19)


def test_ece_puts_probability_one_in_the_last_bin_and_is_zero_when_calibrated():
    assert expected_calibration_error([1.0, 1.0], [True, True]) == pytest.approx(0.0)
    # 0.5 exactly starts bin 5; half right -> perfectly calibrated
    assert expected_calibration_error([0.5, 0.5], [True, False]) == pytest.approx(0.0)


def test_summarize_rejects_unknown_grouping(tiny):
    scores, meta = tiny
    with pytest.raises(ValueError, match="colour"):
        sm.summarize(sm.per_question_results(scores, meta), by=["colour"])


def test_domain_robustness_is_the_worst_domain(tiny):
    scores, meta = tiny
    dr = sm.domain_robustness(sm.per_question_results(scores, meta)).iloc[0]
    # finance: q1 right -> 1.0; medical: q2 wrong, q3 right -> 0.5
    assert dr["worst_domain"] == "medical"
    assert dr["worst"] == pytest.approx(0.5)
    assert dr["mean_over_domains"] == pytest.approx(0.75)
    assert dr["overall"] == pytest.approx(2 / 3)
    assert dr["n_domains"] == 2


def test_dependency_robustness_on_a_small_graph():
    edges = [("a", "c"), ("b", "c"), ("d", "b")]  # ancestors(c) = {a, b, d}, ancestors(b) = {d}
    gaps = {"a": 0.5, "b": 0.1, "c": 0.3, "d": -0.2}
    dr = sm.dependency_robustness(gaps, sm.transitive_ancestors(edges))
    assert dr["c"] == pytest.approx((0.3 - 0.1) + (0.3 + 0.2))  # a is better than c: not counted
    assert dr["b"] == pytest.approx(0.3)
    assert dr["a"] == 0 and dr["d"] == 0


def test_dependency_robustness_skips_unscored_ancestors():
    dr = sm.dependency_robustness({"c": 0.3, "d": math.nan}, {"c": ["a", "d"]})
    assert dr == {"c": 0.0}


def test_transitive_ancestors_rejects_cycles():
    with pytest.raises(ValueError, match="cycle"):
        sm.transitive_ancestors([("a", "b"), ("b", "a")])


def test_dependency_robustness_does_not_depend_on_the_order_of_the_ancestors():
    """The ancestors come as a frozenset, whose order changes with the hash seed: the sum must not."""
    gaps = {"s": 1.0, "a": 0.1, "b": 0.2, "c": 0.3, "d": 1e-17}
    orders = [["a", "b", "c", "d"], ["d", "c", "b", "a"], ["b", "d", "a", "c"]]
    values = {sm.dependency_robustness(gaps, {"s": order})["s"] for order in orders}
    assert values == {math.fsum(1.0 - gaps[x] for x in "abcd")}


def test_dependency_robustness_table_from_questions():
    # element x (prerequisite y): x has 2-option questions, 1 of 2 right -> gap 0; y 0 of 2 right -> gap -0.5
    rows, meta = [], []
    for i, right in enumerate([True, False]):
        rows += score_rows("m", "", f"x{i}", [0.9, 0.1], 0 if right else 1)
        meta.append(meta_row(f"x{i}", "x"))
    for i in range(2):
        rows += score_rows("m", "", f"y{i}", [0.9, 0.1], 1)
        meta.append(meta_row(f"y{i}", "y"))
    res = sm.per_question_results(pd.DataFrame(rows), pd.DataFrame(meta))
    table = sm.dependency_robustness_table(res, [("y", "x")]).set_index("element")
    assert table.loc["x", "dependency_robustness"] == pytest.approx(0.5)
    assert table.loc["x", "n_weaker_ancestors"] == 1
    assert table.loc["y", "dependency_robustness"] == 0


def test_missing_metadata_and_bad_labels_are_reported():
    scores = pd.DataFrame(score_rows("m", "", "q", [0.6, 0.4], 0))
    with pytest.raises(ValueError, match="no metadata"):
        sm.per_question_results(scores, pd.DataFrame([meta_row("other", "a")]))
    scores["is_label"] = True
    with pytest.raises(ValueError, match="is_label"):
        sm.per_question_results(scores, pd.DataFrame([meta_row("q", "a")]))


def test_macro_average_weights_each_element_once():
    summary = pd.DataFrame({"model": ["m"] * 2, "adaptation": [""] * 2, "element": ["a", "b"],
                            "accuracy": [1.0, 0.0], "normalized_accuracy": [1.0, -1.0],
                            "gap_closed": [1.0, -1.0], "ece": [0.0, 0.2]})
    avg = sm.macro_average(summary).iloc[0]
    assert avg["accuracy"] == pytest.approx(0.5) and avg["n_elements"] == 2


@pytest.mark.parametrize("label, shots, mode", [
    ("0shot", 0, "none"), ("", 0, "none"), ("3shot", 3, "none"), ("explain-together", 0, "together"),
    ("explain-separate-hidden", 0, "separate-hidden"),
])
def test_adaptation_labels_are_read_by_the_one_parser(label, shots, mode):
    adaptation = of_label(label)
    assert (adaptation.shots, adaptation.explain) == (shots, mode)


@pytest.mark.parametrize("label", ["3-shot", "5shot+explain-separate", "0shot_explain_together", "9shot"])
def test_a_label_that_names_no_adaptation_is_refused(label):
    with pytest.raises(ValueError, match="unknown STEER adaptation name"):
        of_label(label)


def test_question_metadata_joins_generated_steer_items():
    """End to end on real generated items: metadata from MCItem.meta, scores from a fake model that picks option 0."""
    from choicelab.studies.steer.items.base import generate

    items = [q.to_mc_item() for q in generate("add_subtract", "finance", 1, n=4, seed=0)]
    meta = sm.question_metadata(items)
    assert set(meta["element"]) == {"add_subtract"} and set(meta["module"]) == {"1.1"}
    rows = []
    for it in items:
        k = len(it.choices)
        rows += score_rows("m", "", it.item_id, [0.9] + [0.1 / (k - 1)] * (k - 1), it.label)
    res = sm.per_question_results(pd.DataFrame(rows), meta)
    assert list(res["correct"]) == [it.label == 0 for it in items]
    assert list(res["random_accuracy"]) == pytest.approx([1 / len(it.choices) for it in items])
