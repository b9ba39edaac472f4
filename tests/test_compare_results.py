"""bench/compare_results.py lists every output that differs between two runs, and only what may not differ: the
code version and the checkout's path are left out, a changed table, a missing or a new file are reported."""

from __future__ import annotations

import importlib.util
import json

import pyarrow as pa

from choicelab.io import write_parquet
from conftest import REPO


def _compare_module():
    spec = importlib.util.spec_from_file_location("compare_results", REPO / "bench" / "compare_results.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(root, commit, csv_text="a\n1\n"):
    results = root / "results"
    (results / "t").mkdir(parents=True)
    (results / "t" / "x.csv").write_text(csv_text)
    record = {"code_version": {"git_commit": commit}, "config_sha256": "c",
              "inputs": [{"path": f"{root}/data/items.yaml", "sha256": "s"},
                         {"path": "results/t/d.parquet", "sha256": commit}]}
    (results / "t" / "x.csv.prov.json").write_text(json.dumps(record))
    (results / "models" / "m").mkdir(parents=True)  # a model folder's own record: the rule that made it
    (results / "models" / "m" / "provenance.json").write_text(json.dumps({**record, "rule": "prepare_model"}))
    write_parquet(results / "t" / "d.parquet", pa.table({"v": [1.0, float("nan")]}),
                  {"choicelab.provenance": json.dumps({"code_version": {"git_commit": commit}, "rule": "r"})})
    (results / "logs").mkdir()
    (results / "logs" / "job.log").write_text(commit)
    return results


def test_runs_that_differ_only_in_commit_and_checkout_path_are_identical(tmp_path):
    compare = _compare_module().compare
    before, after = _run(tmp_path / "a", "1111"), _run(tmp_path / "b", "2222")
    result = compare(before, after, str(tmp_path / "a"), str(tmp_path / "b"))
    assert result["identical"] == ["models/m/provenance.json", "t/d.parquet", "t/x.csv",
                                   "t/x.csv.prov.json"]  # NaN in d.parquet equals NaN
    assert result["different"] == [] and result["not_compared"] == ["logs/job.log"]


def test_a_changed_table_a_lost_and_a_new_file_are_listed(tmp_path):
    compare = _compare_module().compare
    before, after = _run(tmp_path / "a", "1111"), _run(tmp_path / "b", "1111", csv_text="a\n2\n")
    (before / "t" / "gone.md").write_text("x")
    (after / "t" / "new.md").write_text("x")
    result = compare(before, after, str(tmp_path / "a"), str(tmp_path / "b"))
    assert result["different"] == ["t/x.csv"]
    assert (result["only_before"], result["only_after"]) == (["t/gone.md"], ["t/new.md"])


def test_a_renamed_config_and_another_mirror_folder_count_as_the_same_run(tmp_path):
    """--config=OLD=NEW: a deliberate config edit renames the saved config its records name; --path=OLD=NEW: the
    run before read the data mirror from another folder."""
    module = _compare_module()
    for name, config, mirror in (("a", "old", "/elsewhere/shared"), ("b", "new", "/here/shared")):
        results = tmp_path / name / "results"
        (results / "t").mkdir(parents=True)
        (results / "t" / "x.csv").write_text("a\n1\n")
        record = {"config_sha256": config, "config": {"path": f"results/config/{config}.yaml", "sha256": config * 2},
                  "inputs": [{"path": f"{mirror}/data/items.jsonl", "sha256": "s"}]}
        (results / "t" / "x.csv.prov.json").write_text(json.dumps(record))
    compare = module.compare
    assert compare(tmp_path / "a" / "results", tmp_path / "b" / "results", "/r", "/r")["different"] == [
        "t/x.csv.prov.json"]
    module.CONFIG_RENAMES["old"], module.PATH_RENAMES["/elsewhere/shared"] = "new", "/here/shared"
    assert compare(tmp_path / "a" / "results", tmp_path / "b" / "results", "/r", "/r")["different"] == []
