"""The Python code stays ruff-clean under the rule set in pyproject.toml ([tool.ruff]); the Snakemake files are
snakefmt's (tests/test_workflow_style.py)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def test_ruff_check_clean():
    if importlib.util.find_spec("ruff") is None:
        pytest.skip("ruff is not installed (it is in the test extra: pip install -e '.[test]')")
    proc = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "."],
        capture_output=True, text=True, cwd=REPO, timeout=300,
    )
    assert proc.returncode == 0, f"ruff check . found violations:\n{proc.stdout}{proc.stderr}"
