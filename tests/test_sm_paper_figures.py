"""The scoring-methods figures as the paper drew them: label bars from the letter labels only, rating bars from the
number-based rating only, Fig. 3 with our clip and with the authors' clip and display floor (LLM_link
analysis/testing-stats.R); the pooled figures are extra artifacts named so."""

from __future__ import annotations

import pandas as pd
import pytest

from choicelab.studies.scoring_methods import figures, tables


def _choices() -> pd.DataFrame:
    """Letter labels always hit the target, number labels never; number ratings hit, phrase ratings miss;
    strings hit half the time."""
    rows = []
    for condition in ("irony", "humour"):
        for i in range(4):
            for label_set, hit in (("alpha", True), ("numeric", False)):
                rows.append(("label", "label_logprob", label_set, "", condition, i, hit))
            rows.append(("rating", "rating_number", "", "likely", condition, i, True))
            rows.append(("rating", "rating_phrase", "", "likely", condition, i, False))
            rows.append(("string", "option_logprob", "", "", condition, i, i % 2 == 0))
    return pd.DataFrame(
        [
            {"benchmark": "pragmatics", "condition": c, "model": "m", "method": m, "score": s, "label_set": ls,
             "variant": v, "seed": 0, "item_id": str(i), "is_target": hit, "chosen": int(not hit), "n_tied": 1,
             "n_options": 4}
            for m, s, ls, v, c, i, hit in rows
        ]
    )


def _human() -> pd.DataFrame:
    human = pd.DataFrame({"condition": ["irony", "humour"], "k": [300, 310], "n": [374, 374]})
    return human.assign(accuracy=human["k"] / human["n"])


def test_the_paper_figures_draw_letter_labels_and_number_ratings_only():
    choices = tables.reported_choices(_choices())
    paper = figures.paper_choices(choices)
    assert set(paper.loc[paper["method"] == "label", "label_set"]) == {"alpha"}
    assert set(paper.loc[paper["method"] == "rating", "score"]) == {"rating_number"}
    fig2 = tables.fig2_table(paper, _human()).set_index(["condition", "method"])
    assert fig2.loc[("irony", "label"), "accuracy"] == 1.0 and fig2.loc[("irony", "rating"), "accuracy"] == 1.0
    pooled = tables.fig2_table(choices, _human()).set_index(["condition", "method"])
    assert pooled.loc[("irony", "label"), "accuracy"] == 0.5 and pooled.loc[("irony", "rating"), "accuracy"] == 0.5
    assert len(paper[paper["method"] == "string"]) == len(choices[choices["method"] == "string"])


def test_the_authors_display_shifts_by_the_worst_loglik_above_the_floor_and_shows_those_below_it_at_500():
    fig3 = pd.DataFrame({"model": ["a", "b", "c", "d"], "loglik": [-355718.99, -68768.47, -50000.0, -100000.0]})
    shown = figures.authors_display(fig3)
    assert shown["delta_loglik"].tolist() == pytest.approx([500.0, 500.0, 18768.47 + 500.0, 500.0])
    assert shown["floored"].tolist() == [True, False, False, True]


def test_fig3_with_the_authors_clip_punishes_a_zero_target_rate_and_every_figure_has_an_artifact(tmp_path):
    from choicelab.plotting import save_figure
    from choicelab.studies.scoring_methods import metrics as sm
    from choicelab.studies.scoring_methods.artifacts import ARTIFACTS

    data = tables.StudyFrames(_choices(), _choices().iloc[:0], _human())
    ours = tables.fig3_table(figures.paper_choices(data.reported), data.human)
    authors = tables.fig3_table(figures.paper_choices(data.reported), data.human, clip=sm.AUTHORS_P_CLIP)
    label = lambda t: float(t.loc[t["method"] == "label", "loglik"].iloc[0])  # noqa: E731
    assert label(authors) < label(ours)  # a target rate of 1: clip 1e-9 costs far more than 1e-3
    names = {a.name: a for a in ARTIFACTS}
    paper_figures = {"fig2", "fig3", "fig3_authors_clip"}
    assert paper_figures | {"fig2_pooled", "fig3_pooled"} <= set(names)
    assert all(names[n].reproduces.startswith("extra:") for n in ("fig2_pooled", "fig3_pooled"))
    for name in sorted(paper_figures | {"fig2_pooled", "fig3_pooled"}):
        save_figure(names[name].builder(data), str(tmp_path / f"{name}.png"), str(tmp_path / f"{name}.svg"))
        assert (tmp_path / f"{name}.png").stat().st_size > 0


def _with_free(choices: pd.DataFrame) -> pd.DataFrame:
    """Adds free generations of model m at tau=0.1: the coder codes 1 of 4 irony answers target, 0 of 4 humour."""
    free = choices[(choices["method"] == "string")].assign(method="free", score="free", variant="tau=0.1")
    free["is_target"] = (free["condition"] == "irony") & (free["item_id"] == "0")
    return pd.concat([choices, free], ignore_index=True)


