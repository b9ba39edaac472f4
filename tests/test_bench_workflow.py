"""bench/workflow.py summarizes a run's benchmark files: wall seconds and CPU seconds per study, so a run measured on a
busy machine still says what its jobs cost."""

from __future__ import annotations

import importlib.util
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _workflow_bench():
    spec = importlib.util.spec_from_file_location("bench_workflow", REPO / "bench" / "workflow.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _benchmark(path: Path, seconds: float, cpu: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("s\th:m:s\tmax_rss\tmean_load\tcpu_time\n"
                    f"{seconds}\t0:00:00\t1.0\t50.0\t{cpu}\n")


def test_cpu_seconds_are_summed_per_study_and_bound_the_wall_time_on_free_cores(tmp_path):
    bench = _workflow_bench()
    root = tmp_path / "results" / "benchmarks"
    _benchmark(root / "probes" / "finetune_m__anli__seed1.tsv", 400.0, "180.0")
    _benchmark(root / "probes" / "finetune_m__anli__seed2.tsv", 390.0, "170.0")
    _benchmark(root / "steer" / "score_m.tsv", 100.0, "50.0")
    _benchmark(root / "steer" / "benchmark.tsv", 3.0, "NA")  # a job too short for Snakemake to read its CPU time
    cpu = bench.job_cpu_seconds(tmp_path)
    assert cpu == {"probes/finetune_m__anli__seed1.tsv": 180.0, "probes/finetune_m__anli__seed2.tsv": 170.0,
                   "steer/score_m.tsv": 50.0}
    text = bench.cpu_report(cpu, cores=2)
    assert "400.0 s; over 2 cores: 200.0 s" in text
    probes_line = next(line for line in text.splitlines() if line.startswith("probes "))
    assert "350.0" in probes_line and "87.5%" in probes_line
    assert bench.job_seconds(tmp_path)["steer/benchmark.tsv"] == 3.0
