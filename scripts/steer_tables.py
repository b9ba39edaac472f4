"""Adapter: rule steer_tables (Table 3, the comparison with the paper and the metric tables, in one job)."""

import pandas as pd

from choicelab.io import write_csv, write_text
from choicelab.provenance import write_artifact
from choicelab.studies.steer import tables as st
from choicelab.studies.steer.items.taxonomy import load_taxonomy
from choicelab.workflow import job_record, log_to, output_pairs

WHAT = {
    "table3": "Table 3: average normalized accuracy ((acc - r)/r, acc - r and gap closed) and exact-match accuracy "
              "per model (no adaptation)",
    "compare_paper": "the paper's Table 3 beside ours ((acc - r)/r and the reference code's acc - r)",
    "by_element": "extra: metrics per model, adaptation and element",
    "by_module": "extra: metrics per model, adaptation and module",
    "by_setting": "extra: metrics per model, adaptation and setting",
    "by_grade": "extra: metrics per model, adaptation and grade (the generators' grades)",
    "fig22_grades": "Fig. 22 top numbers: normalized accuracy per model and grade, Foundations at grade 0 (unadapted)",
    "by_domain": "extra: metrics per model, adaptation and domain",
    "domain_robustness": "domain robustness: worst-domain accuracy per element (Fig. 22 bottom numbers)",
    "dependency_robustness": "dependency robustness over transitive ancestors",
    "few_shot": "few-shot effect: normalized accuracy by number of examples",
    "self_explanation": "self-explanation effect: together / separate (/ separate-hidden) vs none, same questions",
    "self_explanation_by_element": "per-element self-explanation effects (Sec. 5), same questions per model",
    "paper_element_quotes": "the per-element numbers Sec. 5 quotes (e.g. GPT-4 certainty effect 0.079 -> 0.508) "
                            "beside ours",
    "paper_definition_fit": "which normalized-accuracy definition the paper's Table 3 fits (chance level each implies)",
    "head_to_head": "head-to-head comparison of every pair of models (Sec. 5): element wins and question record",
    "models": "Tables 1-2: the paper's models and the models we ran",
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
    if name == "self_explanation_by_element":
        return st.self_explanation_by_element(results)
    if name == "paper_element_quotes":
        return st.compare_element_quotes(results, snakemake.input.paper_quotes)
    if name == "paper_definition_fit":
        r = float(metrics["table3"]["random_accuracy"].mean())
        return st.paper_definition_fit(snakemake.input.paper, our_random_accuracy=r)
    if name == "fig22_grades":
        return st.grade_table(results)
    if name == "head_to_head":
        return st.head_to_head(results)
    if name == "models":
        return st.models_table(dict(snakemake.params.models), snakemake.input.paper_models)
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
