"""Adapter: rule steer_tables (Table 3, the comparison with the paper and the metric tables, in one job)."""

import pandas as pd

from choicelab.io import write_csv, write_text
from choicelab.items.steer.taxonomy import load_taxonomy
from choicelab.provenance import write_artifact
from choicelab.studies import steer as st
from choicelab.workflow import job_record, log_to, output_pairs

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


def build(name, results, metrics):
    """The table ``name``; ``metrics`` holds the metric tables (by_*, robustness, table3) computed once."""
    if name == "table3":
        return metrics["table3"]
    if name == "compare_paper":
        return st.compare_paper(metrics["table3"], snakemake.input.paper)
    if name == "few_shot":
        return st.few_shot_table(results)
    if name == "self_explanation":
        return st.self_explanation_table(results)
    return metrics[name]


with log_to(snakemake.log[0]):
    record = job_record(snakemake)
    results = pd.read_parquet(snakemake.input.questions)
    taxonomy = load_taxonomy(dependencies_path=snakemake.input.dependencies)
    metrics = st.metric_tables(results, taxonomy.edges)
    if "table3" not in metrics:
        metrics["table3"] = st.table3(results)  # raises: no unadapted rows
    models = ", ".join(sorted(results["model"].astype(str).unique()))
    for name, (csv, md) in output_pairs(snakemake.output, ".csv", ".md").items():
        frame = build(name, results, metrics)
        write_csv(csv, frame)
        write_text(md, frame.to_markdown(index=False, floatfmt=".3f") + "\n")
        write_artifact([csv, md], artifact_id=f"steer/{name}", reproduces=WHAT[name],
                       caption=f"{WHAT[name]}; models: {models}.", record=record)
