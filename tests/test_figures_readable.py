"""Figures a reader can trust at a glance: no text smaller than the minimum font size (set once in
choicelab/plotting.py) in any saved figure, every figure saved through choicelab.plotting, the studies' figures
name their models, and the paper's numbers are drawn beside the run's."""

from __future__ import annotations

import ast
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from choicelab import plotting
from choicelab.plotting import MIN_FONT_SIZE, plt, readable, save_figure, small_texts

REPO = Path(__file__).resolve().parents[1]


def test_no_module_saves_a_figure_past_choicelab_plotting():
    """Every figure file goes through save_figure / save_png, which enforce the minimum font size."""
    offenders = []
    for path in [*REPO.joinpath("choicelab").rglob("*.py"), *REPO.joinpath("scripts").rglob("*.py")]:
        source = path.read_text()
        if path == REPO / "choicelab" / "plotting.py" or "savefig" not in source:
            continue
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "savefig":
                offenders.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert not offenders, f"savefig called past choicelab.plotting (use save_figure / save_png): {offenders}"


def test_saving_raises_every_small_text_to_the_minimum_table_cells_and_legends_included(tmp_path):
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1], label="a line")
    ax.legend(fontsize=5)
    ax.text(0.5, 0.5, "tiny", fontsize=4)
    ax.set_xticks([0, 1], ["zero", "one"], fontsize=6)
    table = ax.table(cellText=[["0.12", "0.34"]], colLabels=["m1", "m2"], loc="bottom")
    table.set_fontsize(5)
    assert {text for text, _ in small_texts(fig)} >= {"tiny", "a line", "zero", "0.12"}
    save_figure(fig, str(tmp_path / "f.png"), str(tmp_path / "f.svg"))
    assert small_texts(fig) == []
    assert (tmp_path / "f.png").stat().st_size > 0 and (tmp_path / "f.svg").stat().st_size > 0


def test_the_minimum_is_a_readable_size_and_the_defaults_meet_it():
    import matplotlib

    assert MIN_FONT_SIZE >= 8
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1], label="x")
    ax.legend()
    ax.set_title("t")
    fig.canvas.draw()
    assert small_texts(fig) == [], matplotlib.rcParams["legend.fontsize"]
    plt.close(fig)


# ------------------------------------------------------------------ the figures of STEER, revealed belief, probes
@pytest.fixture()
def drawn(monkeypatch):
    """Figures the code hands to choicelab.plotting, with the text it set itself (before :func:`readable`)."""
    seen: list[tuple[str, list[tuple[str, float]], list[str]]] = []

    def record(fig, path, *rest, **kwargs):
        fig.canvas.draw()
        seen.append((Path(str(path)).name, small_texts(fig), [t.get_text() for t in plotting.texts(fig)]))
        readable(fig)  # as saved: then no label over another, none cut
        assert plotting.layout_problems(fig) == [], Path(str(path)).name
        plt.close(fig)
        return Path(str(path))

    monkeypatch.setattr(plotting, "save_png", record)
    monkeypatch.setattr(plotting, "save_figure", lambda fig, png, svg: record(fig, png))
    return seen


def _own_texts(fig: plt.Figure) -> tuple[list[tuple[str, float]], str]:
    """The text a figure sets below the minimum size and all its words; as saved (text raised to the minimum) no
    label of it lies over another and none is cut."""
    fig.canvas.draw()
    small, words = small_texts(fig), " ".join(t.get_text() for t in plotting.texts(fig))
    assert plotting.layout_problems(readable(fig)) == [], words[:200]
    plt.close(fig)
    return small, words


@pytest.fixture(scope="module")
def steer_frame():
    from choicelab.studies.steer.items.taxonomy import load_taxonomy
    from conftest import synthetic_question_frame

    taxonomy = load_taxonomy()
    frame = synthetic_question_frame(taxonomy, {"model-a": 1.0, "model-b": -0.5},
                                     adaptations=("0shot", "1shot", "explain-together"), questions_per_test=1,
                                     seed=1)
    return frame, taxonomy


