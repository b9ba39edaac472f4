"""Adapter: rule download_swag (SWAG train / val from rowanz/swagaf, verified by git blob id and sha256)."""

from pathlib import Path

from choicelab.download import download_verified
from choicelab.studies.bets.swag import SWAG_FILES, verify_swag_file
from choicelab.workflow import log_to

with log_to(snakemake.log[0]):
    split = {"train.csv": "train", "val.csv": "val"}[Path(snakemake.output[0]).name]
    remote = SWAG_FILES[split]
    download_verified(remote.url, snakemake.output[0], lambda path: verify_swag_file(path, split))
