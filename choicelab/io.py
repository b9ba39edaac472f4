"""Atomic, deterministic file writing and hashing.

Every writer here writes to a temporary file in the destination folder and renames it into place, so a reader
(or a later Snakemake rule) never sees a partially written file, even if the process is killed mid-write.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

PathLike = str | os.PathLike[str]
UMASK = os.umask(0)
os.umask(UMASK)


def sha256_file(path: PathLike, chunk_size: int = 1 << 20) -> str:
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(chunk_size):
            digest.update(block)
    return digest.hexdigest()


def cache_dir() -> Path:
    """choicelab's own cache folder: ``CHOICELAB_CACHE``, else ``$XDG_CACHE_HOME/choicelab``, else
    ``~/.cache/choicelab``."""
    if os.environ.get("CHOICELAB_CACHE"):
        return Path(os.environ["CHOICELAB_CACHE"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "choicelab"


def sha256_file_remembered(path: PathLike) -> str:
    """:func:`sha256_file`, remembered in :func:`cache_dir` by the file's size, mtime, ctime and inode, so a second
    call on an unchanged file reads none of its bytes. Any write to a file sets its ctime to now (a user can set the
    mtime back, never the ctime), so a file changed in place is hashed again."""
    resolved = Path(path).resolve()
    stat = resolved.stat()
    key = [stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino]
    entry = cache_dir() / "sha256" / f"{sha256_bytes(str(resolved).encode())}.json"
    with contextlib.suppress(OSError, ValueError):
        remembered = json.loads(entry.read_text(encoding="utf-8"))
        if remembered.get("path") == str(resolved) and remembered.get("stat") == key:
            return str(remembered["sha256"])
    digest = sha256_file(resolved)
    with contextlib.suppress(OSError):  # a read-only cache costs a re-hash next time, never a wrong answer
        write_json(entry, {"path": str(resolved), "stat": key, "sha256": digest})
    return digest


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def canonical_json(obj: Any) -> str:
    """JSON with sorted keys and no whitespace variation: equal objects give equal strings."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


@contextlib.contextmanager
def atomic_path(path: PathLike, suffix: str = "") -> Iterator[Path]:
    """Yield a temporary path next to ``path``; on success it is renamed onto ``path``, on error removed."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=suffix + ".tmp", dir=target.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        yield tmp
        if tmp.exists():
            os.chmod(tmp, 0o666 & ~UMASK)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise


def write_text(path: PathLike, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_json(path: PathLike, obj: Any) -> None:
    write_text(path, json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False, default=str) + "\n")


PROVENANCE_KEY = "choicelab.provenance"  # the Parquet metadata key of an output's provenance record


def write_parquet(path: PathLike, table: pa.Table, metadata: Mapping[str, str] | None = None, *,
                  provenance: str | None = None) -> None:
    """Write ``table`` atomically; ``metadata`` is merged into the schema's key-value metadata, and ``provenance`` (a
    record's JSON, :func:`choicelab.provenance.record_json`) is stored under :data:`PROVENANCE_KEY`."""
    metadata = {**(metadata or {}), **({PROVENANCE_KEY: provenance} if provenance is not None else {})}
    if metadata:
        merged = dict(table.schema.metadata or {})
        merged.update({k.encode(): v.encode() for k, v in metadata.items()})
        table = table.replace_schema_metadata(merged)
    with atomic_path(path, suffix=".parquet") as tmp:
        pq.write_table(table, tmp, compression="zstd", write_statistics=False)


def read_parquet_metadata(path: PathLike) -> dict[str, str]:
    """The Parquet file's key-value metadata, decoded (Arrow's own schema entry dropped)."""
    raw = pq.read_schema(path).metadata or {}
    return {k.decode(): v.decode() for k, v in raw.items() if k != b"ARROW:schema"}


def write_csv(path: PathLike, frame: Any, float_format: str = "%.6g") -> None:
    """Write a pandas DataFrame as CSV atomically, with a fixed float format so reruns are byte-identical."""
    with atomic_path(path, suffix=".csv") as tmp:
        frame.to_csv(tmp, index=False, float_format=float_format, lineterminator="\n")


@contextlib.contextmanager
def atomic_directory(path: PathLike) -> Iterator[Path]:
    """Yield a temporary folder next to ``path``; on success it replaces ``path``, on error it is removed."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        yield tmp
        os.chmod(tmp, 0o777 & ~UMASK)
        if target.exists():
            shutil.rmtree(target)
        tmp.rename(target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def write_provenanced_table(path: PathLike, table: pa.Table, provenance_json: str, what: str) -> None:
    """Write a non-empty schema'd table atomically with its provenance record in the Parquet metadata."""
    if table.num_rows == 0:
        raise ValueError(f"refusing to write an empty {what} to {path}: nothing was scored")
    write_parquet(path, table, provenance=provenance_json)


def read_versioned_table(path: PathLike, version: str, what: str) -> pa.Table:
    """Read a Parquet table, checking its ``choicelab.schema`` metadata names ``version``."""
    table = pq.read_table(path)
    found = (table.schema.metadata or {}).get(b"choicelab.schema", b"").decode()
    if found != version:
        raise ValueError(f"{path} is not a {what} of schema {version} (found {found!r})")
    return table
