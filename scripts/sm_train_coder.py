"""Adapter: rule sm_train_coder (the free-generation coder fine-tuned on the authors' hand codes of one fold: all
hand-coded models, or all but one for that model's held-out agreement)."""

from choicelab.studies import settings_of_record
from choicelab.studies.scoring_methods.code_free import item_options
from choicelab.studies.scoring_methods.human import read_hand_coded
from choicelab.studies.scoring_methods.sources import hand_code_root, source_root
from choicelab.studies.scoring_methods.trained_coder import CoderData, fold_hand_codes, train_coder
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    fold = snakemake.wildcards.fold
    recipe = settings_of_record("scoring_methods", snakemake.params.settings).coder.train
    root = hand_code_root(snakemake.input.hand_codes)
    data = CoderData(fold_hand_codes(read_hand_coded(root), fold), item_options(source_root(snakemake.input.sources)),
                     root)
    meta = train_coder(
        snakemake.input.base, data, snakemake.output[0], recipe, name=f"sm-coder-{fold}",
        device=snakemake.params.device,
        record=job_record(snakemake, models=[snakemake.input.base], seed=recipe.seed),
    )
    print({k: v for k, v in meta.items() if k != "training_data"})
