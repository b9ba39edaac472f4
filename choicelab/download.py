"""Downloading public data files with checksums (for users without a local data mirror)."""

from __future__ import annotations

import urllib.request
from collections.abc import Callable
from pathlib import Path

from choicelab.io import atomic_path, sha256_file


class ChecksumError(ValueError):
    pass


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
