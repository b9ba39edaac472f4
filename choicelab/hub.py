"""Hugging Face hub models, pinned in the user's hub cache instead of copied into ``results/models/``.

``prepare_model`` resolves ``hf:<id>[@revision]`` to a commit sha and downloads that snapshot into the user's
Hugging Face cache (``HF_HUB_CACHE``, else ``HF_HOME``/hub, else ~/.cache/huggingface/hub; ``HF_HUB_OFFLINE=1``
uses the cache alone; a hub out of reach without it fails naming the model, the cache and both settings).
``model.json`` records the commit and every weight file's sha256; later rules load the snapshot of that commit from
the cache, so a 70B model is read, never written a second time.

The cache layout (``models--<org>--<name>/{blobs,snapshots/<sha>,refs/<revision>}``) is the hub library's; tests
lay one out with :func:`lay_out_hub_cache` and run offline.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from pathlib import Path

from choicelab.errors import UserError
from choicelab.io import sha256_file

# Files a model needs: config, weights, tokenizer (sentencepiece, tiktoken, BPE vocab/merges), generation config.
CONFIG_PATTERNS = ["*.json", "tokenizer.model", "*.tiktoken", "*.txt", "spiece.model", "sentencepiece*.model"]
_TRUTHY = {"1", "true", "yes", "on"}
_SHA = re.compile(r"^[0-9a-f]{40}$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


class HubModelError(UserError, RuntimeError):
    """A hub model that cannot be fetched or found in the cache; the message names the model and the fix."""


def hub_cache_dir() -> Path:
    """The hub cache the hub library uses, read from the environment now (not at import)."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"]).expanduser()
    if os.environ.get("HF_HOME"):
        return Path(os.environ["HF_HOME"]).expanduser() / "hub"
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "huggingface" / "hub"


def hub_cache_origin() -> str:
    """Which setting chose :func:`hub_cache_dir` (for messages)."""
    if os.environ.get("HF_HUB_CACHE"):
        return "from HF_HUB_CACHE"
    if os.environ.get("HF_HOME"):
        return "HF_HOME/hub"
    if os.environ.get("XDG_CACHE_HOME"):
        return "XDG_CACHE_HOME/huggingface/hub; neither HF_HUB_CACHE nor HF_HOME is set"
    return "the default ~/.cache/huggingface/hub; neither HF_HUB_CACHE nor HF_HOME is set"


def hub_offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in _TRUTHY


def repo_folder(cache: Path, repo_id: str) -> Path:
    return cache / ("models--" + repo_id.replace("/", "--"))


# What transformers loads, in its order of preference: a sharded index names its shards, else one file.
WEIGHT_INDEXES = ("model.safetensors.index.json", "pytorch_model.bin.index.json")
WEIGHT_SINGLES = ("model.safetensors", "pytorch_model.bin")


def weight_names(files: set[str], read_index) -> list[str]:
    """The weight files transformers loads from a repository holding ``files`` (``read_index(name)`` returns an
    index file's JSON). Other weights in the repository (Mistral's consolidated.safetensors, Llama's original/)
    are neither downloaded nor recorded."""
    for index in WEIGHT_INDEXES:
        if index in files:
            return sorted(set(read_index(index)["weight_map"].values()))
    for single in WEIGHT_SINGLES:
        if single in files:
            return [single]
    raise HubModelError(
        f"no {' / '.join(WEIGHT_INDEXES + WEIGHT_SINGLES)} in the repository (files: {sorted(files)[:20]})"
    )


def weight_files(folder: Path) -> list[Path]:
    """The weight files a Hugging Face folder loads (see weight_names)."""
    present = {p.name for p in folder.iterdir()}
    try:
        names = weight_names(present, lambda name: json.loads((folder / name).read_text()))
    except HubModelError:
        return []
    return [folder / name for name in names]


def _fix(name: str, repo_id: str) -> str:
    return (
        f"model {name!r} (hf:{repo_id}): accept its licence at https://huggingface.co/{repo_id} with your account, "
        "then set HF_TOKEN (or run `hf auth login`) on the machine that runs prepare_model"
    )


