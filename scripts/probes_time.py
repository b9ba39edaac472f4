"""Adapter: rule probes_time (wall time of scoring the Choice Paralysis instances per n; not byte-reproducible)."""

import time

import pandas as pd

from choicelab.io import write_csv
from choicelab.mc.items import read_items
from choicelab.lm.loading import load_encoder_mc
from choicelab.mc.scoring import score_encoder
from choicelab.pipelines.probes import choice_paralysis_groups
from choicelab.workflow import log_to

with log_to(snakemake.log[0]):
    model, tokenizer, _ = load_encoder_mc(snakemake.input.checkpoint, seed=0, device=snakemake.params.device)
    groups = choice_paralysis_groups(read_items(snakemake.input.probed))
    rows = []
    for n, items in groups.items():
        score_encoder(model, tokenizer, items[:2], study="probes", model="warmup")  # first-call overheads
        start = time.perf_counter()
        score_encoder(model, tokenizer, items, study="probes", model=snakemake.wildcards.model,
                      max_length=int(snakemake.params.max_length))
        seconds = time.perf_counter() - start
        rows.append({"benchmark": snakemake.wildcards.benchmark, "model": snakemake.wildcards.model, "n": n,
                     "instances": len(items), "seconds": seconds})
        print(f"n={n}: {len(items)} instances in {seconds:.2f} s")
    write_csv(snakemake.output[0], pd.DataFrame(rows, columns=["benchmark", "model", "n", "instances", "seconds"]))
