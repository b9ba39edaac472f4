"""Probes: invariants of the four perturbations and metrics on hand-made confidence sets."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from choicelab.lm.recipe import Recipe
from choicelab.mc.items import MCItem
from choicelab.studies.probes.metrics import (
    hits_at_k,
    maxprob_selective,
    nra_confidences,
    pseudo_accuracy_test,
)
from choicelab.studies.probes.perturbations import choice_paralysis, no_question, no_right_answer, wrong_question


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
        assert [c for k, c in enumerate(p.choices) if k != p.label] == [
            c for k, c in enumerate(orig.choices) if k != orig.label
        ]


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


def test_heuristic_sampling_takes_the_n_minus_1_answers_most_similar_to_the_prompt_in_every_trial():
    items = _items(30)
    prompts = np.tile([1.0, 0.0], (30, 1))
    angle = np.linspace(1.5, 0.0, 30)  # answer k moves towards the prompts' direction as k grows
    answers = np.stack([np.cos(angle), np.sin(angle)], axis=1)
    probed = choice_paralysis(items, n=5, trials=3, instances=30, seed=0, sampling="heuristic",
                              answer_embeddings=answers, prompt_embeddings=prompts)
    first = [p for p in probed if p.meta["original_id"] == "i0"]
    assert len(first) == 3  # all 30 instances in each of the 3 trials
    assert all(sorted(p.meta["donors"]) == ["i26", "i27", "i28", "i29"] for p in first)  # deterministic top 4


def test_choice_paralysis_redraws_its_instances_in_every_trial():
    items = _items(40)
    probed = choice_paralysis(items, n=5, trials=5, instances=8, seed=0)
    per_trial = [{p.meta["original_id"] for p in probed if p.meta["trial"] == t} for t in range(5)]
    assert all(len(s) == 8 for s in per_trial)
    assert len(set.union(*per_trial)) > 8  # the paper draws 50 instances afresh in each of its 5 repeats


def _conf(rows):
    return pd.DataFrame([{"item_id": i, "probs": np.array(p), "label": lab, "pred": int(np.argmax(p)),
                          "n_choices": len(p), "original_id": o} for i, p, lab, o in rows])


def test_hits_at_n_is_one_and_hits_at_1_is_accuracy():
    conf = _conf([("a", [0.7, 0.2, 0.1], 1, "a"), ("b", [0.1, 0.2, 0.7], 2, "b")])
    assert hits_at_k(conf, 3) == 1.0
    assert hits_at_k(conf, 1) == 0.5
    assert hits_at_k(conf, 2) == 1.0


def test_maxprob_threshold_and_accuracy_on_a_constructed_confidence_set():
    """Originals at 0.8 and perturbed versions at 0.6: whatever the split, the threshold is the 1:1 mean 0.7 and
    every held-out decision is right."""
    ids = [f"i{k}" for k in range(20)]
    out = maxprob_selective({i: 0.8 for i in ids}, {i: 0.6 for i in ids}, seed=3)
    assert out["threshold"] == pytest.approx(0.7)
    assert out["accuracy"] == 1.0
    assert out["fit_instances"] == out["eval_instances"] == 10


def test_maxprob_cannot_beat_chance_when_perturbing_leaves_max_prob_unchanged():
    """Split by instance, 1:1: an instance whose original and perturbed max-prob agree gives one right and one wrong
    decision whatever the threshold, so the accuracy is exactly 0.5 (pooling values scored ~0.83 here)."""
    rng = np.random.default_rng(0)
    values = {f"i{k}": float(v) for k, v in enumerate(rng.uniform(0.5, 1.0, 50))}
    for seed in range(5):
        assert maxprob_selective(values, values, seed=seed)["accuracy"] == 0.5


def test_table2_averages_maxprob_over_trials_with_a_standard_error():
    from choicelab.studies.probes.tables import table2

    rows = []
    for k in range(40):
        rows.append({"model": "m", "benchmark": "piqa", "probe": "orig", "trial": 0, "original_id": f"i{k}",
                     "max_prob": 0.9})
        rows.append({"model": "m", "benchmark": "piqa", "probe": "nq", "trial": 0, "original_id": f"i{k}",
                     "max_prob": 0.5})
        for t in range(5):
            rows.append({"model": "m", "benchmark": "piqa", "probe": "wq", "trial": t, "original_id": f"i{k}",
                         "max_prob": 0.9 if k % 2 else 0.5})
    table = table2(pd.DataFrame(rows), seed=0).set_index("probe")
    assert table.loc["nq", "threshold"] == pytest.approx(0.7) and table.loc["nq", "accuracy"] == 1.0
    assert table.loc["wq", "repeats"] == 5 and table.loc["wq", "eval_instances"] == 20
    wq = table.loc["wq"]
    assert 0.5 < wq["accuracy"] < 1.0 and wq["accuracy_repeats_low"] <= wq["accuracy"] <= wq["accuracy_repeats_high"]
    assert table.loc["nq", "accuracy_ci95_low"] < 1.0  # an exact binomial interval, never of zero width


def test_nra_confidence_arithmetic():
    original = _conf([("x", [0.6, 0.3, 0.1], 0, "x")])
    nra = _conf([("x/nra/t0", [0.2, 0.5, 0.3], 0, "x")])
    out = nra_confidences(original, nra)
    assert out["ANC"] == pytest.approx(0.2) and out["ANC'"] == pytest.approx(0.4)
    assert out["RAC"] == pytest.approx(0.6) and out["SAC"] == pytest.approx(0.2)
    assert out["ANC'-SAC"] == pytest.approx(0.2)
    assert np.isnan(out["ANC'-SAC_ci95_low"])  # one instance: no interval


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
                                         "robustness_matrix", "fig_robustness_matrix", "table_timing",
                                         "table_hits_at_k", "table_controls")}
    assert expected <= manifest_ids(smoke_run)
    accuracy = pd.read_csv(smoke_run / "results" / "probes" / "tables" / "table_accuracy.csv")
    assert set(accuracy["benchmark"]) == {"aNLI", "HellaSwag", "PIQA", "SocialIQA"}
    hellaswag = accuracy[accuracy["benchmark"] == "HellaSwag"].iloc[0]
    assert "split of dev" in hellaswag["fine_tuned_on"]  # the table says HellaSwag had no train file
    assert accuracy["model_selection"].str.contains("held-out").all()  # never selected on the evaluation set
    # every seed's checkpoint, the seeds' ensemble and their mean, each with its competence verdict
    assert {"tiny-bert seed 1234", "tiny-bert seed 1235", "tiny-bert ensemble of 2 seeds",
            "tiny-bert mean of 2 seeds"} <= set(accuracy["model"])
    assert accuracy["model_competence"].fillna("").str.len().gt(0).all()
    controls = pd.read_csv(smoke_run / "results" / "probes" / "tables" / "table_controls.csv")
    assert (controls["condition"] == "control").any() and controls["status"].str.startswith("not run").any()


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
    from choicelab.studies.bets.items import question_set
    from choicelab.studies.probes.items import probe_all

    items = question_set("bet_coin", "test")
    probed = probe_all(items, trials=1, cp_n=[5], cp_instances=4, cp_sampling=["random"], seed=0)
    probes = {it.meta["probe"] for it in probed}
    assert "cp" not in probes and {"orig", "nq"} <= probes


def test_prompt_to_prompt_heuristic_ranks_donors_by_their_prompts():
    """heuristic_prompt draws donors among those whose prompts are nearest the target's (spec Sec. 2.3); the
    paper's heuristic among those whose correct answers are nearest the target's prompt."""
    from choicelab.mc.items import MCItem
    from choicelab.studies.probes.perturbations import choice_paralysis

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


def test_exact_interval_keeps_a_width_when_three_items_agree():
    from choicelab.stats import exact_interval

    low, high = exact_interval(3, 3)
    assert low == pytest.approx(0.025 ** (1 / 3)) and high == 1.0  # Clopper-Pearson: [0.29, 1]
    low, high = exact_interval(0, 3)
    assert low == 0.0 and high == pytest.approx(1 - 0.025 ** (1 / 3))
    low, _ = exact_interval(1, 1)
    assert low == pytest.approx(0.025)  # one right answer among 5 choices is no evidence against chance 0.2


def test_robustness_matrix_counts_instances_once_and_marks_cells_that_cover_chance():
    from choicelab.studies.probes.tables import robustness_matrix

    rows = []
    for k in range(3):  # three instances, two Wrong-Question trials each, always the pseudo-correct option
        for t in range(2):
            rows.append({"item_id": f"i{k}/wq/t{t}", "benchmark": "anli", "model": "m", "method": "mc_logit",
                         "probe": "wq", "trial": t, "n": None, "sampling": None, "original_id": f"i{k}",
                         "probs": np.array([0.9, 0.1]), "label": 0, "pred": 0, "n_choices": 2, "p_label": 0.9})
    cell = robustness_matrix(pd.DataFrame(rows)).iloc[0]
    assert cell["instances"] == 3 and cell["rows"] == 6
    assert cell["minus_chance"] == pytest.approx(0.5)
    assert cell["ci95_low"] < 0 < cell["ci95_high"] and cell["covers_zero"]  # 3 of 3 is not evidence of bias


def test_overlap_statistic_correlates_word_frequencies_of_selected_and_other_choices():
    from choicelab.studies.probes.metrics import overlap_correlation, overlap_frequencies

    prompts = ["the cat sat on the mat", "a dog ran in the park", "the sun is hot"]
    choices = [["the cat is on the mat", "a bird flew"], ["the dog is in the park", "the dog ran"],
               ["the sun", "is the sun hot"]]
    chosen, other = overlap_frequencies(prompts, choices, [0, 0, 1])
    assert chosen == {"the": 5, "cat": 1, "on": 1, "mat": 1, "dog": 1, "in": 1, "park": 1, "sun": 1, "is": 1,
                      "hot": 1}
    assert other == {"the": 2, "dog": 1, "ran": 1, "sun": 1}
    stat = overlap_correlation(prompts, choices, [0, 0, 1])
    vocabulary = sorted(set(chosen) | set(other))
    x = np.array([chosen[w] for w in vocabulary], float)
    y = np.array([other[w] for w in vocabulary], float)
    assert stat["pearson_r"] == pytest.approx(np.corrcoef(x, y)[0, 1])
    assert stat["vocabulary"] == 11


def test_lengths_are_counted_in_words():
    from choicelab.studies.probes.tables import length_table

    conf = pd.DataFrame([{"model": "m", "benchmark": "piqa", "probe": "orig", "original_id": f"i{k}",
                          "pred": 0, "label": 0} for k in range(4)])
    items = pd.DataFrame({"item_id": [f"i{k}" for k in range(4)],
                          "choices": [["one two three", "one"]] * 4})
    row = length_table(conf, items).iloc[0]
    assert row["selected_words"] == 3 and row["other_words"] == 1 and row["instances"] == 4


def _wq_frame(n_instances, trials, hit, p_nq, p_wq, p_orig, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for k in range(n_instances):
        rows.append({"probe": "orig", "trial": 0, "original_id": f"i{k}", "label": 0, "pred": 0, "n_choices": 2,
                     "p_label": p_orig})
        rows.append({"probe": "nq", "trial": 0, "original_id": f"i{k}", "label": 0, "pred": 0, "n_choices": 2,
                     "p_label": p_nq + rng.normal(0, 0.01)})
        for t in range(trials):
            h = rng.random() < hit
            rows.append({"probe": "wq", "trial": t, "original_id": f"i{k}", "label": 0, "pred": 0 if h else 1,
                         "n_choices": 2, "p_label": p_wq + rng.normal(0, 0.01)})
    return pd.DataFrame(rows)


def test_table1_significance_tests_detect_a_strong_prior_bias_and_not_chance_behaviour():
    from choicelab.studies.probes.metrics import wrong_question_tests

    biased = _wq_frame(200, 5, hit=0.75, p_nq=0.7, p_wq=0.65, p_orig=0.9)
    out = wrong_question_tests(*(biased[biased["probe"] == p] for p in ("orig", "nq", "wq")))
    assert out["n"] == 200 and out["trials"] == 5
    assert out["pseudo_accuracy_vs_chance_significant_99"] and out["pseudo_accuracy_vs_before_significant_99"]
    assert out["confidence_difference_gt0_significant_99"] and out["confidence_difference"] == pytest.approx(
        0.05, abs=0.01
    )
    assert out["confidence_vs_before_significant_99"] and out["confidence_vs_ideal_significant_99"]
    fair = _wq_frame(200, 5, hit=0.5, p_nq=0.5, p_wq=0.5, p_orig=0.5, seed=1)
    out = wrong_question_tests(*(fair[fair["probe"] == p] for p in ("orig", "nq", "wq")))
    assert not out["confidence_difference_gt0_significant_99"] and not out["confidence_vs_ideal_significant_99"]


def test_table1_gives_the_avg_confidence_difference_its_paired_interval_over_instances():
    from choicelab.studies.probes.paper import compare_paper
    from choicelab.studies.probes.tables import confidence_difference, table1

    frame = _wq_frame(200, 5, hit=0.75, p_nq=0.7, p_wq=0.65, p_orig=0.9).assign(model="enc", benchmark="piqa")
    row = table1(frame).iloc[0]
    assert row["avg_confidence_difference"] == pytest.approx(0.05, abs=0.01)
    assert row["avg_confidence_difference_n"] == 200
    # noise SD 0.01 per NQ item and 0.01/sqrt(5) per instance's WQ mean: SE ~ 0.011/sqrt(200), half-width ~1.97 SE
    half = (row["avg_confidence_difference_high"] - row["avg_confidence_difference_low"]) / 2
    assert half == pytest.approx(1.97 * 0.011 / np.sqrt(200), rel=0.25)
    nq = pd.DataFrame({"original_id": ["a", "b"], "p_label": [0.9, 0.5]})
    wq = pd.DataFrame({"original_id": ["a", "a", "b", "b"], "p_label": [0.7, 0.5, 0.4, 0.4]})
    mean, low, high, n = confidence_difference(nq, wq)  # per instance 0.3 and 0.1: SE 0.1 on one degree of freedom
    assert (mean, n) == (pytest.approx(0.2), 2) and high - mean == pytest.approx(12.706 * 0.1, rel=1e-3)
    paper1 = pd.DataFrame({"benchmark": ["PIQA"], "avg_confidence_difference": [0.1], "wq_pseudo_accuracy": [0.6]})
    compared = compare_paper(table1(frame), pd.DataFrame(), paper1, pd.DataFrame(columns=["benchmark", "probe"]))
    drawn = compared[compared["quantity"] == "avg confidence difference"].iloc[0]
    assert drawn["ours_low"] == row["avg_confidence_difference_low"] and drawn["instances"] == 200
    assert drawn["ours_interval"] == "paired t over instances"


def test_hits_at_k_table_has_every_k_up_to_n_and_the_original_accuracy():
    from choicelab.studies.probes.tables import hits_at_k_table

    rows = [{"model": "m", "benchmark": "anli", "probe": "orig", "original_id": f"i{k}", "trial": 0,
             "probs": np.array([0.6, 0.4]), "label": 0, "pred": 0, "n_choices": 2, "n": None, "sampling": None}
            for k in range(4)]
    for t in range(2):
        for k in range(4):
            probs = np.array([0.1, 0.2, 0.3, 0.15, 0.25])  # the correct option (0) ranks last
            rows.append({"model": "m", "benchmark": "anli", "probe": "cp", "original_id": f"i{k}", "trial": t,
                         "probs": probs, "label": 0, "pred": 2, "n_choices": 5, "n": 5, "sampling": "random"})
    table = hits_at_k_table(pd.DataFrame(rows))
    assert list(table["k"]) == [1, 2, 3, 4, 5]
    assert list(table["hits_at_k"]) == [0, 0, 0, 0, 1]
    assert (table["original_accuracy"] == 1.0).all() and (table["ci95_high"] > 0).all()


def test_finetune_dropout_sets_the_multiple_choice_heads_dropout_and_leaves_the_encoder(tmp_path, monkeypatch):
    """``finetune.dropout`` (isi-nlp/ai2: 0.3) applies to the dropout before the MC head, as in the ai2 model."""
    from choicelab.lm import encoder
    from choicelab.lm.prepare import prepare_model
    from choicelab.mc.finetune import CheckpointOut, TrainingData, fine_tune_checkpoint
    from conftest import toy_items

    seen = {}
    real = encoder._FineTune._train

    def spy(self, *args, **kwargs):  # the model as the training steps find it
        inside = {id(m) for m in self.model.base_model.modules()}
        seen["head"] = [m.p for m in self.model.modules() if type(m).__name__ == "Dropout" and id(m) not in inside]
        seen["encoder"] = {m.p for m in self.model.base_model.modules() if type(m).__name__ == "Dropout"}
        return real(self, *args, **kwargs)

    monkeypatch.setattr(encoder._FineTune, "_train", spy)
    base = tmp_path / "tiny-bert"
    prepare_model("tiny-bert", {"kind": "encoder", "source": "random:bert"}, base, seed=0)
    params = Recipe(learning_rate=1e-3, batch_size=8, max_epochs=1, seed=0, dropout=0.3, input_format="pair",
                    max_length=128)
    meta = fine_tune_checkpoint(base, TrainingData(toy_items(16, 0, "train", 2), toy_items(8, 1, "dev", 2)), params,
                                CheckpointOut(tmp_path / "ckpt", "tiny-bert__toy"), device="cpu")
    assert seen["head"] == [0.3] and 0.3 not in seen["encoder"]
    assert meta["training"]["params"]["dropout"] == 0.3


def test_model_selection_uses_a_held_out_slice_of_train_never_the_evaluation_set(data_mirror):
    from choicelab.studies.probes.items import benchmark_splits, train_roles

    train, dev = benchmark_splits("piqa", root=str(data_mirror), full_root="unused", train_data="mirror",
                                  train_size=100, dev_size=30, dev_train_fraction=0.5, heldout_fraction=0.1, seed=0)
    fit, heldout = train_roles(train)
    assert len(fit) == 90 and len(heldout) == 10
    assert heldout == list(train[-10:])  # the last rows, as isi-nlp/ai2's internal-dev
    assert not {it.item_id for it in train} & {it.item_id for it in dev}
    assert "held-out 10% of train" in heldout[0].meta["selection"]
    hs_train, hs_dev = benchmark_splits("hellaswag", root=str(data_mirror), full_root="unused", train_data="mirror",
                                        train_size=50, dev_size=20, dev_train_fraction=0.5, heldout_fraction=0.1,
                                        seed=0)
    assert not {it.item_id for it in hs_train} & {it.item_id for it in hs_dev}
    assert "split of dev" in hs_train[0].meta["train_source"]


def test_controls_table_puts_untrained_heads_beside_fine_tuned_models_and_lists_unrun_paper_controls():
    from choicelab.studies.probes.scoring import control_name
    from choicelab.studies.probes.tables import controls_table

    def frame(model, hit_rate):
        rows = []
        for b in ("anli", "piqa"):
            for k in range(20):
                hit = k < 20 * hit_rate
                for probe in ("orig", "nq"):
                    rows.append({"benchmark": b, "model": model, "method": "mc_logit", "probe": probe, "trial": 0,
                                 "n": None, "sampling": None, "original_id": f"{b}{k}", "label": 0,
                                 "pred": 0 if hit else 1, "n_choices": 2, "p_label": 0.5})
        return pd.DataFrame(rows)

    paper = pd.read_csv("data/probes/paper/controls.csv")
    table = controls_table(frame(control_name("roberta-large"), 0.5), frame("roberta-large", 0.9), paper)
    control = table[(table["paper_control"] == "pre-trained RoBERTa") & (table["benchmark"] == "aNLI")
                    & (table["probe"] == "original (accuracy)")].iloc[0]
    assert control["model"] == "roberta-large" and control["paper"] == 0.51 and control["covers_chance"]
    assert control["instances"] == 20 and control["ci95_low"] < 0.5 < control["ci95_high"]
    tuned = table[(table["condition"] == "fine-tuned") & (table["benchmark"] == "aNLI")
                  & (table["probe"] == "original (accuracy)")].iloc[0]
    assert not tuned["covers_chance"]
    unified = table[table["paper_control"].str.startswith("UnifiedQA")]
    assert len(unified) == (paper["control"].str.startswith("UnifiedQA")).sum()
    assert unified["status"].str.startswith("not run").all()  # listed, never silently skipped
    assert ((table["benchmark"] == "all") & (table["condition"] == "control")).any()


def test_heat_map_hatches_cells_whose_interval_covers_zero():
    from choicelab.studies.probes.figures import robustness_heatmap

    matrix = pd.DataFrame([
        {"benchmark": "anli", "model": "m", "method": "mc_logit", "probe": "No-Question", "minus_chance": 0.5,
         "covers_zero": True, "instances": 3},
        {"benchmark": "anli", "model": "m", "method": "mc_logit", "probe": "Wrong-Question", "minus_chance": 0.3,
         "covers_zero": False, "instances": 200},
    ])
    fig = robustness_heatmap(matrix)
    ax = fig.axes[0]
    texts = [t.get_text() for t in ax.texts]
    assert "(+0.50)\nn=3" in texts and "+0.30\nn=200" in texts
    assert [p.get_hatch() for p in ax.patches] == ["///"]
    shown = ax.images[0].get_array()
    assert np.ma.is_masked(shown[0, 0]) or np.isnan(shown[0, 0])  # no colour for the covers-zero cell


def test_unifiedqa_control_reads_the_unifiedqa_format_and_scores_each_choice_by_the_decoder():
    """Sec. 4.2: UnifiedQA (T5) is probed without fine-tuning; its input is ``question \\n (a) .. (b) ..``."""
    from choicelab.lm.seq2seq import Seq2SeqScorer
    from choicelab.mc.scoring import score_sequences
    from choicelab.studies.probes.paper import paper_control
    from choicelab.studies.probes.scoring import control_name, unifiedqa_input, unifiedqa_items
    from conftest import tiny_t5

    assert unifiedqa_input("How do you turn on an iPad?", ["Press Volume.", "Press Lock."]) == \
        "how do you turn on an ipad? \\n (a) press volume. (b) press lock."
    assert unifiedqa_input("", ["A", "B", "C"]).startswith(" \\n (a) a (b) b (c) c")  # No-Question
    assert paper_control("unifiedqa-t5-11b") == "UnifiedQA (unifiedqa-t5-11b)"
    model, tokenizer = tiny_t5(0)
    items = unifiedqa_items(_items(3))
    rows = score_sequences(Seq2SeqScorer(model, tokenizer, mode="decoder"), items, study="probes",
                           model=control_name("unifiedqa-t5-11b"))
    assert len(rows) == 9 and {r.context for r in rows} == {it.prompt for it in items}
    first = [r for r in rows if r.item_id == "i0"]
    assert sum(r.prob for r in first) == pytest.approx(1.0)


# -- the package's settings and artifact table ----------------------------------------------------------------


def test_a_key_left_out_takes_the_schemas_default_and_nothing_else(tmp_path):
    """Defaults live in the schema only: a config without finetune.max_length runs with the schema's 128; the
    settings read a validated config and never fill a key themselves."""
    import copy
    from pathlib import Path

    import yaml

    from choicelab.config import validate_config
    from choicelab.studies import study_settings

    smoke = yaml.safe_load((Path(__file__).resolve().parent.parent / "configs" / "smoke.yaml").read_text())
    settings = study_settings(smoke, "probes")
    assert settings.finetune.max_length == 64 and settings.cp_n == (5, 10)
    partial = copy.deepcopy(smoke)
    del partial["studies"]["probes"]["finetune"]["max_length"], partial["studies"]["probes"]["causal_items"]
    with pytest.raises(KeyError, match="studies.probes.causal_items"):
        study_settings(partial, "probes")
    validate_config(partial)
    filled = study_settings(partial, "probes")
    assert filled.finetune.max_length == 128 and filled.causal_items is None
    del partial["studies"]["probes"]  # no section: the study switched off, every other key the schema's default
    off = study_settings(partial, "probes")
    assert not off.enabled and off.models == () and off.finetune.max_length == 128


def test_every_artifact_names_its_builders_arguments_and_the_rules_are_served_by_the_one_adapter():
    from choicelab.studies import study_of_rule
    from choicelab.studies.probes.artifacts import ARGUMENTS, ARTIFACT_BY_NAME, ARTIFACTS, BUILDERS

    inputs = {"conf", "seed", "trials", "train_info", "dev", "paper1", "paper2", "timings", "control", "fine_tuned",
              "paper", "gate", "training"}
    assert set(ARGUMENTS) == set(ARTIFACT_BY_NAME) == set(BUILDERS)
    assert all(arg in inputs or arg in ARTIFACT_BY_NAME for args in ARGUMENTS.values() for arg in args)
    assert all(a.builder is not None and a.reproduces for a in ARTIFACTS)
    assert all(study_of_rule(a.rule) == "probes" for a in ARTIFACTS)
    assert {a.id("probes") for a in ARTIFACTS} == {f"probes/{name}" for name in ARTIFACT_BY_NAME}


def test_a_job_builds_a_table_another_artifact_reads_once(monkeypatch):
    """Fig. 4 is drawn from table_nra's frame: a job writing both builds the table once."""
    from choicelab.studies.probes import artifacts

    calls = []
    monkeypatch.setitem(artifacts.BUILDERS, "table_nra", lambda conf: calls.append(conf) or "frame")
    monkeypatch.setitem(artifacts.BUILDERS, "fig4", lambda nra: ("fig", nra))
    sources = artifacts.Sources({"conf": "c"})
    assert [sources.value("table_nra"), sources.value("fig4")] == ["frame", ("fig", "frame")]
    assert calls == ["c"]


