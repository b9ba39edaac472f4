"""Adapter: rule steer_figures (Figs 4-5, the module report cards 7-21, Fig. 22 and the effects, in one job)."""

import pandas as pd

from choicelab.provenance import write_artifact
from choicelab.studies.steer import figures as st
from choicelab.studies.steer.items.taxonomy import load_taxonomy
from choicelab.workflow import job_record, log_to, outputs_by_name

MODULE_OF_FIGURE = {f"fig{number}": module for module, number in st.MODULE_FIGURES.items()}


def draw(name, results, taxonomy, out):
    """Draw the figure ``name`` to ``out``; returns what it reproduces."""
    if name == "fig4":
        st.plot_example_report_card(results, taxonomy, out)
        return "Figure 4 (example report card)"
    if name == "fig5":
        st.plot_figure5(taxonomy, out)
        return "Figure 5 (dependency subgraph of IRDS, drawn from data/steer/dependencies.yaml)"
    if name == "fig22":
        st.plot_grade_and_domain_robustness(results, out)
        return "Figure 22 (accuracy by grade; worst-case domain vs average)"
    if name == "fig_few_shot":
        st.plot_few_shot_effect(results, out)
        return "few-shot effect (Sec. 5)"
    if name == "fig_self_explanation":
        st.plot_self_explanation_effect(results, out)
        return "self-explanation effect (Sec. 5)"
    module = MODULE_OF_FIGURE[name]
    st.plot_module_report_card(results, taxonomy, module, out)
    return f"Figure {name.removeprefix('fig')} (report card of module {module})"


with log_to(snakemake.log[0]):
    record = job_record(snakemake)
    results = pd.read_parquet(snakemake.input.questions)
    taxonomy = load_taxonomy(snakemake.input.taxonomy, snakemake.input.dependencies)
    models = ", ".join(sorted(results["model"].astype(str).unique()))
    for name, out in outputs_by_name(snakemake.output, ".png").items():
        what = draw(name, results, taxonomy, out)
        write_artifact([out], artifact_id=f"steer/{name}", reproduces=what, caption=f"{what}; models: {models}.",
                       record=record)
