"""DeBERTa v1 (microsoft/deberta-base, a bets encoder) gets a multiple-choice head, which transformers lacks."""

from __future__ import annotations

import torch
from transformers import AutoModelForMultipleChoice, DebertaConfig, DebertaForMaskedLM

from choicelab.lm.deberta_mc import DebertaForMultipleChoice
from choicelab.lm.encoder import fine_tune_mc, mc_logits
from choicelab.lm.loading import load_encoder_mc
from choicelab.lm.prepare import prepare_model
from choicelab.lm.recipe import Recipe
from choicelab.lm.tiny import tiny_tokenizer
from choicelab.mc.items import MCItem


def _pretrained_v1_checkpoint(folder):
    """A tiny checkpoint laid out as microsoft/deberta-base is: DebertaForMaskedLM weights, no choice head."""
    tokenizer = tiny_tokenizer(kind="encoder")
    config = DebertaConfig(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                           num_attention_heads=2, max_position_embeddings=128, relative_attention=True,
                           pos_att_type=["c2p", "p2c"], position_biased_input=False, type_vocab_size=0,
                           pad_token_id=tokenizer.pad_token_id, architectures=["DebertaForMaskedLM"])
    torch.manual_seed(7)
    DebertaForMaskedLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return DebertaForMaskedLM.from_pretrained(folder)


ITEMS = [
    MCItem("t", "train", f"i{i}", f"If the coin comes up heads, I win {i}.", ("bet on heads", "bet on tails"), i % 2)
    for i in range(6)
]


def test_auto_multiple_choice_resolves_deberta_v1_to_our_head():
    assert AutoModelForMultipleChoice._model_mapping[DebertaConfig] is DebertaForMultipleChoice


def test_the_encoder_loads_from_the_checkpoint_and_the_head_is_new_and_seeded(tmp_path):
    source = tmp_path / "deberta-base"
    masked = _pretrained_v1_checkpoint(source)
    prepare_model("deberta-base", {"kind": "encoder", "source": f"path:{source}"}, tmp_path / "m", seed=0)
    a, _, _ = load_encoder_mc(tmp_path / "m", seed=1, device="cpu")
    b, _, _ = load_encoder_mc(tmp_path / "m", seed=1, device="cpu")
    assert isinstance(a, DebertaForMultipleChoice)
    encoder = masked.deberta.state_dict()
    assert all(torch.equal(tensor, a.deberta.state_dict()[key]) for key, tensor in encoder.items())
    assert torch.equal(a.classifier.weight, b.classifier.weight)  # same seed, same new head


def test_a_fine_tuned_deberta_checkpoint_reloads_with_the_same_scores(tmp_path):
    source = tmp_path / "deberta-base"
    _pretrained_v1_checkpoint(source)
    prepare_model("deberta-base", {"kind": "encoder", "source": f"path:{source}"}, tmp_path / "m", seed=0)
    model, tokenizer, _ = load_encoder_mc(tmp_path / "m", seed=0, device="cpu")
    result = fine_tune_mc(model, tokenizer, ITEMS, ITEMS[:2],
                          Recipe(learning_rate=1e-3, batch_size=3, max_epochs=1, seed=0, max_length=32,
                                 input_format="pair"),
                          log=lambda _: None)
    assert result.steps == 2 and all(torch.isfinite(p).all() for p in model.parameters())
    model.save_pretrained(tmp_path / "ckpt")
    reloaded = AutoModelForMultipleChoice.from_pretrained(tmp_path / "ckpt").eval()
    for before, after in zip(mc_logits(model, tokenizer, ITEMS), mc_logits(reloaded, tokenizer, ITEMS), strict=True):
        assert torch.allclose(torch.as_tensor(before), torch.as_tensor(after), atol=1e-6)
