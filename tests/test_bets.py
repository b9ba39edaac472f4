"""The bets study (Tang & Kejriwal): questions, ground truths, threshold method, BCA, z-tests, tables, comparison."""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from choicelab import stats
from choicelab.studies import study_jobs, study_settings
from choicelab.studies.bets import evaluation, result_tables, scoring, stages, static_tables, training
from choicelab.studies.bets import ground_truths as gt
from choicelab.studies.bets import items as ib
from choicelab.studies.bets import metrics as mb
from choicelab.studies.bets import paper as bets_paper

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = ib.load_templates()
LISTS = ib.load_item_lists()
# The embedded default's bets settings (every template, RQ2 and beliefs from Choice Valuable) with the paper's three
# bet modalities: the default itself trains dice alone.
_DEFAULT = yaml.safe_load((ROOT / "config.yaml").read_text())
_DEFAULT["studies"]["bets"]["modalities"] = ["coin", "dice", "card"]
SETTINGS = study_settings(_DEFAULT, "bets")


# ---------------------------------------------------------------------------------------------------------------
# Questions


@pytest.mark.parametrize(
    ("name", "counts"),
    [(f"value_{t}", {"train": 210, "dev": 25, "test": 25}) for t in ib.VALUE_TEMPLATES]
    + [(f"bet_{m}", {"train": 840, "dev": 100, "test": 100}) for m in ib.MODALITIES],
)
def test_question_counts_per_split_match_the_paper(name, counts):
    for split, expected in counts.items():
        questions = ib.question_set(name, split)
        assert len(questions) == expected
        assert len({q.item_id for q in questions}) == expected
        assert all(len(q.choices) == 3 for q in questions)


def test_each_choice_is_scored_as_prompt_space_choice_like_table1():
    table = static_tables.table1(LISTS, TEMPLATES)
    assert table["Question-Answer Pair"][0] == "This statement is true: airplane is more expensive than pen"
    assert list(table["Choice"])[2] == "airplane and pen have the same value"


def test_articles_agree_by_default_and_the_paper_style_is_a_switch():
    question = next(q for q in ib.question_set("bet_coin", "test") if q.meta["high"] == "airplane")
    assert "win an airplane" in question.prompt or "lose an airplane" in question.prompt
    paper_style = ib.question_set("bet_coin", "test", article_agreement=False)
    assert not any(" an " in q.prompt for q in paper_style)


def test_swap_order_adds_reversed_value_questions_with_the_right_label():
    questions = ib.question_set("value_CE", "test", swap_order=True)
    assert len(questions) == 50
    swapped = next(q for q in questions if q.meta["variant"] == "swapped" and q.meta["high"] == "car")
    assert swapped.prompt.startswith(f"From {swapped.meta['low']} and car")
    assert swapped.choices[swapped.label] == "car"


def test_splits_never_share_items(tmp_path):
    bad = tmp_path / "items.yaml"
    bad.write_text(
        "train: {high: [car], low: [pen]}\ndev: {high: [car], low: [egg]}\ntest: {high: [gold], low: [sock]}\n"
    )
    with pytest.raises(ib.BetsDataError, match="car"):
        ib.load_item_lists(bad)


# ---------------------------------------------------------------------------------------------------------------
# Ground truths


def test_value_label_sets_follow_the_three_definitions_and_their_random_baselines():
    labels = gt.value_label_sets(["h>l", "l>h", "h=l"])
    assert labels == {"normal": ["a"], "weak_normal": ["a", "ac"], "weak": ["a", "b", "c", "ac", "bc"]}
    assert [mb.random_set_baseline([labels[g]]) for g in gt.VALUE_GROUND_TRUTHS] == [1 / 8, 1 / 4, 5 / 8]


def _paper_gain(choice_set: str, pays: list[tuple[str, float]], x: float) -> float | None:
    """Tables 7-8 written out numerically: a bet on one outcome gains 0.5 * (payoff + X) - X; two bets split X."""
    single = [0.5 * ((v if a == "win" else -v) + x) - x for a, v in pays]
    return {"a": single[0], "b": single[1], "ab": 0.5 * single[0] + 0.5 * single[1], "c": 0.0}.get(choice_set)


@pytest.mark.parametrize("modality", ib.MODALITIES)
@pytest.mark.parametrize(
    ("variant", "optimal_choice", "strict", "positive", "non_negative"),
    [
        ("v1", "bet on A", ["a"], ["a", "ab"], ["a", "c", "ab"]),
        ("v2", "do not bet", ["c"], [], ["c"]),
        ("v3", "bet on B", ["b"], ["b", "ab"], ["b", "c", "ab"]),
        ("v4", "do not bet", ["c"], [], ["c"]),
    ],
)
def test_bet_labels_match_the_expected_gain_tables(modality, variant, optimal_choice, strict, positive, non_negative):
    question = next(q for q in ib.question_set(f"bet_{modality}", "test") if q.meta["variant"] == variant)
    labels = question.meta["labels"]
    assert question.choices[question.label].endswith(
        {"bet on A": TEMPLATES["bet"][modality]["outcomes"][0], "bet on B": TEMPLATES["bet"][modality]["outcomes"][1],
         "do not bet": "either one"}[optimal_choice])
    assert labels["strict"] == strict
    assert sorted(labels["positive_gain"]) == sorted(positive)
    assert labels["positive_gain_eligible"] == bool(positive)
    assert sorted(labels["non_negative_gain"]) == sorted(non_negative)
    # Independent numeric check on sampled values satisfying the paper's assumption L < X < (H - L) / 2.
    outcomes = gt.variant_outcomes(TEMPLATES, variant)
    rng = random.Random(7)
    for _ in range(200):
        low_value = rng.uniform(0.1, 50)
        wager = rng.uniform(low_value * 1.001, low_value * 3)
        high_value = 2 * wager + low_value + rng.uniform(0.01, 500)
        value = {"h": high_value, "l": low_value}
        pays = [(o.action, value[o.item_role]) for o in outcomes]
        gains = {s: _paper_gain(s, pays, wager) for s in ("a", "b", "ab", "c")}
        best = max(("a", "b", "c"), key=lambda s: gains[s])
        assert strict == [best]
        assert sorted(s for s, g in gains.items() if g > 0) == sorted(positive)
        assert sorted(s for s, g in gains.items() if g >= 0) == sorted(non_negative)


