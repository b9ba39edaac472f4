"""The smoke config runs the whole DAG inside pytest and produces every registered artifact with provenance."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import repo_env, run_snakemake

# Artifact ids of the foundation slice; each study's own test_<study>_smoke.py checks its full list.
EXPECTED_ARTIFACTS = {
    "revealed_belief/table_b1_1",
    "revealed_belief/table_b2_1",
    "revealed_belief/fig_single_die",
}


def test_smoke_dag_produces_every_artifact_id(smoke_run):
    manifest = json.loads((smoke_run / "results" / "manifest.json").read_text())
    ids = {a["id"] for a in manifest["artifacts"]}
    assert ids >= EXPECTED_ARTIFACTS
    for artifact in manifest["artifacts"]:
        assert artifact["reproduces"]
        for f in artifact["files"]:
            assert (smoke_run / f["path"]).exists()
            assert (smoke_run / f["provenance"]).exists()


def test_every_parquet_output_carries_provenance(smoke_run):
    from choicelab.io import read_parquet_metadata

    parquets = [p for p in (smoke_run / "results").rglob("*.parquet")]
    assert parquets
    for path in parquets:
        record = json.loads(read_parquet_metadata(path)["choicelab.provenance"])
        assert record["rule"] and "code_version" in record and "config_sha256" in record


def test_models_are_materialized_with_model_json(smoke_run):
    for name in ("tiny-llama", "tiny-gemma3", "tiny-bert"):
        meta_path = smoke_run / "results" / "models" / name / "model.json"
        if not meta_path.exists():
            continue  # a model no study of the smoke DAG uses is not materialized
        meta = json.loads(meta_path.read_text())
        assert len(meta["weights_sha256"]) == 64 and meta["source"].startswith("random:")


def test_provenance_command_prints_the_lineage_back_to_model_weights(smoke_run):
    table = smoke_run / "results" / "revealed_belief" / "tables" / "table_b1_1.csv"
    proc = subprocess.run([sys.executable, "-m", "choicelab.cli", "provenance", str(table)], capture_output=True,
                          text=True, timeout=120, env=repo_env())
    assert proc.returncode == 0, proc.stderr
    assert "revealed_belief/table_b1_1" in proc.stdout
    assert "model.json" in proc.stdout and "weights" in proc.stdout
    assert "scenarios.parquet" in proc.stdout


def test_a_second_run_has_nothing_to_do(smoke_run, data_mirror):
    proc = run_snakemake(smoke_run, data_mirror, "-n")
    assert proc.returncode == 0
    assert "Nothing to be done" in proc.stdout + proc.stderr


def test_snakemake_report_collects_every_table_and_figure_with_its_caption(smoke_run, data_mirror):
    report = smoke_run / "report.html"
    proc = run_snakemake(smoke_run, data_mirror, "--report", str(report))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    html = report.read_text(errors="replace")
    for study_caption in ("Tang &amp; Kejriwal", "STEER", "Revealed belief", "Prior bias", "Scoring methods"):
        assert study_caption in html or study_caption.replace("&amp;", "&") in html, study_caption
    assert "reproduces five published studies" in html  # the workflow description page
