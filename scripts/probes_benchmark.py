"""Adapter: rule probes_benchmark (train items, with the held-out slice for model selection, and dev items)."""

from choicelab.mc.items import write_items
from choicelab.provenance import record_json
from choicelab.studies.probes.items import benchmark_splits, gate_items
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    p = snakemake.params
    train, dev = benchmark_splits(
        snakemake.wildcards.benchmark, root=p.root, full_root=p.full_root, train_data=p.train_data,
        train_size=p.train_size, dev_size=p.dev_size, dev_train_fraction=p.dev_train_fraction,
        heldout_fraction=p.heldout_fraction, seed=p.seed,
    )
    provenance = record_json(job_record(snakemake))
    write_items(snakemake.output.train, train, provenance)
    write_items(snakemake.output.dev, dev, provenance)
    gate = gate_items(snakemake.wildcards.benchmark, root=p.root, train_data=p.train_data, size=p.gate_items,
                      dev_train_fraction=p.dev_train_fraction, seed=p.seed)
    write_items(snakemake.output.gate, gate, provenance)
