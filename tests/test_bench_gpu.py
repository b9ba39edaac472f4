"""bench/gpu.py, the one-call GPU benchmark of issue 28, runs end to end in --tiny mode on a CPU (tiny shapes, the
same code path as on the device) and writes the JSON fields the README's GPU table is made from."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parents[1] / "bench" / "gpu.py"


def load_gpu():
    spec = importlib.util.spec_from_file_location("bench_gpu", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def tiny_report(tmp_path_factory) -> tuple[dict, str]:
    out = tmp_path_factory.mktemp("gpu") / "gpu.json"
    gpu = load_gpu()
    assert gpu.main(["--tiny", "--skip-lm-eval", "--models", "1b", "--out", str(out)]) == 0
    return json.loads(out.read_text()), str(out)


def test_tiny_run_reports_engine_rates_share_of_peak_and_agreement(tiny_report):
    report, _ = tiny_report
    assert report["finished"] is True
    assert report["environment"]["device_type"] == "cpu" and report["environment"]["tiny"] is True
    assert report["peak_bf16"]["flops_per_s"] > 0
    scoring = report["scoring"]["1b"]
    assert scoring["requests"] == 4 * scoring["questions"]
    # 4 options share each context: the engine runs it once, lm-eval four times
    assert scoring["useful_flops"]["engine"] < scoring["useful_flops"]["lm_eval"] / 1.5
    engine = scoring["engine"]
    assert engine[0]["default_budget"] is True and len({row["budget"] for row in engine}) == len(engine) >= 2
    for row in engine:
        for key in ("seconds", "repeat_seconds", "requests_per_s", "tokens_per_s", "share_of_peak"):
            assert row[key] > 0, (row["label"], key)
        assert "peak_memory_gib" in row and row["oom_retries"] == 0
    assert scoring["lm_eval"] == [] and "ratio" not in scoring  # --skip-lm-eval
    naive = scoring["agreement"]["engine_vs_naive"]
    assert naive["max_abs_delta_token"] <= naive["token_tolerance"]
    assert naive["questions"] >= 1 and 0 <= naive["same_argmax"] <= naive["questions"]
    # the budget changes batch shapes only: summed log-probs stay within one token's bf16 tolerance
    assert scoring["agreement"]["engine_budgets_max_abs_delta_sum"] <= naive["token_tolerance"]


def test_tiny_run_reports_fine_tuning_in_both_precisions_and_mc_head_scoring(tiny_report):
    report, _ = tiny_report
    finetune = report["finetune"]
    runs = {(row["recipe"], row["mode"]): row for row in finetune["runs"]}
    recipes = {recipe for recipe, _ in runs}
    assert len(recipes) == 3 and {mode for _, mode in runs} == {"fp32", "project"}
    for row in finetune["runs"]:
        assert row["items_per_s"] > 0 and row["share_of_peak"] > 0 and row["steps"] >= 1
        assert row["precision"] == "fp32"  # on a CPU the project trains in fp32 too
    assert set(finetune["speedup"]) == recipes
    assert [row["mode"] for row in finetune["mc_logits"]] == ["fp32", "project"]


def test_merge_combines_section_reports_and_notes_a_missing_one(tiny_report, tmp_path, capsys):
    _, path = tiny_report
    gpu = load_gpu()
    out = tmp_path / "all.json"
    assert gpu.main(["--merge", path, str(tmp_path / "killed.json"), "--out", str(out)]) == 0
    merged = json.loads(out.read_text())
    assert set(merged["scoring"]) == {"1b"} and merged["finetune"]["runs"]
    assert merged["runs"][1] == {"file": str(tmp_path / "killed.json"), "missing": True}
    printed = capsys.readouterr().out
    assert "scoring 1b" in printed and "did not finish" in printed
