"""The workflow stays lint-clean and snakefmt-clean; every rule has a conda env whose pins agree with pyproject."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from conftest import repo_env
import yaml

REPO = Path(__file__).resolve().parent.parent
SNAKEFILES = [REPO / "Snakefile", *sorted((REPO / "rules").glob("*.smk"))]


def test_snakefmt_clean():
    proc = subprocess.run([sys.executable, "-m", "snakefmt", "--check", *map(str, SNAKEFILES)], capture_output=True,
                          text=True, timeout=120, env=repo_env())
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_snakemake_lint_clean(data_mirror):
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "--lint", "--configfile", "configs/smoke.yaml", "--config",
         f"data_mirror={data_mirror}"],
        capture_output=True, text=True, cwd=REPO, timeout=300, env=repo_env(),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Congratulations" in proc.stdout + proc.stderr


def _pyproject_pins() -> dict[str, str]:
    meta = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    deps = list(meta["dependencies"]) + [d for extra in meta["optional-dependencies"].values() for d in extra]
    pins = {}
    for dep in deps:
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)==([^;\s]+)", dep.strip())
        assert match, f"pyproject dependency {dep!r} is not pinned with =="
        pins[match.group(1).lower()] = match.group(2)
    return pins


@pytest.mark.parametrize("env", sorted((REPO / "envs").glob("*.yaml")), ids=lambda p: p.name)
def test_conda_env_pins_agree_with_pyproject(env):
    pins = _pyproject_pins()
    spec = yaml.safe_load(env.read_text())
    pip_block = next(d["pip"] for d in spec["dependencies"] if isinstance(d, dict) and "pip" in d)
    for line in pip_block:
        if line.startswith("-e"):
            continue
        name, version = line.split("==")
        assert pins.get(name.lower()) == version, f"{env.name}: {line} disagrees with pyproject ({pins.get(name.lower())})"


def test_every_rule_has_a_conda_env():
    for path in SNAKEFILES:
        text = path.read_text()
        rules = re.findall(r"^rule (\w+):", text, flags=re.M)
        for name in rules:
            if name == "all":
                continue
            body = text.split(f"rule {name}:", 1)[1].split("\nrule ", 1)[0]
            assert "conda:" in body, f"rule {name} in {path.name} has no conda: env"
