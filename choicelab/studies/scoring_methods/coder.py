"""Coding free generations into the option they express, the way the paper's authors coded theirs by hand.

Tsvilodub et al. read every free generation and wrote down the option it expresses (``target``, ``competitor``, a
distractor such as ``incorrect_literal``: the column names of LLM_link's ``data_hu_*.csv``) or ``error`` when it
expresses none. :func:`code_generation` does the same automatically, in three steps:

1. **The answer** (:func:`extract_answer`): a causal model often echoes the prompt before answering, so the text after
   the first "Your answer:" is kept; a new prompt ("You will read ...", another "Your answer:") ends it; markup
   lines (``### Solution``, code fences, ``\\section{...}``, "My answer:"), questions and bare list numbers are
   dropped; a letter or roman list marker opening a line ("A. ...", "I. ...") is read past, the listed item a
   sentence of its own; the first :data:`ANSWER_SENTENCES` sentence(s) are the answer (one sentence: the
   hand coders went by the first statement; reading more lowered agreement on both models).
2. **No answer** -> ``error`` (:func:`non_answer`): nothing left (an echo of the instructions, a list of empty
   headers), a template placeholder, a hedge ("I don't know", "it depends", "cannot be determined") or an
   instruction about the answer ("You have to write 200 words"), or a repetition of the item's story (the first
   sentence's words nearly all in the story: :func:`echoes`).
3. **The option**: coherence is a yes/no judgement coded by rules on the first sentence (:func:`coherence_judgement`;
   "yes", "coherent" -> the coherent option; "no", "not coherent", "incoherent", "does not make sense" -> the
   incoherent one). In every other condition each option is scored by the cosine of sentence embeddings
   (all-MiniLM-L6-v2 in the workflow) between answer and option plus ``prototype_weight`` x the cosine between the
   answer and the option category's prototype (the mean embedding of that category's options over every item of the
   condition, :func:`prototypes_of`), the answer embedded without its framing (:func:`strip_framing`), minus
   ``polarity_penalty`` where the answer and the option differ in negation; the
   best-scoring option, if the answer's best cosine with an option is at least ``min_similarity``; else ``error``.
   With an LLM ``judge`` (:func:`judge_prompt`; ``studies.scoring_methods.coder.kind: judge``) the judge decides
   instead of the embeddings. Hand-coded examples can vote too (``examples``, ``example_weight``) but are
   off by default: they pull answers towards the item's usual code (docs/scoring_methods.md).

The settings are fitted on one model's hand-coded generations and measured on the other's
(``bench/free_coding.py``; docs/scoring_methods.md reports the agreement and the authors' agreement with each other).
No torch here: the embedder is passed in as a function ``texts -> unit-norm vectors``.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

ERROR = "error"
ANSWER_CUE = "Your answer:"
# Settings (bench/free_coding.py --fit, docs/scoring_methods.md): the answer length is the best on either model's hand
# codes; threshold and prototype weight the best on either model's hand codes (grid 0.15/0.2 x 0/1/2/4).
# Hand-coded examples are off (EXAMPLE_WEIGHT 0): they raise agreement with the hand codes but vote the item's usual
# code, so that an answer that IS an option's text is coded as that option only 64-73 % of the time (docs).
ANSWER_SENTENCES = 1
# Whose hand codes the shipped settings (and every rule of steps 1-3) were developed on: agreement on the other
# models' hand codes is held out for the settings (docs/scoring_methods.md, "Protocol").
DEVELOPED_ON = "llama2"
MIN_SIMILARITY = 0.2
MAX_ANSWER_CHARS = 400
PROTOTYPE_WEIGHT = 1.0
TARGET_BIAS = 0.0
STRIP_FRAMES = True
# Off an option whose negation differs from the answer's (chosen on Llama-2: target kappa .588 -> .596; held out on
# FLAN-T5 .629 -> .634; docs/scoring_methods.md).
POLARITY_PENALTY = 0.05
_NEGATION = re.compile(r"\b(?:not|no|never|nothing|n't|cannot|neither|nor|without)\b|n't\b", re.I)
EXAMPLE_WEIGHT = 0.0
NEIGHBOURS = 5
SAME_ITEM_BONUS = 1.0
MIN_EXAMPLE_SIMILARITY = 0.0
WEIGHTED_VOTES = True

RULES = ("coherence", "cue", "embedding", "judge", "classifier", "empty", "non_answer", "echo", "below_threshold")

# Condition-level cues: an answer that states the category's defining content is coded as that category, whatever
# the option wording. Deceits' target is by design the white lie's motive, sparing the other's feelings or avoiding
# trouble ("She does not want to hurt Andy's feelings", "She wants to make her partner feel better"), which sentence
# similarity matches to the option that shares the names instead. Over both models' generations this cue fires on 32
# answers the authors coded as the target and on 1 they coded otherwise.
CUES: dict[str, tuple[re.Pattern[str], str]] = {
    "deceits": (
        re.compile(
            r"\b(?:(?:not|n't) want(?:s|ed)? to (?:hurt|upset|offend|disappoint|ruin|worry|stress|embarrass|"
            r"make \w+ (?:feel )?(?:sad|bad|upset|worse)|get (?:in|into) trouble|admit|tell)|"
            r"(?:make|makes|made) (?:\w+ ){0,2}(?:feel|be) (?:better|good|happy)|spare|"
            r"(?:hurt|hurting) (?:\w+ ){0,2}feelings|be (?:nice|kind|polite|supportive)|"
            r"(?:supportive|support|polite|nice|kind|caring|tactful|protect|reassure|comfort|please|"
            r"avoid (?:trouble|getting|being|punishment|hurting|upsetting))\b)",
            re.I,
        ),
        "target",
    ),
}

Embed = Callable[[Sequence[str]], np.ndarray]
# An LLM judge: (prompts, the letters each prompt offers) -> per prompt, the log-probability of each letter as the
# reply (choicelab.studies.scoring_methods.code_free.load_judge builds one from a causal model folder).
Judge = Callable[[Sequence[str], Sequence[Sequence[str]]], list[np.ndarray]]


@dataclass(frozen=True)
class Coded:
    """One coded generation: the option category (or ``error``), the rule that decided, the answer text read, the
    coded option's cosine with the answer and its score's margin over the runner-up (embedding rule only)."""

    category: str
    rule: str  # one of RULES
    answer: str
    similarity: float = math.nan
    margin: float = math.nan


@dataclass(frozen=True)
class Example:
    """A hand-coded answer the coder learns from: its condition, item, the answer text read from the generation
    (:func:`extract_answer`) and the hand code."""

    condition: str
    item_id: object
    answer: str
    code: str


def prototypes_of(
    conditions: Sequence[str], options: Sequence[Sequence[str]], categories: Sequence[Sequence[str]]
) -> dict[tuple[str, str], tuple[str, ...]]:
    """(condition, category) -> the distinct texts of that category's options over the given items: the coder's
    category prototypes."""
    out: dict[tuple[str, str], list[str]] = {}
    for condition, texts, names in zip(conditions, options, categories, strict=True):
        for text, name in zip(texts, names, strict=True):
            if text not in out.setdefault((condition, name), []):
                out[(condition, name)].append(text)
    return {k: tuple(v) for k, v in out.items()}


def _unit(vector: np.ndarray) -> np.ndarray:
    return vector / max(float(np.linalg.norm(vector)), 1e-12)


# -- the answer --------------------------------------------------------------------------------------------------

_NEW_PROMPT = re.compile(r"Your answer:|You will read a |Is this story coherent or not\?|Why has the speaker responded")
_FENCE_OR_COMMAND = re.compile(r"^\s*(?:`{3}.*|\\[a-z]+\{[^}]*\}.*|<[^>]*>\s*)$", re.I)
_HEADER = re.compile(r"^\s*#+\s*")
_LINE_PREFIX = re.compile(
    r"^\s*(?:[-*>]+\s*|\(?\d+\s*[.):]\s*|\(?[a-e]\)\s+|(?:my |the |final |correct )?answer\s*(?:is)?\s*:\s*)+", re.I
)
_LABEL_ONLY = re.compile(
    r"^(?:(?:my |the |your |final )?(?:answer|solution|explanation|interpretation|task description|response|note)s?"
    r"|example|output|\d+)?\W*$",
    re.I,
)
# a letter or roman list marker opening a line ("A. ...", "I. ...", "a." alone): Llama-2 lists its candidate answers
_LIST_MARKER = re.compile(r"^(?:(?:[a-e]|i{1,3}|iv|v)\.(?:\s+|$))+", re.I)
_SENTENCE_END = re.compile(r"(?<!\bMr\.)(?<!\bMs\.)(?<!\bDr\.)(?<!\bMrs\.)(?<!\bSt\.)(?<=[.!?])[\"'”’)]*\s+")


def extract_answer(response: str, sentences: int = ANSWER_SENTENCES) -> str:
    """The answer a generation gives (see the module docstring, step 1); "" when it gives none."""
    text = str(response).replace("\r", "")
    cue = text.find(ANSWER_CUE)
    if cue >= 0:
        text = text[cue + len(ANSWER_CUE) :]
    text = _NEW_PROMPT.split(text, maxsplit=1)[0]
    kept = []
    for line in text.split("\n"):
        if _FENCE_OR_COMMAND.match(line):
            continue
        header = bool(_HEADER.match(line))
        line = _LINE_PREFIX.sub("", _HEADER.sub("", line)).strip()
        marker = _LIST_MARKER.match(line)
        if marker:  # the listed item's text, one sentence of its own (the next item starts another)
            line = line[marker.end() :].strip()
            if line and line[-1] not in ".!?\"'”’)":
                line += "."
        if _LABEL_ONLY.match(line) or line.endswith("?") or (header and len(line.split()) <= 3 and "." not in line):
            continue
        kept.append(line)
    joined = re.sub(r"\s+", " ", " ".join(kept)).strip()
    parts = [p for p in _SENTENCE_END.split(joined) if p.strip()]
    return " ".join(parts[:sentences])[:MAX_ANSWER_CHARS].strip()


_NON_ANSWER = re.compile(
    r"\{\{|\}\}|\b(?:i (?:do not|don't) know|not sure|no idea|it depends|hard to (?:say|tell)|"
    r"(?:cannot|can't|can not) (?:be )?(?:determined?|tell|say|know|answer)|unclear|not enough information|"
    r"you (?:have|need|should) (?:to )?(?:write|explain|answer|choose|decide)|write \d+|\d+ (?:to \d+ )?words)\b"
    r"|^\W*(?:if|when)\b|<[a-z]+[ >]",
    re.I,
)


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower())


ECHO_MIN_WORDS = 13


def echoes(answer: str, context: str, min_overlap: float = 0.8, min_words: int = ECHO_MIN_WORDS) -> bool:
    """True when the answer's first sentence repeats the item's story: at least ``min_overlap`` of its words (and
    at least ``min_words``) occur in ``context``. Short answers are exempt: "She is in a committed relationship." uses
    the story's words but is an answer (the hand coders coded most echo-like answers of 12 words or fewer as an
    option, most longer ones as an error)."""
    first = _words(_SENTENCE_END.split(answer, maxsplit=1)[0])
    story = set(_words(context))
    return len(first) >= min_words and sum(w in story for w in first) / len(first) >= min_overlap


_SUBJECT = (
    r"(?:the speaker|the character|[A-Z][\w'’]*|he|she|they|this|it)(?:['’]s (?:response|answer|reply)| response)?"
)
_REPORTING = (
    r"(?:(?:is|was|are)\s+(?:probably\s+|likely\s+|just\s+)?(?:trying|attempting|wanting)\s+to\s+"
    r"(?:say|convey|suggest|imply|tell \w+|express|indicate|point out)"
    r"|(?:is|was)\s+(?:saying|conveying|suggesting|implying|indicating|expressing|telling \w+)"
    r"|means?|meant|implies|implied|suggests?|suggested|says?|said|(?:is|was) due to the fact)"
)
_FRAMING = re.compile(
    rf"^\W*(?:(?:i think|i believe|it seems|because)\W+)?(?:that\s+)?{_SUBJECT}\s+{_REPORTING}\s*(?:that\s+)?", re.I
)


def strip_framing(answer: str) -> str:
    """The interpretation an answer reports, without its framing: "The speaker is trying to convey that she is not
    interested" -> "she is not interested"; "Janet means the dancers were graceful" -> "the dancers were graceful".
    Options state interpretations without such a frame, so it only adds distance. Unchanged where fewer than two
    words would remain."""
    stripped = _FRAMING.sub("", answer, count=1).strip()
    return stripped if len(stripped.split()) >= 2 else answer


def non_answer(answer: str) -> bool:
    """True for an answer (the coder passes its first sentence) that expresses no option: no letters, a template
    placeholder, a hedge or an instruction."""
    return not re.search(r"[A-Za-z]{2,}", answer) or bool(_NON_ANSWER.search(answer))


# -- coherence ------------------------------------------------------------------------------------------------

_INCOHERENT = re.compile(
    r"\bno\b|\bincoherent\b|\bnot (?:a |very )?coherent\b|\b(?:isn't|is not|are not|aren't|doesn't|does not|do not|"
    r"don't)\b[^.]*\b(?:coherent|make sense|form|fit|connected|related)\b|\bnot coherent\b|\bno sense\b|\bunrelated\b",
    re.I,
)
_COHERENT = re.compile(r"\byes\b|\bcoherent\b|\bmakes? sense\b", re.I)


def _sentence_judgement(sentence: str) -> str | None:
    negative = _INCOHERENT.search(sentence)
    positive = _COHERENT.search(_INCOHERENT.sub(" ", sentence))
    if negative and positive:
        return "both"
    return "incoherent" if negative else "coherent" if positive else None


def coherence_judgement(answer: str) -> str | None:
    """"coherent", "incoherent" or None, from the answer's first sentence; None when the answer says both ("Yes ...
    No", "Yes, it is coherent. No, it is not coherent.": a list of the possible answers, not an answer). Later
    sentences count only where they are a judgement themselves (start with yes/no or say "coherent")."""
    sentences = [p for p in _SENTENCE_END.split(answer) if p.strip()]
    first = _sentence_judgement(sentences[0]) if sentences else None
    if first in (None, "both"):
        return None
    for later in sentences[1:]:
        if (re.match(r"^\W*(?:yes|no)\b", later, re.I) or re.search(r"coherent", later, re.I)) and (
            _sentence_judgement(later) not in (first, None)
        ):
            return None
    return first


# -- the LLM judge ------------------------------------------------------------------------------------------------

LETTERS = "ABCDEFGH"
JUDGE_NONE = "none of them: the reply gives no interpretation (it repeats the story, hedges, lists several answers, "\
    "gives instructions or asks a question)"


def judge_prompt(context: str, options: Sequence[str], answer: str) -> tuple[str, tuple[str, ...]]:
    """The judge's prompt for one generation and the letters it offers: the situation (story and question), the
    reply read from the generation, the item's options as lettered interpretations and a last letter for "none of
    them" (the option-vs-``error`` convention of docs/scoring_methods.md, in words)."""
    letters = tuple(LETTERS[: len(options) + 1])
    lines = [f"{letter}. {text}" for letter, text in zip(letters, (*options, JUDGE_NONE), strict=True)]
    prompt = (
        "Someone read a short situation and answered its question.\n\n"
        f"Situation: {context.strip()}\n\nTheir reply: {answer.strip()}\n\n"
        "Which interpretation does the reply express? A paraphrase or an explanation of an interpretation counts "
        "as that interpretation.\n" + "\n".join(lines) + "\nAnswer with one letter.\nLetter:"
    )
    return prompt, letters


