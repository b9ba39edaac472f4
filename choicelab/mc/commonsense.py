"""Commonsense multiple-choice benchmarks (aNLI, HellaSwag, PIQA, SocialIQA) in one normalized schema.

Files follow the AI2-leaderboard layout: ``<split>.jsonl`` + ``<split>-labels.lst`` (row i of one goes with line i of
the other). Labels are 1-based for aNLI and SocialIQA and 0-based for PIQA and HellaSwag in the source; every item
here is 0-based. Sources: the public files (isi-nlp/ai2 at fixed commits; HellaSwag dev from klosax/hellaswag_text_data,
derived from the official val file), downloaded with checksums by the ``download_commonsense`` rule, or read from a
local mirror (config ``data_mirror``; ``../shared/data`` is one). The mirror has no HellaSwag train split and only
train *subsets* for the others (see its README): ``train_dev_split`` makes a seeded split of dev for benchmarks with
no train file, and tables say so. ``FULL_TRAIN`` are the official full train releases (HellaSwag's too), fetched by
the same rule when the probes config asks for them (``train_data: full``). Every file's URL and sha256:
``data/sources/commonsense.yaml``.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from pathlib import Path

from choicelab.download import RemoteFile, read_sources, source_files
from choicelab.mc.items import MCItem

BENCHMARKS = ("anli", "hellaswag", "piqa", "siqa")
LABEL_BASE = {"anli": 1, "hellaswag": 0, "piqa": 0, "siqa": 1}

# Where each file comes from and its sha256: data/sources/commonsense.yaml. SOURCES: the files a data mirror holds,
# per (benchmark, split) as (data, labels) (group <benchmark>/<split>; HellaSwag dev is derived from
# HELLASWAG_VAL_FULL by hellaswag_from_val_full: the download rule converts it). FULL_TRAIN: the official full train
# releases (group full_train/<benchmark>), used with ``studies.probes.train_data: full``.
_GROUPS = read_sources("commonsense")
SOURCES: dict[tuple[str, str], tuple[RemoteFile, ...]] = {
    (benchmark, split): source_files("commonsense", group)
    for group in _GROUPS
    for benchmark, _, split in [group.partition("/")]
    if benchmark in BENCHMARKS
}
FULL_TRAIN: dict[str, tuple[RemoteFile, ...]] = {
    benchmark: source_files("commonsense", f"full_train/{benchmark}") for benchmark in BENCHMARKS
}
TRAIN_DATA = ("mirror", "full")


def remote_file(mirror_path: str) -> RemoteFile:
    """The public file stored at ``mirror_path`` (under a mirror or the download folder)."""
    for files in (*SOURCES.values(), *FULL_TRAIN.values()):
        for remote in files:
            if remote.mirror_path == mirror_path:
                return remote
    raise KeyError(f"no public commonsense file is stored at {mirror_path!r}")


def train_files(benchmark: str, train_data: str) -> tuple[RemoteFile, ...]:
    """The files fine-tuning reads for ``train_data`` (``mirror``: the mirror's train subset, none for HellaSwag;
    ``full``: the official full train release)."""
    _check_benchmark(benchmark)
    if train_data not in TRAIN_DATA:
        raise ValueError(f"studies.probes.train_data must be one of {TRAIN_DATA}, not {train_data!r}")
    if train_data == "full":
        return FULL_TRAIN[benchmark]
    return SOURCES.get((benchmark, "train"), ())


# All 10,042 HellaSwag validation items in official file order, 6 lines each: "activity_label: ctx", label, 4 endings.
(HELLASWAG_VAL_FULL,) = source_files("commonsense", "hellaswag_val_full")


def hellaswag_from_val_full(text: str) -> tuple[list[dict], list[int]]:
    """Rows (activity_label, ctx, endings) and 0-based labels from ``hellaswag_val_full.txt``."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines = lines[:-1]
    if len(lines) % 6:
        raise ValueError(f"hellaswag_val_full.txt has {len(lines)} lines, not a multiple of 6")
    rows, labels = [], []
    for k in range(0, len(lines), 6):
        activity, _, ctx = lines[k].partition(": ")
        rows.append({"activity_label": activity, "ctx": ctx, "endings": lines[k + 2 : k + 6]})
        labels.append(int(lines[k + 1]))
    return rows, labels


def has_split(benchmark: str, split: str) -> bool:
    return (benchmark, split) in SOURCES


def _check_benchmark(benchmark: str) -> None:
    if benchmark not in BENCHMARKS:
        raise ValueError(f"unknown commonsense benchmark {benchmark!r}; use one of {', '.join(BENCHMARKS)}")


def split_files(root: Path, benchmark: str, split: str, release: str = "mirror") -> tuple[Path, Path]:
    """The data and label files of (benchmark, split) under a mirror/download root, with clear errors;
    ``release="full"`` is the official full train release (split "train" only)."""
    _check_benchmark(benchmark)
    if release == "full":
        if split != "train":
            raise ValueError("the full releases are read for the train split only")
        files = FULL_TRAIN[benchmark]
    elif not has_split(benchmark, split):
        raise FileNotFoundError(
            f"{benchmark} has no {split} split in its public release mirror; use a seeded split of dev "
            "(studies.probes.dev_train_fraction), or set studies.probes.train_data: full to download the official "
            "full train release"
        )
    else:
        files = SOURCES[(benchmark, split)]
    data, labels = (root / f.mirror_path for f in files)
    for path in (data, labels):
        if not path.is_file():
            raise FileNotFoundError(
                f"missing dataset file {path}: set 'data_mirror' in the config to a folder laid out like "
                f"../shared/data, or run `snakemake download_commonsense` to fetch the public release"
            )
    return data, labels


