"""`choicelab score` scores a JSONL of requests with a materialized model."""

from __future__ import annotations

import json
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

from choicelab.lm.causal import CausalScorer, ContinuationRequest
from choicelab.lm.loading import load_causal
from choicelab.lm.prepare import prepare_model
from conftest import repo_env


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("models") / "tiny-llama"
    prepare_model("tiny-llama", {"kind": "causal", "source": "random:llama"}, out, seed=0)
    return out


def _run(*args):
    return subprocess.run(
        [sys.executable, "-m", "choicelab.cli", *args], capture_output=True, text=True, timeout=300, env=repo_env()
    )


@pytest.mark.slow
def test_score_writes_the_documented_columns_and_matches_the_engine(tmp_path, model_dir):
    lines = [{"id": "a", "context": "The die lands on face number", "continuation": " 3"},
             {"id": "b", "context": "The die lands on face number", "continuation": " 12"},
             {"id": "c", "context": "", "continuation": "Hello"}]
    req = tmp_path / "req.jsonl"
    req.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    out = tmp_path / "out.parquet"
    proc = _run("score", "--model", str(model_dir), "--requests", str(req), "--out", str(out), "--device", "cpu")
    assert proc.returncode == 0, proc.stderr
    table = pq.read_table(out)
    assert table.column_names == ["id", "n_tokens", "sum_logprob", "token_ids", "token_logprobs"]
    model, tokenizer, _ = load_causal(model_dir, device="cpu")
    expected = CausalScorer(model, tokenizer).score([ContinuationRequest(**x) for x in lines])
    assert table.column("id").to_pylist() == ["a", "b", "c"]
    for got, want in zip(table.column("sum_logprob").to_pylist(), expected, strict=True):
        assert got == pytest.approx(want.sum_logprob, abs=1e-6)
    assert b"choicelab.provenance" in pq.read_schema(out).metadata


@pytest.mark.slow
def test_score_rejects_a_malformed_request_line_naming_the_line(tmp_path, model_dir):
    req = tmp_path / "req.jsonl"
    req.write_text('{"id": "a", "context": "x"}\n')
    proc = _run("score", "--model", str(model_dir), "--requests", str(req), "--out", str(tmp_path / "o.parquet"))
    assert proc.returncode != 0
    assert "req.jsonl:1" in proc.stderr and "continuation" in proc.stderr
    assert not (tmp_path / "o.parquet").exists()


@pytest.mark.slow
def test_score_with_an_unknown_model_says_how_to_materialize_it(tmp_path):
    req = tmp_path / "req.jsonl"
    req.write_text('{"id": "a", "context": "x", "continuation": " y"}\n')
    proc = _run("score", "--model", "no-such-model", "--requests", str(req), "--out", str(tmp_path / "o.parquet"))
    assert proc.returncode != 0
    assert "no-such-model" in proc.stderr and "snakemake" in proc.stderr


def test_provenance_of_a_file_without_record_is_an_error(tmp_path):
    f = tmp_path / "x.csv"
    f.write_text("a\n")
    proc = _run("provenance", str(f))
    assert proc.returncode != 0 and "no provenance record" in proc.stderr


def test_provenance_prints_in_one_command_what_a_figure_rests_on(tmp_path, monkeypatch):
    """Prompts, data files, checkpoints (with their training rule and data), weights, the config file and the code
    version of a figure of a tiny run, each with its path."""
    from test_provenance import _fine_tuned_run

    figure = _fine_tuned_run(tmp_path, monkeypatch)
    proc = subprocess.run([sys.executable, "-m", "choicelab.cli", "provenance", str(figure)], capture_output=True,
                          text=True, timeout=120, env=repo_env(), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for section, path in (("prompts", "results/dump.parquet"), ("data files", "data/items.csv"),
                          ("fine-tuned checkpoints", "results/checkpoints/enc__seed1"),
                          ("weights", "results/models/enc/{model.safetensors}"), ("config", "results/config/"),
                          ("code", "git commit")):
        assert section in out and path in out, (section, path)
    assert "rule probes_finetune" in out and "[matches]" in out
    brief = _run("provenance", str(tmp_path / figure), "--brief").stdout
    assert "weights:" in brief and "lineage" not in brief


def test_a_misspelt_command_or_option_gets_a_did_you_mean(capsys):
    """Issue 41, first steps: argparse names what it refused; the user also learns what was meant."""
    from choicelab.cli import main

    for argv, hint in ((["card", "smollm2-135m-instruct", "--dryrun"], "'--dryrun': did you mean '--dry-run'?"),
                       (["shwo", "x"], "'shwo': did you mean 'show'?")):
        with pytest.raises(SystemExit) as stop:
            main(argv)
        assert stop.value.code == 2 and hint in capsys.readouterr().err
