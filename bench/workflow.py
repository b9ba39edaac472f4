"""Benchmark: wall time of the whole workflow per study, for the smoke and the embedded default configs.

Runs ``snakemake --cores N`` from scratch in a fresh working directory (or only summarizes an existing one with
``--summarize DIR``) and prints, side by side:

* the measured wall-clock time of the run and its ratio to the goal (smoke <= 5 min, default <= 30 min on 2 cores);
* per study, the summed wall time of its benchmarked jobs (``benchmark:`` files under results/benchmarks/<study>/;
  model preparation is its own group), and each study's share of the benchmarked total;
* the slowest jobs;
* per model job (from the ``choicelab usage:`` line its log ends with, see choicelab.lm.usage), ranked by the share
  of the machine's measured one-thread fp32 matmul peak (times the job's threads) its useful FLOPs (non-padding
  tokens) reached, lowest first: its threads, the tokens its models ran (and the share that was padding), the
  estimated FLOPs, the useful FLOPs, so waste shows (a job far below the peak is bound by something other than
  arithmetic: padding, loading, Python, small batches). Seconds there are the job body's (the
  script's ``log_to`` block: imports, model loading and the work), not Snakemake's start-up.

Jobs run in parallel on N cores, so the per-study sums add up to more than the wall time; light rules (tables,
figures) have no ``benchmark:`` file and are only in the total.

Usage: python bench/workflow.py --config smoke [--cores 2] [--workdir DIR] [--mirror ../shared/data]
       python bench/workflow.py --summarize DIR --config default
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CONFIGS = {"smoke": REPO / "configs" / "smoke.yaml", "default": REPO / "config.yaml"}
GOAL_SECONDS = {"smoke": 5 * 60, "default": 30 * 60}


def job_seconds(workdir: Path) -> dict[str, float]:
    """Wall seconds of every benchmarked job, keyed by its benchmark file (relative to results/benchmarks)."""
    out = {}
    root = workdir / "results" / "benchmarks"
    for path in sorted(root.rglob("*.tsv")):
        with path.open() as handle:
            rows = list(csv.DictReader(handle, delimiter="\t"))
        if rows:
            out[str(path.relative_to(root))] = float(rows[-1]["s"])
    return out


def job_cpu_seconds(workdir: Path) -> dict[str, float]:
    """CPU seconds of every benchmarked job (Snakemake's ``cpu_time`` column), keyed like :func:`job_seconds`.

    Unlike wall seconds they hardly grow when other processes share the cores, so on a busy machine they still say
    what the jobs cost: their sum over the number of cores is a lower bound on the wall time of those jobs on
    that many free cores."""
    out = {}
    root = workdir / "results" / "benchmarks"
    for path in sorted(root.rglob("*.tsv")):
        with path.open() as handle:
            rows = list(csv.DictReader(handle, delimiter="\t"))
        if rows and rows[-1].get("cpu_time") not in (None, "", "NA"):
            out[str(path.relative_to(root))] = float(rows[-1]["cpu_time"])
    return out


def cpu_report(cpu: dict[str, float], cores: int) -> str:
    """Per study, the jobs' CPU seconds, and the bound they put on a run on ``cores`` free cores."""
    if not cpu:
        return "CPU seconds: no benchmark file reports cpu_time"
    total = sum(cpu.values())
    lines = [f"CPU seconds of the benchmarked jobs: {total:.1f} s; over {cores} cores: {total / cores:.1f} s, a lower "
             "bound on their wall time on free cores (light rules and Snakemake's own time come on top)",
             f"{'study':<20} {'CPU seconds':>12} {'share':>7}"]
    for study, seconds in per_study(cpu).items():
        lines.append(f"{study:<20} {seconds:12.1f} {seconds / total:7.1%}")
    lines.append(finetune_report(cpu).replace("seconds", "CPU s  "))
    return "\n".join(lines)


def per_study(jobs: dict[str, float]) -> dict[str, float]:
    totals: dict[str, float] = defaultdict(float)
    for name, seconds in jobs.items():
        totals[name.split("/", 1)[0]] += seconds
    return dict(sorted(totals.items(), key=lambda kv: -kv[1]))


def report(label: str, wall: float | None, jobs: dict[str, float]) -> str:
    lines = [f"config: {label}"]
    if wall is not None:
        goal = GOAL_SECONDS[label]
        lines.append(f"wall-clock: {wall:8.1f} s   goal: {goal} s   wall/goal: {wall / goal:.2f}"
                     f"   {'within' if wall <= goal else 'OVER'} the goal")
    total = sum(jobs.values())
    lines.append(f"benchmarked jobs: {len(jobs)}, summed job time {total:.1f} s")
    lines.append(f"{'study':<20} {'job seconds':>12} {'share':>7}")
    for study, seconds in per_study(jobs).items():
        lines.append(f"{study:<20} {seconds:12.1f} {seconds / total if total else 0:7.1%}")
    lines.append(finetune_report(jobs))
    lines.append("slowest jobs:")
    for name, seconds in sorted(jobs.items(), key=lambda kv: -kv[1])[:8]:
        lines.append(f"  {seconds:8.1f} s  {name}")
    return "\n".join(lines)


def finetune_report(jobs: dict[str, dict] | dict[str, float]) -> str:
    """Per study, the fine-tuning jobs (``finetune_*`` benchmark files: one per checkpoint and seed, or, for probes
    with frozen bottom layers, one per benchmark training every seed): how many, their summed and mean seconds: the
    part of the budget that training seeds multiply."""
    lines = [f"fine-tuning: {'study':<12} {'jobs':>11} {'seconds':>9} {'per job':>15}"]
    grouped: dict[str, list[float]] = defaultdict(list)
    for name, seconds in jobs.items():
        if Path(name).name.startswith("finetune_"):
            grouped[name.split("/", 1)[0]].append(float(seconds))
    for study, values in sorted(grouped.items()):
        lines.append(f"             {study:<12} {len(values):>11} {sum(values):9.1f} {sum(values) / len(values):15.1f}")
    return "\n".join(lines) if grouped else "fine-tuning: no fine-tuning jobs"


USAGE_PREFIX = "choicelab usage: "  # choicelab.lm.usage.USAGE_PREFIX (not imported: that module loads torch)


def model_jobs(workdir: Path) -> dict[str, dict]:
    """The usage record of every job whose log reports one, keyed by its log (relative to results/logs)."""
    out = {}
    root = workdir / "results" / "logs"
    for path in sorted(root.rglob("*.log")):
        lines = [x for x in path.read_text(errors="replace").splitlines() if x.startswith(USAGE_PREFIX)]
        if lines:
            out[str(path.relative_to(root))] = json.loads(lines[-1][len(USAGE_PREFIX):])
    return out


def job_usage(record: dict, peak: float) -> dict[str, float]:
    """A job's tokens, padding share, FLOPs, useful (non-padding) FLOPs and their share of threads x the one-thread
    ``peak``. Logs written before useful FLOPs were counted estimate them as FLOPs x the real tokens' share."""
    models = record["models"].values()
    tokens = sum(m["tokens"] for m in models)
    real = sum(m["real_tokens"] for m in models)
    flops = sum(m["flops"] for m in models)
    useful = sum(m.get("useful_flops", m["flops"] * (m["real_tokens"] / m["tokens"] if m["tokens"] else 1.0))
                 for m in models)
    seconds, threads = record["seconds"], record.get("threads") or 1
    return {"threads": threads, "tokens": tokens, "padding": 1 - real / tokens if tokens else 0.0, "flops": flops,
            "useful_flops": useful, "seconds": seconds,
            "share": useful / seconds / (threads * peak) if seconds and peak else 0.0}


def model_report(jobs: dict[str, dict], peak: float) -> str:
    """The model jobs ranked by the share of the machine's one-thread matmul peak (times their threads) that their
    useful FLOPs reached, lowest first: the jobs furthest from the machine's pace lead."""
    rows = {name: job_usage(record, record.get("one_thread_peak_flops") or peak) for name, record in jobs.items()}
    lines = ["model jobs, furthest from the machine's pace first (tokens and FLOPs from choicelab.lm.usage; useful ="
             " non-padding; share = useful FLOP/s over threads x the one-thread fp32 matmul peak):",
             f"  one-thread matmul peak: {peak / 1e9:7.1f} GFLOP/s (choicelab.lm.usage.one_thread_peak, cached)",
             f"  {'job':<46} {'thr':>3} {'tokens':>9} {'pad':>5} {'GFLOP':>9} {'useful':>9} {'s':>7} {'share':>6}"]
    for name, row in sorted(rows.items(), key=lambda kv: kv[1]["share"]):
        lines.append(f"  {name[:46]:<46} {row['threads']:>3} {row['tokens']:9d} {row['padding']:5.0%} "
                     f"{row['flops'] / 1e9:9.1f} {row['useful_flops'] / 1e9:9.1f} {row['seconds']:7.1f} "
                     f"{row['share']:6.1%}")
    return "\n".join(lines)


def run(config: str, cores: int, workdir: Path, mirror: str | None) -> float:
    command = [sys.executable, "-m", "snakemake", "--cores", str(cores), "-s", str(REPO / "Snakefile"),
               "-d", str(workdir), "--configfile", str(CONFIGS[config])]
    if mirror:
        command += ["--config", f"data_mirror={mirror}"]
    start = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout[-3000:] + proc.stderr[-5000:])
        raise SystemExit(f"the {config} workflow failed after {wall:.0f} s; see {workdir}/results/logs")
    return wall


