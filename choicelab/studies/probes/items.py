"""The probes study's items: the commonsense benchmarks' train and evaluation splits, the originals and every
probe of a benchmark's evaluation items (:mod:`.perturbations`), and the subsets the causal LMs, the controls and
the timing table score."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from choicelab.mc import commonsense as cs
from choicelab.mc.items import MCItem
from choicelab.stats import seeded_subsample
from choicelab.studies.probes.perturbations import choice_paralysis, no_question, no_right_answer, wrong_question


def benchmark_splits(
    benchmark: str,
    *,
    root: str,
    full_root: str,
    train_data: str,
    train_size: int | None,
    dev_size: int | None,
    dev_train_fraction: float,
    heldout_fraction: float,
    seed: int,
) -> tuple[list[MCItem], list[MCItem]]:
    """Train items (each with meta ``role``: ``fit`` or ``heldout``, the slice that selects the best epoch, and
    ``train_source``) and the evaluation (dev) items of one commonsense benchmark.

    ``train_data: mirror`` reads the mirror's train subsets (HellaSwag has none: a seeded ``dev_train_fraction`` of
    dev is fine-tuned on and the rest evaluated); ``full`` reads the official full train releases from
    ``full_root`` (downloaded with checksums), and every benchmark is evaluated on its whole dev set (or
    ``dev_size``). ``train_size`` subsamples train before the held-out slice (the last ``heldout_fraction``) is cut.
    """
    dev = cs.load_benchmark(benchmark, "dev", root)
    if train_data == "full":
        train = cs.load_benchmark(benchmark, "train", full_root, release="full")
        source = f"official full train release ({len(train)} rows)"
    elif cs.has_split(benchmark, "train"):
        train = cs.load_benchmark(benchmark, "train", root)
        source = f"data mirror's train subset ({len(train)} rows; not the full release)"
    else:
        train, dev = cs.train_dev_split(dev, dev_train_fraction, seed)
        source = f"seeded {dev_train_fraction:.0%} split of dev (no train file in the mirror)"
    train = seeded_subsample(train, train_size, seed)
    fit, heldout = cs.heldout_split(train, heldout_fraction)
    grouped = any("group" in it.meta for it in train)
    selection = (f"best epoch by accuracy on a held-out {heldout_fraction:.0%} of train ({len(heldout)} items, "
                 "the last rows, as isi-nlp/ai2's internal-dev" + ("; whole stories, none shared with the fitted rows"
                                                                   if grouped else "")
                 + "); never the evaluation set")
    train = [MCItem(**{**it.__dict__, "meta": {**it.meta, "train_source": source, "role": role,
                                                "selection": selection}})
             for role, part in (("fit", fit), ("heldout", heldout)) for it in part]
    dev = seeded_subsample(dev, dev_size, seed + 1)
    print(f"{benchmark}: {len(fit)} fit + {len(heldout)} held-out train items ({source}), {len(dev)} dev items")
    return train, dev


def gate_items(benchmark: str, *, root: str, train_data: str, size: int | None, dev_train_fraction: float,
               seed: int) -> list[MCItem]:
    """The competence gate's evaluation originals: a seeded subset of ``size`` of the evaluation pool that
    :func:`benchmark_splits` draws its dev items from (HellaSwag from the mirror: the half of dev not fine-tuned on),
    so never a train item; scored by the fine-tuning job before and after training (no probes: cheap, so the gate
    can afford more items than the probes)."""
    dev = cs.load_benchmark(benchmark, "dev", root)
    if train_data != "full" and not cs.has_split(benchmark, "train"):
        _, dev = cs.train_dev_split(dev, dev_train_fraction, seed)
    return seeded_subsample(dev, size, seed + 2)


def train_roles(items: Sequence[MCItem]) -> tuple[list[MCItem], list[MCItem]]:
    """(fit items, held-out items) of a train file written by :func:`benchmark_splits`."""
    fit = [it for it in items if it.meta.get("role", "fit") == "fit"]
    heldout = [it for it in items if it.meta.get("role") == "heldout"]
    if not heldout:
        raise ValueError("the train file has no held-out items for model selection; rebuild it with probes_benchmark")
    return fit, heldout


def original_instances(items: Sequence[MCItem]) -> list[MCItem]:
    return [
        MCItem(it.benchmark, it.split, f"{it.item_id}/orig", it.prompt, it.choices, it.label,
               {"probe": "orig", "variant": "orig", "original_id": it.item_id, "trial": 0, "donors": [],
                "pseudo_correct": it.label})
        for it in items
    ]


def probe_all(
    items: Sequence[MCItem],
    *,
    trials: int,
    cp_n: Sequence[int],
    cp_instances: int,
    cp_sampling: Sequence[str],
    seed: int,
    answer_embeddings: np.ndarray | None = None,
    prompt_embeddings: np.ndarray | None = None,
) -> list[MCItem]:
    """The originals and every probe of one benchmark's evaluation items."""
    out = original_instances(items) + no_question(items) + wrong_question(items, trials, seed)
    out += no_right_answer(items, trials, seed)
    distinct_answers = len({it.choices[it.label] for it in items})
    for sampling in cp_sampling:
        for n in cp_n:
            if n > distinct_answers:  # e.g. the bets questions share three fixed answers: no donors exist
                print(f"choice paralysis n={n} skipped: the benchmark has only {distinct_answers} distinct answers")
            elif n <= len(items):
                out += choice_paralysis(items, n, trials, cp_instances, seed, sampling, answer_embeddings,
                                        prompt_embeddings)
    return out


