"""List every output file that differs between two results folders (e.g. the smoke run before and after a refactor).

    python bench/compare_results.py BEFORE/results AFTER/results [REPO_BEFORE REPO_AFTER] [--config=OLD=NEW]
        [--path=OLD=NEW]

(REPO_*: the checkout each run ran from, by default the folder holding its results; a copy of the results kept
elsewhere names it. ``--config=OLD=NEW``: the change edited the config on purpose (e.g. removed a dead key): a
record's ``config_sha256`` OLD before counts as NEW after, and so does the saved config it names
(``results/config/OLD.yaml`` and its sha256); check separately that OLD and NEW are the hashes of the config before
and after that edit. ``--path=OLD=NEW``: the run before read its data from another place, e.g. another data mirror
folder; a path starting with OLD in a record before counts as starting with NEW.)

Files are compared byte for byte, except where a difference is meant to come with a new checkout:

* the ``code_version`` field (package version, git commit, dirty flag) of every provenance record, in ``.prov.json``
  sidecars, in model folders' ``provenance.json`` and in the ``choicelab.provenance`` metadata of Parquet files, is
  left out;
* the checkout's path in absolute input paths (files of data/) becomes ``<repo>``;
* a Parquet file is compared as its Arrow schema, its rows and its metadata (the record without ``code_version``),
  not as bytes, and a record's ``sha256`` of a Parquet file (its own or an input's) is left out, since the bytes
  hold the commit.

The manifest is compared without the hashes of wall-clock files. Logs (``logs/``) and wall-clock measurements
(``timing`` folders, ``table_timing*``, Snakemake ``benchmarks/``) differ between any two runs and are listed apart,
not compared. Exit status 0 when every compared file is identical.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from choicelab import io
from choicelab.provenance import MODEL_RECORD, SIDECAR_SUFFIX

PROVENANCE_KEY = io.PROVENANCE_KEY.encode()


def wall_clock(relative: Path) -> bool:
    parts = set(relative.parts)
    return bool(parts & {"logs", "timing", "benchmarks"}) or relative.name.startswith("table_timing")


CONFIG_RENAMES: dict[str, str] = {}  # config_sha256 before -> after (--config)
PATH_RENAMES: dict[str, str] = {}  # a path prefix before -> after (--path)


def _normalized_record(value: Any, repo: str) -> Any:
    """A provenance record without what a new checkout changes (see the module docstring); the checkout's own path
    (``repo``, in the absolute paths of repository files read as inputs) becomes ``<repo>``."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key == "code_version":
                continue
            if key == "sha256" and str(value.get("path", "")).endswith(".parquet"):
                continue
            if key == "config_sha256" and item in CONFIG_RENAMES:
                item = CONFIG_RENAMES[item]
            if key == "config" and isinstance(item, dict):  # the saved config: its file is named by its hash
                renamed = next((new for old, new in CONFIG_RENAMES.items()
                                if old in str(item.get("path", "")) or new in str(item.get("path", ""))), None)
                if renamed is not None:
                    item = {"path": f"results/config/{renamed}.yaml"}  # its sha256 changes with it, by design
            out[key] = _normalized_record(item, repo)
        return out
    if isinstance(value, list):
        return [_normalized_record(v, repo) for v in value]
    if isinstance(value, str) and value.startswith(repo + "/"):
        return "<repo>" + value[len(repo):]
    if isinstance(value, str):
        for old, new in PATH_RENAMES.items():
            if value == old or value.startswith(old + "/"):
                return new + value[len(old):]
    return value


def _parquet_view(path: Path, repo: str) -> tuple[Any, ...]:
    table = pq.read_table(path)
    metadata = dict(table.schema.metadata or {})
    record = metadata.pop(PROVENANCE_KEY, None)
    normalized = _normalized_record(json.loads(record), repo) if record else None
    rows = json.dumps(table.to_pylist(), default=repr)  # as text, so that NaN equals NaN
    return (table.schema.remove_metadata(), rows, metadata, normalized)


def _sidecar_view(path: Path, repo: str) -> Any:
    record = json.loads(path.read_text())
    output = record.get("output", {})
    if isinstance(output, dict) and str(output.get("path", path.name)).endswith(".parquet"):
        output.pop("sha256", None)
    return _normalized_record(record, repo)


def _manifest_view(path: Path) -> Any:
    """The manifest without the hashes of wall-clock files (their bytes differ between any two runs)."""
    manifest = json.loads(path.read_text())
    for artifact in manifest.get("artifacts", []):
        for entry in artifact.get("files", []):
            if wall_clock(Path(entry["path"])):
                entry.pop("sha256", None)
    return manifest


def same(a: Path, b: Path, repo_a: str, repo_b: str) -> bool:
    if a.name == "manifest.json":
        return _manifest_view(a) == _manifest_view(b)
    if a.suffix == ".parquet":
        return _parquet_view(a, repo_a) == _parquet_view(b, repo_b)
    if a.name.endswith(SIDECAR_SUFFIX) or a.name == MODEL_RECORD:  # a model folder's record is a record too
        return _sidecar_view(a, repo_a) == _sidecar_view(b, repo_b)
    return a.read_bytes() == b.read_bytes()


def compare(before: Path, after: Path, repo_before: str, repo_after: str) -> dict[str, list[str]]:
    """``identical``, ``different``, ``only_before``, ``only_after`` and ``not_compared`` (wall-clock) paths;
    ``repo_*``: the checkout each run ran from."""
    files_before = {p.relative_to(before) for p in before.rglob("*") if p.is_file()}
    files_after = {p.relative_to(after) for p in after.rglob("*") if p.is_file()}
    result: dict[str, list[str]] = {k: [] for k in ("identical", "different", "only_before", "only_after",
                                                      "not_compared")}
    for relative in sorted(files_before | files_after):
        if wall_clock(relative):
            result["not_compared"].append(str(relative))
        elif relative not in files_after:
            result["only_before"].append(str(relative))
        elif relative not in files_before:
            result["only_after"].append(str(relative))
        elif same(before / relative, after / relative, repo_before, repo_after):
            result["identical"].append(str(relative))
        else:
            result["different"].append(str(relative))
    return result


def main(argv: list[str]) -> int:
    for arg in [a for a in argv if a.startswith(("--config=", "--path="))]:
        option, rest = arg.split("=", 1)
        old, new = rest.split("=")
        (CONFIG_RENAMES if option == "--config" else PATH_RENAMES)[old] = new
    argv = [a for a in argv if not a.startswith(("--config=", "--path="))]
    if len(argv) not in (2, 4):
        print(__doc__)
        return 2
    repos = argv[2:] or [str(Path(a).resolve().parent) for a in argv]
    result = compare(Path(argv[0]), Path(argv[1]), *repos)
    for key in ("different", "only_before", "only_after"):
        for path in result[key]:
            print(f"{key}: {path}")
    n_compared = len(result["identical"]) + len(result["different"])
    print(f"{len(result['identical'])}/{n_compared} compared files identical; "
          f"{len(result['only_before'])} only before, {len(result['only_after'])} only after, "
          f"{len(result['not_compared'])} logs and wall-clock files not compared")
    return 0 if not (result["different"] or result["only_before"] or result["only_after"]) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
