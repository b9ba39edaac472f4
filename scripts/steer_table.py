"""Adapter: rule steer_table."""

import pandas as pd

from choicelab.io import write_csv, write_text
from choicelab.items.steer.taxonomy import load_taxonomy
from choicelab.provenance import write_artifact
from choicelab.studies import steer as st
from choicelab.workflow import job_record, log_to

WHAT = {
    "table3": "Table 3: average normalized and exact-match accuracy per model (no adaptation)",
    "compare_paper": "the paper's Table 3 beside ours",
    "by_element": "extra: metrics per model, adaptation and element",
    "by_module": "extra: metrics per model, adaptation and module",
    "by_setting": "extra: metrics per model, adaptation and setting",
    "by_grade": "extra: metrics per model, adaptation and grade (Fig. 22 top numbers)",
    "by_domain": "extra: metrics per model, adaptation and domain",
    "domain_robustness": "domain robustness: worst-domain accuracy per element (Fig. 22 bottom numbers)",
    "dependency_robustness": "dependency robustness over transitive ancestors",
    "few_shot": "few-shot effect: normalized accuracy by number of examples",
    "self_explanation": "self-explanation effect: together / separate vs none",
}

with log_to(snakemake.log[0]):
    name = snakemake.wildcards.table
    results = pd.read_parquet(snakemake.input.questions)
    taxonomy = load_taxonomy(dependencies_path=snakemake.input.dependencies)
    if name == "table3":
        frame = st.table3(results)
    elif name == "compare_paper":
        frame = st.compare_paper(st.table3(results), snakemake.input.paper)
    elif name == "few_shot":
        frame = st.few_shot_table(results)
    elif name == "self_explanation":
        frame = st.self_explanation_table(results)
    else:
        frame = st.metric_tables(results, taxonomy.edges)[name]
    write_csv(snakemake.output.csv, frame)
    write_text(snakemake.output.md, frame.to_markdown(index=False, floatfmt=".3f") + "\n")
    models = ", ".join(sorted(results["model"].astype(str).unique()))
    write_artifact([snakemake.output.csv, snakemake.output.md], artifact_id=f"steer/{name}", reproduces=WHAT[name],
                   caption=f"{WHAT[name]}; models: {models}.", record=job_record(snakemake))