def test_the_one_writer_writes_a_probes_table_with_its_footnote_and_caption(tmp_path):
    """A table's Markdown has 3 decimals and the job's footnote below it; its sidecars carry the probes id and a
    caption naming the job's models and the footnote."""
    import json

    import pandas as pd

    from choicelab.artifacts import write_artifacts
    from choicelab.studies.probes import artifacts

    timings = pd.DataFrame({"benchmark": "piqa", "model": "tiny-bert", "n": [5, 15], "seconds": [1.0, 3.0],
                            "instances": [10, 10]})
    sources = artifacts.Sources({"timings": timings}, models="tiny-bert", footnote="seed 1234")
    outputs = [str(tmp_path / "table_timing.csv"), str(tmp_path / "table_timing.md")]
    written = write_artifacts("probes", artifacts.ARTIFACTS, sources, outputs, rule="probes_timing_table",
                              record={}, caption=artifacts.caption)
    assert [a.name for a in written] == ["table_timing"]
    markdown = (tmp_path / "table_timing.md").read_text()
    assert markdown.endswith("\n\nseed 1234\n")
    sidecar = json.loads((tmp_path / "table_timing.md.prov.json").read_text())
    assert sidecar["artifact"]["id"] == "probes/table_timing"
    assert sidecar["artifact"]["caption"].endswith("; models: tiny-bert. (seed 1234)")


