"""A free-generation coder that learned from the authors' hand codes: a cross-encoder fine-tuned as a multiple-choice
classifier with the project's own encoder fine-tuning (:func:`choicelab.mc.finetune.fine_tune_checkpoint`).

Each hand-coded generation the rules leave open (:func:`choicelab.studies.scoring_methods.coder.rule_code`: the
answer read as the authors read it, :func:`~choicelab.studies.scoring_methods.coder.extract_answer`; no answer, a
hedge, an echo of the story and coherence's yes/no are decided by rules) becomes one :class:`MCItem`: the prompt is
the answer, after the vignette's last ``context_words`` words (story and question; :func:`coder_prompt`; the
workflow's recipe reads the answer alone: docs/scoring_methods.md), the choices the item's option texts plus
:data:`ERROR_CHOICE`, the label the hand code. The encoder reads (prompt, choice) as a text pair and learns one logit
per choice. ``error`` is then not one more option: the coder codes ``error`` when the softmax probability of
:data:`ERROR_CHOICE` reaches a threshold calibrated on held-out items **of the training data**
(:func:`calibrate_error_threshold`), else the most probable option
(:func:`choicelab.studies.scoring_methods.coder.decide_option`).

The checkpoint is a model folder like every other fine-tuned one (``model.json`` with its training record, base
model hash and recipe; ``provenance.json`` when the workflow trains it) plus ``coder.json``: the calibrated
threshold, the answer reading, the maximum sequence length and the hashes of the hand codes it learned from.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from choicelab.io import canonical_json, sha256_bytes, sha256_file, write_json
from choicelab.lm.recipe import Recipe
from choicelab.mc.finetune import CheckpointOut, TrainingData, fine_tune_checkpoint
from choicelab.mc.items import MCItem
from choicelab.studies.scoring_methods import coder as fc
from choicelab.studies.scoring_methods.coder import HAND_CODED_DIR

ERROR_CHOICE = "None of these: the answer gives no interpretation of the story."
CODER_FILE = "coder.json"
BENCHMARK = "free_coding"
INPUT_FORMAT = "pair"
# (phenomenon, LLM_link item number) -> (option texts, their category names, story + question)
Options = Mapping[tuple[str, int], tuple[tuple[str, ...], tuple[str, ...], str]]


@dataclass(frozen=True)
class CoderRecipe:
    """How the coder is trained (``studies.scoring_methods.coder.train``; docs/scoring_methods.md): the fine-tuning
    hyper-parameters, the share of the training model's items held out for early stopping and for calibrating the
    ``error`` threshold, and the seed (data order, head, dev split). Defaults: schemas/config.schema.yaml."""

    learning_rate: float
    batch_size: int
    max_epochs: float
    frozen_layers: int  # the embeddings and the bottom layers kept fixed (their output computed once)
    dev_share: float
    seed: int
    max_length_cap: int  # the longest training pair sets max_length, up to this cap
    context_words: int  # the vignette's last words read before the answer (0: the answer alone; coder_prompt)
    option_answers: bool  # also train on each option's own text as an answer coded as that option (no hand codes)


def coder_prompt(context: str, answer: str, context_words: int) -> str:
    """The first text of each pair the encoder reads: the vignette's last ``context_words`` words (the question and
    what comes before it), then the answer; the answer alone for 0."""
    if context_words < 0:
        raise ValueError(f"context_words must be >= 0, not {context_words}")
    if context_words == 0:
        return answer.strip()
    return f"{' '.join(context.split()[-context_words:])}\nAnswer: {answer.strip()}"


def open_items(hand: pd.DataFrame, options: Options, context_words: int,
               sentences: int = fc.ANSWER_SENTENCES) -> list[MCItem]:
    """The hand-coded generations (:func:`choicelab.studies.scoring_methods.human.read_hand_coded`) that the rules
    leave open, as multiple-choice items labelled with their hand code (``error``: :data:`ERROR_CHOICE`, last).
    ``options``: :func:`choicelab.studies.scoring_methods.code_free.item_options`. A hand code that names no option
    of its item raises, naming file and row."""
    items = []
    for row in hand.itertuples(index=False):
        key = (str(row.phenomenon).strip(), int(row.item_id))
        if key not in options:
            raise ValueError(f"{row.file} data row {row.row}: no {key[0]} item {key[1]}")
        texts, categories, context = options[key]
        answer = fc.extract_answer(str(row.response), sentences)
        if fc.rule_code(answer, key[0], texts, categories, context) is not None:
            continue
        code = str(row.hand_code)
        if code != fc.ERROR and code not in categories:
            raise ValueError(f"{row.file} data row {row.row}: hand code {code!r} names no option of {key[0]} item "
                             f"{key[1]} ({list(categories)} or {fc.ERROR!r})")
        items.append(MCItem(BENCHMARK, str(row.model), f"{row.model}/{row.file}/{row.row}",
                            coder_prompt(context, answer, context_words), (*texts, ERROR_CHOICE),
                            len(texts) if code == fc.ERROR else categories.index(code),
                            {"phenomenon": key[0], "item": key[1], "categories": list(categories)}))
    return items


def option_answer_items(options: Options, context_words: int) -> list[MCItem]:
    """Each option's own text as an answer, labelled with that option, for every item outside coherence whose option
    texts the rules leave open: what an answer that says exactly what an option says is coded as. No hand codes."""
    items = []
    for (phenomenon, number), (texts, categories, context) in sorted(options.items()):
        for k, text in enumerate(texts):
            if fc.rule_code(text, phenomenon, texts, categories, context) is None:
                items.append(MCItem(BENCHMARK, "options", f"options/{phenomenon}/{number}/{k}",
                                    coder_prompt(context, text, context_words), (*texts, ERROR_CHOICE), k,
                                    {"phenomenon": phenomenon, "item": number, "categories": list(categories)}))
    return items


def split_by_item(items: Sequence[MCItem], dev_share: float, seed: int) -> tuple[list[MCItem], list[MCItem]]:
    """(train, dev): a seeded ``dev_share`` of the LLM_link items (phenomenon, item number) with all their answers in
    dev, so that dev answers are to stories the coder did not train on."""
    if not 0 < dev_share < 1:
        raise ValueError(f"dev_share must be between 0 and 1, not {dev_share}")
    keys = sorted({(it.meta["phenomenon"], it.meta["item"]) for it in items})
    if len(keys) < 2:
        raise ValueError(f"splitting needs answers to at least 2 items, got {len(keys)}")
    chosen = set(random.Random(seed).sample(keys, max(1, round(dev_share * len(keys)))))
    dev = [it for it in items if (it.meta["phenomenon"], it.meta["item"]) in chosen]
    return [it for it in items if (it.meta["phenomenon"], it.meta["item"]) not in chosen], dev


def pair_length(tokenizer: Any, items: Sequence[MCItem], cap: int) -> int:
    """The token length of the longest (prompt, choice) pair of ``items``, at most ``cap``: max_length from the data."""
    firsts = [it.prompt for it in items for _ in it.choices]
    seconds = [c for it in items for c in it.choices]
    longest = max(len(ids) for ids in tokenizer(firsts, seconds)["input_ids"])
    return min(longest, cap)


def softmax(logits: np.ndarray) -> np.ndarray:
    shifted = np.exp(logits - logits.max())
    return shifted / shifted.sum()


def calibrate_error_threshold(probabilities: Sequence[np.ndarray], labels: Sequence[int]) -> dict[str, Any]:
    """The probability of ``error`` (the last choice) from which to code ``error``: of the candidate thresholds
    (0.05 ... 0.95 by 0.05), the one whose decisions (:func:`choicelab.studies.scoring_methods.coder.decide_option`)
    agree most often with ``labels`` (the last index: ``error``); the middle one of a tie. Returns the threshold,
    its agreement, the agreement of plain argmax and n."""
    if not probabilities:
        raise ValueError("calibrating the error threshold needs held-out items")
    candidates = np.round(np.arange(0.05, 0.951, 0.05), 2)

    def agreement(threshold: float) -> float:
        hits = 0
        for p, label in zip(probabilities, labels, strict=True):
            best = fc.decide_option(p, threshold)
            hits += (len(p) - 1 if best is None else best) == label
        return hits / len(labels)

    scores = [agreement(t) for t in candidates]
    top = [float(t) for t, s in zip(candidates, scores, strict=True) if s == max(scores)]
    argmax = float(np.mean([int(np.argmax(p)) == label for p, label in zip(probabilities, labels, strict=True)]))
    return {"error_threshold": top[len(top) // 2], "dev_agreement": max(scores), "dev_argmax_agreement": argmax,
            "dev_items": len(labels), "candidates": [float(c) for c in candidates]}


def item_probabilities(model: Any, tokenizer: Any, items: Sequence[MCItem], max_length: int) -> list[np.ndarray]:
    from choicelab.lm.encoder import mc_logits

    logits = mc_logits(model, tokenizer, items, input_format=INPUT_FORMAT, max_length=max_length)
    return [softmax(np.asarray(row, dtype=float)) for row in logits]


def training_data_record(hand: pd.DataFrame, root: str | Path, items: Sequence[MCItem]) -> dict[str, Any]:
    """What the coder learned from: the hand-code files (sha256 each, under ``root``), the models, the items' hash."""
    folder = Path(root) / HAND_CODED_DIR
    files = sorted(set(hand["file"]))
    return {
        "hand_models": sorted(set(hand["model"])),
        "hand_code_files": {f: sha256_file(folder / f) for f in files},
        "items_sha256": sha256_bytes(canonical_json([[it.item_id, it.prompt, list(it.choices), it.label]
                                                     for it in items]).encode()),
        "generations": len(hand),
        "open_items": len(items),
    }


