"""Adapter: rule rb_stated (one instruct model's stated answers as a logit dump)."""

import pandas as pd

from choicelab.dumps import write_dump
from choicelab.lm.scorer import load_scorer
from choicelab.provenance import record_json
from choicelab.studies.revealed_belief.scoring import stated_rows
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    questions = pd.read_parquet(snakemake.input.questions)
    scorer, _ = load_scorer(snakemake.input.model, device=snakemake.params.device,
                            max_batch_tokens=snakemake.params.max_batch_tokens)
    rows, used_chat = stated_rows(scorer, questions, snakemake.wildcards.model,
                                  chat_template=snakemake.params.chat_template)
    print(f"{len(questions)} questions; chat template used: {used_chat}")
    write_dump(snakemake.output[0], rows, record_json(job_record(snakemake, models=[snakemake.input.model])))
