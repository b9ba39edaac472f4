"""Adapter: rule probes_figures (Figs 3-6 in one job)."""

import numpy as np
import pandas as pd

from choicelab.figures import probes as figs
from choicelab.plotting import save_figure
from choicelab.pipelines import probes as pp
from choicelab.provenance import write_artifact
from choicelab.workflow import job_record, log_to, output_pairs

WHAT = {"fig3": "Figure 3: No-Question confidences before and after",
        "fig4": "Figure 4: No-Right-Answer confidence differences with standard errors",
        "fig5": "Figure 5: Choice Paralysis confidence by n and sampling (mean +- SE over trials; grey: original)",
        "fig6": "Figure 6: hits@k under Choice Paralysis, both samplings (+- SE; dashed: original accuracy)"}


def draw(name, conf):
    if name == "fig3":
        return figs.fig3_no_question(conf)
    if name == "fig4":
        return figs.fig4_no_right_answer(pp.nra_table(conf))
    if name == "fig5":
        return figs.fig5_choice_paralysis(pp.choice_paralysis_table(conf))
    return figs.fig6_hits_at_k(pp.hits_at_k_table(conf))


with log_to(snakemake.log[0]):
    record = job_record(snakemake)
    conf = pd.read_parquet(snakemake.input.confidences)
    conf["probs"] = conf["probs"].map(np.asarray)
    models = ", ".join(sorted(conf["model"].unique()))
    for name, (png, svg) in output_pairs(snakemake.output, ".png", ".svg").items():
        save_figure(draw(name, conf), png, svg)
        write_artifact([png, svg], artifact_id=f"probes/{name}", reproduces=WHAT[name].split(":")[0],
                       caption=f"{WHAT[name]}; encoders fine-tuned per benchmark: {models}.", record=record)
