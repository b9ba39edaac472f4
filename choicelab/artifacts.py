"""The artifact table of a study: every table and figure it writes, the paper's table or figure it reproduces, the
function that builds it and its caption. The rules (which files a job writes), the manifest (``reproduces`` and
``caption`` travel in each file's provenance sidecar) and the report's captions are derived from it.

A study package's ``artifacts`` module defines three names, the same in every study:

* ``ARTIFACTS``: a tuple of :class:`Artifact`;
* ``sources(smk, settings)``: what the running table or figure job's artifacts are built from (the job's inputs and
  params read once, with the study's typed settings);
* ``caption(artifact, sources, note)``: the caption a file's sidecar carries (naming the models of the run).

Every builder takes the sources and returns a table (DataFrame), a (table, Markdown) pair, a figure, a
:data:`Drawing` (a function that writes the artifact's files itself: STEER's PNG drawings and report cards) or a
:class:`Built` (one of those with a note for the caption). :func:`write_artifacts` -- the one writer -- places the
files (:meth:`Artifact.folder`, the one place output folders are decided), writes them, and writes each file's
provenance sidecar with its id, ``reproduces`` and caption.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from choicelab.io import write_csv, write_text
from choicelab.provenance import SIDECAR_SUFFIX, write_artifact

# File kinds: what one artifact writes, by suffix.
KIND_SUFFIXES = {
    "table": (".csv", ".md"),  # the data, and the same as Markdown
    "figure": (".png", ".svg"),
    "figure_png": (".png",),  # raster only (the STEER module figures)
    "report_card": (".png", ".html"),  # a card shown in the report, beside its HTML page (STEER's rubrics)
}

# Where an artifact's files go (``{study}`` filled in): the one place output folders are decided. An artifact's
# ``place`` defaults to its kind's (:data:`KIND_PLACES`).
PLACES = {
    "tables": "results/{study}/tables",
    "figures": "figures/{study}",
    "report_cards": "results/{study}/report_cards",
}
KIND_PLACES = {"table": "tables", "figure": "figures", "figure_png": "figures", "report_card": "report_cards"}


@dataclass(frozen=True)
class Artifact:
    """One table or figure of a study.

    ``name`` is the file stem (``table5``); ``reproduces`` names the paper's table or figure (``"Table 5"``) or says
    ``"extra: ..."`` for one the paper has not; ``builder`` builds it from the study's sources; ``rule`` is the
    Snakemake rule whose job writes it (one job may write several artifacts); ``kind`` says which files it has;
    ``place`` which folder of :data:`PLACES` they go to (by default its kind's: tables under results/, figures under
    figures/).
    """

    name: str
    reproduces: str
    caption: str
    builder: Callable[[Any], Any] | None
    rule: str
    kind: str = "table"
    place: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KIND_SUFFIXES:
            raise ValueError(f"artifact {self.name!r}: kind must be one of {sorted(KIND_SUFFIXES)}, not {self.kind!r}")
        if self.place and self.place not in PLACES:
            raise ValueError(f"artifact {self.name!r}: place must be one of {sorted(PLACES)}, not {self.place!r}")

    def folder(self, study: str) -> str:
        """The folder of the artifact's files: :data:`PLACES` of its place (its kind's by default)."""
        return PLACES[self.place or KIND_PLACES[self.kind]].format(study=study)

    def id(self, study: str) -> str:
        """The manifest id: ``<study>/<name>``, ``<study>/report_card_<name>`` for a report card."""
        return f"{study}/{'report_card_' if self.kind == 'report_card' else ''}{self.name}"

    def paths(self, study: str) -> list[str]:
        """The artifact's files in its folder (without sidecars)."""
        return self.files(self.folder(study))

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


def study_files(study: str, artifacts: Iterable[Artifact]) -> list[str]:
    """Every file of ``artifacts`` in its folder (targets of ``rule all``)."""
    return [path for artifact in artifacts for path in artifact.paths(study)]


# -- the one writer ------------------------------------------------------------------------------------------------

Drawing = Callable[[Sequence[str]], Any]  # writes an artifact's files (in suffix order) itself


@dataclass(frozen=True)
class Built:
    """What a builder returns when its caption needs a note: the table, figure or drawing, the table's Markdown
    (None: the default rendering) and a note appended to the artifact's caption (empty, or starting "; " / " (")."""

    value: Any
    markdown: str | None = None
    note: str = ""


def built(value: Any) -> Built:
    """Any builder's result as a :class:`Built`: a DataFrame, a (DataFrame, Markdown) pair, a figure, a drawing."""
    if isinstance(value, Built):
        return value
    if isinstance(value, tuple):
        frame, markdown = value
        return Built(frame, markdown)
    return Built(value)


def declared_files(artifact: Artifact, outputs: Iterable[str]) -> list[str] | None:
    """The artifact's files among a job's declared ``outputs`` (in suffix order); None when the job declares none of
    them (a config may leave an artifact out); raises when it declares some but not all."""
    by_file = {Path(path).name: str(path) for path in outputs}
    wanted = [f"{artifact.name}{suffix}" for suffix in artifact.suffixes]
    found = [by_file[name] for name in wanted if name in by_file]
    if not found:
        return None
    if len(found) < len(wanted):
        missing = [name for name in wanted if name not in by_file]
        raise ValueError(f"artifact {artifact.name!r}: the job declares no output {missing}")
    return found


def _write_files(artifact: Artifact, made: Built, files: Sequence[str]) -> None:
    value = made.value
    if artifact.kind == "table" and hasattr(value, "to_csv"):
        markdown = made.markdown if made.markdown is not None else value.to_markdown(index=False) + "\n"
        write_csv(files[0], value)
        write_text(files[1], markdown)
    elif callable(value) and not hasattr(value, "savefig"):
        value(files)
    elif artifact.kind in ("figure", "figure_png") and hasattr(value, "savefig"):
        # matplotlib only where a figure is saved: model jobs import this module (through the study registry) in an
        # environment without it (envs/models.yaml)
        from choicelab.plotting import save_figure, save_png

        if artifact.kind == "figure":
            save_figure(value, *files)
        else:
            save_png(value, files[0], dpi=150)
    else:
        raise TypeError(f"artifact {artifact.name!r} ({artifact.kind}): its builder returned a "
                        f"{type(value).__name__}, which the writer cannot write as a {artifact.kind}")


def write_artifacts(study: str, artifacts: Iterable[Artifact], sources: Any, outputs: Iterable[str], *,
                    rule: str, record: Mapping[str, Any],
                    caption: Callable[[Artifact, Any, str], str]) -> list[Artifact]:
    """The one writer: build every artifact of ``rule`` whose files the job declares in ``outputs`` from ``sources``,
    write its files and their provenance sidecars (id, ``reproduces``, ``caption(artifact, sources, note)``).
    Returns the artifacts written, in table order; raises when the job declares an output no artifact makes."""
    outputs = [str(path) for path in outputs]
    written: list[Artifact] = []
    claimed: set[str] = set()
    for artifact in of_rule(artifacts, rule):
        files = declared_files(artifact, outputs)
        if files is None:
            continue
        made = built(artifact.builder(sources))
        _write_files(artifact, made, files)
        write_artifact(files, artifact_id=artifact.id(study), reproduces=artifact.reproduces,
                       caption=caption(artifact, sources, made.note), record=record)
        written.append(artifact)
        claimed.update(files)
    unclaimed = [path for path in outputs if path not in claimed and not path.endswith(SIDECAR_SUFFIX)]
    if unclaimed:
        raise ValueError(f"rule {rule!r} declares outputs no {study} artifact makes: {unclaimed}")
    return written