# -- coding -------------------------------------------------------------------------------------------------------


def rule_code(answer: str, condition: str, options: Sequence[str], categories: Sequence[str],
              context: str | None) -> Coded | None:
    """Steps 2 and 3's rules on an answer read from a generation (:func:`extract_answer`): ``error`` for no answer, a
    non-answer or an echo of the story (``context``; None: not checked), the coherence judgement in coherence; None
    where the answer is left to the embeddings, a judge or a trained classifier."""
    if not answer:
        return Coded(ERROR, "empty", answer)
    if non_answer(_SENTENCE_END.split(answer, maxsplit=1)[0]):
        return Coded(ERROR, "non_answer", answer)
    if condition == "coherence":
        judgement = coherence_judgement(answer)
        if judgement is None:
            return Coded(ERROR, "non_answer", answer)
        return Coded(categories[list(map(str.lower, options)).index(judgement)], "coherence", answer)
    if context is not None and echoes(answer, context):
        return Coded(ERROR, "echo", answer)
    return None


@dataclass(frozen=True)
class Classifier:
    """A trained coder (:mod:`choicelab.studies.scoring_methods.trained_coder`): ``probabilities(contexts, answers,
    options)`` gives per answer the probability of each option and, last, of ``error``; ``error_threshold`` is the
    probability of ``error`` from which the answer is coded ``error`` (calibrated on the training data)."""

    probabilities: Callable[[Sequence[str], Sequence[str], Sequence[Sequence[str]]], list[np.ndarray]]
    error_threshold: float


