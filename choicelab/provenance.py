"""Provenance: every output says where it came from.

* Parquet outputs carry their record in the key-value metadata ``choicelab.provenance``.
* Every other output (tables, figures, JSON) gets a sidecar ``<file>.prov.json``.
* Materialized models carry ``model.json`` (weights sha256, source, library versions) and ``provenance.json``, the
  record of the rule that made the folder (``prepare_model``, or the fine-tuning rule of a checkpoint, whose inputs
  are its base model and training data and whose params its recipe).

A record names the rule, its params, the config (its hash ``config_sha256`` and ``config``: the path of the file
the workflow saved it to, ``results/config/<config_sha256>.yaml``, with that file's sha256, so ``sha256sum`` checks
it), each input with its sha256, the code version and library versions, the seed and every model the output depends
on with its weights hash: those the job loaded and those its inputs' records list (so a figure drawn from dumps names
the models that scored them). ``lineage(path)`` follows inputs back through their own records to the item lists,
the training data and the model weights; :func:`audit` condenses it into what a reader checks.
"""

from __future__ import annotations

import functools
import importlib.metadata
import json
import os
import re
import subprocess
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import choicelab
from choicelab.hub import snapshot_folder
from choicelab.io import (
    PROVENANCE_KEY,
    PathLike,
    canonical_json,
    read_parquet_metadata,
    sha256_bytes,
    sha256_file,
    write_json,
    write_text,
)

ARTIFACT_ID = re.compile(r"^(?P<study>[a-z0-9_]+)/[a-z0-9_]+$")
SIDECAR_SUFFIX = ".prov.json"  # the suffix of every provenance sidecar (choicelab.artifacts imports it)
TRACKED_LIBRARIES = ("torch", "transformers", "tokenizers", "numpy", "pandas", "pyarrow", "scipy", "statsmodels")
# What a materialized model records in its model.json.
MODEL_LIBRARIES = ("torch", "transformers", "tokenizers", "safetensors", "gguf")
MODEL_RECORD = "provenance.json"  # inside a model folder: the record of the rule that made it
CONFIG_FOLDER = "results/config"  # where the workflow saves each run's effective config (config_file_text)


@functools.lru_cache(maxsize=1)
def code_version() -> dict[str, Any]:
    """The package version and, in a git checkout, the commit and whether the work tree has changes."""
    root = Path(choicelab.__file__).resolve().parent.parent
    info: dict[str, Any] = {"package": choicelab.__version__, "git_commit": None, "git_dirty": None}

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True,
                              timeout=10).stdout.strip()

    try:
        commit, status = git("rev-parse", "HEAD"), git("status", "--porcelain", "--untracked-files=no")
        info.update(git_commit=commit, git_dirty=bool(status))
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


def config_file_text(config: Mapping[str, Any]) -> str:
    """The effective config as the YAML file the workflow saves (keys sorted: equal configs give equal bytes)."""
    import yaml

    plain = json.loads(canonical_json(config))  # tuples and paths as JSON has them, as config_hash sees them
    return yaml.safe_dump(plain, sort_keys=True, default_flow_style=False, allow_unicode=True, width=120)


def config_file_path(config: Mapping[str, Any]) -> str:
    """Where the run with ``config`` saves it: ``results/config/<config_sha256>.yaml`` (relative to the workflow's
    working directory)."""
    return f"{CONFIG_FOLDER}/{config_hash(config)}.yaml"


def config_reference(config: Mapping[str, Any]) -> dict[str, str]:
    """The saved config file's path and the sha256 of its bytes (``sha256sum`` of the file gives it)."""
    return {"path": config_file_path(config), "sha256": sha256_bytes(config_file_text(config).encode())}


def save_config(config: Mapping[str, Any], root: PathLike = ".") -> Path:
    """Write the run's effective config to ``root/results/config/<config_sha256>.yaml`` (the workflow calls it once
    per run, before any job); an identical file already there is left as it is."""
    path = Path(root) / config_file_path(config)
    text = config_file_text(config)
    if not (path.is_file() and path.read_text(encoding="utf-8") == text):
        write_text(path, text)
    return path


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
    if meta.get("base_model"):  # a fine-tuned checkpoint: the weights it was trained from
        reference["base_model"] = {k: meta["base_model"].get(k) for k in ("name", "weights_sha256")}
    return reference


def _model_key(reference: Mapping[str, Any]) -> tuple[Any, ...]:
    return (reference.get("name"), reference.get("weights_sha256"), reference.get("dir"))


