"""A newcomer adds a sixth study by creating one package and one .smk file and registering it: one line in
choicelab.studies.STUDIES and the settings section in the config schema. Nothing else of the workflow changes.

The test does it on a copy of the repository -- the walkthrough of docs/architecture.md -- and runs the new study's
table job through Snakemake: its table, its provenance sidecars and its place among `rule all`'s targets.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest
import yaml

from conftest import REPO

# The new study, as a newcomer writes it: a package ...
TOY_PACKAGE = {
    "choicelab/studies/toy/__init__.py": '''
        """Toy: how often a fair coin comes up heads (a study with no model, to show the layout)."""

        RESULTS = "results/toy"
        ''',
    "choicelab/studies/toy/settings.py": '''
        """The typed settings of the toy study (defaults live in the schema only)."""

        from dataclasses import dataclass


        @dataclass(frozen=True)
        class Settings:
            enabled: bool
            n_flips: int
            seed: int
        ''',
    "choicelab/studies/toy/jobs.py": '''
        """What the toy study's rules bind under one config: its settings and the tables it writes."""

        from dataclasses import dataclass

        from choicelab.studies import StudyJobs, study_settings


        @dataclass(frozen=True)
        class Jobs(StudyJobs):
            @classmethod
            def from_config(cls, config, basedir):
                return cls("toy", study_settings(config, "toy"), ())

            def caption_file(self):
                return "../report/workflow.rst"  # the toy writes no report caption of its own

            def artifact_files(self):
                return self.declared_files() if self.settings.enabled else []  # a study that runs no model
        ''',
    "choicelab/studies/toy/tables.py": '''
        """The toy study's table: seeded coin flips, the share of heads with its binomial SE and n."""

        import random

        import pandas as pd

        from choicelab.stats import binomial_se


        def heads(settings) -> pd.DataFrame:
            rng = random.Random(settings.seed)
            n = settings.n_flips
            share = sum(rng.random() < 0.5 for _ in range(n)) / n
            return pd.DataFrame([{"n": n, "heads": share, "se": binomial_se(share, n)}])
        ''',
    "choicelab/studies/toy/artifacts.py": '''
        """Every table and figure of the toy study, what they are built from and their captions."""

        from choicelab.artifacts import Artifact, caption_naming
        from choicelab.studies.toy.tables import heads

        ARTIFACTS = (
            Artifact("heads", "extra: a toy", "share of heads in seeded fair coin flips", heads, rule="toy_tables"),
        )


        def sources(smk, settings):
            """The toy job reads no file: its settings are all its tables need."""
            return settings


        def caption(artifact, settings, note):
            return caption_naming(f"{artifact.caption}{note}", [])
        ''',
    # its panel on a model's card (declared as its artifacts are; choicelab.cards renders it unchanged)
    "choicelab/studies/toy/card.py": '''
        """The toy study's card panel: the share of heads with its 95 % interval, read against a fair coin's half."""

        from choicelab.card_entry import OK, CardEntry, Headline, Panel, chance_flags, read_table, table_path
        from choicelab.stats import exact_interval
        from choicelab.studies.toy.artifacts import ARTIFACTS

        FAIR = 0.5


        def heads_panel(root, model):
            path = table_path(root, "toy", ARTIFACTS, "heads")
            row = read_table(path).iloc[0]
            low, high = exact_interval(round(row["heads"] * row["n"]), int(row["n"]))
            h = Headline("share of heads", float(row["heads"]), low, high, int(row["n"]), "flips", str(path), FAIR,
                         interval="exact (Clopper-Pearson)")
            return Panel("toy", CARD.title, OK, headlines=(h,), flags=chance_flags("toy", [h], "a fair coin ({:.2f})"),
                         sources=(str(path),))


        CARD = CardEntry(title="Toy: a fair coin", axis="share of heads (0.5: a fair coin)", tables=("heads",),
                         panel=heads_panel, models={"causal": ()},
                         skips={"encoder": "the toy flips coins, it reads no encoder"}, scale_keys=("n_flips",))
        ''',
}
# ... and one rules file.
TOY_RULES = '''
    TOY_JOBS = study_jobs("toy")
    register_artifacts("toy", TOY_JOBS.artifact_files())


    rule toy_tables:
        output:
            artifact_outputs(TOY_JOBS, "toy_tables"),
        log:
            "results/logs/toy/tables.log",
        params:
            settings=setting("toy"),
            captions=TOY_JOBS.captions("toy_tables"),
        script:
            "../scripts/study_artifacts.py"
    '''
# Registering it: its name in the registry, its settings (with their defaults) in the schema.
TOY_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "default": {},
    "properties": {
        "enabled": {"type": "boolean", "default": True},
        "n_flips": {"type": "integer", "minimum": 1, "default": 200},
        "seed": {"type": "integer", "default": 0},
    },
}


def _copy_repository(dest: Path) -> None:
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=REPO, capture_output=True,
                            text=True, check=True).stdout.split("\n")
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)


def _add_toy_study(repo: Path) -> set[str]:
    """Write the toy study into ``repo``; return the paths it created or changed."""
    touched = set()
    for name, text in TOY_PACKAGE.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(textwrap.dedent(text).lstrip())
        touched.add(name)
    (repo / "rules/toy.smk").write_text(textwrap.dedent(TOY_RULES).lstrip())
    touched.add("rules/toy.smk")
    registry = repo / "choicelab/studies/__init__.py"
    text = registry.read_text()
    head, tail = text.split("STUDIES: dict[str, str] = {\n", 1)
    registry.write_text(head + "STUDIES: dict[str, str] = {\n" + '    "toy": "A toy coin study",\n' + tail)
    touched.add("choicelab/studies/__init__.py")
    schema_path = repo / "schemas/config.schema.yaml"
    schema = yaml.safe_load(schema_path.read_text())
    schema["properties"]["studies"]["properties"]["toy"] = TOY_SCHEMA
    schema_path.write_text(yaml.safe_dump(schema, sort_keys=False))
    touched.add("schemas/config.schema.yaml")
    return touched


def _snakemake(repo: Path, workdir: Path, config: Path, mirror: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**__import__("os").environ, "PYTHONPATH": str(repo)}
    return subprocess.run(
        [sys.executable, "-m", "snakemake", *args, "--cores", "1", "-s", str(repo / "Snakefile"), "-d", str(workdir),
         "--configfile", str(config), "--config", f"data_mirror={mirror}"],
        capture_output=True, text=True, timeout=600, env=env, cwd=workdir.parent,
    )


@pytest.mark.slow
def test_a_sixth_study_is_one_package_one_rules_file_and_one_registration(tmp_path, data_mirror):
    repo = tmp_path / "repo"
    _copy_repository(repo)
    touched = _add_toy_study(repo)

    new_files = {n for n in touched if not (REPO / n).exists()}
    changed_files = touched - new_files
    assert {Path(n).parent.as_posix() for n in new_files} == {"choicelab/studies/toy", "rules"}
    assert changed_files == {"choicelab/studies/__init__.py", "schemas/config.schema.yaml"}

    # The smoke config, as a user who has not heard of the toy study wrote it: the schema's defaults fill its section.
    config = tmp_path / "smoke.yaml"
    shutil.copy(REPO / "configs/smoke.yaml", config)
    workdir = tmp_path / "run"

    built = _snakemake(repo, workdir, config, data_mirror, "results/toy/tables/heads.csv")
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-3000:]
    table = pd.read_csv(workdir / "results/toy/tables/heads.csv")
    assert table.loc[0, "n"] == 200 and 0.3 < table.loc[0, "heads"] < 0.7 and table.loc[0, "se"] > 0
    sidecar = yaml.safe_load((workdir / "results/toy/tables/heads.csv.prov.json").read_text())
    assert sidecar["artifact"]["id"] == "toy/heads" and sidecar["artifact"]["reproduces"] == "extra: a toy"
    assert sidecar["artifact"]["caption"] == "share of heads in seeded fair coin flips."

    # The toy table is one of `rule all`'s targets, next to the five studies' (a dry run of the whole DAG).
    dry = _snakemake(repo, tmp_path / "dry", config, data_mirror, "-n", "--quiet", "rules")
    assert dry.returncode == 0, dry.stderr[-3000:]
    assert "toy_tables" in dry.stdout + dry.stderr


@pytest.fixture()
def toy_registered(tmp_path, monkeypatch):
    """The toy package written under a folder added to choicelab.studies' path and registered in STUDIES, for this
    test only."""
    import importlib
    import sys

    import choicelab.studies as studies

    for name, text in TOY_PACKAGE.items():
        path = tmp_path / "pkg" / Path(name).relative_to("choicelab/studies")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
    monkeypatch.setattr(studies, "__path__", [*studies.__path__, str(tmp_path / "pkg")])
    monkeypatch.setitem(studies.STUDIES, "toy", "A toy coin study")
    importlib.invalidate_caches()
    yield
    for module in [m for m in sys.modules if m.startswith("choicelab.studies.toy")]:
        del sys.modules[module]


def test_a_registered_studys_card_entry_gives_it_a_panel_without_a_change_to_cards(tmp_path, toy_registered):
    """The card renders every registered study's declared entry: the toy's panel, its headline with n and
    interval read against a fair coin (its flag when the interval covers it), its skip reason for an encoder."""
    from choicelab.cards.panels import OK, SKIPPED, build_panels, card_entries
    from choicelab.cards.render import card_html
    from choicelab.studies.toy.settings import Settings
    from choicelab.studies.toy.tables import heads

    assert list(card_entries())[-1] == "toy"
    root = tmp_path / "run" / "results"
    (root / "toy" / "tables").mkdir(parents=True)
    table = heads(Settings(enabled=True, n_flips=200, seed=0))
    table.to_csv(root / "toy" / "tables" / "heads.csv", index=False)

    (panel,) = [p for p in build_panels(root, "m", ["toy"], {}, {}) if p.study == "toy"]
    assert panel.status == OK and panel.title == "Toy: a fair coin"
    (h,) = panel.headlines
    assert (h.estimate, h.n, h.unit) == (table.loc[0, "heads"], 200, "flips") and h.low < h.estimate < h.high
    assert h.covers_reference  # a seeded fair coin: its competence flag says the interval covers a fair coin
    assert panel.flags == (f"toy: share of heads {h.estimate:.2f} [{h.low:.2f}, {h.high:.2f}], n = 200 flips: "
                           "its interval covers a fair coin (0.50)",)
    page = card_html("m", "causal", [panel], "s", "x.prov.json", tmp_path)
    assert "Toy: a fair coin" in page and "share of heads" in page

    (skipped,) = [p for p in build_panels(root, "e", [], {"toy": card_entries()["toy"].skips["encoder"]}, {})
                  if p.study == "toy"]
    assert skipped.status == SKIPPED and "reads no encoder" in skipped.reason
