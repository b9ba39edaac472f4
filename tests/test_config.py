"""A wrong or unknown config key fails before any job runs, naming the key."""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import repo_env
import yaml

from choicelab.config import ConfigError, check_references, chosen_benchmarks, load_config, validate_schema

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture()
def smoke():
    return yaml.safe_load((REPO / "configs" / "smoke.yaml").read_text())


@pytest.mark.parametrize("path", ["config.yaml", "configs/smoke.yaml", "configs/paper.yaml"])
def test_shipped_configs_are_valid(path):
    config = yaml.safe_load((REPO / path).read_text())
    validate_schema(config)
    config["data_mirror"] = None
    check_references(config)


def test_unknown_top_level_key_is_named(smoke):
    smoke["sead"] = 1
    with pytest.raises(ConfigError, match="sead"):
        validate_schema(smoke)


def test_unknown_nested_key_is_named_with_its_path(smoke):
    smoke["models"]["tiny-llama"]["dtyp"] = "float32"
    with pytest.raises(ConfigError, match=r"models\.tiny-llama.*dtyp"):
        validate_schema(smoke)


def test_wrong_type_is_named(smoke):
    smoke["seed"] = "twelve"
    with pytest.raises(ConfigError, match="'seed'"):
        validate_schema(smoke)


def test_bad_model_source_is_named(smoke):
    smoke["models"]["tiny-llama"]["source"] = "huggingface/llama"
    with pytest.raises(ConfigError, match=r"models\.tiny-llama\.source"):
        validate_schema(smoke)


def test_study_naming_an_unknown_model_fails_with_the_fix(smoke):
    bad = copy.deepcopy(smoke)
    bad["data_mirror"] = None
    bad["studies"]["revealed_belief"]["models"] = ["tiny-llama", "gpt-7"]
    with pytest.raises(ConfigError, match="unknown model 'gpt-7'.*add it under 'models:'"):
        check_references(bad)


def test_missing_data_mirror_folder_is_named(smoke, tmp_path):
    smoke["data_mirror"] = str(tmp_path / "nowhere")
    with pytest.raises(ConfigError, match="data_mirror"):
        check_references(smoke)


def test_malformed_yaml_names_the_file(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("models: [unclosed\n")
    with pytest.raises(ConfigError, match="bad.yaml"):
        load_config(path)


def test_a_benchmark_selection_keeps_the_workflow_order_and_names_typos():
    built = ["pragmatics", "piqa", "bets_value_cv", "steer"]
    key = "studies.scoring_methods.grid_benchmarks"
    assert chosen_benchmarks(built, None, key) == built  # null selects every benchmark the workflow builds
    assert chosen_benchmarks(built, ["steer", "piqa"], key) == ["piqa", "steer"]  # in the workflow's order
    with pytest.raises(ConfigError) as error:
        chosen_benchmarks(built, ["steer", "piqa2"], key)
    message = str(error.value)
    assert "'studies.scoring_methods.grid_benchmarks'" in message and "'piqa2'" in message
    assert str(built) in message  # the benchmarks one could have meant


def test_snakemake_rejects_an_unknown_key_before_any_job(tmp_path, smoke):
    smoke["data_mirror"] = None
    smoke["studies"]["revealed_belief"]["facez"] = [4]
    cfg = tmp_path / "c.yaml"
    cfg.write_text(yaml.safe_dump(smoke))
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--cores", "1", "--configfile", str(cfg), "-d", str(tmp_path / "wd"),
         "-s", str(REPO / "Snakefile")],
        capture_output=True, text=True, cwd=REPO, timeout=300, env=repo_env(),
    )
    assert proc.returncode != 0
    assert "facez" in proc.stdout + proc.stderr
