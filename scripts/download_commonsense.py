"""Adapter: rule download_commonsense (a public commonsense file, checksum-verified)."""

import json
from pathlib import Path

from choicelab.config import DOWNLOADS
from choicelab.download import download
from choicelab.io import write_text
from choicelab.mc.commonsense import HELLASWAG_VAL_FULL, hellaswag_from_val_full, remote_file
from choicelab.workflow import log_to

with log_to(snakemake.log[0]):
    target = Path(snakemake.output[0])
    relative = str(target.relative_to(DOWNLOADS))
    remote = remote_file(relative)
    if remote.url:
        download(remote.url, target, remote.sha256)
    else:  # HellaSwag dev: converted from the public text file, then checked against the expected hash
        source = Path(DOWNLOADS) / HELLASWAG_VAL_FULL.mirror_path
        download(HELLASWAG_VAL_FULL.url, source, HELLASWAG_VAL_FULL.sha256)
        rows, labels = hellaswag_from_val_full(source.read_text(encoding="utf-8"))
        if relative.endswith("labels.lst"):
            write_text(target, "".join(f"{x}\n" for x in labels))
        else:
            write_text(target, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