@dataclass(frozen=True)
class CoderData:
    """What a coder learns from: the hand-coded rows ``hand`` (any models'), read from the data root ``hand_root``,
    and the items' ``options`` (:func:`~choicelab.studies.scoring_methods.code_free.item_options`)."""

    hand: pd.DataFrame
    options: Options
    hand_root: str | Path


def train_coder(base_dir: str | Path, data: CoderData, out_dir: str | Path, recipe: CoderRecipe, *, name: str,
                device: str = "cpu", record: Mapping[str, Any] | None = None,
                log: Callable[[str], None] = print) -> dict[str, Any]:
    """Fine-tune the encoder in ``base_dir`` on the hand codes of ``data`` (:class:`CoderData`) into the
    checkpoint ``out_dir`` and calibrate its ``error`` threshold on the held-out items (:func:`split_by_item`);
    returns the ``coder.json`` record. ``record``: the training job's provenance record (saved in the folder)."""
    from choicelab.lm.loading import load_encoder_mc

    hand, options = data.hand, data.options
    items = open_items(hand, options, recipe.context_words)
    train, dev = split_by_item(items, recipe.dev_share, recipe.seed)
    if recipe.option_answers:
        train = train + option_answer_items(options, recipe.context_words)
    _, tokenizer, _ = load_encoder_mc(base_dir, seed=recipe.seed, device="cpu")
    max_length = pair_length(tokenizer, items, recipe.max_length_cap)
    log(f"coder: {len(train)} train and {len(dev)} dev answers of {sorted(set(hand['model']))}, max_length "
        f"{max_length}")
    params = Recipe(learning_rate=recipe.learning_rate, batch_size=recipe.batch_size,
                    max_epochs=recipe.max_epochs, seed=recipe.seed, input_format=INPUT_FORMAT,
                    max_length=max_length, frozen_layers=recipe.frozen_layers, patience=2)
    trained_on = training_data_record(hand, data.hand_root, items)
    fine_tune_checkpoint(base_dir, TrainingData(train, dev, notes={"coder": {"recipe": asdict(recipe), **trained_on}}),
                         params, CheckpointOut(out_dir, name, record), device=device)
    model, tokenizer, _ = load_encoder_mc(out_dir, seed=recipe.seed, device=device)
    calibration = calibrate_error_threshold(item_probabilities(model, tokenizer, dev, max_length),
                                            [it.label for it in dev])
    log(f"coder: error threshold {calibration['error_threshold']} (dev agreement {calibration['dev_agreement']:.3f}, "
        f"argmax {calibration['dev_argmax_agreement']:.3f})")
    meta = {"error_choice": ERROR_CHOICE, "input_format": INPUT_FORMAT, "max_length": max_length,
            "answer_sentences": fc.ANSWER_SENTENCES, "recipe": asdict(recipe), "training_data": trained_on,
            **calibration}

    write_json(Path(out_dir) / CODER_FILE, meta)
    return meta