@pytest.mark.slow  # draws seven figures from a whole synthetic benchmark: ~5 s on two busy cores
def test_steer_figures_set_no_small_text_and_name_their_models(steer_frame, drawn, tmp_path):
    from choicelab.studies.steer import figures as fg
    from choicelab.studies.steer.paper import plot_paper_beside_ours
    from choicelab.studies.steer.tables import PAPER_BIAS_SRC, PAPER_TABLE3

    frame, taxonomy = steer_frame
    fg.plot_module_report_card(frame, taxonomy, "1.1", tmp_path / "fig7.png")
    fg.plot_grade_and_domain_robustness(frame, tmp_path / "fig22.png")
    fg.plot_few_shot_effect(frame, tmp_path / "few.png")
    fg.plot_self_explanation_effect(frame, tmp_path / "self.png")
    fg.plot_figure5(taxonomy, tmp_path / "fig5.png")
    fg.plot_example_report_card(frame, taxonomy, tmp_path / "fig4.png")
    plot_paper_beside_ours(frame, PAPER_TABLE3, PAPER_BIAS_SRC, tmp_path / "paper.png")
    assert [name for name, _, _ in drawn] == ["fig7.png", "fig22.png", "few.png", "self.png", "fig5.png",
                                              "fig4.png", "paper.png"]
    for name, small, words in drawn:
        assert small == [], f"{name}: text below {MIN_FONT_SIZE} pt: {small[:5]}"
        if name != "fig5.png":  # the dependency graph shows no model
            assert "model-a" in " ".join(words), f"{name} does not name its models"


def test_steer_paper_figure_marks_the_papers_models_beside_ours(steer_frame, drawn, tmp_path):
    from choicelab.studies.steer.paper import plot_paper_beside_ours
    from choicelab.studies.steer.tables import PAPER_BIAS_SRC, PAPER_TABLE3, load_paper_table3

    frame, _ = steer_frame
    plot_paper_beside_ours(frame, PAPER_TABLE3, PAPER_BIAS_SRC, tmp_path / "paper.png")
    words = " ".join(drawn[0][2])
    for model in load_paper_table3(PAPER_TABLE3)["model"]:
        assert f"paper: {model}" in words
    assert "ours: model-a (n=" in words and "the paper's number" in words
    # the paper's own definition is ambiguous (formula vs stated range): the figure says so beside its numbers
    assert "exact normalization is open" in words


def test_steer_compare_paper_says_per_row_whether_it_is_like_for_like_and_why():
    from choicelab.studies.steer.paper import with_notes

    table = pd.DataFrame({"comparison": ["Table 3: whole benchmark, no adaptation"] * 3
                          + ["Cognitive Bias SRC: deterministic environments (module 2.2)"],
                          "paper_model": ["GPT-4 Turbo", "Llama-2 7b", None, "GPT-4 Turbo"],
                          "our_model": [None, "Llama-2-7b-hf", "smollm2", "smollm2"]})
    noted = with_notes(table)
    assert list(noted["like_for_like"]) == [False, True, False, False]
    assert "not run here" in noted["note"][0] and "not the paper's question set" in noted["note"][1]
    assert "not one of the paper's" in noted["note"][2] and "different models" in noted["note"][3]


# ------------------------------------------------------------------------------------------ revealed belief
@pytest.fixture(scope="module")
def rb_results():
    from choicelab.studies.revealed_belief.items import all_scenarios, scenarios_table
    from choicelab.studies.revealed_belief.metrics import revealed_metrics
    from choicelab.studies.revealed_belief.results import Results

    scenarios = scenarios_table(all_scenarios((4, 10), (1,), ("dice", "coins", "choice", "preference")))
    scenarios = scenarios.to_pandas()
    rng = np.random.default_rng(0)
    rows = []
    for model in ("base-model", "instruct-model"):
        for s in scenarios.itertuples():
            probs = rng.dirichlet(np.ones(len(s.outcomes)))
            probs[0] = 0.0  # a zero: drawn, not missing
            probs = probs / probs.sum()
            for i, (outcome, p) in enumerate(zip(s.outcomes, probs, strict=True)):
                rows.append({"model": model, "item_id": s.setting_id, "option_id": i, "option_text": str(outcome),
                             "prob": float(p), "score": math.log(max(p, 1e-12)), "token_ids": [1],
                             "token_logprobs": [-1.0]})
    dump = pd.DataFrame(rows)
    metrics = revealed_metrics(dump, scenarios, 1e-6)
    paper = pd.read_csv(REPO / "data" / "revealed_belief" / "paper" / "llama3_70b_chebyshev.csv")
    return Results(metrics=metrics, scenarios=scenarios, models=("base-model", "instruct-model"),
                   roles={"base-model": "base", "instruct-model": "instruct"}, revealed=dump, paper=paper,
                   faces=(4, 10))


