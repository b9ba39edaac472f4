"""Choice-behaviour cards (issue 31): one page per model from the five studies' tables.

The fast tests build cards from small tables written with the columns the studies' artifacts have (the contract the
card reads by artifact name and column); the slow test runs `snakemake cards` for two tiny random models of the
smoke config and renders both pages in headless Chromium.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from choicelab.cards.build import failures, write_card, write_index
from choicelab.cards.overlay import card_models, plan_card_run
from choicelab.cards.panels import FAILED, OK, SKIPPED, build_panels, card_entries
from choicelab.cards.render import card_html, summary
from choicelab.studies import STUDIES

REPO = Path(__file__).resolve().parents[1]
CAUSAL, ENCODER = "tiny-llama", "tiny-bert"
CAUSAL_STUDIES = ("revealed_belief", "steer", "probes", "scoring_methods")  # the registry's order
# The slow test's card scale: the smoke config cut to the least that gives every panel its n and interval.
CARD_TEST_SCALE = REPO / "tests" / "data" / "card_scale.yaml"


def _csv(root: Path, study: str, name: str, frame: pd.DataFrame) -> None:
    path = root / study / "tables" / f"{name}.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(path, index=False)
    path.with_name(path.name + ".prov.json").write_text("{}")


def _parquet(root: Path, study: str, name: str, frame: pd.DataFrame) -> None:
    path = root / study / "metrics" / f"{name}.parquet"
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_parquet(path)


# Known counts the fixture tables are written from (the card must count each item once, in its sampled unit).
STEER_TEMPLATES = {"1.1": 4, "2.2": 3, "2.5": 5}  # module -> templates, each asked QUESTIONS_PER_TEMPLATE times
QUESTIONS_PER_TEMPLATE = 6
SM_ITEMS = 14  # pragmatics items, in two conditions; string is scored five ways, label over two label sets
STRING_SCORES = ("option_logprob", "mean_token_prob", "mean_token_logprob", "prior_corrected", "surprisal_reduction")
PROBE_ORIGINALS = 40
RB_SCENARIOS = 3  # the revealed-belief settings' scenarios (dice variants)


def steer_questions() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = [{"model": CAUSAL, "adaptation": "0shot", "element": f"e{module}", "module": module, "setting": "s",
             "domain": "d", "grade": 1, "template_id": f"e{module}.p{t}", "item_id": f"e{module}.p{t}.q{q}",
             "correct": bool(rng.random() < 0.6), "top_prob": 0.5, "random_accuracy": 0.25}
            for module, templates in STEER_TEMPLATES.items() for t in range(templates)
            for q in range(QUESTIONS_PER_TEMPLATE)]
    return pd.DataFrame(rows)


def sm_choices() -> pd.DataFrame:
    """Choice rows of the scoring-methods study: item i is right under string scoring for i < 9, under label
    scoring for i < 3 (below chance .25 would need fewer), in both label sets alike."""
    rows = []
    for i in range(SM_ITEMS):
        base = {"benchmark": "pragmatics", "condition": ("coherence", "humour")[i % 2], "model": CAUSAL,
                "item_id": f"item{i}", "n_options": 4}
        rows += [{**base, "method": "string", "score": score, "variant": "", "label_set": None,
                  "is_target": i < 9} for score in STRING_SCORES]
        rows += [{**base, "method": "label", "score": "label_logprob", "variant": label_set, "label_set": label_set,
                  "is_target": i < 3} for label_set in ("alpha", "numeric")]
    return pd.DataFrame(rows)


def sm_table_numbers() -> pd.DataFrame:
    """table_numbers rows: the study's overall rows (tables.overall_table), the per-label-set rows that repeat the
    same items (with other numbers, so a card that sums them is caught), the humans' rows and a Fig. 3 row."""
    from choicelab.studies.scoring_methods.tables import overall_table

    overall = overall_table(sm_choices()).assign(figure="overall", condition="", score="")
    overall["label_set"] = np.where(overall["method"] == "label", "pooled", "")
    per_set = overall[overall["method"] == "label"].assign(label_set="alpha", k=1, n=999, accuracy=0.99)
    fig2 = pd.DataFrame({"figure": "fig2", "condition": ["coherence", "humour", "coherence", "humour"],
                         "model": [CAUSAL, CAUSAL, "human", "human"], "method": ["string", "string", "human", "human"],
                         "label_set": "", "n": [35, 35, 1000, 600], "k": [25, 20, 850, 300],
                         "accuracy": [25 / 35, 20 / 35, 0.85, 0.5], "clustered_low": [0.5, 0.3, 0.8, 0.4],
                         "clustered_high": [0.9, 0.8, 0.9, 0.6], "n_clusters": [7, 7, 20, 12],
                         "chance": 0.25, "n_counts": ["item versions"] * 2 + ["responses"] * 2})
    fig3 = pd.DataFrame({"figure": "fig3", "condition": "", "model": CAUSAL, "method": ["string", "label", "label"],
                         "score": ["option_logprob", "label_logprob", "label_logprob"],
                         "label_set": ["", "pooled", "alpha"], "loglik": [-120.0, -130.0, -131.0],
                         "n_conditions": 2})
    return pd.concat([overall, per_set, fig2, fig3], ignore_index=True)


def probe_rows() -> pd.DataFrame:
    rows = []
    for model, method in ((CAUSAL, "letter_prob"), (f"{ENCODER} seed 1234", "mc_logit")):
        for bench in ("anli", "piqa"):
            # the causal model's original accuracy covers chance on piqa and lies below it on anli
            original = ({"anli": -0.2, "piqa": 0.0} if model == CAUSAL else {"anli": 0.3, "piqa": 0.3})[bench]
            for probe, shift in (("original (accuracy)", original), ("No-Question", 0.2), ("No-Right-Answer", 0.0),
                                 ("Wrong-Question", 0.15), ("cp n=5 random", -0.1)):
                rows.append({"benchmark": bench, "model": model, "method": method, "probe": probe,
                             "instances": PROBE_ORIGINALS, "chance": 0.5, "minus_chance": shift,
                             "ci95_low": shift - 0.1, "ci95_high": shift + 0.1, "clustered_low": shift - 0.12,
                             "clustered_high": shift + 0.12, "n_clusters": PROBE_ORIGINALS,
                             "covers_zero": shift == 0.0,
                             "model_competence": "" if model == CAUSAL else
                             "model not above chance: probe statistics not interpretable"})
    return pd.DataFrame(rows)


BETS_SEEDS = 2


