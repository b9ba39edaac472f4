"""STEER rubrics: cut-offs that fit the metric they grade, ids checked when the config loads, and report cards that
say how many questions each letter rests on."""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

import pytest
import yaml

from choicelab.studies.steer import DATA
from choicelab.studies.steer import report as sr
from choicelab.studies.steer.items.taxonomy import load_taxonomy
from conftest import REPO, synthetic_question_frame


@pytest.fixture(scope="module")
def real_tax():
    return load_taxonomy()


@pytest.fixture(scope="module")
def perfect_and_guessing(real_tax):
    return synthetic_question_frame(real_tax, {"perfect": 50.0, "guessing": 0.0}, adaptations=("0shot",),
                                    questions_per_test=3, seed=3)  # >= 10 per element: letters, not
                                                                   # "insufficient data"


@pytest.mark.parametrize("name", sorted(sr.shipped_rubrics()))
def test_every_shipped_rubric_grades_on_a_scale_its_cutoffs_fit(name):
    rubric = sr.load_rubric(sr.shipped_rubrics()[name])
    lo, hi = sr.METRIC_SCALES[rubric.metric]
    assert rubric.grade_cutoffs and all(lo <= m <= hi for _, m in rubric.grade_cutoffs)


def test_the_medical_rubric_gives_a_perfect_model_its_top_letter_and_a_guesser_no_pass(real_tax,
                                                                                        perfect_and_guessing):
    rubric = sr.load_rubric(sr.shipped_rubrics()["single_agent_medical"])
    top, lowest_pass = rubric.grade_cutoffs[0][0], rubric.grade_cutoffs[-1][1]
    perfect = sr.compute_report_card(perfect_and_guessing, real_tax, rubric, model="perfect")
    assert perfect.score == pytest.approx(1.0, abs=0.02) and perfect.letter == top
    elements = [e for s in perfect.settings for m in s.modules for e in m.elements
                if e.status == sr.SCORED and e.n_questions >= rubric.insufficient_below]
    assert len(elements) > 5 and all(e.letter == top for e in elements)  # 2-, 3- and 4-option elements alike
    guessing = sr.compute_report_card(perfect_and_guessing, real_tax, rubric, model="guessing")
    assert guessing.score < lowest_pass + 0.35


def test_cutoffs_off_the_metrics_scale_fail_naming_the_letter():
    with pytest.raises(ValueError, match=r"grade_cutoffs.A.*1.5, outside the scale of accuracy \(0 to 1\)"):
        sr.parse_rubric({"name": "x", "metric": "accuracy", "grade_cutoffs": {"A": 1.5, "B": 0.5}})
    with pytest.raises(ValueError, match=r"grade_cutoffs.D.*outside the scale of gap_closed \(-1 to 1\)"):
        sr.parse_rubric({"name": "x", "metric": "gap_closed", "grade_cutoffs": {"A": 0.5, "D": -2}})


def test_the_papers_normalized_accuracy_gets_scores_without_letters_and_refuses_cutoffs(real_tax,
                                                                                        perfect_and_guessing):
    with pytest.raises(ValueError, match="cannot grade normalized_accuracy: it has no fixed scale"):
        sr.parse_rubric({"name": "x", "metric": "normalized_accuracy", "grade_cutoffs": {"A": 0.75}})
    rubric = sr.parse_rubric({"name": "x", "metric": "normalized_accuracy", "filters": {"settings": ["2"]}})
    card = sr.compute_report_card(perfect_and_guessing, real_tax, rubric, model="perfect")
    assert card.score > 1.0 and card.letter == "-"  # the scale that made 0-1 cut-offs wrong
    assert "no fixed scale" in sr.render_html(card)