def probe_benchmark(
    items: Sequence[MCItem],
    embedder: str,
    *,
    trials: int,
    cp_n: Sequence[int],
    cp_instances: int,
    cp_sampling: Sequence[str],
    seed: int,
    device: str,
) -> tuple[list[MCItem], bool]:
    """:func:`probe_all` of one benchmark's evaluation items; heuristic Choice Paralysis ranks donors by the
    mean-pooled embeddings of the ``embedder`` model (loaded only then). Returns the probed items and whether the
    embedder was used."""
    answer_embeddings = prompt_embeddings = None
    if any(sampling != "random" for sampling in cp_sampling):
        from choicelab.lm.embed import embed_texts
        from choicelab.lm.loading import load_encoder_mc

        model, tokenizer, _ = load_encoder_mc(embedder, seed=seed, device=device)
        answer_embeddings = embed_texts(model, tokenizer, [it.choices[it.label] for it in items], kind="encoder")
        prompt_embeddings = embed_texts(model, tokenizer, [it.prompt for it in items], kind="encoder")
    probed = probe_all(items, trials=trials, cp_n=list(cp_n), cp_instances=cp_instances, cp_sampling=list(cp_sampling),
                       seed=seed, answer_embeddings=answer_embeddings, prompt_embeddings=prompt_embeddings)
    return probed, answer_embeddings is not None


def causal_subset(probed: Sequence[MCItem], n_originals: int | None, seed: int) -> list[MCItem]:
    """Every probed instance of a seeded subset of ``n_originals`` original items (bounds causal-LM scoring cost)."""
    keep = set(seeded_subsample(sorted({it.meta["original_id"] for it in probed}), n_originals, seed))
    return [it for it in probed if it.meta["original_id"] in keep]


def choice_paralysis_groups(probed: Sequence[MCItem], sampling: str = "random") -> dict[int, list[MCItem]]:
    """Choice Paralysis instances of one sampling, first trial only, by n (what the timing table scores)."""
    groups: dict[int, list[MCItem]] = {}
    for item in probed:
        meta = item.meta
        if meta.get("probe") == "cp" and meta.get("sampling") == sampling and meta.get("trial", 0) == 0:
            groups.setdefault(int(meta["n"]), []).append(item)
    return dict(sorted(groups.items()))