def write_tables(root: Path) -> Path:
    """A card run's tables for one causal and one encoder model, with the studies' column names; ``root`` is the
    run's results folder (tables go where the studies' ARTIFACTS place them, relative to its parent)."""
    rng = np.random.default_rng(0)
    _parquet(root, "steer", "questions", steer_questions())
    _csv(root, "steer", "compare_paper", pd.DataFrame({
        "comparison": ["Table 3: whole benchmark, no adaptation"] * 2
        + ["Cognitive Bias SRC: deterministic environments (module 2.2)"] * 2,
        "paper_model": ["GPT-4 Turbo", "Llama 13b", "GPT-4 Turbo", "GPT-3.5 Turbo"],
        "paper_normalized_accuracy": [0.33, -0.27, 0.575, 0.307],
        "our_model": [None, None, CAUSAL, CAUSAL], "our_normalized_accuracy": [None, None, 0.2, 0.2],
        "our_low": [None, None, -0.05, -0.05], "our_high": [None, None, 0.45, 0.45],
        "our_n_elements": [None, None, 3, 3],
        "our_n_questions": [None, None, 30, 30]}))
    settings = [f"dice-{i}" for i in range(10)]
    _parquet(root, "revealed_belief", "distances", pd.DataFrame({
        "model": CAUSAL, "setting_id": settings * 2, "method": ["revealed"] * 10 + ["stated"] * 10,
        "family": "dice", "variant": [f"v{i % RB_SCENARIOS}" for i in range(10)] * 2,
        "chebyshev": np.r_[rng.uniform(0.05, 0.2, 10), rng.uniform(0.5, 0.9, 10)]}))
    _csv(root, "revealed_belief", "compare_paper", pd.DataFrame({
        "table": ["table_b1_1"] * 3, "row": ["a", "b", "c"], "paper_model": "Llama-3-70B",
        "paper_llama3_70b": [0.11, 0.1, 0.25],
        CAUSAL: [0.06, 0.12, 0.07]}))
    _csv(root, "probes", "robustness_matrix", probe_rows())
    _csv(root, "probes", "compare_paper", pd.DataFrame({
        "table": "Table 1", "benchmark": ["PIQA", "aNLI"], "quantity": "WQ pseudo-accuracy", "paper": [0.72, 0.59],
        "model": "x", "ours": 0.5, "instances": 40, "model_competence": ""}))
    _csv(root, "scoring_methods", "table_numbers", sm_table_numbers())
    _csv(root, "scoring_methods", "free_accuracy", pd.DataFrame({
        "model": CAUSAL, "condition": ["coherence", "humour"], "coder_target_kappa": [0.4, 0.5],
        "agreement_n": [180, 120]}))
    _csv(root, "bets", "table5", pd.DataFrame({
        "model": f"{ENCODER} mean of {BETS_SEEDS} seeds", "stage": ["default", "fine-tuned"], "condition": "BE",
        "split": "test", "ground_truth": "standard", "accuracy_percent": [40.0, 90.0], "hits": [40, 90],
        "n": 100, "p0": 1 / 3, "ci95_low_percent": np.nan, "ci95_high_percent": np.nan,
        "clustered_low_percent": np.nan, "clustered_high_percent": np.nan, "n_clusters": np.nan,
        "seeds": BETS_SEEDS, "ci95_low_seeds": [0.2, 0.85], "ci95_high_seeds": [0.6, 0.95]}))
    _csv(root, "bets", "compare_paper", pd.DataFrame({
        "table": "table5", "stage": ["default", "fine-tuned"], "condition": "BE", "paper_model": "BERT",
        "paper_percent": [68, 96]}))
    return root


SKIPS = {CAUSAL: {"bets": "bets fine-tunes an encoder"},
         ENCODER: {"steer": "causal only", "revealed_belief": "causal only", "scoring_methods": "causal only"}}
KWARGS = {"scoring_methods": {"coder_min_kappa": 0.6}}


def panels_of(root: Path, model: str, fails=None):
    studies = CAUSAL_STUDIES if model == CAUSAL else ("bets", "probes")
    return build_panels(root, model, studies, SKIPS[model], fails or {}, KWARGS)


@pytest.mark.parametrize("model", [CAUSAL, ENCODER])
def test_every_panel_that_applies_is_built_with_n_and_an_interval(tmp_path, model):
    panels = panels_of(write_tables(tmp_path / "results"), model)
    assert [p.study for p in panels] == [s for s in STUDIES if s in card_entries()]  # the registry's order
    built = [p for p in panels if p.status == OK]
    assert {p.study for p in built} == (set(CAUSAL_STUDIES) if model == CAUSAL else {"probes", "bets"})
    for panel in built:
        assert panel.headlines and panel.sources, panel.study
        for h in panel.headlines:
            assert h.n > 0 and h.low <= h.estimate <= h.high, (panel.study, h)


def test_an_encoder_card_says_which_studies_it_skips_and_why(tmp_path):
    panels = {p.study: p for p in panels_of(write_tables(tmp_path / "results"), ENCODER)}
    for study in ("steer", "revealed_belief", "scoring_methods"):
        assert panels[study].status == SKIPPED and panels[study].reason
    page = card_html(ENCODER, "encoder", list(panels.values()), "test scale", "x.prov.json", tmp_path)
    assert page.count("Skipped for an encoder model") == 3


def test_headline_numbers_show_where_the_papers_models_fall_labelled_as_theirs(tmp_path):
    panels = {p.study: p for p in panels_of(write_tables(tmp_path / "results"), CAUSAL)}
    steer = panels["steer"].headlines[0]
    assert dict(steer.paper) == {"GPT-4 Turbo": 0.33, "Llama 13b": -0.27}
    # the paper's WQ pseudo-accuracy is put on the card's scale (minus chance) before it is shown
    wq = next(h for h in panels["probes"].headlines if h.label.startswith("Wrong-Question"))
    assert dict(wq.paper)["RoBERTa, PIQA"] == pytest.approx(0.72 - 0.5)
    page = card_html(CAUSAL, "causal", list(panels.values()), "test scale", "x.prov.json", tmp_path)
    assert "the papers' models (their numbers)" in page


def test_a_probe_run_on_one_benchmark_gives_that_benchmarks_interval_clustered_by_original(tmp_path):
    root = write_tables(tmp_path / "results")
    path = root / "probes" / "tables" / "robustness_matrix.csv"
    frame = pd.read_csv(path)
    frame[frame["benchmark"] == "anli"].to_csv(path, index=False)
    probes = next(p for p in panels_of(root, CAUSAL) if p.study == "probes")
    nq = probes.headlines[0]
    row = frame[(frame["benchmark"] == "anli") & (frame["model"] == CAUSAL) & (frame["probe"] == "No-Question")]
    assert (nq.estimate, nq.low, nq.high, nq.n, nq.unit) == (
        row["minus_chance"].item(), row["clustered_low"].item(), row["clustered_high"].item(),
        row["n_clusters"].item(), "original items")


def test_probe_cells_whose_clustered_interval_covers_zero_are_greyed(tmp_path):
    probes = next(p for p in panels_of(write_tables(tmp_path / "results"), CAUSAL) if p.study == "probes")
    rows = probe_rows()
    rows = rows[rows["model"] == CAUSAL]
    covering = rows[(rows["clustered_low"] <= 0) & (rows["clustered_high"] >= 0)]
    grey = probes.detail[probes.detail["grey"]]
    assert sorted(zip(grey["benchmark"], grey["minus_chance"], strict=True)) == sorted(
        zip(covering["benchmark"], covering["minus_chance"], strict=True))
    page = card_html(CAUSAL, "causal", [probes], "s", "x.prov.json", tmp_path)
    assert page.count("<tr class=\"grey\">") >= len(grey)


