"""Facts of the workflow written once (issue 29): the download folder is named DOWNLOADS, a model job's resources
come from model_job_resources, and no public data file's URL or checksum is written in Python."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RULE_FILES = sorted((REPO / "rules").glob("*.smk"))
CODE = [*RULE_FILES, REPO / "Snakefile", *sorted((REPO / "scripts").glob("*.py")),
        *sorted((REPO / "choicelab").rglob("*.py"))]


def test_the_download_folder_is_spelt_once():
    spelt = [path.relative_to(REPO).as_posix() for path in CODE if "results/downloads" in path.read_text()]
    assert spelt == ["choicelab/config.py"], "name the download folder DOWNLOADS (choicelab.config), not the literal"


def test_every_model_job_takes_its_resources_from_model_job_resources():
    for path in RULE_FILES:
        if path.name == "common.smk":
            continue
        text = path.read_text()
        assert "attempt_scaled(" not in text and "gpu=model_gpus" not in text, (
            f"{path.name}: write **model_job_resources(minutes, ...) under resources (rules/common.smk)")


def test_no_url_or_checksum_of_public_data_is_written_in_python():
    sha256 = re.compile(r"[\"'][0-9a-f]{64}[\"']")
    url = re.compile(r"[\"']https://(raw|media)\.githubusercontent\.com/")
    found = [path.relative_to(REPO).as_posix() for path in CODE
             if sha256.search(path.read_text()) or url.search(path.read_text())]
    assert found == [], "list public files in data/sources/<name>.yaml (choicelab.download.read_sources)"