def test_a_letter_from_few_questions_is_marked_with_its_n_and_the_questions_per_grade_are_listed(
        real_tax, perfect_and_guessing, tmp_path):
    rubric = sr.parse_rubric({"name": "x", "metric": "accuracy", "filters": {"modules": ["1.1"], "grades": [1, 2]},
                              "min_questions": 20, "insufficient_below": 1})
    card = sr.compute_report_card(perfect_and_guessing, real_tax, rubric, model="perfect")
    elements = [e for s in card.settings for m in s.modules for e in m.elements if e.status == sr.SCORED]
    assert all(card.few(e.letter, e.n_questions) == (e.n_questions < 20) for e in elements)
    assert any(card.few(e.letter, e.n_questions) for e in elements)
    html = sr.render_html(card)
    assert "&dagger;" in html and "rest on fewer than 20 questions" in html
    assert 'id="questions-per-grade"' in html
    assert sum(n for _, n in card.questions_per_grade) == card.n_questions
    assert sr.render_png(card, tmp_path / "c.png").stat().st_size > 0
    plenty = sr.compute_report_card(perfect_and_guessing, real_tax, sr.parse_rubric(
        {"name": "x", "metric": "accuracy", "filters": {"modules": ["1.1"]}, "min_questions": 1}), model="perfect")
    assert "<sup class=\"few\"" not in sr.render_html(plenty) and "<sup class=\"few\"" in html


@pytest.fixture()
def config():
    from choicelab.config import validate_config

    cfg = yaml.safe_load(Path("configs/smoke.yaml").read_text())
    validate_config(cfg)
    return cfg


def _data_copy(tmp_path: Path) -> Path:
    data = tmp_path / "data" / "steer"  # a workflow folder of its own: tmp_path
    shutil.copytree(DATA, data)
    return data


def test_a_scale_naming_an_unknown_element_fails_at_config_load_naming_it(config, tmp_path):
    from choicelab.studies.steer.jobs import Jobs

    cfg = copy.deepcopy(config)
    cfg["studies"]["steer"]["scale"]["elements"] = ["add_subtract", "irds_typo"]
    with pytest.raises(ValueError, match=r"studies.steer.scale.elements names unknown STEER elements \['irds_typo'\]"):
        Jobs.from_config(cfg, REPO)


def test_a_shipped_rubric_naming_an_unknown_element_fails_at_config_load_naming_it(config, tmp_path):
    from choicelab.studies.steer.jobs import Jobs

    data = _data_copy(tmp_path)
    (data / "rubrics" / "typo.yaml").write_text(yaml.safe_dump(
        {"name": "typo", "metric": "accuracy", "filters": {"elements": ["sunk_costs"]}}))
    with pytest.raises(ValueError, match=r"typo.yaml: 'filters.elements' names unknown elements \['sunk_costs'\]"):
        Jobs.from_config(config, tmp_path)
    (data / "rubrics" / "typo.yaml").write_text(yaml.safe_dump(
        {"name": "typo", "metric": "accuracy", "weights": {"elements": {"no_such": 2}}}))
    with pytest.raises(ValueError, match=r"'weights.elements' names unknown elements \['no_such'\]"):
        Jobs.from_config(config, tmp_path)
    (data / "rubrics" / "typo.yaml").write_text(yaml.safe_dump(
        {"name": "typo", "metric": "accuracy", "grade_cutoffs": {"A": 90, "B": 80}}))
    with pytest.raises(ValueError, match=r"typo.yaml: 'grade_cutoffs.A' is 90, outside the scale of accuracy"):
        Jobs.from_config(config, tmp_path)


def test_the_shipped_config_plans_load(config):
    from choicelab.studies.steer.jobs import Jobs

    assert Jobs.from_config(config, REPO).models == ("tiny-llama",)


def test_a_letter_resting_on_fewer_questions_than_insufficient_below_is_insufficient_data(real_tax):
    few = synthetic_question_frame(real_tax, {"perfect": 50.0}, adaptations=("0shot",), questions_per_test=1,
                                      seed=3)
    rubric = sr.load_rubric(sr.shipped_rubrics()["single_agent_medical"])
    card = sr.compute_report_card(few, real_tax, rubric, model="perfect")
    elements = [e for s in card.settings for m in s.modules for e in m.elements if e.status == sr.SCORED]
    thin = [e for e in elements if e.n_questions < rubric.insufficient_below]
    assert thin and all(e.letter == sr.INSUFFICIENT for e in thin)
    assert all(e.letter != sr.INSUFFICIENT for e in elements if e.n_questions >= rubric.insufficient_below)
    page = sr.render_html(card)
    assert "insufficient data" in page and f"{rubric.insufficient_below} (fewer: " in page
    with pytest.raises(ValueError, match="insufficient_below.*from 1 to min_questions"):
        sr.parse_rubric({"name": "x", "metric": "accuracy", "min_questions": 5, "insufficient_below": 6})