def _network_errors() -> tuple[type[BaseException], ...]:
    """The exceptions of the hub library's HTTP client when the hub cannot be reached (refused, DNS, timeout, proxy);
    huggingface_hub 2.x uses httpx2, 1.x httpx."""
    errors: list[type[BaseException]] = [ConnectionError, TimeoutError]
    for module in ("httpx2", "httpx"):
        try:
            errors.append(__import__(module).TransportError)
        except (ImportError, AttributeError):
            continue
    return tuple(errors)


def _unreachable(name: str, repo_id: str, revision: str, cache: Path, exc: BaseException) -> HubModelError:
    """The error of a hub model whose snapshot is neither reachable on the hub nor in the cache: the model, the cache
    and the two ways out (a network with HF_TOKEN for gated models, or HF_HUB_OFFLINE=1 on a cache that holds it)."""
    from huggingface_hub import constants

    cached = (repo_folder(cache, repo_id) / "refs" / revision).is_file()
    holds = ("holds it: set HF_HUB_OFFLINE=1 to use the cache alone" if cached else "does not hold it")
    return HubModelError(
        f"model {name!r} (hf:{repo_id}@{revision}): cannot reach the Hugging Face hub at {constants.ENDPOINT} "
        f"({type(exc).__name__}: {' '.join(str(exc).split())}), and the Hugging Face cache {cache} "
        f"({hub_cache_origin()}) {holds}. Fix: run prepare_model once where the hub is reachable (with HF_TOKEN set "
        "for a gated model), or point HF_HUB_CACHE / HF_HOME at a cache that holds the model and set HF_HUB_OFFLINE=1"
    )


def fetch_snapshot(name: str, repo_id: str, revision: str | None) -> tuple[Path, str]:
    """Download (or, offline, find) the snapshot of ``repo_id`` at ``revision``; returns (folder, commit sha)."""
    from huggingface_hub import HfApi, snapshot_download
    from huggingface_hub.errors import (
        GatedRepoError,
        HfHubHTTPError,
        LocalEntryNotFoundError,
        RepositoryNotFoundError,
        RevisionNotFoundError,
    )

    cache = hub_cache_dir()
    revision = revision or "main"
    token = os.environ.get("HF_TOKEN") or None
    try:
        if hub_offline():
            folder = Path(snapshot_download(repo_id, revision=revision, cache_dir=str(cache), local_files_only=True))
            return folder, folder.name
        info = HfApi(token=token).model_info(repo_id, revision=revision)
        commit = str(info.sha)
        # first the small files (config, tokenizer, the weight index), then exactly the weights they name
        folder = Path(snapshot_download(repo_id, revision=commit, cache_dir=str(cache), allow_patterns=CONFIG_PATTERNS,
                                        token=token))
        names = weight_names({s.rfilename for s in info.siblings or []},
                             lambda name: json.loads((folder / name).read_text()))
        snapshot_download(repo_id, revision=commit, cache_dir=str(cache), allow_patterns=names, token=token)
        return folder, commit
    except GatedRepoError as exc:
        raise HubModelError(f"{_fix(name, repo_id)}; the hub refused the download: the repository is gated") from exc
    except RepositoryNotFoundError as exc:
        raise HubModelError(
            f"model {name!r}: hf:{repo_id} was not found on the hub (a typo in 'source', or a private or gated "
            f"repository: {_fix(name, repo_id)})"
        ) from exc
    except RevisionNotFoundError as exc:
        raise HubModelError(
            f"model {name!r}: hf:{repo_id} has no revision {revision!r}; write a branch, tag or commit after '@'"
        ) from exc
    except LocalEntryNotFoundError as exc:
        if not hub_offline():  # the hub became unreachable during the download, and the cache lacks the files
            raise _unreachable(name, repo_id, revision, cache, exc) from exc
        raise HubModelError(
            f"model {name!r}: hf:{repo_id}@{revision} is not in the Hugging Face cache {cache} "
            f"({hub_cache_origin()}) and HF_HUB_OFFLINE is set; run prepare_model once with internet (and HF_TOKEN "
            "for gated models), or point HF_HOME / HF_HUB_CACHE at a cache that holds it"
        ) from exc
    except _network_errors() as exc:
        raise _unreachable(name, repo_id, revision, cache, exc) from exc
    except HfHubHTTPError as exc:
        raise HubModelError(
            f"model {name!r}: the hub failed for hf:{repo_id}@{revision}: {exc}. {_fix(name, repo_id)}"
        ) from exc