def decide_option(probabilities: np.ndarray, error_threshold: float) -> int | None:
    """The index of the coded option from probabilities over the options and, last, ``error``: None (``error``) when
    ``error``'s probability is at least ``error_threshold``, else the most probable option (first on ties)."""
    if float(probabilities[-1]) >= error_threshold:
        return None
    return int(np.argmax(probabilities[:-1]))


@dataclass(frozen=True)
class CoderSettings:
    """How the coder reads and scores an answer (the defaults are the shipped settings, the module's constants; the
    fields are documented at :func:`code_generations`)."""

    min_similarity: float = MIN_SIMILARITY
    sentences: int = ANSWER_SENTENCES
    prototype_weight: float = PROTOTYPE_WEIGHT
    example_weight: float = EXAMPLE_WEIGHT
    neighbours: int = NEIGHBOURS
    same_item_bonus: float = SAME_ITEM_BONUS
    min_example_similarity: float = MIN_EXAMPLE_SIMILARITY
    weighted_votes: bool = WEIGHTED_VOTES
    exclude_identical: bool = False  # leave out examples with the generation's own item and answer text
    target_bias: float = TARGET_BIAS
    strip_frames: bool = STRIP_FRAMES
    polarity_penalty: float = POLARITY_PENALTY


SHIPPED_SETTINGS = CoderSettings()


