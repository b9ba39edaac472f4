"""Adapter: rule manifest -> choicelab.provenance.build_manifest (the workflow layer passes the study registry)."""

from choicelab.io import write_json
from choicelab.provenance import build_manifest
from choicelab.studies import STUDIES
from choicelab.workflow import log_to

with log_to(snakemake.log[0]):
    write_json(snakemake.output[0], build_manifest(snakemake.input, studies=STUDIES))
