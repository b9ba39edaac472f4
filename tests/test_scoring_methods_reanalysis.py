"""The reanalysis of the authors' released outputs (issue 36): our formulas on their files give their numbers.

Expected numbers are read at test time from the authors' processed files in the data mirror
(``pragmatics/LLM_link/analysis/``); the tests that need the mirror skip when it is absent."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pandas as pd
import pytest

from choicelab.cli import main
from choicelab.studies.scoring_methods import reanalysis as ra
from choicelab.studies.scoring_methods.human import human_condition_accuracy

MIRROR = Path(os.environ.get("CHOICELAB_DATA_MIRROR", "/work/shared/data"))
LLM_LINK = MIRROR / "pragmatics" / "LLM_link"
needs_mirror = pytest.mark.skipif(
    not (LLM_LINK / "results" / "log_probs").is_dir(),
    reason=f"the authors' outputs are not at {LLM_LINK} (set CHOICELAB_DATA_MIRROR to ../shared/data)",
)


@pytest.fixture(scope="module")
def released() -> ra.Reanalysis:
    return ra.reanalyze(LLM_LINK / "results")


@pytest.fixture(scope="module")
def human() -> pd.DataFrame:
    return human_condition_accuracy(MIRROR, items="all")


@pytest.fixture(scope="module")
def fig2(released: ra.Reanalysis, human: pd.DataFrame) -> pd.DataFrame:
    summary = ra.read_table(LLM_LINK / "analysis" / "all_accuracy_summary.csv", ra.SUMMARY_COLUMNS)
    return ra.fig2_comparison(released.accuracy, summary, human)


@pytest.fixture(scope="module")
def fig3(released: ra.Reanalysis, human: pd.DataFrame) -> pd.DataFrame:
    long_final = ra.read_table(LLM_LINK / "analysis" / "llmlink_long_final.csv", ra.LONG_FINAL_COLUMNS)
    return ra.fig3_comparison(ra.fig3_loglik(ra.our_fig3_items(released.choices), human),
                              ra.fig3_loglik(long_final, human))


@needs_mirror
def test_every_fig2_cell_of_both_models_equals_the_authors_to_three_decimals_or_is_explained(fig2):
    assert set(fig2["model_name"]) == {"google/flan-t5-xl", "meta-llama/Llama-2-7b-hf"}
    assert set(fig2["metric"]) == {"string_score", "label_score", "rating", "free", "human"}
    assert fig2[fig2["metric"] == "human"]["equal"].all()
    assert fig2["ours"].notna().all(), fig2[fig2["ours"].isna()]
    unexplained = fig2[~fig2["equal"] & (fig2["explanation"] == "")]
    assert unexplained.empty, unexplained.to_string()
    for model_name, metric, phenomenon in ra.EXPLAINED:  # no explanation is kept for a cell that now agrees
        rows = fig2[(fig2["model_name"] == model_name) & (fig2["metric"] == metric)]
        if phenomenon != "*":
            rows = rows[rows["phenomenon"] == phenomenon]
        assert not rows.empty and not rows["equal"].any(), (model_name, metric, phenomenon)


@needs_mirror
def test_fig3_loglik_equals_the_r_script_on_the_authors_per_item_file_or_is_explained(fig3):
    assert len(fig3) == 2 * len(ra.FIG3_VARIANTS)
    assert fig3["loglik_ours"].notna().all()
    unexplained = fig3[~fig3["equal"] & (fig3["explanation"] == "")]
    assert unexplained.empty, unexplained.to_string()
    equal = fig3[fig3["equal"]]
    assert (equal["llh_shown_ours"].round(3) == equal["llh_shown_theirs"].round(3)).all()


@needs_mirror
def test_the_authors_stored_score_columns_agree_with_ours_recomputed_from_token_log_probs(released):
    stored = released.checks[released.checks["column"].isin(
        [c for c, _ in ra.STORED_COLUMNS.values()] + ["weighted_options"])]
    assert len(stored) > 0 and stored["mismatches"].sum() == 0, ra.mismatch_summary(stored)


def _copy_model(source: Path, target: Path, model_name: str) -> None:
    """A model's files under another folder name, with another model_name in the files."""
    for path in source.rglob("*.csv"):
        out = target / path.relative_to(source)
        out.parent.mkdir(parents=True, exist_ok=True)
        frame = pd.read_csv(path)
        frame["model_name"] = model_name
        frame.to_csv(out, index=False)


