"""Where public datasets are read: one reader of ``data_mirror`` (choicelab.config.data_root) for the workflow, one
(command_data_root) for commands run outside it."""

from __future__ import annotations

import pytest

from choicelab.config import DATA_MIRROR_ENV, DOWNLOADS, ConfigError, command_data_root, data_root


def test_the_workflow_reads_the_mirror_else_the_download_folder():
    assert data_root({"data_mirror": "../shared/data"}) == "../shared/data"
    assert data_root({"data_mirror": None}) == DOWNLOADS == "results/downloads"


def test_a_command_takes_its_flag_then_the_environment(monkeypatch):
    monkeypatch.setenv(DATA_MIRROR_ENV, "/from/env")
    assert command_data_root("/from/flag", "code-free") == "/from/flag"
    assert command_data_root(None, "code-free") == "/from/env"


def test_a_command_without_a_mirror_says_how_to_give_one(monkeypatch):
    monkeypatch.delenv(DATA_MIRROR_ENV, raising=False)
    with pytest.raises(ConfigError, match="code-free needs the data mirror: pass --data-mirror or set "
                                          "CHOICELAB_DATA_MIRROR"):
        command_data_root(None, "code-free")
