"""Adapter: rule probes_tables (Tables 1-2, the in-text tables and the comparison with the paper, in one job)."""

import functools

import numpy as np
import pandas as pd

from choicelab.io import write_csv, write_text
from choicelab.pipelines import probes as pp
from choicelab.provenance import write_artifact
from choicelab.workflow import job_record, log_to, output_pairs

REPRODUCES = {
    "table1": "Table 1 (Wrong-Question) with the paper's significance tests at 99%",
    "table2": "Table 2 (MaxProb thresholds and accuracies; instances split 50/50, mean +- SE over trials)",
    "table_accuracy": "extra: dev accuracy of the fine-tuned encoders (exact 95% CIs), their train data and model selection",
    "table_nra": "in-text: No-Right-Answer confidences ANC, ANC', RAC, SAC (Fig. 4 numbers)",
    "table_choice_paralysis": "in-text: Choice Paralysis confidence, accuracy and c_p - c by n and sampling (Fig. 5 numbers)",
    "table_hits_at_k": "in-text: hits@k for every k up to n under Choice Paralysis (Fig. 6 numbers)",
    "table_label_balance": "in-text: label balance of gold labels and predictions",
    "table_lengths": "in-text: length in words of the selected vs the non-selected choices (95% CI)",
    "table_overlap": "in-text: Pearson r of the prompt-overlap word frequencies in selected vs non-selected choices",
    "compare_paper": "extra: the paper's Tables 1 and 2 beside ours",
}

with log_to(snakemake.log[0]):
    record = job_record(snakemake)
    seed = int(snakemake.params.seed)
    conf = pd.read_parquet(snakemake.input.confidences)
    conf["probs"] = conf["probs"].map(np.asarray)
    dev = pd.concat([pd.read_parquet(p) for p in snakemake.input.dev], ignore_index=True)
    train = pd.concat([pd.read_parquet(p) for p in snakemake.input.train], ignore_index=True)
    info = pp.train_info(train)
    table1 = functools.cache(lambda: pp.table1(conf))  # Table 1 and 2 also feed compare_paper
    table2 = functools.cache(lambda: pp.table2(conf, seed, int(snakemake.params.trials)))
    builders = {
        "table1": table1,
        "table2": table2,
        "table_accuracy": lambda: pp.accuracy_table(conf, info),
        "table_nra": lambda: pp.nra_table(conf),
        "table_choice_paralysis": lambda: pp.choice_paralysis_table(conf),
        "table_hits_at_k": lambda: pp.hits_at_k_table(conf),
        "table_label_balance": lambda: pp.label_balance_table(conf),
        "table_lengths": lambda: pp.length_table(conf, dev),
        "table_overlap": lambda: pp.overlap_table(conf, dev),
        "compare_paper": lambda: pp.compare_paper(table1(), table2(), pd.read_csv(snakemake.input.paper1),
                                                  pd.read_csv(snakemake.input.paper2)),
    }
    models = ", ".join(sorted(conf["model"].unique()))
    for name, (csv, md) in output_pairs(snakemake.output, ".csv", ".md").items():
        frame = builders[name]()
        write_csv(csv, frame)
        write_text(md, frame.to_markdown(index=False, floatfmt=".3f") + "\n")
        write_artifact([csv, md], artifact_id=f"probes/{name}", reproduces=REPRODUCES[name],
                       caption=f"{REPRODUCES[name]}; encoders fine-tuned per benchmark: {models}.", record=record)