@needs_mirror
def test_any_model_folder_is_reanalysed_like_the_released_one(tmp_path, released):
    results = tmp_path / "results"
    _copy_model(LLM_LINK / "results/log_probs/llama2/seed0/string_scores",
                results / "log_probs/some-model/seed0/string_scores", "org/some-model")
    _copy_model(LLM_LINK / "results/rating/llama2", results / "rating/some-model", "org/some-model")
    out = ra.reanalyze(results).accuracy.set_index(["phenomenon", "metric", "configuration"])
    llama = released.accuracy[released.accuracy["model_name"] == "meta-llama/Llama-2-7b-hf"]
    expected = llama.set_index(["phenomenon", "metric", "configuration"])
    strings = out.xs("string_score", level="metric")["accuracy"]
    assert set(out["model_name"]) == {"org/some-model"}
    pd.testing.assert_series_equal(strings, expected.xs("string_score", level="metric")["accuracy"])
    scales = set(out.xs("rating", level="metric").index.get_level_values("configuration"))
    assert scales == {"scale=appropriate", "scale=likely", "scale=plausible", "scale=possible"}  # no authors' pick
    appropriate = out.xs(("rating", "scale=appropriate"), level=("metric", "configuration"))["accuracy"]
    pd.testing.assert_series_equal(appropriate, expected.xs(("rating", "scale=appropriate"),
                                                            level=("metric", "configuration"))["accuracy"])


@needs_mirror
def test_a_model_folder_with_label_scores_only_is_read(tmp_path, released):
    results = tmp_path / "results"
    _copy_model(LLM_LINK / "results/log_probs/llama2/seed2/label_scores",
                results / "log_probs/label-only/seed2/label_scores", "org/label-only")
    out = ra.reanalyze(results).accuracy
    assert set(out["metric"]) == {"label_score"} and set(out["n"]) <= {20, 25, 19, 40}


# -- bad input --------------------------------------------------------------------------------------------------

HEADER = ",".join(ra.EMBEDDING_COLUMNS)
ROWS = ["m,0,1,irony,target,0.9,target", "m,0,1,irony,competitor,0.1,target"]


def _embedding_dir(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "results/embedding_similarity/some-model"
    folder.mkdir(parents=True)
    (folder / "data_hu_irony_embedding.csv").write_text(text)
    return tmp_path / "results"


def test_a_small_embedding_folder_gives_one_row_per_phenomenon(tmp_path):
    result = ra.reanalyze(_embedding_dir(tmp_path, "\n".join([HEADER, *ROWS]) + "\n"))
    assert result.accuracy[["model_name", "phenomenon", "metric", "k", "n"]].values.tolist() == [
        ["m", "irony", "embedding", 1, 1]]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("\n".join([HEADER.replace(",cosine_sims", ""), "m,0,1,irony,target,target"]) + "\n", "columns"),
        ("\n".join([HEADER.replace(",", ";"), *(r.replace(",", ";") for r in ROWS)]) + "\n", "semicolon"),
    ],
    ids=["missing column", "semicolon file"],
)
def test_a_bad_file_fails_naming_it(tmp_path, text, message):
    root = _embedding_dir(tmp_path, text)
    with pytest.raises(ra.ReanalysisError, match=message) as error:
        ra.reanalyze(root)
    assert "data_hu_irony_embedding.csv" in str(error.value)


def test_an_unknown_layout_and_a_model_without_files_fail_naming_the_folder(tmp_path):
    (tmp_path / "other").mkdir()
    with pytest.raises(ra.ReanalysisError, match="no folder of the authors' layout"):
        ra.reanalyze(tmp_path)
    (tmp_path / "rating/empty-model").mkdir(parents=True)
    with pytest.raises(ra.ReanalysisError, match="empty-model: no usable file"):
        ra.reanalyze(tmp_path)


