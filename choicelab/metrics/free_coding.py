"""Coding free generations into the option they express, the way the paper's authors coded theirs by hand.

Tsvilodub et al. read every free generation and wrote down the option it expresses (``target``, ``competitor``, a
distractor such as ``incorrect_literal``: the column names of LLM_link's ``data_hu_*.csv``) or ``error`` when it
expresses none. :func:`code_generation` does the same automatically, in three steps:

1. **The answer** (:func:`extract_answer`): a causal model often echoes the prompt before answering, so the text after
   the first "Your answer:" is kept; a new prompt ("You will read ...", another "Your answer:") ends it; markup
   lines (``### Solution``, code fences, ``\\section{...}``, "My answer:"), questions and bare list numbers are
   dropped; the first :data:`ANSWER_SENTENCES` sentence(s) are the answer (one sentence: the
   hand coders went by the first statement; reading more lowered agreement on both models).
2. **No answer** -> ``error`` (:func:`non_answer`): nothing left (an echo of the instructions, a list of empty
   headers), a template placeholder, a hedge ("I don't know", "it depends", "cannot be determined") or an
   instruction about the answer ("You have to write 200 words"), or a repetition of the item's story (the first
   sentence's words nearly all in the story: :func:`echoes`).
3. **The option**: coherence is a yes/no judgement coded by rules on the first sentence (:func:`coherence_judgement`;
   "yes", "coherent" -> the coherent option; "no", "not coherent", "incoherent", "does not make sense" -> the
   incoherent one). In every other condition the answer is compared with each option by the cosine of sentence
   embeddings (all-MiniLM-L6-v2 in the workflow): the most similar option, if its cosine is at least
   ``min_similarity``; else ``error``.

The thresholds are fitted on one model's hand-coded generations and measured on the other's
(``bench/free_coding.py``; docs/scoring_methods.md reports the agreement). No torch here: the embedder is passed in
as a function ``texts -> unit-norm vectors``.
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
ANSWER_SENTENCES = 1  # fitted: the best on either model's hand codes (bench/free_coding.py --fit)
MIN_SIMILARITY = 0.2  # fitted: the best on either model's hand codes (bench/free_coding.py --fit)
MAX_ANSWER_CHARS = 400

RULES = ("coherence", "embedding", "empty", "non_answer", "echo", "below_threshold")

Embed = Callable[[Sequence[str]], np.ndarray]


@dataclass(frozen=True)
class Coded:
    """One coded generation: the option category (or ``error``), the rule that decided, the answer text read, and
    the best cosine / its margin over the runner-up (embedding rule only)."""

    category: str
    rule: str  # "coherence" | "embedding" | "empty" | "non_answer" | "echo" | "below_threshold"
    answer: str
    similarity: float = math.nan
    margin: float = math.nan


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
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”’)]*\s+")


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


def echoes(answer: str, context: str, min_overlap: float = 0.8) -> bool:
    """True when the answer's first sentence repeats the item's story: at least ``min_overlap`` of its words (and
    at least 4) occur in ``context``."""
    first = _words(_SENTENCE_END.split(answer, maxsplit=1)[0])
    story = set(_words(context))
    return len(first) >= 4 and sum(w in story for w in first) / len(first) >= min_overlap


def non_answer(answer: str) -> bool:
    """True for an answer (the coder passes its first sentence) that expresses no option: no letters, a template placeholder, a hedge or an instruction."""
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
        if re.match(r"^\W*(?:yes|no)\b", later, re.I) or re.search(r"coherent", later, re.I):
            if _sentence_judgement(later) not in (first, None):
                return None
    return first


# -- coding -------------------------------------------------------------------------------------------------------


def code_generation(
    response: str,
    condition: str,
    options: Sequence[str],
    categories: Sequence[str],
    *,
    embed: Embed | None,
    context: str | None = None,
    min_similarity: float = MIN_SIMILARITY,
    sentences: int = ANSWER_SENTENCES,
) -> Coded:
    """The option category one generation expresses, or ``error`` (see the module docstring)."""
    return code_generations(
        [response], [condition], [options], [categories], embed=embed,
        contexts=None if context is None else [context], min_similarity=min_similarity, sentences=sentences,
    )[0]


def code_generations(
    responses: Sequence[str],
    conditions: Sequence[str],
    options: Sequence[Sequence[str]],
    categories: Sequence[Sequence[str]],
    *,
    embed: Embed | None,
    contexts: Sequence[str] | None = None,
    min_similarity: float = MIN_SIMILARITY,
    sentences: int = ANSWER_SENTENCES,
) -> list[Coded]:
    """:func:`code_generation` for many generations, embedding every answer and option text once. ``contexts`` (the
    item's story and question per generation) lets an answer that only repeats the story be coded ``error``."""
    if not len(responses) == len(conditions) == len(options) == len(categories):
        raise ValueError("responses, conditions, options and categories differ in length")
    if contexts is not None and len(contexts) != len(responses):
        raise ValueError("contexts and responses differ in length")
    answers = [extract_answer(r, sentences) for r in responses]
    out: list[Coded | None] = [None] * len(responses)
    pending: list[int] = []
    for i, (answer, condition) in enumerate(zip(answers, conditions)):
        if not answer:
            out[i] = Coded(ERROR, "empty", answer)
        elif non_answer(_SENTENCE_END.split(answer, maxsplit=1)[0]):
            out[i] = Coded(ERROR, "non_answer", answer)
        elif condition == "coherence":
            judgement = coherence_judgement(answer)
            if judgement is None:
                out[i] = Coded(ERROR, "non_answer", answer)
            else:
                out[i] = Coded(categories[i][list(map(str.lower, options[i])).index(judgement)], "coherence", answer)
        elif contexts is not None and echoes(answer, contexts[i]):
            out[i] = Coded(ERROR, "echo", answer)
        else:
            pending.append(i)
    if pending:
        if embed is None:
            raise ValueError("coding free generations of multiple-choice conditions needs an embedder")
        texts = sorted({t for i in pending for t in (answers[i], *options[i])})
        index = {t: k for k, t in enumerate(texts)}
        vectors = np.asarray(embed(texts), dtype=float)
        vectors = vectors / np.clip(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12, None)
        for i in pending:
            sims = [float(vectors[index[answers[i]]] @ vectors[index[o]]) for o in options[i]]
            ranked = sorted(range(len(sims)), key=lambda k: sims[k], reverse=True)
            best = sims[ranked[0]]
            margin = best - sims[ranked[1]] if len(ranked) > 1 else math.inf
            if best >= min_similarity:
                out[i] = Coded(categories[i][ranked[0]], "embedding", answers[i], best, margin)
            else:
                out[i] = Coded(ERROR, "below_threshold", answers[i], best, margin)
    return [c for c in out if c is not None]


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


def read_hand_coded(root: str | Path) -> pd.DataFrame:
    """Every hand-coded generation under ``<root>/pragmatics/LLM_link/results/free``.

    Columns: model (folder: llama2, flan-t5-xl), model_name, phenomenon, item_id, temperature (folder), seed (folder),
    response, hand_code (normalized with :data:`HAND_CODE_ALIASES`), annotator (the column it came from), file."""
    base = Path(root) / HAND_CODED_DIR
    files = sorted(base.glob("*/seed*/temperature*/*.csv"))
    if not files:
        raise FileNotFoundError(
            f"no hand-coded generations under {base}: set CHOICELAB_DATA_MIRROR / --data-mirror to a folder laid out "
            "like ../shared/data (see its README, 'Hand-coded free generations')"
        )
    frames = []
    for path in files:
        frame = read_generations_csv(path)
        columns = [c for c in HAND_CODE_COLUMNS if c in frame.columns]
        if not columns:
            raise ValueError(f"{path}: no hand-code column (one of {HAND_CODE_COLUMNS})")
        rel = path.relative_to(base).parts
        frames.append(
            pd.DataFrame(
                {
                    "model": rel[0],
                    "model_name": frame["model_name"],
                    "phenomenon": frame["phenomenon"].str.strip(),
                    "item_id": frame["item_id"].astype(int),
                    "temperature": rel[2].removeprefix("temperature"),
                    "seed": int(rel[1].removeprefix("seed")),
                    "response": frame["response"],
                    "hand_code": [
                        normalize_hand_code(ph.strip(), code)
                        for ph, code in zip(frame["phenomenon"], frame[columns[0]], strict=True)
                    ],
                    "annotator": columns[0],
                    "file": str(Path(*rel)),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


# -- agreement -----------------------------------------------------------------------------------------------------


def coarse_code(category: str) -> str:
    """target / option (any non-target option) / error: what free-generation accuracy depends on."""
    return category if category in ("target", ERROR) else "option"


def agreement_table(coded: pd.DataFrame, by: Sequence[str] = ("phenomenon",)) -> pd.DataFrame:
    """Agreement of ``coded_option`` with ``hand_code`` per group and overall: n, agree, agreement (with a binomial
    SE), the agreement on target / other option / error (:func:`coarse_code`), the target rate (= free-generation
    accuracy) by hand and by the coder, the majority-class baseline (the group's most frequent hand code) and Cohen's kappa."""
    rows = []
    groups = list(coded.groupby(list(by), sort=True)) + [(("all",) * len(by), coded)]
    for key, group in groups:
        key = key if isinstance(key, tuple) else (key,)
        n = len(group)
        agree = int((group["coded_option"] == group["hand_code"]).sum())
        coarse = int((group["coded_option"].map(coarse_code) == group["hand_code"].map(coarse_code)).sum())
        p = agree / n
        counts = group["hand_code"].value_counts()
        coded_counts = group["coded_option"].value_counts()
        expected = sum(counts.get(c, 0) * coded_counts.get(c, 0) for c in set(counts.index) | set(coded_counts.index))
        pe = expected / n**2
        rows.append(
            {
                **dict(zip(by, key)),
                "n": n,
                "agree": agree,
                "agreement": p,
                "se": math.sqrt(p * (1 - p) / n),
                "agreement_3way": coarse / n,
                "hand_target_rate": float((group["hand_code"] == "target").mean()),
                "coded_target_rate": float((group["coded_option"] == "target").mean()),
                "majority_class": counts.index[0],
                "majority_baseline": counts.iloc[0] / n,
                "kappa": (p - pe) / (1 - pe) if pe < 1 else math.nan,
            }
        )
    return pd.DataFrame(rows)


def confusion(coded: pd.DataFrame, collapse: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Hand code (rows) x coded option (columns) counts; ``collapse`` maps categories to coarser ones."""
    hand = coded["hand_code"].map(lambda c: (collapse or {}).get(c, c))
    auto = coded["coded_option"].map(lambda c: (collapse or {}).get(c, c))
    return pd.crosstab(hand.rename("hand code"), auto.rename("coded"))