def inherited_models(inputs: Sequence[Mapping[str, str]]) -> list[dict[str, Any]]:
    """The models the described ``inputs`` depend on: a model folder given as input (its ``model.json``) and every
    model listed by an input's own record (a dump's scorer, a table's models ...), in input order, each once."""
    found: list[dict[str, Any]] = []
    for entry in inputs:
        path = Path(entry["path"])
        if path.name == "model.json" and path.is_file():
            found.append(model_reference(path.parent))
            continue
        if path.name == MODEL_RECORD or not (sidecar_path(path).exists() or path.suffix == ".parquet"):
            continue
        record = read_record(path)
        found.extend((record or {}).get("models", []))
    return unique_models(found)


def unique_models(references: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    seen: set[tuple[Any, ...]] = set()
    out = []
    for reference in references:
        if _model_key(reference) not in seen:
            seen.add(_model_key(reference))
            out.append(dict(reference))
    return out


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
    """A provenance record. No timestamps: two identical runs give identical records.

    ``models`` are those the job loads; the record lists them and then every model its inputs' records list
    (:func:`inherited_models`). Given the ``config``, the record names the file the workflow saved it to
    (:func:`config_reference`)."""
    described = describe_inputs(inputs)
    record: dict[str, Any] = {
        "rule": rule,
        "params": dict(params or {}),
        "config_sha256": config_hash(config) if config is not None else None,
        "config": config_reference(config) if config is not None else None,
        "inputs": described,
        "models": unique_models([*(model_reference(m) for m in models), *inherited_models(described)]),
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
        if PROVENANCE_KEY in meta:
            return json.loads(meta[PROVENANCE_KEY])
    if p.is_dir() and (p / "model.json").exists():
        return model_record(p)
    if p.name == "model.json" and p.exists():
        return model_record(p.parent)
    return None


def write_model_record(model_dir: PathLike, record: Mapping[str, Any]) -> None:
    """Save the record of the rule that made a model folder (``prepare_model``, a fine-tuning rule) inside it."""
    write_json(Path(model_dir) / MODEL_RECORD, dict(record))


def model_record(model_dir: PathLike) -> dict[str, Any]:
    """A model folder's record: the rule that made it (its ``provenance.json``: rule, params -- a checkpoint's
    recipe --, inputs -- its base model and training data) with ``model`` (its ``model.json``). A folder made before
    models carried ``provenance.json`` has ``rule`` None and a ``note`` saying so (its rule is not guessed)."""
    folder = Path(model_dir)
    meta = json.loads((folder / "model.json").read_text())
    own = folder / MODEL_RECORD
    if own.is_file():
        return {**json.loads(own.read_text()), "model": meta}
    return {"rule": None, "model": meta, "inputs": [],
            "note": f"no {MODEL_RECORD} in {folder}: made before model folders recorded their rule; re-run it"}


def workflow_root(path: PathLike) -> Path:
    """The workflow's working directory above ``path``: recorded paths are relative to it."""
    start = Path(path).resolve()
    for folder in [start, *start.parents]:
        if (folder / ".snakemake").is_dir() or (folder / "results").is_dir() and folder != start:
            return folder
    return Path.cwd()


def _rebased(recorded: str, own_root: Path, root: Path) -> str:
    """A path recorded by a run in ``own_root`` (a nested run below ``root``, such as the choice-behaviour cards' run
    in results/cards/_run) as a path relative to ``root``; absolute paths and ``root``'s own are unchanged."""
    if own_root == root or Path(recorded).is_absolute():
        return recorded
    return (own_root / recorded).relative_to(root.resolve()).as_posix()


def _nested_root(resolved: Path, root: Path) -> Path:
    """The workflow folder whose run wrote ``resolved``'s record: a nested run's folder strictly below ``root``
    (its records name paths relative to it), else ``root``."""
    found = workflow_root(resolved)
    return found if root.resolve() in found.parents else root


MODEL_FIELDS = ("name", "source", "weights_sha256", "commit_sha", "hf_id", "hub_cache", "weights_files", "base_model")


def lineage(path: PathLike, _seen: set[str] | None = None, root: Path | None = None) -> dict[str, Any]:
    """A tree: this file's record and, for each input, its own lineage (recursively).

    Recorded paths are relative to the workflow's working directory (found above ``path``), so the lineage can be
    printed from anywhere. A model folder's node carries its ``model.json`` fields (``model``), the rule that made it
    with its params (a checkpoint's recipe) and, as inputs, its base model and training data."""
    seen = _seen if _seen is not None else set()
    root = root if root is not None else workflow_root(path)
    key = str(Path(path))
    node: dict[str, Any] = {"path": key}
    if key in seen:
        node["repeated"] = True
        return node
    seen.add(key)
    # The path asked about is taken as given; recorded paths (its inputs') are relative to the workflow's root, never
    # to the current directory (another run's results there would be read in their place).
    resolved = Path(path) if Path(path).is_absolute() or _seen is None else root / path
    record = read_record(resolved)
    if record is None:
        node["record"] = None
        return node
    # A nested run (the cards' run in results/cards/_run) records paths relative to its own folder: shown, and
    # followed, relative to the root the lineage started from.
    own = _nested_root(resolved, root)
    node["rule"] = record.get("rule")
    node["artifact"] = record.get("artifact")
    node["models"] = [{**m, "dir": _rebased(m["dir"], own, root)} if m.get("dir") else m
                      for m in record.get("models", [])]
    for field in ("config", "code_version", "note"):
        if record.get(field):
            node[field] = record[field]
    if node.get("config", {}).get("path"):
        node["config"] = {**node["config"], "path": _rebased(node["config"]["path"], own, root)}
    if "model" in record:
        node["model"] = {k: record["model"][k] for k in MODEL_FIELDS if record["model"].get(k)}
        node["params"] = record.get("params", {})
        if record["model"].get("training"):
            node["model"]["training"] = record["model"]["training"]
    node["inputs"] = []
    for entry in record.get("inputs", []):
        child = lineage(_rebased(entry["path"], own, root), seen, root)
        child["sha256"] = entry.get("sha256")
        node["inputs"].append(child)
    for model in node["models"]:
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
    elif node.get("note"):
        details.append(node["note"])
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
    lines += [format_lineage(child, indent + 1) for child in node.get("inputs", [])]
    return "\n".join(lines)


def _walk(node: Mapping[str, Any]) -> Iterable[Mapping[str, Any]]:
    yield node
    for child in node.get("inputs", []):
        yield from _walk(child)


def _has_prompts(path: Path) -> bool:
    """A Parquet output whose rows carry the prompt the model saw (a ``context`` column: logit dumps, score tables)."""
    import pyarrow.parquet as pq

    return path.suffix == ".parquet" and path.is_file() and "context" in pq.read_schema(path).names


def _weight_names(files: Any) -> list[str]:
    """The weight file names of a model.json ``weights_files`` (a name -> sha256 mapping or a list of entries)."""
    if isinstance(files, Mapping):
        return sorted(files)
    return [f["path"] if isinstance(f, Mapping) else str(f) for f in files or []]


def _checked_config(reference: Mapping[str, str], root: Path) -> dict[str, Any]:
    path = Path(reference["path"])
    resolved = path if path.is_absolute() else root / path
    found = sha256_file(resolved) if resolved.is_file() else None
    status = "missing" if found is None else "matches" if found == reference["sha256"] else "differs"
    return {**reference, "status": status}


def audit(tree: Mapping[str, Any], root: PathLike) -> dict[str, Any]:
    """What a reader checks of an output, from its :func:`lineage` tree: the prompts (outputs whose ``context``
    column holds them), the data files (inputs without a record of their own), the fine-tuned checkpoints (with the
    rule that trained them, its recipe and training data), the model weights, the saved config file(s) (each checked
    against its recorded sha256: ``matches``, ``differs`` or ``missing``) and the code version."""
    base = Path(root)
    nodes = [n for n in _walk(tree) if not n.get("repeated")]

    def resolved(path: str) -> Path:
        return Path(path) if Path(path).is_absolute() else base / path

    configs = {canonical_json(n["config"]): n["config"] for n in nodes if n.get("config")}
    checkpoints, weights = [], []
    for n in nodes:
        model = n.get("model")
        if not model:
            continue
        entry = {"dir": str(Path(n["path"]).parent) if n["path"].endswith("model.json") else n["path"],
                 **{k: model[k] for k in MODEL_FIELDS if k in model and k != "weights_files"},
                 "weights_files": _weight_names(model.get("weights_files")),
                 "rule": n.get("rule"), "note": n.get("note")}
        if str(model.get("source", "")).startswith("finetune:"):
            entry["recipe"] = n.get("params", {})
            entry["training_data"] = [c["path"] for c in n.get("inputs", []) if not c.get("model")]
            checkpoints.append(entry)
        else:
            weights.append(entry)
    return {
        "path": tree["path"],
        "root": str(base),
        "artifact": tree.get("artifact"),
        "models": tree.get("models", []),
        "code_version": tree.get("code_version"),
        "config": [_checked_config(c, base) for c in configs.values()],
        "prompts": sorted({n["path"] for n in nodes if n.get("rule") and _has_prompts(resolved(n["path"]))}),
        "data_files": sorted({(n["path"], n.get("sha256") or "") for n in nodes if n.get("record", True) is None}),
        "checkpoints": checkpoints,
        "weights": weights,
    }


BRIEF_LINES = 4  # entries a section shows under --brief (the whole audit then fits a screen)


def _section(entries: list[str], brief: bool) -> list[str]:
    """A section's lines; ``brief``: the first :data:`BRIEF_LINES` and how many more there are."""
    if not brief or len(entries) <= BRIEF_LINES + 1:
        return entries
    return [*entries[:BRIEF_LINES], f"  ... and {len(entries) - BRIEF_LINES} more (without --brief: all)"]


def code_line(code: Mapping[str, Any]) -> str:
    """The code version a record names: the package and its git commit, or that it ran outside a git checkout."""
    if not code.get("git_commit"):
        return f"code: choicelab {code.get('package')} (not a git checkout: no commit recorded)"
    dirty = " (work tree had uncommitted changes)" if code.get("git_dirty") else ""
    return f"code: choicelab {code.get('package')} at git commit {code.get('git_commit')}{dirty}"


def format_audit(report: Mapping[str, Any], brief: bool = False) -> str:
    """:func:`audit` as text: one section per kind of thing, each line a path (and its hash); ``brief``: each section
    cut to its first entries (:func:`_section`)."""
    lines = [f"provenance of {report['path']} (recorded paths are relative to {report['root']})"]
    art = report.get("artifact")
    if art:
        lines.append(f"  artifact {art.get('id')} reproduces {art.get('reproduces')}")
    lines.append(code_line(report.get("code_version") or {}))
    lines.append("config (the effective config the run saved; sha256sum of the file gives the hash):")
    lines += [f"  {c['path']}  sha256 {c['sha256']}  [{c['status']}]" for c in report["config"]] or [
        "  none recorded (made before runs saved their config)"]
    lines.append("models it depends on:")
    lines += _section([f"  {m.get('name')}  weights sha256 {m.get('weights_sha256')}  ({m.get('dir')})"
              + (f"  fine-tuned from {m['base_model'].get('name')} (weights sha256 "
                 f"{m['base_model'].get('weights_sha256')})" if m.get("base_model") else "")
              for m in report["models"]], brief) or ["  none"]
    lines.append("prompts (the context column; `choicelab show PATH --item ID` prints one item):")
    lines += _section([f"  {p}" for p in report["prompts"]], brief) or ["  none (no input holds prompts)"]
    lines.append("data files:")
    lines += _section([f"  {p}  sha256 {h}" for p, h in report["data_files"]], brief) or ["  none"]
    lines.append("fine-tuned checkpoints:")
    checkpoints = []
    for c in report["checkpoints"]:
        made = f"rule {c['rule']}" if c.get("rule") else (c.get("note") or "rule unknown")
        checkpoints.append(f"  {c['dir']}  weights sha256 {c.get('weights_sha256')}  from {c.get('source')}; {made}")
        if c.get("recipe") and not brief:
            checkpoints.append(f"    recipe: {canonical_json(c['recipe'])}")
        if not brief:
            checkpoints += [f"    trained on: {p}" for p in c.get("training_data", [])]  # training and selection
    lines += _section(checkpoints, brief) or ["  none"]
    lines.append("weights:")
    weights = []
    for w in report["weights"]:
        where = (f"hub {w['hf_id']} at commit {w.get('commit_sha')} in {w.get('hub_cache')}" if w.get("hf_id")
                 else f"{w['dir']}/{{{', '.join(w['weights_files'])}}}" if w["weights_files"] else w["dir"])
        weights.append(f"  {w.get('name')}  sha256 {w.get('weights_sha256')}  from {w.get('source')}: {where}")
    lines += _section(weights, brief) or ["  none"]
    return "\n".join(lines)


# -- verification: each file a record names, re-hashed -------------------------------------------------------------


def _record_holders(folder: Path) -> list[Path]:
    """Every output under ``folder`` that carries a record: a sidecar's file, a Parquet file with one, a model
    folder (its model.json)."""
    holders = set()
    for path in sorted(folder.rglob("*")):
        if path.name.endswith(SIDECAR_SUFFIX):
            holders.add(Path(str(path)[: -len(SIDECAR_SUFFIX)]))
        elif path.name == "model.json" or (path.suffix == ".parquet" and read_record(path) is not None):
            holders.add(path)
    return sorted(holders)


def _weights_location(model: Mapping[str, Any], model_json: Path) -> Path:
    """Where a model record's weight files are: its hub cache snapshot, else its own folder."""
    if model.get("commit_sha") and model.get("hf_id"):
        return snapshot_folder(model)
    return model_json.parent


def recorded_files(path: PathLike, root: PathLike) -> list[dict[str, str]]:
    """What the record of ``path`` says of files: the output itself (a sidecar's ``output``), each input, and a
    model folder's weight files, each as ``{"path", "sha256", "recorded_by"}`` with the path as it resolves from
    ``root`` (a nested run's records are relative to its own folder), shown relative to ``root`` below it."""
    holder = Path(path)
    record = read_record(holder)
    if record is None:
        return []
    own = _nested_root(holder.resolve(), Path(root))
    by = str(holder)
    named = [{**record["output"], "recorded_by": by}] if isinstance(record.get("output"), Mapping) else []
    named += [{"path": entry["path"], "sha256": entry["sha256"], "recorded_by": by}
              for entry in record.get("inputs", []) if entry.get("sha256")]
    named = [{**entry, "path": str(own / entry["path"]) if not Path(entry["path"]).is_absolute() else entry["path"]}
             for entry in named]
    # The weights of the model folder itself, and of every model the record says the output depends on.
    model_jsons = [holder if holder.name == "model.json" else holder / "model.json"] if record.get("model") else []
    model_jsons += [own / m["dir"] / "model.json" for m in record.get("models", []) if m.get("dir")]
    for model_json in model_jsons:
        if not model_json.is_file():
            named.append({"path": str(model_json), "sha256": "", "recorded_by": by})
            continue
        model = json.loads(model_json.read_text())
        if isinstance(model.get("weights_files"), Mapping):
            folder = _weights_location(model, model_json)
            named += [{"path": str(folder / name), "sha256": digest, "recorded_by": str(model_json)}
                      for name, digest in sorted(model["weights_files"].items())]
    return [{**entry, "path": _shown(Path(entry["path"]), Path(root))} for entry in named]


def _shown(path: Path, root: Path) -> str:
    """``path`` relative to the workflow folder ``root`` when it lies below it (as records name paths), else whole."""
    absolute = Path(os.path.abspath(path if path.is_absolute() else root / path))  # symlinks kept, as recorded
    try:
        return str(absolute.relative_to(os.path.abspath(root)))
    except ValueError:
        return str(absolute)


def verify(paths: Sequence[PathLike], root: PathLike | None = None) -> list[dict[str, str]]:
    """Re-hash every file the records of ``paths`` name (a folder: every record under it; a file: every record of
    its lineage) and say of each ``ok``, ``changed`` or ``missing`` (``found`` holds the file's sha256 now)."""
    checks: dict[tuple[str, str], dict[str, str]] = {}
    hashes: dict[str, str | None] = {}
    for raw in paths:
        path = Path(raw)
        base = Path(root) if root is not None else workflow_root(path)
        if path.is_dir() and not (path / "model.json").is_file():
            holders = _record_holders(path)
        else:
            holders = [path] + [base / n["path"] for n in _walk(lineage(path, root=base))
                                if n is not None and n["path"] != str(path) and not n.get("repeated")
                                and n.get("record", True) is not None]
        for holder in holders:
            for entry in recorded_files(holder, base):
                file = base / entry["path"]  # relative to the workflow folder, or absolute
                if entry["path"] not in hashes:
                    hashes[entry["path"]] = sha256_file(file) if file.is_file() else None
                found = hashes[entry["path"]]
                status = "missing" if found is None else "ok" if found == entry["sha256"] else "changed"
                checks[(entry["path"], entry["recorded_by"])] = {**entry, "found": found or "", "status": status}
    return [checks[key] for key in sorted(checks)]


def format_verification(checks: Sequence[Mapping[str, str]], every: bool = False, brief: bool = False) -> str:
    """One summary line, then each file that is not what its record says (``every``: each file, ok ones too;
    ``brief``: the first few)."""
    counts = {status: sum(c["status"] == status for c in checks) for status in ("ok", "changed", "missing")}
    lines = [f"files re-hashed against their records: {len(checks)} ({counts['ok']} ok, {counts['changed']} "
             f"changed, {counts['missing']} missing)"]
    lines += _section([f"  {c['status'].upper():7}  {c['path']}  (recorded by {c['recorded_by']}: sha256 "
                       f"{c['sha256'][:12]}" + (f", now {c['found'][:12]})" if c["found"] and c["status"] != "ok"
                                                 else ")")
                       for c in checks if every or c["status"] != "ok"], brief)
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