def test_bet_random_baselines_are_the_papers():
    test = ib.question_set("bet_dice", "test")
    for truth, expected in (("strict", 1 / 8), ("non_negative_gain", 1 / 4)):
        assert mb.random_set_baseline([q.meta["labels"][truth] for q in test]) == pytest.approx(expected)
    eligible = [q for q in test if q.meta["labels"]["positive_gain_eligible"]]
    assert len(eligible) == 50
    assert mb.random_set_baseline([q.meta["labels"]["positive_gain"] for q in eligible]) == pytest.approx(1 / 4)


def test_a_belief_that_l_is_worth_more_swaps_the_optimal_bet_and_same_value_means_do_not_bet():
    v1 = gt.variant_outcomes(TEMPLATES, "v1")  # A: win h, B: lose l
    v2 = gt.variant_outcomes(TEMPLATES, "v2")  # A: win l, B: lose h
    assert gt.bet_label_sets(v1, "l>h")["standard"] == 2
    assert gt.bet_label_sets(v2, "l>h")["standard"] == 0
    assert gt.bet_label_sets(v1, "h=l")["standard"] == 2


def test_expected_gain_table_renders_the_papers_formulas():
    table = static_tables.expected_gain_table(TEMPLATES, "v1").set_index("Choice")
    assert table.loc["Head", "Expected gain"] == "0.5*H - 0.5*X"
    assert table.loc["Tail", "Expected gain"] == "-0.5*L - 0.5*X"
    assert table.loc["Head and Tail", "Expected gain"] == "0.25*H - 0.25*L - 0.5*X"
    assert table.loc["Do Not Bet", "Expected gain"] == "0"


def test_sign_on_region_refuses_a_form_whose_sign_depends_on_the_values():
    with pytest.raises(ValueError, match="changes sign"):
        gt.sign_on_region((Fraction(1), Fraction(-4), Fraction(0)))  # H - 4L: H > 2X + L > 3L only


# ---------------------------------------------------------------------------------------------------------------
# Threshold method, z-tests


def test_threshold_sets_use_strict_comparisons():
    assert mb.threshold_sets(np.array([[0.5, 0.7, 0.2]]), 0.5) == ["b"]
    assert mb.threshold_sets(np.array([[0.5, 0.7, 0.2]]), 0.9) == [""]


def test_threshold_search_takes_the_median_of_tied_thresholds():
    sig = np.array([[0.8, 0.3, 0.1], [0.6, 0.4, 0.2]])
    labels = [["a"], ["a"]]
    # Every t in [0.40, 0.59] gives {a} on both questions: 20 grid points tie, numpy's median is their midpoint.
    threshold, accuracy = mb.tune_threshold(sig, labels)
    assert accuracy == 1.0
    assert threshold == pytest.approx(np.median([k / 100 for k in range(40, 60)]))
    assert threshold == pytest.approx(0.495)


def test_threshold_grid_is_0_to_1_in_steps_of_a_hundredth():
    assert len(mb.THRESHOLD_GRID) == 101 and mb.THRESHOLD_GRID[0] == 0.0 and mb.THRESHOLD_GRID[-1] == 1.0


@pytest.mark.parametrize(("accuracy", "n", "p0", "expected"), [
    (36, 25, 1 / 3, 0.3927), (56, 25, 1 / 3, 0.0126), (43, 100, 1 / 3, 0.026), (24, 25, 1 / 3, 0.857),
    (47, 100, 1 / 3, 0.003),
])
def test_ztest_pvalues_match_the_spec(accuracy, n, p0, expected):
    assert mb.pvalue_from_accuracy(accuracy, n, p0) == pytest.approx(expected, abs=1e-3)  # the spec: 0.001 tolerance


def test_ztest_of_a_perfect_or_null_vector_is_0_or_1():
    assert stats.ztest_pvalue([1] * 25, 1 / 3) == 0.0
    assert stats.ztest_pvalue([0] * 25, 1 / 3) == 1.0


def test_paper_pvalue_printing_is_compared_at_a_thousandth():
    assert mb.paper_pvalue_agrees(0.3927, ".392")
    assert mb.paper_pvalue_agrees(0.0004, "<.001")
    assert not mb.paper_pvalue_agrees(0.040, ".004")
    assert mb.format_pvalue(0.0126) == ".013" and mb.format_pvalue(0.9991) == "1.00"


def test_binomial_standard_error():
    assert stats.binomial_se(0.5, 100) == pytest.approx(0.05)


# ---------------------------------------------------------------------------------------------------------------
# Evaluations, tables, comparison


def _fake_dumps(oracle_stages: set[str], seed: int = 0) -> tuple[pd.DataFrame, dict]:
    rng = np.random.default_rng(seed)
    questions, rows = {}, []
    for stage in ["default", *stages.task_stages(SETTINGS)]:
        for qset, split in stages.scoring_plan(stage, SETTINGS):
            for q in ib.question_set(qset, split):
                questions[(q.benchmark, q.split, q.item_id)] = q
                logits = rng.normal(size=3)
                if stage in oracle_stages:
                    logits = np.array([-4.0, -4.0, -4.0])
                    logits[q.label] = 4.0
                for k in range(3):
                    rows.append({"model": f"enc__{stage}", "benchmark": q.benchmark, "split": split,
                                 "item_id": q.item_id, "option_id": k, "method": "mc_logit", "score": logits[k]})
    return pd.DataFrame(rows), questions


@pytest.fixture(scope="module")
def oracle_evaluations():
    """A model whose task checkpoints are always right (sigmoid 0.98 on the answer, 0.02 elsewhere)."""
    dump, questions = _fake_dumps(oracle_stages=set(stages.task_stages(SETTINGS)))
    evaluations, per_question = evaluation.evaluate_all(evaluation.question_scores(dump, questions), ["enc"], SETTINGS)
    return evaluations, per_question