def snapshot_folder(meta: dict) -> Path:
    """Where this job's hub cache keeps the snapshot a prepared hub model pins (``hf_id`` at ``commit_sha``)."""
    return repo_folder(hub_cache_dir(), meta["hf_id"]) / "snapshots" / meta["commit_sha"]


def pinned_snapshot(meta: dict) -> Path:
    """The cached snapshot of a prepared hub model (``model.json`` with ``hf_id`` and ``commit_sha``), checked.

    The weight files must be those prepare_model recorded: the cache names a large file's blob by its sha256, so
    the check costs no read. A snapshot missing from this job's cache is an error naming the fix.
    """
    cache = hub_cache_dir()
    folder = snapshot_folder(meta)
    if not folder.is_dir():
        raise HubModelError(
            f"model {meta['name']!r}: hf:{meta['hf_id']} at commit {meta['commit_sha']} is not in the Hugging Face "
            f"cache {cache} of this job; run the job where prepare_model ran, or set HF_HOME / HF_HUB_CACHE to that "
            f"cache (delete results/models/{meta['name']} to fetch it again)"
        )
    for file_name, digest in meta["weights_files"].items():
        path = folder / file_name
        if not path.exists():
            raise HubModelError(f"model {meta['name']!r}: {path} is missing from the cached snapshot; delete "
                                f"results/models/{meta['name']} and run prepare_model again")
        blob = path.resolve().name
        if _SHA256.match(blob) and blob != digest:
            raise HubModelError(f"model {meta['name']!r}: {path} is not the file prepare_model recorded "
                                f"(sha256 {blob[:12]} != {digest[:12]}); "
                                f"delete results/models/{meta['name']} and rerun")
    return folder


def weight_digests(folder: Path) -> tuple[str, dict[str, str]]:
    """sha256 of every weight file (read once) and their combined digest."""
    files = weight_files(folder)
    if not files:
        raise FileNotFoundError(f"no weights in {folder}: expected one of {', '.join(WEIGHT_INDEXES + WEIGHT_SINGLES)}")
    per_file = {p.name: sha256_file(p) for p in files}
    combined = hashlib.sha256("\n".join(f"{k}:{per_file[k]}" for k in sorted(per_file)).encode()).hexdigest()
    return combined, per_file


def lay_out_hub_cache(
    cache: Path, repo_id: str, source: Path, *, revision: str = "main", commit: str | None = None
) -> str:
    """Lay out ``source`` (a Hugging Face folder) in ``cache`` as the hub library would; returns the commit sha.

    Blobs are named by sha256 (as the hub names large files), snapshot files are relative symlinks to them and
    ``refs/<revision>`` holds the commit. For tests and offline mirrors: nothing is downloaded.
    """
    files = sorted(p for p in Path(source).iterdir() if p.is_file())
    if commit is None:
        commit = hashlib.sha1("".join(sha256_file(p) for p in files).encode()).hexdigest()
    if not _SHA.match(commit):
        raise ValueError(f"commit {commit!r} is not a 40-hex sha")
    root = repo_folder(Path(cache), repo_id)
    (root / "blobs").mkdir(parents=True, exist_ok=True)
    snapshot = root / "snapshots" / commit
    snapshot.mkdir(parents=True, exist_ok=True)
    for path in files:
        digest = sha256_file(path)
        blob = root / "blobs" / digest
        if not blob.exists():
            shutil.copyfile(path, blob)
        link = snapshot / path.name
        if not link.exists():
            link.symlink_to(Path("..") / ".." / "blobs" / digest)
    (root / "refs").mkdir(exist_ok=True)
    (root / "refs" / revision).write_text(commit)
    return commit
