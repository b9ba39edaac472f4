"""The card run: the five studies at the card scale for the card models, in their own results folder.

A card is built from an ordinary run of the studies' rules, in ``results/cards/_run/`` with a config of its own: the
card-scale config (``cards.scale``, a complete config file whose question counts are small), with each study's
model lists replaced by the card models the study applies to and the card models' entries taken from the run's
config. Every card model shares that one folder, so a second card reuses the benchmarks, pools and fine-tuned
checkpoints the first one built (the studies' own rules decide what is stale, as in any run).
"""

from __future__ import annotations

import copy
import difflib
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from choicelab.artifacts import by_name
from choicelab.cards.panels import card_entries
from choicelab.studies import mc_benchmarks, study_artifacts

RUN_DIR = "results/cards/_run"

BROWSERS = ("chromium", "chromium-browser")  # Debian's and Ubuntu's names (.ci/run installs Debian's)


def find_browser() -> str | None:
    """Headless Chromium on PATH, which prints each card's PDF; None where there is none (the card says so)."""
    return next((found for name in BROWSERS if (found := shutil.which(name))), None)


@dataclass(frozen=True)
class CardPlan:
    """What the card run runs: the config it uses, the studies each card model gets, the targets it asks for and the
    rule whose jobs (and their inputs) it schedules first."""

    config: dict[str, Any]
    studies: dict[str, tuple[str, ...]]  # card model -> studies it gets
    skipped: dict[str, dict[str, str]]  # card model -> study -> why not
    targets: tuple[str, ...]
    priority: tuple[str, ...] = ()


def card_models(config: Mapping[str, Any]) -> list[str]:
    """The models to card: ``card_models`` (``--config card_models='[a, b]'``), else ``cards.models``."""
    chosen = config.get("card_models")
    models = list(chosen) if chosen is not None else list(config["cards"]["models"])
    unknown = [m for m in models if m not in config["models"]]
    if unknown:
        close = {m: difflib.get_close_matches(m, list(config["models"]), n=1, cutoff=0.6) for m in unknown}
        hints = "; ".join(f"{m!r}: did you mean {c[0]!r}?" for m, c in close.items() if c)
        raise ValueError(
            f"card_models: {unknown} are not model entries of the config{'; ' + hints if hints else ''}; add them "
            f"under 'models:' (configured: {sorted(config['models'])})"
        )
    if len(set(models)) != len(models):
        raise ValueError(f"card_models: a model is named twice in {models}")
    return models


def model_kind(config: Mapping[str, Any], model: str) -> str:
    kind = config["models"][model]["kind"]
    known = {k for entry in card_entries().values() for k in entry.models}
    if kind not in known:
        raise ValueError(f"model {model!r}: kind {kind!r} has no card (known kinds: {sorted(known)})")
    return kind


def _absolute(path: str | None, base: Path) -> str | None:
    if path is None:
        return None
    p = Path(path)
    return str(p if p.is_absolute() else (base / p).resolve())


def benchmark_lists() -> list[tuple[str, str]]:
    """(study, config key) of every list that may name another study's questions (scored as a multiple-choice
    benchmark): the card entries' ``benchmark_lists``."""
    return [(study, key) for study, entry in card_entries().items() for key in entry.benchmark_lists]


def _drop_unbuilt_benchmarks(config: dict[str, Any], scale: Mapping[str, Any]) -> None:
    """Remove from the benchmark lists (:func:`benchmark_lists`) the benchmarks of studies the card run disabled
    (a causal-only card builds no bets question sets): the scale names them, the card run cannot build them."""
    gone = set(mc_benchmarks(scale)) - set(mc_benchmarks(config))
    for study, key in benchmark_lists():
        section = config["studies"].get(study, {})
        if section.get(key) is not None:
            section[key] = [name for name in section[key] if name not in gone]


def plan_card_run(config: Mapping[str, Any], scale: Mapping[str, Any], models: Sequence[str],
                  workdir: str | Path = ".") -> CardPlan:
    """The card run for ``models`` (entries of ``config``) at the card scale ``scale`` (a complete config).

    Studies keep the scale's settings; their model lists become the card models of the kinds they apply to; a study
    no card model gets is disabled. ``data_mirror`` is the run's own (made absolute: the card run works in its own
    folder); the models are the scale's (helpers such as embedders and coders) plus the card models' entries.
    """
    if not models:
        raise ValueError("no card models: pass --config card_models='[name, ...]' or set cards.models")
    entries = card_entries()
    base = Path(workdir).resolve()
    out = copy.deepcopy(dict(scale))
    out["data_mirror"] = _absolute(config.get("data_mirror"), base)
    out["models"] = {**copy.deepcopy(dict(scale["models"])),
                     **{m: copy.deepcopy(dict(config["models"][m])) for m in models}}
    for entry in out["models"].values():
        if str(entry["source"]).startswith("path:"):
            entry["source"] = "path:" + str(_absolute(entry["source"][len("path:"):], base))
    out["card_models"] = None
    out.pop("cards", None)
    if "cards" in scale:
        out["cards"] = copy.deepcopy(dict(scale["cards"]))
    studies: dict[str, list[str]] = {m: [] for m in models}
    skipped: dict[str, dict[str, str]] = {m: {} for m in models}
    lists: dict[tuple[str, str], list[str]] = {}
    for model in models:
        kind = model_kind(config, model)
        for study, entry in entries.items():
            keys = entry.models.get(kind)
            if keys is None:
                if kind in entry.skips:
                    skipped[model][study] = entry.skips[kind]
                continue
            if study not in out["studies"]:
                skipped[model][study] = f"the card scale config ({study}) has no section for this study"
                continue
            studies[model].append(study)
            for key in keys:
                lists.setdefault((study, key), []).append(model)
    used = {study for study, _ in lists}
    for study, section in out["studies"].items():
        if study not in used:
            section["enabled"] = False
            continue
        section["enabled"] = True
        for keys in entries[study].models.values():
            for key in keys:
                # A kind no card model has gets no model: a causal-only card fine-tunes no encoder for probes.
                section[key] = lists.get((study, key), [])
    _drop_unbuilt_benchmarks(out, scale)
    targets = tuple(dict.fromkeys(by_name(study_artifacts(s))[name].rule for s in sorted(used)
                                  for name in entries[s].tables
                                  if name not in entries[s].needs or lists.get((s, entries[s].needs[name]))))
    priority = tuple(entries[s].priority for s in sorted(used) if entries[s].priority)
    return CardPlan(out, {m: tuple(s) for m, s in studies.items()}, skipped, targets, priority)
