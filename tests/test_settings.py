"""Every study's settings, one way: a frozen dataclass per config section whose fields are the schema's keys (in the
schema's order), read by the one generic reader (choicelab.settings.read) from a validated config -- defaults and
allowed values live only in schemas/config.schema.yaml -- and handed to rules and provenance records as JSON."""

from __future__ import annotations

import copy
import dataclasses
import importlib
import json
import re
import typing
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from choicelab.config import load_schema, validate_config
from choicelab.settings import SettingsError, field, read, run_settings
from choicelab.studies import STUDIES, settings_of_record, study_settings

REPO = Path(__file__).resolve().parent.parent
CONFIGS = ["config.yaml", "configs/smoke.yaml", "configs/paper.yaml"]


def settings_class(study: str) -> type:
    return importlib.import_module(f"choicelab.studies.{study}.settings").Settings


def section_schema(study: str) -> dict:
    return load_schema()["properties"]["studies"]["properties"][study]


def nested(cls: type) -> dict[str, type]:
    """The fields of ``cls`` that are settings sections of their own (nested dataclasses read key by key)."""
    hints = typing.get_type_hints(cls)
    return {f.name: hints[f.name] for f in dataclasses.fields(cls)
            if dataclasses.is_dataclass(hints[f.name]) and not hasattr(hints[f.name], "from_setting")}


def validated(path: str) -> dict:
    config = yaml.safe_load((REPO / path).read_text())
    validate_config(config)
    return config


@pytest.mark.parametrize("study", list(STUDIES))
def test_settings_fields_are_the_schema_keys_in_the_schema_order(study):
    def check(cls: type, schema: dict, key: str) -> None:
        assert [f.name for f in dataclasses.fields(cls)] == list(schema["properties"]), key
        for name, sub in nested(cls).items():
            check(sub, schema["properties"][name], f"{key}.{name}")

    check(settings_class(study), section_schema(study), f"studies.{study}")


@pytest.mark.parametrize("study", list(STUDIES))
def test_every_optional_key_has_its_default_in_the_schema(study):
    def check(cls: type, schema: dict, key: str) -> None:
        optional = set(schema["properties"]) - set(schema.get("required", []))
        missing = [k for k in optional if "default" not in schema["properties"][k]]
        assert not missing, f"{key}: optional keys without a schema default {missing}"
        for name, sub in nested(cls).items():
            check(sub, schema["properties"][name], f"{key}.{name}")

    check(settings_class(study), section_schema(study), f"studies.{study}")


@pytest.mark.parametrize("path", CONFIGS)
@pytest.mark.parametrize("study", list(STUDIES))
def test_shipped_configs_read_as_settings_recorded_as_plain_json(study, path):
    config = validated(path)
    settings = study_settings(config, study)
    assert settings.models == tuple(config["studies"][study]["models"])
    record = json.loads(json.dumps(field(settings, "")))  # plain JSON: no repr fallback needed
    assert list(record) == [f.name for f in dataclasses.fields(settings)]
    # a script given the whole settings as its `settings` param reads them back
    assert settings_of_record(study, record) == settings


def _required_only(study: str, section: dict) -> dict:
    """``section`` reduced to its required keys (and ``models``): every other key is left to the schema."""
    schema = section_schema(study)
    return {k: copy.deepcopy(v) for k, v in section.items() if k in {*schema.get("required", []), "models"}}


def _schema_defaults(schema: dict, given: dict) -> dict:
    """``given`` with every missing key set to the schema's default, nested sections filled the same way."""
    out = dict(given)
    for key, sub in schema["properties"].items():
        if key not in out:
            out[key] = copy.deepcopy(sub["default"])
        if sub.get("type") == "object" and "properties" in sub:
            out[key] = _schema_defaults(sub, out[key])
    return out


@pytest.mark.parametrize("study", list(STUDIES))
def test_a_section_with_only_its_required_keys_reads_the_schema_defaults_and_nothing_else(study):
    config = validated("configs/smoke.yaml")
    given = _required_only(study, yaml.safe_load((REPO / "configs/smoke.yaml").read_text())["studies"][study])
    config["studies"][study] = copy.deepcopy(given)
    validate_config(config)
    module = importlib.import_module(f"choicelab.studies.{study}.settings")
    expected = read(module.Settings, _schema_defaults(section_schema(study), given), f"studies.{study}")
    if study == "scoring_methods":  # coder.model is resolved against `models:` (the embedder when null)
        expected = dataclasses.replace(expected, coder=study_settings(config, study).coder)
    assert study_settings(config, study) == expected