def _hand_free() -> pd.DataFrame:
    """The authors hand-coded m's irony generations only: 15 of 20 target (humour has no hand codes)."""
    return pd.DataFrame({"model_name": ["org/m"], "condition": ["irony"], "variant": ["tau=0.1"], "k": [15],
                         "n": [20], "seeds": [1], "accuracy": [0.75], "ci_low": [0.5], "ci_high": [0.9]})


def test_the_paper_tables_count_free_generation_from_the_authors_hand_codes_and_show_the_coders_number_beside():
    data = tables.StudyFrames(_with_free(_choices()), _choices().iloc[:0], _human(), hand_free=_hand_free(),
                              model_sources={"m": "hf:org/m"})
    numbers = tables.numbers_table(data)[0]
    free = numbers[(numbers["figure"] == "fig2") & (numbers["method"] == "free")].set_index("condition")
    # irony: the hand codes (15 of 20), the coder's 1 of 4 beside; humour: no hand codes, the coder's number
    assert (free.loc["irony", "k"], free.loc["irony", "n"], free.loc["irony", "accuracy"]) == (15, 20, 0.75)
    assert free.loc["irony", "free_from"] == tables.FREE_FROM_HAND
    assert (free.loc["irony", "coder_k"], free.loc["irony", "coder_n"], free.loc["irony", "coder_accuracy"]) == (
        1, 4, 0.25)
    assert free.loc["humour", "free_from"] == tables.FREE_FROM_CODER and free.loc["humour", "accuracy"] == 0.0
    fig3 = numbers[(numbers["figure"] == "fig3") & (numbers["method"] == "free")].iloc[0]
    assert fig3["accuracy"] == 15 / 24 and fig3["coder_accuracy"] == 1 / 8
    assert fig3["free_from"] == tables.FREE_FROM_MIXED
    assert fig3["loglik"] != fig3["coder_loglik"]
    # another model, or no hand codes at all: the coder's rows, unchanged
    other = tables.StudyFrames(_with_free(_choices()), _choices().iloc[:0], _human(), hand_free=_hand_free(),
                               model_sources={"m": "hf:org/other"})
    assert other.paper.drop(columns="free_from").equals(other.reported)
    assert set(other.paper.loc[other.paper["method"] == "free", "free_from"]) == {tables.FREE_FROM_CODER}


def test_the_paper_figures_mark_the_coders_free_accuracy_where_the_bar_is_the_hand_codes(tmp_path):
    from choicelab.studies.scoring_methods.artifacts import ARTIFACTS

    data = tables.StudyFrames(_with_free(_choices()), _choices().iloc[:0], _human(), hand_free=_hand_free(),
                              model_sources={"m": "hf:org/m"})
    names = {a.name: a for a in ARTIFACTS}
    for name in ("fig2", "fig3", "fig3_authors_clip"):
        fig = names[name].builder(data)
        lines = [line for ax in fig.axes for line in ax.get_lines()]
        marks = [line for line in lines if line.get_marker() == "x" and len(line.get_xdata())]
        assert marks, f"{name}: the coder's free accuracy is not marked beside the hand-coded bar"
        texts = [t.get_text() for ax in fig.axes for t in (ax.get_legend().get_texts() if ax.get_legend() else [])]
        texts += [t.get_text() for leg in fig.legends for t in leg.get_texts()]
        assert figures.CODER_MARK in texts


def test_fig1_states_the_generation_length_the_run_used():
    from choicelab.studies.scoring_methods import prompts as ps

    item = ps.ScoringItem("pragmatics", "irony", "7", "Task.", "Context.", "Question?", ("a", "b"),
                          ("target", "literal"), 0)
    texts = [t.get_text() for ax in figures.fig1_example(item, max_new_tokens=24).axes for t in ax.texts]
    assert any("<= 24 new tokens" in t and "the paper: <= 50" in t for t in texts)
    assert not any("<= 50 tokens" in t for t in texts)


def test_fig2_draws_each_bar_with_its_interval_and_n_and_tells_a_zero_bar_from_a_missing_one():
    fig2 = pd.DataFrame({
        "condition": ["irony"] * 4, "model": ["a", "a", "b", "human"], "method": ["free", "string", "string", "human"],
        "k": [0, 3, 2, 300], "n": [20, 4, 4, 374], "n_options": [4] * 4,
    })
    fig2 = fig2.assign(accuracy=fig2["k"] / fig2["n"], chance=0.25)
    fig2 = fig2.assign(clustered_low=(fig2["accuracy"] - 0.1).clip(0),
                       clustered_high=(fig2["accuracy"] + 0.1).clip(0, 1))
    fig = figures.fig2_accuracy(fig2, "Fig. 2. Models: a, b")
    ax = fig.axes[0]
    texts = [t.get_text() for t in ax.texts]
    assert {"n=20", "n=4", "n=374"} <= set(texts)  # the zero bar (a, free) has its n: it is a measured 0
    assert texts.count(figures.MISSING_MARK) == 1  # b has no free bar: missing, not 0
    assert len(ax.collections) == 4  # one interval per drawn bar
