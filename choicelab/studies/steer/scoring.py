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
  at its **last** "Correct Answer:", where it writes its final answer, so the reasoning before it is kept, as the
  reference code's ``remove_answer_letter`` strips only the final letter) is followed by ``\\nCorrect Answer: `` and
  the letters are scored;
* ``explain-separate`` (the paper's *separate*, the reference code's ``sequential-shown``): call 1 shows the question
  with its options and asks for an explanation (:data:`EXPLAIN_SUFFIX`); call 2 shows only the options and the
  answer suffix, after call 1 and its explanation, as the reference code's completion-model conversation does;
* ``explain-separate-hidden`` (the reference code's ``sequential-hidden``, not reported in the paper): as
  ``explain-separate`` but call 1 shows the question without its options.

**Chat models.** A model whose entry asks for it (``chat_template: true``), or whose tokenizer ships a chat template
while its entry leaves ``chat_template`` unset (null: as the model ships), sees every prompt through its tokenizer's
chat template, as the reference code formats chat models (``get_chat_type``: a list of user/assistant messages
through ``tokenizer.apply_chat_template``). The user turn holds what the raw prompt holds up to the answer cue (solved
examples and question together, as the reference code's single user message does); the assistant turn is opened and
pre-filled with the cue ``Correct Answer: `` (:class:`ChatFormat`), so the letter is still read as the next token
right after the cue. Self-explanations are generated after the template's generation prompt and kept as the
assistant's turn; under ``explain-separate`` the options and answer suffix are a second user turn. ``chat_template:
false`` gives raw text; ``true`` on a tokenizer without a template fails naming the model; a string is a template
the entry gives (``data/chat_templates/falcon_instruct.jinja``: the reference code's textual Falcon-instruct format),
which the loader has set on the tokenizer. Each prompt record says
whether the template was applied, and the dump's ``context`` is the templated text the model saw. Part 2 of a
two-part question goes on in the same conversation: part 1's assistant turn holds the cue and the model's letter,
part 2 is the next user turn, then the assistant's turn pre-filled with the cue (:func:`build_follow_up_prompts`).

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
from choicelab.lm.scorer import load_scorer
from choicelab.mc.items import MCItem
from choicelab.mc.scoring import LETTERS, candidate_rows
from choicelab.stats import seeded_subsample
from choicelab.studies.steer.adaptations import EXPLANATION_MODES, NO_EXPLANATION, Adaptation

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


def max_shots(adaptations: Sequence[str]) -> int:
    """The most in-context examples any of ``adaptations`` (their names) asks for."""
    return max((Adaptation.from_name(a).shots for a in adaptations), default=0)


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
                  max_tokens: int | None, render: Callable[[MCItem, Sequence[MCItem]], str] = answer_prompt,
                  tail: str = "") -> list[MCItem]:
    """Drop examples from the end until the prompt (as ``render`` writes it, raw text or a chat model's template)
    and ``tail`` (what will follow it: a two-part question's part 2) fit ``max_tokens``; the question alone (with its
    tail) must fit."""
    kept = list(examples)
    if max_tokens is None:
        return kept
    while kept and count_tokens(render(item, kept) + tail) + 2 > max_tokens:
        kept.pop()
    if count_tokens(render(item, kept) + tail) + 2 > max_tokens:
        raise ValueError(
            f"STEER question {item.item_id} alone needs {count_tokens(render(item, kept) + tail)} tokens"
            f"{' (with its part 2)' if tail else ''}, more than "
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
    if Adaptation.from_name(adaptation) == Adaptation(shots=0):
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


_ANSWER_CUE_RE = re.compile(r"correct\s+answer\s*:", re.IGNORECASE)


def explanation_text(generation: str, mode: str) -> str:
    """The explanation kept in the scoring context: the generation, stripped; under ``together`` cut at the **last**
    "Correct Answer:" (any case), where the model writes its final answer: the reasoning before it is kept, even
    when it mentions "the correct answer:" on the way (the reference code removes only the final answer letter).
    A generation that never writes the cue is kept whole."""
    text = generation.strip()
    if mode == "together":
        matches = list(_ANSWER_CUE_RE.finditer(text))
        if matches:
            text = text[: matches[-1].start()].rstrip()
    return text


def explained_context(item: MCItem, mode: str, generation: str) -> str:
    """The context the letters are scored after, given call 1's generation (completion-model conversation layout:
    call 1, newline, the model's text, newline, call 2)."""
    first = explanation_prompt(item, mode)
    explanation = explanation_text(generation, mode)
    if mode == "together":
        return f"{first}\n{explanation}\n{ANSWER_CUE}"
    return f"{first}\n{explanation}\n{options_block(item)}\n{MC_SUFFIX}"


# ----------------------------------------------------------------------------------------------- chat templates
Turns = tuple[tuple[str, str], ...]  # (role, text); the last turn is the assistant's, ending with the answer cue


def _without_cue(text: str) -> str:
    if not text.endswith(ANSWER_CUE):
        raise ValueError(f"a STEER answer prompt must end with {ANSWER_CUE!r}, this one ends {text[-40:]!r}")
    return text[: -len(ANSWER_CUE)].rstrip()


def answer_turns(item: MCItem, examples: Sequence[MCItem], follow_ups: Mapping[str, MCItem] | None = None) -> Turns:
    """The n-shot prompt as a conversation: one user turn (solved examples and the question, up to the answer cue,
    as the reference code's single user message; two-part examples whole, ``follow_ups`` as in
    :func:`answer_prompt`), then the assistant's turn pre-filled with the cue."""
    return (("user", _without_cue(answer_prompt(item, examples, follow_ups))), ("assistant", ANSWER_CUE))


def answered_turns(turns: Turns, letter: str) -> Turns:
    """A scored conversation with the model's letter written after the pre-filled cue: the assistant's turn now
    holds its answer (``Correct Answer: B``), as the reference code keeps each sub-question's output in the
    conversation before asking the next."""
    if not turns or turns[-1][0] != "assistant" or not turns[-1][1].endswith(ANSWER_CUE):
        raise ValueError("a STEER scoring conversation ends with the assistant's pre-filled answer cue")
    return (*turns[:-1], ("assistant", turns[-1][1] + letter))


def follow_up_turns(first: Turns, letter: str, item: MCItem) -> Turns:
    """Part 2 of a two-part question as a chat model sees it (the reference code's ``reconstruct_context`` and
    ``append_question`` for its ``list`` chat type): part 1's conversation with the model's letter in the assistant's
    turn, part 2 as the next user turn, then the assistant's turn pre-filled with the cue."""
    return (*answered_turns(first, letter), ("user", _without_cue(mc_question(item))), ("assistant", ANSWER_CUE))


def explained_turns(item: MCItem, mode: str, generation: str) -> Turns:
    """The self-explanation scoring context as a conversation (the chat form of :func:`explained_context`)."""
    first, explanation = explanation_prompt(item, mode), explanation_text(generation, mode)
    if mode == "together":
        return (("user", first), ("assistant", f"{explanation}\n{ANSWER_CUE}"))
    second = _without_cue(f"{options_block(item)}\n{MC_SUFFIX}")
    return (("user", first), ("assistant", explanation), ("user", second), ("assistant", ANSWER_CUE))


@dataclass(frozen=True)
class ChatFormat:
    """A chat model's prompt format: its tokenizer's chat template (``apply_chat_template``)."""

    model: str
    tokenizer: Any

    def _messages(self, turns: Turns) -> list[dict[str, str]]:
        return [{"role": role, "content": text} for role, text in turns]

    def render(self, turns: Turns) -> str:
        """The scoring context: the turns through the template, the last (assistant) turn left open so that it
        ends with the answer cue and the letter is the next token."""
        if not turns or turns[-1][0] != "assistant":
            raise ValueError("a STEER scoring conversation ends with the assistant's pre-filled answer cue")
        text = self.tokenizer.apply_chat_template(self._messages(turns), tokenize=False,
                                                  continue_final_message=True)
        if not text.rstrip().endswith(ANSWER_CUE.rstrip()):
            raise ValueError(f"model {self.model!r}: its chat template does not end the rendered prompt with the "
                             f"answer cue {ANSWER_CUE!r} (it ends {text[-40:]!r}); set chat_template: false in its "
                             "model entry to score it on raw text")
        return text.rstrip() + ANSWER_CUE[len(ANSWER_CUE.rstrip()):]

    def render_call(self, user: str, before: Turns = ()) -> str:
        """A generation prompt: the conversation so far (``before``, e.g. part 1 of a two-part question), one user
        turn, then the template's opening of the assistant's turn."""
        return self.tokenizer.apply_chat_template(self._messages((*before, ("user", user))), tokenize=False,
                                                  add_generation_prompt=True)


def chat_format(model: str, tokenizer: Any, requested: bool | str | None) -> ChatFormat | None:
    """The prompt format a model entry asks for: ``chat_template`` true = apply the tokenizer's chat template (it
    must have one), false = raw text, null = as the model ships (the template when the tokenizer has one), a string
    = the template the entry gives (set on the tokenizer by the loader from model.json)."""
    if not isinstance(requested, str) and requested not in (True, False, None):
        raise ValueError(f"model {model!r}: key 'chat_template' is {requested!r}; write true, false, a template or "
                         "leave it out")
    has_template = bool(getattr(tokenizer, "chat_template", None))
    if isinstance(requested, str) and not has_template:
        raise ValueError(f"model {model!r}: its entry gives a chat template but its tokenizer has none; rebuild the "
                         "model (rule prepare_model) so that model.json records it")
    if requested is True and not has_template:
        raise ValueError(f"model {model!r}: its entry sets chat_template: true but its tokenizer has no chat "
                         "template; set chat_template: false (raw text) or use a checkpoint whose tokenizer has one")
    if requested is False or not has_template:
        return None
    return ChatFormat(model, tokenizer)


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
    chat_template: bool = False
    turns: Turns = ()  # under a chat template, the conversation ``context`` renders (not written to the record)


@dataclass(frozen=True)
class ContextWindow:
    """A model's context window: how to count a text's tokens and how many fit (``None``: no limit)."""

    count_tokens: Callable[[str], int] = len
    max_tokens: int | None = None


def build_prompts(items: Sequence[MCItem], pool: Sequence[MCItem], adaptation: str, *, seed: int,
                  window: ContextWindow = ContextWindow(),
                  explain: Callable[[list[tuple[str, str]]], dict[str, str]] | None = None,
                  chat: ChatFormat | None = None, then: Mapping[str, MCItem] | None = None) -> list[Prompt]:
    """The scoring prompt of each question under ``adaptation``, fitted to ``window``; ``explain`` generates call-1
    texts by id; ``chat`` (a chat model's template) renders every prompt as a conversation, else the prompts are raw
    text; ``then``: the part 2 that will follow each scored part 1 (by part 1's id), for which the window keeps room."""
    parsed = Adaptation.from_name(adaptation)
    shots, mode = parsed.shots, parsed.explain
    templated = chat is not None

    follow_ups = follow_ups_by_part_one(pool)
    then = then or {}

    def render(item: MCItem, examples: Sequence[MCItem]) -> str:
        if chat is not None:
            return chat.render(answer_turns(item, examples, follow_ups))
        return answer_prompt(item, examples, follow_ups)

    def pair_render(second: MCItem) -> Callable[[MCItem, Sequence[MCItem]], str]:
        """Part 2's conversation after part 1 with ``examples`` (a one-token letter standing for part 1's answer)."""
        assert chat is not None
        return lambda item, examples: chat.render(follow_up_turns(answer_turns(item, examples, follow_ups),
                                                                  LETTERS[0], second))

    if mode == NO_EXPLANATION:
        out = []
        for it in items:
            if chat is None:
                # raw text: part 2 follows part 1's context, a letter and a newline (build_follow_up_prompts)
                tail = f"{LETTERS[0]}\n{mc_question(then[it.item_id])}" if it.item_id in then else ""
                fit_render = render
            else:
                # a chat template renders the whole conversation, so the window is checked on part 2's
                tail, fit_render = "", (pair_render(then[it.item_id]) if it.item_id in then else render)
            kept = fit_to_window(it, few_shot_examples(it, pool, shots, seed), window.count_tokens, window.max_tokens,
                                 fit_render, tail)
            turns = answer_turns(it, kept, follow_ups) if chat is not None else ()
            out.append(Prompt(it.item_id, adaptation, render(it, kept), shots, len(kept),
                              tuple(e.item_id for e in kept), chat_template=templated, turns=turns))
        return out
    if explain is None:
        raise ValueError(f"adaptation {adaptation} needs a generator for the explanations")
    first = {it.item_id: explanation_prompt(it, mode) for it in items}
    if chat is not None:
        first = {item_id: chat.render_call(text) for item_id, text in first.items()}
    generations = explain(list(first.items()))

    def context(item: MCItem) -> str:
        generation = generations[item.item_id]
        if chat is not None:
            return chat.render(explained_turns(item, mode, generation))
        return explained_context(item, mode, generation)

    def turns(item: MCItem) -> Turns:
        return explained_turns(item, mode, generations[item.item_id]) if chat is not None else ()

    return [Prompt(it.item_id, adaptation, context(it), 0, 0, (), first[it.item_id],
                   explanation_text(generations[it.item_id], mode), templated, turns(it)) for it in items]


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
                        "explanation_prompt", "explanation", "chat_template")


def prompts_table(prompts: Sequence[Prompt], model: str) -> Any:
    """Arrow table of one model's prompt records (the context itself lives in the dump's ``context`` column)."""
    import pyarrow as pa

    types = {"n_examples_requested": pa.int32(), "n_examples": pa.int32(), "example_ids": pa.list_(pa.string()),
             "chat_template": pa.bool_()}  # every other field is a string; none is nullable
    schema = pa.schema([pa.field(f, types.get(f, pa.string()), nullable=False) for f in PROMPT_SCHEMA_FIELDS])
    rows = [{"model": model, **{f: (list(getattr(p, f)) if f == "example_ids" else getattr(p, f))
                                for f in PROMPT_SCHEMA_FIELDS[1:]}} for p in prompts]
    return pa.Table.from_pylist(rows, schema=schema)


@dataclass(frozen=True)
class ScoringJob:
    """What one scoring job scores: ``model`` under ``adaptation`` (``adaptation_questions`` of them, drawn with
    ``seed``), explanations of at most ``max_new_tokens`` tokens, on ``device``, through the model's chat template as
    ``chat_template`` asks (:func:`chat_format`)."""

    model: str
    adaptation: str
    adaptation_questions: int | None
    max_new_tokens: int
    max_batch_tokens: int | str
    seed: int
    device: str
    chat_template: bool | str | None = None


def score_model(model_dir: str, items: Sequence[MCItem], pool: Sequence[MCItem], job: ScoringJob | None = None,
                **fields: Any) -> tuple[list[DumpRow], list[Prompt]]:
    """One scoring job (``job``, or its :class:`ScoringJob` fields by keyword): load the causal model in
    ``model_dir``, build each scored question's prompt under the job's adaptation (greedy explanations; through the
    model's chat template as its entry asks) and score its letters.

    Returns the dump rows and the prompt record of every scored question."""
    job = job or ScoringJob(**fields)
    model, adaptation, seed = job.model, job.adaptation, job.seed
    scored = scored_questions(items, adaptation, job.adaptation_questions, seed)
    firsts, seconds = split_follow_ups(scored)
    scorer, meta = load_scorer(model_dir, device=job.device, max_batch_tokens=job.max_batch_tokens)
    tokenizer = scorer.tokenizer
    chat = chat_format(model, tokenizer, job.chat_template)
    print(f"{model}: prompts {'through its chat template' if chat else 'as raw text'} "
          f"(chat_template: {job.chat_template})")

    def explain(prompts: list[tuple[str, str]]) -> dict[str, str]:
        generations = scorer.sample(prompts, max_new_tokens=job.max_new_tokens, temperature=0, seed=seed)
        for g in generations[:3]:
            print(f"explanation of {g.id}: {g.text!r}")
        return {g.id: g.text for g in generations}

    def count_tokens(text: str) -> int:
        return len(tokenizer(text)["input_ids"])

    window = ContextWindow(count_tokens, meta.get("max_context_length"))
    prompts = build_prompts(firsts, pool, adaptation, seed=seed, window=window, explain=explain, chat=chat,
                            then=follow_ups_by_part_one(seconds))
    rows = score_adaptation(scorer, firsts, [q.context for q in prompts], model=model, adaptation=adaptation)
    if seconds:  # part 2 of two-part questions: after part 1 and the letter the model chose there
        more = build_follow_up_prompts(seconds, prompts, chosen_letters(rows, firsts), adaptation, window=window,
                                       explain=explain, chat=chat)
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
                            adaptation: str, *, window: ContextWindow = ContextWindow(),
                            explain: Callable[[list[tuple[str, str]]], dict[str, str]] | None = None,
                            chat: ChatFormat | None = None) -> list[Prompt]:
    """Part 2's prompts: part 1's scoring context, the letter the model chose there and a newline (the reference
    code's completion-model conversation), then part 2 as a new question under the same adaptation (under n-shot
    the examples are already in part 1's context; under self-explanation part 2 is explained in turn).

    Under a chat template (``chat``) the same conversation goes on in turns (the reference code's ``list`` chat
    type): part 1's turns with the model's letter after the pre-filled cue in the assistant's turn, part 2 as the next
    user turn, then the assistant's turn pre-filled with the cue (:func:`follow_up_turns`); under self-explanation
    part 2's call 1 is the next user turn after part 1's answered conversation."""
    mode = Adaptation.from_name(adaptation).explain
    first = {p.item_id: p for p in first_prompts}
    missing = [it.item_id for it in items if part_one_id(it) not in first or part_one_id(it) not in letters]
    if missing:
        raise ValueError(f"STEER part 2 questions {missing[:3]} have no scored part 1")
    if chat is not None:
        untemplated = [it.item_id for it in items if not first[part_one_id(it)].turns]
        if untemplated:
            raise ValueError(f"STEER part 2 questions {untemplated[:3]}: their part 1 was not built through the chat "
                             "template (build part 1 with the same chat format)")
    prefix = {it.item_id: f"{first[part_one_id(it)].context}{letters[part_one_id(it)]}\n" for it in items}
    before = {it.item_id: answered_turns(first[part_one_id(it)].turns, letters[part_one_id(it)])
              for it in items} if chat is not None else {}
    if mode == NO_EXPLANATION:
        out = []
        for it in items:
            p1 = first[part_one_id(it)]
            turns: Turns = ()
            if chat is None:
                context = prefix[it.item_id] + mc_question(it)
            else:
                turns = follow_up_turns(p1.turns, letters[part_one_id(it)], it)
                context = chat.render(turns)
            count_tokens, max_tokens = window.count_tokens, window.max_tokens
            if max_tokens is not None and count_tokens(context) + 2 > max_tokens:
                raise ValueError(f"STEER question {it.item_id} after its part 1 needs {count_tokens(context)} tokens, "
                                 f"more than the model's context window of {max_tokens}: use fewer examples or a "
                                 "model with a longer window")
            out.append(Prompt(it.item_id, adaptation, context, p1.n_examples_requested, p1.n_examples,
                              p1.example_ids, chat_template=chat is not None, turns=turns))
        return out
    if explain is None:
        raise ValueError(f"adaptation {adaptation} needs a generator for the explanations")
    if chat is None:
        calls = {it.item_id: prefix[it.item_id] + explanation_prompt(it, mode) for it in items}
    else:
        calls = {it.item_id: chat.render_call(explanation_prompt(it, mode), before[it.item_id]) for it in items}
    generations = explain(list(calls.items()))
    if chat is None:
        return [Prompt(it.item_id, adaptation,
                       prefix[it.item_id] + explained_context(it, mode, generations[it.item_id]),
                       0, 0, (), calls[it.item_id], explanation_text(generations[it.item_id], mode)) for it in items]
    out = []
    for it in items:
        turns = (*before[it.item_id], *explained_turns(it, mode, generations[it.item_id]))
        out.append(Prompt(it.item_id, adaptation, chat.render(turns), 0, 0, (), calls[it.item_id],
                          explanation_text(generations[it.item_id], mode), True, turns))
    return out
