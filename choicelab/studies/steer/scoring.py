"""STEER evaluation on causal LMs: letter probabilities after the answer suffix, few-shot and self-explanation.

Prompts follow the layout of the public STEER-evaluation code (``utils/question_utils.py``: ``format_question``,
``build_prefix``, ``reconstruct_context`` for completion models), with its suffix wording:

* a question is ``{question}\\n{A. ...\\nB. ...}\\n`` + :data:`MC_SUFFIX`; the answer is the next-token probability of
  each option letter, renormalized over the question's letters (method ``letter_prob``). Options are already shuffled
  by the generator with a seed (the permutation is each question's ``option_order``);
* ``<n>shot``: n solved examples (question, options, suffix, correct letter) of the **same element, domain and
  grade** from the few-shot pool (questions generated for the pool, never scored), joined by a blank line, then a
  blank line and the question. Examples are dropped from the end until the prompt fits the model's context window
  (the paper's "rounding down"), and every prompt records how many it holds (:class:`Prompt`);
* ``explain-together``: one call; question, options and :data:`EXPLAIN_ANSWER_SUFFIX`; the model's explanation (cut
  where it starts writing its answer) is followed by ``\\nCorrect Answer: `` and the letters are scored;
* ``explain-separate`` (the paper's *separate*, the reference code's ``sequential-shown``): call 1 shows the question
  with its options and asks for an explanation (:data:`EXPLAIN_SUFFIX`); call 2 shows only the options and the
  answer suffix, after call 1 and its explanation, as the reference code's completion-model conversation does;
* ``explain-separate-hidden`` (the reference code's ``sequential-hidden``, not reported in the paper): as
  ``explain-separate`` but call 1 shows the question without its options.

Explanations are greedy and capped at ``max_new_tokens`` tokens. The default config evaluates the adaptations on a
seeded subsample of questions (``adaptation_questions``); the adaptation tables compare each adaptation with 0-shot
on exactly the questions both scored.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from choicelab.dumps import DumpRow
from choicelab.mc.items import MCItem
from choicelab.mc.scoring import LETTERS, candidate_rows
from choicelab.stats import seeded_subsample

# The reference code's SUFFIX_OPTIONS, verbatim ('mc', 'explain-answer', 'explanation').
MC_SUFFIX = (
    "\nAnswer by writing the option letter corresponding to the correct option. WRITE ONLY A SINGLE LETTER. \n\n"
    "Correct Answer: "
)
EXPLAIN_ANSWER_SUFFIX = (
    "\nLet's think step by step. Begin by explaining your reasoning in 2-3 sentences, enclosed in triple quotes. "
    "After your explanation, select and state the correct answer by writing 'Correct Answer: ' followed by your "
    "choice. BEGIN WITH YOUR EXPLANATION AND WRITE THE CORRECT ANSWER AT THE END"
)
EXPLAIN_SUFFIX = "\nLet's think step by step. Briefly explain your reasoning in triple quotes."
ANSWER_CUE = "Correct Answer: "
EXPLANATION_MODES = ("together", "separate", "separate-hidden")
ADAPTATION_RE = re.compile(r"^(?:(?P<shots>[0-5])shot|explain-(?P<mode>together|separate|separate-hidden))$")
ADAPTATION_PATTERN = "[0-5]shot|explain-together|explain-separate|explain-separate-hidden"


def parse_adaptation(adaptation: str) -> tuple[int, str]:
    """'3shot' -> (3, 'none'); 'explain-together' -> (0, 'together'). Raises with the accepted forms."""
    match = ADAPTATION_RE.match(adaptation)
    if not match:
        raise ValueError(
            f"unknown STEER adaptation {adaptation!r}: use '<n>shot' with n in 0..5, 'explain-together', "
            "'explain-separate' or 'explain-separate-hidden'"
        )
    if match["shots"] is not None:
        return int(match["shots"]), "none"
    return 0, match["mode"]


def max_shots(adaptations: Sequence[str]) -> int:
    """The most in-context examples any of ``adaptations`` asks for."""
    return max((parse_adaptation(a)[0] for a in adaptations), default=0)


def check_pool_size(fewshot_pool: int, adaptations: Sequence[str]) -> None:
    """Fail before generating anything when ``studies.steer.fewshot_pool`` cannot supply the largest n-shot."""
    needed = max_shots(adaptations)
    if fewshot_pool < needed:
        raise ValueError(f"studies.steer.fewshot_pool is {fewshot_pool} but studies.steer.adaptations asks for "
                         f"{needed}-shot prompts: set fewshot_pool to at least {needed}")


def options_block(item: MCItem) -> str:
    """The lettered options, one per line (``A. ...``), no trailing newline."""
    return "\n".join(f"{letter}. {choice}" for letter, choice in zip(item_letters(item), item.choices, strict=True))


def mc_question(item: MCItem) -> str:
    """The reference code's ``mc`` format: question, options, answer suffix (ends with ``Correct Answer: ``)."""
    return f"{item.prompt.strip()}\n{options_block(item)}\n{MC_SUFFIX}"


