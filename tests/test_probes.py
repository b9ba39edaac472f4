"""Probes: invariants of the four perturbations and metrics on hand-made confidence sets."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from choicelab.items.probes import choice_paralysis, no_question, no_right_answer, wrong_question
from choicelab.items.schema import MCItem
from choicelab.metrics.probes import (
    hits_at_k,
    maxprob_selective,
    nra_confidences,
    pseudo_accuracy_test,
)


def _items(n=40):
    items = []
    for k in range(n):
        choices = [f"wrong {k}a", f"wrong {k}b"]
        choices.insert(k % 3, f"right {k}")
        items.append(MCItem("b", "dev", f"i{k}", f"prompt {k}", tuple(choices), k % 3))
    return items


def test_no_question_empties_the_prompt_and_keeps_the_choices():
    for orig, probed in zip(_items(), no_question(_items()), strict=True):
        assert probed.prompt == "" and probed.choices == orig.choices and probed.label == orig.label


def test_wrong_question_donors_are_never_the_instance_and_trials_are_seeded():
    items = _items()
    probed = wrong_question(items, trials=5, seed=1)
    assert len(probed) == 5 * len(items)
    for p in probed:
        assert p.meta["donors"] != [p.meta["original_id"]]
        assert p.prompt != next(i for i in items if i.item_id == p.meta["original_id"]).prompt
    assert wrong_question(items, 5, seed=1) == probed
    assert wrong_question(items, 5, seed=2) != probed


def test_no_right_answer_substitutes_the_correct_slot_with_a_donor_answer():
    items = _items()
    for p in no_right_answer(items, trials=5, seed=0):
        orig = next(i for i in items if i.item_id == p.meta["original_id"])
        assert p.label == orig.label == p.meta["substituted_index"]
        assert p.choices[p.label] != orig.choices[orig.label] and p.choices[p.label].startswith("right")
        assert [c for k, c in enumerate(p.choices) if k != p.label] == [c for k, c in enumerate(orig.choices) if k != orig.label]


@pytest.mark.parametrize("n", [5, 10, 15])
def test_choice_paralysis_keeps_the_correct_answer_unique_among_n(n):
    items = _items()
    probed = choice_paralysis(items, n=n, trials=5, instances=10, seed=0)
    assert len(probed) == 50
    for p in probed:
        orig = next(i for i in items if i.item_id == p.meta["original_id"])
        assert len(p.choices) == n and len(set(p.choices)) == n
        assert p.choices[p.label] == orig.choices[orig.label]
        assert orig.item_id not in p.meta["donors"]
    assert len({p.label for p in probed}) > 1  # the correct position is shuffled


def test_heuristic_sampling_draws_donors_from_the_most_similar_answers():
    items = _items(30)
    prompts = np.tile([1.0, 0.0], (30, 1))
    answers = np.tile([0.0, 1.0], (30, 1))
    similar = {f"i{k}" for k in range(10, 22)}  # 12 = 3 (n - 1) answers point along item 0's prompt
    for k in range(10, 22):
        answers[k] = [1.0, 0.0]
    probed = choice_paralysis(items, n=5, trials=3, instances=30, seed=0, sampling="heuristic",
                              answer_embeddings=answers, prompt_embeddings=prompts)
    first = [p for p in probed if p.meta["original_id"] == "i0"]
    assert first and all(set(p.meta["donors"]) <= similar for p in first)
    assert len({tuple(p.meta["donors"]) for p in first}) > 1  # trials differ


def _conf(rows):
    return pd.DataFrame([{"item_id": i, "probs": np.array(p), "label": lab, "pred": int(np.argmax(p)),
                          "n_choices": len(p), "original_id": o} for i, p, lab, o in rows])


def test_hits_at_n_is_one_and_hits_at_1_is_accuracy():
    conf = _conf([("a", [0.7, 0.2, 0.1], 1, "a"), ("b", [0.1, 0.2, 0.7], 2, "b")])
    assert hits_at_k(conf, 3) == 1.0
    assert hits_at_k(conf, 1) == 0.5
    assert hits_at_k(conf, 2) == 1.0


def test_maxprob_threshold_is_the_mean_of_the_fitting_half():
    threshold, acc = maxprob_selective([0.9, 0.9, 0.9, 0.9], [0.3, 0.3, 0.3, 0.3], seed=0)
    assert 0.3 <= threshold <= 0.9
    assert threshold in {0.3, 0.45, 0.6, 0.75, 0.9}  # the mean of 4 values drawn from {0.9 x4, 0.3 x4}
    assert acc == 1.0 or threshold in {0.3, 0.9}


def test_nra_confidence_arithmetic():
    original = _conf([("x", [0.6, 0.3, 0.1], 0, "x")])
    nra = _conf([("x/nra/t0", [0.2, 0.5, 0.3], 0, "x")])
    out = nra_confidences(original, nra)
    assert out["ANC"] == pytest.approx(0.2) and out["ANC'"] == pytest.approx(0.4)
    assert out["RAC"] == pytest.approx(0.6) and out["SAC"] == pytest.approx(0.2)
    assert out["ANC'-SAC"] == pytest.approx(0.2)


def test_an_untrained_scorer_sits_near_chance():
    rng = np.random.default_rng(0)
    rows = []
    for k in range(400):
        p = rng.dirichlet(np.ones(3))
        rows.append((f"i{k}", list(p), int(rng.integers(3)), f"i{k}"))
    result = pseudo_accuracy_test(_conf(rows))
    assert result["chance"] == pytest.approx(1 / 3)
    assert not result["significant"]
    assert abs(result["pseudo_accuracy"] - 1 / 3) < 0.08


def test_smoke_dag_produces_every_probes_artifact(smoke_run):
    from conftest import manifest_ids

    expected = {f"probes/{x}" for x in ("table1", "table2", "fig3", "fig4", "fig5", "fig6", "compare_paper",
                                         "table_accuracy", "table_nra", "table_choice_paralysis",
                                         "table_label_balance", "table_lengths", "table_overlap",
                                         "robustness_matrix", "fig_robustness_matrix", "table_timing")}
    assert expected <= manifest_ids(smoke_run)
    accuracy = pd.read_csv(smoke_run / "results" / "probes" / "tables" / "table_accuracy.csv")
    assert set(accuracy["benchmark"]) == {"aNLI", "HellaSwag", "PIQA", "SocialIQA"}
    hellaswag = accuracy[accuracy["benchmark"] == "HellaSwag"].iloc[0]
    assert "split of dev" in hellaswag["fine_tuned_on"]  # the table says HellaSwag had no train file


def test_robustness_matrix_covers_encoders_and_causal_scorers(smoke_run):
    matrix = pd.read_csv(smoke_run / "results" / "probes" / "tables" / "robustness_matrix.csv")
    assert {"mc_logit", "letter_prob", "sum_logprob"} <= set(matrix["method"])
    assert {"No-Question", "Wrong-Question", "No-Right-Answer", "original (accuracy)"} <= set(matrix["probe"])
    assert (matrix["ci95_low"] <= matrix["minus_chance"] + 1e-12).all()
    assert (matrix["minus_chance"] <= matrix["ci95_high"] + 1e-12).all()
    # every multiple-choice benchmark the workflow builds is probed, not only the commonsense sets
    assert {"anli", "bets_value_cv", "bets_bet_coin", "steer", "pragmatics"} <= set(matrix["benchmark"])


def test_choice_paralysis_is_skipped_when_a_benchmark_has_too_few_distinct_answers():
    """The bets questions share three fixed answers: no n=5 instance can be built, and the other probes still run."""
    from choicelab.items.bets import question_set
    from choicelab.pipelines.probes import probe_all

    items = question_set("bet_coin", "test")
    probed = probe_all(items, trials=1, cp_n=[5], cp_instances=4, cp_sampling=["random"], seed=0)
    probes = {it.meta["probe"] for it in probed}
    assert "cp" not in probes and {"orig", "nq"} <= probes


def test_prompt_to_prompt_heuristic_ranks_donors_by_their_prompts():
    """heuristic_prompt draws donors among those whose prompts are nearest the target's (spec Sec. 2.3); the
    paper's heuristic among those whose correct answers are nearest the target's prompt."""
    from choicelab.items.probes import choice_paralysis
    from choicelab.items.schema import MCItem

    items = [MCItem("toy", "dev", f"i{k}", f"prompt {k}", (f"right {k}", f"wrong {k}"), 0) for k in range(8)]
    angle = np.arange(8) * 0.1
    prompts = np.stack([np.cos(angle), np.sin(angle)], axis=1)  # prompt j moves away from prompt 0 as j grows
    answers = np.stack([np.cos(angle[::-1]), np.sin(angle[::-1])], axis=1)  # answer j nears prompt 0 as j grows

    def donors_of_item0(sampling):
        probed = choice_paralysis(items, 2, trials=5, instances=8, seed=0, sampling=sampling,
                                  answer_embeddings=answers, prompt_embeddings=prompts)
        return {d for it in probed if it.meta["original_id"] == "i0" for d in it.meta["donors"]}

    assert donors_of_item0("heuristic_prompt") <= {"i1", "i2", "i3"}
    assert donors_of_item0("heuristic") <= {"i5", "i6", "i7"}
