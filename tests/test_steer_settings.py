"""STEER's adaptations are structured data in a config ({shots: 3}, {explain: separate}), read in one place
(choicelab.studies.steer.adaptations) into one type whose name ("3shot", "explain-separate") names the results. The
schema-vs-Settings checks every study shares are in tests/test_settings.py."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from choicelab.config import ConfigError, load_schema, validate_config
from choicelab.studies import study_settings
from choicelab.studies.steer.adaptations import EXPLANATION_MODES, MAX_SHOTS, NAME_PATTERN, Adaptation

REPO = Path(__file__).resolve().parent.parent


def smoke_with(adaptations) -> dict:
    config = copy.deepcopy(yaml.safe_load((REPO / "configs" / "smoke.yaml").read_text()))
    config["studies"]["steer"]["adaptations"] = adaptations
    validate_config(config)
    return config


def test_config_entries_read_as_adaptations_named_as_the_results_are():
    steer = study_settings(smoke_with([{"shots": 0}, {"shots": 3}, {"explain": "separate-hidden"}]), "steer")
    assert steer.adaptations == (Adaptation(shots=0), Adaptation(shots=3), Adaptation(explain="separate-hidden"))
    assert [a.name for a in steer.adaptations] == ["0shot", "3shot", "explain-separate-hidden"]
    assert all(Adaptation.from_name(a.name) == a for a in steer.adaptations)


def test_every_adaptation_name_matches_the_wildcard_pattern_built_from_the_schema():
    entry = load_schema()["properties"]["studies"]["properties"]["steer"]["properties"]["adaptations"]["items"]
    assert entry["properties"]["shots"]["maximum"] == MAX_SHOTS
    assert tuple(entry["properties"]["explain"]["enum"]) == EXPLANATION_MODES
    every = [Adaptation(shots=n) for n in range(MAX_SHOTS + 1)] + [Adaptation(explain=m) for m in EXPLANATION_MODES]
    assert sorted(NAME_PATTERN.split("|")) == sorted(
        [f"[0-{MAX_SHOTS}]shot", *(a.name for a in every if a.explain != "none")])
    with pytest.raises(ValueError, match="7shot"):
        Adaptation.from_name("7shot")


def test_the_old_string_form_fails_naming_the_key_and_the_entry_to_write():
    with pytest.raises(ConfigError, match=r"studies\.steer\.adaptations\[1\].*'3shot'.*write \{shots: 3\}"):
        study_settings(smoke_with([{"shots": 0}, "3shot"]), "steer")
    with pytest.raises(ConfigError, match=r"adaptations\[0\].*'explain-separate'.*\{explain: separate\}"):
        study_settings(smoke_with(["explain-separate"]), "steer")


@pytest.mark.parametrize("entry", [{"shots": 7}, {"explain": "later"}, {"shots": 1, "explain": "together"}, {}])
def test_an_entry_outside_the_schema_fails_at_validation_naming_the_key(entry):
    with pytest.raises(ConfigError, match=r"studies\.steer\.adaptations\.0"):
        smoke_with([entry])


def test_the_default_is_the_unadapted_run():
    config = copy.deepcopy(yaml.safe_load((REPO / "configs" / "smoke.yaml").read_text()))
    config["studies"]["steer"] = {"models": ["tiny-llama"]}
    validate_config(config)
    assert study_settings(config, "steer").adaptations == (Adaptation(shots=0),)


def test_the_scale_gives_the_generators_scale_with_the_config_seed():
    steer = study_settings(smoke_with([{"shots": 0}]), "steer")
    assert steer.scale.benchmark_scale(seed=7).seed == 7