@dataclass(frozen=True)
class FreeCoder:
    """What decides the option of an answer the rules leave open: a trained ``classifier``, else an LLM ``judge``,
    else the sentence embeddings of ``embed`` (texts -> unit-norm vectors; the only one needed when no judge or
    classifier is given)."""

    embed: Embed | None = None
    judge: Judge | None = None
    classifier: Classifier | None = None


OWN_EMBEDDINGS = FreeCoder()  # no coder model: a scoring job codes with the scored model's own embeddings


@dataclass(frozen=True)
class Generations:
    """The generations to code, one entry per generation in every field: the response, its item's condition, option
    texts and option categories; optionally the item's story and question (``contexts``) and item id."""

    responses: Sequence[str]
    conditions: Sequence[str]
    options: Sequence[Sequence[str]]
    categories: Sequence[Sequence[str]]
    contexts: Sequence[str] | None = None
    item_ids: Sequence[object] | None = None

    def __post_init__(self) -> None:
        if not len(self.responses) == len(self.conditions) == len(self.options) == len(self.categories):
            raise ValueError("responses, conditions, options and categories differ in length")
        if self.contexts is not None and len(self.contexts) != len(self.responses):
            raise ValueError("contexts and responses differ in length")
        if self.item_ids is not None and len(self.item_ids) != len(self.responses):
            raise ValueError("item_ids and responses differ in length")