OTHER_BENCHMARKS = ("steer", "bets_value_cv", "bets_bet_coin", "pragmatics")  # other studies' MC benchmarks


def _jobs(mutate=None, mirror="/mirror"):
    from pathlib import Path

    import yaml

    from choicelab.config import validate_config
    from choicelab.studies.probes.jobs import Jobs

    config = yaml.safe_load((Path(__file__).resolve().parent.parent / "configs" / "smoke.yaml").read_text())
    config["data_mirror"] = mirror  # None: no mirror, the download rules' folder
    if mutate:
        mutate(config)
    validate_config(config)
    jobs = Jobs.from_config(config, Path(__file__).resolve().parents[1])
    return dataclasses.replace(jobs, mc_benchmarks={name: f"{name}.parquet" for name in OTHER_BENCHMARKS})


def test_a_benchmark_job_declares_the_mirror_files_it_reads_and_the_full_release_when_asked():
    from types import SimpleNamespace

    piqa = SimpleNamespace(benchmark="piqa")
    assert _jobs().source_files(piqa) == ["/mirror/commonsense/piqa/dev.jsonl",
                                          "/mirror/commonsense/piqa/dev-labels.lst",
                                          "/mirror/commonsense/piqa/train.jsonl",
                                          "/mirror/commonsense/piqa/train-labels.lst"]
    full = _jobs(lambda c: c["studies"]["probes"].update(train_data="full"), mirror=None)
    assert full.source_files(piqa)[-2:] == ["results/downloads/commonsense/piqa/full/train.jsonl",
                                            "results/downloads/commonsense/piqa/full/train-labels.lst"]


