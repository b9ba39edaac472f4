"""Benchmark: wall time of the whole workflow per study, for the smoke and the embedded default configs.

Runs ``snakemake --cores N`` from scratch in a fresh working directory (or only summarizes an existing one with
``--summarize DIR``) and prints, side by side:

* the measured wall-clock time of the run and its ratio to the goal (smoke <= 5 min, default <= 30 min on 2 cores);
* per study, the summed wall time of its benchmarked jobs (``benchmark:`` files under results/benchmarks/<study>/;
  model preparation is its own group), and each study's share of the benchmarked total;
* the slowest jobs.

Jobs run in parallel on N cores, so the per-study sums add up to more than the wall time; light rules (tables,
figures) have no ``benchmark:`` file and are only in the total.

Usage: python bench/workflow.py --config smoke [--cores 2] [--workdir DIR] [--mirror ../shared/data]
       python bench/workflow.py --summarize DIR --config default
"""

from __future__ import annotations

import argparse
import csv
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
    lines.append("slowest jobs:")
    for name, seconds in sorted(jobs.items(), key=lambda kv: -kv[1])[:8]:
        lines.append(f"  {seconds:8.1f} s  {name}")
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
        return 0
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix=f"choicelab-{args.config}-"))
    if (workdir / "results").exists():
        raise SystemExit(f"{workdir} already has results/: give a fresh --workdir so the whole workflow runs")
    wall = run(args.config, args.cores, workdir, args.mirror)
    print(report(args.config, wall, job_seconds(workdir)))
    print(f"workdir: {workdir}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