def code_generation(
    response: str,
    condition: str,
    options: Sequence[str],
    categories: Sequence[str],
    *,
    embed: Embed | None,
    context: str | None = None,
    settings: CoderSettings = SHIPPED_SETTINGS,
) -> Coded:
    """The option category one generation expresses, or ``error`` (see the module docstring and
    :func:`code_generations`)."""
    generations = Generations([response], [condition], [options], [categories],
                              contexts=None if context is None else [context])
    return code_generations(generations, FreeCoder(embed=embed), settings=settings)[0]


def code_generations(
    generations: Generations,
    coder: FreeCoder,
    *,
    prototypes: Mapping[tuple[str, str], Sequence[str]] | None = None,
    examples: Sequence[Example] | None = None,
    settings: CoderSettings = SHIPPED_SETTINGS,
) -> list[Coded]:
    """:func:`code_generation` for many generations, embedding every answer and option text once. ``contexts`` (the
    item's story and question per generation) lets an answer that only repeats the story be coded ``error``.

    The option is chosen by a score per option (step 3 of the module docstring): the cosine between answer and option,
    plus ``prototype_weight`` x the cosine between the answer and the category's prototype (the mean embedding of
    that category's options over every item of the condition, ``prototypes[(condition, category)]``: what a
    ``target`` of deceits says in general), plus ``example_weight`` x the share of the ``neighbours`` most similar
    hand-coded answers of the same condition (``examples``; an example of the same item, ``item_ids``, counts
    ``same_item_bonus`` more similar; only examples whose cosine with the answer is at least ``min_example_similarity``
    vote, so an item's usual code does not outvote what the answer says; with ``weighted_votes`` each vote counts its
    cosine) that carry the category. ``exclude_identical`` leaves out examples with the
    generation's own item and answer text (fitting on the examples' own model). ``target_bias`` is added to the
    ``target`` option's score (> 0: an answer between the target and another option goes to the target).
    (``min_similarity``, ``sentences``, ... are the fields of ``settings``, :class:`CoderSettings`.)

    With a ``judge`` (an LLM judge, :data:`Judge`) the judge decides instead of the embeddings and the cue: it is
    shown the situation (``contexts``, required), the answer and the options (:func:`judge_prompt`), and its most
    likely letter is the code (the last letter: ``error``). With a trained ``classifier`` (:class:`Classifier`:
    probabilities over the options plus ``error``) the options' most probable is the code unless ``error``'s
    probability reaches the classifier's calibrated threshold (:func:`decide_option`). Steps 1-2 and the coherence
    rules (:func:`rule_code`) come first as always."""
    g = generations
    if examples and g.item_ids is None:
        raise ValueError("coding with hand-coded examples needs the generations' item_ids")
    if coder.judge is not None and g.contexts is None:
        raise ValueError("coding with an LLM judge needs the generations' contexts (the situation it is shown)")
    if coder.classifier is not None and (g.contexts is None or coder.judge is not None):
        raise ValueError("coding with a trained classifier needs the generations' contexts and no judge")
    answers = [extract_answer(r, settings.sentences) for r in g.responses]
    out: list[Coded | None] = [None] * len(g.responses)
    pending = _rule_pass(g, answers, out, by_model=coder.judge is not None or coder.classifier is not None)
    if pending and coder.classifier is not None:
        _code_by_classifier(g, answers, pending, coder.classifier, out)
    elif pending and coder.judge is not None:
        _code_by_judge(g, answers, pending, coder.judge, out)
    elif pending:
        if coder.embed is None:
            raise ValueError("coding free generations of multiple-choice conditions needs an embedder")
        _code_by_embeddings(g, answers, pending, _Embedded.of(g, answers, pending, coder.embed, prototypes, examples,
                                                              settings), settings, out)
    return [c for c in out if c is not None]