def test_every_paper_evaluation_is_computed(oracle_evaluations):
    evaluations, per_question = oracle_evaluations
    counts = evaluations.groupby(["rq", "ground_truth"]).size().to_dict()
    assert counts[("rq1", "standard")] == 8 and counts[("rq1", "weak")] == 8
    assert counts[("rq2", "bca")] == 6 and counts[("rq2", "strict")] == 6
    assert counts[("rq3", "standard")] == 18 and counts[("rq3", "positive_gain")] == 9
    assert set(per_question["ground_truth"]) >= {"standard", "normal", "strict"}


def test_an_always_right_fine_tuned_model_scores_100_and_is_significant(oracle_evaluations):
    evaluations, _ = oracle_evaluations
    tuned = evaluations[(evaluations["rq"] == "rq1") & (evaluations["stage"] == "fine-tuned")]
    assert (tuned["accuracy"] == 1.0).all() and tuned["significant"].all()
    diagonal = evaluations[(evaluations["rq"] == "rq3") & (evaluations["ground_truth"] == "strict")
                           & (evaluations["stage"].str.removeprefix("fine-tuned:")
                              == evaluations["eval_set"].str.removeprefix("bets_bet_"))]
    assert (diagonal["accuracy"] == 1.0).all()
    positive = evaluations[evaluations["ground_truth"] == "positive_gain"]
    assert (positive["n"] == 50).all() and (positive["p0"] == 0.25).all()


def test_bca_scores_an_oracle_bettor_against_its_own_oracle_beliefs(oracle_evaluations):
    evaluations, _ = oracle_evaluations
    bca = evaluations[(evaluations["ground_truth"] == "bca") & (evaluations["stage"] == "fine-tuned")]
    acc = evaluations[(evaluations["ground_truth"] == "standard") & (evaluations["rq"] == "rq2")
                      & (evaluations["stage"] == "fine-tuned")]
    # The CV checkpoint believes h > l everywhere, so BCA equals ordinary accuracy.
    assert list(bca.sort_values("eval_set")["accuracy"]) == list(acc.sort_values("eval_set")["accuracy"])


def test_result_tables_render_in_the_papers_layout(oracle_evaluations):
    evaluations, _ = oracle_evaluations
    frame, markdown = result_tables.result_table(evaluations, "table5")
    assert set(frame["condition"]) == {"BE", "BV", "CE", "CV"}
    assert "/100†" in markdown
    frame, markdown = result_tables.result_table(evaluations, "table20")
    assert "card->card" in markdown and "100†/100†" in markdown
    for name in result_tables.RESULT_TABLES:
        result_tables.result_table(evaluations, name)


def test_tables_6_and_14_order_columns_and_rows_as_the_paper(oracle_evaluations):
    evaluations, _ = oracle_evaluations
    header = result_tables.result_table(evaluations, "table6")[1].splitlines()[0]
    assert [c.strip() for c in header.strip("|").split("|")][1:] == [
        "coin standard", "coin bca", "dice standard", "dice bca", "card standard", "card bca"]
    lines = result_tables.result_table(evaluations, "table14")[1].splitlines()
    assert [c.strip() for c in lines[0].strip("|").split("|")][2:] == ["coin", "dice", "card"]
    assert [line.split("|")[2].strip() for line in lines[2:5]] == ["strict", "positive_gain", "non_negative_gain"]
    rq3 = result_tables.result_table(evaluations, "table20")[1].splitlines()[0]
    assert rq3.index("card->card") < rq3.index("card->coin") < rq3.index("coin->card")  # the paper's Card, Coin, Dice


def test_training_table_sets_the_swag_stage_beside_the_papers_accuracy():
    def meta(stage, dev, fmt="pair"):
        return {"training": {"data": "d", "params": {"input_format": fmt, "learning_rate": 5e-5}, "stage": stage,
                             "best_dev_accuracy": dev, "reached_target": False}}

    notes = training.training_notes({"bert-base-uncased__default": meta("default", 0.74),
                               "bert-base-uncased__bet_coin": meta("bet_coin", 0.95),
                               "minilm__default": meta("default", 0.3)},
                              {"bert-base-uncased": "BERT"})
    row = notes.set_index(["model", "stage"])
    assert row.loc[("bert-base-uncased", "default"), "paper_swag_dev_accuracy"] == 0.77
    assert row.loc[("bert-base-uncased", "default"), "best_dev_accuracy"] == 0.74
    assert np.isnan(row.loc[("bert-base-uncased", "bet_coin"), "paper_swag_dev_accuracy"])  # no paper number
    assert np.isnan(row.loc[("minilm", "default"), "paper_swag_dev_accuracy"])  # not one of the paper's models
    assert set(notes["input_format"]) == {"pair"}


def test_paper_numbers_hold_every_table_the_docs_say_is_transcribed():
    paper = bets_paper.read_paper_numbers(str(ROOT / "data/bets/paper/paper_numbers.csv"))
    counts = paper.groupby("table").size().to_dict()
    # 4 models x cells per model: Tables 5/9-12 (4 templates x 2 stages), 6/13 (3 modalities x 2 metrics x 2
    # stages), 14/15 (3 x 3 ground truths x 2), 16/20 (9 fine-tune->test x 2 splits), 17-19 (9, test items)
    assert counts == {**{t: 32 for t in ("table5", "table9", "table10", "table11", "table12")},
                      "table6": 48, "table13": 48, "table14": 72, "table15": 72, "table16": 72, "table20": 72,
                      "table17": 36, "table18": 36, "table19": 36}
    weak = paper[(paper["table"] == "table12") & (paper["model"] == "BigBird") & (paper["condition"] == "BE")]
    assert list(weak["value"]) == ["<.001", "<.001"] and set(weak["metric"]) == {"weak"}


