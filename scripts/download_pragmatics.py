"""Adapter: rule download_pragmatics (one pragmatics item or human-data file, checksum-verified)."""

from pathlib import Path

from choicelab.config import DOWNLOADS
from choicelab.download import download
from choicelab.studies.scoring_methods.sources import AUTHORS_OUTPUT_SOURCES, HAND_CODE_SOURCES, SOURCES
from choicelab.workflow import log_to

with log_to(snakemake.log[0]):
    relative = str(Path(snakemake.output[0]).relative_to(DOWNLOADS))
    known = SOURCES | HAND_CODE_SOURCES | AUTHORS_OUTPUT_SOURCES
    if relative not in known:
        raise ValueError(f"{relative} is not a known pragmatics file; known: {sorted(known)[:5]}...")
    remote = known[relative]
    download(remote.url, snakemake.output[0], remote.sha256)
