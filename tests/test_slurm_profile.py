"""The SLURM profile, for real: a single-node slurmctld + slurmd on this machine runs the smoke workflow through
snakemake-executor-plugin-slurm (sbatch to submit, squeue for job status), with the same outputs as a local run.

Opt-in (`pytest -m slurm`; .ci/run runs it): it installs Debian's slurm-wlm and munge and needs root.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, byte_reproducible, repo_env, run_snakemake

pytestmark = pytest.mark.slurm
CLUSTER = REPO / "tests" / "slurm" / "cluster.sh"


@pytest.fixture(scope="module")
def slurm_cluster(tmp_path_factory):
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        pytest.skip("the SLURM test installs Debian packages and starts daemons: it needs root on Debian")
    if importlib.util.find_spec("snakemake_executor_plugin_slurm") is None:
        pytest.fail('snakemake-executor-plugin-slurm is not installed: pip install -e ".[slurm]" (as .ci/run does)')
    subprocess.run([str(CLUSTER), "install"], check=True, timeout=900)
    state = tmp_path_factory.mktemp("slurm")
    try:
        subprocess.run([str(CLUSTER), "start", str(state)], check=True, timeout=300)
        yield {**repo_env(), "SLURM_CONF": str(state / "slurm.conf")}
    finally:  # also after a failed start: stop what was started, by the pids recorded in the state folder
        started = {f.stem: f.read_text().strip() for f in state.glob("*.pid")}  # slurmctld, slurmd (munged)
        subprocess.run([str(CLUSTER), "stop", str(state)], timeout=60)
        running = [f"{name} ({pid})" for name, pid in started.items() if _is_running(pid, name)]
        assert not running, f"daemons still running after cluster.sh stop: {running}"


def _is_running(pid: str, name: str) -> bool:
    try:
        return (Path("/proc") / pid / "comm").read_text().strip() == name
    except OSError:
        return False


def test_smoke_workflow_runs_through_sbatch_with_the_same_outputs_as_locally(slurm_cluster, tmp_path, data_mirror):
    workdir = tmp_path / "slurm-run"
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(workdir),
         "--profile", str(REPO / "profiles" / "slurm"), "--configfile", str(REPO / "configs" / "smoke.yaml"),
         "--config", f"data_mirror={data_mirror}", "--jobs", "4",
         "--default-resources", "slurm_partition=debug", "mem_mb=2000", "runtime=30",
         "--set-resources", "prepare_model:mem_mb=4000", "rb_revealed:mem_mb=4000",
         "--slurm-status-command", "squeue", "--slurm-init-seconds-before-status-checks", "5",
         "--slurm-keep-successful-logs"],
        capture_output=True, text=True, timeout=1800, env=slurm_cluster,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]

    # The jobs went through sbatch: SLURM knows them (squeue keeps finished jobs for MinJobAge) and wrote their logs.
    jobs = subprocess.run(["squeue", "-h", "-t", "all", "-o", "%j %T %k"], capture_output=True, text=True,
                          env=slurm_cluster, check=True).stdout.splitlines()
    completed_rules = {line.split()[2] for line in jobs if "COMPLETED" in line and len(line.split()) > 2}
    assert any(c.startswith("rule_prepare_model") for c in completed_rules), jobs
    assert any(c.startswith("rule_rb_revealed") for c in completed_rules), jobs
    assert list((workdir / ".snakemake" / "slurm_logs").rglob("*.log"))

    # The outputs match a local run byte for byte (tables, dumps and metrics).
    local = tmp_path / "local-run"
    assert run_snakemake(local, data_mirror).returncode == 0
    compared = 0
    for path in sorted((local / "results").rglob("*")):
        if byte_reproducible(path.relative_to(local)):
            twin = workdir / path.relative_to(local)
            assert twin.read_bytes() == path.read_bytes(), f"{path.relative_to(local)} differs between SLURM and local"
            compared += 1
    assert compared >= 5