def test_settings_travel_as_json_params_and_jobs_name_a_bad_selection():
    from choicelab.config import ConfigError
    from choicelab.settings import field

    jobs = _jobs()
    assert field(jobs.settings, "finetune.max_length") == 64  # the encoders' scoring bound: the fine-tuning max_length
    assert field(jobs.settings, "finetune")["learning_rate"] == 0.001  # a nested section travels as a dict
    assert field(jobs.settings, "finetune")["max_epochs"] == 1  # a number as written (checkpoints record it so)
    # the smoke config's selection, in the workflow's order: the commonsense benchmarks first, then the others by name
    assert jobs.causal_benchmarks() == ["anli", "bets_bet_coin", "bets_value_cv", "pragmatics", "steer"]
    assert jobs.control_models() == ["tiny-bert"]  # null: the fine-tuned encoders' base models
    bad = _jobs(lambda c: c["studies"]["probes"].update(causal_benchmarks=["anli", "stear"]))
    with pytest.raises(ConfigError, match=r"studies\.probes\.causal_benchmarks.*'stear'"):
        bad.causal_benchmarks()
    causal = _jobs(lambda c: c["studies"]["probes"].update(control_models=["tiny-llama"]))
    with pytest.raises(ValueError, match="control_models.*a causal model"):
        causal.control_models()


