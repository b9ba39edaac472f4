"""Hub models are pinned in the user's Hugging Face cache, not copied: tested offline on a cache the test lays out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from choicelab import hub
from choicelab.hub import HubModelError, lay_out_hub_cache
from choicelab.io import sha256_file
from choicelab.lm.causal import CausalScorer, ContinuationRequest
from choicelab.lm.loading import load_causal, load_tokenizer
from choicelab.lm.prepare import prepare_model
from choicelab.lm.tiny import materialize_random

REQUESTS = [ContinuationRequest(str(i), "The die lands on face number", c) for i, c in enumerate([" 1", " 12", " 3"])]


@pytest.fixture()
def tiny_folder(tmp_path):
    folder = tmp_path / "tiny-llama-src"
    folder.mkdir()
    materialize_random("llama", str(folder), seed=0)
    return folder


@pytest.fixture()
def hub_cache(tmp_path, monkeypatch):
    cache = tmp_path / "hf-home" / "hub"
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))  # the cache is $HF_HOME/hub
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return cache


def test_prepare_pins_the_commit_and_every_weight_hash_and_copies_nothing(tmp_path, tiny_folder, hub_cache):
    commit = lay_out_hub_cache(hub_cache, "tiny-org/tiny-llama", tiny_folder)
    out = tmp_path / "results" / "models" / "tiny"
    meta = prepare_model("tiny", {"kind": "causal", "source": "hf:tiny-org/tiny-llama"}, out, seed=0)

    assert meta["commit_sha"] == commit and meta["revision"] == "main" and meta["hf_id"] == "tiny-org/tiny-llama"
    assert meta["weights_files"] == {"model.safetensors": sha256_file(tiny_folder / "model.safetensors")}
    assert meta["architecture"] == "LlamaForCausalLM" and meta["hub_cache"] == str(hub_cache)
    assert sorted(p.name for p in out.iterdir()) == ["model.json"]  # no weights, no tokenizer copy
    assert json.loads((out / "model.json").read_text()) == meta


def test_later_rules_load_the_pinned_snapshot_and_score_as_the_source_model(tmp_path, tiny_folder, hub_cache):
    lay_out_hub_cache(hub_cache, "tiny-org/tiny-llama", tiny_folder)
    out = tmp_path / "models" / "tiny"
    prepare_model("tiny", {"kind": "causal", "source": "hf:tiny-org/tiny-llama"}, out, seed=0)
    direct = tmp_path / "direct"
    prepare_model("direct", {"kind": "causal", "source": f"path:{tiny_folder}"}, direct, seed=0)

    pinned, tokenizer, _ = load_causal(out, device="cpu")
    reference, _, _ = load_causal(direct, device="cpu")
    assert load_tokenizer(out)("face 12")["input_ids"] == tokenizer("face 12")["input_ids"]
    a = CausalScorer(pinned, tokenizer).score(REQUESTS)
    b = CausalScorer(reference, tokenizer).score(REQUESTS)
    assert [s.token_logprobs for s in a] == [s.token_logprobs for s in b]


def test_a_revision_resolves_to_its_commit(tmp_path, tiny_folder, hub_cache):
    commit = lay_out_hub_cache(hub_cache, "tiny-org/tiny-llama", tiny_folder, revision="v1.0", commit="ab" * 20)
    meta = prepare_model("tiny", {"kind": "causal", "source": "hf:tiny-org/tiny-llama@v1.0"}, tmp_path / "m", seed=0)
    assert meta["revision"] == "v1.0" and meta["commit_sha"] == commit == "ab" * 20


def test_hf_hub_cache_wins_over_hf_home(tmp_path, tiny_folder, hub_cache, monkeypatch):
    elsewhere = tmp_path / "cluster-cache"
    monkeypatch.setenv("HF_HUB_CACHE", str(elsewhere))
    lay_out_hub_cache(elsewhere, "tiny-org/tiny-llama", tiny_folder)
    meta = prepare_model("tiny", {"kind": "causal", "source": "hf:tiny-org/tiny-llama"}, tmp_path / "m", seed=0)
    assert meta["hub_cache"] == str(elsewhere)


def test_a_model_missing_offline_names_the_model_the_cache_and_hf_token(tmp_path, hub_cache):
    with pytest.raises(HubModelError) as error:
        prepare_model("llama-2-7b", {"kind": "causal", "source": "hf:meta-llama/Llama-2-7b-hf"}, tmp_path / "m", seed=0)
    message = str(error.value)
    assert "'llama-2-7b'" in message and "meta-llama/Llama-2-7b-hf" in message
    assert str(hub_cache) in message and "HF_TOKEN" in message and "HF_HUB_OFFLINE" in message
    assert not (tmp_path / "m").exists()


def test_a_gated_model_says_to_accept_the_licence_and_set_hf_token(tmp_path, monkeypatch, hub_cache):
    from huggingface_hub import HfApi
    from huggingface_hub.errors import GatedRepoError

    def gated(self, repo_id, **kwargs):  # what the hub answers for a gated repository without an accepted licence
        error = GatedRepoError.__new__(GatedRepoError)
        Exception.__init__(error, f"403 Client Error: access to model {repo_id} is restricted")
        raise error

    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.setattr(HfApi, "model_info", gated)
    with pytest.raises(HubModelError) as error:
        prepare_model("llama-3-8b", {"kind": "causal", "source": "hf:meta-llama/Meta-Llama-3-8B"}, tmp_path / "m",
                      seed=0)
    message = str(error.value)
    assert "'llama-3-8b'" in message and "https://huggingface.co/meta-llama/Meta-Llama-3-8B" in message
    assert "HF_TOKEN" in message and "licence" in message


def test_a_job_whose_cache_lacks_the_snapshot_says_which_and_how(tmp_path, tiny_folder, hub_cache, monkeypatch):
    lay_out_hub_cache(hub_cache, "tiny-org/tiny-llama", tiny_folder)
    out = tmp_path / "m"
    prepare_model("tiny", {"kind": "causal", "source": "hf:tiny-org/tiny-llama"}, out, seed=0)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    with pytest.raises(
        HubModelError, match=r"'tiny'.*not in the Hugging Face cache .*empty-cache.*HF_HOME / HF_HUB_CACHE"
    ):
        load_causal(out, device="cpu")


def test_a_changed_weight_file_in_the_cache_is_refused(tmp_path, tiny_folder, hub_cache):
    commit = lay_out_hub_cache(hub_cache, "tiny-org/tiny-llama", tiny_folder)
    out = tmp_path / "m"
    prepare_model("tiny", {"kind": "causal", "source": "hf:tiny-org/tiny-llama"}, out, seed=0)
    snapshot = hub.repo_folder(hub_cache, "tiny-org/tiny-llama") / "snapshots" / commit
    other = hub.repo_folder(hub_cache, "tiny-org/tiny-llama") / "blobs" / ("0" * 64)
    other.write_bytes(b"not the weights")
    (snapshot / "model.safetensors").unlink()
    (snapshot / "model.safetensors").symlink_to(Path("..") / ".." / "blobs" / other.name)
    with pytest.raises(HubModelError, match="not the file prepare_model recorded"):
        load_causal(out, device="cpu")


def test_provenance_names_the_pinned_commit(tmp_path, tiny_folder, hub_cache):
    from choicelab.provenance import format_lineage, lineage, model_reference

    commit = lay_out_hub_cache(hub_cache, "tiny-org/tiny-llama", tiny_folder)
    out = tmp_path / "results" / "models" / "tiny"
    prepare_model("tiny", {"kind": "causal", "source": "hf:tiny-org/tiny-llama"}, out, seed=0)
    assert model_reference(out)["commit_sha"] == commit
    assert f"at commit {commit[:12]}" in format_lineage(lineage(out))


@pytest.fixture()
def sharded_folder(tmp_path):
    """A checkpoint saved in shards with an index, next to weights transformers would not load (as Mistral's repos
    ship consolidated.safetensors)."""
    from choicelab.lm.tiny import tiny_model

    folder = tmp_path / "sharded-src"
    model, tokenizer = tiny_model("llama", seed=0)
    model.save_pretrained(folder, max_shard_size="200KB")
    tokenizer.save_pretrained(folder)
    (folder / "consolidated.safetensors").write_bytes(b"other weights, not loaded by transformers")
    return folder


def test_only_the_weights_transformers_loads_are_recorded(tmp_path, sharded_folder, hub_cache):
    lay_out_hub_cache(hub_cache, "org/sharded", sharded_folder)
    meta = prepare_model("sharded", {"kind": "causal", "source": "hf:org/sharded"}, tmp_path / "m", seed=0)
    index = json.loads((sharded_folder / "model.safetensors.index.json").read_text())
    shards = sorted(set(index["weight_map"].values()))
    assert len(shards) > 1 and sorted(meta["weights_files"]) == shards
    load_causal(tmp_path / "m", device="cpu")


def test_online_prepare_downloads_the_config_then_exactly_the_indexed_weights(tmp_path, sharded_folder, hub_cache,
                                                                            monkeypatch):
    import fnmatch
    import shutil
    from types import SimpleNamespace

    import huggingface_hub

    commit = "cd" * 20
    requested = []

    def model_info(self, repo_id, revision=None, **kwargs):  # the hub's answer: the commit and the file list
        files = [p.name for p in sharded_folder.iterdir()]
        return SimpleNamespace(sha=commit, siblings=[SimpleNamespace(rfilename=f) for f in files])

    def snapshot_download(repo_id, revision, cache_dir, allow_patterns, token=None, **kwargs):
        requested.append(list(allow_patterns))  # "download" the matching files into the cache
        subset = tmp_path / f"download-{len(requested)}"
        subset.mkdir()
        for path in sharded_folder.iterdir():
            if any(fnmatch.fnmatch(path.name, pattern) for pattern in allow_patterns):
                shutil.copy(path, subset / path.name)
        lay_out_hub_cache(Path(cache_dir), repo_id, subset, commit=revision)
        return str(hub.repo_folder(Path(cache_dir), repo_id) / "snapshots" / revision)

    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.setattr(huggingface_hub.HfApi, "model_info", model_info)
    monkeypatch.setattr(huggingface_hub, "snapshot_download", snapshot_download)
    meta = prepare_model("sharded", {"kind": "causal", "source": "hf:org/sharded"}, tmp_path / "m", seed=0)
    assert meta["commit_sha"] == commit and requested[0] == hub.CONFIG_PATTERNS
    assert requested[1] == sorted(meta["weights_files"]) and "consolidated.safetensors" not in requested[1]
    load_causal(tmp_path / "m", device="cpu")