def test_compare_paper_puts_the_papers_numbers_beside_ours_and_says_when_models_differ(oracle_evaluations):
    evaluations, _ = oracle_evaluations
    paper = bets_paper.read_paper_numbers(str(ib.DATA_DIR / "paper" / "paper_numbers.csv"))
    notes = pd.DataFrame([{"model": "enc", "stage": "default", "trained_on": "HellaSwag (stand-in)",
                           "reached_target": True}])
    table = bets_paper.compare_paper(evaluations, paper, {}, notes)
    headline = table[table["table"] == "table20 headline"].set_index("condition")
    assert headline.loc["diagonal mean", "paper_percent"] == pytest.approx(96.08, abs=0.01)
    assert headline.loc["off-diagonal mean", "paper_percent"] == pytest.approx(71.79, abs=0.01)
    assert headline.loc["diagonal mean", "our_percent"] == 100.0
    gap = headline.loc["diagonal minus off-diagonal"]
    assert gap["paper_percent"] == pytest.approx(96.08 - 71.79, abs=0.01)
    # the oracle is right everywhere: no gap, SE 0 -> the paper's gap does not appear
    assert gap["our_percent"] == 0.0 and gap["gap_appears"] is False and "does not appear" in gap["note"]
    row = table[(table["table"] == "table5") & (table["paper_model"] == "BERT") & (table["condition"] == "BE")
                & (table["stage"] == "default")].iloc[0]
    assert row["paper_percent"] == 68 and "not a reproduction" in row["note"] and "HellaSwag" in row["note"]
    same = bets_paper.compare_paper(evaluations, paper, {"enc": "BERT"}, notes)
    assert same[(same["paper_model"] == "BERT") & (same["table"] == "table5")]["same_model"].all()


def test_compare_paper_figure_draws_the_papers_encoders_beside_ours_with_interval_and_n(oracle_evaluations):
    from choicelab.plotting import MIN_FONT_SIZE, PAPER_MARKER, plt, small_texts, texts

    evaluations, _ = oracle_evaluations
    paper = bets_paper.read_paper_numbers(str(ib.DATA_DIR / "paper" / "paper_numbers.csv"))
    table = bets_paper.compare_paper(evaluations, paper, {"enc": "BERT"}, pd.DataFrame())
    ours = table[(table["our_model"] == "enc") & (table["table"] != "table20 headline")]
    assert (ours["n"] > 0).all() and ours[["our_low_percent", "our_high_percent"]].notna().all().all()
    assert (ours["our_low_percent"] <= ours["our_percent"]).all()
    assert (ours["our_percent"] <= ours["our_high_percent"]).all()
    # like for like only where the paper's encoder is ours (enc stands for BERT here); each row says why not
    assert set(ours.loc[ours["like_for_like"], "paper_model"]) == {"BERT"}
    assert ours.loc[~ours["like_for_like"], "note"].str.contains("not a reproduction").all()
    fig = bets_paper.compare_paper_figure(table)
    fig.canvas.draw()
    words = " ".join(t.get_text() for t in texts(fig))
    assert small_texts(fig, MIN_FONT_SIZE) == []
    assert all(f"paper: {m}" in words for m in ("BERT", "RoBERTa", "DeBERTa", "BigBird")) and "ours: enc" in words
    assert "n=25" in words and "n=100" in words  # Table 5 cells have 25 questions, Table 20 test cells 100
    markers = {line.get_marker() for ax in fig.axes for line in ax.get_lines()}
    assert PAPER_MARKER in markers
    plt.close(fig)


def test_compare_paper_figure_labels_every_plotted_model_and_keeps_the_title_off_the_panels(oracle_evaluations):
    from choicelab.plotting import plt

    evaluations, _ = oracle_evaluations
    paper = bets_paper.read_paper_numbers(str(ib.DATA_DIR / "paper" / "paper_numbers.csv"))
    table = bets_paper.compare_paper(evaluations, paper, {"enc": "BERT"}, pd.DataFrame())
    # a model of ours that only the headline panel plots (as a seed mean is): its points still have a legend entry
    only_headline = table[table["table"] == "table20 headline"].copy()
    only_headline["our_model"] = "enc mean of 3 seeds"
    fig = bets_paper.compare_paper_figure(pd.concat([table, only_headline], ignore_index=True))
    fig.canvas.draw()
    legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_legend())]  # the figure's, above
    legend_labels = {t.get_text() for legend in legends for t in legend.get_texts()}
    assert {"ours: enc", "ours: enc mean of 3 seeds"} <= legend_labels
    renderer = fig.canvas.get_renderer()
    title_box = fig._suptitle.get_window_extent(renderer)
    for ax in fig.axes:
        if ax.get_title():
            assert not title_box.overlaps(ax.title.get_window_extent(renderer)), ax.get_title()
    plt.close(fig)


def test_pvalue_check_recomputes_the_papers_pvalues_and_flags_the_one_that_disagrees():
    paper = bets_paper.read_paper_numbers(str(ib.DATA_DIR / "paper" / "paper_numbers.csv"))
    check = bets_paper.pvalue_check(paper)
    assert len(check) == 224
    disagree = check[~check["agrees"]]
    # Table 16, RoBERTa fine-tuned on Coin, tested on Dice: 42% of 100 gives p = .040, the paper prints .004.
    assert list(zip(disagree["table"], disagree["model"], disagree["condition"], strict=True)) == [
        ("table16", "RoBERTa", "dice:test")]
    bert_bv = check[(check["table"] == "table9") & (check["model"] == "BERT") & (check["condition"] == "BV")
                    & (check["stage"] == "default")].iloc[0]
    assert bert_bv["our_p"] == pytest.approx(0.3927, abs=1e-4)


def test_default_stage_uses_hellaswag_as_the_documented_stand_in(data_mirror):
    train, dev, described = stages.default_stage_items(
        "hellaswag", str(data_mirror), train_size=20, dev_size=10, seed=1
    )
    assert len(train) == 20 and len(dev) == 10
    assert not {q.item_id for q in train} & {q.item_id for q in dev}
    assert "stand-in for SWAG" in described


def test_missing_swag_files_fail_with_the_fix(tmp_path):
    with pytest.raises(FileNotFoundError, match="hellaswag"):
        stages.default_stage_items("swag", str(tmp_path), train_size=None, dev_size=None, seed=1)


def test_a_file_that_is_not_swag_is_rejected(tmp_path):
    from choicelab.studies.bets.swag import SwagChecksumError, verify_swag_file

    path = tmp_path / "train.csv"
    path.write_text("sent1,sent2,ending0,ending1,ending2,ending3,label\n")
    with pytest.raises(SwagChecksumError, match="not the public SWAG train file"):
        verify_swag_file(path, "train")


