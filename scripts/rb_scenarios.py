"""Adapter: rule rb_scenarios (the scenario grid and the stated-answer questions)."""

from choicelab.io import write_parquet
from choicelab.items.revealed_belief import all_scenarios, stated_questions
from choicelab.pipelines.revealed_belief import questions_table, scenarios_table
from choicelab.provenance import record_json
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    p = snakemake.params
    scenarios = [s for s in all_scenarios(faces=tuple(p.faces), families=tuple(p.families))
                 if s.family != "dice" or s.params["dice"] in set(p.n_dice)]
    questions = [q for s in scenarios for q in stated_questions(s, seed=int(p.seed), max_outcomes=p.staa_max_outcomes)]
    provenance = {"choicelab.provenance": record_json(job_record(snakemake))}
    write_parquet(snakemake.output.scenarios, scenarios_table(scenarios), provenance)
    write_parquet(snakemake.output.questions, questions_table(questions), provenance)
