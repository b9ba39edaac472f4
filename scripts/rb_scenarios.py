"""Adapter: rule rb_scenarios (the scenario grid and the stated-answer questions)."""

from choicelab.io import write_parquet
from choicelab.provenance import record_json
from choicelab.studies.revealed_belief.items import all_scenarios, scenarios_table
from choicelab.studies.revealed_belief.stated import all_questions, questions_table
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    p = snakemake.params
    scenarios = all_scenarios(faces=p.faces, n_dice=p.n_dice, families=p.families)
    questions = all_questions(scenarios, seed=int(p.seed), max_outcomes=p.staa_max_outcomes)
    provenance = record_json(job_record(snakemake))
    write_parquet(snakemake.output.scenarios, scenarios_table(scenarios), provenance=provenance)
    write_parquet(snakemake.output.questions, questions_table(questions), provenance=provenance)
