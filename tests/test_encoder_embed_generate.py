"""Encoder multiple-choice scoring and fine-tuning; embeddings; seeded generation."""

from __future__ import annotations

import numpy as np
import pytest

from choicelab.lm.embed import embed_texts
from choicelab.lm.encoder import fine_tune_mc, mc_logits
from choicelab.lm.generate import sample
from choicelab.lm.recipe import Recipe
from choicelab.lm.tiny import tiny_model
from choicelab.mc.items import MCItem
from conftest import toy_items


def test_mc_logits_give_one_value_per_choice_for_mixed_choice_counts(tiny_bert):
    model, tokenizer = tiny_bert
    items = [MCItem("t", "dev", "a", "p", ("x", "y"), 0), MCItem("t", "dev", "b", "p", ("x", "y", "z"), 2)]
    logits = mc_logits(model, tokenizer, items)
    assert [len(lg) for lg in logits] == [2, 3]


def test_mc_logits_come_back_in_item_order_whatever_the_length_batching(tiny_bert):
    model, tokenizer = tiny_bert
    items = [MCItem("t", "dev", f"q{i}", "p " + "word " * (7 * i % 11), ("x", "y " * (i % 4), "z"), 0)
             for i in range(10)]
    batched = mc_logits(model, tokenizer, items, batch_size=4)
    one_at_a_time = [mc_logits(model, tokenizer, [item], batch_size=1)[0] for item in items]
    for together, alone in zip(batched, one_at_a_time, strict=True):
        np.testing.assert_allclose(together, alone, atol=1e-4)


def test_fine_tuning_learns_stops_at_the_target_and_records_it():
    model, tokenizer = tiny_model("bert", seed=1)
    train, dev = toy_items(96, 0, "train"), toy_items(24, 1, "dev")
    result = fine_tune_mc(
        model,
        tokenizer,
        train,
        dev,
        Recipe(
            learning_rate=5e-3,
            batch_size=16,
            max_epochs=5,
            seed=0,
            target_dev_accuracy=0.9,
            input_format="pair",
            max_length=128,
        ),
        log=lambda _: None,
    )
    assert result.reached_target
    assert result.best_dev_accuracy >= 0.9
    assert result.epochs_run < 5


def test_fine_tuning_is_reproducible_under_a_seed():
    runs = []
    for _ in range(2):
        model, tokenizer = tiny_model("bert", seed=3)
        fine_tune_mc(
            model,
            tokenizer,
            toy_items(32, 0, "train"),
            toy_items(8, 1, "dev"),
            Recipe(learning_rate=1e-3, batch_size=8, max_epochs=1, seed=7, input_format="pair", max_length=128),
            log=lambda _: None,
        )
        runs.append(np.concatenate(mc_logits(model, tokenizer, toy_items(8, 2, "test"))))
    np.testing.assert_array_equal(runs[0], runs[1])


def test_unreachable_target_is_recorded_as_not_reached():
    model, tokenizer = tiny_model("bert", seed=1)
    result = fine_tune_mc(
        model,
        tokenizer,
        toy_items(16, 0, "train"),
        toy_items(8, 1, "dev"),
        Recipe(
            learning_rate=1e-6,
            batch_size=8,
            max_epochs=1,
            seed=0,
            target_dev_accuracy=1.01,
            input_format="pair",
            max_length=128,
        ),
        log=lambda _: None,
    )
    assert not result.reached_target
    assert len(result.history) == 1


@pytest.mark.parametrize("kind,fixture", [("encoder", "tiny_bert"), ("causal", "tiny_llama")])
def test_embeddings_are_unit_vectors_and_do_not_depend_on_batching(request, kind, fixture):
    model, tokenizer = request.getfixturevalue(fixture)
    texts = ["a cat", "the quick brown fox jumps", "", "café 東京"]
    whole = embed_texts(model, tokenizer, texts, kind=kind, batch_size=8)
    single = embed_texts(model, tokenizer, texts, kind=kind, batch_size=1)
    assert whole.shape[0] == 4
    np.testing.assert_allclose(np.linalg.norm(whole, axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(whole, single, atol=1e-5)


def test_sampling_is_reproducible_per_seed_and_independent_of_other_prompts(tiny_llama):
    model, tokenizer = tiny_llama
    a = sample(model, tokenizer, [("p1", "Hello"), ("p2", "The die")], max_new_tokens=8, temperature=0.9, seed=5)
    b = sample(model, tokenizer, [("p2", "The die")], max_new_tokens=8, temperature=0.9, seed=5)
    c = sample(model, tokenizer, [("p2", "The die")], max_new_tokens=8, temperature=0.9, seed=6)
    assert a[1] == b[0]
    assert len(a[0].token_ids) <= 8
    assert c[0].seed != b[0].seed


GENERATION_PROMPTS = [
    ("short", "Hi"), ("mid", "The die is cast and lands on"), ("long", "Once upon a time " * 6), ("one", "A")
]


@pytest.mark.parametrize("family", ["tiny_llama", "tiny_gemma3"])
@pytest.mark.parametrize("temperature", [0.0, 0.9])
def test_batched_generation_gives_each_prompt_the_tokens_it_gets_alone(request, family, temperature):
    """Prompts of different lengths generated together (left-padded; the tiny Gemma 3's sliding window is 8 tokens)
    give the same tokens as each prompt generated on its own."""
    model, tokenizer = request.getfixturevalue(family)
    together = sample(model, tokenizer, GENERATION_PROMPTS, max_new_tokens=10, temperature=temperature, seed=3)
    alone = [
        sample(model, tokenizer, [prompt], max_new_tokens=10, temperature=temperature, seed=3, max_batch_tokens=1)[0]
        for prompt in GENERATION_PROMPTS
    ]
    assert [g.id for g in together] == [p for p, _ in GENERATION_PROMPTS]
    assert together == alone


@pytest.mark.parametrize("family", ["tiny_llama", "tiny_gemma3"])
def test_greedy_generation_matches_a_full_forward_argmax_loop(request, family):
    import torch

    from choicelab.lm.tokenization import RequestEncoder

    model, tokenizer = request.getfixturevalue(family)
    generated = sample(model, tokenizer, GENERATION_PROMPTS, max_new_tokens=6, temperature=0, seed=0)
    for (_, prompt), gen in zip(GENERATION_PROMPTS, generated, strict=True):
        ids = list(RequestEncoder(tokenizer).encode_contexts([prompt])[0])
        expected = []
        with torch.inference_mode():
            for _ in range(6):
                token = int(model(input_ids=torch.tensor([ids])).logits[0, -1].argmax())
                if token == tokenizer.eos_token_id:
                    break
                expected.append(token)
                ids.append(token)
        assert list(gen.token_ids) == expected