@pytest.mark.slow  # draws all seven figures of the study: ~5 s on two busy cores
def test_revealed_belief_figures_set_no_small_text_and_name_their_models(rb_results):
    from choicelab.studies.revealed_belief.artifacts import ARTIFACTS

    figures = [a for a in ARTIFACTS if a.kind == "figure"]
    assert "fig_compare_paper" in {a.name for a in figures}
    for artifact in figures:
        small, words = _own_texts(artifact.builder(rb_results).value)
        assert small == [], f"revealed_belief/{artifact.name}: text below {MIN_FONT_SIZE} pt: {small[:5]}"
        assert "base-model" in words and "instruct-model" in words, f"{artifact.name} does not name its models"


def test_revealed_belief_fig3_table_is_readable_and_tells_missing_from_zero(rb_results):
    from matplotlib.table import Table

    from choicelab.studies.revealed_belief.figures import build_fig3

    fig = readable(build_fig3(rb_results).value)
    fig.canvas.draw()
    (table,) = fig.findobj(Table)
    cells = [c.get_text() for c in table.get_celld().values()]
    assert all(c.get_fontsize() >= 9 for c in cells)
    assert "n/a" not in {c.get_text() for c in cells}  # RevB only: every model has a value
    plt.close(fig)


def test_revealed_belief_compare_paper_names_the_papers_model_and_why_ours_differs(rb_results):
    from choicelab.studies.revealed_belief.paper import build_compare_paper, like_for_like_note

    built = build_compare_paper(rb_results)
    frame, note = built.value, built.note
    assert set(frame["paper_model"]) == {"Llama-3-70B", "Llama-3-70B-Instruct"}
    assert frame["note"].str.contains("different model: the paper reports Llama-3-70B").all()
    assert (frame["like_for_like"] == "").all() and "none of our models is the paper's" in note
    assert like_for_like_note("llama-3-70b-instruct", "instruct")[0]
    assert not like_for_like_note("llama-3-70b-instruct", "base")[0]


# ------------------------------------------------------------------------------------------------------ probes
def _probes_tables():
    nra = pd.DataFrame({"benchmark": ["piqa"], "model": ["enc-a"], "instances": [40], "ANC'-SAC": [0.0],
                        "ANC'-SAC_ci95_low": [-0.02], "ANC'-SAC_ci95_high": [0.02], "ANC-RAC": [-0.4],
                        "ANC-RAC_ci95_low": [-0.43], "ANC-RAC_ci95_high": [-0.37]})
    cp = pd.DataFrame({"benchmark": ["piqa"] * 2, "model": ["enc-a"] * 2, "sampling": ["random", "heuristic"],
                       "n": [4, 4], "confidence_before": [0.7] * 2, "confidence": [0.4, 0.0],
                       "confidence_trials_low": [0.35, 0.0], "confidence_trials_high": [0.45, 0.0],
                       "instances_per_trial": [20] * 2, "trials": [3] * 2})
    hits = pd.DataFrame({"benchmark": ["piqa"] * 4, "model": ["enc-a"] * 4, "sampling": ["random"] * 4, "n": [4] * 4,
                         "k": [1, 2, 3, 4], "hits_at_k": [0.3, 0.5, 0.8, 1.0],
                         "clustered_low": [0.25, 0.45, 0.75, 1.0], "clustered_high": [0.35, 0.55, 0.85, 1.0],
                         "original_accuracy": [0.6] * 4})
    matrix = pd.DataFrame({"benchmark": ["piqa"] * 2, "model": ["enc-a"] * 2, "method": ["mc"] * 2,
                           "probe": ["nq", "wq"], "minus_chance": [0.45, 0.01], "covers_zero": [False, True],
                           "instances": [40, 40]})
    return nra, cp, hits, matrix


