"""The one artifact writer (choicelab.artifacts.write_artifacts): every study's table, figure and report-card job
builds its artifacts from the study's sources and writes them, their folders and their sidecars the same way."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from choicelab.artifacts import Artifact, Built, study_files, write_artifacts
from choicelab.plotting import plt

RECORD = {"rule": "toy_tables"}


def _caption(artifact: Artifact, sources: dict, note: str) -> str:
    return f"{artifact.reproduces}: {artifact.caption}{note}; models: {', '.join(sources['models'])}."


def _figure(sources: dict):
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, sources["n"]])
    return fig


ARTIFACTS = (
    Artifact("plain", "Table 1", "a bare table", lambda s: pd.DataFrame({"n": [s["n"]]}), "toy_tables"),
    Artifact("noted", "Table 2", "a table with its Markdown and a note",
             lambda s: Built(pd.DataFrame({"n": [s["n"]]}), "# two\n", note="; n = 3"), "toy_tables"),
    Artifact("pair", "Table 3", "a (table, Markdown) pair", lambda s: (pd.DataFrame({"n": [1]}), "pair\n"),
             "toy_tables"),
    Artifact("fig1", "Figure 1", "a figure", _figure, "toy_figures", kind="figure"),
    Artifact("drawn", "Figure 2", "a drawing that writes its own PNG",
             lambda s: lambda files: Path(files[0]).write_bytes(b"\x89PNG"), "toy_figures", kind="figure_png"),
)


def _outputs(tmp_path, rule: str, names=None) -> list[str]:
    chosen = [a for a in ARTIFACTS if a.rule == rule and (names is None or a.name in names)]
    return [str(tmp_path / path) for path in study_files("toy", chosen)]


def test_folders_are_decided_by_the_artifact_place_in_one_table():
    table, figure = ARTIFACTS[0], ARTIFACTS[3]
    assert table.paths("toy") == ["results/toy/tables/plain.csv", "results/toy/tables/plain.md"]
    assert figure.paths("toy") == ["figures/toy/fig1.png", "figures/toy/fig1.svg"]
    moved = Artifact("x", "extra", "a figure beside the tables", _figure, "toy_tables", kind="figure_png",
                     place="tables")
    assert moved.paths("toy") == ["results/toy/tables/x.png"]
    with pytest.raises(ValueError, match="place must be one of"):
        Artifact("x", "extra", "c", _figure, "toy_tables", place="elsewhere")


def test_tables_are_written_as_csv_and_markdown_with_a_sidecar_naming_id_reproduces_and_caption(tmp_path):
    outputs = _outputs(tmp_path, "toy_tables")
    written = write_artifacts("toy", ARTIFACTS, {"n": 3, "models": ["a", "b"]}, outputs, rule="toy_tables",
                              record=RECORD, caption=_caption)
    assert [a.name for a in written] == ["plain", "noted", "pair"]
    folder = tmp_path / "results/toy/tables"
    assert pd.read_csv(folder / "plain.csv")["n"].tolist() == [3]
    assert (folder / "plain.md").read_text() == pd.DataFrame({"n": [3]}).to_markdown(index=False) + "\n"
    assert (folder / "noted.md").read_text() == "# two\n" and (folder / "pair.md").read_text() == "pair\n"
    sidecar = json.loads((folder / "noted.md.prov.json").read_text())
    assert sidecar["rule"] == "toy_tables" and sidecar["output"]["path"].endswith("noted.md")
    assert sidecar["artifact"] == {
        "id": "toy/noted", "reproduces": "Table 2",
        "caption": "Table 2: a table with its Markdown and a note; n = 3; models: a, b.",
        "files": [str(folder / "noted.csv"), str(folder / "noted.md")],
    }


def test_figures_and_drawings_are_saved_by_kind(tmp_path):
    outputs = _outputs(tmp_path, "toy_figures")
    write_artifacts("toy", ARTIFACTS, {"n": 3, "models": ["a"]}, outputs, rule="toy_figures", record=RECORD,
                    caption=_caption)
    folder = tmp_path / "figures/toy"
    assert (folder / "fig1.png").read_bytes()[:4] == b"\x89PNG" and (folder / "fig1.svg").read_text().strip()
    assert (folder / "drawn.png").read_bytes() == b"\x89PNG"
    assert json.loads((folder / "drawn.png.prov.json").read_text())["artifact"]["id"] == "toy/drawn"


def test_a_config_may_leave_an_artifact_out_but_not_half_of_one(tmp_path):
    outputs = _outputs(tmp_path, "toy_tables", names={"plain"})
    written = write_artifacts("toy", ARTIFACTS, {"n": 1, "models": []}, outputs, rule="toy_tables", record=RECORD,
                              caption=_caption)
    assert [a.name for a in written] == ["plain"] and not (tmp_path / "results/toy/tables/pair.csv").exists()
    with pytest.raises(ValueError, match=r"noted.*declares no output \['noted.md'\]"):
        write_artifacts("toy", ARTIFACTS, {"n": 1, "models": []}, [*outputs, str(tmp_path / "noted.csv")],
                        rule="toy_tables", record=RECORD, caption=_caption)


def test_an_output_no_artifact_makes_and_a_builder_returning_the_wrong_thing_are_named(tmp_path):
    stray = [*_outputs(tmp_path, "toy_tables"), str(tmp_path / "stray.txt")]
    with pytest.raises(ValueError, match=r"declares outputs no toy artifact makes: \[.*stray.txt"):
        write_artifacts("toy", ARTIFACTS, {"n": 1, "models": []}, stray, rule="toy_tables", record=RECORD,
                        caption=_caption)
    wrong = (Artifact("bad", "Figure 9", "a table where a figure belongs", lambda s: pd.DataFrame(), "toy_figures",
                      kind="figure"),)
    with pytest.raises(TypeError, match="'bad' .figure.: its builder returned a DataFrame"):
        write_artifacts("toy", wrong, {}, [str(tmp_path / p) for p in study_files("toy", wrong)],
                        rule="toy_figures", record=RECORD, caption=_caption)