def load_classifier(checkpoint_dir: str | Path, *, device: str = "cpu", seed: int = 0) -> fc.Classifier:
    """The trained coder in ``checkpoint_dir`` (:func:`train_coder`) as the coder's :class:`~choicelab.studies.
    scoring_methods.coder.Classifier`. Fails naming the folder when it holds no trained coder."""
    from choicelab.lm.loading import load_encoder_mc

    folder = Path(checkpoint_dir)
    if not (folder / CODER_FILE).exists():
        raise FileNotFoundError(f"{folder} holds no trained coder ({CODER_FILE} missing): train it with the "
                                "workflow (rule sm_train_coder: `snakemake --cores 2 "
                                "results/scoring_methods/coders/all`) or `train_coder`")
    meta = json.loads((folder / CODER_FILE).read_text())
    model, tokenizer, _ = load_encoder_mc(folder, seed=seed, device=device)

    def probabilities(contexts: Sequence[str], answers: Sequence[str],
                      options: Sequence[Sequence[str]]) -> list[np.ndarray]:
        items = [MCItem(BENCHMARK, "code", str(k), coder_prompt(c, a, meta["recipe"]["context_words"]),
                        (*o, meta["error_choice"]), 0)
                 for k, (c, a, o) in enumerate(zip(contexts, answers, options, strict=True))]
        return item_probabilities(model, tokenizer, items, meta["max_length"]) if items else []

    threshold = float(meta["error_threshold"])
    if not 0 < threshold < 1 or math.isnan(threshold):
        raise ValueError(f"{folder / CODER_FILE}: error_threshold {threshold} is not a probability")
    return fc.Classifier(probabilities, threshold)