def test_probes_figures_set_no_small_text_and_name_their_models():
    from choicelab.studies.probes import figures as pf

    nra, cp, hits, matrix = _probes_tables()
    for name, fig in (("fig4", pf.fig4_no_right_answer(nra)), ("fig5", pf.fig5_choice_paralysis(cp)),
                      ("fig6", pf.fig6_hits_at_k(hits)), ("robustness", pf.robustness_heatmap(matrix))):
        small, words = _own_texts(fig)
        assert small == [], f"probes/{name}: text below {MIN_FONT_SIZE} pt: {small[:5]}"
        assert "enc-a" in words, f"probes/{name} does not name its model"


def test_the_robustness_matrix_writes_white_on_its_dark_cells():
    from choicelab.studies.probes.figures import cell_text_colour, robustness_heatmap

    assert cell_text_colour(0.45, False) == "white" and cell_text_colour(-0.45, False) == "white"
    assert cell_text_colour(0.1, False) == "black" and cell_text_colour(0.45, True) == "black"
    fig = robustness_heatmap(_probes_tables()[3])
    colours = {t.get_text().split("\n")[0]: t.get_color() for t in plotting.texts(fig) if "n=40" in t.get_text()}
    assert colours == {"+0.45": "white", "(+0.01)": "black"}
    plt.close(fig)


def test_probes_compare_paper_says_the_paper_is_roberta_large_and_draws_it_beside_ours():
    from choicelab.studies.probes.paper import compare_paper, compare_paper_figure

    paper1 = pd.read_csv(REPO / "data" / "probes" / "paper" / "table1.csv")
    paper2 = pd.read_csv(REPO / "data" / "probes" / "paper" / "table2.csv")
    table1 = pd.DataFrame({"benchmark": ["PIQA"], "model": ["enc-a"], "instances": [40],
                           "avg_confidence_difference": [0.01], "avg_confidence_difference_low": [0.002],
                           "avg_confidence_difference_high": [0.018], "wq_pseudo_accuracy": [0.55],
                           "wq_pseudo_accuracy_clustered_low": [0.49], "wq_pseudo_accuracy_clustered_high": [0.61]})
    table2 = pd.DataFrame({"benchmark": ["PIQA"], "probe": ["nq"], "model": ["enc-a"], "eval_instances": [20],
                           "threshold": [0.7], "threshold_repeats_low": [0.68], "threshold_repeats_high": [0.72],
                           "accuracy": [0.5], "accuracy_ci95_low": [0.28], "accuracy_ci95_high": [0.72]})
    compared = compare_paper(table1, table2, paper1, paper2)
    ours = compared[compared["model"] == "enc-a"]
    assert (compared["paper_model"].str.startswith("RoBERTa-large")).all()
    assert (~ours["like_for_like"]).all() and ours["note"].str.contains("ours are enc-a's").all()
    assert (compared[compared["model"] == ""]["note"] == "not run here").all()
    assert ours[["ours_low", "ours_high"]].notna().all().all()  # every quantity of ours, with its interval
    small, words = _own_texts(compare_paper_figure(compared))
    assert small == [] and "paper: RoBERTa-large" in words and "ours: enc-a" in words and "n=40" in words


# -------------------------------------------------------- readable at a glance: no label over another, none cut
def test_the_layout_check_finds_labels_drawn_over_each_other_and_labels_cut():
    from choicelab.plotting import layout_problems

    fig, ax = plt.subplots(figsize=(4, 3))
    ax.set_xticks([0, 0.01], ["a long tick label", "another long one"])
    ax.text(0.5, 0.5, "a note over", transform=ax.transAxes)
    ax.text(0.52, 0.5, "a second note", transform=ax.transAxes)
    ax.set_title("a cut row lab…")
    ax.text(0.95, 0.2, "reaching past its axes", transform=ax.transAxes, clip_on=True)
    problems = layout_problems(fig)
    plt.close(fig)
    assert "overlap: 'a long tick label' and 'another long one'" in problems
    assert "overlap: 'a note over' and 'a second note'" in problems
    assert "cut: 'a cut row lab…' ends with an ellipsis" in problems
    assert "cut: 'reaching past its axes' reaches past the box it is clipped to" in problems