def test_competence_flags_every_panel_whose_accuracy_covers_or_lies_below_chance(tmp_path):
    panels = {p.study: p for p in panels_of(write_tables(tmp_path / "results"), CAUSAL)}
    probes = panels["probes"].flags
    # the causal model's original accuracy: below chance on aNLI, covering it on PIQA (its gate column is empty)
    assert any("original accuracy minus chance, anli" in f and "lies below chance" in f for f in probes)
    assert any("original accuracy minus chance, piqa" in f and "covers chance" in f for f in probes)
    sm = panels["scoring_methods"].flags
    assert any(f.startswith("scoring methods: label") and "covers chance (0.25)" in f for f in sm)  # 3 of 14
    assert not any(f.startswith("scoring methods: string") for f in sm)  # 9 of 14, above
    assert any("below its bar 0.60" in f for f in sm)
    encoder = {p.study: p for p in panels_of(tmp_path / "results", ENCODER)}
    assert any("not above chance" in f for f in encoder["probes"].flags)
    assert any("default, BE" in f and "covers chance (0.33)" in f for f in encoder["bets"].flags)
    assert not any("fine-tuned, BE" in f for f in encoder["bets"].flags)


def test_a_steer_accuracy_below_random_is_flagged_below(tmp_path):
    root = write_tables(tmp_path / "results")
    questions = steer_questions().assign(correct=False)
    _parquet(root, "steer", "questions", questions)
    steer = next(p for p in panels_of(root, CAUSAL) if p.study == "steer")
    assert len(steer.flags) == 1 and "lies below 0 (random guessing)" in steer.flags[0]


def test_a_one_seed_encoder_card_reads_its_seeds_bets_rows_with_the_item_pair_interval(tmp_path):
    root = write_tables(tmp_path / "results")
    path = root / "bets" / "tables" / "table5.csv"
    frame = pd.read_csv(path)
    # one seed configured: table5 has no mean row, and the checkpoint's row has its interval clustered by item pair
    frame = frame.assign(model=f"{ENCODER}__seed1234", seeds=1, ci95_low_seeds=np.nan, ci95_high_seeds=np.nan,
                         clustered_low_percent=[25.0, 80.0], clustered_high_percent=[55.0, 97.0], n_clusters=25)
    frame.to_csv(path, index=False)
    bets = next(p for p in panels_of(root, ENCODER) if p.study == "bets")
    first = bets.headlines[0]
    assert bets.status == OK
    assert (first.estimate, first.low, first.high, first.n, first.unit) == (0.4, 0.25, 0.55, 25, "item pairs")


def test_a_missing_table_fails_its_panel_and_the_others_still_build(tmp_path):
    root = write_tables(tmp_path / "results")
    (root / "probes" / "tables" / "robustness_matrix.csv").unlink()
    panels = {p.study: p for p in panels_of(root, CAUSAL)}
    assert panels["probes"].status == FAILED and "robustness_matrix.csv" in panels["probes"].reason
    assert all(panels[s].status == OK for s in ("steer", "revealed_belief", "scoring_methods"))


def test_a_model_that_failed_to_load_gives_a_card_with_the_first_error_of_its_log_and_the_logs_path(tmp_path):
    root = write_tables(tmp_path / "results")
    log = root / "logs" / "prepare_model" / "broken.log"
    log.parent.mkdir(parents=True)
    log.write_text("Traceback (most recent call last):\n  File \"x.py\"\nValueError: model broken: no weights\n"
                   "RuntimeError: a later error\n")
    status = {"returncode": 1, "log": "run.log", "studies": {"broken": list(CAUSAL_STUDIES)},
              "skipped": {"broken": SKIPS[CAUSAL]}, "scale": "s"}
    why = failures(root, "broken", CAUSAL_STUDIES, status)
    assert set(why) == set(CAUSAL_STUDIES)
    assert all(str(log) in w and "ValueError: model broken: no weights" in w and "later" not in w
               for w in why.values())
    status_path = tmp_path / "status.json"
    status_path.write_text(json.dumps(status))
    out = tmp_path / "cards"
    out.mkdir()
    panels = write_card(root, "broken", "causal", status_path, out / "broken.html", KWARGS)
    assert {p.study: p.status for p in panels} == {**dict.fromkeys(CAUSAL_STUDIES, FAILED), "bets": SKIPPED}
    page = (out / "broken.html").read_text()
    assert "no weights" in page and "None raised" not in page and "could not be checked" in page
    assert (out / "broken.png").stat().st_size > 0
    write_index({"broken": panels}, {"broken": "causal"}, "s", root, out / "index.html", [str(status_path)])
    assert "no weights" in (out / "index.html").read_text()


SNAKEMAKE_LOG = """Building DAG of jobs...
[Sat Nov 28 08:00:00 2026]
rule prepare_model:
    output: results/models/tiny-llama/model.json
Error in rule prepare_model:
    message: None
    jobid: 3
    output: results/models/tiny-llama/model.json
    log: results/logs/prepare_model/tiny-llama.log (check log file(s) for error details)
Exiting because a job execution failed. Look below for error messages
"""


def test_a_card_run_that_failed_before_the_model_job_says_why_from_the_run_log(tmp_path):
    run = tmp_path / "_run"
    run_log = tmp_path / "snakemake.log"
    run_log.write_text("Building DAG of jobs...\nConfigError in file Snakefile, line 12:\n"
                       "config key 'studies.probes.causal_benchmarks': unknown benchmark 'bets_value_cv'\n")
    status = {"returncode": 1, "log": str(run_log)}
    why = failures(run / "results", CAUSAL, ["steer"], status)["steer"]
    assert "prepare_model did not run" in why and str(run_log) in why
    assert "ConfigError in file Snakefile, line 12: config key 'studies.probes.causal_benchmarks'" in why


def test_a_failed_job_of_the_card_run_is_named_with_its_own_log_and_first_error(tmp_path):
    from choicelab.cards.build import first_error

    run = tmp_path / "_run"
    job_log = run / "results" / "logs" / "prepare_model" / "tiny-llama.log"
    job_log.parent.mkdir(parents=True)
    job_log.write_text("loading\nOSError: no file named config.json\n")
    run_log = tmp_path / "snakemake.log"
    run_log.write_text(SNAKEMAKE_LOG)
    text = first_error(run_log, run)
    assert text.startswith("Error in rule prepare_model:") and str(job_log) in text
    assert "OSError: no file named config.json" in text
    assert first_error(tmp_path / "nothing.log").endswith("does not exist")


