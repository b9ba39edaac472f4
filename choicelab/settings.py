"""One way from a validated config to a study's typed settings, and from those settings to rule params and records.

Every study declares its settings as frozen dataclasses (``choicelab.studies.<study>.settings``), one field per key of
its section of ``schemas/config.schema.yaml``; the schema is the only place defaults and allowed values live. This
module reads any such dataclass from its config section (:func:`read`), driven by the field types alone:

* a nested dataclass reads its sub-section; a class with a ``from_setting(value, key)`` classmethod reads itself
  (STEER's adaptations);
* ``tuple[X, ...]`` reads a list, ``dict[str, X]`` a mapping, ``X | None`` keeps ``null``;
* ``int``, ``float``, ``str`` and ``bool`` are converted as typed (a YAML ``3`` read as a float is ``3.0``);
  ``int | float`` keeps a number as written.

:func:`plain` turns settings (or one field of them) back into JSON-plain values: the rule params of every study
(``rules/common.smk``'s ``setting``) and the settings recorded in provenance. A class with a ``record()`` method is
recorded as what it returns. Reading a record again with :func:`read` gives the same settings.

Shared code: nothing here imports a study.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")


class SettingsError(KeyError):
    """A settings section that lacks a key or holds a value of the wrong type (names the dotted config key)."""

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class Engine:
    """``engine``: how jobs that load a model run."""

    max_batch_tokens: Any  # a number of tokens, or "auto" (choicelab.lm.budget)
    threads: int
    retries: int


@dataclass(frozen=True)
class RunSettings:
    """The run-wide keys a job may be given (the top level of the config, beside ``models`` and ``studies``)."""

    seed: int  # every derived seed starts here (choicelab.stats.derived_seed)
    device: str  # auto, cpu or cuda
    engine: Engine


# The scope of the run-wide settings in the rules' one accessor, ``setting(scope, name)`` (rules/common.smk); any other
# scope is a study's name.
RUN = "run"


def run_settings(config: Mapping[str, Any]) -> RunSettings:
    """The run-wide settings of a validated config."""
    return read(RunSettings, config, "")


def read(cls: type[T], section: Mapping[str, Any], key: str) -> T:
    """``cls`` (a settings dataclass) from ``section``, the config section at dotted ``key`` of a validated config
    (validation filled every default, so a missing key is a config that was not validated: it fails naming it); ``key``
    "" is the config's top level."""
    if not isinstance(section, Mapping):
        raise SettingsError(f"config key '{key}' must be a mapping, got {section!r}")
    hints = typing.get_type_hints(cls)
    values = {}
    for field in dataclasses.fields(cls):  # type: ignore[arg-type]
        dotted = f"{key}.{field.name}" if key else field.name
        if field.name not in section:
            raise SettingsError(
                f"config key '{dotted}' is missing: validation against schemas/config.schema.yaml fills "
                "every optional key, so read the settings of a validated config (the workflow's)"
            )
        values[field.name] = _convert(section[field.name], hints[field.name], dotted)
    return cls(**values)


def _convert(value: Any, hint: Any, key: str) -> Any:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        kinds = [a for a in args if a is not type(None)]
        if len(kinds) > 1:  # ``int | float``: a number kept as written (3 stays 3, 0.5 stays 0.5)
            if not all(k in (int, float) for k in kinds):
                raise TypeError(f"settings field '{key}' has type {hint!r}; only int | float may combine")
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise SettingsError(f"config key '{key}' must be a number, got {value!r}")
            return value
        return _convert(value, kinds[0], key)
    if origin is tuple:
        if not isinstance(value, list | tuple):
            raise SettingsError(f"config key '{key}' must be a list, got {value!r}")
        return tuple(_convert(v, args[0], f"{key}[{i}]") for i, v in enumerate(value))
    if origin is dict:
        if not isinstance(value, Mapping):
            raise SettingsError(f"config key '{key}' must be a mapping, got {value!r}")
        return {_convert(k, args[0], key): _convert(v, args[1], f"{key}.{k}") for k, v in value.items()}
    if hint is Any:
        return value
    if isinstance(hint, type) and hasattr(hint, "from_setting"):
        return hint.from_setting(value, key)
    if dataclasses.is_dataclass(hint):
        return read(hint, value, key)  # type: ignore[arg-type]
    if hint is bool:
        if not isinstance(value, bool):
            raise SettingsError(f"config key '{key}' must be true or false, got {value!r}")
        return value
    if hint in (int, float, str):
        if hint is not str and isinstance(value, bool | str):
            raise SettingsError(f"config key '{key}' must be a number, got {value!r}")
        return hint(value)
    raise TypeError(f"settings field '{key}' has type {hint!r}, which choicelab.settings.read cannot read")


def plain(value: Any) -> Any:
    """JSON-plain settings: a dataclass becomes a dict (or its ``record()``), tuples stay tuples (JSON lists), the
    rest as is. The form of every study's rule params and of the settings in provenance records."""
    if hasattr(value, "record") and dataclasses.is_dataclass(value):
        return value.record()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple):
        return tuple(plain(v) for v in value)
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def field(settings: Any, name: str) -> Any:
    """One setting by dotted name (``"finetune.max_length"``; ``""`` is the whole settings), JSON-plain."""
    value = settings
    for part in filter(None, name.split(".")):
        if not dataclasses.is_dataclass(value) or part not in {f.name for f in dataclasses.fields(value)}:
            raise KeyError(f"{type(settings).__name__} has no setting {name!r} (at {part!r})")
        value = getattr(value, part)
    return plain(value)
