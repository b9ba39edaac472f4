"""A wrong or unknown config key fails before any job runs, naming the key."""

from __future__ import annotations

import copy
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from choicelab.config import ConfigError, check_references, chosen_benchmarks, validate_schema
from conftest import repo_env

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


@pytest.mark.slow
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


# -- what a run uses: exactly the config file it is given -----------------------------------------------------

SHIPPED = ["config.yaml", "configs/smoke.yaml", "configs/paper.yaml"]


@pytest.mark.parametrize("path", SHIPPED)
def test_a_run_uses_exactly_the_shipped_config_it_is_given(path):
    """The config the real Snakefile ends up with is the file: nothing from config.yaml, no schema default."""
    from choicelab.config import MODEL_OWN_KEYS, effective_config, load_schema

    written = yaml.safe_load((REPO / path).read_text())
    configfile = None if path == "config.yaml" else REPO / path
    effective = effective_config(configfile, {"data_mirror": None}, workdir=REPO)
    # the only keys a shipped config may leave out: per model, "as the model ships" (null) -- see MODEL_OWN_KEYS
    entry_schema = load_schema()["properties"]["models"]["additionalProperties"]["properties"]
    for entry in written["models"].values():
        for key in MODEL_OWN_KEYS & entry_schema.keys():
            entry.setdefault(key, entry_schema[key].get("default"))
    written.pop("data_mirror"), effective.pop("data_mirror")
    assert effective == written


@pytest.mark.parametrize("path", SHIPPED)
def test_shipped_configs_write_every_key(path):
    from choicelab.config import missing_keys

    assert missing_keys(yaml.safe_load((REPO / path).read_text())) == []


def test_a_key_left_out_comes_from_the_schema_never_from_config_yaml(tmp_path, smoke):
    from choicelab.config import effective_config, missing_keys

    del smoke["studies"]["revealed_belief"]["n_dice"]  # config.yaml says [1, 2]; the schema's default is the paper's
    smoke["data_mirror"] = None
    assert missing_keys(smoke) == ["studies.revealed_belief.n_dice"]
    partial = tmp_path / "partial.yaml"
    partial.write_text(yaml.safe_dump(smoke))
    effective = effective_config(partial, workdir=REPO)
    assert effective["studies"]["revealed_belief"]["n_dice"] == [1, 2, 3]
    assert set(effective["models"]) == set(smoke["models"])  # no model of config.yaml sneaks in
    assert effective["studies"]["probes"]["trials"] == smoke["studies"]["probes"]["trials"]


def test_the_paper_config_runs_the_papers_settings():
    from choicelab.config import effective_config

    paper = effective_config(REPO / "configs" / "paper.yaml", workdir=REPO)["studies"]
    assert paper["revealed_belief"]["n_dice"] == [1, 2, 3]
    assert paper["scoring_methods"]["scales"] == ["likely", "appropriate", "plausible", "possible"]
    assert paper["scoring_methods"]["grid_benchmarks"] is None and paper["probes"]["causal_benchmarks"] is None
    assert paper["bets"]["task_stage"]["train_size"] is None and paper["bets"]["train_eval_size"] is None
    assert paper["probes"]["train_size"] is None and paper["probes"]["dev_size"] is None


@pytest.mark.slow
def test_choicelab_config_prints_what_a_run_uses(tmp_path, smoke):
    del smoke["studies"]["revealed_belief"]["n_dice"]
    smoke["data_mirror"] = None
    partial = tmp_path / "partial.yaml"
    partial.write_text(yaml.safe_dump(smoke))
    proc = subprocess.run([sys.executable, "-m", "choicelab.cli", "config", "--configfile", str(partial)],
                          capture_output=True, text=True, cwd=REPO, timeout=300, env=repo_env())
    assert proc.returncode == 0, proc.stderr
    assert "studies.revealed_belief.n_dice" in proc.stdout.splitlines()[0]  # the filled keys are named first
    printed = yaml.safe_load(proc.stdout)
    assert printed["studies"]["revealed_belief"]["n_dice"] == [1, 2, 3]
    assert set(printed["models"]) == set(smoke["models"])


def test_the_workflow_validates_once_filling_every_left_out_key_with_the_schema_default(smoke):
    """Defaults live in the schema only: the one validation (choicelab.config.validate_config, called by
    rules/common.smk) fills a partial config exactly as Snakemake's schema validation would, nested sections
    included, so no rule or script needs a fallback of its own."""
    from snakemake.utils import validate

    from choicelab.config import validate_config

    partial = {"models": smoke["models"], "studies": {"bets": {"models": smoke["studies"]["bets"]["models"]}}}
    ours, snakemakes = copy.deepcopy(partial), copy.deepcopy(partial)
    validate_config(ours)
    validate(snakemakes, str(REPO / "schemas" / "config.schema.yaml"))
    assert ours == snakemakes
    assert ours["studies"]["bets"]["templates"] == ["BE", "BV", "CE", "CV"]  # the schema's default, filled
    common = (REPO / "rules" / "common.smk").read_text()
    assert common.count("validate_config(config)") == 1 and "validate(config" not in common
    with pytest.raises(ConfigError, match=r"'studies\.bets\.templates'"):
        validate_config({**partial, "studies": {"bets": {"models": ["tiny-bert"], "templates": "BE"}}})


@pytest.mark.slow
def test_a_config_without_a_studys_section_runs_the_other_studies_only(tmp_path, smoke, data_mirror):
    """A study whose section a config leaves out is switched off (its settings are the schema's with enabled false),
    the same for every study: the DAG holds the others' jobs and none of its own."""
    smoke["data_mirror"] = str(data_mirror)
    for study in ("revealed_belief", "steer", "scoring_methods"):
        del smoke["studies"][study]
    smoke["studies"]["probes"]["causal_benchmarks"] = None  # the smoke list names the STEER and pragmatics sets
    cfg = tmp_path / "c.yaml"
    cfg.write_text(yaml.safe_dump(smoke))
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--cores", "1", "--configfile", str(cfg), "-d", str(tmp_path / "wd"),
         "-s", str(REPO / "Snakefile")],
        capture_output=True, text=True, cwd=REPO, timeout=300, env=repo_env(),
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    rules = set(re.findall(r"^(\w+)\s+\d+$", proc.stdout, flags=re.M))
    assert {"bets_score", "probes_score", "manifest"} <= rules
    assert not {r for r in rules if r.startswith(("rb_", "steer_", "sm_"))}