def test_the_command_writes_the_table_or_nothing(tmp_path, capsys):
    good = _embedding_dir(tmp_path / "good", "\n".join([HEADER, *ROWS]) + "\n")
    out = tmp_path / "accuracy.csv"
    main(["reanalyze", "scoring_methods", "--outputs", str(good), "--out", str(out)])
    table = pd.read_csv(out)
    assert list(table.columns[:5]) == ["model_name", "phenomenon", "metric", "configuration", "accuracy"]
    bad = _embedding_dir(tmp_path / "bad", HEADER.replace(",", ";") + "\n")
    missing = tmp_path / "never.csv"
    with pytest.raises(SystemExit):
        main(["reanalyze", "scoring_methods", "--outputs", str(bad), "--out", str(missing)])
    assert "semicolon" in capsys.readouterr().err
    assert not missing.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["accuracy.csv", "bad", "good"]


@needs_mirror
def test_the_command_reads_a_copy_of_a_released_model_folder(tmp_path):
    results = tmp_path / "results"
    shutil.copytree(LLM_LINK / "results/embedding_similarity/flan-t5-xl", results / "embedding_similarity/t5-copy")
    out = tmp_path / "out.csv"
    main(["reanalyze", "scoring_methods", "--outputs", str(results), "--out", str(out)])
    table = pd.read_csv(out)
    assert set(table["metric"]) == {"embedding"} and set(table["model_name"]) == {"google/flan-t5-xl"}
    assert table["n"].sum() == 169


@needs_mirror
def test_the_verdict_read_back_from_the_written_tables_is_the_same_line(tmp_path, fig2, fig3):
    from choicelab.io import write_csv

    write_csv(tmp_path / "fig2.csv", fig2)
    write_csv(tmp_path / "fig3.csv", fig3)
    line = ra.verdict_of_tables(tmp_path / "fig2.csv", tmp_path / "fig3.csv")
    assert line == ra.verdict(fig2, fig3) and "0 unexplained" in line


def test_compare_paper_ends_with_the_reanalysis_verdict(monkeypatch):
    from types import SimpleNamespace

    from choicelab.studies.scoring_methods import paper

    finding = pd.DataFrame([{"kind": "finding", "key": "k", "paper": "p", "ours": "o", "agrees": True, "note": "",
                             "like_for_like": False}])
    monkeypatch.setattr(paper, "compare_paper", lambda *a, **k: finding)
    monkeypatch.setattr(paper, "flip_share", lambda choices: None)
    line = "Reanalysis of the authors' outputs: 1 of 2 Fig. 2 cells ... (1 differing cells explained, 0 unexplained)"
    frame, markdown = paper.compare_paper_table(SimpleNamespace(choices=None, human=None, reanalysis_verdict=line))
    assert frame["kind"].tolist() == ["finding", "reanalysis"] and frame["ours"].iloc[-1] == line
    assert bool(frame["agrees"].iloc[-1]) and markdown.startswith(line)
    frame, _ = paper.compare_paper_table(SimpleNamespace(choices=None, human=None, reanalysis_verdict=""))
    assert frame["kind"].tolist() == ["finding"]


@needs_mirror
def test_the_regenerated_figures_mark_every_differing_cell_and_are_readable(released, fig2, fig3):
    from choicelab.plotting import plt, small_texts

    frames = ra.ReanalysisFrames(released, fig2, fig3)
    for draw, table in ((ra.fig2_figure, fig2), (ra.fig3_figure, fig3)):
        fig = draw(frames)
        crosses = sum(len(line.get_xdata()) for ax in fig.axes for line in ax.lines if line.get_marker() == "x")
        differing = int((~table[table.get("metric", pd.Series("", index=table.index)) != "human"]["equal"]).sum())
        assert crosses == differing * (2 if draw is ra.fig3_figure else 1)  # Fig. 3: LLH and accuracy panels
        assert small_texts(fig) == []
        plt.close(fig)
