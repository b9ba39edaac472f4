"""Every architecture the paper config names runs: a tiny random model of each goes through prepare_model (from a hub
cache the test lays out, offline) and the operation its studies use -- continuation scoring (engine == naive per
token within 1e-5), sampling and embeddings for causal LMs; one multiple-choice fine-tuning step and embeddings for
encoders."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

from choicelab.hub import lay_out_hub_cache
from choicelab.lm.causal import CausalScorer, ContinuationRequest, score_naive
from choicelab.lm.embed import embed_texts
from choicelab.lm.encoder import fine_tune_mc
from choicelab.lm.generate import sample
from choicelab.lm.loading import load_causal, load_encoder_mc
from choicelab.lm.prepare import prepare_model
from choicelab.lm.recipe import Recipe
from choicelab.lm.tiny import TINY_FAMILIES, materialize_random
from choicelab.mc.items import MCItem

REPO = Path(__file__).resolve().parent.parent

# The architecture (transformers model_type) of every model configs/paper.yaml names, from each checkpoint's
# config.json. A model added to the paper config must be added here, and its architecture gets a tiny twin.
PAPER_ARCHITECTURES = {
    **dict.fromkeys(
        ["yi-1.5-6b", "yi-1.5-6b-chat", "yi-1.5-9b", "yi-1.5-9b-chat", "yi-1.5-34b", "yi-1.5-34b-chat", "llama-3-8b",
         "llama-3-8b-instruct", "llama-3-70b", "llama-3-70b-instruct", "llama-7b", "llama-13b", "llama-65b",
         "llama-2-7b", "llama-2-13b", "llama-2-70b", "llama-2-70b-chat", "alpaca-native"],
        "llama",
    ),
    **dict.fromkeys(["mistral-7b-v0.3", "mistral-7b-instruct-v0.3"], "mistral"),
    **dict.fromkeys(["qwen2-7b", "qwen2-7b-instruct", "qwen2-72b", "qwen2-72b-instruct"], "qwen2"),
    **dict.fromkeys(["qwen2-57b-a14b", "qwen2-57b-a14b-instruct"], "qwen2_moe"),
    **dict.fromkeys(["mixtral-8x22b-v0.1", "mixtral-8x22b-instruct-v0.1"], "mixtral"),
    **dict.fromkeys(["gemma-7b", "gemma-7b-it"], "gemma"),
    **dict.fromkeys(["falcon-7b", "falcon-7b-instruct", "falcon-40b", "falcon-40b-instruct"], "falcon"),
    **dict.fromkeys(["bert-base-uncased", "minilm-l6"], "bert"),
    **dict.fromkeys(["flan-t5-xl", "unifiedqa-t5-11b"], "t5"),
    "xlnet-large-cased": "xlnet",
    **dict.fromkeys(["roberta-base", "roberta-large"], "roberta"),
    "deberta-base": "deberta",
    "bigbird-roberta-base": "big_bird",
}
# Encoder-decoder (kind seq2seq): its tiny twin is conftest.tiny_t5.
SEQ2SEQ = {"t5"}

CAUSAL = sorted(f for f, spec in TINY_FAMILIES.items() if spec.kind == "causal")
ENCODERS = sorted(f for f, spec in TINY_FAMILIES.items() if spec.kind == "encoder")


def test_every_paper_model_has_a_known_architecture_with_a_tiny_twin():
    paper = yaml.safe_load((REPO / "configs" / "paper.yaml").read_text())
    unknown = sorted(set(paper["models"]) - set(PAPER_ARCHITECTURES))
    assert not unknown, f"add the architecture of {unknown} to PAPER_ARCHITECTURES"
    used = {PAPER_ARCHITECTURES[name] for name in paper["models"]}
    assert used <= set(TINY_FAMILIES) | SEQ2SEQ
    for name, entry in paper["models"].items():  # the tiny twin has the checkpoint's kind
        family = PAPER_ARCHITECTURES[name]
        assert entry["kind"] == ("seq2seq" if family in SEQ2SEQ else TINY_FAMILIES[family].kind), name


def _prepared(tmp_path: Path, monkeypatch, family: str) -> Path:
    """The tiny model of ``family`` laid out in a hub cache and prepared from hf:tiny/<family>, offline."""
    source = tmp_path / "source"
    source.mkdir()
    materialize_random(family, str(source), seed=0)
    cache = tmp_path / "hub"
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    lay_out_hub_cache(cache, f"tiny/{family}", source)
    out = tmp_path / "models" / family
    meta = prepare_model(family, {"kind": TINY_FAMILIES[family].kind, "source": f"hf:tiny/{family}"}, out, seed=0)
    assert meta["commit_sha"] and [p.name for p in out.iterdir()] == ["model.json"]
    return out


CONTEXT = "A die has 6 faces. The die is equally likely to land on any of its faces. The die lands on face number"
REQUESTS = [
    ContinuationRequest(f"r{i}", ctx, cont)
    for i, (ctx, cont) in enumerate(
        [
            (CONTEXT, " 1"), (CONTEXT, " 12"), (CONTEXT + " 3.", " The sum"), ("Question: A or B? Answer:", " A"),
            ("", "Hi"),
        ]
    )
]


@pytest.mark.parametrize("family", CAUSAL)
def test_causal_architecture_scores_samples_and_embeds(tmp_path, monkeypatch, family):
    model, tokenizer, meta = load_causal(_prepared(tmp_path, monkeypatch, family), device="cpu")
    assert meta["kind"] == "causal"
    engine = CausalScorer(model, tokenizer, max_batch_tokens=64).score(REQUESTS, terminal_excluded_ids=[3, 4])
    naive = score_naive(model, tokenizer, REQUESTS, terminal_excluded_ids=[3, 4])
    for a, b in zip(engine, naive, strict=True):
        assert a.token_ids == b.token_ids
        assert np.allclose(a.token_logprobs, b.token_logprobs, atol=1e-5, rtol=0)
        assert abs(a.terminal_logprob - b.terminal_logprob) <= 1e-5

    prompts = [("a", CONTEXT), ("b", "Hello")]
    together = sample(model, tokenizer, prompts, max_new_tokens=4, temperature=0.9, seed=1)
    alone = [sample(model, tokenizer, [p], max_new_tokens=4, temperature=0.9, seed=1)[0] for p in prompts]
    assert [g.token_ids for g in together] == [g.token_ids for g in alone]
    assert all(len(g.token_ids) <= 4 for g in together)

    vectors = embed_texts(model, tokenizer, ["one text", "another, longer text"], kind="causal")
    assert vectors.shape == (2, model.config.hidden_size) and np.isfinite(vectors).all()


def _items(n: int, split: str) -> list[MCItem]:
    return [
        MCItem("tiny", split, f"{split}{i}", f"The die lands on face number {i}. Which is right?",
               ("the first choice", "the second one", "a third"), i % 3)
        for i in range(n)
    ]


@pytest.mark.parametrize("family", ENCODERS)
def test_encoder_architecture_takes_a_multiple_choice_fine_tuning_step(tmp_path, monkeypatch, family):
    model_dir = _prepared(tmp_path, monkeypatch, family)
    model, tokenizer, meta = load_encoder_mc(model_dir, seed=0, device="cpu")
    before = {name: p.detach().clone() for name, p in model.named_parameters()}
    result = fine_tune_mc(model, tokenizer, _items(4, "train"), _items(3, "dev"),
                          Recipe(learning_rate=1e-3, batch_size=4, max_epochs=1, seed=0, max_length=32,
                                 input_format="pair"),
                          log=lambda _: None)
    assert result.steps == 1
    changed = [name for name, p in model.named_parameters() if not torch.equal(before[name], p)]
    # the new multiple-choice head learns (XLNet names it logits_proj)
    assert any("classifier" in name or "logits_proj" in name for name in changed)
    assert any(name.startswith(model.base_model_prefix + ".") for name in changed)  # and so does the encoder
    vectors = embed_texts(model, tokenizer, ["one text", "another"], kind="encoder")
    assert vectors.shape[0] == 2 and np.isfinite(vectors).all()


@pytest.mark.parametrize("mode", ["pll", "decoder"])
def test_t5_scores_samples_and_embeds(tmp_path, monkeypatch, mode):
    from choicelab.lm.scorer import load_scorer
    from conftest import tiny_t5

    source = tmp_path / "source"
    model, tokenizer = tiny_t5(seed=0)
    model.save_pretrained(source)
    tokenizer.save_pretrained(source)
    cache = tmp_path / "hub"
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    lay_out_hub_cache(cache, "tiny/t5", source)
    prepare_model("t5", {"kind": "seq2seq", "source": "hf:tiny/t5"}, tmp_path / "models" / "t5", seed=0)
    scorer, meta = load_scorer(tmp_path / "models" / "t5", device="cpu", max_batch_tokens=64, seq2seq_mode=mode)
    assert (scorer.kind, meta["architecture"]) == ("seq2seq", "T5ForConditionalGeneration")
    requests = [ContinuationRequest("a", "The die lands on face number. Your answer:", " the first one"),
                ContinuationRequest("b", "A or B? Your answer:", " B")]
    batched = scorer.score(requests)
    naive = scorer.score_naive(requests)
    for got, want in zip(batched, naive, strict=True):
        assert got.token_ids == want.token_ids
        assert np.allclose(got.token_logprobs, want.token_logprobs, atol=1e-5, rtol=0)
    assert len(scorer.sample([("a", "Hello")], max_new_tokens=3, temperature=0.9, seed=0)) == 1
    assert scorer.embed_texts(["one", "two"]).shape[0] == 2
