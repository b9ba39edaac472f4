"""Adapter: rule sm_coder_agreement (the hand-code files checked, the authors' hand-coded free-generation accuracy,
and the configured coder's agreement with their hand codes)."""

import pyarrow as pa

from choicelab.io import write_parquet
from choicelab.provenance import record_json
from choicelab.studies import settings_of_record
from choicelab.studies.scoring_methods import code_free
from choicelab.studies.scoring_methods.human import hand_code_report, hand_free_accuracy, read_hand_coded
from choicelab.studies.scoring_methods.sources import hand_code_root, source_root
from choicelab.workflow import job_record, log_to


def write(path, frame, provenance):
    write_parquet(path, pa.Table.from_pandas(frame.reset_index(drop=True), preserve_index=False), provenance=provenance)


with log_to(snakemake.log[0]):
    p = snakemake.params
    coders = [*snakemake.input.coder, *snakemake.input.held_out_coders]
    provenance = record_json(job_record(snakemake, models=coders))
    root = hand_code_root(snakemake.input.hand_codes)
    report = hand_code_report(root)
    print(report["status"].value_counts().to_string())
    hand = read_hand_coded(root)
    write(snakemake.output.report, report, provenance)
    write(snakemake.output.hand_free, hand_free_accuracy(hand), provenance)
    coded, agreement = code_free.code_hand_codes(
        hand, source_root(snakemake.input.sources), kind=settings_of_record("scoring_methods", p.settings).coder.kind,
        coder_dir=snakemake.input.coder[0] if snakemake.input.coder else None, device=p.device,
        max_batch_tokens=p.max_batch_tokens, seed=int(p.seed), held_out_dirs=list(snakemake.input.held_out_coders),
    )
    write(snakemake.output.coded, coded, provenance)
    write(snakemake.output.agreement, agreement, provenance)
    print(agreement.to_string() if len(agreement) else "no coder model configured: agreement not measured")
