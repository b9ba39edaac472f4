"""The public data files the studies read, and downloading them with checksums (for users without a local data
mirror).

Where each file comes from and its checksum are data, not code: ``data/sources/<name>.yaml`` (format ``sources/1``)
lists, per group, every file's path under a data mirror or the download folder, its URL (``{base}`` names one of the
file's ``bases``) and its sha256. :func:`read_sources` reads one such file strictly; :func:`source_files` gives one
group as :class:`RemoteFile` rows.
"""

from __future__ import annotations

import functools
import string
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from choicelab.config import duplicate_keys
from choicelab.errors import UserError
from choicelab.io import atomic_path, sha256_file

SOURCES_DIR = Path(__file__).resolve().parent.parent / "data" / "sources"
SOURCES_FORMAT = "sources/1"


@dataclass(frozen=True)
class RemoteFile:
    """A public file: its path in a data mirror (and under the download folder), where to download it, its sha256."""

    mirror_path: str
    url: str
    sha256: str


def _url(template: str, bases: Mapping[str, str], where: str) -> str:
    names = [name for _, name, _, _ in string.Formatter().parse(template) if name]
    unknown = sorted(set(names) - set(bases))
    if unknown:
        raise ValueError(f"{where}: url {template!r} names base {unknown[0]!r}, which 'bases' does not define "
                         f"(defined: {sorted(bases)})")
    return template.format_map(bases)


@functools.cache
def read_sources(name: str) -> dict[str, tuple[dict[str, Any], ...]]:
    """The groups of ``data/sources/<name>.yaml``: group -> its file entries (mappings with ``path``, the keys its
    checks need, and ``url`` with the bases filled in or, for a file the download rule converts from another listed
    file, ``derived_from``). A missing file, another format, a key set twice, an entry without ``path`` or with
    neither (or both) of ``url`` and ``derived_from``, or a url naming an undefined base raise, naming the file and
    the entry."""
    path = SOURCES_DIR / f"{name}.yaml"
    if not path.is_file():
        known = sorted(p.stem for p in SOURCES_DIR.glob("*.yaml"))
        raise FileNotFoundError(f"no data source list {path}; the lists are {known} (data/sources/<name>.yaml)")
    text = path.read_text(encoding="utf-8")
    repeated = duplicate_keys(text)
    if repeated:
        key, first, line = repeated[0]
        raise ValueError(f"{path}, line {line}: key {key!r} is set twice (first on line {first}); delete one")
    table = yaml.safe_load(text) or {}
    if table.get("format") != SOURCES_FORMAT:
        raise ValueError(f"{path}: 'format' is {table.get('format')!r}, expected {SOURCES_FORMAT!r}")
    bases = table.get("bases") or {}
    groups: dict[str, tuple[dict[str, Any], ...]] = {}
    for group, entries in (table.get("files") or {}).items():
        rows = []
        for index, entry in enumerate(entries or []):
            where = f"{path} files.{group}[{index}]"
            if not isinstance(entry, Mapping) or "path" not in entry or ("url" in entry) == ("derived_from" in entry):
                raise ValueError(f"{where}: each file needs a path, its checksums and either a url or derived_from "
                                 f"(the listed file it is converted from); got {entry!r}")
            rows.append({**entry, **({"url": _url(str(entry["url"]), bases, where)} if "url" in entry else {})})
        groups[str(group)] = tuple(rows)
    return groups


def source_entries(name: str, group: str) -> tuple[dict[str, Any], ...]:
    """One group of ``data/sources/<name>.yaml`` (see :func:`read_sources`); an unknown group raises naming them."""
    groups = read_sources(name)
    if group not in groups:
        raise KeyError(f"data/sources/{name}.yaml has no group {group!r} under 'files'; it has {sorted(groups)}")
    return groups[group]


def source_files(name: str, group: str) -> tuple[RemoteFile, ...]:
    """One group of ``data/sources/<name>.yaml`` as RemoteFile rows (each entry needs a ``sha256``; a derived file's
    url is empty)."""
    files = []
    for index, entry in enumerate(source_entries(name, group)):
        if "sha256" not in entry:
            raise ValueError(f"data/sources/{name}.yaml files.{group}[{index}] ({entry['path']}): no sha256")
        # a derived file has no url: the download rule converts it from its derived_from file
        files.append(RemoteFile(str(entry["path"]), str(entry.get("url", "")), str(entry["sha256"])))
    return tuple(files)


class ChecksumError(UserError, ValueError):
    """A downloaded file whose sha256 is not the one its source entry records."""


def verify_checksum(path: str | Path, expected: str) -> None:
    actual = sha256_file(path)
    if actual != expected:
        raise ChecksumError(
            f"{path}: sha256 {actual} does not match the expected {expected}; the file is corrupt or a different "
            "version: delete it and download again, or fix the data mirror"
        )


def download(url: str, dest: str | Path, sha256: str, timeout: float = 120) -> None:
    """Fetch ``url`` to ``dest`` atomically; the file only appears if its sha256 matches."""
    download_verified(url, dest, lambda path: verify_checksum(path, sha256), timeout)


def download_verified(url: str, dest: str | Path, verify: Callable[[Path], None], timeout: float = 120) -> None:
    """Fetch ``url`` to ``dest`` atomically; the file only appears if ``verify`` (which raises on mismatch) passes."""
    with atomic_path(dest) as tmp:
        try:
            with urllib.request.urlopen(url, timeout=timeout) as response, open(tmp, "wb") as out:
                while block := response.read(1 << 20):
                    out.write(block)
        except OSError as exc:
            raise ConnectionError(
                f"could not download {url} ({exc}); without internet access set 'data_mirror' in the config to a "
                "local copy of the public datasets (e.g. ../shared/data)"
            ) from exc
        verify(Path(tmp))
