"""STEER evaluation: letters and permutations, few-shot examples, context window, self-explanation, scoring, DAG."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from choicelab.mc.scoring import LETTERS
from choicelab.studies.steer import scoring as ps
from choicelab.studies.steer.items.base import generate_benchmark, questions_to_items


@pytest.fixture(scope="module")
def items():
    return questions_to_items(generate_benchmark({"n_per_test": 3, "max_domains": 1, "seed": 5,
                                                  "elements": ["add_subtract", "bayes_rule"], "grades": [3, 4]}))


@pytest.fixture(scope="module")
def pool():
    from choicelab.studies.steer.items.base import FEWSHOT_SPLIT, generate_benchmark_with_pool

    _, extra = generate_benchmark_with_pool({"n_per_test": 3, "max_domains": 1, "seed": 5,
                                             "elements": ["add_subtract", "bayes_rule"], "grades": [3, 4]}, 5)
    return questions_to_items(extra, FEWSHOT_SPLIT)


def test_adaptation_names_are_parsed_and_unknown_ones_fail_with_the_accepted_names():
    from choicelab.studies.steer.adaptations import Adaptation

    assert Adaptation.from_name("3shot") == Adaptation(shots=3)
    assert Adaptation.from_name("explain-separate") == Adaptation(explain="separate")
    assert Adaptation.from_name("explain-separate-hidden") == Adaptation(explain="separate-hidden")
    with pytest.raises(ValueError, match="explain-together"):
        Adaptation.from_name("7shot")


def test_the_prompt_has_the_reference_codes_layout_and_suffix(items):
    item = items[0]
    options = "\n".join(f"{LETTERS[k]}. {c}" for k, c in enumerate(item.choices))
    assert ps.answer_prompt(item, []) == (
        f"{item.prompt}\n{options}\n\nAnswer by writing the option letter corresponding to the correct option. "
        "WRITE ONLY A SINGLE LETTER. \n\nCorrect Answer: ")


def test_letters_and_the_recorded_permutation_round_trip(items):
    for item in items:
        lines = ps.options_block(item).split("\n")
        assert lines == [f"{LETTERS[k]}. {choice}" for k, choice in enumerate(item.choices)]
        order = item.meta["option_order"]
        assert sorted(order) == list(range(len(item.choices)))
        assert order[item.label] == 0  # draft position 0 is the solver's answer
        draft = [None] * len(order)
        for shown, drafted in enumerate(order):
            draft[drafted] = item.choices[shown]
        assert draft[0] == item.choices[item.label]


def test_the_few_shot_pool_is_disjoint_from_the_scored_questions_and_matches_their_tests(items, pool):
    assert not {it.item_id for it in items} & {p.item_id for p in pool}
    assert not {it.prompt for it in items} & {p.prompt for p in pool}
    assert {ps.test_key(p) for p in pool} == {ps.test_key(it) for it in items}
    assert all(sum(ps.test_key(p) == ps.test_key(it) for p in pool) == 5 for it in items)
    assert {p.split for p in pool} == {"fewshot"}


def test_n_shot_prompts_hold_n_solved_examples_of_the_same_test(items, pool):
    for n in (1, 3, 5):
        prompts = ps.build_prompts(items, pool, f"{n}shot", seed=1)
        for item, prompt in zip(items, prompts, strict=True):
            assert prompt.n_examples == prompt.n_examples_requested == n
            assert prompt.context.count("Correct Answer: ") == n + 1 and prompt.context.endswith("Correct Answer: ")
            examples = [p for p in pool if p.item_id in prompt.example_ids]
            assert len(examples) == n and all(ps.test_key(e) == ps.test_key(item) for e in examples)
            for e in examples:  # each example is answered with its correct letter
                assert ps.solved_example(e) + "\n\n" in prompt.context
    first = ps.build_prompts(items, pool, "3shot", seed=1)
    again = ps.build_prompts(items, pool, "3shot", seed=1)
    assert [p.example_ids for p in first] == [p.example_ids for p in again]


def test_a_pool_too_small_for_the_asked_shots_fails_naming_the_config_key(items, pool):
    with pytest.raises(ValueError, match="fewshot_pool"):
        ps.few_shot_examples(items[0], pool[:2], 3, seed=0)
    with pytest.raises(ValueError, match="fewshot_pool"):
        ps.few_shot_examples(items[0], [items[0]], 1, seed=0)  # never the question itself


def test_a_config_whose_pool_cannot_supply_its_largest_n_shot_fails_before_generation():
    ps.check_pool_size(5, ["0shot", "5shot", "explain-separate"])
    with pytest.raises(ValueError, match="fewshot_pool to at least 3"):
        ps.check_pool_size(1, ["0shot", "1shot", "3shot"])


def test_examples_are_dropped_until_the_prompt_fits_the_context_window_and_the_record_says_so(items, pool):
    item = items[0]
    words = lambda text: len(text.split())  # noqa: E731
    alone = words(ps.answer_prompt(item, []))
    examples = ps.few_shot_examples(item, pool, 2, seed=1)
    assert ps.fit_to_window(item, examples, words, alone + 2) == []
    assert ps.fit_to_window(item, examples, words, None) == examples
    [short] = ps.build_prompts([item], pool, "2shot", seed=1, window=ps.ContextWindow(words, alone + 2))
    assert (short.n_examples_requested, short.n_examples) == (2, 0)
    with pytest.raises(ValueError, match="context window"):
        ps.fit_to_window(item, examples, words, alone - 5)


def test_every_adaptation_other_than_0shot_scores_the_same_subsample_which_0shot_also_scores(items):
    zero = ps.scored_questions(items, "0shot", 3, seed=4)
    subsets = [ps.scored_questions(items, a, 3, seed=4) for a in ("1shot", "explain-together", "explain-separate")]
    assert zero == list(items)
    assert all(s == subsets[0] for s in subsets) and len(subsets[0]) == 3
    assert {it.item_id for it in subsets[0]} <= {it.item_id for it in zero}


GENERATION = "'''because of the numbers''' Correct Answer: B"


def _explainer(seen):
    def explain(prompts):
        seen.update(prompts)
        return {pid: GENERATION for pid, _ in prompts}
    return explain


def test_explain_separate_is_the_papers_question_with_options_then_options_with_the_explanation(items):
    seen = {}
    [prompt] = ps.build_prompts(items[:1], [], "explain-separate", seed=0,
                                explain=_explainer(seen))
    item, options = items[0], ps.options_block(items[0])
    first = seen[item.item_id]
    assert first == f"{item.prompt}\n{options}\n{ps.EXPLAIN_SUFFIX}" and prompt.explanation_prompt == first
    # call 2: after call 1 and its explanation, only the options and the answer suffix
    assert prompt.context == f"{first}\n{GENERATION}\n{options}\n{ps.MC_SUFFIX}"


def test_explain_separate_hidden_explains_without_the_options(items):
    seen = {}
    [prompt] = ps.build_prompts(items[:1], [], "explain-separate-hidden", seed=0, explain=_explainer(seen))
    first = seen[items[0].item_id]
    assert "A. " not in first and first == f"{items[0].prompt}\n{ps.EXPLAIN_SUFFIX}"
    assert prompt.context == f"{first}\n{GENERATION}\n{ps.options_block(items[0])}\n{ps.MC_SUFFIX}"


def test_explain_together_scores_the_letter_after_the_explanation_cut_before_the_models_answer(items):
    seen = {}
    [prompt] = ps.build_prompts(items[:1], [], "explain-together", seed=0,
                                explain=_explainer(seen))
    first = seen[items[0].item_id]
    assert first == f"{items[0].prompt}\n{ps.options_block(items[0])}\n{ps.EXPLAIN_ANSWER_SUFFIX}"
    assert prompt.context == f"{first}\n'''because of the numbers'''\nCorrect Answer: "
    assert prompt.explanation == "'''because of the numbers'''"


def test_letter_scores_are_renormalized_over_each_questions_letters(items, pool, tiny_llama):
    from choicelab.lm.causal import CausalScorer

    model, tokenizer = tiny_llama
    scorer = CausalScorer(model, tokenizer)
    subset = items[:3]
    contexts = [p.context for p in ps.build_prompts(subset, pool, "1shot", seed=0)]
    rows = pd.DataFrame([r.__dict__ for r in ps.score_adaptation(scorer, subset, contexts, model="tiny",
                                                                 adaptation="1shot")])
    assert set(rows["variant"]) == {"1shot"} and set(rows["method"]) == {"letter_prob"}
    context_of = dict(zip([it.item_id for it in subset], contexts, strict=True))
    assert (rows["context"] == rows["item_id"].map(context_of)).all()
    sums = rows.groupby("item_id")["prob"].sum()
    np.testing.assert_allclose(sums.to_numpy(), 1.0)
    assert rows.groupby("item_id")["is_label"].sum().eq(1).all()


@pytest.mark.slow
def test_report_card_command_is_wired_into_the_cli(tmp_path):
    from choicelab.studies.steer.report import shipped_rubrics

    frame = pd.DataFrame({
        "model": "m", "adaptation": "0shot", "benchmark": "steer", "split": "test",
        "item_id": [f"q{i}" for i in range(4)], "predicted_option": 0, "label_option": [0, 1, 0, 0],
        "correct": [True, False, True, True], "top_prob": 0.6, "label_prob": 0.5, "n_options": 4,
        "random_accuracy": 0.25, "element": "add_subtract", "module": "1.1", "setting": "1", "domain": "finance",
        "grade": 3, "template_id": ["add_subtract.p0", "add_subtract.p1"] * 2,
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

    figures = ["fig1", "fig3", "fig4", "fig5", "fig6", "fig16", *[f"fig{n}" for n in (*range(7, 16), *range(17, 23))]]
    expected = {f"steer/{x}" for x in ["table3", "compare_paper", *figures]}
    expected |= {f"steer/report_card_{r}" for r in ("rational_across_the_board", "foundations_only",
                                                    "single_agent_medical")}
    assert expected <= manifest_ids(smoke_run)
    questions = pd.read_parquet(smoke_run / "results" / "steer" / "metrics" / "questions.parquet")
    assert {"0shot", "1shot", "explain-separate"} <= set(questions["adaptation"])