@pytest.mark.parametrize("config_file", ["configs/smoke.yaml", "config.yaml", "configs/paper.yaml"])
def test_the_card_run_of_every_shipped_config_names_only_benchmarks_it_builds(config_file):
    """A causal-only card disables bets, so the scale's benchmark lists lose bets' question sets (the card run
    stopped on a ConfigError naming them); every kind mix gives a valid config."""
    from choicelab.cards.overlay import benchmark_lists
    from choicelab.config import check_references, validate_config
    from choicelab.studies import mc_benchmarks

    config = yaml.safe_load((REPO / config_file).read_text())
    validate_config(config)
    scale = yaml.safe_load((REPO / config["cards"]["scale"]).read_text())
    validate_config(scale)
    kinds = {kind: next(m for m, e in config["models"].items() if e["kind"] == kind) for kind in ("causal", "encoder")}
    for models in ([kinds["causal"]], [kinds["encoder"]], list(kinds.values())):
        plan = plan_card_run(config, scale, models)
        validate_config(plan.config)
        check_references(plan.config)
        disabled = set(mc_benchmarks(scale)) - set(mc_benchmarks(plan.config))
        for study, key in benchmark_lists():
            assert not disabled & set(plan.config["studies"][study][key] or []), (config_file, models, key)


def test_the_page_is_self_contained_and_each_summary_sentence_names_its_table(tmp_path):
    root = write_tables(tmp_path / "results")
    status = {"returncode": 0, "log": "run.log", "studies": {CAUSAL: list(CAUSAL_STUDIES)},
              "skipped": {CAUSAL: SKIPS[CAUSAL]}, "scale": "card scale from test"}
    (root / "models" / CAUSAL).mkdir(parents=True)
    (root / "models" / CAUSAL / "model.json").write_text("{}")
    status_path = tmp_path / "status.json"
    status_path.write_text(json.dumps(status))
    out = tmp_path / "cards"
    out.mkdir()
    panels = write_card(root, CAUSAL, "causal", status_path, out / f"{CAUSAL}.html", KWARGS)
    page = (out / f"{CAUSAL}.html").read_text()
    assert "http://" not in page and "https://" not in page and "<script" not in page
    assert page.count("data:image/png;base64,") == 4  # one figure per built panel
    assert "card scale from test" in page
    for sentence in summary(panels):
        assert sentence.source.endswith((".csv", ".parquet")) or sentence.text.startswith("Thinking in bets")
    sidecar = json.loads((out / f"{CAUSAL}.html.prov.json").read_text())
    hashed = {Path(i["path"]).name for i in sidecar["inputs"]}
    assert {"status.json", "questions.parquet", "robustness_matrix.csv", "table_numbers.csv",
            "distances.parquet", "robustness_matrix.csv.prov.json"} <= hashed
    write_index({CAUSAL: panels}, {CAUSAL: "causal"}, "s", root, out / "index.html", [str(status_path)])
    assert f"href='{CAUSAL}.html'" in (out / "index.html").read_text()
    # built without a browser: no PDF, and the page says why and how to get one
    assert "No PDF of this page was made: no Chromium on PATH" in page and not (out / f"{CAUSAL}.pdf").exists()


def test_a_browser_that_prints_no_pdf_fails_the_card_naming_it(tmp_path):
    from choicelab.cards.render import print_pdf

    page = tmp_path / "card.html"
    page.write_text("<html><body>card</body></html>")
    with pytest.raises(RuntimeError, match="false did not print .*card.html"):
        print_pdf(shutil.which("false"), page, tmp_path / "card.pdf")
    assert not (tmp_path / "card.pdf").exists()


def test_where_a_card_number_comes_from_is_traced_from_the_repository_root_into_the_card_run(
        tmp_path, monkeypatch, capsys):
    """The card run is a nested run in results/cards/_run whose records name paths relative to that folder;
    `choicelab provenance` of a card, typed at the repository root, follows them to the card run's own files and
    models (never to the outer run's files of the same name)."""
    from choicelab.cli import main
    from choicelab.provenance import make_record, write_sidecar

    repo = tmp_path / "repo"
    run = repo / "results" / "cards" / "_run"
    for folder in (repo / ".snakemake", run / ".snakemake"):
        folder.mkdir(parents=True)
    root = write_tables(run / "results")
    weights = {"name": CAUSAL, "source": "random:llama", "weights_sha256": "a" * 64}
    (root / "models" / CAUSAL).mkdir(parents=True)
    (root / "models" / CAUSAL / "model.json").write_text(json.dumps(weights))
    decoy = repo / "results" / "models" / CAUSAL  # the outer run's model of the same name
    decoy.mkdir(parents=True)
    (decoy / "model.json").write_text(json.dumps({**weights, "name": "decoy", "weights_sha256": "d" * 64}))
    monkeypatch.chdir(run)  # the card run's job writes its table's record, paths relative to its folder
    write_sidecar("results/steer/tables/compare_paper.csv",
                  make_record(rule="steer_tables", inputs=["results/steer/metrics/questions.parquet"],
                              models=[f"results/models/{CAUSAL}"]))
    status = {"returncode": 0, "log": "run.log", "studies": {CAUSAL: list(CAUSAL_STUDIES)},
              "skipped": {CAUSAL: SKIPS[CAUSAL]}, "scale": "s"}
    (run / "status.json").write_text(json.dumps(status))
    monkeypatch.chdir(repo)  # the outer run's job writes the card
    card = Path("results/cards") / f"{CAUSAL}.html"
    write_card(Path("results/cards/_run/results"), CAUSAL, "causal", "results/cards/_run/status.json", card, KWARGS)
    table = "results/cards/_run/results/steer/tables/compare_paper.csv"
    assert f"choicelab provenance {table}" in card.read_text()
    sidecar = json.loads(Path(f"{card}.prov.json").read_text())
    assert table in {i["path"] for i in sidecar["inputs"]} and "results/cards/_run" in sidecar["note"]
    assert [m["dir"] for m in sidecar["models"]] == [f"results/cards/_run/results/models/{CAUSAL}"]
    main(["provenance", str(card)])
    out = capsys.readouterr().out
    assert f"{table}  [rule steer_tables" in out
    assert "results/cards/_run/results/steer/metrics/questions.parquet" in out
    assert f"model {CAUSAL} from random:llama weights aaaaaaaaaaaa" in out and "decoy" not in out


# ------------------------------------------------------------------------------------------------- the card run
def smoke_config() -> dict:
    from choicelab.config import validate_config

    config = yaml.safe_load((REPO / "configs" / "smoke.yaml").read_text())
    validate_config(config)
    return config


def test_card_models_must_be_model_entries():
    config = smoke_config() | {"card_models": ["no-such-model"]}
    with pytest.raises(ValueError, match="no-such-model.*add them under 'models:'"):
        card_models(config)


def test_the_card_run_gives_each_study_the_card_models_of_the_kinds_it_applies_to():
    config = smoke_config()
    plan = plan_card_run(config, smoke_config(), card_models(config))
    studies = plan.config["studies"]
    assert studies["steer"]["models"] == [CAUSAL] and studies["bets"]["models"] == [ENCODER]
    assert studies["revealed_belief"]["models"] == [CAUSAL]  # tiny-gemma3 of the scale is not carded
    assert studies["probes"]["causal_models"] == [CAUSAL] and studies["probes"]["models"] == [ENCODER]
    assert "bets" in plan.skipped[CAUSAL] and set(plan.skipped[ENCODER]) == {"steer", "revealed_belief",
                                                                            "scoring_methods"}
    assert Path(plan.config["data_mirror"]).is_absolute()


