"""SWAG (Zellers et al. 2018), the bets study's first fine-tuning stage, and its documented stand-in.

SWAG is read from its public release, the rowanz/swagaf repository (``data/train.csv``, ``data/val.csv``), through a
download rule, or from ``<data_mirror>/swag/`` when a mirror has it. Both files are verified twice before use: their
git blob id (a full SHA-1 of the content, from the repository at commit ``0613674c...``) and the sha256 prefix/suffix
the bets issue records. Items follow HuggingFace's ``run_swag``: the prompt is ``sent1``, each choice is
``sent2 + " " + ending``, scored as a text pair.

Without internet and without SWAG in the mirror, the embedded configs use HellaSwag (the same task family, in the
data mirror) as the stand-in; the tables name the data each default checkpoint was trained on. URLs and checks:
``data/sources/swag.yaml``.
"""

from __future__ import annotations

import csv
import hashlib
import io
from dataclasses import dataclass
from pathlib import Path

from choicelab.download import source_entries
from choicelab.errors import UserError
from choicelab.io import sha256_file
from choicelab.mc.items import MCItem


@dataclass(frozen=True)
class SwagFile:
    """A public SWAG file (data/sources/swag.yaml): its path under a mirror or the download folder (``swag/...``),
    its URL, and the two checks its content must pass."""

    split: str
    mirror_path: str
    url: str
    git_blob_sha1: str
    sha256_prefix: str
    sha256_suffix: str


def _swag_file(split: str) -> SwagFile:
    (entry,) = source_entries("swag", split)
    fields = ("git_blob_sha1", "sha256_prefix", "sha256_suffix")
    missing = [key for key in fields if key not in entry]
    if missing:
        raise ValueError(f"data/sources/swag.yaml files.{split}: the entry lacks {missing}")
    return SwagFile(split, str(entry["path"]), str(entry["url"]), *(str(entry[key]) for key in fields))


SWAG_FILES = {split: _swag_file(split) for split in ("train", "val")}


class SwagChecksumError(UserError, ValueError):
    """A SWAG file whose sha256 is not the one its source entry records."""


def git_blob_sha1(path: str | Path) -> str:
    """Git's blob id of a file: sha1 of "blob <size>\\0" + content."""
    data = Path(path).read_bytes()
    return hashlib.sha1(b"blob %d\x00" % len(data) + data).hexdigest()


def verify_swag_file(path: str | Path, split: str) -> None:
    expected = SWAG_FILES[split]
    blob = git_blob_sha1(path)
    digest = sha256_file(path)
    if blob != expected.git_blob_sha1 or not (
        digest.startswith(expected.sha256_prefix) and digest.endswith(expected.sha256_suffix)
    ):
        raise SwagChecksumError(
            f"{path}: not the public SWAG {split} file (git blob {blob}, sha256 {digest}; expected blob "
            f"{expected.git_blob_sha1}, sha256 {expected.sha256_prefix}...{expected.sha256_suffix}). Delete it and "
            "let the download rule fetch it again, or set studies.bets.default_stage.data: hellaswag"
        )


def parse_swag_csv(text: str, split: str) -> list[MCItem]:
    """Rows of SWAG's regular (shuffled) CSV format -> multiple-choice items (run_swag's pairing)."""
    reader = csv.DictReader(io.StringIO(text))
    required = {"sent1", "sent2", "ending0", "ending1", "ending2", "ending3", "label"}
    missing = required - set(reader.fieldnames or [])
    if missing:
        raise ValueError(f"SWAG {split} CSV lacks columns {sorted(missing)}; is it data/{split}.csv of rowanz/swagaf?")
    items = []
    for index, row in enumerate(reader):
        endings = tuple(f"{row['sent2']} {row[f'ending{k}']}".strip() for k in range(4))
        items.append(
            MCItem(
                benchmark="swag",
                split=split,
                item_id=f"swag-{split}-{index}",
                prompt=row["sent1"],
                choices=endings,
                label=int(row["label"]),
                meta={"video_id": row.get("video-id", "")},
            )
        )
    return items


def load_swag(root: str | Path, split: str) -> list[MCItem]:
    path = Path(root) / SWAG_FILES[split].mirror_path
    if not path.exists():
        raise FileNotFoundError(
            f"{path} is missing: run the download rule (needs internet) or set studies.bets.default_stage.data: "
            "hellaswag to use the documented stand-in"
        )
    verify_swag_file(path, split)
    return parse_swag_csv(path.read_text(encoding="utf-8"), split)
