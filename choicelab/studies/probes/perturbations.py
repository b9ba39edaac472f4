"""The four probes of prior bias and choice paralysis, as seeded data transformations of any MC benchmark.

Each probed instance is an :class:`MCItem` whose ``label`` is the pseudo-correct (No-Question, Wrong-Question,
Choice Paralysis: the original answer) or substituted (No-Right-Answer) index, and whose ``meta`` records the probe,
trial, donors (never the instance itself), the original item and, for Choice Paralysis, n and the sampling method.

* No-Question (``nq``): the prompt is emptied, the choices kept.
* Wrong-Question (``wq``): the prompt is replaced by the prompt of a random other instance (``trials`` times).
* No-Right-Answer (``nra``): the correct choice is replaced by the correct choice of a random other instance, in the
  same slot (``trials`` times).
* Choice Paralysis (``cp``): the prompt and the correct answer are kept, the wrong choices replaced by n-1 correct
  answers of other instances, the correct answer's position shuffled. ``random`` sampling draws the n-1 donors
  uniformly; ``heuristic`` sampling takes, deterministically, the n-1 donor answers with the greatest cosine
  similarity to the target prompt (paper Sec. 1.1). Each of the ``trials`` draws a fresh random set of ``instances``
  instances (the paper's 50 instances x 5 repeats), so trials differ in their instances (and, for random sampling,
  in their donors). ``heuristic_prompt`` is the spec's alternative setting (Sec. 2.3): the n-1 donors whose
  *prompts* are most similar to the target prompt.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np

from choicelab.mc.items import MCItem


def _probed(item: MCItem, probe: str, suffix: str, prompt: str, choices: Sequence[str], label: int, **meta) -> MCItem:
    return MCItem(
        item.benchmark,
        item.split,
        f"{item.item_id}/{probe}{suffix}",
        prompt,
        tuple(choices),
        label,
        {"probe": probe, "variant": f"{probe}{suffix}", "original_id": item.item_id, "pseudo_correct": label, **meta},
    )


def _rng(seed: int, *keys: object) -> random.Random:
    return random.Random(":".join(str(k) for k in (seed, *keys)))


def _other_index(rng: random.Random, n: int, exclude: int) -> int:
    if n < 2:
        raise ValueError("a probe needs at least two instances to draw donors from")
    j = rng.randrange(n - 1)
    return j + 1 if j >= exclude else j


def no_question(items: Sequence[MCItem]) -> list[MCItem]:
    return [_probed(it, "nq", "", "", it.choices, it.label, trial=0, donors=[]) for it in items]


def wrong_question(items: Sequence[MCItem], trials: int, seed: int) -> list[MCItem]:
    out = []
    for i, it in enumerate(items):
        for t in range(trials):
            j = _other_index(_rng(seed, "wq", it.item_id, t), len(items), i)
            out.append(_probed(it, "wq", f"/t{t}", items[j].prompt, it.choices, it.label, trial=t,
                               donors=[items[j].item_id]))
    return out


def no_right_answer(items: Sequence[MCItem], trials: int, seed: int, max_draws: int = 50) -> list[MCItem]:
    out = []
    for i, it in enumerate(items):
        for t in range(trials):
            rng = _rng(seed, "nra", it.item_id, t)
            wrong = {c for k, c in enumerate(it.choices) if k != it.label}
            for _ in range(max_draws):
                j = _other_index(rng, len(items), i)
                substitute = items[j].choices[items[j].label]
                if substitute not in wrong and substitute != it.choices[it.label]:
                    break
            else:
                continue  # no donor gives a distinct substitute: the instance is skipped for this trial
            choices = list(it.choices)
            choices[it.label] = substitute
            out.append(_probed(it, "nra", f"/t{t}", it.prompt, choices, it.label, trial=t, donors=[items[j].item_id],
                               substituted_index=it.label, replaced_answer=it.choices[it.label]))
    return out


SAMPLINGS = ("random", "heuristic", "heuristic_prompt")


def choice_paralysis(
    items: Sequence[MCItem],
    n: int,
    trials: int,
    instances: int,
    seed: int,
    sampling: str = "random",
    answer_embeddings: np.ndarray | None = None,
    prompt_embeddings: np.ndarray | None = None,
) -> list[MCItem]:
    """See the module docstring; embeddings (rows = items, unit vectors) are needed for heuristic sampling."""
    if sampling not in SAMPLINGS:
        raise ValueError(f"sampling must be one of {SAMPLINGS}, not {sampling!r}")
    if sampling != "random" and (answer_embeddings is None or prompt_embeddings is None):
        raise ValueError("heuristic sampling needs embeddings of the prompts and of the correct answers")
    if len(items) < n:
        raise ValueError(f"choice paralysis with n={n} needs at least {n} instances, got {len(items)}")
    answers = [it.choices[it.label] for it in items]
    nearest: dict[int, list[int]] = {}  # heuristic donors of an instance: the same in every trial

    def heuristic_donors(i: int) -> list[int]:
        if i not in nearest:
            pool = [j for j in range(len(items)) if j != i and answers[j] != answers[i]]
            # heuristic: donor answer vs target prompt (the paper); heuristic_prompt: donor prompt vs target prompt
            donor_vectors = answer_embeddings if sampling == "heuristic" else prompt_embeddings
            sims = donor_vectors[pool] @ prompt_embeddings[i]
            chosen, kept = [], {answers[i]}
            for k in np.argsort(-sims, kind="stable"):
                if answers[pool[k]] not in kept:
                    chosen.append(pool[k])
                    kept.add(answers[pool[k]])
                if len(chosen) == n - 1:
                    break
            nearest[i] = chosen
        return nearest[i]

    out = []
    for t in range(trials):
        for i in _rng(seed, "cp-instances", n, t).sample(range(len(items)), min(instances, len(items))):
            it = items[i]
            rng = _rng(seed, "cp", it.item_id, n, sampling, t)
            if sampling == "random":
                donors: list[int] = []
                seen = {answers[i]}
                for j in rng.sample(range(len(items)), len(items)):
                    if j != i and answers[j] not in seen:
                        donors.append(j)
                        seen.add(answers[j])
                    if len(donors) == n - 1:
                        break
            else:
                donors = heuristic_donors(i)
            if len(donors) < n - 1:
                raise ValueError(f"not enough distinct donor answers for n={n} around {it.item_id}")
            position = rng.randrange(n)
            choices = [answers[j] for j in donors]
            choices.insert(position, answers[i])
            out.append(_probed(it, "cp", f"/n{n}/{sampling}/t{t}", it.prompt, choices, position, trial=t,
                               donors=[items[j].item_id for j in donors], n=n, sampling=sampling))
    return out
