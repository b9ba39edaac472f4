"""Value and bet questions of "Can language representation models think in bets?" (Tang & Kejriwal).

Pure Python: the item lists (Table 2) and templates (Tables 3-4) are data in ``data/bets/``; this module instantiates
them, with every ground truth derived by :mod:`choicelab.studies.bets.ground_truths`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from choicelab.errors import UserError
from choicelab.mc.items import MCItem
from choicelab.studies.bets.ground_truths import (
    RELATIONS,
    bet_label_sets,
    opposite,
    value_label_sets,
    variant_outcomes,
)

STUDY = "bets"
SPLITS = ("train", "dev", "test")
VALUE_TEMPLATES = ("BE", "BV", "CE", "CV")
MODALITIES = ("coin", "dice", "card")
VARIANTS = ("v1", "v2", "v3", "v4")
DATA_DIR = Path(__file__).resolve().parents[3] / "data" / "bets"


class BetsDataError(UserError, ValueError):
    """The item lists or templates in data/bets/ are malformed."""


# -- data files --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ItemLists:
    high: Mapping[str, tuple[str, ...]]
    low: Mapping[str, tuple[str, ...]]


def load_item_lists(path: str | Path = DATA_DIR / "items.yaml") -> ItemLists:
    raw = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    high, low = {}, {}
    for split in SPLITS:
        entry = raw.get(split)
        if not isinstance(entry, dict) or not entry.get("high") or not entry.get("low"):
            raise BetsDataError(f"{path}: split {split!r} needs non-empty 'high' and 'low' item lists")
        high[split], low[split] = tuple(entry["high"]), tuple(entry["low"])
    seen: dict[str, str] = {}
    for split in SPLITS:
        for item in high[split] + low[split]:
            if item in seen:
                raise BetsDataError(
                    f"{path}: item {item!r} appears in {seen[item]} and {split}; splits must not share items"
                )
            seen[item] = split
    return ItemLists(high, low)


def load_templates(path: str | Path = DATA_DIR / "templates.yaml") -> dict[str, Any]:
    raw = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    for key in ("value", "bet", "variants"):
        if key not in raw:
            raise BetsDataError(f"{path}: missing section {key!r}")
    for name, template in raw["value"].items():
        relations = [c["relation"] for c in template["choices"]]
        if sorted(relations) != sorted(RELATIONS):
            raise BetsDataError(
                f"{path}: value template {name} must state each relation {RELATIONS} once, not {relations}"
            )
    return raw


# -- text --------------------------------------------------------------------------------------------------------------


def with_article(noun: str, agree: bool = True) -> str:
    """The noun after 'an' where it starts with a vowel letter and ``agree`` (the spec's decision: "an egg"), else
    after 'a' (the paper mixes)."""
    return f"{'an' if agree and noun[:1].lower() in 'aeiou' else 'a'} {noun}"


# -- question instantiation --------------------------------------------------------------------------------------------


def benchmark_name(kind: str, name: str) -> str:
    """'bets_value_cv', 'bets_bet_coin': benchmark ids of the question sets."""
    return f"bets_{kind}_{name.lower()}"


def value_questions(
    template_name: str,
    split: str,
    lists: ItemLists,
    templates: Mapping[str, Any],
    *,
    swap_order: bool = False,
) -> list[MCItem]:
    """The full h x l cross product of one value template in one split ([h] first; also [l] first if swap_order)."""
    template = templates["value"][template_name]
    items = []
    orders = [("hl", False)] + ([("lh", True)] if swap_order else [])
    for high in lists.high[split]:
        for low in lists.low[split]:
            for order, swapped in orders:
                first, second = (low, high) if swapped else (high, low)
                relations = [c["relation"] for c in template["choices"]]
                if swapped:  # the text names l where the template says {h}: each stated relation flips
                    relations = [opposite(r) for r in relations]
                choices = tuple(c["text"].format(h=first, l=second) for c in template["choices"])
                labels = value_label_sets(relations)
                items.append(
                    MCItem(
                        benchmark=benchmark_name("value", template_name),
                        split=split,
                        item_id=f"{template_name}-{split}-{high}-{low}" + ("-swapped" if swapped else ""),
                        prompt=template["prompt"].format(h=first, l=second),
                        choices=choices,
                        label=relations.index("h>l"),
                        meta={
                            "study": STUDY,
                            "kind": "value",
                            "template": template_name,
                            "high": high,
                            "low": low,
                            "order": order,
                            "variant": "swapped" if swapped else "",
                            "relations": relations,
                            "labels": labels,
                        },
                    )
                )
    return items


def bet_questions(
    modality: str,
    split: str,
    lists: ItemLists,
    templates: Mapping[str, Any],
    *,
    article_agreement: bool = True,
) -> list[MCItem]:
    """All h x l pairs x the four win/lose variants of one modality in one split, with every ground truth."""
    template = templates["bet"][modality]
    a_name, b_name = template["outcomes"]
    items = []
    for high in lists.high[split]:
        for low in lists.low[split]:
            for variant in VARIANTS:
                outcomes = variant_outcomes(templates, variant)
                named = {"h": high, "l": low}
                pays = [f"{o.action} {with_article(named[o.item_role], article_agreement)}" for o in outcomes]
                labels = bet_label_sets(outcomes)
                by_belief = {b: bet_label_sets(outcomes, b) for b in RELATIONS}
                items.append(
                    MCItem(
                        benchmark=benchmark_name("bet", modality),
                        split=split,
                        item_id=f"{modality}-{split}-{variant}-{high}-{low}",
                        prompt=template["prompt"].format(a=a_name, b=b_name, pay_a=pays[0], pay_b=pays[1]),
                        choices=tuple(template["choices"]),
                        label=labels["standard"],
                        meta={
                            "study": STUDY,
                            "kind": "bet",
                            "modality": modality,
                            "high": high,
                            "low": low,
                            "variant": variant,
                            "labels": labels,
                            "standard_by_belief": {b: v["standard"] for b, v in by_belief.items()},
                        },
                    )
                )
    return items


def question_set(
    name: str,
    split: str,
    *,
    article_agreement: bool = True,
    swap_order: bool = False,
    items_file: str | Path = DATA_DIR / "items.yaml",
    templates_file: str | Path = DATA_DIR / "templates.yaml",
) -> list[MCItem]:
    """One question set by name ("value_BE" ... "value_CV", "bet_coin", "bet_dice", "bet_card") and split.

    The keywords default to the paper's questions from the shipped data (the workflow passes the config's
    ``studies.bets.article_agreement`` and ``swap_order`` and its declared input files).
    """
    lists = load_item_lists(items_file)
    templates = load_templates(templates_file)
    kind, _, which = name.partition("_")
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; expected one of {SPLITS}")
    if kind == "value" and which in templates["value"]:
        return value_questions(which, split, lists, templates, swap_order=swap_order)
    if kind == "bet" and which in templates["bet"]:
        return bet_questions(which, split, lists, templates, article_agreement=article_agreement)
    known = [f"value_{t}" for t in templates["value"]] + [f"bet_{m}" for m in templates["bet"]]
    raise ValueError(f"unknown bets question set {name!r}; expected one of {known}")
