"""Adapter: rule steer_benchmark (every selected (element, domain, grade) test, generated with its solver, and the
few-shot pool of solved examples per test, disjoint from the scored questions)."""

from choicelab.provenance import record_json
from choicelab.studies.steer.adaptations import names
from choicelab.studies.steer.benchmark import write_benchmark
from choicelab.studies.steer.settings import Scale
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    p = snakemake.params
    write_benchmark(Scale(**p.scale).benchmark_scale(int(p.seed)), p.fewshot_pool, names(p.adaptations),
                    snakemake.output.benchmark, snakemake.output.pool, record_json(job_record(snakemake)))