def test_swag_rows_become_run_swag_style_items():
    from choicelab.studies.bets.swag import parse_swag_csv

    text = ("video-id,fold-ind,startphrase,sent1,sent2,gold-source,ending0,ending1,ending2,ending3,label\n"
            "v1,1,A man sits. He,A man sits.,He,gold,stands up.,eats.,runs.,sleeps.,2\n")
    (item,) = parse_swag_csv(text, "train")
    assert item.prompt == "A man sits." and item.choices[2] == "He runs." and item.label == 2


def test_smoke_dag_produces_every_bets_artifact(smoke_run):
    from conftest import manifest_ids

    expected = {f"bets/table{k}" for k in range(1, 21)} | {"bets/fig1", "bets/fig2", "bets/fig3",
                                                            "bets/compare_paper", "bets/pvalue_check",
                                                            "bets/training"}
    assert expected <= manifest_ids(smoke_run)
    training = pd.read_csv(smoke_run / "results" / "bets" / "tables" / "training.csv")
    default = training[training["stage"] == "default"].iloc[0]
    assert "stand-in for SWAG" in default["trained_on"]  # the tables say which data the default stage used
    assert set(training["stage"]) == {"default", "value_BE", "value_CV", "bet_coin", "bet_card"}  # smoke's subset
    assert set(training["seed"]) == {1234, 1235} and len(training) == 2 * 5  # every stage once per seed
    dump = pd.read_parquet(smoke_run / "results" / "bets" / "dumps" / "tiny-bert__seed1234__default.parquet")
    assert set(dump["method"]) == {"mc_logit", "mc_sigmoid"}
    logits = dump[dump["method"] == "mc_logit"].sort_values(["benchmark", "item_id", "option_id"])
    sigmoids = dump[dump["method"] == "mc_sigmoid"].sort_values(["benchmark", "item_id", "option_id"])
    np.testing.assert_allclose(sigmoids["score"].to_numpy(), mb.sigmoid(logits["score"].to_numpy()))


def test_checkpoints_are_scored_on_a_seeded_subset_of_train_questions_and_on_every_dev_and_test_question():
    from choicelab.mc.items import MCItem

    def questions(split, n):
        return [MCItem("bets_bet_coin", split, f"{split}{k}", "Bet?", ("A", "B", "C"), k % 3) for k in range(n)]

    train, test = questions("train", 840), questions("test", 100)
    subset = scoring.scored_questions(train, 200, seed=7)
    assert len(subset) == 200 and subset == scoring.scored_questions(train, 200, seed=7)
    assert subset != scoring.scored_questions(train, 200, seed=8)
    assert [q.item_id for q in subset] == sorted((q.item_id for q in subset), key=lambda i: int(i[5:]))
    assert scoring.scored_questions(test, 20, seed=7) == test
    assert scoring.scored_questions(train, None, seed=7) == train


def test_paper_config_keeps_the_papers_recipe_and_every_config_one_input_format():
    root = ROOT
    configs = {f: yaml.safe_load((root / f).read_text())["studies"]["bets"]
               for f in ("config.yaml", "configs/smoke.yaml", "configs/paper.yaml")}
    assert {c["input_format"] for c in configs.values()} == {"pair"}
    paper = configs["configs/paper.yaml"]
    assert paper["default_stage"] | {"data": "swag"} == paper["default_stage"]
    assert (paper["default_stage"]["batch_size"], paper["default_stage"]["learning_rate"],
            paper["default_stage"]["max_epochs"]) == (8, 5e-5, 3)  # Sec. 4.2.2: batch 8, lr 5e-5, 3 epochs on SWAG
    assert (paper["task_stage"]["batch_size"], paper["task_stage"]["learning_rate"],
            paper["task_stage"]["target_dev_accuracy"]) == (32, 5e-5, 0.9)  # "uniformly ... batch 32, lr 5e-5"


def test_the_rq3_headline_flags_a_gap_only_when_it_exceeds_its_standard_error():
    paper = bets_paper.read_paper_numbers(str(ib.DATA_DIR / "paper" / "paper_numbers.csv"))
    acc = paper[paper["table"] == "table20"].assign(paper_value=lambda f: f["value"].astype(float))

    def ours(diagonal, off):
        rows = [{"table": "table20", "stage": f"fine-tuned:{ft}", "condition": f"{te}:test", "metric": "standard",
                 "model": "enc", "accuracy_percent": diagonal if ft == te else off, "n": 100}
                for ft in ib.MODALITIES for te in ib.MODALITIES]
        return (
            bets_paper._headline(acc, pd.DataFrame(rows), {}).set_index("condition").loc["diagonal minus off-diagonal"]
        )

    big = ours(88.0, 67.0)
    assert big["our_percent"] == pytest.approx(21.0) and big["gap_appears"] is True
    se = np.hypot(np.sqrt(3 * 0.88 * 0.12 / 100) / 3, np.sqrt(6 * 0.67 * 0.33 / 100) / 6) * 100
    assert big["our_high_percent"] - big["our_percent"] == pytest.approx(stats.Z95 * se)
    assert ours(70.0, 68.0)["gap_appears"] is False  # 2 points is within 1.96 SE at n = 100 per cell


# ---------------------------------------------------------------------------------------------------------------
# Settings and artifacts


def test_settings_read_every_shipped_config_without_restating_a_default():
    for name in ("config.yaml", "configs/smoke.yaml", "configs/paper.yaml"):
        config = yaml.safe_load((ROOT / name).read_text())
        read = study_settings(config, "bets")
        assert read.task_stage.max_length == config["studies"]["bets"]["task_stage"]["max_length"]
        assert read.question_sets() == stages.task_stages(read)
    section = dict(yaml.safe_load((ROOT / "config.yaml").read_text())["studies"]["bets"])
    del section["swap_order"]  # a key validation would have filled: reading it fails instead of guessing
    with pytest.raises(KeyError, match="swap_order"):
        study_settings({"studies": {"bets": section}}, "bets")



