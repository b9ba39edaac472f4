"""Adapter: rule steer_benchmark (every selected (element, domain, grade) test, generated with its solver)."""

from collections import Counter

from choicelab.items.schema import write_items
from choicelab.items.steer.base import generate_benchmark, questions_to_items
from choicelab.provenance import record_json
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    scale = {"seed": int(snakemake.config["seed"]), **dict(snakemake.params.scale)}
    questions = generate_benchmark(scale)
    if not questions:
        raise ValueError("studies.steer.scale selects no question: check its elements, domains and grades")
    per_element = Counter(q.element for q in questions)
    print(f"{len(questions)} questions, {len(per_element)} elements: {dict(sorted(per_element.items()))}")
    write_items(snakemake.output[0], questions_to_items(questions), record_json(job_record(snakemake)))
