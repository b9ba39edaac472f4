"""STEER evaluation: letters and permutations, few-shot examples, context window, self-explanation, scoring, DAG."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from choicelab.items.steer.base import generate_benchmark, questions_to_items
from choicelab.pipelines import steer as ps
from choicelab.pipelines.mc import LETTERS


@pytest.fixture(scope="module")
def items():
    return questions_to_items(generate_benchmark({"n_per_test": 3, "max_domains": 1, "seed": 5,
                                                  "elements": ["add_subtract", "bayes_rule"], "grades": [3, 4]}))


def test_adaptations_are_parsed_and_unknown_ones_fail_with_the_accepted_forms():
    assert ps.parse_adaptation("3shot") == (3, "none")
    assert ps.parse_adaptation("explain-separate") == (0, "separate")
    with pytest.raises(ValueError, match="explain-together"):
        ps.parse_adaptation("7shot")


def test_letters_and_the_recorded_permutation_round_trip(items):
    for item in items:
        block = ps.question_block(item)
        for k, choice in enumerate(item.choices):
            assert f"\n{LETTERS[k]}. {choice}" in block
        order = item.meta["option_order"]
        assert sorted(order) == list(range(len(item.choices)))
        assert order[item.label] == 0  # draft position 0 is the solver's answer
        draft = [None] * len(order)
        for shown, drafted in enumerate(order):
            draft[drafted] = item.choices[shown]
        assert draft[0] == item.choices[item.label]


def test_few_shot_examples_come_from_the_same_test_and_never_the_question_itself(items):
    item = items[0]
    examples = ps.few_shot_examples(item, items, 5, seed=1)
    assert 0 < len(examples) <= 2  # 3 questions per test: at most the 2 others
    assert all(ps.test_key(e) == ps.test_key(item) and e.item_id != item.item_id for e in examples)
    assert ps.few_shot_examples(item, items, 2, seed=1) == ps.few_shot_examples(item, items, 2, seed=1)
    prompt = ps.answer_prompt(item, examples)
    assert prompt.endswith(ps.ANSWER_SUFFIX) and prompt.count("Correct Answer: ") == len(examples) + 1


def test_examples_are_dropped_until_the_prompt_fits_the_context_window(items):
    item = items[0]
    examples = ps.few_shot_examples(item, items, 2, seed=1)
    words = lambda text: len(text.split())  # noqa: E731
    alone = words(ps.answer_prompt(item, []))
    assert ps.fit_to_window(item, examples, words, alone + 2) == []
    assert ps.fit_to_window(item, examples, words, None) == examples
    with pytest.raises(ValueError, match="context window"):
        ps.fit_to_window(item, examples, words, alone - 5)


def test_self_explanation_separate_explains_without_options_then_answers_with_them(items):
    seen = {}

    def explain(prompts):
        seen.update(prompts)
        return {pid: "because of the numbers" for pid, _ in prompts}

    contexts = ps.build_contexts(items[:2], items, "explain-separate", seed=0, count_tokens=len, max_tokens=None,
                                 explain=explain)
    first = seen[items[0].item_id]
    assert "A. " not in first and ps.EXPLAIN_SEPARATE in first
    assert "A. " in contexts[0] and "Explanation: because of the numbers" in contexts[0]
    together = ps.build_contexts(items[:1], items, "explain-together", seed=0, count_tokens=len, max_tokens=None,
                                 explain=explain)
    assert together[0].index("A. ") < together[0].index("because of the numbers") < together[0].index("Correct Answer")


def test_letter_scores_are_renormalized_over_each_questions_letters(items, tiny_llama):
    from choicelab.lm.causal import CausalScorer

    model, tokenizer = tiny_llama
    scorer = CausalScorer(model, tokenizer)
    subset = items[:3]
    contexts = ps.build_contexts(subset, items, "1shot", seed=0, count_tokens=len, max_tokens=None)
    rows = pd.DataFrame([r.__dict__ for r in ps.score_adaptation(scorer, subset, contexts, model="tiny",
                                                                 adaptation="1shot")])
    assert set(rows["variant"]) == {"1shot"} and set(rows["method"]) == {"letter_prob"}
    sums = rows.groupby("item_id")["prob"].sum()
    np.testing.assert_allclose(sums.to_numpy(), 1.0)
    assert rows.groupby("item_id")["is_label"].sum().eq(1).all()


def test_report_card_command_is_wired_into_the_cli(tmp_path):
    from choicelab.steer_report import shipped_rubrics

    frame = pd.DataFrame({
        "model": "m", "adaptation": "0shot", "benchmark": "steer", "split": "test",
        "item_id": [f"q{i}" for i in range(4)], "predicted_option": 0, "label_option": [0, 1, 0, 0],
        "correct": [True, False, True, True], "top_prob": 0.6, "label_prob": 0.5, "n_options": 4,
        "random_accuracy": 0.25, "element": "add_subtract", "module": "1.1", "setting": "1", "domain": "finance",
        "grade": 3,
    })
    metrics = tmp_path / "q.parquet"
    frame.to_parquet(metrics)
    out_html, out_png = tmp_path / "card.html", tmp_path / "card.png"
    proc = subprocess.run([sys.executable, "-m", "choicelab.cli", "report-card", "--rubric",
                           str(shipped_rubrics()["foundations_only"]), "--metrics", str(metrics),
                           "--out-html", str(out_html), "--out-png", str(out_png)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert out_html.exists() and out_png.stat().st_size > 0


def test_smoke_dag_produces_every_steer_artifact(smoke_run):
    from conftest import manifest_ids

    figures = ["fig4", "fig5", *[f"fig{n}" for n in (*range(7, 16), *range(17, 23))]]
    expected = {f"steer/{x}" for x in ["table3", "compare_paper", *figures]}
    expected |= {f"steer/report_card_{r}" for r in ("rational_across_the_board", "foundations_only",
                                                    "single_agent_medical")}
    assert expected <= manifest_ids(smoke_run)
    questions = pd.read_parquet(smoke_run / "results" / "steer" / "metrics" / "questions.parquet")
    assert {"0shot", "1shot", "explain-separate"} <= set(questions["adaptation"])