def solved_example(item: MCItem, follow_up: MCItem | None = None) -> str:
    """The question in ``mc`` format with its correct letter; a two-part question's part 1 goes on with its part 2
    (``follow_up``), as the reference code's solved examples hold every sub-question of a base question."""
    text = mc_question(item) + item_letters(item)[item.label]
    return text if follow_up is None else f"{text}\n{solved_example(follow_up)}"


def test_key(item: MCItem) -> tuple[str, str, int]:
    return (item.meta["element"], item.meta["domain"], int(item.meta["grade"]))


def few_shot_examples(item: MCItem, pool: Sequence[MCItem], n: int, seed: int) -> list[MCItem]:
    """n solved examples of the same test (element, domain, grade) from ``pool``, chosen with a per-question seed.

    Never the question itself nor a pool question with the same text. Raises when the pool holds fewer than n for
    this test: a prompt never silently holds fewer examples than its adaptation asks for.
    """
    if n == 0:
        return []
    text = " ".join(item.prompt.split())
    same_test = [q for q in pool if test_key(q) == test_key(item) and q.item_id != item.item_id
                 and " ".join(q.prompt.split()) != text and not is_follow_up(q)]
    if len(same_test) < n:
        element, domain, grade = test_key(item)
        raise ValueError(
            f"STEER question {item.item_id}: the few-shot pool has {len(same_test)} solved examples for test "
            f"{element}/{domain}/g{grade}, the adaptation asks for {n}; raise studies.steer.fewshot_pool to at least "
            f"{n} (results/steer/fewshot_pool.parquet is generated with that many per test)"
        )
    rng = random.Random(f"{seed}:{item.item_id}")
    return rng.sample(same_test, n)


def answer_prompt(item: MCItem, examples: Sequence[MCItem], follow_ups: Mapping[str, MCItem] | None = None) -> str:
    """Solved examples (blank line between), a blank line, then the question in ``mc`` format. ``follow_ups``: the
    part 2 of each two-part example by its part 1's id (:func:`follow_ups_by_part_one`)."""
    follow_ups = follow_ups or {}
    prefix = "\n\n".join(solved_example(e, follow_ups.get(e.item_id)) for e in examples)
    return (prefix + "\n\n" if prefix else "") + mc_question(item)


def fit_to_window(item: MCItem, examples: Sequence[MCItem], count_tokens: Callable[[str], int],
                  max_tokens: int | None, follow_ups: Mapping[str, MCItem] | None = None,
                  tail: str = "") -> list[MCItem]:
    """Drop examples from the end until the prompt (and ``tail``, what will follow it: a two-part question's
    part 2) fits ``max_tokens``; the question alone must fit."""
    kept = list(examples)
    if max_tokens is None:
        return kept
    while kept and count_tokens(answer_prompt(item, kept, follow_ups) + tail) + 2 > max_tokens:
        kept.pop()
    if count_tokens(answer_prompt(item, kept, follow_ups) + tail) + 2 > max_tokens:
        raise ValueError(
            f"STEER question {item.item_id} alone needs {count_tokens(answer_prompt(item, kept))} tokens, more than "
            f"the model's context window of {max_tokens}: use a model with a longer window or leave this element out "
            "(studies.steer.scale.elements)"
        )
    return kept


def scored_questions(items: Sequence[MCItem], adaptation: str, size: int | None, seed: int) -> list[MCItem]:
    """The questions one adaptation scores: every question under 0-shot, the seeded subsample under the others.

    Every adaptation other than 0-shot draws the same subsample (same seed), and 0-shot scores it too, so each
    adaptation effect can be computed on the questions its 0-shot baseline answered (see
    :func:`choicelab.studies.steer.tables.paired_questions`).
    """
    if adaptation == "0shot":
        return list(items)
    units = item_units(items)  # a two-part question is drawn whole
    return [it for unit in seeded_subsample(units, size, seed) for it in unit]