def test_the_card_run_asks_for_the_rule_of_every_table_a_panel_reads():
    from choicelab.studies import study_artifacts

    plan = plan_card_run(smoke_config(), smoke_config(), [CAUSAL, ENCODER])
    for study, entry in card_entries().items():
        rules = {a.name: a.rule for a in study_artifacts(study)}
        for name in entry.tables:
            assert rules[name] in plan.targets, (study, name, rules[name])


def test_the_card_run_starts_its_longest_chain_first_and_only_for_a_study_it_runs():
    """STEER's scoring (the card run's longest job) and its inputs get Snakemake's highest priority, so the other
    studies fill the second core beside it; an encoder-only card runs no STEER and asks for no such rule."""
    priority = {study: entry.priority for study, entry in card_entries().items() if entry.priority}
    assert priority == {"steer": "steer_score"}
    assert "rule steer_score:" in (REPO / "rules" / "steer.smk").read_text()
    assert plan_card_run(smoke_config(), smoke_config(), [CAUSAL]).priority == ("steer_score",)
    assert plan_card_run(smoke_config(), smoke_config(), [ENCODER]).priority == ()


def test_a_second_card_keeps_every_shared_setting_so_shared_steps_are_reused():
    config = smoke_config()
    first = plan_card_run(config | {"card_models": [CAUSAL]}, smoke_config(), [CAUSAL]).config
    second = plan_card_run(config, smoke_config(), [CAUSAL, "tiny-gemma3"]).config
    model_keys = {"models", "causal_models", "grid_models", "enabled"}
    for study, section in first["studies"].items():
        shared = {k: v for k, v in section.items() if k not in model_keys}
        assert shared == {k: v for k, v in second["studies"][study].items() if k not in model_keys}, study


# ------------------------------------------------------------------------------------------ the workflow, in a browser
def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.skip("chromium not installed (.ci/run installs Debian's chromium)")
    return found


def screenshot(browser: str, page: Path, out: Path) -> np.ndarray:
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    "--window-size=1200,2400", f"--screenshot={out}", page.resolve().as_uri()],
                   check=True, capture_output=True, timeout=120)
    import matplotlib.pyplot as plt

    return plt.imread(out)


def test_the_test_card_scale_is_a_complete_config_that_cards_both_tiny_models_itself():
    from choicelab.config import check_references, validate_config

    scale = yaml.safe_load(CARD_TEST_SCALE.read_text())
    validate_config(scale)
    assert REPO / scale["cards"]["scale"] == CARD_TEST_SCALE
    plan = plan_card_run(scale, scale, card_models(scale))
    validate_config(plan.config)
    check_references(plan.config)
    assert plan.studies == {CAUSAL: CAUSAL_STUDIES, ENCODER: ("bets", "probes")}


@pytest.mark.slow
def test_cards_for_two_tiny_random_models_build_and_render_in_a_browser(tmp_path, data_mirror):
    import sys

    from conftest import repo_env

    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "cards", "--cores", "2", "-s", str(REPO / "Snakefile"), "-d",
         str(tmp_path), "--configfile", str(CARD_TEST_SCALE), "--config",
         f"data_mirror={data_mirror}", f"card_models=[{CAUSAL}, {ENCODER}]"],
        capture_output=True, text=True, timeout=2400, env=repo_env())
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    cards = tmp_path / "results" / "cards"
    browser = chromium()
    for model, built in ((CAUSAL, CAUSAL_STUDIES), (ENCODER, ("probes", "bets"))):
        page = (cards / f"{model}.html").read_text()
        for study in ("steer", "revealed_belief", "probes", "scoring_methods", "bets"):
            assert f"id='{study}'" in page
        assert page.count("data:image/png;base64,") == len(built), model
        assert page.count("95 % interval") >= len(built)
        pixels = screenshot(browser, cards / f"{model}.html", tmp_path / f"{model}.png")
        assert pixels[..., :3].std() > 0.05, f"{model}: the rendered page is blank"
        # the workflow found the same browser and printed the card's PDF, which the page links
        assert f"href='{model}.pdf'" in page and (cards / f"{model}.pdf").read_bytes()[:5] == b"%PDF-"
        assert (cards / f"{model}.pdf.prov.json").is_file()
        # the items behind it, one click away, and read in the browser
        assert f"href='items/{model}.html#study=" in page
        items = screenshot(browser, cards / "items" / f"{model}.html", tmp_path / f"{model}.items.png")
        assert items[..., :3].std() > 0.05, f"{model}: the items page is blank"
    assert "tiny-bert.html" in (cards / "index.html").read_text()
    numbers = json.loads((cards / "cards.json").read_text())["numbers"]
    assert {n["model"] for n in numbers} == {CAUSAL, ENCODER} and all(n["unit"] for n in numbers if n["label"])


def test_the_shipped_card_scale_is_a_complete_config_and_plans_smollm2s_card():
    from choicelab.config import check_references, missing_keys, validate_config

    scale = yaml.safe_load((REPO / "configs" / "card.yaml").read_text())
    assert missing_keys(scale) == []
    default = yaml.safe_load((REPO / "config.yaml").read_text())
    validate_config(default)
    assert default["cards"]["scale"] == "configs/card.yaml"
    plan = plan_card_run(default, scale, card_models(default))
    validate_config(plan.config)
    check_references(plan.config)
    assert plan.studies == {"smollm2-135m-instruct": CAUSAL_STUDIES}
    assert plan.config["studies"]["bets"]["enabled"] is False  # no encoder card: bets does not run
    assert plan.config["studies"]["probes"]["models"] == []  # ... and probes fine-tunes no encoder


def test_a_causal_only_card_fine_tunes_no_encoder_it_does_not_show():
    config = smoke_config()
    causal_only = plan_card_run(config, smoke_config(), [CAUSAL])
    assert causal_only.config["studies"]["probes"]["models"] == []
    assert "probes_robustness" in causal_only.targets and "probes_tables" not in causal_only.targets
    with_encoder = plan_card_run(config, smoke_config(), [CAUSAL, ENCODER])
    assert with_encoder.config["studies"]["probes"]["models"] == [ENCODER]
    assert "probes_tables" in with_encoder.targets


