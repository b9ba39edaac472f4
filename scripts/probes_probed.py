"""Adapter: rule probes_probed (originals + the four probes of one benchmark's dev items)."""

from choicelab.mc.items import read_items, write_items
from choicelab.provenance import record_json
from choicelab.studies.probes.items import probe_benchmark
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    p = snakemake.params
    probed, embedded = probe_benchmark(read_items(snakemake.input.dev), snakemake.input.embedder, trials=p.trials,
                                       cp_n=p.cp_n, cp_instances=p.cp_instances, cp_sampling=p.cp_sampling,
                                       seed=p.seed, device=p.device)
    models = [snakemake.input.embedder] if embedded else []
    write_items(snakemake.output[0], probed, record_json(job_record(snakemake, models=models)))