def explanation_prompt(item: MCItem, mode: str) -> str:
    """Call 1 of a self-explanation adaptation (the reference code's first ``format_question`` variant)."""
    if mode == "together":
        return f"{item.prompt.strip()}\n{options_block(item)}\n{EXPLAIN_ANSWER_SUFFIX}"
    if mode == "separate":
        return f"{item.prompt.strip()}\n{options_block(item)}\n{EXPLAIN_SUFFIX}"
    if mode == "separate-hidden":
        return f"{item.prompt.strip()}\n{EXPLAIN_SUFFIX}"
    raise ValueError(f"unknown self-explanation mode {mode!r}; known: {EXPLANATION_MODES}")


_ANSWER_CUE_RE = re.compile(r"correct\s+answer\s*:?", re.IGNORECASE)


def explanation_text(generation: str, mode: str) -> str:
    """The explanation kept in the scoring context: the generation, stripped; under ``together`` cut where the
    model starts writing its answer ("Correct Answer"), as the reference code removes the answer it wrote."""
    text = generation.strip()
    if mode == "together":
        match = _ANSWER_CUE_RE.search(text)
        if match:
            text = text[: match.start()].rstrip()
    return text


def explained_context(item: MCItem, mode: str, generation: str) -> str:
    """The context the letters are scored after, given call 1's generation (completion-model conversation layout:
    call 1, newline, the model's text, newline, call 2)."""
    first = explanation_prompt(item, mode)
    explanation = explanation_text(generation, mode)
    if mode == "together":
        return f"{first}\n{explanation}\n{ANSWER_CUE}"
    return f"{first}\n{explanation}\n{options_block(item)}\n{MC_SUFFIX}"


@dataclass(frozen=True)
class Prompt:
    """What one question was scored after under one adaptation (written next to the dump, joined into the
    per-question frame): the exact context, how many solved examples it holds (and which), and the explanation."""

    item_id: str
    adaptation: str
    context: str
    n_examples_requested: int
    n_examples: int
    example_ids: tuple[str, ...] = ()
    explanation_prompt: str = ""
    explanation: str = ""


def build_prompts(items: Sequence[MCItem], pool: Sequence[MCItem], adaptation: str, *, seed: int,
                  count_tokens: Callable[[str], int], max_tokens: int | None,
                  explain: Callable[[list[tuple[str, str]]], dict[str, str]] | None = None,
                  then: Mapping[str, MCItem] | None = None) -> list[Prompt]:
    """The scoring prompt of each question under ``adaptation``; ``explain`` generates call-1 texts by id;
    ``then``: the part 2 that will follow each scored part 1 (by part 1's id), for which the window keeps room."""
    shots, mode = parse_adaptation(adaptation)
    if mode == "none":
        out = []
        follow_ups = follow_ups_by_part_one(pool)
        then = then or {}
        for it in items:
            tail = f"{LETTERS[0]}\n{mc_question(then[it.item_id])}" if it.item_id in then else ""
            kept = fit_to_window(it, few_shot_examples(it, pool, shots, seed), count_tokens, max_tokens, follow_ups,
                                 tail)
            out.append(Prompt(it.item_id, adaptation, answer_prompt(it, kept, follow_ups), shots, len(kept),
                              tuple(e.item_id for e in kept)))
        return out
    if explain is None:
        raise ValueError(f"adaptation {adaptation} needs a generator for the explanations")
    first = {it.item_id: explanation_prompt(it, mode) for it in items}
    generations = explain(list(first.items()))
    return [Prompt(it.item_id, adaptation, explained_context(it, mode, generations[it.item_id]), 0, 0, (),
                   first[it.item_id], explanation_text(generations[it.item_id], mode)) for it in items]


def build_contexts(items: Sequence[MCItem], pool: Sequence[MCItem], adaptation: str, **kwargs: Any) -> list[str]:
    """The scoring context of each question (see :func:`build_prompts`)."""
    return [p.context for p in build_prompts(items, pool, adaptation, **kwargs)]


def score_adaptation(scorer: Any, items: Sequence[MCItem], contexts: Sequence[str], *, model: str,
                     adaptation: str) -> list[DumpRow]:
    """Letter probabilities of every question after its context (method ``letter_prob``, variant = adaptation).

    The letters are scored right after ``Correct Answer: `` (no extra space); each row's ``context`` is that text.
    """
    from choicelab.lm.candidates import candidate_distributions

    candidates = [item_letters(it) for it in items]
    dists = candidate_distributions(scorer, list(contexts), candidates)
    rows: list[DumpRow] = []
    for item, dist in zip(items, dists, strict=True):
        rows += candidate_rows(item, dist, study="steer", model=model, method="letter_prob", variant=adaptation)
    return rows


