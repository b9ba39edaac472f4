"""Shared fixtures: tiny random models (built offline from configs) and paths."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("CHOICELAB_DATA_MIRROR", REPO.parent / "shared" / "data"))


@pytest.fixture(scope="session", autouse=True)
def one_torch_thread():
    """Tiny models gain nothing from threads; on a busy 2-core machine a second torch thread makes them up to ~20x
    slower. Set once for the whole session (before, whichever in-process test first sized the pool through
    `choicelab.workflow.set_threads` set it for every later test). Subprocesses (Snakemake jobs) size their own."""
    import torch

    torch.set_num_threads(1)


@pytest.fixture(scope="session")
def tiny_llama():
    from choicelab.lm.tiny import tiny_model

    return tiny_model("llama", seed=0)


@pytest.fixture(scope="session")
def tiny_gemma3():
    from choicelab.lm.tiny import tiny_model

    return tiny_model("gemma3", seed=0)


@pytest.fixture(scope="session")
def tiny_bert():
    from choicelab.lm.tiny import tiny_model

    return tiny_model("bert", seed=0)


@pytest.fixture(scope="session")
def data_mirror() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"data mirror {SHARED_DATA} not found (set CHOICELAB_DATA_MIRROR)")
    return SHARED_DATA


def repo_env() -> dict[str, str]:
    """The environment for subprocesses: they import choicelab from this checkout, whatever is pip-installed."""
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
    }


def run_snakemake(workdir: Path, mirror: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "snakemake", "--cores", "2", "-s", str(REPO / "Snakefile"), "-d", str(workdir),
         "--configfile", str(REPO / "configs" / "smoke.yaml"), "--config", f"data_mirror={mirror}", *extra],
        capture_output=True, text=True, timeout=900, env=repo_env(),
    )


@pytest.fixture(scope="session")
def smoke_run(tmp_path_factory, data_mirror):
    workdir = tmp_path_factory.mktemp("smoke")
    proc = run_snakemake(workdir, data_mirror)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]
    return workdir


@pytest.hookimpl(tryfirst=True)  # before pytest's own -m deselection sees the items
def pytest_collection_modifyitems(config, items):
    """The fast lane (`pytest -m "not slow"`) leaves out every test that needs the whole smoke workflow (the
    `smoke_run` fixture) and the opt-in SLURM test (a command-line -m replaces the `not slurm` of addopts)."""
    for item in items:
        if "smoke_run" in item.fixturenames or item.get_closest_marker("slurm"):
            item.add_marker(pytest.mark.slow)


def manifest_ids(workdir: Path) -> set[str]:
    manifest = json.loads((workdir / "results" / "manifest.json").read_text())
    return {a["id"] for a in manifest["artifacts"]}


def toy_items(n: int, seed: int, split: str, n_choices: int = 3):
    """Separable multiple-choice items: the correct choice starts with "yes indeed"."""
    import random

    from choicelab.mc.items import MCItem

    rng = random.Random(seed)
    words = ["red", "blue", "green", "cat", "dog", "sun"]
    items = []
    for i in range(n):
        choices = [f"{rng.choice(words)} {rng.choice(words)}" for _ in range(n_choices)]
        label = rng.randrange(n_choices)
        choices[label] = "yes indeed " + choices[label]
        items.append(MCItem("toy", split, f"{split}{i}", "pick the yes", tuple(choices), label))
    return items


def byte_reproducible(path: Path) -> bool:
    """Outputs two runs must reproduce byte for byte: Parquet, CSV and Markdown, except logs and the wall-clock
    measurements (probes/timing/*, the timing table), which differ between runs by nature."""
    parts = set(path.parts)
    return (path.suffix in {".parquet", ".csv", ".md"} and "logs" not in parts and "timing" not in parts
            and not path.name.startswith("table_timing"))