def _orig_conf(model, benchmark, hits, n_choices=2, seed_offset=0):
    """Original-item confidence rows of one model: item i is answered right when hits[i]."""
    import numpy as np

    rows = []
    for i, hit in enumerate(hits):
        probs = np.full(n_choices, 0.1 / (n_choices - 1))
        probs[0 if hit else 1] = 0.9
        rows.append({"model": model, "method": "mc_logit", "benchmark": benchmark, "item_id": f"{benchmark}-{i}/orig",
                     "probs": probs, "label": 0, "pred": int(np.argmax(probs)), "p_label": float(probs[0]),
                     "max_prob": 0.9, "n_choices": n_choices, "probe": "orig", "trial": 0, "n": None,
                     "sampling": None, "original_id": f"{benchmark}-{i}"})
    return rows


def test_a_checkpoint_whose_interval_covers_chance_is_marked_in_every_table_built_on_it():
    import pandas as pd

    from choicelab.studies.probes.competence import NOT_ABOVE_CHANCE, NOT_ABOVE_CONTROL, OK, competence, mark

    learned = _orig_conf("enc seed 1", "piqa", [True] * 45 + [False] * 15)  # 0.75 of 60: interval clears 1/2
    guessing = _orig_conf("enc seed 2", "piqa", [True, False] * 30)  # 0.5 of 60: covers 1/2
    control = _orig_conf("enc (control)", "piqa", [True] * 10 + [False] * 10)
    conf = pd.DataFrame(learned + guessing + _orig_conf("causal-lm", "piqa", [True] * 60))
    gate = competence(conf, pd.DataFrame(control)).set_index("model")
    assert set(gate.index) == {"enc seed 1", "enc seed 2"}  # models that were not fine-tuned get no verdict
    assert gate.loc["enc seed 1", "model_competence"] == OK and bool(gate.loc["enc seed 1", "above_control"])
    assert gate.loc["enc seed 2", "model_competence"] == NOT_ABOVE_CHANCE
    assert gate.loc["enc seed 1", "control_items"] == 20 and gate.loc["enc seed 1", "control_accuracy"] == 0.5
    # a checkpoint above chance but not above its untrained-head control is marked too
    strong_control = pd.DataFrame(_orig_conf("enc (control)", "piqa", [True] * 19 + [False]))
    assert competence(conf, strong_control).set_index("model").loc["enc seed 1", "model_competence"] == \
        NOT_ABOVE_CONTROL
    # any table row built on a checkpoint carries its verdict; the paper's benchmark names are matched too
    table = pd.DataFrame({"benchmark": ["PIQA", "PIQA", "PIQA"], "model": ["enc seed 1", "enc seed 2", "causal-lm"],
                          "value": [1.0, 2.0, 3.0]})
    marked = mark(table, gate.reset_index())
    assert list(marked["model_competence"]) == [OK, NOT_ABOVE_CHANCE, ""]
    # the paper config's premise: a model above chance but below 0.8 says so
    premise = competence(conf, pd.DataFrame(control), premise=0.8).set_index("model")
    assert "premise" in premise.loc["enc seed 1", "model_competence"]


