"""The workflow stays lint-clean and snakefmt-clean; every rule has a conda env (their pins: tests/test_envs.py)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import repo_env

REPO = Path(__file__).resolve().parent.parent
SNAKEFILES = [REPO / "Snakefile", *sorted((REPO / "rules").glob("*.smk"))]


def test_snakefmt_clean():
    proc = subprocess.run([sys.executable, "-m", "snakefmt", "--check", *map(str, SNAKEFILES)], capture_output=True,
                          text=True, timeout=120, env=repo_env())
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.slow
def test_snakemake_lint_clean(data_mirror):
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "--lint", "--configfile", "configs/smoke.yaml", "--config",
         f"data_mirror={data_mirror}"],
        capture_output=True, text=True, cwd=REPO, timeout=300, env=repo_env(),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Congratulations" in proc.stdout + proc.stderr


def test_every_rule_has_a_conda_env():
    for path in SNAKEFILES:
        text = path.read_text()
        rules = re.findall(r"^rule (\w+):", text, flags=re.M)
        for name in rules:
            if name == "all":
                continue
            body = text.split(f"rule {name}:", 1)[1].split("\nrule ", 1)[0]
            assert "conda:" in body, f"rule {name} in {path.name} has no conda: env"
