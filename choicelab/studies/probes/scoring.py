"""Scoring steps of the probes study (model-facing: each writes a logit dump): the fine-tuned encoders, the causal
LMs' letter and sequence scorers, the controls (an untrained multiple-choice head, or UnifiedQA reading its own
input format) and the wall time of Choice Paralysis. Models load lazily: importing this module imports no torch."""

from __future__ import annotations

import time
from collections.abc import Sequence

from choicelab.lm.scorer import load_scorer
from choicelab.mc.items import MCItem, read_items
from choicelab.mc.scoring import score_encoder, score_letters, score_sequences
from choicelab.studies.probes.items import causal_subset, choice_paralysis_groups

CONTROL_SUFFIX = " (control)"
SEED_INFIX = " seed "
ENSEMBLE_INFIX = " ensemble of "
SEED_MEAN_INFIX = " mean of "


def checkpoint_label(model: str, seed: int) -> str:
    """The dump's model name of one fine-tuned checkpoint: the encoder and its training seed (``minilm-l6 seed 1``)."""
    return f"{model}{SEED_INFIX}{seed}"


def ensemble_label(model: str, seeds: int) -> str:
    """The model name of the summed-confidence ensemble of an encoder's seed checkpoints."""
    return f"{model}{ENSEMBLE_INFIX}{seeds} seeds"


def seed_mean_label(model: str, seeds: int) -> str:
    """The model name of a table row that summarizes an encoder's seed checkpoints (mean, SD, interval)."""
    return f"{model}{SEED_MEAN_INFIX}{seeds} seeds"


def split_label(label: str) -> tuple[str, int | None]:
    """(encoder, seed) of a checkpoint label; (label, None) for any other model name."""
    base, sep, seed = label.rpartition(SEED_INFIX)
    return (base, int(seed)) if sep and seed.isdigit() else (label, None)


_OPTION_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def control_name(model: str) -> str:
    """The dump's model name of a control: a pre-trained model scored without fine-tuning on the benchmark."""
    return model + CONTROL_SUFFIX


def unifiedqa_input(prompt: str, choices: Sequence[str]) -> str:
    """UnifiedQA's multiple-choice input: lower-cased ``question \\n (a) choice (b) choice ...`` (the literal
    backslash-n of the UnifiedQA format)."""
    options = " ".join(f"({_OPTION_LETTERS[k]}) {c.lower()}" for k, c in enumerate(choices))
    return f"{prompt.lower()} \\n {options}"


def unifiedqa_items(items: Sequence[MCItem]) -> list[MCItem]:
    """Probed instances as UnifiedQA reads them: the prompt becomes :func:`unifiedqa_input`, the choices are
    lower-cased (UnifiedQA answers in lower case); each choice is then scored by its decoder log-likelihood."""
    return [MCItem(it.benchmark, it.split, it.item_id, unifiedqa_input(it.prompt, it.choices),
                   tuple(c.lower() for c in it.choices), it.label, it.meta) for it in items]


def score_causal(model_dir: str, probed: Sequence[MCItem], *, model: str, items: int | None, seed: int,
                 max_batch_tokens: int | str, device: str) -> list:
    """A causal LM's letter (``letter_prob``) and sequence (``sum_logprob``) scores on the probes of a seeded subset
    of ``items`` original items (:func:`.items.causal_subset`)."""

    chosen = causal_subset(probed, items, seed)
    scorer, _ = load_scorer(model_dir, device=device, max_batch_tokens=max_batch_tokens)
    rows = score_letters(scorer, chosen, study="probes", model=model)
    rows += score_sequences(scorer, chosen, study="probes", model=model)
    print(f"{len(chosen)} probed instances scored with letter_prob and sum_logprob")
    return rows


def score_control(base: str, probed_files: Sequence[str], *, model: str, control_items: int | None,
                  seq2seq_control_items: int | None, max_length: int, max_batch_tokens: int | str, seed: int,
                  device: str) -> list:
    """One control model, not fine-tuned, on the probes of every benchmark (Sec. 4.2-4.4), named
    :func:`control_name`: an encoder with an untrained (seeded) multiple-choice head on ``control_items`` originals
    per benchmark, or a seq2seq QA model (UnifiedQA) scoring each choice by its decoder log-likelihood of
    :func:`unifiedqa_items` on ``seq2seq_control_items`` originals."""
    from choicelab.lm.loading import read_model_json

    kind = read_model_json(base)["kind"]
    name = control_name(model)
    if kind == "seq2seq":
        scorer, _ = load_scorer(base, device=device, max_batch_tokens=max_batch_tokens, seq2seq_mode="decoder")
        count = seq2seq_control_items
    else:
        from choicelab.lm.loading import load_encoder_mc

        model_obj, tokenizer, _ = load_encoder_mc(base, seed=seed, device=device)  # seeded head
        count = control_items
    rows = []
    for path in probed_files:
        items = causal_subset(read_items(path), count, seed)
        if kind == "seq2seq":
            rows += score_sequences(scorer, unifiedqa_items(items), study="probes", model=name)
        else:
            rows += score_encoder(model_obj, tokenizer, items, study="probes", model=name, max_length=max_length)
        print(f"{path}: {len(items)} probed instances scored ({kind}, not fine-tuned)")
    return rows


TIMING_COLUMNS = ["benchmark", "model", "n", "instances", "seconds"]


def time_choice_paralysis(checkpoint: str, probed: Sequence[MCItem], *, benchmark: str, model: str,
                          max_length: int, device: str) -> list[dict]:
    """Wall seconds of scoring the first trial's random-sampling Choice Paralysis instances, per n (after a warm-up
    call that pays the first-call overheads); not byte-reproducible."""

    from choicelab.lm.loading import load_encoder_mc

    model_obj, tokenizer, _ = load_encoder_mc(checkpoint, seed=None, device=device)
    rows = []
    for n, items in choice_paralysis_groups(probed).items():
        score_encoder(model_obj, tokenizer, items[:2], study="probes", model="warmup")  # first-call overheads
        start = time.perf_counter()
        score_encoder(model_obj, tokenizer, items, study="probes", model=model, max_length=max_length)
        seconds = time.perf_counter() - start
        rows.append({"benchmark": benchmark, "model": model, "n": n, "instances": len(items), "seconds": seconds})
        print(f"n={n}: {len(items)} instances in {seconds:.2f} s")
    return rows