PROMPT_SCHEMA_FIELDS = ("model", "item_id", "adaptation", "n_examples_requested", "n_examples", "example_ids",
                        "explanation_prompt", "explanation")


def prompts_table(prompts: Sequence[Prompt], model: str) -> Any:
    """Arrow table of one model's prompt records (the context itself lives in the dump's ``context`` column)."""
    import pyarrow as pa

    schema = pa.schema([
        pa.field("model", pa.string(), nullable=False),
        pa.field("item_id", pa.string(), nullable=False),
        pa.field("adaptation", pa.string(), nullable=False),
        pa.field("n_examples_requested", pa.int32(), nullable=False),
        pa.field("n_examples", pa.int32(), nullable=False),
        pa.field("example_ids", pa.list_(pa.string()), nullable=False),
        pa.field("explanation_prompt", pa.string(), nullable=False),
        pa.field("explanation", pa.string(), nullable=False),
    ])
    rows = [{"model": model, **{f: (list(getattr(p, f)) if f == "example_ids" else getattr(p, f))
                                for f in PROMPT_SCHEMA_FIELDS[1:]}} for p in prompts]
    return pa.Table.from_pylist(rows, schema=schema)


def score_model(model_dir: str, items: Sequence[MCItem], pool: Sequence[MCItem], *, model: str, adaptation: str,
                adaptation_questions: int | None, max_new_tokens: int, max_batch_tokens: int, seed: int,
                device: str) -> tuple[list[DumpRow], list[Prompt]]:
    """One scoring job: load the causal model in ``model_dir``, build each scored question's prompt under
    ``adaptation`` (greedy explanations of at most ``max_new_tokens`` tokens) and score its letters.

    Returns the dump rows and the prompt record of every scored question."""
    from choicelab.lm.causal import CausalScorer
    from choicelab.lm.generate import sample
    from choicelab.lm.loading import load_causal

    scored = scored_questions(items, adaptation, adaptation_questions, seed)
    firsts, seconds = split_follow_ups(scored)
    lm, tokenizer, meta = load_causal(model_dir, device=device)
    scorer = CausalScorer(lm, tokenizer, max_batch_tokens=max_batch_tokens)

    def explain(prompts: list[tuple[str, str]]) -> dict[str, str]:
        generations = sample(lm, tokenizer, prompts, max_new_tokens=max_new_tokens, temperature=0, seed=seed,
                             max_batch_tokens=max_batch_tokens)
        for g in generations[:3]:
            print(f"explanation of {g.id}: {g.text!r}")
        return {g.id: g.text for g in generations}

    def count_tokens(text: str) -> int:
        return len(tokenizer(text)["input_ids"])

    prompts = build_prompts(firsts, pool, adaptation, seed=seed, count_tokens=count_tokens,
                            max_tokens=meta.get("max_context_length"), explain=explain,
                            then=follow_ups_by_part_one(seconds))
    rows = score_adaptation(scorer, firsts, [q.context for q in prompts], model=model, adaptation=adaptation)
    if seconds:  # part 2 of two-part questions: after part 1 and the letter the model chose there
        more = build_follow_up_prompts(seconds, prompts, chosen_letters(rows, firsts), adaptation,
                                       count_tokens=count_tokens, max_tokens=meta.get("max_context_length"),
                                       explain=explain)
        rows += score_adaptation(scorer, seconds, [q.context for q in more], model=model, adaptation=adaptation)
        prompts += more
    short = sum(q.n_examples < q.n_examples_requested for q in prompts)
    print(f"{len(scored)} questions scored under {adaptation}; {short} prompts hold fewer examples than asked "
          "(context window)")
    return rows, prompts


# ---------------------------------------------------------------------------------------------- two-part questions
# The paper's consistency elements ask two successive choices ("Which would you choose? ... Now consider two more
# options ... which would you choose?"). As in the reference code (``get_test_questions``, ``get_response_hf``), the
# parts are asked in one conversation: part 2 comes after part 1 and the letter the model chose there, and its
# options go on with the next letters (A, B, then C, D). Each part is scored by its own letters; the pair is right only
# when both parts are (:func:`choicelab.studies.steer.metrics.combine_parts`).


def item_letters(item: MCItem) -> list[str]:
    """The display letters of ``item``'s options: A, B, ... or, for part 2 of a two-part question, the letters after
    part 1's (``meta['letter_offset']``)."""
    offset = int(item.meta.get("letter_offset", 0))
    if offset + len(item.choices) > len(LETTERS):
        raise ValueError(f"STEER question {item.item_id} needs letters up to {offset + len(item.choices)}, more than "
                         f"{len(LETTERS)}")
    return list(LETTERS[offset: offset + len(item.choices)])


