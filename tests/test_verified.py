"""What a reviewer checks: a file on disk is the file its record names, and malformed input never becomes a number.

Each case is one a careful user tried: weights damaged after a model was prepared, a record's input changed or
deleted, an empty continuation, a request with a number for a context, a file that is not UTF-8, a list in the
config that repeats itself, and an error the user can fix raised inside a workflow job."""

from __future__ import annotations

import copy
import os
from pathlib import Path

import pytest
import yaml

from choicelab import io
from choicelab.config import ConfigError, validate_config
from choicelab.lm.requests import ContinuationRequest
from conftest import REPO


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CHOICELAB_CACHE", str(tmp_path / "cache"))


@pytest.fixture
def tiny_model(tmp_path):
    from choicelab.lm.prepare import prepare_model

    out = tmp_path / "models" / "tiny-llama"
    prepare_model("tiny-llama", {"kind": "causal", "source": "random:llama"}, out, seed=0)
    return out


def _damage(path: Path, *, truncate: bool = False) -> None:
    """Flip 4 KiB in the middle of ``path`` (or cut its second half), keeping its mtime, as the reviewer did."""
    stat = path.stat()
    data = bytearray(path.read_bytes())
    if truncate:
        data = data[: len(data) // 2]
    else:
        middle = len(data) // 2
        data[middle : middle + 4096] = bytes(b ^ 0xFF for b in data[middle : middle + 4096])
    path.write_bytes(bytes(data))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


@pytest.mark.parametrize("truncate", [False, True], ids=["flipped", "truncated"])
def test_damaged_weights_are_refused_on_load_naming_the_model_and_the_fix(tiny_model, truncate):
    from choicelab.lm.loading import WeightsError, load_causal

    load_causal(tiny_model, device="cpu")  # the check passes on the prepared weights (and remembers their hash)
    _damage(tiny_model / "model.safetensors", truncate=truncate)
    with pytest.raises(WeightsError, match=r"tiny-llama.*model\.safetensors.*prepare it again"):
        load_causal(tiny_model, device="cpu")


def test_a_second_load_of_unchanged_weights_reads_none_of_their_bytes(tiny_model, monkeypatch):
    from choicelab.lm.loading import load_causal

    load_causal(tiny_model, device="cpu")
    read = []
    monkeypatch.setattr(io, "sha256_file", lambda path, *a, **k: read.append(path))
    load_causal(tiny_model, device="cpu")
    assert read == []


def _output_with_record(tmp_path: Path, model: Path) -> tuple[Path, Path]:
    from choicelab.provenance import make_record, write_sidecar

    data = tmp_path / "items.csv"
    data.write_text("id,text\n1,a\n")
    out = tmp_path / "results" / "table.csv"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("id,score\n1,0.5\n")
    write_sidecar(out, make_record(rule="r", inputs=[data], models=[model]))
    return out, data


def _statuses(checks) -> dict[str, str]:
    return {Path(c["path"]).name: c["status"] for c in checks}


def test_verify_rehashes_the_output_its_inputs_and_the_weights_and_names_what_changed(tmp_path, tiny_model):
    from choicelab.provenance import verify

    out, data = _output_with_record(tmp_path, tiny_model)
    assert set(_statuses(verify([out], tmp_path)).values()) == {"ok"}
    assert {"table.csv", "items.csv", "model.safetensors"} <= set(_statuses(verify([out], tmp_path)))
    _damage(tiny_model / "model.safetensors")
    data.unlink()
    out.write_text("id,score\n1,0.9\n")
    statuses = _statuses(verify([out], tmp_path))
    assert statuses["model.safetensors"] == "changed" and statuses["items.csv"] == "missing"
    assert statuses["table.csv"] == "changed"


def test_verify_and_provenance_exit_non_zero_on_a_changed_file(tmp_path, tiny_model, capsys, monkeypatch):
    from choicelab.cli import main

    out, _ = _output_with_record(tmp_path, tiny_model)
    monkeypatch.chdir(tmp_path)
    main(["verify", "results"])
    listed = capsys.readouterr().out
    assert "0 changed, 0 missing" in listed and "OK       results/table.csv" in listed  # each file, with its status
    _damage(tiny_model / "model.safetensors")
    for command in (["verify", "results"], ["provenance", str(out), "--brief"]):
        with pytest.raises(SystemExit) as stop:
            main(command)
        assert stop.value.code == 1
        assert "CHANGED" in capsys.readouterr().out


def test_an_empty_continuation_or_a_non_string_field_is_refused_before_scoring():
    with pytest.raises(ValueError, match="'continuation' is empty"):
        ContinuationRequest("a", "The sky is", "")
    with pytest.raises(TypeError, match="'context' must be a string, not int"):
        ContinuationRequest("a", 123, " blue")


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b'{"id": "a", "context": "x", "continuation": " y"}\n{"id": "b", "context": 123, "continuation": " y"}\n',
         r"r\.jsonl:2: .*'context' must be a string"),
        (b'{"id": "a", "context": "x", "continuation": ""}\n', r"r\.jsonl:1: .*'continuation' is empty"),
        (b'{"id": "a", "context": "x", "continuation": " y"}\n'
         b'{"id": "b", "context": "caf\xe9", "continuation": " y"}\n', r"r\.jsonl:2: not UTF-8"),
        (b'{"id": "a", "context": "x"}\n', r"r\.jsonl:1: .*'continuation'"),
        (b'["a", "x", " y"]\n', r"r\.jsonl:1: .*not an object"),
    ],
    ids=["number-context", "empty-continuation", "latin-1", "missing-field", "not-an-object"],
)
def test_a_malformed_requests_file_is_refused_with_file_and_line(tmp_path, content, expected):
    from choicelab.cli import read_requests

    path = tmp_path / "r.jsonl"
    path.write_bytes(content)
    with pytest.raises(SystemExit, match=expected):
        read_requests(path)


