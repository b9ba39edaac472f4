"""Adapter: rule steer_benchmark (every selected (element, domain, grade) test, generated with its solver, and the
few-shot pool of solved examples per test, disjoint from the scored questions)."""

from collections import Counter

from choicelab.mc.items import write_items
from choicelab.provenance import record_json
from choicelab.studies.steer.items.base import FEWSHOT_SPLIT, generate_benchmark_with_pool, questions_to_items
from choicelab.studies.steer.scoring import check_pool_size
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    scale = {"seed": int(snakemake.config["seed"]), **dict(snakemake.params.scale)}
    pool_size = int(snakemake.params.fewshot_pool)
    check_pool_size(pool_size, snakemake.params.adaptations)
    questions, pool = generate_benchmark_with_pool(scale, pool_size)
    if not questions:
        raise ValueError("studies.steer.scale selects no question: check its elements, domains and grades")
    per_element = Counter(q.element for q in questions)
    print(f"{len(questions)} questions, {len(per_element)} elements: {dict(sorted(per_element.items()))}")
    print(f"few-shot pool: {len(pool)} solved examples ({pool_size} per test)")
    record = record_json(job_record(snakemake))
    write_items(snakemake.output.benchmark, questions_to_items(questions), record)
    write_items(snakemake.output.pool, questions_to_items(pool, FEWSHOT_SPLIT), record)
