"""The artifact table of a study: every table and figure it writes, the paper's table or figure it reproduces, the
function that builds it and its caption. The rules (which files a job writes), the manifest (``reproduces`` and
``caption`` travel in each file's provenance sidecar) and the report's captions are derived from it.

A study package defines ``ARTIFACTS`` (a tuple of :class:`Artifact`) in its ``artifacts`` module.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from choicelab.provenance import SIDECAR_SUFFIX

# File kinds: what one artifact writes, by suffix.
KIND_SUFFIXES = {
    "table": (".csv", ".md"),  # the data, and the same as Markdown
    "figure": (".png", ".svg"),
    "figure_png": (".png",),  # raster only (the STEER module figures)
    "report_card": (".png", ".html"),  # a card shown in the report, beside its HTML page (STEER's rubrics)
}


@dataclass(frozen=True)
class Artifact:
    """One table or figure of a study.

    ``name`` is the file stem (``table5``); ``reproduces`` names the paper's table or figure (``"Table 5"``) or says
    ``"extra: ..."`` for one the paper has not; ``builder`` builds it (its arguments are the study's); ``rule`` is the
    Snakemake rule whose job writes it (one job may write several artifacts); ``kind`` says which files it has.
    """

    name: str
    reproduces: str
    caption: str
    builder: Callable[..., Any] | None
    rule: str
    kind: str = "table"

    def __post_init__(self) -> None:
        if self.kind not in KIND_SUFFIXES:
            raise ValueError(f"artifact {self.name!r}: kind must be one of {sorted(KIND_SUFFIXES)}, not {self.kind!r}")

    @property
    def suffixes(self) -> tuple[str, ...]:
        return KIND_SUFFIXES[self.kind]

    def files(self, folder: str) -> list[str]:
        """The artifact's files under ``folder`` (without sidecars)."""
        return [f"{folder}/{self.name}{suffix}" for suffix in self.suffixes]

    def sidecars(self, folder: str) -> list[str]:
        """The provenance sidecar of each file (``<file>.prov.json``)."""
        return [f"{path}{SIDECAR_SUFFIX}" for path in self.files(folder)]


def by_name(artifacts: Iterable[Artifact]) -> dict[str, Artifact]:
    table: dict[str, Artifact] = {}
    for artifact in artifacts:
        if artifact.name in table:
            raise ValueError(f"two artifacts are named {artifact.name!r}")
        table[artifact.name] = artifact
    return table


def of_rule(artifacts: Iterable[Artifact], rule: str, names: Sequence[str] | None = None) -> list[Artifact]:
    """The artifacts a rule writes, in table order; ``names`` keeps only those (a config may leave some out)."""
    chosen = [a for a in artifacts if a.rule == rule]
    if names is not None:
        wanted = set(names)
        unknown = wanted - {a.name for a in chosen}
        if unknown:
            raise ValueError(f"rule {rule!r} writes no artifact named {sorted(unknown)}")
        chosen = [a for a in chosen if a.name in wanted]
    return chosen


def captions(artifacts: Iterable[Artifact]) -> dict[str, str]:
    """name -> 'reproduces: caption', for a report caption that lists what each labelled file is."""
    return {a.name: f"{a.reproduces}: {a.caption}" for a in artifacts}


def caption_naming(caption: str, models: Sequence[str], what: str = "models") -> str:
    """An artifact's caption with the models of the run named (``"...; encoders: tiny-bert."``)."""
    return f"{caption}; {what}: {', '.join(models)}." if models else f"{caption}."