def _rule_pass(g: Generations, answers: Sequence[str], out: list[Coded | None], *, by_model: bool) -> list[int]:
    """Steps 1-2, the coherence rules and (unless a judge or classifier decides, ``by_model``) the condition cues:
    what they code goes into ``out``; the indices left open are returned."""
    pending: list[int] = []
    for i, (answer, condition) in enumerate(zip(answers, g.conditions, strict=True)):
        context = None if g.contexts is None else g.contexts[i]
        ruled = rule_code(answer, condition, g.options[i], g.categories[i], context)
        if ruled is not None:
            out[i] = ruled
        elif by_model:
            pending.append(i)
        elif condition in CUES and CUES[condition][1] in g.categories[i] and CUES[condition][0].search(
            _SENTENCE_END.split(answer, maxsplit=1)[0]
        ):
            out[i] = Coded(CUES[condition][1], "cue", answer)
        else:
            pending.append(i)
    return pending


def _code_by_classifier(g: Generations, answers: Sequence[str], pending: Sequence[int], classifier: Classifier,
                        out: list[Coded | None]) -> None:
    rows = classifier.probabilities([g.contexts[i] for i in pending], [answers[i] for i in pending],
                                    [g.options[i] for i in pending])
    if len(rows) != len(pending):
        raise ValueError(f"the classifier returned {len(rows)} rows for {len(pending)} answers")
    for i, row in zip(pending, rows, strict=True):
        row = np.asarray(row, dtype=float)
        if row.shape != (len(g.options[i]) + 1,) or not np.isfinite(row).all():
            raise ValueError(f"the classifier returned {row.tolist()} for {len(g.options[i])} options + error")
        best = decide_option(row, classifier.error_threshold)
        category = ERROR if best is None else g.categories[i][best]
        out[i] = Coded(category, "classifier", answers[i], math.nan, float(row[-1]))


def _code_by_judge(g: Generations, answers: Sequence[str], pending: Sequence[int], judge: Judge,
                   out: list[Coded | None]) -> None:
    prompts = [judge_prompt(g.contexts[i], g.options[i], answers[i]) for i in pending]
    scores = judge([p for p, _ in prompts], [letters for _, letters in prompts])
    if len(scores) != len(pending):
        raise ValueError(f"the judge returned {len(scores)} score rows for {len(pending)} prompts")
    for i, (_, letters), row in zip(pending, prompts, scores, strict=True):
        row = np.asarray(row, dtype=float)
        if row.shape != (len(letters),) or not np.isfinite(row).all():
            raise ValueError(f"the judge returned {row.tolist()} for letters {letters} (generation {i})")
        ranked = np.argsort(-row, kind="stable")
        best = int(ranked[0])
        category = g.categories[i][best] if best < len(g.categories[i]) else ERROR
        out[i] = Coded(category, "judge", answers[i], math.nan, float(row[ranked[0]] - row[ranked[1]]))


@dataclass(frozen=True)
class _Embedded:
    """Every text the embedding rule compares, embedded once: the answers as probed (``probe``, framing stripped),
    unit vectors by text, the category prototypes' unit centroids and the hand-coded examples by condition."""

    probe: dict[int, str]
    vectors: np.ndarray
    index: dict[str, int]
    centroid: dict[tuple[str, str], np.ndarray]
    by_condition: dict[str, tuple[np.ndarray, list[Example]]]

    @classmethod
    def of(cls, g: Generations, answers: Sequence[str], pending: Sequence[int], embed: Embed,
           prototypes: Mapping[tuple[str, str], Sequence[str]] | None, examples: Sequence[Example] | None,
           settings: CoderSettings) -> _Embedded:
        probe = {i: strip_framing(answers[i]) if settings.strip_frames else answers[i] for i in pending}
        texts = {t for i in pending for t in (probe[i], *g.options[i])}
        conditions_pending = {g.conditions[i] for i in pending}
        protos = {k: v for k, v in (prototypes or {}).items()
                  if k[0] in conditions_pending and settings.prototype_weight}
        shots = [e for e in (examples or ()) if e.condition in conditions_pending and settings.example_weight]
        texts |= {t for v in protos.values() for t in v} | {e.answer for e in shots}
        texts = sorted(texts)
        index = {t: k for k, t in enumerate(texts)}
        vectors = np.asarray(embed(texts), dtype=float)
        vectors = vectors / np.clip(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12, None)
        centroid = {k: _unit(vectors[[index[t] for t in v]].mean(axis=0)) for k, v in protos.items()}
        by_condition: dict[str, tuple[np.ndarray, list[Example]]] = {}
        for condition in {e.condition for e in shots}:
            group = [e for e in shots if e.condition == condition]
            by_condition[condition] = (vectors[[index[e.answer] for e in group]], group)
        return cls(probe, vectors, index, centroid, by_condition)


