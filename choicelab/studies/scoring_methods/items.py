"""Pragmatic-interpretation items of Hu, Floyd et al. (2023) as used by Tsvilodub et al.

Seven conditions (``CONDITIONS``): coherence (40 items, 2 options), deceits (20, 4), humour (25, 5), indirect speech
(20, 4), irony (25, 4), maxims (19, 4), metaphor (20, 5). Every item is one :class:`PragmaticsItem`: a task
description ``task`` (T, shared by the condition), the context ``context`` (C_i, containing the trigger utterance),
the question ``question`` (Q), the options in their **original order** (the order human participants saw, option
``k`` = ``AnswerK`` in the human data), each option's type (``CorrectNonLiteral``, ``IncorrectLiteral``...) and the
0-based index of the pragmatic target.

Task descriptions T (:data:`TASKS`) and the rating-task templates (:data:`RATING_TASKS`) are the authors' prompt texts
(LLM_link ``prompt/prompts/*_instructions_FC.txt`` and ``prompt/prompt_rating/*_instructions_Rating.txt``): one
sentence or two per condition, kept here as prompt configuration. The question Q is the scenario's final question
sentence where the scenario ends with one (deceits, indirect speech, irony, metaphor), else the authors' per-condition
question (coherence: "Is this story coherent or not?", maxims: "Why has <speaker> responded like this?"; humour has
none). ``trigger`` (the utterance to interpret, shown in Fig. 1) is found heuristically: the last quoted span of the
context; coherence: the second sentence; humour items without quotes: the last sentence.

The source files are :mod:`choicelab.studies.scoring_methods.sources`; the human data
:mod:`choicelab.studies.scoring_methods.human`.
"""

from __future__ import annotations

import csv
import html
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from choicelab.mc.items import MCItem
from choicelab.studies.scoring_methods.metrics import option_order
from choicelab.studies.scoring_methods.sources import fj_file, items_file, source_path

BENCHMARK = "pragmatics"
CONDITIONS = ("coherence", "deceits", "humour", "indirect_speech", "irony", "maxims", "metaphor")

N_ITEMS = {
    "coherence": 40,
    "deceits": 20,
    "humour": 25,
    "indirect_speech": 20,
    "irony": 25,
    "maxims": 19,
    "metaphor": 20,
}
N_OPTIONS = {"coherence": 2, "deceits": 4, "humour": 5, "indirect_speech": 4, "irony": 4, "maxims": 4, "metaphor": 5}
# Original maxims item dropped from every language-model version of the materials (it has human data).
MAXIMS_EXCLUDED_ITEM = 13

_STORY = "You will read a short story that describes an everyday situation. "
_CONVEY = _STORY + "Your task is to interpret what the character in the story is trying to convey."
TASKS = {
    "coherence": "You will read a pair of sentences. Your task is to decide whether they form a coherent story.",
    "deceits": _STORY + "Your task is to interpret why the character in the story responded in a certain way.",
    "humour": "You will read a joke that is missing its punch line. A punch line is a funny line that finishes the "
    "joke. Your task is to decide which punch line will make the joke funny.",
    "indirect_speech": _CONVEY,
    "irony": _CONVEY,
    "maxims": _CONVEY,
    "metaphor": _CONVEY,
}
_STORY_RATING = (_STORY + "Your task is to rate how {} a given interpretation is of an utterance by a character "
                 "in the story.")
RATING_TASKS = {
    "coherence": "You will read a pair of sentences. Your task is to rate how {} the decision whether the pair forms "
    "a coherent story is.",
    "deceits": _STORY_RATING,
    "humour": "You will read a joke that is missing its punch lines. A punch line is a funny line that finishes the "
    "joke. Your task is to rate how {} a given punch line is for the joke.",
    "indirect_speech": _STORY_RATING,
    "irony": _STORY_RATING,
    "maxims": _STORY_RATING,
    "metaphor": _STORY_RATING,
}
FIXED_QUESTIONS = {"coherence": "Is this story coherent or not?", "maxims": "Why has {speaker} responded like this?"}


# -- items -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PragmaticsItem:
    """One item; ``options[k]`` is original option ``option_numbers[k]`` (= human ``AnswerK``)."""

    condition: str
    item_id: str
    item_number: int
    task: str
    context: str
    trigger: str
    question: str
    options: tuple[str, ...]
    option_numbers: tuple[int, ...]
    option_types: tuple[str, ...]
    target: int
    meta: dict = field(default_factory=dict, compare=False, hash=False)
    # LLM_link's name for each option (the data_hu_* column: target, competitor, incorrect_literal, ...); the names
    # the authors' hand codes of free generations use. Empty for items built elsewhere.
    categories: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not 0 <= self.target < len(self.options):
            raise ValueError(f"{self.item_id}: target {self.target} outside the {len(self.options)} options")
        if not len(self.options) == len(self.option_numbers) == len(self.option_types):
            raise ValueError(f"{self.item_id}: options, option numbers and option types differ in length")
        if self.categories and len(self.categories) != len(self.options):
            raise ValueError(f"{self.item_id}: {len(self.categories)} categories for {len(self.options)} options")