def classifier_ceiling(coded: pd.DataFrame) -> pd.DataFrame:
    """The agreement (:func:`~choicelab.studies.scoring_methods.coder.agreement_table`, per phenomenon and overall)
    that coded generations (columns ``hand_code``, ``coded_option``, ``coding_rule``) would reach if every answer the
    classifier decides (``coding_rule`` ``classifier``) were coded as by hand and the rules' codes stayed: the most
    any classifier behind these rules can reach on them. A frame without ``coding_rule`` raises."""
    missing = {"hand_code", "coded_option", "coding_rule"} - set(coded.columns)
    if missing:
        raise ValueError(f"the classifier's ceiling needs the columns {sorted(missing)} of coded hand codes")
    decided = coded["coding_rule"].eq("classifier")
    return fc.agreement_table(coded.assign(coded_option=coded["coded_option"].where(~decided, coded["hand_code"])))


def needed_open_agreement(coded: pd.DataFrame, goal: float) -> float:
    """The least target-vs-not agreement with the hand codes, on the answers the classifier decides, at which the
    whole model's target-vs-not kappa reaches ``goal`` in expectation, the rules' codes kept and the classifier's
    misses spread over its answers in proportion to their hand codes (target or not); nan when even a perfect
    classifier falls short (:func:`classifier_ceiling`). Uses ``hand_code``, ``coded_option``, ``coding_rule``."""
    if not -1 <= goal <= 1:
        raise ValueError(f"a kappa goal lies in [-1, 1], not {goal}")
    decided = coded["coding_rule"].eq("classifier").to_numpy()
    hand = coded["hand_code"].eq("target").to_numpy()
    auto = coded["coded_option"].eq("target").to_numpy()
    # the 2x2 table (hand, coder) of the rule-coded rows; the decided rows perfect, then a share (1 - q) of them
    # flipped, target and non-target alike
    ruled = [[float(np.sum(~decided & (hand == h) & (auto == a))) for a in (False, True)] for h in (False, True)]
    open_counts = [float(np.sum(decided & (hand == h))) for h in (False, True)]
    n = float(len(coded))
    if n == 0 or not decided.any():
        raise ValueError("no answer is decided by the classifier")

    def kappa(q: float) -> float:
        table = [[ruled[h][a] + open_counts[h] * (q if a == h else 1 - q) for a in (0, 1)] for h in (0, 1)]
        observed = (table[0][0] + table[1][1]) / n
        chance = sum((table[h][0] + table[h][1]) * (table[0][h] + table[1][h]) for h in (0, 1)) / n**2
        return (observed - chance) / (1 - chance) if chance < 1 else math.nan

    if not kappa(1.0) >= goal:
        return math.nan
    low, high = 0.5, 1.0  # kappa rises with q above chance level: bisect
    for _ in range(50):
        middle = (low + high) / 2
        low, high = (low, middle) if kappa(middle) >= goal else (middle, high)
    return high