def _code_by_embeddings(g: Generations, answers: Sequence[str], pending: Sequence[int], e: _Embedded,
                        settings: CoderSettings, out: list[Coded | None]) -> None:
    for i in pending:
        a = e.vectors[e.index[e.probe[i]]]
        sims = np.array([float(a @ e.vectors[e.index[o]]) for o in g.options[i]])
        score = _option_scores(g, i, a, sims, e, settings)
        if g.conditions[i] in e.by_condition:
            _example_votes(g, i, a, answers[i], score, e.by_condition[g.conditions[i]], settings)
        ranked = np.argsort(-score, kind="stable")
        best = float(sims[ranked[0]])
        margin = float(score[ranked[0]] - score[ranked[1]]) if len(ranked) > 1 else math.inf
        if float(sims.max()) >= settings.min_similarity:
            out[i] = Coded(g.categories[i][ranked[0]], "embedding", answers[i], best, margin)
        else:
            out[i] = Coded(ERROR, "below_threshold", answers[i], float(sims.max()), margin)


def _option_scores(g: Generations, i: int, a: np.ndarray, sims: np.ndarray, e: _Embedded,
                   settings: CoderSettings) -> np.ndarray:
    """Generation ``i``'s score per option before the examples vote: cosine + prototype + target bias - polarity."""
    score = sims.copy()
    for k, category in enumerate(g.categories[i]):
        if (g.conditions[i], category) in e.centroid:
            score[k] += settings.prototype_weight * float(a @ e.centroid[(g.conditions[i], category)])
        if category == "target":
            score[k] += settings.target_bias
        if settings.polarity_penalty and bool(_NEGATION.search(e.probe[i])) != bool(
            _NEGATION.search(g.options[i][k])
        ):
            score[k] -= settings.polarity_penalty
    return score


def _example_votes(g: Generations, i: int, a: np.ndarray, answer: str, score: np.ndarray,
                   shots: tuple[np.ndarray, list[Example]], settings: CoderSettings) -> None:
    """Adds to ``score`` the votes of the hand-coded examples nearest generation ``i``'s answer (its condition's)."""
    matrix, group = shots
    cosines = matrix @ a
    near = cosines + settings.same_item_bonus * np.array([str(x.item_id) == str(g.item_ids[i]) for x in group])
    near[cosines < settings.min_example_similarity] = -np.inf
    if settings.exclude_identical:
        near[[str(x.item_id) == str(g.item_ids[i]) and x.answer == answer for x in group]] = -np.inf
    order = [j for j in np.argsort(-near, kind="stable")[:settings.neighbours] if np.isfinite(near[j])]
    for j in order:
        if group[j].code in g.categories[i]:
            vote = max(float(cosines[j]), 0.0) if settings.weighted_votes else 1.0
            score[list(g.categories[i]).index(group[j].code)] += settings.example_weight * vote / settings.neighbours


# -- the authors' hand-coded generations -------------------------------------------------------------------------

HAND_CODED_DIR = "pragmatics/LLM_link/results/free"
HAND_CODE_COLUMNS = ("response_option", "annotation_tsvilodub", "annotation_wang")
# Misspellings in the hand codes -> the data_hu column name they mean; "competitor" in deceits and maxims (which have
# no competitor column) is the literal option, the competitor of the other conditions.
HAND_CODE_ALIASES: dict[tuple[str, str], str] = {
    ("metaphor", "distractor_nonsequitur"): "distractor_nonsequitut",
    ("metaphor", "distractor_plausiliteral"): "distractor_plausibleliteral",
    ("metaphor", "dalwaystractor_lsheeral"): "distractor_literal",
    ("humour", "funny_nonsequitor"): "funny_nonsequitur",
    ("indirect_speech", "distractor_associate"): "distractor_associative",
    ("deceits", "competitor"): "incorrect_literal",
    ("maxims", "competitor"): "incorrect_literal",
}


def normalize_hand_code(condition: str, code: str) -> str:
    code = str(code).strip()
    return HAND_CODE_ALIASES.get((condition, code), code)


def read_generations_csv(path: str | Path) -> pd.DataFrame:
    """One generations file as strings: comma- or semicolon-separated (sniffed from the header), BOM stripped."""
    text = Path(path).read_text(encoding="utf-8-sig")
    header = text.split("\n", 1)[0]
    sep = ";" if header.count(";") > header.count(",") else ","
    frame = pd.read_csv(io.StringIO(text), sep=sep, dtype=str, keep_default_na=False, quoting=csv.QUOTE_MINIMAL)
    frame.columns = [c.strip() for c in frame.columns]
    return frame