def test_tables_summarize_the_seed_checkpoints_with_the_spread_over_seeds():
    import pandas as pd
    from scipy import stats

    from choicelab.studies.probes.competence import with_seed_summary

    table = pd.DataFrame({"benchmark": ["PIQA"] * 3 + ["aNLI"], "model": ["enc seed 1", "enc seed 2", "enc seed 3",
                                                                          "enc seed 1"],
                          "accuracy": [0.6, 0.7, 0.8, 0.55], "instances": [100, 100, 100, 100]})
    out = with_seed_summary(table, ("benchmark",), ("accuracy",))
    summary = out[out["model"] == "enc mean of 3 seeds"].iloc[0]
    assert summary["benchmark"] == "PIQA" and summary["seeds"] == 3
    assert summary["accuracy"] == pytest.approx(0.7) and summary["accuracy_sd_seeds"] == pytest.approx(0.1)
    half = stats.t.ppf(0.975, 2) * 0.1 / 3 ** 0.5
    assert summary["accuracy_seeds_ci95_low"] == pytest.approx(0.7 - half)
    assert summary["accuracy_seeds_ci95_high"] == pytest.approx(0.7 + half)
    assert len(out) == 5  # a benchmark with one seed gets no summary; every checkpoint's row stays


def test_the_ensemble_sums_the_seed_checkpoints_confidences_per_item():
    import numpy as np
    import pandas as pd

    from choicelab.studies.probes.metrics import ensemble_confidences

    first = _orig_conf("enc seed 1", "piqa", [True, False])
    second = _orig_conf("enc seed 2", "piqa", [True, True])
    second[1]["probs"] = np.array([0.55, 0.45])
    ensemble = ensemble_confidences(pd.DataFrame(first + second)).set_index("item_id")
    assert set(ensemble["model"]) == {"enc ensemble of 2 seeds"}
    # item 1: seed 1 says (0.1, 0.9), seed 2 (0.55, 0.45): the sum votes for option 1
    assert np.allclose(ensemble.loc["piqa-1/orig", "probs"], [0.325, 0.675])
    assert ensemble.loc["piqa-1/orig", "pred"] == 1 and ensemble.loc["piqa-0/orig", "pred"] == 0


