"""A smoke run killed with SIGKILL at three points and resumed with --rerun-incomplete, in another folder, ends with
results identical, byte for byte, to an uninterrupted run: dumps, tables, figures, sidecars and model records (so a
reproduction can be checked by hashing); no killed run leaves an unreadable Parquet file behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from conftest import REPO, repo_env, reproducible_files, run_snakemake

pytestmark = pytest.mark.slow

KILL_POINTS = [
    "results/models/*/model.json",  # a model materialized
    "results/*/dumps/*.parquet",  # a logit dump written
    "results/*/tables/*.csv",  # a table written
]


def _start(workdir: Path, mirror: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "snakemake", "--cores", "2", "-s", str(REPO / "Snakefile"), "-d", str(workdir),
         "--configfile", str(REPO / "configs" / "smoke.yaml"), "--config", f"data_mirror={mirror}",
         "--rerun-incomplete"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=repo_env(), start_new_session=True,
    )


def _kill_when(proc: subprocess.Popen, workdir: Path, pattern: str, timeout: float = 600) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if list(workdir.glob(pattern)):
            break
        time.sleep(0.2)
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def test_killed_and_resumed_run_equals_an_uninterrupted_run(smoke_run, tmp_path, data_mirror):
    workdir = tmp_path / "killed"
    for pattern in KILL_POINTS:
        _kill_when(_start(workdir, data_mirror), workdir, pattern)
        for parquet in (workdir / "results").rglob("*.parquet"):
            pq.read_metadata(parquet)  # every Parquet left behind is complete
        unlock = run_snakemake(workdir, data_mirror, "--unlock")
        assert unlock.returncode == 0, unlock.stderr[-2000:]
    final = run_snakemake(workdir, data_mirror, "--rerun-incomplete")
    assert final.returncode == 0, final.stdout[-2000:] + final.stderr[-3000:]
    resumed, clean = reproducible_files(workdir), reproducible_files(smoke_run)
    assert resumed.keys() == clean.keys()
    different = [name for name in clean if resumed[name] != clean[name]]
    assert not different, f"differ from the uninterrupted run: {different[:10]}"
