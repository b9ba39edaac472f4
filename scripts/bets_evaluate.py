"""Adapter: rule bets_evaluate (every evaluation of RQ1-RQ3 from the dumps)."""

import pandas as pd

from choicelab.dumps import read_dump
from choicelab.io import write_parquet
from choicelab.mc.items import read_items
from choicelab.provenance import record_json
from choicelab.settings import read
from choicelab.studies.bets import evaluation as ev
from choicelab.studies.bets.settings import Settings
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    questions = ev.questions_by_key(it for path in snakemake.input.benchmarks for it in read_items(path))
    dump = pd.concat([read_dump(p).to_pandas() for p in snakemake.input.dumps], ignore_index=True)
    scores = ev.question_scores(dump, questions)
    evaluations, per_question = ev.evaluate_all(scores, list(snakemake.params.models),
                                              read(Settings, snakemake.params.settings, "studies.bets"))
    provenance = record_json(job_record(snakemake))
    write_parquet(snakemake.output.evaluations, ev.to_arrow(evaluations, ev.EVALUATION_SCHEMA), provenance=provenance)
    write_parquet(snakemake.output.questions, ev.to_arrow(per_question, ev.PER_QUESTION_SCHEMA), provenance=provenance)
    print(evaluations.groupby(["rq", "ground_truth"]).size())