def test_a_section_naming_only_its_models_runs_on_the_schemas_defaults():
    from choicelab.config import validate_config

    smoke = yaml.safe_load((ROOT / "configs/smoke.yaml").read_text())
    config = {"models": smoke["models"], "studies": {"bets": {"models": ["tiny-bert"]}}}
    validate_config(config)
    read = study_settings(config, "bets")
    assert read.default_stage.data == "hellaswag" and read.default_stage.train_size is None
    assert (read.task_stage.batch_size, read.task_stage.max_length, read.task_stage.eval_every_steps) == (32, 64, None)
    assert read.question_sets() == ["value_BE", "value_BV", "value_CE", "value_CV", "bet_coin", "bet_dice", "bet_card"]


def test_every_paper_table_and_figure_is_an_artifact_with_its_builder():
    from choicelab.config import validate_config
    from choicelab.studies.bets.artifacts import ARTIFACTS

    names = [a.name for a in ARTIFACTS]
    assert len(set(names)) == len(names)
    assert {f"table{k}" for k in range(1, 21)} | {"fig1", "fig2", "fig3"} <= set(names)
    assert all(callable(a.builder) and a.caption for a in ARTIFACTS)
    assert {a.rule for a in ARTIFACTS} == {"bets_static_tables", "bets_result_tables", "bets_pvalue_check",
                                          "bets_figures"}
    config = yaml.safe_load((ROOT / "configs/smoke.yaml").read_text())
    validate_config(config)
    files = study_jobs(config, "bets", ROOT).artifact_files()
    assert "results/bets/tables/table5.md" in files and "figures/bets/fig2.svg" in files
    config["studies"]["bets"]["enabled"] = False  # a study that runs no model writes nothing
    assert study_jobs(config, "bets", ROOT).artifact_files() == []


def test_static_and_pvalue_artifacts_build_their_tables_from_the_shipped_data():
    from types import SimpleNamespace

    from choicelab.artifacts import by_name
    from choicelab.studies.bets.artifacts import ARTIFACTS, Sources

    artifacts = by_name(ARTIFACTS)
    inputs = SimpleNamespace(item_lists=str(ib.DATA_DIR / "items.yaml"), templates=str(ib.DATA_DIR / "templates.yaml"),
                             paper=str(ib.DATA_DIR / "paper/paper_numbers.csv"))
    table7 = artifacts["table7"].builder(Sources(inputs, SETTINGS))
    assert table7["Expected gain"].iloc[0] == "0.5*H - 0.5*X" and len(table7) == 4
    frame, markdown = artifacts["pvalue_check"].builder(Sources(inputs, SETTINGS))
    assert len(frame) == 224
    assert markdown.endswith("223 of 224 printed p-values agree with our z-test at 0.001 tolerance.\n")


def test_the_default_stage_declares_the_data_files_it_reads_mirror_included(data_mirror):
    from types import SimpleNamespace

    from choicelab.studies.bets.jobs import Jobs

    config = yaml.safe_load((ROOT / "configs/smoke.yaml").read_text()) | {"data_mirror": str(data_mirror)}
    jobs = Jobs.from_config(config, ROOT)
    files = jobs.default_stage_data(SimpleNamespace(model="tiny-bert"))
    assert files and all(f.startswith(str(data_mirror)) and Path(f).exists() for f in files)  # HellaSwag stand-in
    config["data_mirror"] = None
    config["studies"]["bets"]["default_stage"]["data"] = "swag"
    assert Jobs.from_config(config, ROOT).default_stage_data(None) == [
        "results/downloads/swag/train.csv", "results/downloads/swag/val.csv"]  # the download rule's outputs
    assert jobs.dumps(None)[0] == "results/bets/dumps/tiny-bert__seed1234__default.parquet"
    assert len(jobs.dumps(None)) == len(jobs.settings.seeds) * (1 + len(jobs.settings.question_sets()))  # per seed


def _seeded(evaluations, offsets):
    """The oracle's evaluations once per seed, each seed's off-diagonal RQ3 test cells lowered by its offset."""
    frames = []
    for seed, offset in offsets.items():
        frame = evaluations.copy()
        frame["model"] = stages.seeded_model("enc", seed)
        frame["checkpoint"] = [c.replace("enc__", f"{stages.seeded_model('enc', seed)}__", 1)
                               for c in frame["checkpoint"]]
        off = ((frame["rq"] == "rq3") & (frame["split"] == "test")
               & (frame["stage"].str.removeprefix("fine-tuned:") != frame["eval_set"].str.removeprefix("bets_bet_")))
        for column in ("accuracy", "clustered_low", "clustered_high"):  # the interval moves with its accuracy
            frame.loc[off, column] = frame.loc[off, column] - offset
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def test_the_gap_flag_is_judged_on_the_spread_over_seeds_not_one_checkpoints_se(oracle_evaluations):
    from choicelab.studies.bets.seeds import with_seed_means

    evaluations, _ = oracle_evaluations
    paper = bets_paper.read_paper_numbers(str(ib.DATA_DIR / "paper" / "paper_numbers.csv"))
    notes = pd.DataFrame([{"model": "enc", "seed": 1, "stage": "default", "trained_on": "d", "reached_target": True}])

    def gap_rows(offsets):
        table = bets_paper.compare_paper(with_seed_means(_seeded(evaluations, offsets)), paper, {}, notes)
        rows = table[(table["table"] == "table20 headline") & (table["condition"] == "diagonal minus off-diagonal")]
        return rows.set_index("our_model")

    steady = gap_rows({1: 0.20, 2: 0.22, 3: 0.24})  # every seed shows a ~22-point gap
    over = steady.loc["enc over 3 seeds"]
    assert over["our_percent"] == pytest.approx(22.0) and over["sd_seeds"] == pytest.approx(2.0)
    assert over["gap_appears"] is True and "interval over seeds" in over["note"]
    # one seed shows a large gap with a tiny SE, the others none: the seed spread, not that SE, decides
    swinging = gap_rows({1: 0.30, 2: 0.0, 3: 0.0})
    assert swinging.loc["enc__seed1", "gap_appears"] is True  # one checkpoint alone would claim the gap
    assert swinging.loc["enc over 3 seeds", "gap_appears"] is False
    assert "does not appear" in swinging.loc["enc over 3 seeds", "note"]
    assert swinging.loc["enc__seed1", "gap_basis"].startswith("SE of one seed checkpoint")