def test_every_card_number_counts_each_item_once_in_the_unit_that_was_sampled(tmp_path):
    """Built from tables of known counts, each headline's estimate, interval, n and unit are those of its sampled
    unit: STEER's templates, the scoring-methods items (not item x score, nor the label sets' rows added up), the
    probes' original items, bets' seeds, revealed belief's settings; the humans' n are responses."""
    from choicelab.stats import accuracy_intervals, t_interval

    panels = {p.study: p for p in panels_of(write_tables(tmp_path / "results"), CAUSAL)}
    numbers = {h.label: h for p in panels.values() for h in p.headlines}

    questions = steer_questions()
    steer = numbers["normalized accuracy, whole benchmark (0-shot)"]
    expected = accuracy_intervals(questions["correct"].astype(float), questions["template_id"].tolist())
    normalized = [(a - 0.25) / 0.25 for a in (expected["accuracy"], expected["clustered_low"],
                                               expected["clustered_high"])]
    assert (steer.n, steer.unit) == (sum(STEER_TEMPLATES.values()), "templates")
    assert (steer.estimate, steer.low, steer.high) == pytest.approx(normalized)
    modules = panels["steer"].detail.set_index("module")
    assert modules["templates"].to_dict() == STEER_TEMPLATES
    assert modules["questions"].to_dict() == {m: t * QUESTIONS_PER_TEMPLATE for m, t in STEER_TEMPLATES.items()}

    choices = sm_choices()
    for method in ("string", "label"):
        rows = choices[choices["method"] == method]
        h = numbers[f"{method}: accuracy over the pragmatics conditions"]
        expected = accuracy_intervals(rows["is_target"].astype(float), rows["item_id"].tolist())
        assert (h.n, h.unit, h.reference) == (SM_ITEMS, "items", 0.25)
        assert (h.estimate, h.low, h.high) == pytest.approx(
            (expected["accuracy"], expected["clustered_low"], expected["clustered_high"]))
    assert numbers["label: accuracy over the pragmatics conditions"].estimate == pytest.approx(3 / SM_ITEMS)
    (caption, humans), = panels["scoring_methods"].extra["tables"]
    assert "responses" in caption and humans["responses"].tolist() == [1000, 600]
    assert humans["items"].tolist() == [20, 12]
    assert set(panels["scoring_methods"].detail["method"]) == {"string", "label"}  # the pooled label row only
    assert len(panels["scoring_methods"].detail) == 2

    probes = probe_rows()
    probes = probes[probes["model"] == CAUSAL]
    nq = numbers["No-Question: pseudo-accuracy minus chance, mean over benchmarks"]
    mean, low, high = t_interval(probes[probes["probe"] == "No-Question"]["minus_chance"])
    assert (nq.estimate, nq.low, nq.high, nq.n, nq.unit) == (pytest.approx(mean), pytest.approx(low),
                                                            pytest.approx(high), 2, "benchmarks")
    assert panels["probes"].detail["original_items"].eq(PROBE_ORIGINALS).all()

    revealed = numbers["RevB error (Chebyshev), all settings"]
    assert (revealed.n, revealed.unit) == (RB_SCENARIOS, "scenarios")

    encoder = {h.label: h for p in panels_of(tmp_path / "results", ENCODER) for h in p.headlines}
    bets = encoder["fine-tuned, BE: accuracy on test questions (standard)"]
    assert (bets.estimate, bets.low, bets.high, bets.n, bets.unit) == (0.9, 0.85, 0.95, BETS_SEEDS, "seeds")


OTHER = "tiny-gemma3"  # a second causal card model


def test_the_index_compares_every_pair_of_models_on_their_shared_items_and_writes_every_number_as_data(tmp_path):
    from choicelab.stats import paired_difference

    root = write_tables(tmp_path / "results")
    questions = steer_questions()
    # the other model answers every second question only, always right: the pair shares those questions
    other = questions.iloc[::2].assign(model=OTHER, correct=True)
    _parquet(root, "steer", "questions", pd.concat([questions, other], ignore_index=True))
    choices = sm_choices()
    _parquet(root, "scoring_methods", "choices", pd.concat([choices, choices.assign(model=OTHER, is_target=False)]))
    status = {"returncode": 0, "log": "run.log", "studies": {CAUSAL: list(CAUSAL_STUDIES), OTHER: []},
              "skipped": {CAUSAL: SKIPS[CAUSAL], OTHER: SKIPS[CAUSAL]}}
    cards = {model: build_panels(root, model, status["studies"][model], status["skipped"][model], {}, KWARGS)
             for model in (CAUSAL, OTHER)}
    out = tmp_path / "cards"
    out.mkdir()
    files = write_index(cards, {CAUSAL: "causal", OTHER: "causal"}, "s", root, out / "index.html", [])
    data = json.loads(files["json"].read_text())

    steer = next(p for p in data["paired"] if p["quantity"].startswith("STEER"))
    shared = questions.iloc[::2]
    expected = paired_difference(shared["correct"].astype(float), np.ones(len(shared)),
                                 shared["template_id"].tolist())
    assert (steer["model_a"], steer["model_b"], steer["n_items"], steer["n_clusters"]) == (
        CAUSAL, OTHER, len(shared), shared["template_id"].nunique())
    assert (steer["difference"], steer["low"], steer["high"]) == pytest.approx((expected.mean, expected.low,
                                                                                 expected.high))
    assert steer["better"] == OTHER  # always right against about 60 %
    string = next(p for p in data["paired"] if p["quantity"] == "scoring methods: string accuracy")
    assert (string["n_items"], string["better"]) == (SM_ITEMS, CAUSAL)
    label = next(p for p in data["paired"] if p["quantity"] == "scoring methods: label accuracy")
    label_ranks = {r["model"]: (r["rank"], r["rank_best"], r["rank_worst"]) for r in data["ranks"]
                   if r["quantity"] == label["quantity"]}
    # 3 of 14 against 0 of 14: a clear winner only if the interval says so, and the ranks follow it
    assert label_ranks[CAUSAL][0] == 1
    assert (label_ranks[CAUSAL][2] == 1) == (label["better"] == CAUSAL)
    # every headline of every card is in the data, with its n, unit and interval
    numbers = pd.read_parquet(files["parquet"])
    headlines = [(m, h.label) for m, ps in cards.items() for p in ps if p.status == OK for h in p.headlines]
    assert sorted(zip(numbers.dropna(subset=["estimate"])["model"], numbers.dropna(subset=["estimate"])["label"],
                      strict=True)) == sorted(headlines)
    assert numbers.dropna(subset=["estimate"])[["n", "unit", "low", "high"]].notna().all().all()
    assert "Models side by side, on the items both answered" in (out / "index.html").read_text()
    assert all(Path(f"{path}.prov.json").is_file() for path in files.values())


# ------------------------------------------------------------------------------------------------------- first steps
def test_the_command_lines_help_is_written_for_users_and_leads_with_the_card(capsys):
    from choicelab.cli import build_parser

    text = build_parser().format_help()
    assert "choicelab card " in text and "snakemake --cores" in text
    for markup in ("``", ":func:", ":mod:", ":class:"):
        assert markup not in text, markup


def test_choicelab_card_runs_the_cards_target_for_the_models_named(tmp_path):
    from choicelab.cli import card_command

    command = card_command(["tiny-llama", "tiny-bert"], 2, "configs/smoke.yaml", "/data")
    assert command[3:4] == ["cards"] and command[command.index("--configfile") + 1] == "configs/smoke.yaml"
    assert "card_models=[tiny-llama, tiny-bert]" in command and "data_mirror=/data" in command


