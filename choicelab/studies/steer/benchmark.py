"""The benchmark step: generate the selected tests' questions and the few-shot pool, and write both as MC item files
(schema mc_items/1; the pool's split is ``fewshot``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from choicelab.mc.items import write_items
from choicelab.studies.steer.items.base import (
    FEWSHOT_SPLIT,
    BenchmarkScale,
    generate_benchmark_with_pool,
    questions_to_items,
)
from choicelab.studies.steer.scoring import check_pool_size


def write_benchmark(scale: BenchmarkScale, fewshot_pool: int, adaptations: Sequence[str], benchmark: str | Path,
                    pool: str | Path, record: str) -> None:
    """Generate ``scale``'s questions plus ``fewshot_pool`` solved examples per test and write both files.

    Fails before generating when the pool cannot supply the largest n-shot of ``adaptations``, and when the scale
    selects no question."""
    check_pool_size(fewshot_pool, adaptations)
    questions, examples = generate_benchmark_with_pool(scale, fewshot_pool)
    if not questions:
        raise ValueError("studies.steer.scale selects no question: check its elements, domains and grades")
    per_element = Counter(q.element for q in questions)
    print(f"{len(questions)} questions, {len(per_element)} elements: {dict(sorted(per_element.items()))}")
    print(f"few-shot pool: {len(examples)} solved examples ({fewshot_pool} per test)")
    write_items(benchmark, questions_to_items(questions), record)
    write_items(pool, questions_to_items(examples, FEWSHOT_SPLIT), record)