@pytest.mark.parametrize(
    ("keys", "value"),
    [
        (("studies", "scoring_methods", "label_seeds"), [0, 0]),
        (("studies", "revealed_belief", "faces"), [4, 4]),
        (("studies", "steer", "models"), ["smollm2", "smollm2"]),
        (("studies", "steer", "adaptations"), [{"shots": 0}, {"shots": 0}]),
    ],
    ids=lambda v: ".".join(v) if isinstance(v, tuple) else None,
)
def test_a_list_that_repeats_an_entry_is_refused_naming_the_key(keys, value):
    config = copy.deepcopy(yaml.safe_load((REPO / "config.yaml").read_text()))
    section = config
    for key in keys[:-1]:
        section = section.setdefault(key, {})
    section[keys[-1]] = value
    with pytest.raises(ConfigError, match=rf"'{'.'.join(keys)}'.*non-unique"):
        validate_config(config)


def test_an_error_the_user_can_fix_prints_its_message_not_a_traceback(tmp_path, capsys):
    from choicelab.hub import HubModelError
    from choicelab.workflow import log_to

    log = tmp_path / "job.log"
    with pytest.raises(SystemExit) as stop, log_to(str(log)):
        raise HubModelError("model 'm': the hub is out of reach; set HF_HUB_OFFLINE=1")
    err = capsys.readouterr().err
    assert stop.value.code == 1
    assert "HF_HUB_OFFLINE=1" in err and "Traceback" not in err and str(log) in err
    assert "Traceback" in log.read_text()


def test_a_defect_keeps_its_traceback(tmp_path):
    from choicelab.workflow import log_to

    with pytest.raises(ZeroDivisionError), log_to(str(tmp_path / "job.log")):
        _ = 1 / 0
    assert "Traceback" in (tmp_path / "job.log").read_text()


def test_scoring_an_encoder_without_a_trained_head_is_refused_not_seeded(tmp_path):
    """A checkpoint to score is loaded with seed=None: an encoder without a multiple-choice head is refused naming the
    folder, where a seed would have drawn a random head and scored it silently."""
    import json

    from transformers import AutoModel

    from choicelab.io import sha256_file
    from choicelab.lm.loading import load_encoder_mc
    from choicelab.lm.prepare import prepare_model

    model_dir = tmp_path / "models" / "tiny-bert"
    prepare_model("tiny-bert", {"kind": "encoder", "source": "random:bert"}, model_dir, seed=0)
    load_encoder_mc(model_dir, seed=None, device="cpu")  # a model with its head scores as it is
    AutoModel.from_pretrained(str(model_dir)).save_pretrained(model_dir)  # the bare encoder, its head dropped
    meta = json.loads((model_dir / "model.json").read_text())
    meta["weights_files"] = {name: sha256_file(model_dir / name) for name in meta["weights_files"]}
    (model_dir / "model.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match=f"{model_dir} has no multiple-choice head"):
        load_encoder_mc(model_dir, seed=None, device="cpu")
    load_encoder_mc(model_dir, seed=0, device="cpu")  # fine-tuning starts from a seeded head
