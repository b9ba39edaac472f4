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
    """The smoke workflow's folder, built from scratch; $CHOICELAB_SMOKE_DIR names a folder of an earlier smoke run of
    this checkout at this same commit to bring up to date instead (Snakemake reruns what changed), for a developer's
    second run. A folder made at another commit records another code version in every provenance record, so the
    byte comparisons against it (tests/test_resume_determinism.py) fail on that alone."""
    earlier = os.environ.get("CHOICELAB_SMOKE_DIR")
    workdir = Path(earlier) if earlier else tmp_path_factory.mktemp("smoke")
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


def reproducible_files(root: Path) -> dict[str, bytes]:
    """Every output of a run in ``root`` that a second run of the same commit and config must write byte for byte:
    dumps, tables, figures (PNG, SVG), provenance sidecars, model records and the manifest; not logs, Snakemake's
    benchmark timings or the wall-clock measurements (probes/timing/*, the timing table)."""
    suffixes = {".parquet", ".csv", ".md", ".png", ".svg", ".json", ".yaml"}
    found = {}
    for folder in ("results", "figures"):
        for path in sorted((root / folder).rglob("*")):
            relative = path.relative_to(root)
            parts = set(relative.parts)
            if (path.is_file() and path.suffix in suffixes and not parts & {"logs", "benchmarks", "timing"}
                    and not path.name.startswith("table_timing")):
                found[str(relative)] = path.read_bytes()
    manifest = root / "results" / "manifest.json"
    if manifest.is_file():  # the manifest as it is, but the wall-clock table's hashes, which differ by nature
        listed = json.loads(manifest.read_text())
        for artifact in listed["artifacts"]:
            for entry in artifact["files"]:
                if Path(entry["path"]).name.startswith("table_timing"):
                    entry["sha256"] = "wall-clock"
        found["results/manifest.json"] = json.dumps(listed, sort_keys=True).encode()
    return found


def tiny_t5(seed: int = 0):
    """A tiny random T5ForConditionalGeneration with the tiny BPE tokenizer plus T5's two sentinels, seeded."""
    import torch
    from transformers import PreTrainedTokenizerFast, T5Config, T5ForConditionalGeneration

    from choicelab.lm.seq2seq import SENTINELS
    from choicelab.lm.tiny import tiny_tokenizer

    base = tiny_tokenizer(kind="causal")
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=base.backend_tokenizer.__class__.from_str(base.backend_tokenizer.to_str()),
        eos_token="<eos>", pad_token="<pad>", unk_token="<unk>",
    )
    tokenizer.add_special_tokens({"additional_special_tokens": list(SENTINELS)})
    torch.manual_seed(seed)
    config = T5Config(
        vocab_size=len(tokenizer), d_model=32, d_kv=8, d_ff=64, num_layers=2, num_decoder_layers=2, num_heads=4,
        pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id,
        decoder_start_token_id=tokenizer.pad_token_id,
    )
    model = T5ForConditionalGeneration(config).eval()
    return model, tokenizer


def synthetic_question_frame(taxonomy, models, adaptations=("0shot",), questions_per_test: int = 2, seed: int = 0,
                             adaptation_boost=None):
    """A SYNTHETIC STEER per-question frame for tests of the table and figure code -- never a result.

    ``models`` maps a model name to a skill; P(correct) = r + (1 - r) * sigmoid(skill + boost - 0.35 * grade)
    per question, k drawn from 2..5 options, for every element x domain x grade of the taxonomy.
    """
    import math

    import numpy as np
    import pandas as pd

    from choicelab.studies.steer.metrics import QUESTION_FRAME_COLUMNS

    rng = np.random.default_rng(seed)
    boost = dict(adaptation_boost or {})
    rows = []
    for model, skill in models.items():
        for adaptation in adaptations:
            for el in taxonomy.elements:
                for domain in el.domains:
                    for grade in range(el.min_grade, el.max_grade + 1):
                        for index in range(questions_per_test):
                            k = int(rng.integers(2, 6))
                            r = 1.0 / k
                            z = skill + boost.get(adaptation, 0.0) - 0.35 * grade
                            p_correct = r + (1 - r) / (1 + math.exp(-z))
                            correct = bool(rng.random() < p_correct)
                            rows.append({
                                "model": model, "adaptation": adaptation, "benchmark": "steer", "split": "test",
                                "item_id": f"{el.id}/{domain}/g{grade}/{index}", "element": el.id,
                                "module": el.module_id, "setting": el.setting_id, "domain": domain, "grade": grade,
                                "template_id": f"{el.id}.p{index % 2}",
                                "n_options": k, "predicted_option": 0 if correct else 1,
                                "label_option": 0, "correct": correct,
                                "top_prob": float(rng.uniform(r, 1.0)), "label_prob": math.nan,
                                "random_accuracy": r,
                            })
    return pd.DataFrame(rows, columns=list(QUESTION_FRAME_COLUMNS))
