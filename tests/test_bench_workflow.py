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


def test_model_jobs_are_ranked_by_their_useful_flops_share_of_the_peak_lowest_first():
    """share = useful (non-padding) FLOPs / seconds / (threads x one-thread peak); a log written before useful FLOPs
    were counted estimates them from its real tokens' share."""
    bench = _workflow_bench()
    model = {"tokens": 100, "real_tokens": 50, "flops": 4.0e9, "useful_flops": 2.0e9}
    jobs = {"probes/finetune_slow.log": {"seconds": 10.0, "threads": 2, "models": {"m": model}},
            "bets/finetune_fast.log": {"seconds": 1.0, "threads": 1, "models": {"m": model}},
            "old/finetune_old.log": {"seconds": 4.0, "threads": 1,
                                     "models": {"m": {"tokens": 100, "real_tokens": 25, "flops": 4.0e9}}}}
    assert bench.job_usage(jobs["probes/finetune_slow.log"], peak=1.0e9)["share"] == 2.0e9 / 10.0 / (2 * 1.0e9)
    assert bench.job_usage(jobs["old/finetune_old.log"], peak=1.0e9)["useful_flops"] == 1.0e9
    rows = [line.split()[0] for line in bench.model_report(jobs, peak=1.0e9).splitlines()[3:]]
    assert rows == ["probes/finetune_slow.log", "old/finetune_old.log", "bets/finetune_fast.log"]
