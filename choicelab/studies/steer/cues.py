"""The STEER cue battery: fixed surface heuristics that pick an option without any economic reasoning.

A question measures rationality only if no rule that reads the surface of its text (which option is longest, which
number is the median, which number the stem states, which option says "Yes") finds the key more often than
guessing. Each heuristic here maps ``(stem, options)`` to the set of options it picks; ties split the credit, so on
one question the heuristic scores ``1/|picked|`` when the key is among the picked options and 0 otherwise. A
heuristic *applies* to a question when it picks a non-empty proper subset of the options (picking none or all of
them is the same as guessing, and such questions are left out of its count).

Chance rate: whatever subset of size ``m`` a heuristic picks, if the key sat at a uniformly random one of the ``k``
options its expected score would be ``(m/k) * (1/m) = 1/k``, with variance ``1/(m k) - 1/k**2``. A heuristic's
chance rate on an element is the mean ``1/k`` over the questions it applies to, and its z score is the excess of its
summed score over that, divided by the square root of the summed variances.

:func:`run_battery` runs every heuristic on a seeded benchmark of every element and returns one row per (element,
heuristic); :func:`cue_failures` lists the rows the suite rejects (a heuristic beating its own chance rate by more
than ``MAX_EXCESS`` at ``z > MAX_Z`` on at least ``MIN_N`` questions of an element). ``python -m
choicelab.studies.steer.cues --out docs/steer_cues.md`` writes each element's worst heuristic as Markdown.
"""

from __future__ import annotations

import argparse
import functools
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import pandas as pd

from choicelab.studies.steer.items.base import BenchmarkScale, generate, is_catch_all, plan_tests

MAX_EXCESS = 0.15  # a heuristic may beat its chance rate by at most this much ...
MAX_Z = 5.0  # ... unless the excess is within noise (z <= MAX_Z)
MIN_N = 100  # and only counts on at least this many questions of an element it applies to
TARGET_PER_ELEMENT = 240  # questions per element of the battery's benchmark (spread over its domains and grades)
BATTERY_SEED = 20251125

Picker = Callable[[str, Sequence[str]], Iterable[int] | None]

# ----------------------------------------------------------------------------------------------------------------
# Text features

_NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?(?:/\d+)?")
_WORD = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")
_STOPWORDS_TEXT = (
    "a an the of to in on at for from by with and or but is are was were be been it its this that these those "
    "you your i we they he she his her their them our as if then than so do does did has have had not no yes "
    "what which who whom how why when where will would should can could may might must"
)
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())
_YES = re.compile(r"^yes(?:$|[\s,.;:!—-])", re.IGNORECASE)
_NO = re.compile(r"^no(?:$|[,.;:!—-])", re.IGNORECASE)  # "No", "No, keep it"; not "No action is dominant"
_SAME = re.compile(r"\b(?:still|same|unchanged|equal(?:ly)?|as (?:it was )?before|no change|does not change|"
                   r"indifferent)\b", re.IGNORECASE)
_HEDGE = re.compile(r"\b(?:may|might|could|cannot be (?:determined|known|compared)|depends|not necessarily|"
                    r"possibly|perhaps|unknown|uncertain)\b", re.IGNORECASE)
