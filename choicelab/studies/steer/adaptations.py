"""STEER's adaptations: one type, :class:`Adaptation`, and the one place its two written forms are parsed.

* In a config (``studies.steer.adaptations``) an adaptation is structured data: ``{shots: 3}`` (n solved examples
  before the question, n in 0..5) or ``{explain: separate}`` (self-explanation, mode ``together``, ``separate`` or
  ``separate-hidden``; the allowed values are read from the schema). :meth:`Adaptation.from_setting` reads it.
* In file names, wildcards, dumps (``variant``) and prompt records (``adaptation``) it is its :attr:`Adaptation.name`,
  ``"3shot"`` or ``"explain-separate"`` (the names of the results, unchanged). :meth:`Adaptation.from_name` reads it
  back, and :data:`NAME_PATTERN` (the rules' wildcard constraint) is built from the same constants.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from choicelab.config import ConfigError, load_schema


def _entry_schema() -> dict[str, Any]:
    """The schema of one ``studies.steer.adaptations`` entry: the only place the allowed values are written."""

    steer = load_schema()["properties"]["studies"]["properties"]["steer"]
    return steer["properties"]["adaptations"]["items"]["properties"]


MAX_SHOTS: int = _entry_schema()["shots"]["maximum"]
EXPLANATION_MODES: tuple[str, ...] = tuple(_entry_schema()["explain"]["enum"])
NO_EXPLANATION = "none"

NAME_PATTERN = "|".join([f"[0-{MAX_SHOTS}]shot", *(f"explain-{mode}" for mode in EXPLANATION_MODES)])
_NAME_RE = re.compile(rf"^(?:(?P<shots>[0-{MAX_SHOTS}])shot|explain-(?P<mode>{'|'.join(EXPLANATION_MODES)}))$")
_FORMS = f"{{shots: n}} with n in 0..{MAX_SHOTS}, or {{explain: m}} with m one of {list(EXPLANATION_MODES)}"


@dataclass(frozen=True, order=True)
class Adaptation:
    """How a question is prompted: ``shots`` solved examples first, or a self-explanation call (``explain``, a mode
    of :data:`EXPLANATION_MODES`, else ``"none"``). The paper's adaptations use one or the other, never both."""

    shots: int = 0
    explain: str = NO_EXPLANATION

    def __post_init__(self) -> None:
        if not 0 <= self.shots <= MAX_SHOTS or self.explain not in (NO_EXPLANATION, *EXPLANATION_MODES) or (
                self.shots and self.explain != NO_EXPLANATION):
            raise ValueError(f"no STEER adaptation has shots={self.shots}, explain={self.explain!r}: use {_FORMS}")

    @property
    def name(self) -> str:
        """``"3shot"`` or ``"explain-separate"``: the adaptation in file names, wildcards, dumps and prompt records."""
        return f"{self.shots}shot" if self.explain == NO_EXPLANATION else f"explain-{self.explain}"

    def record(self) -> dict[str, Any]:
        """The adaptation in rule params and provenance records: its config form, which reads back the same."""
        return self.config()

    def config(self) -> dict[str, Any]:
        """The adaptation as written in a config."""
        return {"shots": self.shots} if self.explain == NO_EXPLANATION else {"explain": self.explain}

    @classmethod
    def from_name(cls, name: str) -> Adaptation:
        """``"3shot"`` -> Adaptation(shots=3); ``"explain-together"`` -> Adaptation(explain="together")."""
        match = _NAME_RE.match(str(name))
        if not match:
            raise ValueError(f"unknown STEER adaptation name {name!r}: the names are {NAME_PATTERN.split('|')}")
        if match["shots"] is not None:
            return cls(shots=int(match["shots"]))
        return cls(explain=match["mode"])

    @classmethod
    def from_setting(cls, value: Any, key: str) -> Adaptation:
        """One entry of ``studies.steer.adaptations`` (config key ``key``): ``{shots: n}`` or ``{explain: mode}``.
        The old string form ("3shot") is refused, naming the key and the entry to write instead."""

        if isinstance(value, str):
            try:
                new = cls.from_name(value).config()
            except ValueError:
                new = None
            hint = f"write {_flow(new)} instead" if new else f"write {_FORMS}"
            raise ConfigError(f"config key '{key}': the string form {value!r} of a STEER adaptation is no longer "
                              f"read; {hint}")
        if not isinstance(value, Mapping) or len(value) != 1 or not set(value) <= {"shots", "explain"}:
            raise ConfigError(f"config key '{key}': {value!r} is not a STEER adaptation; write {_FORMS}")
        try:
            if "shots" in value:
                if isinstance(value["shots"], bool) or not isinstance(value["shots"], int):
                    raise ValueError(f"shots must be an integer, got {value['shots']!r}")
                return cls(shots=value["shots"])
            return cls(explain=str(value["explain"]))
        except ValueError as error:
            raise ConfigError(f"config key '{key}': {error}") from None


def _flow(entry: Mapping[str, Any]) -> str:
    (key, value), = entry.items()
    return f"{{{key}: {value}}}"


def names(adaptations: Any) -> tuple[str, ...]:
    """The names of ``adaptations``: Adaptation objects, their config or record form (``{shots: 3}``: a rule's
    ``adaptations`` param) or names already."""
    def one(a: Any) -> Adaptation:
        if isinstance(a, Adaptation):
            return a
        return Adaptation.from_setting(a, "adaptations") if isinstance(a, Mapping) else Adaptation.from_name(a)

    return tuple(one(a).name for a in adaptations)


def of_label(label: Any) -> Adaptation:
    """The adaptation a question frame's ``adaptation`` column names (:meth:`Adaptation.from_name`); the empty label
    (a summary made over no adaptation) is the unadapted 0-shot one. Any other text is refused, naming it."""
    text = "" if label is None else str(label).strip()
    return Adaptation() if not text else Adaptation.from_name(text)


UNADAPTED = Adaptation()  # 0-shot, no self-explanation: the paper's main condition
