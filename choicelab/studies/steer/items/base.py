"""STEER question-generation framework: question record, generator registry, seeding, formatting and options.

A generator is a function ``GenContext -> Draft`` registered with ``@generator("element_id")``. It draws parameters
with ``ctx.rng``, renders one of several phrasings, computes the correct answer with a solver, and returns the correct
option text plus distractors in priority order. The framework (:func:`generate`) builds unique options, shuffles them
(recording the permutation), and removes duplicate questions within a test (element x domain x grade).

Modules in this package are discovered with :mod:`pkgutil` (:func:`load_generators`), so a new module that uses
``@generator`` registers itself without editing this file.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import random
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from fractions import Fraction
from typing import Any

import choicelab.studies.steer.items as package
from choicelab.mc.items import MCItem
from choicelab.stats import derived_seed
from choicelab.studies.steer.items.domains import PEOPLE, DomainVocab, vocab
from choicelab.studies.steer.items.taxonomy import Element, Taxonomy, load_taxonomy

BENCHMARK = "steer"
_FRAMEWORK_MODULES = {"base", "taxonomy", "domains"}
MAX_ATTEMPTS_PER_QUESTION = 60

# ----------------------------------------------------------------------------------------------------------------
# Records


@dataclass(frozen=True)
class SteerQuestion:
    """One generated multiple-choice question; ``options[correct]`` is the rational answer."""

    element: str
    module: str
    setting: str
    domain: str
    grade: int
    template_id: str
    seed: int  # the per-question seed its random.Random was built from
    base_seed: int  # the seed passed to generate()
    index: int  # position within its test (element x domain x grade)
    params_json: str  # the drawn parameters (sorted-key JSON), enough to recompute the answer
    question: str
    options: tuple[str, ...]
    correct: int
    option_order: tuple[int, ...]  # option_order[i] = draft position of options[i] (0 = the correct option)
    part: int = 0  # 0: a question on its own; 1, 2: the first and second choice of a two-part question
    letter_offset: int = 0  # display letters start at LETTERS[letter_offset] (part 2 goes on after part 1's letters)

    def __post_init__(self) -> None:
        if not 0 <= self.correct < len(self.options):
            raise ValueError(f"{self.item_id}: correct index {self.correct} outside options")
        if len(set(self.options)) != len(self.options):
            raise ValueError(f"{self.item_id}: options are not unique: {self.options}")

    @property
    def unit_id(self) -> str:
        """The id of the scored unit: the question, or the pair a part belongs to."""
        return f"{self.element}/{self.domain}/g{self.grade}/{self.index}"

    @property
    def item_id(self) -> str:
        return self.unit_id if self.part == 0 else f"{self.unit_id}/p{self.part}"

    @property
    def params(self) -> dict[str, Any]:
        return json.loads(self.params_json)

    @property
    def answer(self) -> str:
        return self.options[self.correct]

    def to_mc_item(self, split: str = "test") -> MCItem:
        return MCItem(
            benchmark=BENCHMARK,
            split=split,
            item_id=self.item_id,
            prompt=self.question,
            choices=self.options,
            label=self.correct,
            meta={
                **{name: getattr(self, name) for name in ("element", "module", "setting", "domain", "grade",
                                                          "template_id", "seed", "base_seed", "index")},
                "params": self.params,
                "option_order": list(self.option_order),
                **({"pair_id": self.unit_id, "part": self.part, "n_parts": 2, "letter_offset": self.letter_offset}
                   if self.part else {}),
            },
        )


@dataclass(frozen=True)
class FollowUp:
    """The second choice of a two-part question (the paper's "Which would you choose? ... Now consider two more
    options ... which would you choose?"): asked after the first, in the same conversation, with its own options."""

    question: str
    correct: str
    distractors: tuple[str, ...]
    n_options: int | None = None


@dataclass(frozen=True)
class Draft:
    """What a generator returns: the question text, the correct option, distractors (best first) and parameters.

    With ``follow_up`` the draft is a two-part question: ``question``/``correct``/``distractors`` are the first
    choice, ``follow_up`` the second; :func:`generate` makes them two questions (parts 1 and 2) of one scored pair,
    which is right only when both choices are (the authors' code asks the parts in sequence and scores each)."""

    template_id: str
    question: str
    correct: str
    distractors: tuple[str, ...]
    params: dict[str, Any] = field(default_factory=dict)
    n_options: int | None = None  # None: correct + all distractors (after de-duplication)
    follow_up: FollowUp | None = None


@dataclass(frozen=True)
class GenContext:
    element: Element
    domain: str
    grade: int
    rng: random.Random

    @property
    def vocab(self) -> DomainVocab:
        return vocab(self.domain)

    @property
    def level(self) -> float:
        """Position of ``grade`` in the element's grade range: 0.0 at the easiest grade, 1.0 at the hardest."""
        return grade_level(self.element, self.grade)

    def scale(self, easiest: int, hardest: int) -> int:
        """Linear interpolation from ``easiest`` (lowest grade) to ``hardest`` (highest grade), rounded half up."""
        value = easiest + (hardest - easiest) * self.level
        return int(value + 0.5) if value >= 0 else -int(-value + 0.5)

    def n_options(self, easiest: int = 3, hardest: int = 5) -> int:
        return self.scale(easiest, hardest)

    def phrasing(self, element_short: str, phrasings: Sequence[str]) -> tuple[str, str]:
        """Pick one phrasing; return ``(template_id, phrasing)``."""
        k = self.rng.randrange(len(phrasings))
        return f"{element_short}.p{k}", phrasings[k]

    def phrase(self, texts: Mapping[str, Any], key: str, **values: Any) -> tuple[str, str]:
        """Pick one of the phrasings ``texts[key]`` (a list in data/steer/templates.yaml) and fill in ``values``;
        return ``(template_id, text)``."""
        tid, text = self.phrasing(key, texts[key])
        return tid, text.format(**values)

    def people(self, k: int) -> list[str]:
        return self.rng.sample(PEOPLE, k)


GeneratorFn = Callable[[GenContext], Draft]

# ----------------------------------------------------------------------------------------------------------------
# Registry

_REGISTRY: dict[str, GeneratorFn] = {}


def generator(element_id: str) -> Callable[[GeneratorFn], GeneratorFn]:
    """Register ``fn`` as the question generator of ``element_id`` (an id from data/steer/taxonomy.yaml)."""

    def register(fn: GeneratorFn) -> GeneratorFn:
        load_taxonomy().element(element_id)  # raises KeyError for unknown ids
        previous = _REGISTRY.get(element_id)
        if previous is not None and (previous.__module__, previous.__qualname__) != (fn.__module__, fn.__qualname__):
            raise ValueError(
                f"element {element_id!r} already has generator {previous.__module__}.{previous.__qualname__}; "
                f"cannot also register {fn.__module__}.{fn.__qualname__}"
            )
        _REGISTRY[element_id] = fn
        return fn

    return register


def load_generators() -> dict[str, GeneratorFn]:
    """Import every module of this package (pkgutil) so their ``@generator`` decorators run; return the registry."""

    for info in pkgutil.iter_modules(package.__path__):
        if info.name.startswith("_") or info.name in _FRAMEWORK_MODULES:
            continue
        importlib.import_module(f"{package.__name__}.{info.name}")
    return dict(_REGISTRY)


def registered_elements() -> tuple[str, ...]:
    return tuple(sorted(load_generators()))


def get_generator(element_id: str) -> GeneratorFn:
    gens = load_generators()
    if element_id not in gens:
        raise ValueError(f"no STEER generator registered for element {element_id!r}; registered: {sorted(gens)}")
    return gens[element_id]


# ----------------------------------------------------------------------------------------------------------------
# Seeding


# STEER's question seeds join ("steer", seed, element, domain, grade, attempt) with this separator (kept: another
# would change every generated question).
SEED_SEPARATOR = "\x1f"


def make_rng(base_seed: int, element_id: str, domain: str, grade: int, index: int) -> tuple[int, random.Random]:
    """The ``random.Random`` of one question attempt, and the seed it was built from."""
    seed = derived_seed("steer", base_seed, element_id, domain, grade, index, separator=SEED_SEPARATOR)
    return seed, random.Random(seed)


# ----------------------------------------------------------------------------------------------------------------
# Grade scaling


def grade_level(element: Element, grade: int) -> float:
    if not element.min_grade <= grade <= element.max_grade:
        raise ValueError(f"grade {grade} outside {element.id!r}'s range {element.min_grade}..{element.max_grade}")
    span = element.max_grade - element.min_grade
    return 0.0 if span == 0 else (grade - element.min_grade) / span


# ----------------------------------------------------------------------------------------------------------------
# Formatting


def fmt_num(x: float | int | Fraction, decimals: int = 2) -> str:
    """Integers without decimals, others rounded to ``decimals`` (trailing zeros dropped), thousands separators."""
    value = float(x)
    rounded = round(value, decimals)
    if abs(rounded - round(rounded)) < 10 ** (-decimals - 3):
        return f"{int(round(rounded)):,}"
    return f"{rounded:,.{decimals}f}".rstrip("0").rstrip(".")


def fmt_money(x: float | int | Fraction) -> str:
    """Dollars: whole amounts without cents (``$1,250``), others with exactly two decimals (``$3.10``)."""
    value = round(float(x), 2)
    sign = "-" if value < 0 else ""
    if value == int(value):
        return f"{sign}${abs(int(value)):,}"
    return f"{sign}${abs(value):,.2f}"


def fmt_pct(p: float | Fraction, decimals: int = 2) -> str:
    return f"{fmt_num(float(p) * 100, decimals)}%"


def fmt_frac(p: Fraction) -> str:
    p = Fraction(p)
    return str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}"