def test_tables_add_the_mean_over_seeds_with_its_sd_and_interval(oracle_evaluations):
    from scipy import stats as sps

    from choicelab.studies.bets.seeds import with_seed_means

    evaluations, _ = oracle_evaluations
    out = with_seed_means(_seeded(evaluations, {1: 0.1, 2: 0.2, 3: 0.3}))
    means = out[out["model"] == "enc mean of 3 seeds"]
    assert len(means) == len(evaluations)  # one mean row per evaluation cell
    off = means[(means["rq"] == "rq3") & (means["split"] == "test") & (means["ground_truth"] == "standard")
                & (means["stage"].str.removeprefix("fine-tuned:") != means["eval_set"].str.removeprefix("bets_bet_"))]
    row = off.iloc[0]
    half = sps.t.ppf(0.975, 2) * 0.1 / 3 ** 0.5
    assert row["accuracy"] == pytest.approx(0.8) and row["sd_seeds"] == pytest.approx(0.1)
    assert row["se"] == pytest.approx(0.1)  # the +- and error bars of a mean row are the seed SD
    assert row["ci95_low_seeds"] == pytest.approx(0.8 - half) and row["seeds"] == 3
    long, markdown = result_tables.result_table(out, "table20")
    assert {"sd_seeds", "ci95_low_seeds", "ci95_high_seeds"} <= set(long.columns)
    table5 = result_tables.result_table(out, "table5")[1]
    mean_line = next(line for line in table5.splitlines() if "enc mean of 3 seeds" in line)
    assert "±" in mean_line and "mean±SD over seeds" in table5  # the Markdown shows the spread, not only the mean


def test_training_table_prints_the_recipe_in_full_with_seed_frozen_parts_and_test_beside_dev(oracle_evaluations):
    evaluations, _ = oracle_evaluations
    seeded = _seeded(evaluations, {7: 0.0})
    params = {"input_format": "pair", "learning_rate": 2e-4, "batch_size": 16, "seed": 7, "warmup_steps": 10,
              "freeze_word_embeddings": True, "frozen_layers": 0, "eval_every_steps": 13, "target_dev_accuracy": 0.9}
    meta = {"training": {"data": "bets bet_coin train questions", "params": params, "best_dev_accuracy": 0.92,
                         "dev_items": 100, "dev_chance": 1 / 3, "reached_target": True, "steps": 26}}
    notes = training.training_notes({"enc__seed7__bet_coin": meta}, {}, seeded)
    row = notes.iloc[0]
    assert (row["model"], row["seed"], row["stage"]) == ("enc", 7, "bet_coin")
    assert row["learning_rate"] == "0.0002" and row["frozen"] == "word embeddings"
    assert row["evaluation"] == "every 13 steps"
    assert row["best_dev_accuracy"] == 0.92 and row["best_dev_ci95_low"] < 0.92 < row["best_dev_ci95_high"]
    assert row["test_accuracy"] == 1.0 and row["test_items"] > 0  # the oracle's own-modality test cell
    assert "learning_rate 0.0002 (paper 5e-05)" in row["deviation"]
    markdown = training.notes_markdown(notes)
    header, _, first = markdown.splitlines()[:3]
    column = [c.strip() for c in header.strip("|").split("|")].index("learning_rate")
    assert first.strip("|").split("|")[column].strip() == "0.0002"  # not 0.000
    assert "Deviation from the paper's recipe, task stages: " in markdown and "Seeds: 7 (1)" in markdown


@pytest.mark.parametrize("seeds, message", [([], "should be non-empty"), ([3, 3], "non-unique")])
def test_a_bets_seeds_list_that_is_empty_or_repeats_a_seed_fails_naming_the_key(seeds, message):
    import yaml

    from choicelab.config import ConfigError, validate_config

    config = yaml.safe_load((ROOT / "configs" / "smoke.yaml").read_text())
    config["studies"]["bets"]["seeds"] = seeds
    with pytest.raises(ConfigError, match=rf"studies\.bets\.seeds.*{message}"):
        validate_config(config)


def test_every_stage_is_trained_once_per_seed_each_task_stage_from_its_seeds_default():
    from types import SimpleNamespace

    import yaml

    from choicelab.config import validate_config
    from choicelab.studies.bets.jobs import Jobs

    config = yaml.safe_load((ROOT / "configs" / "smoke.yaml").read_text())
    config["studies"]["bets"]["seeds"] = [5, 6]
    config["models"]["enc"] = config["models"]["tiny-bert"]
    config["studies"]["bets"]["models"] = ["enc"]
    validate_config(config)
    jobs = Jobs.from_config(config, ROOT)
    assert jobs.seeded_models() == ["enc__seed5", "enc__seed6"]
    assert len(jobs.checkpoints(None)) == 2 * len(stages.stages(jobs.settings))
    inputs = jobs.task_checkpoint_inputs(SimpleNamespace(model="enc", seed="6", qset="bet_coin"))
    assert inputs["base"] == "results/bets/checkpoints/enc__seed6__default"


def _gated(evaluations):
    """Two seeds of the oracle; seed 2's dice checkpoint answers its own test questions at chance, and every default
    (SWAG-stage) checkpoint ends at 24 of 100 dev questions (chance 1/4)."""
    seeded = _seeded(evaluations, {1: 0.0, 2: 0.0})
    dice = (seeded["checkpoint"] == "enc__seed2__bet_dice") & (seeded["eval_set"] == "bets_bet_dice")
    seeded.loc[dice, "hits"] = (seeded.loc[dice, "n"] / 3).round().astype(int)
    seeded.loc[dice, "accuracy"] = seeded.loc[dice, "hits"] / seeded.loc[dice, "n"]
    seeded.loc[dice, "clustered_low"] = seeded.loc[dice, "accuracy"] - 0.1  # its interval moves with it
    seeded.loc[dice, "clustered_high"] = seeded.loc[dice, "accuracy"] + 0.1
    metas = {}
    for seed in (1, 2):
        for stage in stages.stages(SETTINGS):
            best, chance = (0.24, 1 / 4) if stage == "default" else (0.95, 1 / 3)
            metas[f"enc__seed{seed}__{stage}"] = {"training": {
                "data": "d", "params": {"seed": seed, "learning_rate": 2e-4}, "best_dev_accuracy": best,
                "dev_items": 100, "dev_chance": chance, "reached_target": stage != "default"}}
    notes = training.training_notes(metas, {}, seeded)
    return seeded, notes


