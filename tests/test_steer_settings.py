"""STEER's typed settings mirror the schema's studies.steer section: one field per key, defaults only in the schema."""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path

import pytest
import yaml

from choicelab.config import load_schema, validate_config
from choicelab.studies.steer import settings

REPO = Path(__file__).resolve().parent.parent


def section_schema():
    return load_schema()["properties"]["studies"]["properties"]["steer"]


def field_names(cls):
    return {f.name for f in dataclasses.fields(cls)}


def test_settings_fields_are_the_schema_keys():
    schema = section_schema()
    assert field_names(settings.Settings) == set(schema["properties"])
    assert field_names(settings.Scale) == set(schema["properties"]["scale"]["properties"])


def test_every_optional_key_has_its_default_in_the_schema():
    schema = section_schema()
    optional = set(schema["properties"]) - set(schema.get("required", []))
    assert all("default" in schema["properties"][key] for key in optional)
    assert all("default" in sub for sub in schema["properties"]["scale"]["properties"].values())


@pytest.mark.parametrize("path", ["config.yaml", "configs/smoke.yaml", "configs/paper.yaml"])
def test_shipped_configs_give_their_values(path):
    config = yaml.safe_load((REPO / path).read_text())
    section = config["studies"]["steer"]
    steer = settings.from_config(config)
    assert steer.models == tuple(section["models"])
    assert steer.adaptations == tuple(section["adaptations"])
    assert steer.scale.n_per_test == section["scale"]["n_per_test"]
    assert steer.scale.max_domains == section["scale"]["max_domains"]
    assert steer.adaptation_questions == section["adaptation_questions"]


def test_a_section_with_only_its_models_takes_the_schema_defaults():
    config = copy.deepcopy(yaml.safe_load((REPO / "configs" / "smoke.yaml").read_text()))
    config["studies"]["steer"] = {"models": ["tiny-llama"]}
    validate_config(config)  # what rules/common.smk does: fills the schema's defaults
    steer = settings.from_config(config)
    assert steer.enabled is True
    assert steer.adaptations == ("0shot",)
    assert (steer.fewshot_pool, steer.max_new_tokens, steer.adaptation_questions) == (5, 64, None)
    assert steer.scale == settings.Scale(n_per_test=5, elements=None, domains=None, grades=None, max_domains=None,
                                         strict=False)
    assert steer.scale.benchmark_scale(seed=7).seed == 7


def test_a_key_the_validated_config_lacks_is_named():
    config = yaml.safe_load((REPO / "configs" / "smoke.yaml").read_text())
    del config["studies"]["steer"]["fewshot_pool"]
    with pytest.raises(KeyError, match="fewshot_pool"):
        settings.from_config(config)
