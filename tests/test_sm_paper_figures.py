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
