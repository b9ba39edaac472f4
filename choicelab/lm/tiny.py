"""Tiny, randomly initialised models and a small offline tokenizer, for tests and the smoke config.

``random:<family>`` model sources build these: no download, deterministic from the seed. The tokenizer is a
byte-level BPE trained on a fixed built-in corpus, with digits split one per token as Llama-style tokenizers do,
so that tests can exercise multi-token numbers (" 1" vs " 12").
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import (
    BertConfig,
    BertForMultipleChoice,
    Gemma3ForCausalLM,
    Gemma3TextConfig,
    LlamaConfig,
    LlamaForCausalLM,
    PreTrainedModel,
    PreTrainedTokenizerFast,
)

_CORPUS = [
    "A die has 6 faces. The die is equally likely to land on any of its faces. The die is cast.",
    "The die lands on face number 1 2 3 4 5 6 7 8 9 10 11 12. The sum of both results is equal to",
    "There are 2 coins. Each coin is fair and is equally likely to land on Heads and Tails.",
    "A person has to choose randomly between 4 options. The options are A, B, C and D.",
    "This statement is true: airplane is more expensive than pen. From car and egg, choose an item.",
    "If the coin comes up heads, then I win a house. If it comes up tails, then I lose a sock.",
    "What should I do to maximize my expected gains? I should bet on heads. I should not bet on either one.",
    "Question: Which option is correct? Answer: A B C D E. Correct Answer: the option letter.",
    "The quick brown fox jumps over the lazy dog while the cat sleeps in the warm sun.",
    "Hello world, hello there. Unicode: café, naïve, 東京, emoji 🙂. Tabs\tand\nnew lines.",
    "She said that the weather was lovely, but it was raining all day long. He is a shark.",
]

SPECIAL_TOKENS = ["<pad>", "<bos>", "<eos>", "<unk>", "[CLS]", "[SEP]", "[MASK]"]


@lru_cache(maxsize=4)
def tiny_tokenizer(vocab_size: int = 512, kind: str = "causal") -> PreTrainedTokenizerFast:
    """A deterministic byte-level BPE tokenizer trained on the built-in corpus."""
    tok = Tokenizer(models.BPE(unk_token=None))
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Digits(individual_digits=True),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(_CORPUS * 3, trainer=trainer)
    if kind == "causal":
        return PreTrainedTokenizerFast(
            tokenizer_object=tok, bos_token="<bos>", eos_token="<eos>", pad_token="<pad>", unk_token="<unk>"
        )
    return PreTrainedTokenizerFast(
        tokenizer_object=tok,
        cls_token="[CLS]",
        sep_token="[SEP]",
        pad_token="<pad>",
        mask_token="[MASK]",
        unk_token="<unk>",
    )


@dataclass(frozen=True)
class TinyFamily:
    name: str
    kind: str


TINY_FAMILIES = {
    "llama": TinyFamily("llama", "causal"),
    "gemma3": TinyFamily("gemma3", "causal"),
    "bert": TinyFamily("bert", "encoder"),
}


def tiny_model(family: str, seed: int = 0) -> tuple[PreTrainedModel, PreTrainedTokenizerFast]:
    """Build a tiny random model of ``family`` (llama | gemma3 | bert) and its tokenizer, seeded."""
    if family not in TINY_FAMILIES:
        raise ValueError(f"unknown random model family {family!r}; choose one of {sorted(TINY_FAMILIES)}")
    kind = TINY_FAMILIES[family].kind
    tokenizer = tiny_tokenizer(kind=kind)
    vocab = len(tokenizer)
    torch.manual_seed(seed)
    if family == "llama":
        config = LlamaConfig(
            vocab_size=vocab,
            hidden_size=64,
            intermediate_size=128,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=2,
            max_position_embeddings=2048,
            bos_token_id=tokenizer.bos_token_id,
            eos_token_id=tokenizer.eos_token_id,
            pad_token_id=tokenizer.pad_token_id,
            tie_word_embeddings=False,
        )
        model: PreTrainedModel = LlamaForCausalLM(config)
    elif family == "gemma3":
        config = Gemma3TextConfig(
            vocab_size=vocab,
            hidden_size=64,
            intermediate_size=128,
            num_hidden_layers=3,
            num_attention_heads=4,
            num_key_value_heads=1,
            head_dim=16,
            sliding_window=8,
            layer_types=["sliding_attention", "sliding_attention", "full_attention"],
            max_position_embeddings=2048,
            bos_token_id=tokenizer.bos_token_id,
            eos_token_id=tokenizer.eos_token_id,
            pad_token_id=tokenizer.pad_token_id,
            final_logit_softcapping=30.0,
        )
        model = Gemma3ForCausalLM(config)
    else:
        config = BertConfig(
            vocab_size=vocab,
            hidden_size=32,
            intermediate_size=64,
            num_hidden_layers=2,
            num_attention_heads=2,
            max_position_embeddings=256,
            pad_token_id=tokenizer.pad_token_id,
        )
        model = BertForMultipleChoice(config)
    model.eval()
    return model, tokenizer


def materialize_random(family: str, out_dir: str, seed: int = 0) -> dict[str, str]:
    """Save a tiny random model + tokenizer as a HF folder (the caller writes model.json)."""
    model, tokenizer = tiny_model(family, seed=seed)
    model.save_pretrained(out_dir, safe_serialization=True)
    tokenizer.save_pretrained(out_dir)
    return {"architecture": type(model).__name__, "kind": TINY_FAMILIES[family].kind}
