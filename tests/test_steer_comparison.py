"""STEER comparison with the paper: like-with-like adaptation effects, the three normalized accuracies in Table 3,
which definition the paper's numbers fit, Fig. 22's grade 0, head-to-head, per-element quotes, Tables 1-2."""

from __future__ import annotations

import pandas as pd
import pytest

from choicelab.studies.steer import tables as st


def row(model, adaptation, item, correct, element="add_subtract", setting="1", grade=2, k=2, **extra):
    return {"model": model, "adaptation": adaptation, "benchmark": "steer", "split": "test", "item_id": item,
            "element": element, "module": "1.1", "setting": setting, "domain": "finance", "grade": grade,
            "correct": correct, "top_prob": 0.7, "random_accuracy": 1 / k, "template_id": f"{element}.p0", **extra}


@pytest.fixture
def subsampled():
    """0-shot answers 4 questions (q0, q1 right; q2, q3 wrong), the adaptations only the subsample {q2, q3}."""
    rows = [row("m", "0shot", f"q{i}", i < 2, n_examples_requested=0, n_examples=0) for i in range(4)]
    rows += [row("m", "1shot", f"q{i}", True, n_examples_requested=1, n_examples=1 if i == 2 else 0)
             for i in (2, 3)]
    rows += [row("m", "explain-separate", f"q{i}", i == 2, n_examples_requested=0, n_examples=0) for i in (2, 3)]
    return pd.DataFrame(rows)


def test_adaptation_effects_compare_each_adaptation_with_0shot_on_the_same_questions(subsampled):
    few = st.few_shot_table(subsampled, metric="accuracy").set_index("n_shot")
    assert few.loc[0, "accuracy"] == 0.0 and few.loc[1, "accuracy"] == 1.0  # 0-shot on q2, q3 only
    assert (few["n_questions"] == 2).all()
    selfexp = st.self_explanation_table(subsampled, metric="accuracy").set_index("model")
    assert selfexp.loc["m", "none"] == 0.0 and selfexp.loc["m", "separate"] == 0.5
    assert selfexp.loc["m", "n_questions"] == 2
    by_element = st.self_explanation_by_element(subsampled, metric="accuracy")
    assert by_element["effect_separate"].tolist() == [0.5]


def test_the_few_shot_table_says_how_many_prompts_held_fewer_examples_than_asked(subsampled):
    few = st.few_shot_table(subsampled).set_index("n_shot")
    assert few.loc[1, "mean_examples"] == 0.5 and few.loc[1, "n_short_prompts"] == 1
    assert few.loc[0, "n_short_prompts"] == 0


def test_table3_gives_the_papers_and_the_reference_codes_normalized_accuracy_side_by_side():
    rows = [row("m", "0shot", f"a{i}", i < 3, k=4) for i in range(4)]                      # acc .75, r .25
    rows += [row("m", "0shot", f"b{i}", i < 1, element="bayes_rule", k=2) for i in range(2)]  # acc .5, r .5
    table = st.table3(pd.DataFrame(rows)).set_index("model")
    assert table.loc["m", "normalized_accuracy"] == pytest.approx(((0.75 - 0.25) / 0.25 + 0.0) / 2)
    assert table.loc["m", "random_gap"] == pytest.approx(((0.75 - 0.25) + 0.0) / 2)
    assert table.loc["m", "gap_closed"] == pytest.approx(((0.5 / 0.75) + 0.0) / 2)
    assert table.loc["m", "n_questions"] == 6
    compared = st.compare_paper(table.reset_index().assign(model="Llama-2 7b"))
    ours = compared[compared["our_model"] == "Llama-2 7b"].iloc[0]
    assert ours["our_random_gap"] == pytest.approx(0.25) and ours["paper_normalized_accuracy"] == -0.4344
    assert ours["diff_random_gap"] == pytest.approx(0.25 + 0.4344)


def test_the_papers_table3_is_consistent_with_acc_minus_r_over_r_but_not_with_acc_minus_r():
    fit = st.paper_definition_fit(our_random_accuracy=0.35)
    summary = fit[fit["paper_model"].str.startswith("summary")].set_index("paper_model")
    # acc - r would need a chance level above 1/2 (fewer than 2 options) for several models; (acc - r)/r never does
    assert summary.loc["summary: random_gap", "n_impossible_r"] > 0
    assert summary.loc["summary: normalized_accuracy", "n_impossible_r"] == 0
    gpt4 = fit[fit["paper_model"] == "GPT-4 Turbo"].iloc[0]
    assert gpt4["implied_r_normalized_accuracy"] == pytest.approx(0.6361 / 1.3302)


