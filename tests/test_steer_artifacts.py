"""The STEER artifact table: what the rules, the manifest and the report derive from."""

from __future__ import annotations

import pandas as pd

from choicelab.artifacts import of_rule
from choicelab.studies.steer import artifacts as sa
from choicelab.studies.steer import tables as st
from choicelab.studies.steer.figures import MODULE_FIGURES
from choicelab.studies.steer.items.taxonomy import load_taxonomy
from conftest import synthetic_question_frame


def test_every_paper_table_and_figure_the_study_reproduces_is_listed():
    names = {a.name for a in sa.ARTIFACTS}
    assert {"table3", "compare_paper", "models", "fig4", "fig5", "fig22"} <= names
    assert {f"fig{n}" for n in MODULE_FIGURES.values()} <= names
    assert all(a.reproduces and a.caption and a.builder for a in sa.ARTIFACTS)
    assert {a.rule for a in sa.ARTIFACTS} == {"steer_tables", "steer_figures"}


def test_manifest_ids_and_files():
    table3 = sa.ARTIFACTS[0]
    assert table3.id("steer") == "steer/table3"
    assert table3.paths("steer") == ["results/steer/tables/table3.csv", "results/steer/tables/table3.md"]
    fig7 = next(a for a in sa.ARTIFACTS if a.name == "fig7")
    assert fig7.paths("steer") == ["figures/steer/fig7.png"]
    compare_figure = next(a for a in sa.ARTIFACTS if a.name == "fig_compare_paper")
    # a figure, filed with the figures (its job is the tables' rule: it reads the paper's numbers)
    assert compare_figure.paths("steer") == ["figures/steer/fig_compare_paper.png"]
    (card,) = sa.report_cards(["foundations_only"])
    assert card.id("steer") == "steer/report_card_foundations_only"
    assert card.paths("steer") == ["results/steer/report_cards/foundations_only.png",
                                   "results/steer/report_cards/foundations_only.html"]
    assert card.sidecars("r") == ["r/foundations_only.png.prov.json", "r/foundations_only.html.prov.json"]


def test_every_table_builder_builds_a_table_from_a_run():
    taxonomy = load_taxonomy()
    results = synthetic_question_frame(taxonomy, {"strong": 3.0, "weak": -1.0},
                                          adaptations=("0shot", "1shot", "explain-separate"), questions_per_test=1)
    sources = st.table_sources(results, taxonomy.edges, paper_table3=st.PAPER_TABLE3, paper_quotes=st.PAPER_QUOTES,
                               paper_models=st.PAPER_MODELS, models={"strong": {"source": "random:llama"}})
    for artifact in of_rule(sa.ARTIFACTS, "steer_tables"):
        if artifact.kind != "table":  # fig_compare_paper: drawn from the same sources (tests/test_figures_readable.py)
            continue
        frame, markdown = artifact.builder(sources)
        assert isinstance(frame, pd.DataFrame) and not frame.empty, artifact.name
        assert markdown.startswith("|") and markdown.endswith("\n"), artifact.name
