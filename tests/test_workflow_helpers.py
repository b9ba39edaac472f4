"""choicelab.workflow: the glue between a Snakemake job and the library."""

from __future__ import annotations

import pytest

from choicelab.workflow import output_pairs, outputs_by_name


def test_outputs_by_name_maps_each_artifact_name_to_its_file_of_one_suffix_in_the_jobs_order():
    outputs = ["results/t/table2.csv", "results/t/table2.md", "results/t/table1.csv", "results/t/table1.md"]
    assert outputs_by_name(outputs, ".csv") == {"table2": "results/t/table2.csv", "table1": "results/t/table1.csv"}
    assert list(outputs_by_name(outputs, ".md")) == ["table2", "table1"]


def test_outputs_by_name_keeps_underscores_and_dots_of_the_name_and_ignores_other_suffixes():
    outputs = ["figs/fig_robustness_matrix.png", "figs/fig_robustness_matrix.svg", "cards/v1.2.png", "cards/v1.2.html"]
    assert outputs_by_name(outputs, ".png") == {"fig_robustness_matrix": "figs/fig_robustness_matrix.png",
                                                "v1.2": "cards/v1.2.png"}
    assert outputs_by_name(outputs, ".csv") == {}


def test_output_pairs_give_each_name_its_two_files_in_the_jobs_order():
    outputs = ["f/fig2.png", "f/fig2.svg", "f/fig1.svg", "f/fig1.png"]
    assert output_pairs(outputs, ".png", ".svg") == {"fig2": ("f/fig2.png", "f/fig2.svg"),
                                                     "fig1": ("f/fig1.png", "f/fig1.svg")}


def test_output_pairs_refuse_a_name_missing_one_of_its_files_before_anything_is_written():
    with pytest.raises(ValueError, match=r"\['table3'\] lack their .csv or .md file"):
        output_pairs(["t/table1.csv", "t/table1.md", "t/table3.md"], ".csv", ".md")