def check_condition(condition: str) -> None:
    if condition not in CONDITIONS:
        raise ValueError(f"unknown pragmatics condition {condition!r}; use one of {', '.join(CONDITIONS)}")


def clean_text(text: str) -> str:
    """HTML entities decoded (``caf&eacute;``), runs of whitespace collapsed, ends stripped."""
    return re.sub(r"\s+", " ", html.unescape(str(text))).strip()


def match_key(text: str) -> str:
    """Letters and digits only, case-folded: how option and scenario texts of the two repositories are matched."""
    return re.sub(r"[^a-z0-9]+", "", html.unescape(str(text)).lower())


def _read_tsv(path: Path) -> list[list[str]]:
    # Tab-separated, CR / CRLF / LF line ends, quoted fields with newlines: the csv module handles all of them.
    with open(path, newline="", encoding="utf-8") as handle:
        return [row for row in csv.reader(handle, delimiter="\t") if any(cell.strip() for cell in row)]


def fj_options(root: str | Path, condition: str) -> dict[int, dict[int, tuple[str, str]]]:
    """Original options: item number -> option number -> (text, KeyComplex type). Not for coherence."""
    if condition == "coherence":
        raise ValueError("coherence has no option files: its options are the judgements coherent / incoherent")
    offset = 0 if condition == "maxims" else 1  # maxims' Options.txt has no phenomenon-code column
    texts: dict[int, dict[int, str]] = {}
    for row in _read_tsv(source_path(root, fj_file(condition, "Options"))):
        texts.setdefault(int(row[offset]), {})[int(row[offset + 1])] = row[offset + 2]
    type_col = 6 if condition == "metaphor" else 3
    types: dict[tuple[int, int], str] = {}
    for row in _read_tsv(source_path(root, fj_file(condition, "KeyComplex"))):
        types[(int(row[1]), int(row[2]))] = row[type_col].strip()
    return {item: {k: (text, types[(item, k)]) for k, text in sorted(opts.items())} for item, opts in texts.items()}


def fj_scenarios(root: str | Path, condition: str) -> dict[int, str]:
    """Original scenario text per original item number."""
    offset = 0 if condition == "maxims" else 1
    return {int(row[offset]): row[offset + 1] for row in _read_tsv(source_path(root, fj_file(condition, "Scenarios")))}


def coherence_key(root: str | Path) -> dict[int, str]:
    """Coherence item number -> the correct judgement ("Coherent" or "Incoherent")."""
    return {int(row[1]): row[2].strip() for row in _read_tsv(source_path(root, fj_file("coherence", "KeySimple")))}


_FINAL_QUESTION = re.compile(r"^(?P<context>.*?[.!?\"'”’])\s+(?P<question>[^.!?\"“”]*\?)$", re.S)
_QUOTED = re.compile(r"[\"“]([^\"“”]+)[\"”]")


def split_question(scenario: str) -> tuple[str, str]:
    """(context, final question) when the scenario ends with a question sentence, else (scenario, "")."""
    text = clean_text(scenario)
    match = _FINAL_QUESTION.match(text)
    if not match:
        return text, ""
    return match.group("context").strip(), match.group("question").strip()


def find_trigger(condition: str, context: str) -> str:
    """The utterance to interpret (heuristic, used for display only; see the module docstring)."""
    quoted = [] if condition == "coherence" else _QUOTED.findall(context)
    if quoted:
        return quoted[-1].strip()
    return re.split(r"(?<=[.!?])\s+", context.strip())[-1]


def _original_item_number(condition: str, row: pd.Series, scenarios: dict[int, str]) -> int:
    if condition != "maxims":
        return int(row["item_number"])
    key = match_key(row["prompt"])
    found = [n for n, text in scenarios.items() if match_key(text).startswith(key) or key.startswith(match_key(text))]
    if len(found) != 1:
        raise ValueError(
            f"maxims item {row['item_number']} of LLM_link matches original items {found}, not exactly one"
        )
    return found[0]


