"""What a scoring job runs, for the study (every pragmatics condition) or the method x score grid (one benchmark of
any study): which items (a seeded subsample) and which methods in which versions (:class:`MethodPlan`), both read from
the study's :class:`~choicelab.studies.scoring_methods.settings.Settings`; and which benchmarks the grid covers."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from choicelab.config import chosen_benchmarks
from choicelab.stats import seeded_subsample
from choicelab.studies.scoring_methods.prompts import ScoringItem
from choicelab.studies.scoring_methods.scoring import MethodPlan
from choicelab.studies.scoring_methods.settings import Settings

# The grid always covers the study's own items, first.
OWN_BENCHMARK = "pragmatics"


def subsample_per_condition(items: Sequence[ScoringItem], size: int | None, seed: int) -> list[ScoringItem]:
    """Up to ``size`` items of each condition (seeded, :func:`choicelab.stats.seeded_subsample`), in the original
    order."""
    if size is None:
        return list(items)
    kept: set[str] = set()
    for condition in dict.fromkeys(it.condition for it in items):
        group = [it for it in items if it.condition == condition]
        kept |= {it.item_id for it in seeded_subsample(group, size, seed)}
    return [it for it in items if it.item_id in kept]


def select_items(items: Sequence[ScoringItem], settings: Settings, *, grid: bool, seed: int) -> list[ScoringItem]:
    """The items a job scores: ``grid_items`` of the benchmark (grid), else ``items_per_condition`` per condition."""
    if grid:
        return seeded_subsample(items, settings.grid_items, seed)
    return subsample_per_condition(items, settings.items_per_condition, seed)


def method_plan(settings: Settings, *, grid: bool) -> MethodPlan:
    """The methods and versions of a job: the grid's (``grid_*`` keys) or the study's. Label sets, temperatures,
    generation seeds and the generation length are shared."""
    return MethodPlan(
        methods=settings.grid_methods if grid else settings.methods,
        label_seeds=settings.grid_label_seeds if grid else settings.label_seeds,
        label_sets=settings.label_sets,
        scales=settings.grid_scales if grid else settings.scales,
        temperatures=settings.temperatures,
        generation_seeds=settings.generation_seeds,
        max_new_tokens=settings.max_new_tokens,
        seq2seq_scoring=settings.seq2seq_scoring,
    )


def grid_benchmarks(settings: Settings, commonsense: Iterable[str], built: Iterable[str]) -> list[str]:
    """The grid's benchmarks: ``grid_benchmarks``, or (null) every multiple-choice benchmark the workflow builds --
    the pragmatics items, the probes' commonsense benchmarks (``commonsense``), then every other study's
    (``built``, :func:`choicelab.studies.mc_benchmarks`). A name the workflow does not build fails with the key."""
    every = list(dict.fromkeys([OWN_BENCHMARK, *commonsense, *sorted(built)]))
    return chosen_benchmarks(every, settings.grid_benchmarks, "studies.scoring_methods.grid_benchmarks")


def item_files(benchmark: str, sources: Sequence[str], built: Mapping[str, str], probes_results: str) -> list[str]:
    """The files a grid job reads its items from: the pragmatics sources, another study's item file
    (:func:`choicelab.studies.mc_benchmarks`), else the probes' dev split of a commonsense benchmark."""
    if benchmark == OWN_BENCHMARK:
        return list(sources)
    if benchmark in built:
        return [built[benchmark]]
    return [f"{probes_results}/benchmarks/{benchmark}.dev.parquet"]