def agreement_intervals(coded: pd.DataFrame, *, rounds: int, seed: int, level: float = 0.95) -> dict[str, Any]:
    """Percentile bootstrap intervals (generations resampled with replacement, ``rounds`` times, seeded) of the overall
    target-vs-not kappa and the exact-option agreement and kappa of coded generations (``hand_code``,
    ``coded_option``): the uncertainty beside :func:`~choicelab.studies.scoring_methods.coder.agreement_table`'s
    point estimates. Generations of one item are not independent, so the intervals are, if anything, too narrow."""
    if rounds < 1 or not 0 < level < 1:
        raise ValueError(f"rounds must be >= 1 and level in (0, 1), not {rounds} and {level}")
    if coded.empty:
        raise ValueError("no coded generations to resample")
    hand, auto = coded["hand_code"].to_numpy(), coded["coded_option"].to_numpy()
    rng = np.random.default_rng(seed)
    draws: dict[str, list[float]] = {"target_kappa": [], "agreement": [], "kappa": []}
    for _ in range(rounds):
        pick = rng.integers(0, len(coded), len(coded))
        h, a = hand[pick], auto[pick]
        draws["target_kappa"].append(fc.cohen_kappa(a == "target", h == "target"))
        draws["agreement"].append(float(np.mean(a == h)))
        draws["kappa"].append(fc.cohen_kappa(a, h))
    tail = (1 - level) / 2 * 100
    return {"n": len(coded), "rounds": rounds, "level": level, **{
        k: tuple(float(x) for x in np.nanpercentile(v, [tail, 100 - tail])) for k, v in draws.items()}}


ALL_HAND_CODES = "all"


def hand_code_models(paths: Sequence[str]) -> list[str]:
    """The hand-coded models (the folders under ``results/free/`` of LLM_link) of the hand-code files ``paths``."""
    marker = HAND_CODED_DIR + "/"
    return sorted({str(p).split(marker, 1)[1].split("/", 1)[0] for p in paths if marker in str(p)})


def coder_folds(models: Sequence[str]) -> list[str]:
    """The trained coders the workflow needs: ``all`` (every model's hand codes: the coder of the free method and
    ``choicelab code-free``) and ``without_<model>`` per hand-coded model (its held-out agreement)."""
    return [ALL_HAND_CODES, *(f"without_{m}" for m in models)]


def fold_hand_codes(hand: pd.DataFrame, fold: str) -> pd.DataFrame:
    """The hand-coded rows a coder ``fold`` (:func:`coder_folds`) trains on; an unknown fold raises."""
    if fold == ALL_HAND_CODES:
        return hand
    held_out = fold.removeprefix("without_")
    if fold == held_out or held_out not in set(hand["model"]):
        raise ValueError(f"coder fold {fold!r}: expected {ALL_HAND_CODES!r} or without_<one of "
                         f"{sorted(set(hand['model']))}>")
    return hand[hand["model"] != held_out]