def read_double_coded(paths: Sequence[str | Path]) -> pd.DataFrame:
    """Generations coded by both annotators (files with ``annotation_tsvilodub`` and ``annotation_wang``, as in an
    earlier LLM_link commit; see docs/scoring_methods.md). Columns: phenomenon, item_id, response, tsvilodub, wang
    (both normalized with :data:`HAND_CODE_ALIASES`), file."""
    frames = []
    for path in paths:
        frame = read_generations_csv(path)
        if not {"annotation_tsvilodub", "annotation_wang"} <= set(frame.columns):
            continue
        phenomenon = frame["phenomenon"].str.strip()
        frames.append(
            pd.DataFrame(
                {
                    "phenomenon": phenomenon,
                    "item_id": frame["item_id"].astype(int),
                    "response": frame["response"],
                    **{
                        who: [
                            normalize_hand_code(ph, c)
                            for ph, c in zip(phenomenon, frame[f"annotation_{who}"], strict=True)
                        ]
                        for who in ("tsvilodub", "wang")
                    },
                    "file": Path(path).name,
                }
            )
        )
    if not frames:
        raise FileNotFoundError(f"no file with both annotation_tsvilodub and annotation_wang among {len(paths)} paths")
    return pd.concat(frames, ignore_index=True)


# -- agreement -----------------------------------------------------------------------------------------------------


def coarse_code(category: str) -> str:
    """target / option (any non-target option) / error: what free-generation accuracy depends on."""
    return category if category in ("target", ERROR) else "option"


def cohen_kappa(a: Sequence[str], b: Sequence[str]) -> float:
    """Cohen's kappa of two codings of the same rows (nan when chance agreement is 1)."""
    a, b = pd.Series(list(a)), pd.Series(list(b))
    n = len(a)
    if n == 0:
        return math.nan
    p = float((a.values == b.values).mean())
    ca, cb = a.value_counts(), b.value_counts()
    pe = sum(ca.get(c, 0) * cb.get(c, 0) for c in set(ca.index) | set(cb.index)) / n**2
    return (p - pe) / (1 - pe) if pe < 1 else math.nan


def agreement_table(coded: pd.DataFrame, by: Sequence[str] = ("phenomenon",)) -> pd.DataFrame:
    """Agreement of ``coded_option`` with ``hand_code`` per group and overall, on the two measures of
    docs/scoring_methods.md: **target vs not** (``target_agreement``, ``target_kappa``: all that free-generation
    accuracy uses) and the **exact option** (``agreement`` with a binomial SE, ``kappa``; ``error`` is a code like any
    option). Also n, agree, the agreement on target / other option / error (:func:`coarse_code`), the coder's
    sensitivity (coded target where the hand code is target, of ``n_hand_target``) and specificity, the target rate
    (= free-generation accuracy) by hand and by the coder, and the majority-class baseline (the group's most frequent
    hand code)."""
    rows = []
    groups = list(coded.groupby(list(by), sort=True)) + [(("all",) * len(by), coded)]
    for key, group in groups:
        key = key if isinstance(key, tuple) else (key,)
        n = len(group)
        agree = int((group["coded_option"] == group["hand_code"]).sum())
        coarse = int((group["coded_option"].map(coarse_code) == group["hand_code"].map(coarse_code)).sum())
        auto_target, hand_target = group["coded_option"].eq("target"), group["hand_code"].eq("target")
        p = agree / n
        counts = group["hand_code"].value_counts()
        rows.append(
            {
                **dict(zip(by, key, strict=True)),
                "n": n,
                "target_agreement": float((auto_target == hand_target).mean()),
                "target_kappa": cohen_kappa(auto_target, hand_target),
                "agree": agree,
                "agreement": p,
                "se": math.sqrt(p * (1 - p) / n),
                "kappa": cohen_kappa(group["coded_option"], group["hand_code"]),
                "agreement_3way": coarse / n,
                "n_hand_target": int(hand_target.sum()),
                "true_target": int((auto_target & hand_target).sum()),
                "n_hand_other": int((~hand_target).sum()),
                "true_other": int((~auto_target & ~hand_target).sum()),
                "sensitivity": float(auto_target[hand_target].mean()) if hand_target.any() else math.nan,
                "specificity": float((~auto_target[~hand_target]).mean()) if (~hand_target).any() else math.nan,
                "hand_target_rate": float(hand_target.mean()),
                "coded_target_rate": float(auto_target.mean()),
                "majority_class": counts.index[0],
                "majority_baseline": counts.iloc[0] / n,
            }
        )
    return pd.DataFrame(rows)


def confusion(coded: pd.DataFrame, collapse: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Hand code (rows) x coded option (columns) counts; ``collapse`` maps categories to coarser ones."""
    hand = coded["hand_code"].map(lambda c: (collapse or {}).get(c, c))
    auto = coded["coded_option"].map(lambda c: (collapse or {}).get(c, c))
    return pd.crosstab(hand.rename("hand code"), auto.rename("coded"))