def test_the_layout_check_reads_turned_labels_by_their_own_box_and_skips_text_it_does_not_draw():
    from choicelab.plotting import layout_problems

    fig, (ax, hidden) = plt.subplots(1, 2, figsize=(6, 3))
    # close, long labels turned 45 degrees: their upright boxes would overlap, the turned ones do not
    ax.set_xticks(range(6), [f"condition number {i}" for i in range(6)], rotation=45, ha="right",
                  rotation_mode="anchor")
    hidden.set_xticks([0, 0.01], ["drawn over", "each other"])
    hidden.set_axis_off()  # not drawn: not in the file, not a problem
    assert layout_problems(fig) == []
    ax.set_xticks(range(6), [f"condition number {i}" for i in range(6)], rotation=10)
    assert any(p.startswith("overlap: 'condition number 0'") for p in layout_problems(fig))
    plt.close(fig)


def test_saving_a_figure_with_overlapping_labels_fails_under_the_strict_check(tmp_path, monkeypatch):
    from choicelab.plotting import STRICT, save_png

    fig, ax = plt.subplots()
    ax.text(0.5, 0.5, "one label", transform=ax.transAxes)
    ax.text(0.51, 0.5, "another label", transform=ax.transAxes)
    monkeypatch.setenv(STRICT, "1")
    with pytest.raises(ValueError, match="overlap: 'one label' and 'another label'"):
        save_png(fig, tmp_path / "f.png")
    assert not (tmp_path / "f.png").exists()


@pytest.fixture()
def strict(monkeypatch):
    from choicelab.plotting import STRICT

    monkeypatch.setenv(STRICT, "1")


def test_every_card_is_one_readable_page_and_every_panel_figure_is_readable(tmp_path, strict):
    """The card's PNG holds the whole page (header, summary, flags, every panel) at the card's type sizes, with no
    label over another and none cut; each panel's figure names the papers' models by number in a key."""
    from test_cards import CAUSAL, ENCODER, panels_of, write_tables

    from choicelab.cards.render import card_png, drawn_headlines, headline_figure
    from choicelab.plotting import layout_problems

    root = write_tables(tmp_path / "run" / "results")
    for model, kind in ((CAUSAL, "causal"), (ENCODER, "encoder")):
        panels = panels_of(root, model)
        for panel in panels:
            if panel.status == "ok" and drawn_headlines(panel):
                assert headline_figure(panel) is not None  # strict: a layout problem raises
        card_png(model, kind, panels, "test scale", tmp_path / f"{model}.png")
    # the page's text: checked as drawn (card_png would have raised), and the summary is on it
    from choicelab.cards import render

    fig_texts = []
    original = render.save_png

    def keep(fig, path, dpi=150):
        fig_texts.extend(t.get_text() for t in plotting.drawn_texts(fig))
        assert layout_problems(fig) == []
        return original(fig, path, dpi)

    render.save_png = keep
    try:
        card_png(CAUSAL, "causal", panels_of(root, CAUSAL), "test scale", tmp_path / "again.png")
    finally:
        render.save_png = original
    words = " ".join(" ".join(fig_texts).split())  # wrapped lines read as one text
    assert "Summary:" in words and "Competence flags:" in words and "Thinking in bets: skipped" in words
    assert "1 GPT-4 Turbo; 2 Llama 13b" in words  # the papers' models by number, in the key
    assert "(higher is better)" in words  # the axis says which way is better
    # each interval kind said once, with the rows it covers (STEER: the module mean's t beside the clustered one)
    assert ("95 % intervals of the accuracy clustered by template, carried through (row 1); t over elements (row 2)"
            in words)