@pytest.mark.parametrize("study", list(STUDIES))
def test_a_key_the_validated_config_lacks_is_named(study):
    config = validated("configs/smoke.yaml")
    last = list(section_schema(study)["properties"])[-1]
    del config["studies"][study][last]
    with pytest.raises(KeyError, match=f"studies.{study}.{last}"):
        study_settings(config, study)


@dataclass(frozen=True)
class Inner:
    rate: float
    size: int | None


@dataclass(frozen=True)
class Outer:
    on: bool
    names: tuple[str, ...]
    sizes: tuple[int, ...] | None
    labels: dict[str, str]
    inner: Inner


def test_the_reader_converts_by_field_type_and_names_the_key_of_a_wrong_value():
    section = {"on": True, "names": ["a", "b"], "sizes": None, "labels": {"x": "X"},
               "inner": {"rate": 3, "size": None}}
    outer = read(Outer, section, "studies.toy")
    assert outer == Outer(True, ("a", "b"), None, {"x": "X"}, Inner(3.0, None))
    assert isinstance(outer.inner.rate, float)  # a YAML 3 under a float field is 3.0, as every study had it
    with pytest.raises(SettingsError, match=r"studies\.toy\.inner\.rate.*number"):
        read(Outer, {**section, "inner": {"rate": "fast", "size": 1}}, "studies.toy")
    with pytest.raises(SettingsError, match=r"studies\.toy\.on.*true or false"):
        read(Outer, {**section, "on": "yes"}, "studies.toy")


def test_the_params_accessor_gives_one_setting_by_dotted_name_as_json():
    outer = read(Outer, {"on": True, "names": ["a"], "sizes": [1, 2], "labels": {}, "inner": {"rate": 0.5,
                                                                                          "size": 4}}, "s")
    assert field(outer, "inner.size") == 4
    assert field(outer, "inner") == {"rate": 0.5, "size": 4}
    assert field(outer, "sizes") == (1, 2)
    assert field(outer, "") == {"on": True, "names": ("a",), "sizes": (1, 2), "labels": {}, "inner": {"rate": 0.5,
                                                                                                   "size": 4}}
    with pytest.raises(KeyError, match="inner.speed"):
        field(outer, "inner.speed")


def params_lines(text: str) -> list[str]:
    """The lines of every ``params:`` block of a rules file."""
    lines, inside = [], False
    for line in text.splitlines():
        if line.strip() == "params:":
            inside = True
        elif inside and line.startswith(" " * 8) and line.strip():
            lines.append(line.strip())
        else:
            inside = False
    return lines


def test_the_rules_take_settings_through_the_one_accessor():
    """No rule hands a settings object, an attribute of one or a study's own accessor to its params: settings reach
    params only as `setting(study, "name")` (rules/common.smk), JSON-plain."""
    lines = [(p.name, line) for p in sorted((REPO / "rules").glob("*.smk")) for line in params_lines(p.read_text())]
    assert any("setting(" in line for _, line in lines)
    offending = [(name, line) for name, line in lines if "SETTINGS" in line or ".setting(" in line
                 or ".param(" in line or "settings" in line.partition("=")[2]]
    assert not offending


@pytest.mark.parametrize("study", ["bets", "probes", "revealed_belief", "scoring_methods"])
def test_a_script_reading_its_settings_param_back_gets_the_same_settings(study):
    """bets' stages and evaluation and scoring methods' jobs take (part of) their settings as JSON params and read
    them back with the generic reader: nothing is lost on the way."""
    settings = study_settings(validated("config.yaml"), study)
    param = json.loads(json.dumps(field(settings, "")))
    assert read(type(settings), param, f"studies.{study}") == settings
    for name, cls in nested(type(settings)).items():
        assert read(cls, json.loads(json.dumps(field(settings, name))), name) == getattr(settings, name)


@pytest.mark.parametrize("path", CONFIGS)
def test_the_run_wide_keys_read_as_typed_settings(path):
    config = validated(path)
    run = run_settings(config)
    assert (run.seed, run.device, run.engine.threads) == (config["seed"], config["device"], config["engine"]["threads"])
    assert field(run, "engine.max_batch_tokens") == config["engine"]["max_batch_tokens"]
    del config["seed"]
    with pytest.raises(SettingsError, match="config key 'seed' is missing"):
        run_settings(config)


def test_rules_give_jobs_their_settings_through_the_one_accessor():
    """Every job param that is a setting comes from ``setting(scope, name)`` (rules/common.smk): no rules file reads
    a study section, the seed, the device or the engine from the raw config."""
    raw = re.compile(r'config\[\s*"(studies|seed|device|engine)"')
    offending = [f"{path.name}:{n}" for path in sorted((REPO / "rules").glob("*.smk"))
                 for n, line in enumerate(path.read_text().splitlines(), 1) if raw.search(line)]
    assert not offending
