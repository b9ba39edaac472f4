"""Provenance: every output says where it came from.

* Parquet outputs carry their record in the key-value metadata ``choicelab.provenance``.
* Every other output (tables, figures, JSON) gets a sidecar ``<file>.prov.json``.
* Materialized models carry ``model.json`` (weights sha256, source, library versions).

A record names the rule, its params, the config hash, each input with its sha256, the code version and library
versions, the seed and, where a model was used, the model's name and weights hash. ``lineage(path)`` follows inputs
back through their own records to the item lists and model weights.
"""

from __future__ import annotations

import functools
import importlib.metadata
import json
import re
import subprocess
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import choicelab
from choicelab.io import PathLike, canonical_json, read_parquet_metadata, sha256_bytes, sha256_file, write_json

ARTIFACT_ID = re.compile(r"^(?P<study>[a-z0-9_]+)/[a-z0-9_]+$")
SIDECAR_SUFFIX = ".prov.json"  # the suffix of every provenance sidecar (choicelab.artifacts imports it)
TRACKED_LIBRARIES = ("torch", "transformers", "tokenizers", "numpy", "pandas", "pyarrow", "scipy", "statsmodels")
# What a materialized model records in its model.json.
MODEL_LIBRARIES = ("torch", "transformers", "tokenizers", "safetensors", "gguf")


@functools.lru_cache(maxsize=1)
def code_version() -> dict[str, Any]:
    """The package version and, in a git checkout, the commit and whether the work tree has changes."""
    root = Path(choicelab.__file__).resolve().parent.parent
    info: dict[str, Any] = {"package": choicelab.__version__, "git_commit": None, "git_dirty": None}
    try:
        commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, check=True, timeout=10
        ).stdout.strip()
        status = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout
        info.update(git_commit=commit, git_dirty=bool(status.strip()))
    except (OSError, subprocess.SubprocessError):
        pass
    return info


@functools.lru_cache(maxsize=4)
def library_versions(names: tuple[str, ...] = TRACKED_LIBRARIES) -> dict[str, str]:
    """The installed version of each named library (those not installed are left out)."""
    versions = {}
    for name in names:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return versions


def config_hash(config: Mapping[str, Any]) -> str:
    return sha256_bytes(canonical_json(config).encode())


def describe_inputs(paths: Iterable[PathLike]) -> list[dict[str, str]]:
    """Each input file (or every file of an input folder) with its sha256, sorted by path."""
    described = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir() and (path / "model.json").is_file():
            # A materialized model: model.json carries the weights' sha256 (hashing gigabytes again is waste).
            described.append({"path": str(path / "model.json"), "sha256": sha256_file(path / "model.json")})
        elif path.is_dir():
            files = sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith(".snakemake"))
            for file in files:
                described.append({"path": str(file), "sha256": sha256_file(file)})
        else:
            described.append({"path": str(path), "sha256": sha256_file(path)})
    return sorted(described, key=lambda d: d["path"])


def model_reference(model_dir: PathLike) -> dict[str, Any]:
    meta = json.loads((Path(model_dir) / "model.json").read_text())
    reference = {"name": meta["name"], "source": meta["source"], "weights_sha256": meta["weights_sha256"],
                 "dir": str(model_dir)}
    if meta.get("commit_sha"):  # a hub model: the commit its weights were pinned at
        reference["commit_sha"] = meta["commit_sha"]
    return reference


