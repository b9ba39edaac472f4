"""Adapter: rule probes_benchmark (train and dev items of one commonsense benchmark)."""

from choicelab.items.commonsense import has_split, load_benchmark, train_dev_split
from choicelab.items.schema import MCItem, write_items
from choicelab.pipelines.probes import subsample
from choicelab.provenance import record_json
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    p = snakemake.params
    name = snakemake.wildcards.benchmark
    dev = load_benchmark(name, "dev", p.root)
    if has_split(name, "train"):
        train, source = load_benchmark(name, "train", p.root), "train subset"
    else:
        train, dev = train_dev_split(dev, float(p.dev_train_fraction), int(p.seed))
        source = f"seeded {p.dev_train_fraction:.0%} split of dev (no train file)"
    train = [MCItem(**{**it.__dict__, "meta": {**it.meta, "train_source": source}}) for it in subsample(train, p.train_size, int(p.seed))]
    dev = subsample(dev, p.dev_size, int(p.seed) + 1)
    print(f"{name}: {len(train)} train items ({source}), {len(dev)} dev items")
    provenance = record_json(job_record(snakemake))
    write_items(snakemake.output.train, train, provenance)
    write_items(snakemake.output.dev, dev, provenance)