def _load_coherence(root: str | Path) -> list[PragmaticsItem]:
    frame = pd.read_csv(source_path(root, items_file("coherence")))
    key = coherence_key(root)
    items = []
    for _, row in frame.iterrows():
        number = int(row["item_number"])
        correct = key[number]
        context = clean_text(row["prompt"])
        target = 0 if correct == "Coherent" else 1
        if str(row["target"]).strip().lower() != correct.lower():
            raise ValueError(
                f"coherence item {number}: LLM_link target {row['target']!r} disagrees with the key {correct!r}"
            )
        items.append(
            PragmaticsItem(
                condition="coherence",
                item_id=f"coherence-{number:02d}",
                item_number=number,
                task=TASKS["coherence"],
                context=context,
                trigger=find_trigger("coherence", context),
                question=FIXED_QUESTIONS["coherence"],
                options=("coherent", "incoherent"),
                option_numbers=(1, 2),
                option_types=("Coherent", "Incoherent"),
                target=target,
                meta={"llm_link_number": number},
                categories=("target", "competitor") if target == 0 else ("competitor", "target"),
            )
        )
    return items


def _load_multiple_choice(root: str | Path, condition: str) -> list[PragmaticsItem]:
    frame = pd.read_csv(source_path(root, items_file(condition)))
    originals = fj_options(root, condition)
    scenarios = fj_scenarios(root, condition)
    option_columns = list(frame.loc[:, "target":].columns)
    items = []
    for _, row in frame.iterrows():
        number = _original_item_number(condition, row, scenarios)
        by_key = {match_key(text): k for k, (text, _) in originals[number].items()}
        texts: dict[int, str] = {}
        category: dict[int, str] = {}
        for column in option_columns:
            k = by_key.get(match_key(row[column]))
            if k is None or k in texts:
                raise ValueError(
                    f"{condition} item {number}: option {column!r} ({row[column]!r}) matches no original option"
                )
            texts[k] = clean_text(row[column])
            category[k] = column
        if sorted(texts) != sorted(originals[number]):
            raise ValueError(
                f"{condition} item {number}: options {sorted(texts)} do not cover {sorted(originals[number])}"
            )
        numbers = tuple(sorted(texts))
        types = tuple(originals[number][k][1] for k in numbers)
        target_number = by_key[match_key(row["target"])]
        if originals[number][target_number][1] != "CorrectNonLiteral":
            raise ValueError(
                f"{condition} item {number}: LLM_link's target is keyed {originals[number][target_number][1]}"
            )
        context, question = split_question(row["prompt"])
        if condition in FIXED_QUESTIONS:
            question = FIXED_QUESTIONS[condition].format(speaker=str(row.get("speaker", "")).strip())
        items.append(
            PragmaticsItem(
                condition=condition,
                item_id=f"{condition}-{number:02d}",
                item_number=number,
                task=TASKS[condition],
                context=context,
                trigger=find_trigger(condition, context),
                question=question,
                options=tuple(texts[k] for k in numbers),
                option_numbers=numbers,
                option_types=types,
                target=numbers.index(target_number),
                meta={"llm_link_number": int(row["item_number"])},
                categories=tuple(category[k] for k in numbers),
            )
        )
    return items


def load_condition(root: str | Path, condition: str) -> list[PragmaticsItem]:
    """The items of one condition, sorted by original item number."""
    check_condition(condition)
    items = _load_coherence(root) if condition == "coherence" else _load_multiple_choice(root, condition)
    return sorted(items, key=lambda it: it.item_number)


def load_items(root: str | Path, conditions: Iterable[str] = CONDITIONS) -> list[PragmaticsItem]:
    """Items of the given conditions (all seven by default: 169 items)."""
    return [item for condition in conditions for item in load_condition(root, condition)]


def mc_prompt(item: PragmaticsItem) -> str:
    """T, then C and Q: the item as a plain multiple-choice prompt (no answer cue)."""
    body = item.context + (f" {item.question}" if item.question else "")
    return f"{item.task}\n\n{body}"


def to_mc_items(items: Sequence[PragmaticsItem], order_seed: int | None = None, split: str = "test") -> list[MCItem]:
    """MCItems (benchmark "pragmatics"): original option order, or a seeded order per item when ``order_seed`` is set.

    ``meta`` keeps condition, option types, original numbers, the order used and the prompt parts."""
    out = []
    for item in items:
        order = (
            tuple(range(len(item.options)))
            if order_seed is None
            else option_order(len(item.options), order_seed, item.item_id)
        )
        out.append(
            MCItem(
                benchmark=BENCHMARK,
                split=split,
                item_id=item.item_id,
                prompt=mc_prompt(item),
                choices=tuple(item.options[k] for k in order),
                label=order.index(item.target),
                meta={
                    "condition": item.condition,
                    "option_types": [item.option_types[k] for k in order],
                    "option_numbers": [item.option_numbers[k] for k in order],
                    "order": list(order),
                    "order_seed": order_seed,
                    "task": item.task,
                    "context": item.context,
                    "question": item.question,
                    "trigger": item.trigger,
                    "item_number": item.item_number,
                },
            )
        )
    return out
