"""The stated-answer (StaA) questions of a scenario: one five-option multiple-choice question per queried outcome,
its prompt (the tokenizer's chat template, or the documented plain template), and the question table the workflow
writes (schema ``rb_stated_questions/1``)."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import pyarrow as pa

from choicelab.studies.revealed_belief.items import Scenario

STATED_PREAMBLE = (
    "You are given a Scenario, a Question, and a set of possible Answers. Select one Answer as your reply. "
    "The Answers are A, B, C, D, E. Your selected Answer will be contained within square brackets: "
    "[A], [B], [C], [D], [E] and your reply will contain nothing else."
)
DISTRACTOR_FACTORS = (Fraction(1, 3), Fraction(1, 2), Fraction(2), Fraction(3))
ANSWER_LETTERS = ("A", "B", "C", "D", "E")


@dataclass(frozen=True)
class StatedQuestion:
    question_id: str
    setting_id: str
    outcome: str
    text: str  # the user message
    answers: tuple[str, ...]  # the five printed probabilities, in letter order
    correct_index: int  # position of the correct answer (A = 0)


def answer_values(p: Fraction) -> tuple[list[str], int]:
    """The correct probability and p x {1/3, 1/2, 2, 3}, printed with 3 decimals (more if rounding would make two
    answers equal); returns the five strings (correct first) and the number of decimals used."""
    values = [p, *(p * f for f in DISTRACTOR_FACTORS)]
    for decimals in range(3, 10):
        printed = [f"{float(v):.{decimals}f}" for v in values]
        if len(set(printed)) == len(printed):
            return printed, decimals
    raise ValueError(f"cannot print distinct answers for probability {p}")


def stated_questions(scenario: Scenario, seed: int, max_outcomes: int | None) -> list[StatedQuestion]:
    """One 5-option MCQ per queried outcome with non-zero probability (at most ``max_outcomes``, sampled with the
    seed); the position of the correct answer is shuffled with the seed (recorded)."""
    rng = random.Random(f"{seed}:{scenario.setting_id}")
    candidates = [(o, p) for o, p in zip(scenario.outcomes, scenario.true_distribution, strict=True) if p > 0]
    if max_outcomes is not None and len(candidates) > max_outcomes:
        candidates = sorted(rng.sample(candidates, max_outcomes), key=lambda c: scenario.outcomes.index(c[0]))
    questions = []
    for outcome, p in candidates:
        printed, _ = answer_values(p)
        order = list(range(5))
        rng.shuffle(order)
        answers = tuple(printed[i] for i in order)
        correct_index = order.index(0)
        listing = " ".join(f"{letter}) {value}" for letter, value in zip(ANSWER_LETTERS, answers, strict=True))
        text = (f"{STATED_PREAMBLE}\n\nScenario: {scenario.scenario_text}\n\n"
                f"Question: What is the probability that {scenario.question.format(outcome=outcome)}?\n\n"
                f"Answers: {listing}")
        questions.append(StatedQuestion(f"{scenario.setting_id}:{outcome}", scenario.setting_id, outcome, text,
                                        answers, correct_index))
    return questions


PLAIN_TEMPLATE = "{text}\n\nAnswer: "
# The stated answer is one of these continuations of the assistant turn, scored whole: "[A" is one token in some
# vocabularies (Qwen2, Llama-3) and two ("[", "A") in others, so scoring the string rather than a letter after a
# pre-filled "[" asks every tokenizer for the token sequence its model would produce.
ANSWER_CONTINUATIONS = tuple(f"[{letter}" for letter in ANSWER_LETTERS)


def stated_prompt(question: StatedQuestion, tokenizer: Any | None,
                  chat_template: bool | str | None = None) -> tuple[str, bool]:
    """The prompt whose continuation is the answer ("[A" ... "[E", see ``ANSWER_CONTINUATIONS``): the tokenizer's
    chat template up to the start of the assistant turn, or the plain documented template where the tokenizer has
    none or the model entry says ``chat_template: false`` (``true`` was checked against the tokenizer when the model
    was prepared; a string template the entry gives was set on the tokenizer by the loader). Returns (prompt,
    used_chat_template)."""
    if chat_template is not False and tokenizer is not None and getattr(tokenizer, "chat_template", None):
        rendered = tokenizer.apply_chat_template(
            [{"role": "user", "content": question.text}], tokenize=False, add_generation_prompt=True
        )
        return rendered, True
    return PLAIN_TEMPLATE.format(text=question.text), False


def all_questions(scenarios: Iterable[Scenario], seed: int, max_outcomes: int | None) -> list[StatedQuestion]:
    """The questions of every scenario (``studies.revealed_belief.staa_max_outcomes`` per scenario at most)."""
    return [q for s in scenarios for q in stated_questions(s, seed=seed, max_outcomes=max_outcomes)]


QUESTION_SCHEMA = pa.schema(
    [
        pa.field("question_id", pa.string(), nullable=False),
        pa.field("setting_id", pa.string(), nullable=False),
        pa.field("outcome", pa.string(), nullable=False),
        pa.field("text", pa.string(), nullable=False),
        pa.field("answers", pa.list_(pa.string()), nullable=False),
        pa.field("correct_index", pa.int32(), nullable=False),
    ],
    metadata={b"choicelab.schema": b"rb_stated_questions/1"},
)


def questions_table(questions: Sequence[StatedQuestion]) -> pa.Table:
    return pa.table(
        {
            "question_id": [q.question_id for q in questions],
            "setting_id": [q.setting_id for q in questions],
            "outcome": [q.outcome for q in questions],
            "text": [q.text for q in questions],
            "answers": [list(q.answers) for q in questions],
            "correct_index": [q.correct_index for q in questions],
        },
        schema=QUESTION_SCHEMA,
    )