def is_follow_up(item: MCItem) -> bool:
    """Whether ``item`` is part 2 of a two-part question (asked after its part 1)."""
    return int(item.meta.get("part", 0)) == 2


def part_one_id(item: MCItem) -> str:
    return f"{item.meta['pair_id']}/p1"


def item_units(items: Iterable[MCItem]) -> list[list[MCItem]]:
    """``items`` grouped into scored units: a question alone, or both parts of a two-part question (in order)."""
    units: dict[str, list[MCItem]] = {}
    for it in items:
        units.setdefault(str(it.meta.get("pair_id", it.item_id)), []).append(it)
    out = []
    for key, unit in units.items():
        unit.sort(key=lambda it: int(it.meta.get("part", 0)))
        if len(unit) > 1 and [int(it.meta.get("part", 0)) for it in unit] != [1, 2]:
            raise ValueError(f"STEER two-part question {key} has parts {[it.item_id for it in unit]}; expected p1, p2")
        out.append(unit)
    return out


def split_follow_ups(items: Sequence[MCItem]) -> tuple[list[MCItem], list[MCItem]]:
    """(questions asked first: single questions and parts 1, parts 2); every part 2 needs its part 1 in the list."""
    firsts = [it for it in items if not is_follow_up(it)]
    seconds = [it for it in items if is_follow_up(it)]
    first_ids = {it.item_id for it in firsts}
    orphans = [it.item_id for it in seconds if part_one_id(it) not in first_ids]
    if orphans:
        raise ValueError(f"STEER part 2 questions {orphans[:3]} are scored without their part 1; a two-part question "
                         "is asked whole")
    return firsts, seconds


def follow_ups_by_part_one(items: Iterable[MCItem]) -> dict[str, MCItem]:
    """Part 2 of every two-part question in ``items``, by its part 1's item id."""
    return {part_one_id(it): it for it in items if is_follow_up(it)}


def chosen_letters(rows: Sequence[DumpRow], items: Sequence[MCItem]) -> dict[str, str]:
    """The letter each question's dump rows rank first (ties: the earliest option), by item id."""
    best: dict[str, tuple[float, int]] = {}
    for row in rows:
        current = best.get(row.item_id)
        if current is None or row.prob > current[0]:
            best[row.item_id] = (row.prob, row.option_id)
    by_id = {it.item_id: it for it in items}
    return {item_id: item_letters(by_id[item_id])[option] for item_id, (_, option) in best.items()}


def build_follow_up_prompts(items: Sequence[MCItem], first_prompts: Sequence[Prompt], letters: Mapping[str, str],
                            adaptation: str, *, count_tokens: Callable[[str], int], max_tokens: int | None,
                            explain: Callable[[list[tuple[str, str]]], dict[str, str]] | None = None
                            ) -> list[Prompt]:
    """Part 2's prompts: part 1's scoring context, the letter the model chose there and a newline (the reference
    code's completion-model conversation), then part 2 as a new question under the same adaptation (under n-shot
    the examples are already in part 1's context; under self-explanation part 2 is explained in turn)."""
    _, mode = parse_adaptation(adaptation)
    first = {p.item_id: p for p in first_prompts}
    missing = [it.item_id for it in items if part_one_id(it) not in first or part_one_id(it) not in letters]
    if missing:
        raise ValueError(f"STEER part 2 questions {missing[:3]} have no scored part 1")
    prefix = {it.item_id: f"{first[part_one_id(it)].context}{letters[part_one_id(it)]}\n" for it in items}
    if mode == "none":
        out = []
        for it in items:
            context = prefix[it.item_id] + mc_question(it)
            if max_tokens is not None and count_tokens(context) + 2 > max_tokens:
                raise ValueError(f"STEER question {it.item_id} after its part 1 needs {count_tokens(context)} tokens, "
                                 f"more than the model's context window of {max_tokens}: use fewer examples or a "
                                 "model with a longer window")
            p1 = first[part_one_id(it)]
            out.append(Prompt(it.item_id, adaptation, context, p1.n_examples_requested, p1.n_examples,
                              p1.example_ids))
        return out
    if explain is None:
        raise ValueError(f"adaptation {adaptation} needs a generator for the explanations")
    calls = {it.item_id: prefix[it.item_id] + explanation_prompt(it, mode) for it in items}
    generations = explain(list(calls.items()))
    return [Prompt(it.item_id, adaptation, prefix[it.item_id] + explained_context(it, mode, generations[it.item_id]),
                   0, 0, (), calls[it.item_id], explanation_text(generations[it.item_id], mode)) for it in items]
