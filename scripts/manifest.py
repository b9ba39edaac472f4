"""Adapter: rule manifest -> choicelab.provenance.build_manifest."""

from choicelab.io import write_json
from choicelab.provenance import build_manifest
from choicelab.workflow import log_to

with log_to(snakemake.log[0]):
    write_json(snakemake.output[0], build_manifest(snakemake.input))
