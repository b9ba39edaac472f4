"""Adapter: rule probes_figure."""

import numpy as np
import pandas as pd

from choicelab.figures import probes as figs
from choicelab.figures.common import save_figure
from choicelab.pipelines import probes as pp
from choicelab.provenance import write_artifact
from choicelab.workflow import job_record, log_to

WHAT = {"fig3": "Figure 3: No-Question confidences before and after", "fig4": "Figure 4: No-Right-Answer confidences",
        "fig5": "Figure 5: Choice Paralysis confidence vs n and sampling", "fig6": "Figure 6: hits@k under Choice Paralysis"}

with log_to(snakemake.log[0]):
    name = snakemake.wildcards.figure
    conf = pd.read_parquet(snakemake.input.confidences)
    conf["probs"] = conf["probs"].map(np.asarray)
    if name == "fig3":
        fig = figs.fig3_no_question(conf)
    elif name == "fig4":
        fig = figs.fig4_no_right_answer(pp.nra_table(conf))
    elif name == "fig5":
        fig = figs.fig5_choice_paralysis(pp.choice_paralysis_table(conf))
    else:
        fig = figs.fig6_hits_at_k(conf)
    save_figure(fig, snakemake.output.png, snakemake.output.svg)
    models = ", ".join(sorted(conf["model"].unique()))
    write_artifact([snakemake.output.png, snakemake.output.svg], artifact_id=f"probes/{name}", reproduces=WHAT[name].split(":")[0],
                   caption=f"{WHAT[name]}; encoders fine-tuned per benchmark: {models}.", record=job_record(snakemake))