@pytest.mark.parametrize("seeds, message", [([], "should be non-empty"), ([1, 2, 1], "non-unique")])
def test_a_seeds_list_that_is_empty_or_repeats_a_seed_fails_naming_the_key(seeds, message):
    from choicelab.config import ConfigError

    with pytest.raises(ConfigError, match=rf"studies\.probes\.seeds.*{message}"):
        _jobs(lambda c: c["studies"]["probes"].update(seeds=seeds))


def test_every_seed_gets_its_own_checkpoint_and_dump_and_the_timing_job_uses_the_first():
    from types import SimpleNamespace

    jobs = _jobs(lambda c: c["studies"]["probes"].update(seeds=[7, 8], benchmarks=["piqa"]))
    assert jobs.dumps(None) == ["results/probes/dumps/tiny-bert__piqa__seed7.parquet",
                                "results/probes/dumps/tiny-bert__piqa__seed8.parquet"]
    assert jobs.checkpoint(SimpleNamespace(model="tiny-bert", benchmark="piqa", seed="8")).endswith("__seed8")
    assert jobs.checkpoint(SimpleNamespace(model="tiny-bert", benchmark="piqa")).endswith("__seed7")


def test_the_gate_uses_the_fine_tuning_jobs_before_and_after_scores_where_the_checkpoint_recorded_them():
    import pandas as pd

    from choicelab.studies.probes.competence import NOT_ABOVE_CHANCE, OK, competence

    # on its 60 probed dev originals the checkpoint is at chance; on the gate's 400 originals it clearly learned
    conf = pd.DataFrame(_orig_conf("enc seed 1", "piqa", [True, False] * 30))
    assert competence(conf).iloc[0]["model_competence"] == NOT_ABOVE_CHANCE
    record = {"evaluation_items": 400, "evaluation_accuracy": 0.62, "initial_evaluation_accuracy": 0.5,
              "evaluation_chance": 0.5}
    gate = competence(conf, training={"enc seed 1|piqa": record}).iloc[0]
    assert gate["model_competence"] == OK and gate["dev_items"] == 400 and gate["control_items"] == 400
    assert gate["control_accuracy"] == 0.5 and gate["ci95_low"] > 0.55
    assert "before and after fine-tuning" in gate["gate_source"]


