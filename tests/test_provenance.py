"""Every output carries provenance; the manifest lists artifacts by id; lineage reaches items and weights."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

from choicelab.dumps import DumpRow, read_dump, write_dump
from choicelab.io import read_parquet_metadata, sha256_file, write_parquet, write_text
from choicelab.provenance import (
    build_manifest,
    check_artifact_id,
    format_lineage,
    lineage,
    make_record,
    read_record,
    record_json,
    write_artifact,
)
from choicelab.studies import STUDIES


def _row(item, option, score, label):
    return DumpRow(study="revealed_belief", benchmark="rb", split="", item_id=item, option_id=option,
                   option_text=str(option), variant="", context=f"prompt of {item}", model="m", method="sum_logprob",
                   token_ids=(1, 2), token_logprobs=(-0.5, -0.25), sum_logprob=-0.75, score=score, prob=0.5,
                   is_label=label)


def test_dump_round_trips_with_provenance_in_the_metadata(tmp_path):
    record = make_record(rule="r", inputs=[], params={"a": 1}, config={"seed": 1}, seed=1)
    path = tmp_path / "d.parquet"
    write_dump(path, [_row("i", 0, -1.0, True), _row("i", 1, -2.0, False)], record_json(record))
    table = read_dump(path)
    assert table.num_rows == 2
    assert table.column("n_tokens").to_pylist() == [2, 2]
    meta = json.loads(read_parquet_metadata(path)["choicelab.provenance"])
    for key in ("config_sha256", "inputs", "code_version", "library_versions", "seed"):
        assert key in meta


def test_empty_dump_is_refused(tmp_path):
    with pytest.raises(ValueError, match="empty logit dump"):
        write_dump(tmp_path / "d.parquet", [], "{}")
    assert not (tmp_path / "d.parquet").exists()


def test_records_are_deterministic_without_timestamps(tmp_path):
    f = tmp_path / "in.txt"
    f.write_text("x")
    a = make_record(rule="r", inputs=[f], params={}, config={"k": 1})
    b = make_record(rule="r", inputs=[f], params={}, config={"k": 1})
    assert record_json(a) == record_json(b)
    assert a["inputs"] == [{"path": str(f), "sha256": sha256_file(f)}]


@pytest.mark.parametrize("bad", ["Bets/table5", "bets/Table5", "study/table1", "bets/table 5", "bets"])
def test_artifact_ids_follow_the_naming_rule(bad):
    with pytest.raises(ValueError, match="artifact id"):
        check_artifact_id(bad, STUDIES)
    check_artifact_id("revealed_belief/table_b1_1", STUDIES)


def test_the_manifest_refuses_an_artifact_of_an_unregistered_study(tmp_path):
    """Sidecars are written with any well-formed id; the manifest, given the registry, names an unknown study."""
    f = tmp_path / "t.csv"
    f.write_text("a\n1\n")
    write_artifact([f], artifact_id="nostudy/table1", reproduces="x", caption="c",
                   record=make_record(rule="r", inputs=[]))
    with pytest.raises(ValueError, match=r"'nostudy/table1'.*study in \('revealed_belief'"):
        build_manifest([f], studies=STUDIES)


def test_manifest_lists_artifacts_with_files_and_paper_reference(tmp_path):
    items = tmp_path / "items.parquet"
    write_parquet(
        items, pa.table({"x": [1]}), {"choicelab.provenance": record_json(make_record(rule="items", inputs=[]))}
    )
    csv, png = tmp_path / "t.csv", tmp_path / "t.png"
    write_text(csv, "a\n1\n")
    write_text(png, "png")
    write_artifact([csv, png], artifact_id="bets/table5", reproduces="Table 5", caption="c",
                   record=make_record(rule="bets_table5", inputs=[items]))
    manifest = build_manifest([csv, png], studies=STUDIES)
    (entry,) = manifest["artifacts"]
    assert entry["id"] == "bets/table5" and entry["study"] == "bets" and entry["reproduces"] == "Table 5"
    assert [f["path"] for f in entry["files"]] == sorted([str(csv), str(png)])
    tree = lineage(csv)
    assert tree["inputs"][0]["path"] == str(items)
    assert tree["inputs"][0]["rule"] == "items"
    assert "bets/table5" in format_lineage(tree)


def test_manifest_refuses_a_file_without_sidecar(tmp_path):
    f = tmp_path / "orphan.csv"
    f.write_text("a")
    with pytest.raises(FileNotFoundError, match="sidecar"):
        build_manifest([f], studies=STUDIES)


def test_atomic_writer_leaves_nothing_on_failure(tmp_path):
    from choicelab.io import atomic_path

    target = tmp_path / "out.parquet"
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        tmp.write_text("partial")
        raise RuntimeError("killed")
    assert list(tmp_path.iterdir()) == []
    assert read_record(target) is None
