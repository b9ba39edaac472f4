"""Commonsense multiple-choice benchmarks (aNLI, HellaSwag, PIQA, SocialIQA) in one normalized schema.

Files follow the AI2-leaderboard layout: ``<split>.jsonl`` + ``<split>-labels.lst`` (row i of one goes with line i of
the other). Labels are 1-based for aNLI and SocialIQA and 0-based for PIQA and HellaSwag in the source; every item
here is 0-based. Sources: the public files (isi-nlp/ai2 at fixed commits; HellaSwag dev from klosax/hellaswag_text_data,
derived from the official val file), downloaded with checksums by the ``download_commonsense`` rule, or read from a
local mirror (config ``data_mirror``; ``../shared/data`` is one). The mirror has no HellaSwag train split and only
train *subsets* for the others (see its README): ``train_dev_split`` makes a seeded split of dev for benchmarks with
no train file, and tables say so. ``FULL_TRAIN`` are the official full train releases (HellaSwag's too), fetched by
the same rule when the probes config asks for them (``train_data: full``).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from choicelab.mc.items import MCItem

BENCHMARKS = ("anli", "hellaswag", "piqa", "siqa")
LABEL_BASE = {"anli": 1, "hellaswag": 0, "piqa": 0, "siqa": 1}
_AI2 = "https://raw.githubusercontent.com/isi-nlp/ai2"
_AI2_LFS = "https://media.githubusercontent.com/media/isi-nlp/ai2"
_KLOSAX = "https://raw.githubusercontent.com/klosax/hellaswag_text_data/1105d370f8340eac3c63a91fd1fa58e8999f9505"


@dataclass(frozen=True)
class RemoteFile:
    """A public file: where to download it, its sha256, and its path in a data mirror."""

    mirror_path: str
    url: str
    sha256: str


_BASE = "3532cd8ef64d20c2fcce0e22ac8404bb514485f6"
SOURCES: dict[tuple[str, str], tuple[RemoteFile, RemoteFile]] = {
    ("anli", "dev"): (
        RemoteFile("commonsense/anli/dev.jsonl", f"{_AI2_LFS}/{_BASE}/task_data/alphanli-train-dev/dev.jsonl",
                   "e8a7f2e50aa3812c1e998843888bc94519b2b1aae146a368799eedb235d3c51c"),
        RemoteFile("commonsense/anli/dev-labels.lst", f"{_AI2}/{_BASE}/task_data/alphanli-train-dev/dev-labels.lst",
                   "d170382e8e562ab2506175b0b01aa0edc851e5f53b2d199750509cdef39a89a1"),
    ),
    ("anli", "train"): (
        RemoteFile("commonsense/anli/train.jsonl",
                   f"{_AI2}/c3147fd513178f4b00ca24a681268b3c2df0b4e2/task_data/AlphaNLI/increment_training/7/train.jsonl",
                   "369b0ed2730fa7a2811f58904fb4b7d1be2dbe3057bd50ff88ff20d73c26341a"),
        RemoteFile("commonsense/anli/train-labels.lst",
                   f"{_AI2}/c3147fd513178f4b00ca24a681268b3c2df0b4e2/task_data/AlphaNLI/increment_training/7/train-labels.lst",
                   "5c7d0953aec99950ad8f7f656a6422bed770ba171e44975c688fb29ab4ade247"),
    ),
    ("piqa", "dev"): (
        RemoteFile("commonsense/piqa/dev.jsonl", f"{_AI2}/{_BASE}/task_data/physicaliqa-train-dev/dev.jsonl",
                   "a73f46cb5d72b2cc399522a79f27728a429d9b89d9a236243fcfda8c02588d54"),
        RemoteFile("commonsense/piqa/dev-labels.lst", f"{_AI2}/{_BASE}/task_data/physicaliqa-train-dev/dev-labels.lst",
                   "b4192dc3a2a0363d9d60ccf79800cbbe2f32ebb17726efdde6970e0b8131bceb"),
    ),
    ("piqa", "train"): (
        RemoteFile("commonsense/piqa/train.jsonl",
                   f"{_AI2_LFS}/cbb5d175ffeab5b5d1e418304609c071ad37534c/cache/physicaliqa-25pc-train-dev/physicaliqa-25pc-train-dev/train.jsonl",
                   "e5cee4a63ca33bdc2909ba58eb7dc05c76069d90010452e91eb8e0d3c1db00f0"),
        RemoteFile("commonsense/piqa/train-labels.lst",
                   f"{_AI2}/cbb5d175ffeab5b5d1e418304609c071ad37534c/cache/physicaliqa-25pc-train-dev/physicaliqa-25pc-train-dev/train-labels.lst",
                   "03680088fd90af50b1c4cc612c24c5694def10eddd5384b56f6f5f3924ada2b2"),
    ),
    ("siqa", "dev"): (
        RemoteFile("commonsense/siqa/dev.jsonl", f"{_AI2}/{_BASE}/task_data/socialiqa-train-dev/dev.jsonl",
                   "d8128dfe60783a9971b954ca82dd57b87b05d5d40468876d51a8e1ad2c557465"),
        RemoteFile("commonsense/siqa/dev-labels.lst", f"{_AI2}/{_BASE}/task_data/socialiqa-train-dev/dev-labels.lst",
                   "2d882ff71969d3980d37dd07aecdf9093c6e63e27c670f3a203bcf3b9b74bc05"),
    ),
    ("siqa", "train"): (
        RemoteFile("commonsense/siqa/train.jsonl", f"{_AI2}/{_BASE}/task_data/socialiqa-train-dev/internal-dev.jsonl",
                   "2f481c5c70bd742eca2d5324175d76e1dc8c2435308ccac77caec559594fc8f7"),
        RemoteFile("commonsense/siqa/train-labels.lst",
                   f"{_AI2}/{_BASE}/task_data/socialiqa-train-dev/internal-dev-labels.lst",
                   "75233c6f9eaf03678f6248217306bc56b96f891e2e406d5cb9c409fb8f1c206f"),
    ),
    # Derived from HELLASWAG_VAL_FULL by hellaswag_from_val_full (the download rule converts it).
    ("hellaswag", "dev"): (
        RemoteFile("commonsense/hellaswag/dev.jsonl", "",
                   "06fb5e383c3e443c8a63afb6dbb016b153790f20d991b9b28493ce12d66265cc"),
        RemoteFile("commonsense/hellaswag/dev-labels.lst", "",
                   "090b9bd0d386127ae57c5f7b3076ae254352c0c2c39f988e9fa57feb1b2ba74b"),
    ),
}

# The official full train releases (the AI2-leaderboard zips the paper cites, e.g. ai2-mosaic/public/alphanli/
# alphanli-train-dev.zip), as isi-nlp/ai2 keeps them in Git LFS on branch deniz_piqa: the sha256 values are the LFS
# pointers' oids (for the label files they equal the sha256 of the same files on branch base). HellaSwag's is the
# leaderboard layout (ctx_a, ctx_b, ending_options). Used with ``studies.probes.train_data: full``.
_FULL = f"{_AI2_LFS}/3520c0c364a00cd85d17b986b3d8995a4bdc4fd7/cache"
FULL_TRAIN: dict[str, tuple[RemoteFile, RemoteFile]] = {
    "anli": (
        RemoteFile("commonsense/anli/full/train.jsonl", f"{_FULL}/alphanli-train-dev/train.jsonl",
                   "23839e688ba80b8b0d46bde6fef70d09fbaa53d810b6d135e3b61ed664267e0c"),
        RemoteFile("commonsense/anli/full/train-labels.lst", f"{_FULL}/alphanli-train-dev/train-labels.lst",
                   "f6876a0da8158651647ed7da9acd33d13037fd009d707b6f6eb764c0bcdc2c5e"),
    ),
    "hellaswag": (
        RemoteFile("commonsense/hellaswag/full/train.jsonl",
                   f"{_FULL}/hellaswag-train-dev/hellaswag-train-dev/train.jsonl",
                   "2e9414a30d6ee18f1b13fb19509949d10569d71a7f257ed0c3259492b1b4ef77"),
        RemoteFile("commonsense/hellaswag/full/train-labels.lst",
                   f"{_FULL}/hellaswag-train-dev/hellaswag-train-dev/train-labels.lst",
                   "cca70c225333e738fdd7f92212910e21f03898808707c6b3c38c1be7f127c63e"),
    ),
    "piqa": (
        RemoteFile("commonsense/piqa/full/train.jsonl",
                   f"{_FULL}/physicaliqa-train-dev/physicaliqa-train-dev/train.jsonl",
                   "f55986008cf9f1a336854936b82cec4ccba6fb5c698d221861299fb508840a8c"),
        RemoteFile("commonsense/piqa/full/train-labels.lst",
                   f"{_FULL}/physicaliqa-train-dev/physicaliqa-train-dev/train-labels.lst",
                   "df8ae080c41f02f88e81f6932d425f4b7ee72f433ad552e6a30d45e358e8f8bb"),
    ),
    "siqa": (
        RemoteFile("commonsense/siqa/full/train.jsonl", f"{_FULL}/socialiqa-train-dev/socialiqa-train-dev/train.jsonl",
                   "4c5333dea02be6d212114a83f17f7bbcbdb53b3d692f476bd40dcd242b6233de"),
        RemoteFile("commonsense/siqa/full/train-labels.lst",
                   f"{_FULL}/socialiqa-train-dev/socialiqa-train-dev/train-labels.lst",
                   "37cd494b60750f4f7a8c7cdd15fad545f4159070dbeb0431597e06e996ae2fd6"),
    ),
}
FULL_TRAIN_ROWS = {"anli": 169654, "hellaswag": 39905, "piqa": 16113, "siqa": 33410}
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
HELLASWAG_VAL_FULL = RemoteFile(
    "commonsense/hellaswag/source/hellaswag_val_full.txt",
    f"{_KLOSAX}/hellaswag_val_full.txt",
    "d572539320eb2050e858ca34b495bbe2103e3b3f1391a9c3bcdf215b0bb93bd1",
)


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
