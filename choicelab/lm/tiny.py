"""Tiny, randomly initialised models and a small offline tokenizer, for tests and the smoke config.

``random:<family>`` model sources build these: no download, deterministic from the seed. The tokenizer is a
byte-level BPE trained on a fixed built-in corpus, with digits split one per token as Llama-style tokenizers do,
so that tests can exercise multi-token numbers (" 1" vs " 12").
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import BertConfig, BertForMultipleChoice, PreTrainedModel, PreTrainedTokenizerFast

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


# One tiny random model per architecture the configs name (tests build each; random:<family> sources use them).
TINY_FAMILIES = {
    name: TinyFamily(name, kind)
    for kind, names in [
        ("causal", ("llama", "gemma3", "gemma", "mistral", "qwen2", "qwen2_moe", "mixtral", "falcon")),
        ("encoder", ("bert", "roberta", "deberta", "big_bird", "xlnet")),
    ]
    for name in names
}


def _causal_config(family: str, tokenizer: PreTrainedTokenizerFast) -> Any:
    import transformers as tf

    vocab = len(tokenizer)
    ids = dict(
        bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id
    )
    common = dict(vocab_size=vocab, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                  num_key_value_heads=2, max_position_embeddings=2048, tie_word_embeddings=False, **ids)
    if family == "llama":
        return tf.LlamaConfig(**common)
    if family == "gemma3":
        return tf.Gemma3TextConfig(
            **{**common, "num_hidden_layers": 3, "num_key_value_heads": 1, "tie_word_embeddings": True},
            head_dim=16, sliding_window=8, layer_types=["sliding_attention", "sliding_attention", "full_attention"],
            final_logit_softcapping=30.0,
        )
    if family == "gemma":
        return tf.GemmaConfig(**{**common, "tie_word_embeddings": True}, head_dim=16)
    if family == "mistral":
        return tf.MistralConfig(**common, sliding_window=None)
    if family == "qwen2":
        return tf.Qwen2Config(**common)
    if family == "qwen2_moe":
        return tf.Qwen2MoeConfig(**common, num_experts=4, num_experts_per_tok=2, moe_intermediate_size=32,
                                 shared_expert_intermediate_size=64, decoder_sparse_step=1)
    if family == "mixtral":
        return tf.MixtralConfig(**common, num_local_experts=4, num_experts_per_tok=2, sliding_window=None)
    if family == "falcon":  # Falcon-7B's layout: multi-query attention, parallel attention and MLP, rotary
        return tf.FalconConfig(vocab_size=vocab, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                               multi_query=True, parallel_attn=True, alibi=False, new_decoder_architecture=False,
                               max_position_embeddings=2048, **ids)
    raise ValueError(family)


def _encoder_model(family: str, tokenizer: PreTrainedTokenizerFast) -> PreTrainedModel:
    import transformers as tf

    common = dict(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                  num_attention_heads=2, max_position_embeddings=256, pad_token_id=tokenizer.pad_token_id)
    if family == "bert":
        return BertForMultipleChoice(BertConfig(**common))
    if family == "roberta":  # positions start after the padding index, as in RoBERTa checkpoints
        return tf.RobertaForMultipleChoice(tf.RobertaConfig(**{**common, "max_position_embeddings": 260}))
    if family == "deberta":  # DeBERTa v1 (microsoft/deberta-base's layout): relative attention, our MC head
        from choicelab.lm.deberta_mc import DebertaForMultipleChoice

        config = tf.DebertaConfig(**common, relative_attention=True, pos_att_type=["c2p", "p2c"],
                                  max_relative_positions=-1, position_biased_input=False, type_vocab_size=0)
        return DebertaForMultipleChoice(config)
    if family == "big_bird":  # block-sparse attention (falls back to full attention on short inputs, as BigBird does)
        config = tf.BigBirdConfig(**{**common, "max_position_embeddings": 512}, attention_type="block_sparse",
                                  block_size=4, num_random_blocks=2)
        return tf.BigBirdForMultipleChoice(config)
    if family == "xlnet":  # xlnet-large-cased's layout: relative positions, two-stream-free MC use, summary head
        config = tf.XLNetConfig(vocab_size=len(tokenizer), d_model=32, n_layer=2, n_head=2, d_inner=64,
                                pad_token_id=tokenizer.pad_token_id)
        return tf.XLNetForMultipleChoice(config)
    raise ValueError(family)


def tiny_model(family: str, seed: int = 0) -> tuple[PreTrainedModel, PreTrainedTokenizerFast]:
    """Build a tiny random model of ``family`` (see TINY_FAMILIES) and its tokenizer, seeded."""
    if family not in TINY_FAMILIES:
        raise ValueError(f"unknown random model family {family!r}; choose one of {sorted(TINY_FAMILIES)}")
    kind = TINY_FAMILIES[family].kind
    tokenizer = tiny_tokenizer(kind=kind)
    torch.manual_seed(seed)
    if kind == "causal":
        from transformers import AutoModelForCausalLM

        model: PreTrainedModel = AutoModelForCausalLM.from_config(_causal_config(family, tokenizer))
    else:
        model = _encoder_model(family, tokenizer)
    model.eval()
    return model, tokenizer


def materialize_random(family: str, out_dir: str, seed: int) -> dict[str, str]:
    """Save a tiny random model + tokenizer as a HF folder (the caller writes model.json)."""
    model, tokenizer = tiny_model(family, seed=seed)
    model.save_pretrained(out_dir, safe_serialization=True)
    tokenizer.save_pretrained(out_dir)
    return {"architecture": type(model).__name__, "kind": TINY_FAMILIES[family].kind}