def test_a_misspelt_card_model_gets_a_did_you_mean_before_anything_runs(capsys):
    from choicelab.cli import main

    with pytest.raises(SystemExit):
        main(["card", "tiny-lama", "--configfile", str(REPO / "configs" / "smoke.yaml")])
    assert "did you mean 'tiny-llama'?" in capsys.readouterr().err


def test_a_single_card_model_where_a_list_is_expected_shows_the_list_syntax():
    from choicelab.config import ConfigError, validate_config

    config = yaml.safe_load((REPO / "configs" / "smoke.yaml").read_text()) | {"card_models": "tiny-llama"}
    with pytest.raises(ConfigError, match=r"--config card_models='\[tiny-llama\]'"):
        validate_config(config)


def test_brief_provenance_fits_a_screen_and_says_when_no_commit_was_recorded():
    from choicelab.provenance import BRIEF_LINES, format_audit

    report = {"path": "results/x.csv", "root": ".", "code_version": {"package": "0.1", "git_commit": None},
              "config": [], "models": [{"name": f"m{i}", "weights_sha256": "a", "dir": "d"} for i in range(12)],
              "prompts": [f"results/dump{i}.parquet" for i in range(40)],
              "data_files": [(f"data/f{i}.csv", "b") for i in range(200)], "checkpoints": [], "weights": []}
    brief = format_audit(report, brief=True)
    assert len(brief.splitlines()) <= 40 and f"and {200 - BRIEF_LINES} more" in brief
    assert "git commit None" not in brief and "not a git checkout" in brief
    assert len(format_audit(report).splitlines()) > 200


# ------------------------------------------------------------------------------------------------ items one click away
def steer_dump(model: str) -> pd.DataFrame:
    """Two STEER items as a logit dump holds them: the model picks option 0 on both; the key is 0, then 1."""
    rows = []
    for item, key in (("add_subtract/finance/g1/0", 0), ("bayes/medicine/g2/1", 1)):
        for option in range(3):
            rows.append({"study": "steer", "benchmark": "steer", "split": "test", "item_id": item,
                         "option_id": option, "option_text": f"${option + 5}", "variant": "0shot",
                         "context": f"Question about {item}?\nCorrect Answer: ", "model": model,
                         "method": "letter_prob", "score": -float(option), "prob": [0.5, 0.3, 0.2][option],
                         "is_label": option == key})
    return pd.DataFrame(rows)


def test_each_panel_links_a_self_contained_page_of_its_items_with_prompt_scores_key_and_outcome(tmp_path):
    from choicelab.cards.items import read_items

    root = write_tables(tmp_path / "results")
    (root / "steer" / "dumps").mkdir(parents=True)
    steer_dump(CAUSAL).to_parquet(root / "steer" / "dumps" / f"{CAUSAL}__0shot.parquet")
    steer_dump("tiny-llama-2").to_parquet(root / "steer" / "dumps" / "tiny-llama-2__0shot.parquet")  # not ours
    items, files = read_items(root, CAUSAL_STUDIES, CAUSAL)
    assert [f.name for f in files] == [f"{CAUSAL}__0shot.parquet"]
    assert items["correct"].tolist() == [True, False] and items["element"].tolist() == ["add_subtract", "bayes"]
    assert items["key"].tolist() == ["$5", "$6"] and items["choice"].tolist() == ["$5", "$5"]

    (root / "models" / CAUSAL).mkdir(parents=True)
    (root / "models" / CAUSAL / "model.json").write_text("{}")
    status = {"returncode": 0, "log": "run.log", "studies": {CAUSAL: list(CAUSAL_STUDIES)},
              "skipped": {CAUSAL: SKIPS[CAUSAL]}, "scale": "s"}
    status_path = tmp_path / "status.json"
    status_path.write_text(json.dumps(status))
    out = tmp_path / "cards"
    out.mkdir()
    write_card(root, CAUSAL, "causal", status_path, out / f"{CAUSAL}.html", KWARGS)
    card = (out / f"{CAUSAL}.html").read_text()
    assert card.count(f"href='items/{CAUSAL}.html#study=steer'") == 1  # only the panel whose items were dumped
    page = (out / "items" / f"{CAUSAL}.html").read_text()
    assert "Question about bayes/medicine/g2/1?" in page and "http" not in page
    for name in ("study", "benchmark", "element", "variant", "method", "outcome"):
        assert f"id='f-{name}'" in page
    sidecar = json.loads((out / "items" / f"{CAUSAL}.html.prov.json").read_text())
    assert [Path(i["path"]).name for i in sidecar["inputs"]] == [f"{CAUSAL}__0shot.parquet"]


def test_an_encoders_items_are_those_of_its_fine_tuned_checkpoints_each_named(tmp_path):
    """An encoder's card reads the dumps of its checkpoints, whose rows name the checkpoint (bets:
    ``<model>__<seed>__<stage>``, probes: ``<model> seed <seed>``), and keeps each checkpoint's items apart."""
    from choicelab.cards.items import read_items

    for study, name in (("bets", f"{ENCODER}__seed1__default"), ("probes", f"{ENCODER} seed 1")):
        (tmp_path / study / "dumps").mkdir(parents=True)
        dump = steer_dump(name).assign(study=study)
        dump.to_parquet(tmp_path / study / "dumps" / f"{ENCODER}__{study}.parquet")
    items, files = read_items(tmp_path, ("bets", "probes"), ENCODER)
    assert len(files) == 2 and sorted(items["study"].unique()) == ["bets", "probes"]
    assert {v.split(" ")[0] for v in items["variant"]} == {"seed1__default", "seed"}
    assert len(items) == 2 * len(read_items(tmp_path, ("bets",), ENCODER)[0])


def probes_dump(model: str, right: int, originals: int = 4) -> pd.DataFrame:
    """A probes logit dump of ``originals`` unprobed items (variant orig) and one probed version each; the model's
    highest score is on the key for the first ``right`` originals."""
    rows = []
    for i in range(originals):
        for variant in ("orig", "nq"):
            for option in range(2):
                rows.append({"study": "probes", "benchmark": "anli", "split": "dev", "item_id": f"anli-{i}/{variant}",
                             "option_id": option, "option_text": f"ending {option}", "variant": variant,
                             "context": "Obs 1 ... Obs 2", "model": model, "method": "letter_prob",
                             "score": float(option == 0), "prob": 0.5,
                             "is_label": option == (0 if i < right else 1)})
    return pd.DataFrame(rows)


def test_the_probes_original_accuracies_are_compared_item_by_item_from_the_dumps(tmp_path):
    from choicelab.cards.compare import paired_table, per_item_values

    root = tmp_path / "results"
    (root / "probes" / "dumps").mkdir(parents=True)
    probes_dump(CAUSAL, right=4).to_parquet(root / "probes" / "dumps" / f"{CAUSAL}__anli.causal.parquet")
    probes_dump(OTHER, right=2).to_parquet(root / "probes" / "dumps" / f"{OTHER}__anli.causal.parquet")
    (pair,) = paired_table(per_item_values(root, [CAUSAL, OTHER])).to_dict("records")
    assert pair["quantity"] == "probes: original accuracy, anli (letter_prob)"
    assert (pair["n_items"], pair["n_clusters"], pair["difference"]) == (4, 4, pytest.approx(0.5))


