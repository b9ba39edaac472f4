"""bench/paper_plan.py, the paper run's GPU-hours plan (issue 39): every model job of configs/paper.yaml is planned,
the totals are the sums of the rows, and what was not measured says so (an unknown model size is an estimate, never
a silent zero). Offline, on the data mirror; the dry-run comparison runs Snakemake and is marked slow."""

from __future__ import annotations

import importlib.util
import re
import sys
from collections import Counter
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parents[1] / "bench" / "paper_plan.py"
SAMPLE = 12  # items per set behind the token means: small keeps the plan of 393 jobs within seconds


def load_plan():
    if "bench_paper_plan" not in sys.modules:
        spec = importlib.util.spec_from_file_location("bench_paper_plan", SCRIPT)
        module = importlib.util.module_from_spec(spec)
        sys.modules["bench_paper_plan"] = module  # dataclasses look their module up
        spec.loader.exec_module(module)
    return sys.modules["bench_paper_plan"]


@pytest.fixture(scope="module")
def pp():
    return load_plan()


@pytest.fixture(scope="module")
def paper(pp):
    config = pp.load_config("configs/paper.yaml")
    jobs = pp.config_jobs(config)
    return config, jobs, pp.plan(jobs, config, sample=SAMPLE)


def key(job) -> tuple:
    return job.rule, tuple(sorted(job.wildcards.items()))


def test_every_model_job_of_the_paper_config_has_a_row(pp, paper):
    config, jobs, rows = paper
    assert len(rows) == len(jobs) == 393
    per_rule = Counter(job.rule for job in jobs)
    # the dry run's job stats for configs/paper.yaml (snakemake -n; the slow test below compares job by job)
    assert per_rule == {"bets_default_stage": 12, "bets_task_finetune": 84, "bets_score": 96, "probes_finetune": 12,
                        "probes_score": 12, "probes_control_score": 3, "probes_causal_score": 26, "probes_time": 4,
                        "rb_revealed": 22, "rb_stated": 11, "sm_score": 2, "sm_grid_score": 13, "steer_score": 96}
    every_model = {m for s in ("revealed_belief", "steer", "bets") for m in config["studies"][s]["models"]}
    every_model |= set(config["studies"]["scoring_methods"]["models"])
    every_model |= {*config["studies"]["probes"]["causal_models"], *config["studies"]["probes"]["control_models"]}
    assert {row.model for row in rows} == every_model
    for row in rows:
        assert row.hours > 0 and row.tokens > 0 and row.items > 0, row
        assert row.gpus == config["models"][row.model]["gpu"]


def test_totals_are_the_sums_of_the_rows(pp, paper):
    _, _, rows = paper
    totals = pp.totals(rows)
    assert totals["total"] == pytest.approx(sum(r.hours for r in rows))
    assert totals["total"] == pytest.approx(sum(v for k, v in totals.items() if k != "total"))
    for row in rows:
        assert row.hours == pytest.approx(sum(row.split.values()))
    merged = pp.merge(rows)
    assert sum(r.jobs for r in merged) == len(rows)
    assert sum(r.hours for r in merged) == pytest.approx(totals["total"])
    text = pp.tables(rows, "configs/paper.yaml")
    total_line = next(line for line in text.splitlines() if line.startswith("| **total** |"))
    assert f"**{totals['total']:.1f}**" in total_line
    cells = total_line.split("|")[5:9]  # measured, scaled, generation, load
    assert sum(float(c) for c in cells) == pytest.approx(totals["total"], abs=0.3)


