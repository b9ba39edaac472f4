"""Adapter: rule rb_figures (Figs 2-6 and the single-die figure, in one job)."""

import pandas as pd

from choicelab.figures import revealed_belief as figs
from choicelab.pipelines import revealed_belief as rb
from choicelab.provenance import write_artifact
from choicelab.workflow import job_record, log_to, output_pairs

CAPTIONS = {
    "fig2": ("Figure 2", "RevB Chebyshev distance per task, base vs instruct models"),
    "fig3": ("Figure 3", "RevB distributions for 4 abstract choices and 3 coins, with RevB and StaA errors"),
    "fig4": ("Figure 4", "RevB of one die with no prior and with a previous roll"),
    "fig5": ("Figure 5", "distribution of the per-(model, setting) increase of the Chebyshev error over the same dice's "
                         "single roll, for a prior independent result and for one observation (box plots)"),
    "fig6": ("Figure 6", "order effect of the options Left / Right"),
    "fig_single_die": ("extra", "RevB over the faces of one die vs the true uniform distribution"),
}


def draw(name, metrics, scenarios, dump, models, roles):
    """The figure and a note for its caption."""
    if name == "fig2":
        return figs.fig2_boxplots(metrics, roles), ""
    if name == "fig3":
        table = metrics[metrics["setting_id"].isin(["choice-single-4", "coins-single-3c-b1-heads"])]
        table = table.pivot_table(index=["setting_id", "method"], columns="model", values="chebyshev").reset_index()
        return figs.fig3_distributions(dump, scenarios, table, models), ""
    if name == "fig4":
        faces = 10 if 10 in snakemake.params.faces else max(snakemake.params.faces)
        note = "" if faces == 10 else f" (no 10-sided die in this configuration: {faces} faces shown)"
        return figs.fig4_die_priors(dump, scenarios, models, faces), note
    if name == "fig5":
        return figs.fig5_increase(rb.baseline_increases(metrics, scenarios, roles)), ""
    if name == "fig6":
        return figs.fig6_order(dump, scenarios, models), ""
    return figs.single_die_figure(dump, scenarios, models), ""


with log_to(snakemake.log[0]):
    record = job_record(snakemake)
    metrics = pd.read_parquet(snakemake.input.metrics)
    scenarios = pd.read_parquet(snakemake.input.scenarios)
    dump = pd.concat([pd.read_parquet(p) for p in snakemake.input.revealed], ignore_index=True)
    models, roles = list(snakemake.params.models), dict(snakemake.params.roles)
    for name, (png, svg) in output_pairs(snakemake.output, ".png", ".svg").items():
        fig, note = draw(name, metrics, scenarios, dump, models, roles)
        figs.save_figure(fig, png, svg)
        reproduces, what = CAPTIONS[name]
        write_artifact(
            [png, svg], artifact_id=f"revealed_belief/{name}", reproduces=reproduces,
            caption=f"{reproduces}: {what}{note}. {rb.models_note(models, roles)}",
            record=record,
        )