_AN_NUMBER = re.compile(r"\b([Aa]) (?=(?:8|11|18)(?:[\d.,]*)%)")
_AN_WORD = re.compile(r"\b(a) (?=(?!one\b|eu)[aeio][a-z])")  # lower-case only: "Action A and" is a name


def polish(text: str) -> str:
    """Fix the article before spoken numbers and vowels: 'a 80% chance' -> 'an 80% chance' (8, 11, 18, 80-89,
    ...), 'a investment' -> 'an investment'."""

    def repl(m: re.Match) -> str:
        return ("An" if m.group(1) == "A" else "an") + " "

    return _AN_WORD.sub(repl, _AN_NUMBER.sub(repl, text))


def count_of(n: int, singular: str, plural: str) -> str:
    """A count and its noun in agreement: ``1 check-up``, ``0 check-ups``, ``3 check-ups``."""
    return f"{n} {singular if n == 1 else plural}"


def percent_split(rng: random.Random, k: int, step: int = 5) -> list[int]:
    """k positive percentages (multiples of ``step``) summing to 100."""
    bounds = [0, *sorted(rng.sample(range(1, 100 // step), k - 1)), 100 // step]
    return [(bounds[i + 1] - bounds[i]) * step for i in range(k)]


def unique_argmax(values: Sequence) -> int | None:
    """The index of the largest value, or None when it is not unique."""
    top = max(values)
    return list(values).index(top) if list(values).count(top) == 1 else None


def retry(fn: Callable[[], Any], tries: int = 2000) -> Any:
    """The first result of ``fn()`` that is not None, within ``tries`` calls."""
    for _ in range(tries):
        out = fn()
        if out is not None:
            return out
    raise RuntimeError(f"{fn.__qualname__}: no valid draw in {tries} tries")


def yes_no(answer: bool) -> tuple[str, tuple[str, ...]]:
    """The key and the distractors of a Yes/No question."""
    return ("Yes", ("No",)) if answer else ("No", ("Yes",))


def capitalized(text: str) -> str:
    return text[0].upper() + text[1:]


def join_list(words: Sequence[str], conj: str = "and") -> str:
    words = list(words)
    if len(words) <= 2:
        return f" {conj} ".join(words)
    return ", ".join(words[:-1]) + f", {conj} " + words[-1]


def letters(n: int) -> list[str]:
    """The display letters A, B, C... (options are listed under these); never use them to name entities."""
    return [chr(ord("A") + i) for i in range(n)]


def entity_numbers(n: int) -> list[str]:
    """Names for n entities of a question ("Investment 1", "Project 2"): numbers, so no option names a letter that
    could be confused with the display letter it is listed under (see :func:`letter_collisions`)."""
    return [str(i + 1) for i in range(n)]


# ----------------------------------------------------------------------------------------------------------------
# Options


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def build_options(rng: random.Random, correct: str, distractors: Iterable[str],
                  n_options: int | None = None) -> tuple[tuple[str, ...], int, tuple[int, ...]]:
    """Unique options with exactly one copy of ``correct``, shuffled by ``rng``.

    Distractors equal to the correct option (or to each other, ignoring case/whitespace) are dropped; the first
    ``n_options - 1`` remaining are used. Returns ``(options, correct_index, option_order)`` where
    ``option_order[i]`` is the pre-shuffle position of ``options[i]`` (0 = correct, k = k-th kept distractor).
    """
    seen = {_norm(correct)}
    kept: list[str] = []
    for d in distractors:
        key = _norm(d)
        if key not in seen:
            seen.add(key)
            kept.append(d)
    if n_options is None:
        n_options = 1 + len(kept)
    if n_options < 2:
        raise ValueError(f"need at least 2 options, got n_options={n_options} for correct option {correct!r}")
    if len(kept) < n_options - 1:
        raise ValueError(
            f"only {len(kept)} distinct distractors for {n_options} options (correct {correct!r}, kept {kept})"
        )
    ordered = [correct] + kept[: n_options - 1]
    order = list(range(n_options))
    rng.shuffle(order)
    options = tuple(ordered[i] for i in order)
    return options, order.index(0), tuple(order)


def numeric_distractors(rng: random.Random, correct: float | Fraction, fmt: Callable[[Any], str],
                        candidates: Iterable[float | Fraction] = (), k: int = 4, spread: float = 0.5,
                        integer: bool = False, nonnegative: bool = True) -> list[str]:
    """At least ``k`` formatted distractors, none formatted like ``correct``: the plausible-mistake ``candidates``
    first, then random perturbations of ``correct``."""
    right = fmt(correct)
    out: list[str] = []

    def offer(value: Any) -> None:
        text = fmt(value)
        if text != right and text not in out:
            out.append(text)

    for c in candidates:
        if not nonnegative or float(c) >= 0:
            offer(c)
    base = abs(float(correct)) or 1.0
    tries = 0
    while len(out) < k:
        tries += 1
        if tries > 2000:
            raise ValueError(f"cannot find {k} numeric distractors for {correct!r}")
        if tries > 200:  # fall back to a deterministic ladder above the correct value
            offer(float(correct) + (1 if integer else base * 0.1) * (tries - 200))
            continue
        value = float(correct) + base * spread * rng.uniform(0.1, 1.0) * rng.choice((-1, 1))
        if integer:
            value = round(value)
            if value == round(float(correct)):
                value += rng.choice((-1, 1)) * max(1, int(base * 0.1))
        if not (nonnegative and value < 0):
            offer(value)
    return out


@dataclass(frozen=True)
class Placement:
    """Where :func:`spread_distractors` may put distractors: within ``[lo, hi]`` (exclusive of a bound that formats
    like it, e.g. 0% or 100%), uneven gaps of 1-3 ``gap`` apart, rounded to multiples of ``step`` when given."""

    lo: float | None = None
    hi: float | None = None
    step: float | Fraction | None = None
    gap: float | None = None


def spread_distractors(rng: random.Random, correct: float | Fraction, fmt: Callable[[Any], str],
                       candidates: Iterable[float | Fraction] = (), k: int = 4,
                       place: Placement = Placement()) -> list[str]:
    """``k`` formatted distractors placed so that the correct value's rank among all ``k + 1`` options is uniform:
    ``r`` (drawn from 0..k) of them lie below it and ``k - r`` above, so "the median / largest / smallest number" finds
    the key only at chance. Plausible-mistake ``candidates`` on the needed side come first; the rest are steps away
    from the correct value as ``place`` allows (rounded to its ``step`` so that their form matches the key's).
    """
    lo, hi, step, gap = place.lo, place.hi, place.step, place.gap
    value = Fraction(correct) if not isinstance(correct, float) else correct
    right = fmt(correct)
    base = abs(float(correct)) or 1.0
    unit = gap if gap is not None else float(step) if step is not None else max(base * 0.04, 1e-9)

    def ok(x: float) -> bool:
        return (lo is None or x > lo or (x == lo and fmt(x) != fmt(lo))) and (
            hi is None or x < hi or (x == hi and fmt(x) != fmt(hi)))

    room_below = lo is None or float(value) - unit >= lo
    room_above = hi is None or float(value) + unit <= hi
    r = rng.randrange(k + 1)
    if not room_below:
        r = 0
    elif not room_above:
        r = k
    seen = {right}
    below: list[str] = []
    above: list[str] = []
    for c in candidates:
        text = fmt(c)
        if text in seen or not ok(float(c)):
            continue
        (below if float(c) < float(value) else above).append(text)
        seen.add(text)
    out = below[:r] + above[: k - r]
    seen = {right, *out}
    for side, need in ((-1, r - min(r, len(below))), (1, (k - r) - min(k - r, len(above)))):
        offset, tries = 0.0, 0
        while need > 0:
            tries += 1
            if tries > 400:
                raise ValueError(f"cannot place {k} distractors around {right} within [{lo}, {hi}]")
            offset += unit * rng.choice((1, 1, 2, 3))
            x = float(value) + side * offset
            if step is not None:
                x = round(x / float(step)) * float(step)
            if not ok(x):  # no room left on this side: go on on the other, with smaller steps
                side, offset = -side, 0.0
                unit = max(unit / 2, float(step) if step is not None else unit / 2)
                continue
            text = fmt(x)
            if text not in seen:
                seen.add(text)
                out.append(text)
                need -= 1
    return out


# ----------------------------------------------------------------------------------------------------------------
# Generation


def _params_json(params: dict[str, Any]) -> str:
    def default(obj: Any) -> Any:
        if isinstance(obj, Fraction):
            return f"{obj.numerator}/{obj.denominator}"
        if isinstance(obj, (set, frozenset, tuple)):
            return list(obj)
        raise TypeError(f"parameter of type {type(obj).__name__} is not JSON-serialisable")

    return json.dumps(params, sort_keys=True, default=default, ensure_ascii=False)


def _iter_units(element_id: str, domain: str, grade: int, seed: int) -> Iterator[list[SteerQuestion]]:
    """Successive distinct units of one test: a question, or the two parts of a two-part question; the unit's index
    is its position in the sequence. Question texts (both parts together) never repeat."""
    element = load_taxonomy().element(element_id)
    if domain not in element.domains:
        raise ValueError(f"domain {domain!r} not allowed for {element_id!r}; allowed: {element.domains}")
    grade_level(element, grade)
    return _units(element, domain, grade, seed, get_generator(element_id))


def _units(element: Element, domain: str, grade: int, seed: int, fn: GeneratorFn) -> Iterator[list[SteerQuestion]]:
    element_id = element.id
    seen: set[str] = set()
    attempt = 0
    index = 0
    while True:
        qseed, rng = make_rng(seed, element_id, domain, grade, attempt)
        attempt += 1
        draft = fn(GenContext(element, domain, grade, rng))
        parts = [(polish(d.question), polish(d.correct), tuple(polish(x) for x in d.distractors), d.n_options)
                 for d in (draft, draft.follow_up) if d is not None]
        key = "\n".join(_norm(text) for text, *_ in parts)
        if key in seen:
            yield []  # a repeat: lets the caller count attempts
            continue
        seen.add(key)
        unit: list[SteerQuestion] = []
        offset = 0
        for number, (text, correct_text, distractors, n_opts) in enumerate(parts, start=1):
            options, correct, order = build_options(rng, correct_text, distractors, n_opts)
            unit.append(SteerQuestion(
                element=element_id, module=element.module_id, setting=element.setting_id, domain=domain,
                grade=grade, template_id=draft.template_id, seed=qseed, base_seed=seed, index=index,
                params_json=_params_json(draft.params), question=text, options=options, correct=correct,
                option_order=order, part=number if len(parts) > 1 else 0, letter_offset=offset))
            offset += len(options)
        index += 1
        yield unit


def _take_units(units: Iterator[list[SteerQuestion]], n: int, label: str, skip: Callable[[SteerQuestion], bool]
                = lambda q: False) -> list[list[SteerQuestion]]:
    taken: list[list[SteerQuestion]] = []
    attempts = 0
    while len(taken) < n:
        if attempts >= MAX_ATTEMPTS_PER_QUESTION * max(n, 1):
            raise ValueError(
                f"{label}: only {len(taken)} distinct questions after {attempts} attempts (asked for {n}); widen "
                "the generator's parameter space or lower n"
            )
        attempts += 1
        unit = next(units)
        if unit and not skip(unit[0]):
            taken.append(unit)
    return taken


def _numbered(units: list[list[SteerQuestion]], start: int = 0) -> list[SteerQuestion]:
    """The questions of ``units``, each unit's numbered by its position (from ``start``)."""
    return [replace(q, index=start + i) for i, unit in enumerate(units) for q in unit]


def generate(element_id: str, domain: str, grade: int, n: int, seed: int = 0) -> list[SteerQuestion]:
    """``n`` distinct questions of one test (element x domain x grade), deterministic given ``seed``.

    A two-part question counts once and gives two :class:`SteerQuestion` (parts 1 and 2, same ``index``)."""
    return generate_with_pool(element_id, domain, grade, n, 0, seed)[0]


def generate_with_pool(element_id: str, domain: str, grade: int, n: int, pool: int,
                       seed: int = 0) -> tuple[list[SteerQuestion], list[SteerQuestion]]:
    """:func:`generate`'s ``n`` questions and ``pool`` more for the few-shot pool, none of which has the parameters
    of a scored question (a pool question that only rephrases a scored one would show its answer).

    The scored questions are those of :func:`generate` whatever ``pool`` is; pool indices continue after them."""
    label = f"{element_id}/{domain}/g{grade}"
    units = _iter_units(element_id, domain, grade, seed)
    scored = _take_units(units, n, label)
    scored_params = {unit[0].params_json for unit in scored}
    extra = _take_units(units, pool, f"{label} (few-shot pool with parameters unlike the scored questions')",
                        skip=lambda q: q.params_json in scored_params)
    return _numbered(scored), _numbered(extra, n)


@dataclass(frozen=True)
class BenchmarkScale:
    """How much of STEER to generate: ``n_per_test`` questions per (element, domain, grade).

    ``elements``/``domains``/``grades`` of ``None`` mean all (grades: each element's own range). ``max_domains``
    keeps the first k allowed domains of each element. ``strict`` raises for taxonomy elements without a
    registered generator instead of skipping them.
    """

    n_per_test: int = 5
    seed: int = 0
    elements: tuple[str, ...] | None = None
    domains: tuple[str, ...] | None = None
    grades: tuple[int, ...] | None = None
    max_domains: int | None = None
    strict: bool = False

    @classmethod
    def from_dict(cls, cfg: dict[str, Any]) -> BenchmarkScale:
        """A scale from a plain mapping (keys left out take the field defaults above); unknown keys fail."""
        known = {f.name for f in fields(cls)}
        unknown = set(cfg) - known
        if unknown:
            raise ValueError(f"unknown STEER scale keys {sorted(unknown)}; known: {sorted(known)}")
        lists = ("elements", "domains", "grades")
        return cls(**{k: (tuple(v) if k in lists and v is not None else v) for k, v in cfg.items()})


def plan_tests(scale: BenchmarkScale, tax: Taxonomy | None = None) -> list[tuple[str, str, int]]:
    """The (element, domain, grade) tests ``scale`` selects, in taxonomy order, among registered generators."""
    tax = tax or load_taxonomy()
    gens = load_generators()
    chosen = scale.elements if scale.elements is not None else tax.element_ids
    tests: list[tuple[str, str, int]] = []
    for element_id in chosen:
        element = tax.element(element_id)
        if element_id not in gens:
            if scale.strict:
                raise ValueError(f"no STEER generator registered for element {element_id!r}")
            continue
        domains = [d for d in element.domains if scale.domains is None or d in scale.domains]
        if scale.max_domains is not None:
            domains = domains[: scale.max_domains]
        grades = [g for g in element.grades if scale.grades is None or g in scale.grades]
        tests.extend((element_id, d, g) for d in domains for g in grades)
    return tests


def generate_benchmark(scale: BenchmarkScale | dict[str, Any]) -> list[SteerQuestion]:
    """All questions of the selected tests; item ids are unique and questions are distinct within each test."""
    return generate_benchmark_with_pool(scale, 0)[0]


FEWSHOT_SPLIT = "fewshot"


def generate_benchmark_with_pool(scale: BenchmarkScale | dict[str, Any],
                                 pool_per_test: int) -> tuple[list[SteerQuestion], list[SteerQuestion]]:
    """The scored questions of :func:`generate_benchmark` and a few-shot pool of ``pool_per_test`` more per test
    (:func:`generate_with_pool`: same element, domain and grade, other item ids, texts and parameters)."""
    if isinstance(scale, dict):
        scale = BenchmarkScale.from_dict(scale)
    if pool_per_test < 0:
        raise ValueError(f"pool_per_test must be >= 0, got {pool_per_test}")
    scored: list[SteerQuestion] = []
    pool: list[SteerQuestion] = []
    for element_id, domain, grade in plan_tests(scale):
        test_scored, test_pool = generate_with_pool(element_id, domain, grade, scale.n_per_test, pool_per_test,
                                                    scale.seed)
        scored.extend(test_scored)
        pool.extend(test_pool)
    return scored, pool


def questions_to_items(questions: Iterable[SteerQuestion], split: str = "test") -> list[MCItem]:
    return [q.to_mc_item(split) for q in questions]


# ----------------------------------------------------------------------------------------------------------------
# Validity checks: letter collisions and catch-all options

# A capital letter standing alone ("Investment C", "B and D", "plays A at point 1"), except the pronoun "I" and the
# article "A" opening a sentence before a lower-case word or a number ("A sure gain", "A 50% chance").
_LETTER_TOKEN = re.compile(r"(?<![\w'’-])([A-Z])(?![\w'’-])")
_ARTICLE_AFTER = re.compile(r"\s+[a-z$0-9]")
_SENTENCE_START = re.compile(r"(?:^|[.:;!?(\n]\s*)$")


def letter_names(text: str) -> set[str]:
    """Capital letters that ``text`` uses as names (single-letter tokens), sentence-opening articles and "I"
    excluded."""
    found: set[str] = set()
    for m in _LETTER_TOKEN.finditer(text):
        letter = m.group(1)
        article = letter == "A" and _ARTICLE_AFTER.match(text, m.end()) and _SENTENCE_START.search(text[: m.start()])
        if letter == "I" or article:
            continue
        found.add(letter)
    return found


def letter_collisions(options: Sequence[str]) -> list[tuple[int, str]]:
    """(option index, letter) for every option that names a display letter of this question other than its own.

    The options are shown as ``A. ...``, ``B. ...``; an option naming "C" listed under "A" makes letter-probability
    scoring ambiguous ("the model means C" vs "the model picks letter C"). Letters beyond the question's display
    letters (actions K, L, M in a 4-option question) cannot be confused with an answer letter and are allowed.
    """
    shown = set(letters(len(options)))
    out = []
    for i, text in enumerate(options):
        for letter in sorted(letter_names(text) & shown):
            if letter != chr(ord("A") + i):
                out.append((i, letter))
    return out


# Catch-all options: a blanket verdict instead of one of the question's alternatives ("all give the same", "cannot
# be determined", "none of them", "no voter", "either ...", "indifferent", "abandon all", "equal probability").
CATCH_ALL = re.compile(
    r"^(?:i am indifferent|either\b|neither\b|none\b|no (?:voter|one|action|dominant|pure|alternative|option|winner|"
    r"player)\b|any (?:action|strategy|option)\b|all (?:standard )?(?:formats|options|actions|of them)\b|they all\b|"
    r"it (?:cannot|depends)\b|the two options cannot|there is no\b|abandon all\b|each action with equal|"
    r"pooling on either\b)|\bare equally (?:good|preferred)\b",
    re.IGNORECASE,
)


def is_catch_all(option: str) -> bool:
    """Whether ``option`` is a catch-all (see :data:`CATCH_ALL`)."""
    return bool(CATCH_ALL.search(option.strip()))