def test_measured_shapes_are_measured_and_the_rest_say_how_they_were_estimated(pp, paper):
    _, _, rows = paper
    by = {(r.kind, r.model): r for r in rows}
    assert by[("RevB scoring", "llama-3-8b")].rate_source.startswith("measured (Llama-3-8B shape")
    assert by[("RevB scoring", "llama-3-70b")].rate_source.startswith("scaled from Llama-3-8B shape")
    assert by[("RevB scoring", "qwen2-72b")].tokens_source.startswith("own tokenizer: Qwen2 BPE")
    assert by[("RevB scoring", "llama-3-70b")].tokens_source.startswith("estimated: Qwen2 BPE stand-in")
    bert, roberta = by[("MC scoring", "bert-base-uncased")], by[("MC scoring", "roberta-base")]
    assert bert.tokens_source.startswith("own tokenizer: BERT uncased WordPiece")
    assert 0.7 < bert.tokens / roberta.tokens < 1.5  # English in WordPiece and BPE alike (no padding counted)
    assert "measured (roberta-large shape, probes recipe" in by[("fine-tune", "roberta-large")].rate_source
    assert by[("fine-tune", "roberta-large")].items_source.startswith("estimated")  # full train releases
    steer = [r for r in rows if r.study == "steer" and r.gen_tokens > 0]
    assert steer and all(r.split["generation"] > 0 and "generation estimated" in r.rate_source for r in steer)
    # a model on 4 GPUs counts 4 GPU-hours per hour: the same job on 1 GPU would cost a quarter
    seventy = by[("RevB scoring", "llama-3-70b")]
    assert seventy.gpus == 4


def test_an_unknown_model_size_is_estimated_not_zero(pp, paper):
    config, _, _ = paper
    config = {**config, "models": {**config["models"],
                                   "mystery-lm": {"kind": "causal", "source": "hf:someone/mystery", "gpu": 1},
                                   "foo-3b": {"kind": "causal", "source": "hf:someone/foo-3b", "gpu": 1}}}
    items = pp.Items(config, SAMPLE)
    unknown = pp.plan_job(pp.Job("rb_revealed", {"model": "mystery-lm"}, 1), items, config)
    assert unknown.hours > 0
    assert "estimated (size unknown" in unknown.rate_source
    assert unknown.tokens_source.startswith("estimated")
    named = pp.plan_job(pp.Job("rb_revealed", {"model": "foo-3b"}, 1), items, config)
    assert "estimated (size from the name)" in named.rate_source and named.hours > 0
    with pytest.raises(KeyError, match="rule 'new_gpu_rule'"):
        pp.plan_job(pp.Job("new_gpu_rule", {"model": "foo-3b"}, 1), items, config)


def test_a_dry_run_is_parsed_into_jobs_and_only_gpu_model_jobs_are_kept(pp):
    text = """
rule prepare_model:
    wildcards: model=llama-3-8b
    resources: tmpdir=/tmp, runtime=60, gpu=0, mem_mb=8000
[Sat Nov 28 15:45:46 2026]
rule rb_revealed:
    input: results/revealed_belief/scenarios.parquet, results/models/yi-1.5-34b
    jobid: 21
    wildcards: model=yi-1.5-34b
    resources: tmpdir=/tmp, runtime=60, gpu=2, mem_mb=8000, mem=8 GB, mem_mib=7630
[Sat Nov 28 15:45:46 2026]
rule steer_score:
    wildcards: model=llama-13b, adaptation=5shot
    resources: tmpdir=/tmp, runtime=60, gpu=1, mem_mb=8000
rule manifest:
    jobid: 0
"""
    jobs = pp.parse_jobs(text)
    assert [j.rule for j in jobs] == ["prepare_model", "rb_revealed", "steer_score", "manifest"]
    kept = pp.model_jobs(jobs)
    assert [(j.rule, dict(j.wildcards), j.gpus) for j in kept] == [
        ("rb_revealed", {"model": "yi-1.5-34b"}, 2), ("steer_score", {"model": "llama-13b", "adaptation": "5shot"}, 1)]


def test_write_docs_replaces_only_the_generated_block(pp, tmp_path):
    doc = tmp_path / "paper_run.md"
    doc.write_text("# Title\n\nprose before\n")
    pp.write_docs(doc, "table one")
    pp.write_docs(doc, "table two")
    text = doc.read_text()
    assert text.startswith("# Title\n\nprose before\n") and "table two" in text and "table one" not in text
    assert len(re.findall("paper_plan: begin", text)) == 1


@pytest.mark.slow
def test_the_study_job_plans_are_the_dry_runs_model_jobs(pp):
    config = pp.load_config("configs/paper.yaml")
    dry = pp.model_jobs(pp.parse_jobs(pp.dry_run_text("configs/paper.yaml")))
    assert sorted(map(key, dry)) == sorted(map(key, pp.config_jobs(config)))
    assert {j.rule for j in dry} == set(pp.MODEL_RULES)
