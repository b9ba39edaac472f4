"""A study's card entry: what it contributes to a model's choice-behaviour card, declared in its package as its
artifacts are (``choicelab.studies.<name>.card.CARD``, a :class:`CardEntry`), and the numbers a panel holds
(:class:`Headline`, :class:`Panel`).

``choicelab.cards`` renders what the registered studies' entries give and names no study; a study without a
``card`` module has no panel. This module is shared (it imports no study and no card code), so a study's entry
imports it without an arrow up a layer.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from choicelab.artifacts import Artifact
from choicelab.stats import t_interval

OK, SKIPPED, FAILED = "ok", "skipped", "failed"


@dataclass(frozen=True)
class Headline:
    """One number on the card: estimate, 95 % interval, n (with its unit), the table it comes from and the papers'
    models on the same scale (``paper``: (paper model, value) pairs, the papers' numbers, not ours)."""

    label: str
    estimate: float
    low: float
    high: float
    n: int
    unit: str
    source: str
    reference: float | None = None  # chance (or zero) the interval is read against
    paper: tuple[tuple[str, float], ...] = ()
    note: str = ""
    quantity: str = ""  # what the number measures where a panel mixes quantities ("kappa"): drawn on its own axis
    interval: str = ""  # how its 95 % interval is computed: "clustered by item pair", "t over seeds"

    def __post_init__(self) -> None:
        if not self.interval:
            raise ValueError(f"headline {self.label!r}: say how its 95 % interval is computed (interval=, e.g. "
                             "'clustered by item', 't over seeds'): the card's caption states it")

    @property
    def covers_reference(self) -> bool:
        """The interval covers the reference (chance, or zero for a shift): the number is not told from it."""
        return self.reference is not None and self.low <= self.reference <= self.high

    @property
    def below_reference(self) -> bool:
        """The whole interval lies below the reference: worse than chance (or than zero)."""
        return self.reference is not None and self.high < self.reference


@dataclass(frozen=True)
class Panel:
    study: str
    title: str
    status: str  # ok | skipped | failed
    reason: str = ""
    headlines: tuple[Headline, ...] = ()
    detail: pd.DataFrame | None = None  # the panel's table (probes: a grid; greyed cells in column ``grey``)
    flags: tuple[str, ...] = ()  # competence flags
    sources: tuple[str, ...] = ()  # tables (and their sidecars) the panel read
    extra: Mapping[str, Any] = field(default_factory=dict)
    axis: str = ""  # the figure's x-axis: the quantity, its unit and which way is better (the entry's)


VALUE_COLUMNS = ["item", "cluster", "value"]  # a model's values per item, with the unit each item is sampled in


def item_values(item: pd.Series, value: pd.Series, cluster: pd.Series | None = None) -> pd.DataFrame:
    """A model's values per item (:data:`VALUE_COLUMNS`): each item its own cluster unless ``cluster`` names the
    unit it was sampled in."""
    item = item.astype(str)
    return pd.DataFrame({"item": item, "cluster": item if cluster is None else cluster.astype(str),
                         "value": value.astype(float)})


@dataclass(frozen=True)
class PerItem:
    """Quantities a study's card compares between models item by item (the index's paired differences and ranks):
    whether higher is better, the unit its items are clustered in, the files of the card run it reads for a model
    (``files(root, model)``, for the index's provenance) and a reader of that model's values per item
    (``read(root, model)``: label -> a frame of :data:`VALUE_COLUMNS`; none where the run holds none)."""

    higher_is_better: bool
    cluster_unit: str
    files: Callable[[Path, str], list[Path]]
    read: Callable[[Path, str], Mapping[str, pd.DataFrame]]


@dataclass(frozen=True)
class CardEntry:
    """A study's card panel, declared.

    ``title`` heads the panel; ``axis`` labels its figure's axis (the drawn quantity, its unit, which way is
    better); ``tables`` are the artifacts (by name in the study's ARTIFACTS) the panel reads, the
    first one telling whether the card run built the study's tables, and the card run asks for their rules;
    ``panel(root, model, **options)`` builds the :class:`Panel` from the card run's results folder ``root``;
    ``options(cards_section)`` gives those options from the config's ``cards`` section; ``models`` maps each model
    kind the study applies to onto its config keys that list models of that kind; ``skips`` says, per kind it does
    not apply to, why; ``scale_keys`` are the config keys that size the study (shown on the card); ``needs`` names
    tables the card run asks for only where a config key lists a card model (table -> key); ``priority`` a rule the
    card run starts first (its longest job chain); ``benchmark_lists`` config keys listing other studies'
    benchmarks (the card run drops those it does not build); ``per_item`` the quantities the index compares item by
    item between models (:class:`PerItem`)."""

    title: str
    axis: str
    tables: tuple[str, ...]
    panel: Callable[..., Panel]
    models: Mapping[str, tuple[str, ...]]
    skips: Mapping[str, str] = field(default_factory=dict)
    scale_keys: tuple[str, ...] = ()
    options: Callable[[Mapping[str, Any]], Mapping[str, Any]] | None = None
    needs: Mapping[str, str] = field(default_factory=dict)
    priority: str = ""
    benchmark_lists: tuple[str, ...] = ()
    per_item: tuple[PerItem, ...] = ()


def table_path(root: str | Path, study: str, artifacts: Sequence[Artifact], name: str, suffix: str = ".csv") -> Path:
    """A study's artifact file in the run whose results folder is ``root``: in the folder its :class:`Artifact`
    places it (relative to the run's folder, ``root``'s parent)."""
    artifact = next((a for a in artifacts if a.name == name), None)
    if artifact is None:
        raise KeyError(f"{study}: no artifact named {name!r} in its ARTIFACTS")
    return Path(root).parent / artifact.folder(study) / f"{name}{suffix}"


def read_table(path: Path) -> pd.DataFrame:
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: the card run did not build it (see its log under "
                                f"results/cards/_run/results/logs/)")
    return pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)


def finite(x: Any) -> bool:
    try:
        return x is not None and math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def mean_headline(label: str, values: Sequence[float], unit: str, source: str, reference: float | None = None,
                  paper=(), note="") -> Headline:
    """The mean of a handful of values (elements, seeds, benchmarks) with its t interval, not 1.96 SE."""
    values = [float(v) for v in values if finite(v)]
    if not values:
        raise ValueError(f"{source}: no values for {label!r}")
    mean, low, high = t_interval(values)
    return Headline(label, mean, low, high, len(values), unit, source, reference, tuple(paper), note,
                    interval=f"t over {unit}")


def chance_flags(study: str, headlines: Sequence[Headline], reference: str = "chance ({:.2f})",
                 consequence: str = "") -> tuple[str, ...]:
    """A competence flag for every headline whose interval covers its reference (not told from guessing) or lies
    below it (worse than guessing); ``reference`` names the reference (formatted with its value)."""
    flags = []
    for h in headlines:
        if h.reference is None:
            continue
        where, name = f"{h.estimate:.2f} [{h.low:.2f}, {h.high:.2f}], n = {h.n} {h.unit}", reference.format(h.reference)
        if h.below_reference:
            flags.append(f"{study}: {h.label} {where} lies below {name}{consequence}")
        elif h.covers_reference:
            flags.append(f"{study}: {h.label} {where}: its interval covers {name}{consequence}")
    return tuple(flags)
