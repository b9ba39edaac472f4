"""Specifications of the STEER report card (choicelab.studies.steer.report) and the study's tables and figures
(choicelab.studies.steer.tables, choicelab.studies.steer.figures)."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from choicelab.studies.steer import figures as sf
from choicelab.studies.steer import metrics as sm
from choicelab.studies.steer import report as sr
from choicelab.studies.steer import tables as st
from choicelab.studies.steer.items.taxonomy import load_taxonomy, parse_taxonomy
from conftest import synthetic_question_frame

# A small taxonomy: 2 settings, 3 modules, 5 elements; the report card must work with any taxonomy of this shape.
SMALL_TAX = {
    "settings": [
        {"id": "1", "name": "Foundations", "modules": [
            {"id": "1.1", "name": "Arithmetic", "elements": [
                {"id": "add", "code": "1.1.a", "name": "Add", "grades": [1, 2], "domains": ["finance", "medical"]},
                {"id": "mul", "code": "1.1.b", "name": "Multiply", "grades": [3, 4],
                 "domains": ["finance", "medical"]}]},
            {"id": "1.2", "name": "Optimization", "elements": [
                {"id": "argmax", "code": "1.2.a", "name": "Argmax", "grades": [1, 3], "domains": ["finance"]}]}]},
        {"id": "2", "name": "Single agent", "modules": [
            {"id": "2.1", "name": "Axioms", "elements": [
                {"id": "trans", "code": "2.1.a", "name": "Transitivity", "grades": [5, 6],
                 "domains": ["medical", "food"]},
                {"id": "late", "code": "2.1.b", "name": "Late element", "grades": [12, 13],
                 "domains": ["medical", "food"]}]}]},
    ]
}
SMALL_DEPS = {"edges": [["add", "mul"], ["mul", "trans"], ["argmax", "trans"]], "figure5": []}


@pytest.fixture(scope="module")
def small_tax():
    return parse_taxonomy(SMALL_TAX, SMALL_DEPS, source="small")


def q(element, domain, grade, correct, k=2, model="m", adaptation="0shot", top=0.8, i=0):
    return {"model": model, "adaptation": adaptation, "item_id": f"{element}/{domain}/{grade}/{i}",
            "element": element, "module": "", "setting": "", "domain": domain, "grade": grade,
            "template_id": f"{element}.p{i % 2}", "correct": correct, "top_prob": top, "random_accuracy": 1 / k}


@pytest.fixture(scope="module")
def small_frame():
    rows = [
        q("add", "finance", 1, True), q("add", "medical", 2, True, i=1),          # add: acc 1, r 0.5
        q("mul", "finance", 3, True), q("mul", "medical", 4, False, i=1),         # mul: acc 0.5
        q("argmax", "finance", 2, True, k=4), q("argmax", "finance", 3, False, k=4, i=1),  # argmax: acc .5, r .25
        q("trans", "medical", 5, False), q("trans", "food", 6, False, i=1),        # trans: acc 0
        # 'late' has no questions -> no_data
    ]
    return pd.DataFrame(rows)


def write(tmp_path: Path, text: str, name: str = "r.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------- rubric validation
def test_unknown_key_is_named(tmp_path):
    path = write(tmp_path, "name: x\nmetric: accuracy\nwieghts: {}\n")
    with pytest.raises(ValueError, match=r"unknown key 'wieghts'") as err:
        sr.load_rubric(path)
    assert str(path) in str(err.value)


def test_unknown_nested_key_is_named(tmp_path):
    path = write(tmp_path, "name: x\nmetric: accuracy\nfilters: {grade: [1, 3]}\n")
    with pytest.raises(ValueError, match=r"filters\.'grade'"):
        sr.load_rubric(path)


@pytest.mark.parametrize("body, key", [
    ("name: x\nmetric: accuracy\nfilters: {grades: [3, 1]}\n", "filters.grades"),
    ("name: x\nmetric: accuracy\nfilters: {grades: abc}\n", "filters.grades"),
    ("name: x\nmetric: accuracy\nweights: {modules: {'1.1': heavy}}\n", "weights.modules.1.1"),
    ("name: x\nmetric: accuracy\nweights: {modules: {'1.1': -1}}\n", "weights.modules.1.1"),
    ("name: x\nmetric: accuracy\ngrade_cutoffs: {A: high}\n", "grade_cutoffs.A"),
    ("name: x\nmetric: accuracy\nfilters: {domains: {a: 1}}\n", "filters.domains"),
    ("name: x\nmetric: f1\n", "metric"),
    ("metric: accuracy\n", "name"),
    ("name: x\nmetric: accuracy\nmodel: [a, b]\n", "model"),
])
def test_wrong_types_name_the_key(tmp_path, body, key):
    with pytest.raises(ValueError, match=f"'{key}'".replace(".", r"\.")):
        sr.load_rubric(write(tmp_path, body))


def test_malformed_yaml_names_file_and_line(tmp_path):
    path = write(tmp_path, "name: x\nmetric: accuracy\nfilters: {grades: [1, 3]\nweights: {}\n")
    with pytest.raises(ValueError, match=r"malformed YAML at line \d+") as err:
        sr.load_rubric(path)
    assert str(path) in str(err.value)


def test_missing_file_is_reported(tmp_path):
    with pytest.raises(ValueError, match="not found"):
        sr.load_rubric(tmp_path / "nope.yaml")


def test_ids_unknown_to_the_taxonomy_are_named(small_tax, small_frame):
    rubric = sr.parse_rubric({"name": "x", "metric": "accuracy", "weights": {"modules": {"9.9": 1}}}, "r.yaml")
    with pytest.raises(ValueError, match=r"weights\.modules.*9\.9"):
        sr.compute_report_card(small_frame, small_tax, rubric)


def test_letter_grades_follow_cutoffs():
    rubric = sr.parse_rubric({"name": "x", "metric": "accuracy", "grade_cutoffs": {"B": 0.5, "A": 0.8},
                              "fail_grade": "E"})
    assert [rubric.letter(v) for v in (0.9, 0.8, 0.6, 0.1)] == ["A", "A", "B", "E"]
    assert rubric.letter(math.nan) == "-"


# ------------------------------------------------------------------------------------------------ card computation
def test_scores_are_weighted_means_up_the_hierarchy(small_tax, small_frame):
    rubric = sr.parse_rubric({"name": "x", "metric": "accuracy",
                              "weights": {"elements": {"mul": 3}, "settings": {"2": 0}}})
    card = sr.compute_report_card(small_frame, small_tax, rubric)
    s1, s2 = card.settings
    arith, optim = s1.modules
    assert arith.score == pytest.approx((1 * 1.0 + 3 * 0.5) / 4)  # add 1.0, mul 0.5 (weight 3)
    assert optim.score == pytest.approx(0.5)
    assert s1.score == pytest.approx((0.625 + 0.5) / 2)
    assert s2.score == pytest.approx(0.0)
    assert card.score == pytest.approx(s1.score)  # setting 2 weighs 0
    late = s2.modules[0].elements[1]
    assert late.status == sr.NO_DATA and math.isnan(late.score)  # in range, but no questions


def test_normalized_metrics_use_each_elements_random_rate(small_tax, small_frame):
    rubric = sr.parse_rubric({"name": "x", "metric": "normalized_accuracy", "filters": {"modules": ["1.2"]}})
    card = sr.compute_report_card(small_frame, small_tax, rubric)
    (setting,) = card.settings
    assert setting.modules[0].elements[0].score == pytest.approx((0.5 - 0.25) / 0.25)
    rubric = sr.parse_rubric({"name": "x", "metric": "gap_closed", "filters": {"modules": ["1.2"]}})
    assert sr.compute_report_card(small_frame, small_tax, rubric).score == pytest.approx(0.25 / 0.75)


def test_grade_filter_crosses_out_elements_and_drops_questions(small_tax, small_frame):
    rubric = sr.parse_rubric({"name": "x", "metric": "accuracy", "filters": {"grades": [2, 4]}})
    card = sr.compute_report_card(small_frame, small_tax, rubric)
    elements = {e.id: e for s in card.settings for m in s.modules for e in m.elements}
    assert elements["add"].n_questions == 1  # grade 1 question dropped
    assert elements["trans"].status == sr.OUTSIDE_FILTER and elements["late"].status == sr.OUTSIDE_FILTER
    assert "outside 2-4" in elements["trans"].reason
    html = sr.render_html(card)
    assert "<del>2.1.a Transitivity</del>" in html


def test_domain_filter_and_domain_robustness_metric(small_tax, small_frame):
    rubric = sr.parse_rubric({"name": "x", "metric": "domain_robustness", "filters": {"modules": ["1.1"]}})
    card = sr.compute_report_card(small_frame, small_tax, rubric)
    mul = card.settings[0].modules[0].elements[1]
    assert mul.score == 0.0  # finance 1.0, medical 0.0 -> worst domain 0
    rubric = sr.parse_rubric({"name": "x", "metric": "accuracy", "filters": {"domains": ["medical"]}})
    card = sr.compute_report_card(small_frame, small_tax, rubric)
    assert card.domains == ("medical",)
    argmax = card.settings[0].modules[1].elements[0]
    assert argmax.status == sr.OUTSIDE_FILTER  # argmax has no medical questions in the taxonomy


def test_model_and_adaptation_must_be_unambiguous(small_tax, small_frame):
    two = pd.concat([small_frame, small_frame.assign(model="other")])
    rubric = sr.parse_rubric({"name": "x", "metric": "accuracy"})
    with pytest.raises(ValueError, match="several models"):
        sr.compute_report_card(two, small_tax, rubric)
    assert sr.compute_report_card(two, small_tax, rubric, model="other").model == "other"
    adapted = pd.concat([small_frame, small_frame.assign(adaptation="3shot")])
    assert sr.compute_report_card(adapted, small_tax, rubric).adaptation == "0shot"  # the unadapted run
    with pytest.raises(ValueError, match="not in the metrics frame"):
        sr.compute_report_card(small_frame, small_tax, rubric, model="missing")


# ----------------------------------------------------------------------------------- shipped rubrics and rendering
@pytest.fixture(scope="module")
def real_tax():
    return load_taxonomy()


@pytest.fixture(scope="module")
def synthetic(real_tax):
    return synthetic_question_frame(real_tax, {"strong": 3.0, "weak": -1.0},
                                       adaptations=("0shot", "1shot", "3shot", "explain-together",
                                                    "explain-separate"),
                                       questions_per_test=1, seed=1,
                                       adaptation_boost={"1shot": 0.3, "3shot": 0.5, "explain-together": 0.5})


def test_three_rubrics_are_shipped():
    assert set(sr.shipped_rubrics()) == {"rational_across_the_board", "foundations_only", "single_agent_medical"}


@pytest.mark.parametrize("name", ["rational_across_the_board", "foundations_only", "single_agent_medical"])
def test_shipped_rubrics_load_and_render(name, real_tax, synthetic, tmp_path):
    rubric = sr.load_rubric(sr.shipped_rubrics()[name])
    card = sr.compute_report_card(synthetic, real_tax, rubric, model="strong")
    assert card.adaptation == "0shot" and math.isfinite(card.score) and card.n_questions > 0
    html = sr.render_html(card)
    for section in ('id="inputs"', 'id="summary"', 'id="settings"', 'id="omitted"'):
        assert section in html
    assert rubric.name in html and "<script" not in html and "http" not in html
    for s in card.settings:
        assert f'id="setting-{s.id}"' in html
    png = sr.render_png(card, tmp_path / f"{name}.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_shipped_rubric_contents(real_tax, synthetic):
    found = sr.compute_report_card(synthetic, real_tax, sr.load_rubric(sr.shipped_rubrics()["foundations_only"]),
                                   model="strong")
    assert [s.id for s in found.settings] == ["1"]
    med = sr.compute_report_card(synthetic, real_tax, sr.load_rubric(sr.shipped_rubrics()["single_agent_medical"]),
                                 model="strong")
    assert [s.id for s in med.settings] == ["2"] and med.domains == ("medical",)


def test_report_card_cli_writes_html_and_png(synthetic, tmp_path):
    metrics = tmp_path / "questions.parquet"
    synthetic.to_parquet(metrics)
    out_html, out_png = tmp_path / "card.html", tmp_path / "card.png"
    rc = sr.report_card_main(["--rubric", str(sr.shipped_rubrics()["foundations_only"]), "--metrics", str(metrics),
                              "--out-html", str(out_html), "--out-png", str(out_png), "--model", "weak"])
    assert rc == 0
    assert "Foundations only" in out_html.read_text() and out_png.stat().st_size > 0


# ------------------------------------------------------------------------------------------------- study figures
def test_table3_averages_elements_of_unadapted_runs(small_frame):
    adapted = pd.concat([small_frame, small_frame.assign(adaptation="3shot", correct=True)])
    table = st.table3(adapted).iloc[0]
    # elements: add 1.0, mul 0.5, argmax 0.5, trans 0.0 -> mean 0.5 (3-shot rows ignored)
    assert table["accuracy"] == pytest.approx(0.5)
    expected_norm = ((1 - .5) / .5 + 0 + (.5 - .25) / .25 + (0 - .5) / .5) / 4
    assert table["normalized_accuracy"] == pytest.approx(expected_norm)
    assert table["n_elements"] == 4


def test_paper_table3_is_transcribed_with_units():
    paper = st.load_paper_table3()
    assert len(paper) == 13
    gpt4 = paper.set_index("model").loc["GPT-4 Turbo"]
    assert gpt4["normalized_accuracy"] == pytest.approx(0.3302) and gpt4["exact_match"] == pytest.approx(0.6361)
    assert paper.set_index("model").loc["Llama-2 7b", "exact_match_printed"] == "9.06%"


def test_compare_paper_matches_hub_ids_to_paper_names():
    ours = pd.DataFrame({"model": ["meta-llama/Llama-2-7b-hf", "tiiuae/falcon-40b-instruct", "gpt2"],
                         "normalized_accuracy": [0.1, 0.2, 0.3], "gap_closed": [0.1, 0.2, 0.3],
                         "accuracy": [0.2, 0.4, 0.5]})
    cmp = st.compare_paper(ours)
    row = cmp.set_index("paper_model").loc["Llama-2 7b"]
    assert row["our_model"] == "meta-llama/Llama-2-7b-hf"
    assert row["diff_exact_match"] == pytest.approx(0.2 - 0.0906)
    assert cmp.set_index("paper_model").loc["Falcon 40b Instruct", "our_model"] == "tiiuae/falcon-40b-instruct"
    assert "gpt2" in set(cmp["our_model"]) and list(cmp["paper_model"][:2]) == ["GPT-4 Turbo", "GPT-3.5 Turbo"]


def test_module_figure_numbers_follow_the_paper():
    assert sf.MODULE_FIGURES["1.1"] == 7 and sf.MODULE_FIGURES["2.4"] == 15
    assert sf.MODULE_FIGURES["2.5"] == 17 and sf.MODULE_FIGURES["4.2"] == 21
    assert 16 not in sf.MODULE_FIGURES.values() and len(sf.MODULE_FIGURES) == 14


def test_module_table_is_element_by_model(real_tax, synthetic):
    table = st.module_table(synthetic, real_tax, "3.1")
    assert list(table.index) == list(real_tax.module("3.1").element_ids)
    assert set(table.columns) == {"strong", "weak"}


def test_figure_functions_write_files(real_tax, synthetic, tmp_path):
    paths = [
        sf.plot_module_report_card(synthetic, real_tax, "1.1", tmp_path / "fig07.png"),
        sf.plot_example_report_card(synthetic, real_tax, tmp_path / "fig04.png", model="strong",
                                    html_path=tmp_path / "fig04.html"),
        sf.plot_figure5(real_tax, tmp_path / "fig05.png"),
        sf.plot_grade_and_domain_robustness(synthetic, tmp_path / "fig22.png"),
        sf.plot_few_shot_effect(synthetic, tmp_path / "fewshot.png"),
        sf.plot_self_explanation_effect(synthetic, tmp_path / "selfexp.png"),
    ]
    for path in paths:
        assert path.is_file() and path.read_bytes()[:4] == b"\x89PNG"
    assert "1shot" in (tmp_path / "fig04.html").read_text()  # Fig. 4 uses the 1-shot run when there is one


def test_fig5_subgraph_has_the_papers_edges(real_tax):
    sub = sf.dependency_subgraph(real_tax.figure5_edges, "irds")
    assert set(sub.predecessors("irds")) == {"interpret_games", "first_order_false_belief", "best_response",
                                             "dominated_strategies"}
    assert set(sub.predecessors("dominated_strategies")) == {"transitivity", "independence"}
    assert "pure_nash" not in sub  # a descendant, not a prerequisite


def test_adaptation_tables(synthetic):
    few = st.few_shot_table(synthetic)
    assert sorted(few["n_shot"].unique()) == [0, 1, 3]
    selfexp = st.self_explanation_table(synthetic)
    assert list(selfexp.columns) == ["model", "none", "together", "separate", "n_questions"]
    base = sm.summarize(synthetic[synthetic["adaptation"] == "0shot"], ["model", "element"])
    strong_none = base[base["model"] == "strong"]["normalized_accuracy"].mean()
    assert selfexp.set_index("model").loc["strong", "none"] == pytest.approx(strong_none)


def test_metric_tables_cover_every_grouping(real_tax, synthetic):
    tables = st.metric_tables(synthetic, real_tax.edges)
    assert {"by_element", "by_module", "by_setting", "by_grade", "by_domain", "domain_robustness",
            "domain_robustness_normalized", "dependency_robustness", "table3"} <= set(tables)
    by_el = tables["by_element"]
    assert len(by_el) == 2 * 5 * len(real_tax.elements)  # models x adaptations x elements
    dr = tables["dependency_robustness"]
    assert (dr["dependency_robustness"] >= 0).all()
    roots = dr[dr["element"] == "add_subtract"]
    assert (roots["dependency_robustness"] == 0).all() and (roots["n_ancestors"] == 0).all()


def test_a_workflow_report_card_is_about_the_rubrics_model_else_the_studys_first_model():
    # the default run scores two STEER models; a shipped rubric names none, so its card must still pick one
    unnamed = sr.parse_rubric({"name": "x", "metric": "accuracy"}, "r.yaml")
    named = sr.parse_rubric({"name": "x", "metric": "accuracy", "model": "gemma3-270m"}, "r.yaml")
    assert sr.card_model(unnamed, ["smollm2-135m-instruct", "gemma3-270m"]) == "smollm2-135m-instruct"
    assert sr.card_model(named, ["smollm2-135m-instruct", "gemma3-270m"]) == "gemma3-270m"
    with pytest.raises(ValueError, match="names no model"):
        sr.card_model(unnamed, [])
