"""The README is true: its Quick start says how to run offline, and every job count it prints is the dry run's."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import repo_env

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text()

# Which README row a rule's jobs count in ("manifest" and "all" are the two the total adds).
STUDY_OF_PREFIX = (("rb_", "revealed_belief"), ("steer_", "steer"), ("bets_", "bets"), ("probes_", "probes"),
                   ("sm_", "scoring_methods"), ("prepare_model", "models"), ("download_", "data"))


def dry_run(workdir: Path, *args: str) -> tuple[dict[str, int], str]:
    """Job counts per rule of ``snakemake -n`` in an empty working directory, and what it printed."""
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-n", "-s", str(REPO / "Snakefile"), "-d", str(workdir),
                           *args], capture_output=True, text=True, timeout=600, env=repo_env())
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    stats = out[out.rindex("Job stats:"):]
    counts = {m[1]: int(m[2]) for m in re.finditer(r"^(\w+)\s+(\d+)$", stats, re.M)}
    return counts, out


def by_study(counts: dict[str, int]) -> dict[str, int]:
    grouped: dict[str, int] = {}
    for rule, n in counts.items():
        if rule in ("total", "manifest", "all"):
            continue
        study = next(s for prefix, s in STUDY_OF_PREFIX if rule.startswith(prefix))
        grouped[study] = grouped.get(study, 0) + n
    return grouped


def readme_paper_table() -> tuple[dict[str, int], int]:
    section = README[README.index("| study | models | jobs |"):]
    rows = {m[1]: int(m[2]) for m in re.finditer(r"^\| `?(\w+)`? \|.*\| (\d+) \|$", section, re.M)}
    total = int(re.search(r"(\d+) jobs in all with the manifest and `all`", README)[1])
    return rows, total


def test_the_quick_start_says_how_to_run_offline_with_a_mirror():
    quick = README[README.index("## Quick start"):README.index("### Models")]
    assert "--config data_mirror=../shared/data" in quick and "internet" in quick


@pytest.mark.slow  # a dry run of the paper config's ~700 jobs: ~15-30 s
def test_the_paper_dag_counts_in_the_readme_are_the_dry_runs(tmp_path):
    counts, _ = dry_run(tmp_path, "--configfile", str(REPO / "configs" / "paper.yaml"))
    rows, total = readme_paper_table()
    assert by_study(counts) == rows, "README's paper-run table: update it from `snakemake -n --configfile ...`"
    assert counts["total"] == total


@pytest.mark.slow  # a dry run of the paper config against the shipped mirror: ~15-30 s
def test_the_offline_paper_dry_run_with_the_shipped_mirror_plans_and_names_what_it_lacks(tmp_path, data_mirror):
    counts, out = dry_run(tmp_path, "--configfile", str(REPO / "configs" / "paper.yaml"),
                          "--config", f"data_mirror={data_mirror}")
    if not (data_mirror / "swag" / "train.csv").is_file():
        assert f"the data mirror {data_mirror} lacks swag/train.csv, swag/val.csv" in out
        assert counts["download_swag"] == 2 and counts["bets_default_stage"] > 0
    assert counts["total"] < readme_paper_table()[1]  # the mirror's files are not downloaded


@pytest.mark.slow  # two dry runs of the embedded default config: ~20-40 s
def test_the_default_dag_counts_in_the_readme_are_the_dry_runs(tmp_path, data_mirror):
    claimed = re.search(r"The default\s+run\s+has (\d+) jobs, (\d+) with `data_mirror=../shared/data`", README)
    online, _ = dry_run(tmp_path, "--configfile", str(REPO / "config.yaml"))
    offline, out = dry_run(tmp_path, "--configfile", str(REPO / "config.yaml"), "--config",
                           f"data_mirror={data_mirror}")
    assert (online["total"], offline["total"]) == (int(claimed[1]), int(claimed[2]))
    artifacts = int(re.search(r"120 artifacts then, (\d+) now", README)[1])
    assert len(manifest_artifacts(out)) == artifacts, "README's artifact count of the default run"


def manifest_artifacts(dry_run_output: str) -> set[str]:
    """The artifacts (file paths without suffix) the manifest job of a dry run reads, sidecars left out."""
    block = dry_run_output[dry_run_output.index("rule manifest:"):]
    files = block[block.index("input:") + len("input:"):].split("\n", 1)[0].split(",")
    return {re.sub(r"\.(csv|md|png|svg|html)$", "", f.strip()) for f in files if not f.strip().endswith(".prov.json")}