def make_record(
    *,
    rule: str,
    inputs: Sequence[PathLike],
    params: Mapping[str, Any] | None = None,
    config: Mapping[str, Any] | None = None,
    seed: int | None = None,
    models: Sequence[PathLike] = (),
    artifact: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A provenance record. No timestamps: two identical runs give identical records."""
    record: dict[str, Any] = {
        "rule": rule,
        "params": dict(params or {}),
        "config_sha256": config_hash(config) if config is not None else None,
        "inputs": describe_inputs(inputs),
        "models": [model_reference(m) for m in models],
        "seed": seed,
        "code_version": code_version(),
        "library_versions": library_versions(),
    }
    if artifact is not None:
        record["artifact"] = dict(artifact)
    return record


def record_json(record: Mapping[str, Any]) -> str:
    return canonical_json(record)


def sidecar_path(path: PathLike) -> Path:
    return Path(f"{path}{SIDECAR_SUFFIX}")


def write_sidecar(output: PathLike, record: Mapping[str, Any]) -> None:
    out = Path(output)
    write_json(sidecar_path(out), {**record, "output": {"path": str(out), "sha256": sha256_file(out)}})


def read_record(path: PathLike) -> dict[str, Any] | None:
    """The provenance record of ``path``: its sidecar, its Parquet metadata, or its model.json; None if it has none."""
    p = Path(path)
    side = sidecar_path(p)
    if side.exists():
        return json.loads(side.read_text())
    if p.suffix == ".parquet" and p.exists():
        meta = read_parquet_metadata(p)
        if "choicelab.provenance" in meta:
            return json.loads(meta["choicelab.provenance"])
    if p.is_dir() and (p / "model.json").exists():
        return {"rule": "prepare_model", "model": json.loads((p / "model.json").read_text()), "inputs": []}
    if p.name == "model.json" and p.exists():
        return {"rule": "prepare_model", "model": json.loads(p.read_text()), "inputs": []}
    return None


def workflow_root(path: PathLike) -> Path:
    """The workflow's working directory above ``path``: recorded paths are relative to it."""
    start = Path(path).resolve()
    for folder in [start, *start.parents]:
        if (folder / ".snakemake").is_dir() or (folder / "results").is_dir() and folder != start:
            return folder
    return Path.cwd()


def lineage(path: PathLike, _seen: set[str] | None = None, root: Path | None = None) -> dict[str, Any]:
    """A tree: this file's record and, for each input, its own lineage (recursively).

    Recorded paths are relative to the workflow's working directory (found above ``path``), so the lineage can be
    printed from anywhere."""
    seen = _seen if _seen is not None else set()
    root = root if root is not None else workflow_root(path)
    key = str(Path(path))
    node: dict[str, Any] = {"path": key}
    if key in seen:
        node["repeated"] = True
        return node
    seen.add(key)
    resolved = Path(path) if Path(path).is_absolute() or Path(path).exists() else root / path
    record = read_record(resolved)
    if record is None:
        node["record"] = None
        return node
    node["rule"] = record.get("rule")
    node["artifact"] = record.get("artifact")
    node["models"] = record.get("models", [])
    if "model" in record:
        node["model"] = {k: record["model"].get(k) for k in ("name", "source", "weights_sha256")}
        if record["model"].get("commit_sha"):
            node["model"]["commit_sha"] = record["model"]["commit_sha"]
    node["inputs"] = []
    for entry in record.get("inputs", []):
        child = lineage(entry["path"], seen, root)
        child["sha256"] = entry.get("sha256")
        node["inputs"].append(child)
    for model in record.get("models", []):
        model_json = str(Path(model["dir"]) / "model.json") if model.get("dir") else None
        if model_json and model_json not in seen:
            node["inputs"].append(lineage(model_json, seen, root))
    return node


def format_lineage(node: Mapping[str, Any], indent: int = 0) -> str:
    pad = "  " * indent
    label = node["path"]
    details = []
    if node.get("artifact"):
        details.append(f"artifact {node['artifact'].get('id')} reproduces {node['artifact'].get('reproduces')}")
    if node.get("rule"):
        details.append(f"rule {node['rule']}")
    if node.get("sha256"):
        details.append(f"sha256 {node['sha256'][:12]}")
    if node.get("model"):
        m = node["model"]
        details.append(f"model {m.get('name')} from {m.get('source')} weights {str(m.get('weights_sha256'))[:12]}"
                       + (f" at commit {m['commit_sha'][:12]}" if m.get("commit_sha") else ""))
    if node.get("repeated"):
        details.append("see above")
    elif node.get("record", True) is None:
        details.append("source file (no provenance record)")
    lines = [f"{pad}{label}" + (f"  [{'; '.join(details)}]" if details else "")]
    for child in node.get("inputs", []):
        lines.append(format_lineage(child, indent + 1))
    return "\n".join(lines)


# -- artifacts and the manifest -------------------------------------------------------------------------------


def check_artifact_id(artifact_id: str, studies: Collection[str] | None = None) -> None:
    """An artifact id is '<study>/<name>'; given ``studies`` (the workflow passes the registry,
    ``choicelab.studies.STUDIES``: this layer never imports a study), the study must be one of them."""
    match = ARTIFACT_ID.match(artifact_id)
    if not match or (studies is not None and match["study"] not in studies):
        known = f"with study in {tuple(studies)} " if studies is not None else ""
        raise ValueError(
            f"artifact id {artifact_id!r} must look like '<study>/<name>' {known}and a lower-case "
            "name from the paper's numbering (e.g. 'bets/table5', 'revealed_belief/table_b1_1')"
        )


def write_artifact(
    files: Sequence[PathLike],
    *,
    artifact_id: str,
    reproduces: str,
    caption: str,
    record: Mapping[str, Any],
) -> None:
    """Write the sidecars of an artifact's files (all files must already exist). The id's form is checked here, its
    study against the registry when the manifest is built (:func:`build_manifest`)."""
    check_artifact_id(artifact_id)
    artifact = {"id": artifact_id, "reproduces": reproduces, "caption": caption, "files": [str(f) for f in files]}
    for f in files:
        write_sidecar(f, {**record, "artifact": artifact})


def build_manifest(artifact_files: Iterable[PathLike], *, studies: Collection[str]) -> dict[str, Any]:
    """Collect artifacts from the sidecars of ``artifact_files`` into the manifest structure; every artifact's study
    must be one of ``studies`` (the registry, passed in by the workflow)."""
    artifacts: dict[str, dict[str, Any]] = {}
    for f in sorted({str(p) for p in artifact_files}):
        side = sidecar_path(f)
        if not side.exists():
            raise FileNotFoundError(f"{f} has no provenance sidecar {side}; every table and figure must have one")
        record = json.loads(side.read_text())
        art = record.get("artifact")
        if not art:
            raise ValueError(f"{side} does not name the artifact it belongs to")
        check_artifact_id(art["id"], studies)
        entry = artifacts.setdefault(
            art["id"],
            {"id": art["id"], "study": art["id"].split("/")[0], "reproduces": art["reproduces"],
             "caption": art.get("caption", ""), "files": []},
        )
        entry["files"].append({"path": f, "sha256": record["output"]["sha256"], "provenance": str(side)})
    for entry in artifacts.values():
        entry["files"].sort(key=lambda e: e["path"])
    return {"schema": "choicelab.manifest/1", "artifacts": [artifacts[k] for k in sorted(artifacts)]}
