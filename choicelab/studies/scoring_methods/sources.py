"""The public files of the pragmatics items and their human data, pinned by commit and checksum in
``data/sources/pragmatics.yaml``: downloaded by a download rule or read from a local mirror laid out like
``../shared/data/pragmatics``.

* Item texts: ``polina-tsvilodub/LLM_link`` ``data/data_hu_<condition>.csv`` (the materials Tsvilodub et al. scored).
* Option numbers and option types: ``jennhu/lm-pragmatics`` ``fj_raw_data/<Ph>Options.txt`` and ``<Ph>KeyComplex.txt``
  (coherence: ``CoherenceInferenceKeySimple.txt``). LLM_link options are matched to the original options by their text
  (letters and digits only, case-folded: the copies differ in punctuation and quote style); LLM_link's maxims
  items 13-19 are the original items 14-20 (matched on the scenario text).
* Human data: ``jennhu/lm-pragmatics`` ``human_data/fj/Human_<Ph>.csv`` (374 participants x every item, ``Correct``
  0/1 and ``OptionChosen`` = ``AnswerK`` / ``Coherent`` / ``Incoherent``).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from choicelab.download import RemoteFile, source_files

# Hu et al.'s file stems and phenomenon codes.
PHENOMENON = {
    "coherence": "CoherenceInference",
    "deceits": "Deceits",
    "humour": "Humour",
    "indirect_speech": "IndirectSpeech",
    "irony": "Irony",
    "maxims": "Maxims",
    "metaphor": "Metaphor",
}

# Every file the study reads, keyed by its path under the mirror root (``pragmatics/...``).
# (URLs and checksums: data/sources/pragmatics.yaml, group items.)
SOURCES: dict[str, RemoteFile] = {f.mirror_path: f for f in source_files("pragmatics", "items")}


def source_path(root: str | Path, mirror_path: str) -> Path:
    """A source file under a mirror/download root, with a clear error when it is missing."""
    path = Path(root) / mirror_path
    if not path.is_file():
        raise FileNotFoundError(
            f"missing pragmatics data file {path}: set 'data_mirror' in the config to a folder laid out like "
            "../shared/data, or run the pragmatics download rule to fetch the public files"
        )
    return path


def _common_root(paths: Iterable[str | Path], files: Iterable[str], what: str) -> Path:
    """The one folder ``paths`` lie under, where each path ends with one of ``files`` and every one of ``files`` is
    among them; ``what`` names the files in the error."""
    files = set(files)
    roots, found = set(), set()
    for path in map(str, paths):
        key = next((k for k in files if path == k or path.endswith("/" + k)), None)
        if key is None:
            raise ValueError(f"{path} is not one of the {what} (known: {sorted(files)[:3]}...)")
        found.add(key)
        roots.add(path[: -len(key)].rstrip("/") or ".")
    missing = sorted(files - found)
    if missing or len(roots) != 1:
        raise ValueError(f"the {what} must all lie under one folder; missing {missing[:3]}, roots {roots}")
    return Path(roots.pop())


def source_root(paths: Iterable[str | Path]) -> Path:
    """The folder the source files ``paths`` lie under (a mirror or the download rules' folder): each path ends with
    a :data:`SOURCES` key, and every source must be among them (a rule declares them all as inputs)."""
    return _common_root(paths, SOURCES, "pragmatics source files")


def items_file(condition: str) -> str:
    return f"pragmatics/LLM_link/data/data_hu_{condition}.csv"


def fj_file(condition: str, kind: str) -> str:
    return f"pragmatics/lm-pragmatics/fj_raw_data/{PHENOMENON[condition]}{kind}.txt"


def human_file(condition: str) -> str:
    return f"pragmatics/lm-pragmatics/human_data/fj/Human_{PHENOMENON[condition]}.csv"


# The authors' hand-coded free generations (LLM_link ``results/free/<model>/seed<k>/temperature<tt>/``, every file
# at the pinned commit, byte copies and interleaved files included: human.hand_code_report says which are used; URLs
# and checksums: data/sources/pragmatics.yaml, group hand_codes).
HAND_CODE_SOURCES: dict[str, RemoteFile] = {f.mirror_path: f for f in source_files("pragmatics", "hand_codes")}


def hand_code_root(paths: Iterable[str | Path]) -> Path:
    """The folder the hand-code files ``paths`` lie under (a mirror or the download rules' folder): each path ends
    with a :data:`HAND_CODE_SOURCES` key and every hand-code file is among them."""
    return _common_root(paths, HAND_CODE_SOURCES, "authors' hand-code files")


# The authors' released model outputs and processed numbers (LLM_link ``results/log_probs``, ``results/rating``,
# ``results/embedding_similarity``, ``analysis/``; group authors_outputs): read by rule sm_reanalysis.
AUTHORS_OUTPUT_SOURCES: dict[str, RemoteFile] = {
    f.mirror_path: f for f in source_files("pragmatics", "authors_outputs")
}
LLM_LINK_DIR = "pragmatics/LLM_link"


def authors_outputs_root(paths: Iterable[str | Path]) -> Path:
    """The folder the authors' output files ``paths`` lie under: each ends with an :data:`AUTHORS_OUTPUT_SOURCES`
    key and every one is among them."""
    return _common_root(paths, AUTHORS_OUTPUT_SOURCES, "authors' output files")