def test_fig3_draws_each_benchmarks_own_bias_free_line_not_the_first_rows():
    """Confidences hold Choice Paralysis rows with 15 options beside the originals; each panel's dashed 1/n line is
    that benchmark's original option count (aNLI 1/2, HellaSwag 1/4, PIQA 1/2, SocialIQA 1/3)."""
    import pandas as pd

    from choicelab.studies.probes.figures import fig3_no_question

    rows = []
    for benchmark, n in (("anli", 2), ("hellaswag", 4), ("piqa", 2), ("siqa", 3)):
        rows.append({"benchmark": benchmark, "model": "enc", "probe": "cp", "p_label": 0.1, "n_choices": 15})
        rows += [{"benchmark": benchmark, "model": "enc", "probe": probe, "p_label": 0.6, "n_choices": n}
                 for probe in ("orig", "nq")]
    fig = fig3_no_question(pd.DataFrame(rows))
    lines = [min(line.get_ydata()) for ax in fig.axes for line in ax.get_lines() if line.get_linestyle() == "--"]
    assert lines == pytest.approx([1 / 2, 1 / 4, 1 / 2, 1 / 3])


def _causal_only_jobs(causal_models):
    """The probes jobs of the smoke config with no encoder (studies.probes.models: [])."""
    from pathlib import Path

    import yaml

    from choicelab.config import validate_config
    from choicelab.studies.probes.jobs import Jobs

    config = yaml.safe_load((Path(__file__).resolve().parent.parent / "configs" / "smoke.yaml").read_text())
    config["studies"]["probes"].update(models=[], causal_models=causal_models)
    validate_config(config)
    return dataclasses.replace(Jobs.from_config(config, Path(__file__).resolve().parents[1]), mc_benchmarks={})


def test_probes_with_causal_lms_only_build_the_robustness_matrix_and_name_the_key_for_the_rest():
    """studies.probes.models: [] in an ordinary run: the causal LMs' robustness matrix is what the run builds; a
    table that needs fine-tuned encoders, asked for, fails naming studies.probes.models and what to do."""
    from types import SimpleNamespace

    from choicelab.config import ConfigError

    jobs = _causal_only_jobs(["tiny-llama"])
    jobs.check_models()
    assert sorted(jobs.artifact_files()) == sorted([
        "results/probes/tables/robustness_matrix.csv", "results/probes/tables/robustness_matrix.md",
        "figures/probes/fig_robustness_matrix.svg", "figures/probes/fig_robustness_matrix.png"])
    assert jobs.dumps(SimpleNamespace()) == []  # the robustness matrix reads the causal LMs' dumps only
    with pytest.raises(ConfigError, match=r"'studies.probes.models' is empty.*add an encoder.*probes_robustness"):
        jobs.encoder_dumps(SimpleNamespace())  # the confidences behind Tables 1-2, the figures, the comparison
    with pytest.raises(ConfigError, match="studies.probes.models"):
        jobs.timings(SimpleNamespace())


def test_probes_with_no_model_at_all_fail_at_config_time_naming_both_keys():
    from choicelab.config import ConfigError

    with pytest.raises(ConfigError, match=r"studies.probes.models.*causal_models.*enabled: false"):
        _causal_only_jobs([]).check_models()


def test_a_probe_repeating_its_items_gets_an_interval_clustered_by_the_original_and_a_paired_difference():
    """Five Wrong-Question trials of 30 originals, each original answered the same way in every trial: the exact
    interval counts 30 instances, the clustered one 150 rows in 30 clusters -- the same width, since copies add
    nothing (design effect 5); and the probe against the originals is paired on the same 30 instances."""
    from scipy import stats

    from choicelab.stats import min_detectable_difference
    from choicelab.studies.probes.tables import robustness_matrix

    rows = []
    for k in range(30):
        hit = k % 3 != 0  # 20 of 30 originals fooled in every trial
        rows.append({"probe": "orig", "trial": 0, "original_id": f"i{k}", "label": 0, "pred": 0, "n_choices": 2})
        rows += [{"probe": "wq", "trial": t, "original_id": f"i{k}", "label": 0, "pred": 0 if hit else 1,
                  "n_choices": 2} for t in range(5)]
    conf = pd.DataFrame(rows).assign(benchmark="piqa", model="enc", method="mc", n=np.nan, sampling=None)
    wq = robustness_matrix(conf).set_index("probe").loc["Wrong-Question"]
    assert (wq["instances"], wq["rows"], wq["n_clusters"]) == (30, 150, 30)
    assert wq["design_effect"] == pytest.approx(5 * (30 / 29) / (150 / 149))  # 5 copies; CR1 vs ddof-1 factors
    assert wq["min_detectable_difference"] > 2 * min_detectable_difference(150)
    assert wq["clustered_high"] - wq["clustered_low"] == pytest.approx(
        2 * stats.t.ppf(0.975, 29) * np.sqrt((2 / 3) * (1 / 3) / 29), rel=1e-6)
    assert wq["minus_original"] == pytest.approx(-1 / 3) and wq["paired_instances"] == 30
    assert wq["minus_original_high"] < 0  # the drop from the originals is paired, and clear of zero