def test_the_scoring_methods_figures_keep_n_off_the_titles_and_say_which_way_is_better(strict):
    from choicelab.plotting import layout_problems
    from choicelab.studies.scoring_methods import figures
    from choicelab.studies.scoring_methods import prompts as ps

    fig2 = pd.DataFrame({"condition": ["irony"] * 4 + ["humour"] * 4, "model": ["a", "a", "b", "human"] * 2,
                         "method": ["free", "string", "string", "human"] * 2, "k": [0, 3, 2, 300] * 2,
                         "n": [20, 4, 4, 374] * 2})
    fig2 = fig2.assign(accuracy=fig2["k"] / fig2["n"], chance=0.25, clustered_low=0.0, clustered_high=1.0)
    fig = figures.fig2_accuracy(fig2, "Fig. 2. Models: a, b")
    assert layout_problems(fig) == []
    assert fig.axes[0].get_ylabel() == "accuracy (higher is better)"
    plt.close(fig)
    item = ps.ScoringItem("pragmatics", "irony", "7", "Task. " * 30, "Context. " * 60, "Question?", ("a", "b"),
                          ("the target answer", "the literal answer"), 0)
    fig = figures.fig1_example(item, max_new_tokens=24)
    assert layout_problems(fig) == []
    plt.close(fig)


def test_the_probes_figures_draw_each_model_in_its_own_panel_and_one_benchmark_order(strict):
    from choicelab.plotting import layout_problems
    from choicelab.studies.probes import figures as pf

    rng = np.random.default_rng(0)
    conf = pd.DataFrame([{"benchmark": b, "model": m, "probe": p, "p_label": rng.random(), "n_choices": 2}
                         for b in ("piqa", "siqa") for m in ("enc-a", "enc-b") for p in ("orig", "nq")
                         for _ in range(5)])
    fig = pf.fig3_no_question(conf)
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    assert len(titles) == 4 and any("enc-b" in t for t in titles)  # one box pair per model: none pooled
    assert layout_problems(fig) == []
    plt.close(fig)
    nra = pd.concat([_probes_tables()[0].assign(benchmark=b, model="tiny-bert ensemble of 2 seeds")
                     for b in ("aNLI", "HellaSwag", "PIQA", "SocialIQA")], ignore_index=True)
    fig = pf.fig4_no_right_answer(nra)
    assert layout_problems(fig) == []
    plt.close(fig)


def figure_rules() -> list[str]:
    """Every rule that draws a study's figure (its ARTIFACTS' figures, and the report cards known at run time)."""
    import importlib

    from choicelab.studies import STUDIES, study_artifacts

    rules = {a.rule for s in STUDIES for a in study_artifacts(s) if a.kind != "table"}
    rules |= {r for s in STUDIES for r in getattr(importlib.import_module(f"choicelab.studies.{s}.artifacts"),
                                                   "RUNTIME_RULES", ())}
    return sorted(rules)


@pytest.mark.slow
def test_every_figure_of_the_smoke_run_is_drawn_with_no_label_over_another_and_none_cut(smoke_run, data_mirror,
                                                                                       tmp_path):
    """The smoke run's figure jobs drawn again, in a copy of its folder, under the strict layout check: a figure with
    two labels over each other or a label cut fails its job, and the job's log names the labels."""
    import shutil
    import subprocess
    import sys

    from choicelab.plotting import STRICT
    from conftest import repo_env

    work = tmp_path / "smoke"
    shutil.copytree(smoke_run, work, symlinks=True)
    rules = figure_rules()
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "--cores", "2", "-s", str(REPO / "Snakefile"), "-d", str(work),
         "--configfile", str(REPO / "configs" / "smoke.yaml"), "--config", f"data_mirror={data_mirror}",
         "--forcerun", *rules, "--allowed-rules", *rules],
        capture_output=True, text=True, timeout=1200, env={**repo_env(), STRICT: "1"})
    logs = "\n".join(p.read_text() for p in (work / "results" / "logs").rglob("*.log") if "layout problem" in
                     p.read_text())
    assert proc.returncode == 0, logs[-4000:] or proc.stderr[-3000:]
