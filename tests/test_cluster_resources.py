"""Jobs that load a model are cluster-ready: they declare threads and retries, ask for more memory and time on each
retry, and size torch's thread pool to their threads (centrally, in choicelab.workflow.log_to)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from conftest import repo_env

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def paper_rules():
    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings

    with SnakemakeApi(OutputSettings(quiet={"all"})) as api:
        workflow = api.workflow(ResourceSettings(), ConfigSettings(configfiles=[REPO / "configs" / "paper.yaml"]),
                                snakefile=REPO / "Snakefile", workdir=REPO)
        return {rule.name: rule for rule in workflow._workflow.rules}


def test_every_model_job_declares_threads_retries_and_attempt_scaled_resources(paper_rules):
    engine = yaml.safe_load((REPO / "configs" / "paper.yaml").read_text())["engine"]
    model_rules = [rule for rule in paper_rules.values() if str(rule.conda_env).endswith("envs/models.yaml")]
    assert len(model_rules) >= 14
    wildcards = SimpleNamespace(model="llama-2-70b", benchmark="anli")
    for rule in model_rules:
        assert rule.resources["_cores"] == engine["threads"], rule.name
        assert rule._restart_times == engine["retries"], rule.name
        for name in ("mem_mb", "runtime"):
            scaled = rule.resources[name]._evaluator  # the rule's function of the attempt
            first, second = scaled(wildcards, attempt=1), scaled(wildcards, attempt=2)
            assert second == 2 * first > 0, (rule.name, name)


def test_a_hub_download_gets_hours_and_a_random_model_minutes(paper_rules):
    runtime = paper_rules["prepare_model"].resources["runtime"]._evaluator
    assert runtime(SimpleNamespace(model="llama-2-70b"), attempt=1) >= 240


JOB = """
import sys, types
snakemake = types.SimpleNamespace(threads={threads}, log=[sys.argv[1]])
from choicelab.workflow import log_to
with log_to(snakemake.log[0]):
    import torch  # imported inside the job, as the scripts do
    print("threads", torch.get_num_threads(), file=sys.__stdout__)
"""


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.slow
def test_a_job_sizes_torch_to_its_threads(tmp_path, threads):
    script = tmp_path / "job.py"
    script.write_text(JOB.format(threads=threads))
    env = {**repo_env(), "OMP_NUM_THREADS": "7", "MKL_NUM_THREADS": "7"}  # what the job inherits does not count
    proc = subprocess.run([sys.executable, str(script), str(tmp_path / "job.log")], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["threads", str(threads)]
    assert f"threads: {threads}" in (tmp_path / "job.log").read_text()


@pytest.mark.slow
def test_a_loaded_torch_is_resized_too(tmp_path):
    script = tmp_path / "job.py"
    script.write_text(JOB.replace("import sys, types", "import sys, types, torch").format(threads=1))
    proc = subprocess.run([sys.executable, str(script), str(tmp_path / "job.log")], capture_output=True, text=True,
                          env={**repo_env(), "OMP_NUM_THREADS": "2"}, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["threads", "1"]