def usage_report(workdir: Path) -> str:
    jobs = model_jobs(workdir)
    if not jobs:
        return "model jobs: none reported usage (logs without a 'choicelab usage:' line)"
    from choicelab.lm.usage import one_thread_peak

    return model_report(jobs, one_thread_peak())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", choices=sorted(CONFIGS), default="smoke")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--workdir", type=Path, default=None, help="fresh working directory (default: a temp dir)")
    parser.add_argument("--mirror", default=str(REPO.parent / "shared" / "data"), help="data_mirror for the run")
    parser.add_argument("--summarize", type=Path, default=None, help="only summarize an existing run's benchmarks")
    args = parser.parse_args(argv)
    if args.summarize:
        print(report(args.config, None, job_seconds(args.summarize)))
        print(cpu_report(job_cpu_seconds(args.summarize), args.cores))
        print(usage_report(args.summarize))
        return 0
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix=f"choicelab-{args.config}-"))
    if (workdir / "results").exists():
        raise SystemExit(f"{workdir} already has results/: give a fresh --workdir so the whole workflow runs")
    wall = run(args.config, args.cores, workdir, args.mirror)
    print(report(args.config, wall, job_seconds(workdir)))
    print(cpu_report(job_cpu_seconds(workdir), args.cores))
    print(usage_report(workdir))
    print(f"workdir: {workdir}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
