"""STEER's illustrative figures (Figs 1, 3, 6, 16) are drawn from the run's own taxonomy, benchmark and dumps."""

from __future__ import annotations

import pandas as pd
import pytest

from choicelab.studies.steer import illustrations as il
from choicelab.studies.steer import scoring as ps
from choicelab.studies.steer.artifacts import ARTIFACTS
from choicelab.studies.steer.items.base import FEWSHOT_SPLIT, generate_benchmark_with_pool, questions_to_items
from choicelab.studies.steer.items.taxonomy import load_taxonomy

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def taxonomy():
    return load_taxonomy()


@pytest.fixture(scope="module")
def steer_items():
    scored, pool = generate_benchmark_with_pool(
        {"n_per_test": 1, "max_domains": 2, "seed": 4,
         "elements": ["maximize_eu", "add_subtract", "pure_nash", "plurality", "interpret_games"]}, 1)
    return questions_to_items(scored), questions_to_items(pool, FEWSHOT_SPLIT)


@pytest.fixture(scope="module")
def dumps(steer_items):
    items, pool = steer_items
    subset = [it for it in items if it.meta["element"] in ("maximize_eu", "add_subtract")][:4]
    rows = []
    for adaptation in ("0shot", "1shot", "explain-together"):
        prompts = ps.build_prompts(subset, pool, adaptation, seed=0,
                                   explain=lambda p: {i: "'''EV of 1 is higher'''\nCorrect Answer: A" for i, _ in p})
        rows += [{"model": "m", "variant": adaptation, "item_id": p.item_id, "context": p.context} for p in prompts]
    return pd.DataFrame(rows)


def test_the_four_illustrations_are_artifacts_with_captions():
    by_name = {a.name: a for a in ARTIFACTS}
    for name, figure in (("fig1", "Figure 1"), ("fig3", "Figure 3"), ("fig6", "Figure 6"), ("fig16", "Figure 16")):
        assert by_name[name].reproduces.startswith(figure) and by_name[name].caption
        assert by_name[name].rule == "steer_figures"


def test_fig1_draws_every_setting_module_and_element_of_the_taxonomy(taxonomy, tmp_path):
    assert il.plot_taxonomy(taxonomy, tmp_path / "fig1.png").read_bytes()[:8] == PNG


def test_fig3_counts_real_questions_per_domain_and_shows_two_generated_maximize_eu_questions(steer_items, taxonomy,
                                                                                            tmp_path):
    items, _ = steer_items
    span = il.domain_span(items, taxonomy)
    assert set(span["element"]) == set(il.SPAN_ELEMENTS)
    expected = sum(it.meta["element"] in il.SPAN_ELEMENTS for it in items)
    assert span["n_questions"].sum() == expected
    assert not span.loc[~span["allowed"], "n_questions"].any()  # no question outside an element's domains
    first, second = il.example_questions(items)
    assert first in items and second in items and first.meta["element"] == second.meta["element"] == "maximize_eu"
    assert int(second.meta["grade"]) > int(first.meta["grade"]) and first.meta["domain"] != second.meta["domain"]
    assert il.plot_domain_span(items, taxonomy, tmp_path / "fig3.png").read_bytes()[:8] == PNG


def test_fig6_shows_the_exact_contexts_the_dumps_recorded_on_one_question(dumps, tmp_path):
    examples = il.adaptation_examples(il.dump_contexts(dumps))
    explain, few = examples["explain"], examples["few_shot"]
    assert explain["adaptation"] == "explain-together" and few["adaptation"] == "1shot"
    assert explain["item_id"] == few["item_id"] and explain["item_id"].startswith("maximize_eu/")
    recorded = dumps.set_index(["variant", "item_id"])["context"]
    assert explain["context"] == recorded[("explain-together", explain["item_id"])]
    assert few["context"].count(ps.ANSWER_CUE) == 2  # the solved example and the question
    assert il.plot_adaptation_examples(dumps, tmp_path / "fig6.png").read_bytes()[:8] == PNG
    only_zero_shot = dumps[dumps["variant"] == "0shot"]
    assert il.adaptation_examples(il.dump_contexts(only_zero_shot)) == {}
    assert il.plot_adaptation_examples(only_zero_shot, tmp_path / "none.png").exists()


def test_fig16_renders_one_generated_game_in_the_three_forms_the_questions_use(steer_items, tmp_path):
    from choicelab.studies.steer.items.multi_agent import render_game

    items, _ = steer_items
    item = il.game_question(items)
    game = il.game_of(item.meta["params"]["game"])
    shown = render_game(game, item.meta["params"]["form"])
    assert shown in item.prompt  # the rebuilt game is the question's game
    assert [f for f, _ in il.GAME_FORMS] == ["word", "normal", "bimatrix"]
    assert il.plot_game_forms(items, tmp_path / "fig16.png").read_bytes()[:8] == PNG


def test_figures_without_their_inputs_fail_naming_what_to_add(taxonomy):
    with pytest.raises(ValueError, match="no two-player game.*studies.steer.scale.elements"):
        il.game_question([])
    with pytest.raises(ValueError, match="no maximize_eu question.*studies.steer.scale.elements"):
        il.example_questions([])
