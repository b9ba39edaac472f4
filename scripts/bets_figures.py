"""Adapter: rule bets_figures (Figs 1-3 in one job)."""

from choicelab.artifacts import by_name, caption_naming
from choicelab.plotting import save_figure
from choicelab.provenance import write_artifact
from choicelab.studies.bets.artifacts import ARTIFACTS
from choicelab.studies.bets.competence import note as gate_note
from choicelab.studies.bets.figures import mark_gate
from choicelab.studies.bets.seeds import seeds_caption
from choicelab.studies.bets.tables import gated_evaluations
from choicelab.workflow import job_record, log_to, output_pairs

with log_to(snakemake.log[0]):
    record, artifacts = job_record(snakemake), by_name(ARTIFACTS)
    evaluations, _, gates = gated_evaluations(snakemake.input.evaluations, snakemake.input.checkpoints)
    competence = gate_note(gates)
    note = seeds_caption(evaluations) + (f". {competence}" if competence else "")
    for name, (png, svg) in output_pairs(snakemake.output, ".png", ".svg").items():
        artifact = artifacts[name]
        save_figure(mark_gate(artifact.builder(evaluations), gates), png, svg)
        write_artifact([png, svg], artifact_id=f"bets/{name}", reproduces=artifact.reproduces,
                       caption=caption_naming(f"{artifact.caption}{note}", sorted(evaluations["model"].unique()),
                                              "encoders"),
                       record=record)
