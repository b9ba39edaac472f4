"""The paper's Cognitive Bias SRC numbers in compare_paper: the paper's marked as the paper's, ours beside them."""

from __future__ import annotations

import pandas as pd
import pytest

from choicelab.stats import t_interval
from choicelab.studies.steer import artifacts as sa
from choicelab.studies.steer import metrics as sm
from choicelab.studies.steer import tables as st
from choicelab.studies.steer.items.taxonomy import load_taxonomy
from conftest import synthetic_question_frame


@pytest.fixture(scope="module")
def taxonomy():
    return load_taxonomy()


@pytest.fixture(scope="module")
def results(taxonomy):
    return synthetic_question_frame(taxonomy, {"strong": 3.0, "weak": -1.0}, adaptations=("0shot", "1shot"),
                                       questions_per_test=1, seed=2)


def test_the_cognitive_bias_src_numbers_are_transcribed_from_sec_5():
    paper = pd.read_csv(st.PAPER_BIAS_SRC, dtype={"module": str}).set_index(["paper_model", "module"])
    assert paper.loc[("GPT-4 Turbo", "2.2"), "paper_value"] == pytest.approx(0.575)
    assert paper.loc[("GPT-4 Turbo", "2.5"), "paper_value"] == pytest.approx(0.377)
    assert paper.loc[("GPT-3.5 Turbo", "2.2"), "paper_value"] == pytest.approx(0.307)
    assert paper.loc[("GPT-3.5 Turbo", "2.5"), "paper_value"] == pytest.approx(0.173)
    assert paper["source"].str.startswith("Sec. 5 Cognitive Bias SRC").all()


def test_each_paper_number_stands_beside_the_same_card_for_every_model_we_ran(results):
    table = st.compare_cognitive_bias(results)
    assert len(table) == 4 * 2 and set(table["our_model"]) == {"strong", "weak"}
    row = table[(table["paper_model"] == "GPT-4 Turbo") & (table["our_model"] == "strong")
                & table["comparison"].str.contains("2.2")].iloc[0]
    unadapted = results[(results["model"] == "strong") & (results["adaptation"] == "0shot")
                        & (results["module"] == "2.2")]
    per_element = sm.summarize(unadapted, ["element"])
    assert row["paper_normalized_accuracy"] == pytest.approx(0.575)
    assert row["our_normalized_accuracy"] == pytest.approx(per_element["normalized_accuracy"].mean())
    assert row["our_n_elements"] == len(per_element) and row["our_n_questions"] == len(unadapted)
    _, low, high = t_interval(per_element["normalized_accuracy"])  # t 95 % over the module's elements
    assert (row["our_low"], row["our_high"]) == pytest.approx((low, high)) and low < row["our_normalized_accuracy"]
    assert row["diff_normalized_accuracy"] == pytest.approx(row["our_normalized_accuracy"] - 0.575)


def test_compare_paper_holds_table3_and_the_cognitive_bias_src_with_the_papers_numbers_marked(results, taxonomy):
    sources = st.table_sources(results, taxonomy.edges, paper_table3=st.PAPER_TABLE3, paper_quotes=st.PAPER_QUOTES,
                               paper_models=st.PAPER_MODELS, models={"strong": {"source": "random:llama"}})
    compare = next(a for a in sa.ARTIFACTS if a.name == "compare_paper")
    table, _ = compare.builder(sources)
    assert list(table["comparison"].unique()) == [st.TABLE3_COMPARISON, *st.BIAS_MODULES.values()]
    table3_rows = table[table["comparison"] == st.TABLE3_COMPARISON]
    assert (table3_rows["paper_source"].dropna() == "Table 3").all()
    assert table3_rows["paper_model"].iloc[0] == "GPT-4 Turbo"
    bias = table[table["comparison"] != st.TABLE3_COMPARISON]
    assert bias["paper_source"].str.startswith("Sec. 5").all() and bias["our_model"].notna().all()
    assert ".575" in compare.reproduces and ".173" in compare.reproduces


def test_a_paper_file_naming_another_module_fails_naming_it(tmp_path, results):
    bad = tmp_path / "bias.csv"
    bad.write_text("paper_model,module,paper_value,source\nGPT-4 Turbo,2.4,0.5,x\n")
    with pytest.raises(ValueError, match=r"modules \['2.4'\] are not the Cognitive Bias SRC's"):
        st.compare_cognitive_bias(results, bad)
