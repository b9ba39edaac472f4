"""STEER evaluation on causal LMs: letter probabilities after the answer suffix, few-shot and self-explanation.

Prompts follow the public STEER-evaluation code's shape (our own wording of the framing lines):

* the question, then its options as ``A. ...`` lines (options are already shuffled by the generator with a seed, the
  permutation is in the question's ``option_order``), then :data:`ANSWER_SUFFIX`; the answer is the next-token
  probability of each option letter, renormalized over the question's letters (method ``letter_prob``);
* ``<n>shot``: n solved examples (question, options, suffix, correct letter) from the **same element, domain and
  grade** (never the question itself) go first; examples are dropped from the end until the prompt fits the model's
  context window (the spec's "rounded down to fit");
* ``explain-together``: one call; the model writes an explanation after the options, then the suffix follows its
  explanation and the letters are scored;
* ``explain-separate``: call 1 sees only the question and explains; call 2 gets the question, the options, that
  explanation and the suffix, and the letters are scored.

Explanations are greedy and capped at ``max_new_tokens`` tokens; the default config evaluates the adaptations on a
seeded subsample of questions (``adaptation_questions``), the paper config on all of them.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from typing import Any

from choicelab.dumps import DumpRow
from choicelab.items.schema import MCItem
from choicelab.pipelines.mc import LETTERS, candidate_rows

ANSWER_SUFFIX = (
    "Answer by writing the option letter corresponding to the correct option. WRITE ONLY A SINGLE LETTER.\n\n"
    "Correct Answer: "
)
EXPLAIN_TOGETHER = "Explain your reasoning step by step before answering.\nExplanation:"
EXPLAIN_SEPARATE = "Explain step by step how to answer this question.\nExplanation:"
ADAPTATION_RE = re.compile(r"^(?:(?P<shots>[0-5])shot|explain-(?P<mode>together|separate))$")


def parse_adaptation(adaptation: str) -> tuple[int, str]:
    """'3shot' -> (3, 'none'); 'explain-together' -> (0, 'together'). Raises with the accepted forms."""
    match = ADAPTATION_RE.match(adaptation)
    if not match:
        raise ValueError(
            f"unknown STEER adaptation {adaptation!r}: use '<n>shot' with n in 0..5, 'explain-together' or "
            "'explain-separate'"
        )
    if match["shots"] is not None:
        return int(match["shots"]), "none"
    return 0, match["mode"]


def question_block(item: MCItem) -> str:
    """The question and its lettered options."""
    if len(item.choices) > len(LETTERS):
        raise ValueError(f"STEER question {item.item_id} has {len(item.choices)} options, more than {len(LETTERS)}")
    lines = [f"Question: {item.prompt.strip()}"]
    lines += [f"{LETTERS[k]}. {choice}" for k, choice in enumerate(item.choices)]
    return "\n".join(lines) + "\n"


def solved_example(item: MCItem) -> str:
    return question_block(item) + ANSWER_SUFFIX + LETTERS[item.label] + "\n\n"


def test_key(item: MCItem) -> tuple[str, str, int]:
    return (item.meta["element"], item.meta["domain"], int(item.meta["grade"]))


def few_shot_examples(item: MCItem, pool: Sequence[MCItem], n: int, seed: int) -> list[MCItem]:
    """Up to n other questions of the same test (element, domain, grade), chosen with a per-question seed."""
    if n == 0:
        return []
    same_test = [q for q in pool if test_key(q) == test_key(item) and q.item_id != item.item_id]
    rng = random.Random(f"{seed}:{item.item_id}")
    return rng.sample(same_test, min(n, len(same_test)))


def answer_prompt(item: MCItem, examples: Sequence[MCItem], explanation: str | None = None) -> str:
    body = "".join(solved_example(e) for e in examples) + question_block(item)
    if explanation is not None:
        body += f"Explanation: {explanation.strip()}\n"
    return body + ANSWER_SUFFIX


def fit_to_window(item: MCItem, examples: Sequence[MCItem], count_tokens: Callable[[str], int],
                  max_tokens: int | None) -> list[MCItem]:
    """Drop examples from the end until the prompt fits ``max_tokens``; the question alone must fit."""
    kept = list(examples)
    if max_tokens is None:
        return kept
    while kept and count_tokens(answer_prompt(item, kept)) + 2 > max_tokens:
        kept.pop()
    if count_tokens(answer_prompt(item, kept)) + 2 > max_tokens:
        raise ValueError(
            f"STEER question {item.item_id} alone needs {count_tokens(answer_prompt(item, kept))} tokens, more than "
            f"the model's context window of {max_tokens}: use a model with a longer window or leave this element out "
            "(studies.steer.scale.elements)"
        )
    return kept


def subsample_questions(items: Sequence[MCItem], size: int | None, seed: int) -> list[MCItem]:
    """A seeded subsample in benchmark order (all when ``size`` is None or larger)."""
    if size is None or size >= len(items):
        return list(items)
    keep = set(random.Random(seed).sample(range(len(items)), size))
    return [it for i, it in enumerate(items) if i in keep]


def build_contexts(items: Sequence[MCItem], pool: Sequence[MCItem], adaptation: str, *, seed: int,
                   count_tokens: Callable[[str], int], max_tokens: int | None,
                   explain: Callable[[list[tuple[str, str]]], dict[str, str]] | None = None) -> list[str]:
    """The scoring context of each question under ``adaptation``; ``explain`` generates explanations by id."""
    shots, mode = parse_adaptation(adaptation)
    if mode == "none":
        return [answer_prompt(it, fit_to_window(it, few_shot_examples(it, pool, shots, seed), count_tokens, max_tokens))
                for it in items]
    if explain is None:
        raise ValueError(f"adaptation {adaptation} needs a generator for the explanations")
    if mode == "together":
        first = {it.item_id: question_block(it) + EXPLAIN_TOGETHER for it in items}
    else:
        first = {it.item_id: f"Question: {it.prompt.strip()}\n" + EXPLAIN_SEPARATE for it in items}
    explanations = explain(list(first.items()))
    if mode == "together":
        return [first[it.item_id] + " " + explanations[it.item_id].strip() + "\n" + ANSWER_SUFFIX for it in items]
    return [answer_prompt(it, [], explanations[it.item_id]) for it in items]


def score_adaptation(scorer: Any, items: Sequence[MCItem], contexts: Sequence[str], *, model: str,
                     adaptation: str) -> list[DumpRow]:
    """Letter probabilities of every question after its context (method ``letter_prob``, variant = adaptation)."""
    from choicelab.lm.candidates import candidate_distributions

    candidates = [list(LETTERS[: len(it.choices)]) for it in items]
    dists = candidate_distributions(scorer, list(contexts), candidates)
    rows: list[DumpRow] = []
    for item, dist in zip(items, dists, strict=True):
        rows += candidate_rows(item, dist, study="steer", model=model, method="letter_prob", variant=adaptation)
    return rows


def question_frame(items: Sequence[MCItem]) -> Any:
    """The question metadata frame :func:`choicelab.metrics.steer.per_question_results` joins on."""
    import pandas as pd

    return pd.DataFrame([{"benchmark": it.benchmark, "split": it.split, "item_id": it.item_id,
                          **{k: it.meta[k] for k in ("element", "module", "setting", "domain", "grade")}}
                         for it in items])