_ABSOLUTE = re.compile(r"\b(?:always|never|all|none|every|must|only|certainly|definitely|guaranteed|sure)\b",
                       re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:not|no|never|none|cannot|n't)\b|n't\b", re.IGNORECASE)


@functools.lru_cache(maxsize=1 << 16)
def numbers(text: str) -> tuple[Fraction, ...]:
    """The numbers ``text`` states, in order: ``$1,250`` -> 1250, ``21.74%`` -> 21.74, ``3/7`` -> 3/7."""
    out = []
    for m in _NUMBER.finditer(text):
        token = m.group(0).replace(",", "")
        if "/" in token:
            num, den = token.split("/")
            if int(den) == 0:
                continue
            out.append(Fraction(num) / Fraction(den))
        else:
            out.append(Fraction(token))
    return tuple(out)


@functools.lru_cache(maxsize=1 << 16)
def words(text: str) -> frozenset[str]:
    """Lower-case content words of ``text`` (stop words left out)."""
    return frozenset(w for w in _WORD.findall(text.casefold()) if w not in STOPWORDS)


def _decimals(text: str) -> int:
    m = _NUMBER.search(text)
    if m is None:
        return -1
    token = m.group(0)
    return len(token.split(".")[1]) if "." in token else 0


# ----------------------------------------------------------------------------------------------------------------
# Heuristics: each returns the option indices it picks (None: it has nothing to say on this question)


def _argbest(values: Sequence[float | Fraction | None], largest: bool) -> list[int] | None:
    known = [(v, i) for i, v in enumerate(values) if v is not None]
    if not known:
        return None
    best = max(v for v, _ in known) if largest else min(v for v, _ in known)
    return [i for v, i in known if v == best]


def _first_numbers(options: Sequence[str]) -> list[Fraction] | None:
    """The first number of every option, or None unless every option states one."""
    firsts = []
    for option in options:
        found = numbers(option)
        if not found:
            return None
        firsts.append(found[0])
    return firsts


def _median(options: Sequence[str]) -> list[int] | None:
    values = _first_numbers(options)
    if values is None:
        return None
    ranked = sorted(set(values))
    mid = len(ranked) // 2
    chosen = {ranked[mid]} if len(ranked) % 2 else {ranked[mid - 1], ranked[mid]}
    return [i for i, v in enumerate(values) if v in chosen]


def _num_rank(largest: bool) -> Picker:
    def pick(stem: str, options: Sequence[str]) -> list[int] | None:
        values = _first_numbers(options)
        return None if values is None else _argbest(values, largest)

    return pick


def _stem_numbers(stem: str, options: Sequence[str], inside: bool) -> list[int]:
    stated = frozenset(numbers(stem))
    out = []
    for i, option in enumerate(options):
        found = numbers(option)
        if not found:
            continue
        all_stated = all(v in stated for v in found)
        if all_stated == inside:
            out.append(i)
    return out


def _overlap_with_stem(largest: bool) -> Picker:
    def pick(stem: str, options: Sequence[str]) -> list[int] | None:
        stem_words = words(stem)
        scores = []
        for option in options:
            ws = words(option)
            scores.append(len(ws & stem_words) / len(ws) if ws else None)
        return _argbest(scores, largest)

    return pick


def _overlap_with_others(largest: bool) -> Picker:
    """Mean Jaccard similarity (word tokens, numbers included) of each option to the other options."""

    def pick(stem: str, options: Sequence[str]) -> list[int] | None:
        sets = [set(_WORD.findall(o.casefold())) | {str(v) for v in numbers(o)} for o in options]
        scores = []
        for i, si in enumerate(sets):
            sims = [len(si & sj) / len(si | sj) if si | sj else 1.0 for j, sj in enumerate(sets) if j != i]
            scores.append(sum(sims) / len(sims))
        return _argbest(scores, largest)

    return pick


def _matching(pattern: re.Pattern[str], present: bool = True) -> Picker:
    def pick(stem: str, options: Sequence[str]) -> list[int]:
        return [i for i, o in enumerate(options) if bool(pattern.search(o.strip())) == present]

    return pick


def _is_yes(option: str) -> bool:
    return bool(_YES.match(option.strip()))


def _is_no(option: str) -> bool:
    return bool(_NO.match(option.strip()))


def _shape(option: str) -> str:
    return re.sub(r"\d+", "9", option)


def _odd_shape(stem: str, options: Sequence[str]) -> list[int] | None:
    """Options whose form (digits collapsed) no other option shares, when the others do share theirs."""
    shapes = [_shape(o) for o in options]
    counts = {s: shapes.count(s) for s in shapes}
    unique = [i for i, s in enumerate(shapes) if counts[s] == 1]
    return unique if len(unique) == 1 else None


def _verbatim_in_stem(present: bool) -> Picker:
    """Options the stem contains word for word (case and spacing aside, whole words: "No" is not in "not")."""

    def pick(stem: str, options: Sequence[str]) -> list[int]:
        folded = " ".join(stem.casefold().split())
        found = [bool(re.search(rf"(?<!\w){re.escape(' '.join(o.casefold().split()))}(?!\w)", folded))
                 for o in options]
        return [i for i, f in enumerate(found) if f == present]

    return pick


def _mention_order(earliest: bool) -> Picker:
    """The option mentioned first (or last) in the stem: the stem position of the first occurrence of a content word
    that no other option has (options without such a word, or whose words the stem lacks, have no position)."""

    def pick(stem: str, options: Sequence[str]) -> list[int] | None:
        folded = stem.casefold()
        token_sets = [words(o) for o in options]
        positions: list[int | None] = []
        for i, ws in enumerate(token_sets):
            others = set().union(*(t for j, t in enumerate(token_sets) if j != i))
            found = [m.start() for w in ws - others for m in [re.search(rf"\b{re.escape(w)}\b", folded)] if m]
            positions.append(min(found) if found else None)
        return _argbest(positions, largest=not earliest)

    return pick


HEURISTICS: dict[str, Picker] = {
    "first_option": lambda stem, options: [0],
    "last_option": lambda stem, options: [len(options) - 1],
    "longest": lambda stem, options: _argbest([len(o) for o in options], True),
    "shortest": lambda stem, options: _argbest([len(o) for o in options], False),
    "most_words": lambda stem, options: _argbest([len(o.split()) for o in options], True),
    "fewest_words": lambda stem, options: _argbest([len(o.split()) for o in options], False),
    "number_largest": _num_rank(True),
    "number_smallest": _num_rank(False),
    "number_median": lambda stem, options: _median(options),
    "most_decimals": lambda stem, options: _argbest([_decimals(o) if numbers(o) else None for o in options], True),
    "fewest_decimals": lambda stem, options: _argbest([_decimals(o) if numbers(o) else None for o in options],
                                                      False),
    "numbers_stated_in_stem": lambda stem, options: _stem_numbers(stem, options, True),
    "numbers_absent_from_stem": lambda stem, options: _stem_numbers(stem, options, False),
    "text_in_stem": _verbatim_in_stem(True),
    "text_not_in_stem": _verbatim_in_stem(False),
    "stem_overlap_most": _overlap_with_stem(True),
    "stem_overlap_least": _overlap_with_stem(False),
    "mentioned_first_in_stem": _mention_order(True),
    "mentioned_last_in_stem": _mention_order(False),
    "most_typical": _overlap_with_others(True),
    "odd_one_out": _overlap_with_others(False),
    "odd_form": _odd_shape,
    "always_yes": lambda stem, options: [i for i, o in enumerate(options) if _is_yes(o)],
    "always_no": lambda stem, options: [i for i, o in enumerate(options) if _is_no(o)],
    "has_percent": lambda stem, options: [i for i, o in enumerate(options) if "%" in o],
    "no_percent": lambda stem, options: [i for i, o in enumerate(options) if "%" not in o],
    "says_still_same": _matching(_SAME),
    "hedged": _matching(_HEDGE),
    "absolute": _matching(_ABSOLUTE),
    "negated": _matching(_NEGATION),
    "not_negated": _matching(_NEGATION, present=False),
}


def _catch_all(stem: str, options: Sequence[str]) -> list[int]:
    return [i for i, o in enumerate(options) if is_catch_all(o)]


HEURISTICS["catch_all"] = _catch_all


def picks(heuristic: str, stem: str, options: Sequence[str]) -> frozenset[int] | None:
    """The options ``heuristic`` picks on one question, or None where it does not apply (picks none or all)."""
    chosen = HEURISTICS[heuristic](stem, options)
    if chosen is None:
        return None
    chosen = frozenset(chosen)
    if not chosen or len(chosen) == len(options):
        return None
    return chosen


# ----------------------------------------------------------------------------------------------------------------
# Scoring


@dataclass(frozen=True)
class CueQuestion:
    """What the battery needs of a question: its element, stem, options and key."""

    element: str
    stem: str
    options: tuple[str, ...]
    correct: int


COLUMNS = ["element", "heuristic", "n", "accuracy", "chance", "excess", "z"]


def score_battery(questions: Iterable[CueQuestion], heuristics: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per (element, heuristic) that applies to at least one question: ``n`` questions it applies to, its
    ``accuracy`` (ties split credit), its ``chance`` rate (mean 1/k), ``excess`` = accuracy - chance and ``z``."""
    names = list(heuristics or HEURISTICS)
    acc: dict[tuple[str, str], list[float]] = {}
    for q in questions:
        k = len(q.options)
        for name in names:
            chosen = picks(name, q.stem, q.options)
            if chosen is None:
                continue
            m = len(chosen)
            score = 1 / m if q.correct in chosen else 0.0
            cell = acc.setdefault((q.element, name), [0, 0.0, 0.0, 0.0])
            cell[0] += 1
            cell[1] += score
            cell[2] += 1 / k
            cell[3] += 1 / (m * k) - 1 / k**2
    rows = []
    for (element, name), (n, total, chance, var) in acc.items():
        z = (total - chance) / math.sqrt(var) if var > 0 else 0.0
        rows.append((element, name, int(n), total / n, chance / n, (total - chance) / n, z))
    frame = pd.DataFrame(rows, columns=COLUMNS)
    return frame.sort_values(["element", "heuristic"], ignore_index=True)


def cue_failures(table: pd.DataFrame, max_excess: float = MAX_EXCESS, max_z: float = MAX_Z,
                 min_n: int = MIN_N) -> pd.DataFrame:
    """The rows of ``table`` where a heuristic beats its chance rate by more than ``max_excess`` at ``z > max_z`` on
    at least ``min_n`` questions."""
    bad = (table["n"] >= min_n) & (table["excess"] > max_excess) & (table["z"] > max_z)
    return table[bad].sort_values(["element", "excess"], ascending=[True, False], ignore_index=True)


def worst_per_element(table: pd.DataFrame, min_n: int = MIN_N) -> pd.DataFrame:
    """Each element's heuristic with the largest excess among those applying to at least ``min_n`` questions."""
    eligible = table[table["n"] >= min_n]
    idx = eligible.groupby("element")["excess"].idxmax()
    return eligible.loc[idx].sort_values("element", ignore_index=True)


# ----------------------------------------------------------------------------------------------------------------
# The seeded benchmark


def battery_questions(seed: int = BATTERY_SEED, per_element: int = TARGET_PER_ELEMENT,
                      elements: Sequence[str] | None = None) -> list[CueQuestion]:
    """At least ``per_element`` questions of every registered element (or of ``elements``), the same number from
    each of its (domain, grade) tests."""

    tests = plan_tests(BenchmarkScale(elements=tuple(elements) if elements is not None else None, strict=True))
    per_test: dict[str, int] = {}
    for element, _, _ in tests:
        per_test[element] = per_test.get(element, 0) + 1
    out = []
    for element, domain, grade in tests:
        n = math.ceil(per_element / per_test[element])
        for q in generate(element, domain, grade, n, seed):
            out.append(CueQuestion(q.element, q.question, q.options, q.correct))
    return out


def run_battery(seed: int = BATTERY_SEED, per_element: int = TARGET_PER_ELEMENT,
                elements: Sequence[str] | None = None) -> pd.DataFrame:
    """Every heuristic on the seeded benchmark of :func:`battery_questions`: the tidy table of
    :func:`score_battery`."""
    return score_battery(battery_questions(seed, per_element, elements))


# ----------------------------------------------------------------------------------------------------------------
# Markdown report


def _row_text(row: pd.Series) -> str:
    flag = " **cue**" if (row.excess > MAX_EXCESS and row.z > MAX_Z) else ""
    return f"{row.heuristic} {row.accuracy:.2f} vs {row.chance:.2f} (n={row.n}, z={row.z:.1f}){flag}"


def read_before(path: str | Path) -> dict[str, str]:
    """The worst-heuristic cell per element of an earlier report written by :func:`markdown_report`."""
    out: dict[str, str] = {}
    for line in Path(path).read_text().splitlines():
        if line.startswith("## "):  # the worst-heuristic table comes first; the list of failures after
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[0].startswith("`") and cells[0].endswith("`"):
            out[cells[0].strip("`")] = cells[1]
    if not out:
        raise ValueError(f"{path}: no element rows found; expected a table written by `python -m "
                         f"choicelab.studies.steer.cues --out`")
    return out


def markdown_report(table: pd.DataFrame, seed: int, per_element: int, before: dict[str, str] | None = None,
                    before_label: str = "before", note: str | None = None) -> str:
    worst = worst_per_element(table)
    failures = cue_failures(table)
    n_bad = failures["element"].nunique()
    lines = [
        "# STEER cue battery: each element's worst surface heuristic",
        "",
        f"Written by `python -m choicelab.studies.steer.cues` (seed {seed}, at least {per_element} questions per "
        f"element spread evenly over its domains and grades; {len(HEURISTICS)} heuristics, see "
        "`choicelab/studies/steer/cues.py`). A cell reads `heuristic accuracy vs chance (n, z)`: accuracy with ties "
        "splitting credit, chance the mean 1/k over the n questions the heuristic applies to (picks some but not "
        f"all options). **cue** marks a heuristic beating chance by more than {MAX_EXCESS} at z > {MAX_Z} on at "
        f"least {MIN_N} questions, which `tests/test_steer_cues.py` rejects.",
        "",
        f"Elements with a cue: {n_bad} of {table['element'].nunique()}.",
        "",
    ]
    if note:
        lines[2:2] = [note, ""]
    if before is not None:
        lines += [f"| element | worst heuristic ({before_label}) | worst heuristic (now) |", "|---|---|---|"]
    else:
        lines += ["| element | worst heuristic |", "|---|---|"]
    for row in worst.itertuples(index=False):
        now = _row_text(row)
        if before is not None:
            lines.append(f"| `{row.element}` | {before.get(row.element, 'n/a')} | {now} |")
        else:
            lines.append(f"| `{row.element}` | {now} |")
    lines += ["", "## Every failing (element, heuristic)", ""]
    if failures.empty:
        lines.append("None.")
    else:
        lines += ["| element | heuristic | n | accuracy | chance | excess | z |", "|---|---|---|---|---|---|---|"]
        for r in failures.itertuples(index=False):
            lines.append(f"| `{r.element}` | {r.heuristic} | {r.n} | {r.accuracy:.3f} | {r.chance:.3f} | "
                         f"{r.excess:.3f} | {r.z:.1f} |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run the STEER cue battery and write each element's worst "
                                                 "heuristic as Markdown.")
    parser.add_argument("--out", required=True, help="Markdown file to write (e.g. docs/steer_cues.md)")
    parser.add_argument("--seed", type=int, default=BATTERY_SEED)
    parser.add_argument("--per-element", type=int, default=TARGET_PER_ELEMENT)
    parser.add_argument("--before", help="an earlier report of this command: its worst-heuristic column is shown "
                                         "beside the new one")
    parser.add_argument("--before-label", default="before")
    parser.add_argument("--note", help="a paragraph printed under the title (what the run measured)")
    parser.add_argument("--elements", nargs="*", help="only these elements (default: all registered)")
    args = parser.parse_args(argv)
    before = read_before(args.before) if args.before else None
    table = run_battery(args.seed, args.per_element, args.elements)
    Path(args.out).write_text(markdown_report(table, args.seed, args.per_element, before, args.before_label,
                                               args.note))
    failures = cue_failures(table)
    print(f"{len(table)} (element, heuristic) rows; {failures['element'].nunique()} elements with a cue; "
          f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
