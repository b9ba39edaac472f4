"""Tables 1-4, 7 and 8 of the bets paper: rendered from the item lists and templates alone (no model)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from choicelab.studies.bets import ground_truths as gt
from choicelab.studies.bets import items as items_mod


@dataclass(frozen=True)
class StaticSources:
    """What the static tables are built from: data/bets/items.yaml and data/bets/templates.yaml."""

    lists: items_mod.ItemLists
    templates: Mapping[str, Any]


def read_sources(item_lists: str, templates: str) -> StaticSources:
    return StaticSources(items_mod.load_item_lists(item_lists), items_mod.load_templates(templates))


def _example_pair(lists: items_mod.ItemLists) -> tuple[str, str]:
    high, low = lists.high["test"], lists.low["test"]
    return ("airplane" if "airplane" in high else high[0]), ("pen" if "pen" in low else low[0])


def table1(lists: items_mod.ItemLists, templates: Mapping[str, Any]) -> pd.DataFrame:
    """Table 1: one MCQA instance, its choices and the concatenated question-answer pairs the encoder scores."""
    high, low = _example_pair(lists)
    item = next(
        q
        for q in items_mod.value_questions("BE", "test", lists, templates)
        if q.meta["high"] == high and q.meta["low"] == low
    )
    return pd.DataFrame(
        {
            "Prompt": [item.prompt] * len(item.choices),
            "Choice": list(item.choices),
            "Question-Answer Pair": [f"{item.prompt} {c}" for c in item.choices],
        }
    )


def table2(lists: items_mod.ItemLists) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "Split": list(items_mod.SPLITS),
            "High-value items": [", ".join(lists.high[s]) for s in items_mod.SPLITS],
            "Low-value items": [", ".join(lists.low[s]) for s in items_mod.SPLITS],
            "Value questions per template": [len(lists.high[s]) * len(lists.low[s]) for s in items_mod.SPLITS],
            "Bet questions per modality": [4 * len(lists.high[s]) * len(lists.low[s]) for s in items_mod.SPLITS],
        }
    )


def _listing(prompt: str, choices: Sequence[str]) -> str:
    return " ".join([prompt] + [f"({gt.LETTERS[i]}) {c}" for i, c in enumerate(choices)])


def table3(lists: items_mod.ItemLists, templates: Mapping[str, Any]) -> pd.DataFrame:
    high, low = "car", "pen"
    if high not in lists.high["test"] or low not in lists.low["test"]:
        high, low = lists.high["test"][0], lists.low["test"][0]
    rows = []
    for template in templates["value"].values():
        texts = [c["text"] for c in template["choices"]]
        rows.append(
            {
                "Name": template["name"],
                "Template": _listing(
                    template["prompt"].format(h="[h]", l="[l]"), [t.format(h="[h]", l="[l]") for t in texts]
                ),
                "Example instantiation (value question)": _listing(
                    template["prompt"].format(h=high, l=low), [t.format(h=high, l=low) for t in texts]
                ),
            }
        )
    return pd.DataFrame(rows)


def table4(templates: Mapping[str, Any]) -> pd.DataFrame:
    rows = []
    for template in templates["bet"].values():
        a, b = template["outcomes"]
        prompt = template["prompt"].format(a=a, b=b, pay_a="win a [h]/[l]", pay_b="lose a [l]/[h]")
        rows.append({"Modality": template["name"], "Question template": _listing(prompt, template["choices"])})
    return pd.DataFrame(rows)


def expected_gain_table(templates: Mapping[str, Any], variant: str) -> pd.DataFrame:
    """Tables 7-8: expected gain of every admissible prediction of a Coin question, derived symbolically."""
    outcomes = gt.variant_outcomes(templates, variant)
    gains = gt.prediction_gains(outcomes)
    labels = gt.bet_label_sets(outcomes)
    names = {"a": "Head", "b": "Tail", "ab": "Head and Tail", "c": "Do Not Bet"}
    sign_words = {1: "> 0", 0: "= 0", -1: "< 0"}
    rows = []
    for key, name in names.items():
        form = gains[key]
        rows.append(
            {
                "Choice": name,
                "Expected gain": gt.format_form(form),
                "Sign on 0 < L < X < (H-L)/2": sign_words[gt.sign_on_region(form)],
                "Strict": key in labels["strict"],
                "Positive Gain": key in labels["positive_gain"],
                "Non-Negative Gain": key in labels["non_negative_gain"],
            }
        )
    return pd.DataFrame(rows)