def test_a_bets_checkpoint_whose_interval_covers_chance_is_marked_in_every_table_built_on_it(oracle_evaluations):
    from choicelab.studies.bets import competence
    from choicelab.studies.bets.seeds import with_seed_means

    seeded, notes = _gated(oracle_evaluations[0])
    gates = competence.gate(notes, seeded).set_index("checkpoint")
    bad = "model not above chance: bets statistics not interpretable"
    # the task stage is judged on its own set's unseen test questions, beside the default checkpoint it started from
    dice = gates.loc["enc__seed2__bet_dice"]
    assert dice["model_competence"] == bad and dice["gate_ci95_low"] < 1 / 3 < dice["gate_ci95_high"]
    assert "test questions" in dice["gate_source"] and dice["control_items"] > 0
    assert gates.loc["enc__seed1__bet_dice", "model_competence"] == "above chance and control"
    assert gates.loc["enc__seed1__default", "model_competence"] == bad  # 24 of 100 vs chance 1/4
    assert len(gates) == 2 * len(stages.stages(SETTINGS))  # marked, never dropped
    # every evaluation row scored with the checkpoint carries the mark; the mean over seeds says how many seeds
    marked = with_seed_means(competence.mark_evaluations(seeded, gates.reset_index()))
    long = result_tables.result_table(marked, "table20")[0]
    assert set(long.loc[long["checkpoint"] == "enc__seed2__bet_dice", "model_competence"]) == {bad}
    mean = long[(long["model"] == "enc mean of 2 seeds") & (long["stage"] == "fine-tuned:dice")]
    assert (mean["model_competence"] == f"{bad} (1 of 2 seeds)").all() and len(mean)
    # the paper comparison's RQ3 headline names the checkpoint behind it
    paper = bets_paper.read_paper_numbers(str(ib.DATA_DIR / "paper" / "paper_numbers.csv"))
    table = bets_paper.compare_paper(marked, paper, {}, competence.with_gate(notes, gates.reset_index()))
    head = table[(table["table"] == "table20 headline")
                 & (table["condition"] == "diagonal minus off-diagonal")].set_index("our_model")
    assert head.loc["enc__seed2", "model_competence"] == f"{bad}: enc__seed2:dice"
    assert head.loc["enc over 2 seeds", "model_competence"].startswith(bad)
    assert bad in head.loc["enc over 2 seeds", "note"]
    assert head.loc["enc__seed1", "model_competence"] == "every checkpoint behind it above chance"
    assert competence.note(gates.reset_index()).startswith("Competence gate: 3 of 16 checkpoints")


def test_a_bets_figure_built_on_a_checkpoint_below_chance_says_so_on_the_figure(oracle_evaluations):
    from choicelab.studies.bets import competence, figures

    seeded, notes = _gated(oracle_evaluations[0])
    gates = competence.gate(notes, seeded)
    fig = figures.mark_gate(figures.fig2_rq3_standard(seeded), gates)
    texts = " ".join(t.get_text() for t in fig.texts)
    assert "model not above chance" in texts and "enc__seed2__bet_dice" in texts


def test_fig1_has_error_bars_names_its_encoders_and_tells_a_zero_bar_from_a_missing_one(oracle_evaluations):
    from choicelab.studies.bets import figures
    from choicelab.studies.bets.seeds import with_seed_means

    seeded = _seeded(oracle_evaluations[0], {1: 0.0, 2: 0.0})
    zero = (seeded["rq"] == "rq1") & (seeded["model"] == "enc__seed1") & (seeded["ground_truth"] == "weak")
    seeded.loc[zero, ["accuracy", "clustered_low", "clustered_high"]] = [0.0, 0.0, 0.1]
    seeded = seeded[~((seeded["rq"] == "rq1") & (seeded["model"] == "enc__seed2")
                      & (seeded["ground_truth"] == "normal") & (seeded["stage"] == "default"))]
    fig = figures.fig1_value_threshold(with_seed_means(seeded))
    assert "enc__seed1, enc__seed2" in fig._suptitle.get_text() and "enc mean of 2 seeds" in fig._suptitle.get_text()
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.texts]
    assert "0" in labels and "n/a" in labels
    assert any(c.__class__.__name__ == "ErrorbarContainer" for c in ax.containers)  # error bars drawn


def test_a_bet_questions_accuracy_is_clustered_by_its_item_pair_beside_the_exact_interval(oracle_evaluations):
    """Each (high, low) pair makes four win/lose variants: the clustered interval counts pairs, the exact one
    questions; both sit beside the accuracy with the minimum detectable difference at its n."""
    evaluations, per_question = oracle_evaluations
    bets = evaluations[(evaluations["rq"] == "rq2") & (evaluations["ground_truth"] == "standard")]
    assert (bets["n_clusters"] * len(ib.VARIANTS) == bets["n"]).all()
    assert ((bets["ci95_low"] <= bets["accuracy"]) & (bets["accuracy"] <= bets["ci95_high"])).all()
    assert (bets["min_detectable_difference"] > 0).all()
    assert per_question.groupby(["checkpoint", "eval_set", "split", "ground_truth", "unit"]).size().max() == 4


def test_fine_tuning_is_compared_with_the_default_stage_on_the_same_questions(oracle_evaluations):
    evaluations, per_question = oracle_evaluations
    paired = evaluation.fine_tuning_paired(evaluations, per_question)
    assert set(paired["rq"]) == {"rq1", "rq2"}
    value = paired[(paired["rq"] == "rq1") & (paired["ground_truth"] == "standard")].iloc[0]
    assert value["fine_tuned_accuracy"] == 1.0  # the oracle
    assert value["difference"] == pytest.approx(1.0 - value["default_accuracy"])
    assert value["difference_low"] <= value["difference"] <= value["difference_high"]
    assert value["n_clusters"] <= value["n"]