def test_fig22_puts_every_foundations_question_at_grade_0():
    rows = [row("m", "0shot", "f1", True, grade=3), row("m", "0shot", "f2", False, grade=5, template_id="b.p1"),
            row("m", "0shot", "s1", True, element="sunk_cost", setting="2", grade=5)]
    grades = st.grade_table(pd.DataFrame(rows), metric="accuracy").set_index("grade")
    assert sorted(grades.index) == [0, 5]
    assert grades.loc[0, "n_questions"] == 2 and grades.loc[5, "n_questions"] == 1


def test_fig22_draws_the_interval_clustered_by_template_scaled_like_the_metric():
    from choicelab.stats import clustered_mean

    rows = [row("m", "0shot", f"q{i}", i % 3 != 0, grade=3, template_id=f"t{i % 4}") for i in range(12)]
    grades = st.grade_table(pd.DataFrame(rows), metric="accuracy").set_index("grade")
    expected = clustered_mean([i % 3 != 0 for i in range(12)], [f"t{i % 4}" for i in range(12)])
    assert grades.loc[0, "n_clusters"] == 4
    assert (grades.loc[0, "low"], grades.loc[0, "high"]) == pytest.approx((expected.low, expected.high))
    normalized = st.grade_table(pd.DataFrame(rows)).set_index("grade")  # (acc - r)/r with r = 1/2
    assert normalized.loc[0, "low"] == pytest.approx((expected.low - 0.5) / 0.5)
    one_template = [{**r, "template_id": "t0"} for r in rows]
    assert pd.isna(st.grade_table(pd.DataFrame(one_template), metric="accuracy").loc[0, "low"])  # one unit: no interval


def test_head_to_head_counts_element_wins_and_question_records_for_every_pair():
    rows = []
    for model, answers in (("a", [True, True, False]), ("b", [False, True, False])):
        rows += [row(model, "0shot", f"x{i}", c) for i, c in enumerate(answers)]
        rows += [row(model, "0shot", "y0", model == "b", element="bayes_rule")]
    h2h = st.head_to_head(pd.DataFrame(rows), metric="accuracy").set_index(["model_a", "model_b"])
    assert (h2h.loc[("a", "b"), ["wins", "ties", "losses"]] == [1, 0, 1]).all()
    assert h2h.loc[("b", "a"), "losses"] == 1 and h2h.loc[("a", "b"), "win_rate"] == 0.5
    assert h2h.loc[("a", "b"), "a_right_b_wrong"] == 1 and h2h.loc[("a", "b"), "b_right_a_wrong"] == 1


def test_the_quoted_self_explanation_effects_are_set_beside_ours():
    rows = [row("m", "0shot", f"c{i}", i == 0, element="certainty_effect", setting="2") for i in range(2)]
    rows += [row("m", "explain-together", f"c{i}", True, element="certainty_effect", setting="2") for i in range(2)]
    quotes = st.compare_element_quotes(pd.DataFrame(rows), metric="accuracy")
    certainty = quotes[(quotes["element"] == "certainty_effect")].set_index("paper_value")
    assert certainty.loc[0.079, "our_value"] == 0.5 and certainty.loc[0.079, "our_adaptation"] == "none"
    assert certainty.loc[0.508, "our_value"] == 1.0 and certainty.loc[0.508, "our_adaptation"] == "together"
    assert (quotes.loc[quotes["element"] == "irds", "our_n_questions"] == 0).all()  # not answered: n says so


def test_tables_1_2_list_the_papers_models_and_which_of_ours_stands_for_each():
    table = st.models_table({"llama-2-7b": {"source": "hf:meta-llama/Llama-2-7b-hf", "role": "base"},
                             "tiny-llama": {"source": "tiny:llama", "role": "base"}})
    assert len(table[table["model"] != ""]) == 15  # the 14 of Table 1 plus Vicuna 13b of Table 2
    assert table.set_index("model").loc["Llama-2 7b", "our_model"] == "llama-2-7b"
    assert table[table["our_model"] == "tiny-llama"]["model"].tolist() == [""]