# The field that groups several rows into one underlying question: aNLI's train files hold up to 5 rows per story
# (the same observations with different hypothesis pairs, often the same plausible hypothesis), so rows of a story
# are not independent; the other benchmarks have one row per question.
GROUP_FIELD = {"anli": "story_id"}


def _prompt_and_choices(benchmark: str, row: dict) -> tuple[str, dict[str, str], tuple[str, ...]]:
    if benchmark == "anli":
        fields = {"obs1": row["obs1"], "obs2": row["obs2"]}
        return f"{row['obs1']} {row['obs2']}", fields, (row["hyp1"], row["hyp2"])
    if benchmark == "hellaswag":
        if "ctx" not in row:  # the leaderboard layout of the full train release
            return _hellaswag_leaderboard(row)
        fields = {"activity_label": row["activity_label"], "ctx": row["ctx"]}
        return row["ctx"], fields, tuple(row["endings"])
    if benchmark == "piqa":
        return row["goal"], {"goal": row["goal"]}, (row["sol1"], row["sol2"])
    fields = {"context": row["context"], "question": row["question"]}
    return f"{row['context']} {row['question']}", fields, (row["answerA"], row["answerB"], row["answerC"])


def hellaswag_text(text: str) -> str:
    """HellaSwag's WikiHow markup removed as in the dev text we read (``[header]``, ``[title]``, ``[step]`` ...
    dropped, double spaces collapsed), so that train and dev prompts look alike."""
    text = text.strip().replace(" [title]", ". ")
    text = re.sub(r"\[.*?\]", "", text)
    return re.sub(" +", " ", text).strip()


def _hellaswag_leaderboard(row: dict) -> tuple[str, dict[str, str], tuple[str, ...]]:
    ctx_b = row.get("ctx_b", "")
    ctx = row["ctx_a"] + (" " + ctx_b[:1].upper() + ctx_b[1:] if ctx_b else "")  # HellaSwag's own ctx
    ctx = hellaswag_text(ctx)
    fields = {"activity_label": row.get("activity_label", ""), "ctx": ctx}
    return ctx, fields, tuple(hellaswag_text(e) for e in row["ending_options"])


def load_benchmark(benchmark: str, split: str, root: str | Path, release: str = "mirror") -> list[MCItem]:
    """Items of (benchmark, split) in the normalized schema: uid, prompt, prompt_fields (meta), choices, 0-based label.
    ``release="full"`` reads the official full train release (``FULL_TRAIN``)."""
    data, labels = split_files(Path(root), benchmark, split, release)
    rows = [json.loads(line) for line in data.read_text(encoding="utf-8").splitlines() if line.strip()]
    gold = [int(x) for x in labels.read_text().split()]
    if len(rows) != len(gold):
        raise ValueError(f"{data} has {len(rows)} rows but {labels} has {len(gold)} labels")
    items = []
    for i, (row, label) in enumerate(zip(rows, gold, strict=True)):
        prompt, fields, choices = _prompt_and_choices(benchmark, row)
        uid = f"{benchmark}-{split}-{i:05d}" if release == "mirror" else f"{benchmark}-{split}-full-{i:06d}"
        meta: dict = {"prompt_fields": fields, "row": i}
        if benchmark in GROUP_FIELD and GROUP_FIELD[benchmark] in row:
            meta["group"] = str(row[GROUP_FIELD[benchmark]])
        items.append(MCItem(benchmark, split, uid, prompt, choices, label - LABEL_BASE[benchmark], meta))
    return items


def train_dev_split(items: Sequence[MCItem], train_fraction: float, seed: int) -> tuple[list[MCItem], list[MCItem]]:
    """A seeded split of one list (for benchmarks without a train file): (train part, evaluation part)."""
    if not 0 < train_fraction < 1:
        raise ValueError("train_fraction must be between 0 and 1")
    order = list(range(len(items)))
    random.Random(seed).shuffle(order)
    cut = int(round(len(items) * train_fraction))
    chosen = set(order[:cut])
    return [it for i, it in enumerate(items) if i in chosen], [it for i, it in enumerate(items) if i not in chosen]


def heldout_split(items: Sequence[MCItem], fraction: float) -> tuple[list[MCItem], list[MCItem]]:
    """(fit part, held-out part) of a train list for model selection: the last ``fraction`` of the rows is held out,
    as isi-nlp/ai2 trains on the first 90 % (``train_data_slice: 90``) and validates on its internal-dev (the last
    10 % of the official train rows for SocialIQA). The evaluation (dev) set is never used to select a model.

    Rows of one group (meta ``group``: aNLI's ``story_id``) never straddle the cut: every row of a group that has a
    row in the last ``fraction`` is held out, so the held-out slice never shares a story with the rows trained on
    (aNLI's up to 5 rows per story would otherwise let the held-out accuracy measure memorised stories)."""
    if not 0 < fraction < 1:
        raise ValueError("studies.probes.heldout_fraction must be between 0 and 1 (exclusive)")
    cut = len(items) - max(1, int(round(len(items) * fraction)))
    if cut < 1:
        raise ValueError(f"{len(items)} train items are too few to hold out {fraction:.0%} for model selection")
    held_groups = {it.meta["group"] for it in items[cut:] if "group" in it.meta}
    held = [i >= cut or it.meta.get("group", None) in held_groups for i, it in enumerate(items)]
    fit = [it for it, h in zip(items, held, strict=True) if not h]
    if not fit:
        raise ValueError(f"holding out whole groups left no train item to fit ({len(items)} items)")
    return fit, [it for it, h in zip(items, held, strict=True) if h]
