"""Benchmark: a choice-behaviour card for the embedded SmolLM2 from a clean results/ (goal: <= 10 min on 2 cores),
then a second card beside it, which must reuse every shared step.

Runs ``snakemake cards`` with the embedded default config in a fresh working directory, twice:

1. ``card_models=[smollm2-135m-instruct]`` from scratch: wall time against the 10-minute goal, and the card run's
   per-study benchmarked job time (results/cards/_run/results/benchmarks/);
2. ``card_models=[smollm2-135m-instruct, <second>]``: wall time, and which jobs of the card run ran again (from its
   snakemake log): a shared step (a benchmark, a pool, a checkpoint, the first model's dumps) running again is a
   failure of the reuse the cards promise, and is listed.

Usage: python bench/card.py [--cores 2] [--workdir DIR] [--mirror ../shared/data] [--second minilm-l6 | --no-second]
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workflow import job_seconds, per_study  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
GOAL_SECONDS = 10 * 60
FIRST = "smollm2-135m-instruct"
# Steps a second card shares with the first: benchmarks, pools, downloads, models, fine-tuned checkpoints.
SHARED_RULES = ("steer_benchmark", "rb_scenarios", "bets_benchmark", "bets_default_stage", "bets_task_finetune",
                "probes_benchmark", "probes_probed", "probes_finetune", "sm_pragmatics_items", "download_commonsense",
                "download_pragmatics", "download_swag", "prepare_model")


def run_cards(workdir: Path, models: list[str], cores: int, mirror: str | None) -> tuple[float, int]:
    command = [sys.executable, "-m", "snakemake", "cards", "--cores", str(cores), "-s", str(REPO / "Snakefile"),
               "-d", str(workdir), "--configfile", str(REPO / "config.yaml"), "--config",
               f"card_models=[{', '.join(models)}]"]
    if mirror:
        command += [f"data_mirror={Path(mirror).resolve()}"]
    started = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - started
    (workdir / f"bench-{len(models)}.log").write_text(proc.stdout + proc.stderr)
    return wall, proc.returncode


def jobs_run(log: Path) -> list[tuple[str, str]]:
    """(rule, outputs) of every job the card run's snakemake started (from its log), in order."""
    text = log.read_text(errors="replace") if log.is_file() else ""
    return re.findall(r"^(?:local)?rule (\w+):\n(?:    (?!output).*\n)*?    output: (.*)$", text, flags=re.MULTILINE)


def job_costs(run_dir: Path) -> list[tuple[str, float, float]]:
    """(benchmark file, wall s, sampled CPU s) of every benchmarked job of the card run, heaviest CPU first. On a
    shared machine the CPU seconds say what a job costs; its wall seconds include waiting for a core."""
    root = run_dir / "results" / "benchmarks"
    rows = []
    for path in sorted(root.rglob("*.tsv")):
        with path.open() as handle:
            last = list(csv.DictReader(handle, delimiter="\t"))[-1:]
        if last:
            cpu = float(last[0]["cpu_time"]) if last[0].get("cpu_time") not in (None, "", "NA") else float("nan")
            rows.append((str(path.relative_to(root).with_suffix("")), float(last[0]["s"]), cpu))
    return sorted(rows, key=lambda row: -row[2] if row[2] == row[2] else 0.0)


def print_costs(run_dir: Path) -> None:
    rows = job_costs(run_dir)
    print(f"  {'benchmarked job':<58} {'CPU s':>7} {'wall s':>8}")
    for name, wall, cpu in rows:
        print(f"  {name:<58} {cpu:7.1f} {wall:8.1f}")
    print(f"  {len(rows)} jobs: {sum(r[2] for r in rows):.1f} s CPU, {sum(r[1] for r in rows):.1f} s wall")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--mirror", default=None, help="data mirror (else the config's download rules)")
    parser.add_argument("--second", default="minilm-l6", help="the second card model (an entry of config.yaml)")
    parser.add_argument("--no-second", action="store_true", help="time the first card only")
    args = parser.parse_args(argv)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="choicelab-card-bench-"))
    run_log = workdir / "results" / "cards" / "_run" / "snakemake.log"

    print(f"load average at the start: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    wall1, rc1 = run_cards(workdir, [FIRST], args.cores, args.mirror)
    print(f"load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    first_jobs = jobs_run(run_log)
    jobs = job_seconds(workdir / "results" / "cards" / "_run")
    print(f"card 1 ({FIRST}) from a clean results/: {wall1:.0f} s wall on {args.cores} cores "
          f"({wall1 / GOAL_SECONDS:.2f} of the 10-minute goal), return code {rc1}, {len(first_jobs)} jobs")
    for study, seconds in per_study(jobs).items():
        print(f"  {study:<18} {seconds:7.1f} s benchmarked job time")
    print_costs(workdir / "results" / "cards" / "_run")

    if args.no_second:
        print(f"workdir: {workdir}")
        return 0 if rc1 == 0 and wall1 <= GOAL_SECONDS else 1
    wall2, rc2 = run_cards(workdir, [FIRST, args.second], args.cores, args.mirror)
    second_jobs = jobs_run(run_log)
    again = [f"{rule} ({out})" for rule, out in second_jobs if rule in SHARED_RULES and (rule, out) in first_jobs]
    print(f"card 2 (+ {args.second}): {wall2:.0f} s wall, return code {rc2}, {len(second_jobs)} jobs in the card "
          f"run: {sorted({rule for rule, _ in second_jobs})}")
    print("shared steps run again: " + (", ".join(again) if again else "none"))
    print(f"workdir: {workdir}")
    return 0 if rc1 == 0 and rc2 == 0 and wall1 <= GOAL_SECONDS and not again else 1


if __name__ == "__main__":
    raise SystemExit(main())
