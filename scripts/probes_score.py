"""Adapter: rule probes_score (fine-tuned checkpoints' confidences on the originals and every probe of a benchmark:
every seed's checkpoint in one job where the recipe froze bottom layers, else the job's ``seed``)."""

from choicelab.dumps import write_dump
from choicelab.mc.finetune import checkpoints_mc_logits
from choicelab.mc.items import read_items
from choicelab.mc.scoring import encoder_rows
from choicelab.provenance import record_json
from choicelab.studies.probes.jobs import job_seeds
from choicelab.studies.probes.scoring import checkpoint_label
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    w = snakemake.wildcards
    seeds = job_seeds(w, snakemake.params)
    given = snakemake.input.checkpoints  # one folder (a seed's job) or a list (every seed's)
    checkpoints = [given] if isinstance(given, str) else list(given)
    probed = read_items(snakemake.input.probed)
    logits = checkpoints_mc_logits(checkpoints, probed, input_format="pair", max_length=snakemake.params.max_length,
                                   device=snakemake.params.device)
    for seed, checkpoint, values, out in zip(seeds, checkpoints, logits, snakemake.output, strict=True):
        rows = encoder_rows(probed, values, study="probes", model=checkpoint_label(w.model, seed))
        write_dump(out, rows, record_json(job_record(snakemake, models=[checkpoint])))
