"""Every output carries provenance; the manifest lists artifacts by id; lineage reaches items and weights."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

from choicelab.dumps import DumpRow, read_dump, write_dump
from choicelab.io import read_parquet_metadata, sha256_file, write_parquet, write_text
from choicelab.lm.recipe import Recipe
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


# -- provenance that reaches everything: the saved config, the models of every output, checkpoints' training rule --


def _model_folder(folder, name, source, **extra):
    """A model folder as prepare_model or a fine-tuning rule leaves it (model.json, and a stand-in weight file whose
    sha256 it records)."""
    folder.mkdir(parents=True)
    write_text(folder / "model.safetensors", f"weights of {name}")
    meta = {"name": name, "source": source, "weights_sha256": (name.encode().hex() * 64)[:64],
            "weights_files": {"model.safetensors": sha256_file(folder / "model.safetensors")}, **extra}
    write_text(folder / "model.json", json.dumps(meta))
    return folder


def test_the_saved_config_file_is_named_by_every_record_and_sha256sum_matches(tmp_path):
    import hashlib

    import yaml

    from choicelab.provenance import config_hash, save_config

    config = {"seed": 7, "models": {"m": {"source": "random:llama"}}, "studies": {"bets": {"enabled": False}}}
    saved = save_config(config, tmp_path)
    record = make_record(rule="r", inputs=[], config=config)
    assert record["config"]["path"] == f"results/config/{config_hash(config)}.yaml" == str(saved.relative_to(tmp_path))
    assert hashlib.sha256(saved.read_bytes()).hexdigest() == record["config"]["sha256"]
    assert yaml.safe_load(saved.read_text()) == config
    assert make_record(rule="r", inputs=[])["config"] is None  # no config, no claim of one


def test_an_output_lists_the_models_of_its_inputs_with_their_weights(tmp_path):
    """A figure drawn from a dump names the model that scored the dump, without its script passing it."""
    model = _model_folder(tmp_path / "results" / "models" / "m", "m", "random:llama")
    dump = tmp_path / "d.parquet"
    write_dump(dump, [_row("i", 0, -1.0, True)], record_json(make_record(rule="score", inputs=[], models=[model])))
    figure = tmp_path / "fig2.png"
    write_text(figure, "png")
    record = make_record(rule="figures", inputs=[dump])
    (listed,) = record["models"]
    assert listed["name"] == "m" and listed["weights_sha256"] == json.loads((model / "model.json").read_text())[
        "weights_sha256"]
    write_artifact([figure], artifact_id="revealed_belief/fig2", reproduces="Figure 2", caption="c", record=record)
    assert json.loads((tmp_path / "fig2.png.prov.json").read_text())["models"] == record["models"]


def _fine_tuned_run(tmp_path, monkeypatch):
    """A tiny run in ``tmp_path`` (the working directory, as Snakemake's: records hold relative paths): a base model,
    training data, a checkpoint trained on it by its rule, a dump scored with the checkpoint (prompts in its context
    column) and a figure drawn from the dump."""
    from pathlib import Path

    from choicelab.provenance import save_config, write_model_record

    monkeypatch.chdir(tmp_path)
    config = {"seed": 1}
    save_config(config)
    results = Path("results")
    base = _model_folder(results / "models" / "enc", "enc", "random:bert")
    write_model_record(base, make_record(rule="prepare_model", inputs=[], params={"spec": "{}"}, config=config))
    items = Path("data") / "items.csv"
    items.parent.mkdir()
    items.write_text("id\n1\n")
    train = results / "train.parquet"
    write_parquet(train, pa.table({"x": [1]}),
                  {"choicelab.provenance": record_json(make_record(rule="benchmark", inputs=[items], config=config))})
    checkpoint = _model_folder(results / "checkpoints" / "enc__seed1", "enc__seed1", "finetune:enc",
                               base_model={"name": "enc", "weights_sha256": "b" * 64},
                               training={"dev_items": 20, "best_dev_accuracy": 0.8})
    write_model_record(checkpoint, make_record(rule="probes_finetune", inputs=[base, train],
                                               params={"finetune": {"learning_rate": 1e-5}}, config=config))
    dump = results / "dump.parquet"
    write_dump(dump, [_row("i", 0, -1.0, True)],
               record_json(make_record(rule="probes_score", inputs=[checkpoint], models=[checkpoint], config=config)))
    figure = Path("figures") / "fig1.png"
    write_text(figure, "png")
    write_artifact([figure], artifact_id="probes/fig1", reproduces="Figure 1", caption="c",
                   record=make_record(rule="probes_figures", inputs=[dump], config=config))
    return figure


def test_a_checkpoint_is_credited_to_its_training_rule_with_its_recipe_and_data(tmp_path, monkeypatch):
    figure = _fine_tuned_run(tmp_path, monkeypatch)
    text = format_lineage(lineage(figure))
    assert "rule probes_finetune" in text and "rule prepare_model" in text
    assert "results/train.parquet" in text and "data/items.csv" in text  # the training data, back to its source
    from choicelab.provenance import audit

    report = audit(lineage(figure), tmp_path)
    (checkpoint,) = report["checkpoints"]
    assert checkpoint["rule"] == "probes_finetune" and checkpoint["recipe"] == {"finetune": {"learning_rate": 1e-5}}
    assert "results/train.parquet" in checkpoint["training_data"]
    assert [w["name"] for w in report["weights"]] == ["enc"]
    assert [m["name"] for m in report["models"]] == ["enc__seed1"]


def test_a_model_folder_without_its_record_is_not_credited_to_a_guessed_rule(tmp_path):
    folder = _model_folder(tmp_path / "m", "ck", "finetune:enc")
    record = read_record(folder)
    assert record["rule"] is None and "provenance.json" in record["note"]
    assert "re-run" in format_lineage(lineage(folder))


def test_the_audit_names_prompts_data_checkpoints_weights_config_and_code(tmp_path, monkeypatch):
    from choicelab.provenance import audit, format_audit

    figure = _fine_tuned_run(tmp_path, monkeypatch)
    report = audit(lineage(figure), tmp_path)
    assert report["prompts"] == ["results/dump.parquet"]
    assert [p for p, _ in report["data_files"]] == ["data/items.csv"]
    (config,) = report["config"]
    assert config["status"] == "matches"
    text = format_audit(report)
    for expected in ("results/dump.parquet", "data/items.csv", "results/checkpoints/enc__seed1",
                     "trained on: results/train.parquet", "results/models/enc/{model.safetensors}", "git commit",
                     config["path"]):
        assert expected in text, expected
    (tmp_path / config["path"]).write_text("seed: 2\n")  # an edited config file no longer matches its record
    assert audit(lineage(figure), tmp_path)["config"][0]["status"] == "differs"


def test_every_record_of_a_run_names_the_config_file_the_run_saved(smoke_run):
    import hashlib

    sidecars = sorted(smoke_run.rglob(f"*{'.prov.json'}"))
    assert sidecars
    for side in sidecars:
        reference = json.loads(side.read_text())["config"]
        saved = smoke_run / reference["path"]
        assert saved.is_file(), side
        assert hashlib.sha256(saved.read_bytes()).hexdigest() == reference["sha256"], side


def test_a_figure_drawn_from_dumps_lists_the_models_that_scored_them(smoke_run):
    record = json.loads((smoke_run / "figures" / "revealed_belief" / "fig2.png.prov.json").read_text())
    assert record["models"] and all(len(m["weights_sha256"]) == 64 for m in record["models"])


def test_a_fine_tuned_checkpoint_carries_its_rule_and_its_accuracies_n_and_interval(tmp_path, monkeypatch):
    """model.json's dev accuracy measured on a few items says how few and how uncertain; provenance.json credits the
    training rule, whose inputs are the base model and the training data."""
    from choicelab.lm.prepare import prepare_model
    from choicelab.mc.finetune import CheckpointOut, TrainingData, fine_tune_checkpoint
    from choicelab.mc.items import write_items
    from choicelab.stats import exact_interval
    from conftest import toy_items

    monkeypatch.chdir(tmp_path)
    prepare_model("tiny-bert", {"kind": "encoder", "source": "random:bert"}, tmp_path / "results/models/tiny-bert",
                  seed=0)
    train, dev = toy_items(16, 0, "train", 2), toy_items(8, 1, "dev", 2)
    write_items("train.parquet", train, record_json(make_record(rule="benchmark", inputs=[])))
    record = make_record(rule="probes_finetune", inputs=["results/models/tiny-bert", "train.parquet"],
                         params={"finetune": {"learning_rate": 5e-3}})
    meta = fine_tune_checkpoint("results/models/tiny-bert", TrainingData(train, dev, evaluation=dev),
                                Recipe(learning_rate=5e-3, batch_size=8, max_epochs=1, seed=0, input_format="pair",
                                       max_length=128), CheckpointOut("ckpt", "ck", record), device="cpu")
    dev_interval = meta["training"]["accuracy_intervals"]["best_dev_accuracy"]
    assert dev_interval["n"] == 8 and dev_interval["accuracy"] == meta["training"]["best_dev_accuracy"]
    assert dev_interval["ci95"] == list(exact_interval(dev_interval["correct"], 8))
    assert meta["training"]["accuracy_intervals"]["evaluation_accuracy"]["n"] == 8
    text = format_lineage(lineage("ckpt"))
    assert "rule probes_finetune" in text and "train.parquet" in text and "results/models/tiny-bert" in text


def test_a_figure_of_a_run_audits_back_to_its_checkpoints_training_rule_and_data(smoke_run):
    from choicelab.provenance import audit

    report = audit(lineage(smoke_run / "figures" / "probes" / "fig3.png"), smoke_run)
    assert report["checkpoints"] and report["prompts"] and report["data_files"]
    for checkpoint in report["checkpoints"]:
        assert checkpoint["rule"] == "probes_finetune" and checkpoint["recipe"]["finetune"], checkpoint["dir"]
        assert any(p.endswith(".train.parquet") for p in checkpoint["training_data"]), checkpoint
    assert [c["status"] for c in report["config"]] == ["matches"]


def test_the_lineage_reads_the_runs_own_files_not_those_of_the_current_directory(tmp_path, monkeypatch):
    run = tmp_path / "run"
    run.mkdir()
    figure = run / _fine_tuned_run(run, monkeypatch)
    elsewhere = tmp_path / "elsewhere"  # another run's results where the command is typed
    (elsewhere / "results" / "checkpoints" / "enc__seed1").mkdir(parents=True)
    write_text(elsewhere / "results" / "checkpoints" / "enc__seed1" / "model.json",
               json.dumps({"name": "other", "source": "finetune:x", "weights_sha256": "c" * 64}))
    monkeypatch.chdir(elsewhere)
    text = format_lineage(lineage(figure))
    assert "rule probes_finetune" in text and "model other" not in text
