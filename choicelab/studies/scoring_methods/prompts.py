"""What every scoring method shows the model: items as :class:`ScoringItem` (pragmatics items or any benchmark's
multiple-choice items) and the prompts of each method (the authors' templates, LLM_link ``scripts/score_completions.py``
/ ``rate_completions.py``)::

    I      = T \\n\\n C Q \\n Your answer:                        + " " + option
    I0     = T \\n Your answer:                                  + " " + option
    label  = T \\n\\n C Q \\n Choose one of the following options and return the label of that option.
             \\n A. o1 \\n B. o2 ... \\n Your answer:               + " " + label
    label0 = T \\n\\n Choose one ... \\n A. o1 ... \\n Your answer:
    rating = T_rating(scale) \\n\\n C Q \\n How would you rate the following answer: o
             \\n Choose one of the following options and return the number of that option:
             \\n 1. very unlikely ... \\n 5. very likely \\n Your answer:   + " " + "1".."5" / phrase

Every option/label/rating is scored after a space following "Your answer:" (not after a newline as in the authors'
code), so that the separator is not one of the option's scored tokens; see docs/scoring_methods.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from choicelab.mc.items import MCItem
from choicelab.studies.scoring_methods import metrics as sm
from choicelab.studies.scoring_methods.items import BENCHMARK, RATING_TASKS, PragmaticsItem

ANSWER_CUE = "Your answer:"
LABEL_INSTRUCTION = "Choose one of the following options and return the label of that option."
RATING_QUESTION = "How would you rate the following answer:"
RATING_INSTRUCTION = "Choose one of the following options and return the number of that option:"
SCALES: dict[str, tuple[str, ...]] = {
    "likely": ("very unlikely", "unlikely", "neutral", "likely", "very likely"),
    "appropriate": ("very inappropriate", "inappropriate", "neutral", "appropriate", "very appropriate"),
    "plausible": ("very implausible", "implausible", "neutral", "plausible", "very plausible"),
    "possible": ("very impossible", "impossible", "neutral", "possible", "very possible"),
}
GENERIC_TASK = "Read the text and choose the best answer."
GENERIC_RATING_TASK = "Read the text. Your task is to rate how {} a given answer is."


# -- items --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ScoringItem:
    """What every method needs of an item: prompt parts, options (canonical order), option types and the target."""

    benchmark: str
    condition: str
    item_id: str
    task: str
    context: str
    question: str
    options: tuple[str, ...]
    option_types: tuple[str, ...]
    target: int
    rating_task: str = GENERIC_RATING_TASK
    categories: tuple[str, ...] = ()  # LLM_link's option names (pragmatics), what free generations are coded into


def from_pragmatics(items: Iterable[PragmaticsItem]) -> list[ScoringItem]:
    """ScoringItems from :class:`choicelab.studies.scoring_methods.items.PragmaticsItem` (original option order)."""
    return [
        ScoringItem(
            BENCHMARK,
            it.condition,
            it.item_id,
            it.task,
            it.context,
            it.question,
            tuple(it.options),
            tuple(it.option_types),
            it.target,
            RATING_TASKS[it.condition],
            tuple(it.categories),
        )
        for it in items
    ]


def from_mc_items(
    items: Iterable[MCItem], task: str = GENERIC_TASK, rating_task: str = GENERIC_RATING_TASK
) -> list[ScoringItem]:
    """ScoringItems from any benchmark's MCItems: the prompt is the context; pragmatics MCItems keep their parts."""
    out = []
    for it in items:
        meta = it.meta or {}
        types = tuple(
            meta.get("option_types") or ["target" if k == it.label else "other" for k in range(len(it.choices))]
        )
        parts = "task" in meta and "context" in meta  # a pragmatics MCItem (items.to_mc_items) keeps its parts
        condition = meta.get("condition", it.benchmark) if parts else str(meta.get("condition", it.benchmark))
        out.append(
            ScoringItem(
                it.benchmark,
                condition,
                it.item_id,
                meta["task"] if parts else task,
                meta["context"] if parts else it.prompt,
                meta.get("question", "") if parts else "",
                tuple(it.choices),
                types,
                it.label,
                RATING_TASKS.get(condition, rating_task) if parts else rating_task,
            )
        )
    return out


# -- prompts ------------------------------------------------------------------------------------------------------


def _body(item: ScoringItem) -> str:
    return item.context.strip() + (f" {item.question}" if item.question else "")


def _blocks(*blocks: str) -> str:
    return "\n\n".join(b for b in blocks if b)


def string_prompt(item: ScoringItem) -> str:
    """I = T, C, Q and the answer cue (the options are not shown)."""
    return f"{_blocks(item.task, _body(item))}\n{ANSWER_CUE}"


def string_prior_prompt(item: ScoringItem) -> str:
    """I0 = T and the answer cue."""
    return f"{item.task}\n{ANSWER_CUE}" if item.task else ANSWER_CUE


def labelled_options(options: Sequence[str], order: Sequence[int], labels: Sequence[str]) -> str:
    return "\n".join(f"{label}. {text}" for label, text in zip(labels, sm.present(options, order), strict=True))


def label_prompt(item: ScoringItem, order: Sequence[int], labels: Sequence[str]) -> str:
    listing = f"{LABEL_INSTRUCTION}\n{labelled_options(item.options, order, labels)}\n{ANSWER_CUE}"
    return f"{_blocks(item.task, _body(item))}\n{listing}"


def label_prior_prompt(item: ScoringItem, order: Sequence[int], labels: Sequence[str]) -> str:
    return _blocks(item.task, f"{LABEL_INSTRUCTION}\n{labelled_options(item.options, order, labels)}\n{ANSWER_CUE}")


def rating_prompt(item: ScoringItem, option: str, scale: str) -> str:
    phrases = "\n".join(f"{r}. {phrase}" for r, phrase in zip(sm.RATING_POINTS, SCALES[scale], strict=True))
    ask = f"{RATING_QUESTION} {option}\n{RATING_INSTRUCTION}\n{phrases}\n{ANSWER_CUE}"
    return f"{_blocks(item.rating_task.format(scale), _body(item))}\n{ask}"

