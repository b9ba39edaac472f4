"""Adapter: rule steer_figure."""

import pandas as pd

from choicelab.items.steer.taxonomy import load_taxonomy
from choicelab.provenance import write_artifact
from choicelab.studies import steer as st
from choicelab.workflow import job_record, log_to

MODULE_OF_FIGURE = {f"fig{number}": module for module, number in st.MODULE_FIGURES.items()}

with log_to(snakemake.log[0]):
    name = snakemake.wildcards.figure
    out = snakemake.output[0]
    results = pd.read_parquet(snakemake.input.questions)
    taxonomy = load_taxonomy(snakemake.input.taxonomy, snakemake.input.dependencies)
    if name == "fig4":
        st.plot_example_report_card(results, taxonomy, out)
        what = "Figure 4 (example report card)"
    elif name == "fig5":
        st.plot_figure5(taxonomy, out)
        what = "Figure 5 (dependency subgraph of IRDS, drawn from data/steer/dependencies.yaml)"
    elif name == "fig22":
        st.plot_grade_and_domain_robustness(results, out)
        what = "Figure 22 (accuracy by grade; worst-case domain vs average)"
    elif name == "fig_few_shot":
        st.plot_few_shot_effect(results, out)
        what = "few-shot effect (Sec. 5)"
    elif name == "fig_self_explanation":
        st.plot_self_explanation_effect(results, out)
        what = "self-explanation effect (Sec. 5)"
    else:
        module = MODULE_OF_FIGURE[name]
        st.plot_module_report_card(results, taxonomy, module, out)
        what = f"Figure {name.removeprefix('fig')} (report card of module {module})"
    models = ", ".join(sorted(results["model"].astype(str).unique()))
    write_artifact([out], artifact_id=f"steer/{name}", reproduces=what, caption=f"{what}; models: {models}.",
                   record=job_record(snakemake))
