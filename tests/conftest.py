"""Shared fixtures: tiny random models (built offline from configs) and paths."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("CHOICELAB_DATA_MIRROR", REPO.parent / "shared" / "data"))


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