def test_choicelab_show_on_a_wrong_path_names_the_dumps_there_closest_first(tmp_path):
    """A mistyped dump path (issue 41): the error names the tables `choicelab show` reads under the nearest folder
    that exists, with a did-you-mean for the closest; files it cannot read are not offered."""
    from choicelab.dumps import DumpRow, write_dump
    from choicelab.provenance import make_record, record_json
    from choicelab.show import show_item

    dumps = tmp_path / "results" / "steer" / "dumps"
    dumps.mkdir(parents=True)
    row = DumpRow("steer", "steer", "test", "q1", 0, "A", "0shot", "Q? A", CAUSAL, "letter", (1,), (-0.1,), -0.1,
                  -0.1, 1.0, True)
    record = record_json(make_record(rule="test", inputs=[], params={}, seed=0))
    for name in (f"{CAUSAL}__0shot.parquet", f"{CAUSAL}__3shot.parquet"):
        write_dump(dumps / name, [row], record)
    pd.DataFrame({"x": [1]}).to_parquet(dumps / "not_a_dump.parquet")
    wrong = dumps / f"{CAUSAL}__0shott.parquet"
    with pytest.raises(FileNotFoundError) as error:
        show_item(wrong, "q1")
    message = str(error.value)
    assert message.startswith(f"{wrong} does not exist; did you mean {dumps / f'{CAUSAL}__0shot.parquet'}")
    assert f"{CAUSAL}__3shot.parquet" in message and "not_a_dump" not in message
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="empty holds no table `choicelab show` reads"):
        show_item(tmp_path / "empty" / "results" / "x.parquet", "q1")


def test_the_scoring_methods_panel_links_its_items_from_the_score_table_each_method_and_score_apart(tmp_path):
    """The scoring methods write no logit dump: their items come from the score table (every method and score per
    option, the target, the choice; a free generation with its text), the condition as the element."""
    from choicelab.cards.items import read_items

    root = write_tables(tmp_path / "results")
    (root / "scoring_methods" / "scores").mkdir(parents=True)
    base = {"study": "scoring_methods", "benchmark": "pragmatics", "condition": "irony", "item_id": "irony-1",
            "model": CAUSAL, "label_set": "", "seed": 0, "n_options": 2, "n_tied": 1, "classified_by": "",
            "context": "Ann says: 'Great weather.' It rains. What does Ann mean?"}
    rows = [{**base, "method": "string", "score": "option_logprob", "variant": "", "generation": "",
             "option_index": i, "position": i, "option_type": kind, "value": value, "is_target": i == 0,
             "chosen": i == 1} for i, (kind, value) in enumerate((("Ironic", -3.0), ("Literal", -1.0)))]
    rows += [{**base, "method": "free", "score": "free", "variant": "tau=0.1", "generation": "She is joking.",
              "option_index": i, "position": i, "option_type": kind, "value": float(i == 0), "is_target": i == 0,
              "chosen": i == 0} for i, kind in enumerate(("Ironic", "Literal"))]
    pd.DataFrame(rows).to_parquet(root / "scoring_methods" / "scores" / f"{CAUSAL}.parquet")
    items, files = read_items(root, CAUSAL_STUDIES, CAUSAL)
    assert [f.name for f in files] == [f"{CAUSAL}.parquet"]
    by_method = items.set_index("method")
    assert set(by_method.index) == {"string: option_logprob", "free: free"}
    # the string score chose the literal reading, the generation was coded as the ironic one
    assert by_method["correct"].to_dict() == {"string: option_logprob": False, "free: free": True}
    assert by_method.loc["free: free", "choice"] == "Ironic (generated: She is joking.)"
    assert (items["key"] == "Ironic").all() and (items["element"] == "irony").all()
    assert items["context"].str.contains("Great weather").all()


def test_a_headline_must_say_how_its_interval_is_computed():
    """The card's caption states each number's interval kind (issue 41): a study whose headline leaves it out is told
    which headline and what to write."""
    from choicelab.card_entry import Headline

    with pytest.raises(ValueError, match="'share of heads'.*interval="):
        Headline("share of heads", 0.5, 0.4, 0.6, 100, "flips", "toy.parquet", 0.5)
    assert Headline("x", 0.5, 0.4, 0.6, 10, "seeds", "t.parquet", interval="t over seeds").interval == "t over seeds"


def bets_questions(encoder: str, right: int, pairs: int = 4, seeds: tuple[int, ...] = (1, 2)) -> pd.DataFrame:
    """The per-question evaluation rows of one encoder: Table 5's value questions (rq1, standard, test) of template
    BE, two orders per item pair, answered by the default and the fine-tuned checkpoint of each seed; the fine-tuned
    checkpoints get the first ``right`` pairs right (both orders), the default ones none; a bet question beside."""
    rows = []
    for seed in seeds:
        for stage in ("default", "value_BE"):
            for p in range(pairs):
                for order in ("hl", "lh"):
                    rows.append({"rq": "rq1", "checkpoint": f"{encoder}__seed{seed}__{stage}",
                                 "eval_set": "bets_value_be", "split": "test", "ground_truth": "standard",
                                 "item_id": f"BE-test-{p}-{order}", "unit": f"high{p}|low{p}", "prediction": "a",
                                 "correct": int(stage != "default" and p < right)})
        rows.append({"rq": "rq2", "checkpoint": f"{encoder}__seed{seed}__default", "eval_set": "bets_bet_coin",
                     "split": "test", "ground_truth": "standard", "item_id": "coin-0", "unit": "x|y",
                     "prediction": "a", "correct": 1})
    return pd.DataFrame(rows)


def test_the_bets_value_accuracies_are_compared_item_by_item_over_seeds_clustered_by_item_pair(tmp_path):
    """Issue 41: bets takes part in the index's paired comparisons. Each value question counts once (its hit averaged
    over the encoder's seeds), its cluster the item pair its two orders repeat; bet questions are not Table 5's."""
    from choicelab.cards.compare import paired_table, per_item_values

    root = tmp_path / "results"
    (root / "bets" / "metrics").mkdir(parents=True)
    pd.concat([bets_questions(ENCODER, right=4), bets_questions(OTHER, right=1)]).to_parquet(
        root / "bets" / "metrics" / "questions.parquet")
    pairs = {p["quantity"]: p for p in paired_table(per_item_values(root, [ENCODER, OTHER])).to_dict("records")}
    tuned = pairs["bets: fine-tuned, BE: accuracy on value questions (standard)"]
    assert (tuned["n_items"], tuned["n_clusters"]) == (8, 4)
    assert tuned["difference"] == pytest.approx(1.0 - 0.25)  # 8 of 8 questions right against 2 of 8
    default = pairs["bets: default, BE: accuracy on value questions (standard)"]
    assert default["difference"] == 0.0 and len(pairs) == 2
