import functools
import json
from pathlib import Path

from snakemake.logging import logger
from snakemake.utils import min_version

import choicelab.studies
from choicelab.studies import STUDIES
from choicelab.config import check_references, missing_keys, validate_config

min_version("9.0")


# A config file that leaves keys out gets the schema's defaults for them (never config.yaml's values, see the
# Snakefile); the run says which, so nothing is filled in silently. `choicelab config` prints the whole result.
if missing_keys(config):
    logger.warning(
        "config: keys not in the config file take the schema's defaults (schemas/config.schema.yaml): "
        + ", ".join(missing_keys(config))
    )
# The one validation: fills the schema's defaults and names an offending key as a dotted path (studies.bets.seed).
validate_config(config)
check_references(config)


wildcard_constraints:
    benchmark="[a-z0-9_]+",
    model="[a-z0-9][a-z0-9._-]*?",


# -- files shipped with the workflow (item lists, templates, paper numbers) ---------------------------------


def repo_file(relative):
    """A file of the repository (data/...), wherever the workflow's working directory is."""
    return str(Path(workflow.basedir) / relative)


def data_root():
    """Where public datasets are read: the configured mirror, else the download rules' folder."""
    return config.get("data_mirror") or "results/downloads"


# -- models ---------------------------------------------------------------------------------------------------


def model_dir(name):
    return f"results/models/{name}"


def wildcard_model_dir(wildcards):
    return model_dir(wildcards.model)


def model_entry_json(wildcards):
    if wildcards.model not in config["models"]:
        raise ValueError(
            f"unknown model {wildcards.model!r}: add it under 'models:' in the config "
            f"(configured: {sorted(config['models'])})"
        )
    return json.dumps(config["models"][wildcards.model], sort_keys=True)


def model_gpus(wildcards):
    return config["models"].get(wildcards.model, {}).get("gpu", 0)


def model_runtime_minutes(wildcards, attempt):
    """prepare_model: seconds for a random model, up to hours for a hub download (scaled by the attempt)."""
    source = config["models"][wildcards.model]["source"]
    base = (
        10 if source.startswith("random:") else 240 if source.startswith("hf:") else 60
    )
    return base * attempt


# -- cluster resources of jobs that load a model ----------------------------------------------------------------

# Each model-loading job declares its threads (torch's pool size, set by choicelab.workflow.log_to;
# SLURM's --cpus-per-task) and its retries, each attempt with attempt-scaled memory and time.
MODEL_THREADS = config["engine"]["threads"]
MODEL_RETRIES = config["engine"]["retries"]


def attempt_times(wildcards, attempt, base):
    return base * attempt


def attempt_scaled(base):
    """A resource of ``base`` on the first attempt, 2 x base on the second, ... (a retry after an out-of-memory
    kill or a time limit asks for more)."""
    return functools.partial(attempt_times, base=base)


def study_models(study):
    """The models a study runs (none when it is disabled or its section is absent)."""
    if study not in config["studies"]:
        return []
    return choicelab.studies.study_models(config, study)


# -- multiple-choice benchmarks shared across studies -----------------------------------------------------------

# Benchmarks studies build for the others to score, as MC item files (schema mc_items/1): name -> path. Each study
# package says which it builds (its ``mc_benchmarks``); the probes and scoring-methods grids run on them.
MC_BENCHMARKS = choicelab.studies.mc_benchmarks(config)


# -- artifacts ------------------------------------------------------------------------------------------------

ARTIFACT_FILES = {}


def register_artifacts(study, files):
    """Each study's .smk registers the files of its tables and figures: they are targets of `rule all`."""
    ARTIFACT_FILES.setdefault(study, []).extend(files)


def all_artifact_files():
    return [f for files in ARTIFACT_FILES.values() for f in files]


def study_settings(study):
    """The typed settings of a study (its package's ``settings.from_config``): the config section after validation
    filled the schema's defaults -- the one place defaults live."""
    return choicelab.studies.study_settings(config, study)


def study_artifacts(study):
    """The rows of a study's ARTIFACTS table (choicelab.studies.<study>.artifacts)."""
    return choicelab.studies.study_artifacts(study)


def artifact_outputs(folder, artifacts, caption, category, label="artifact"):
    """Outputs of a job that writes ``artifacts`` (rows of a study's ARTIFACTS table) into ``folder``: per artifact
    its files -- the first shown in the report, labelled with the artifact's name -- and each file's provenance
    sidecar (``<file>.prov.json``, written by choicelab.provenance.write_artifact)."""
    entries = []
    for artifact in artifacts:
        shown, *others = artifact.files(folder)
        shown_file = report(
            shown, caption=caption, category=category, labels={label: artifact.name}
        )
        entries.append(shown_file)
        entries.extend(others)
        entries.extend(artifact.sidecars(folder))
    return entries


def report_pairs(
    folder,
    names,
    caption,
    category,
    shown="csv",
    paired="md",
    label="artifact",
    label_prefix="",
):
    """Outputs of a set job: per name, the file shown in the report (labelled with the name) and its pair.

    Tables show the .csv beside its .md, figures the .png beside its .svg (shown="png", paired="svg"); paired=None
    leaves the shown file alone (the STEER figures are PNG only). The STEER report cards label their .png
    "report card <rubric>" (label_prefix="report card ").
    """
    entries = []
    for name in names:
        shown_file = report(
            f"{folder}/{name}.{shown}",
            caption=caption,
            category=category,
            labels={label: f"{label_prefix}{name}"},
        )
        entries.append(shown_file)
        if paired:
            entries.append(f"{folder}/{name}.{paired}")
    return entries


# -- bets ----------------------------------------------------------------------------------------------------

BE = "results/bets"
BE_FIG = "figures/bets"
BE_STATIC_TABLES = ["table1", "table2", "table3", "table4", "table7", "table8"]
BE_RESULT_TABLES = [f"table{k}" for k in (5, 6, *range(9, 21))] + [
    "compare_paper",
    "training",
]
BE_FIGURES = ["fig1", "fig2", "fig3"]


def be_config(key, default=None):
    return config["studies"].get("bets", {}).get(key, default)


def be_settings():
    """The bets section with the schema's defaults filled in (what the library functions read)."""
    section = dict(config["studies"].get("bets", {}))
    section.setdefault("templates", ["BE", "BV", "CE", "CV"])
    section.setdefault("modalities", ["coin", "dice", "card"])
    return section


def be_question_sets():
    settings = be_settings()
    return [f"value_{t}" for t in settings["templates"]] + [
        f"bet_{m}" for m in settings["modalities"]
    ]


def be_stages():
    from choicelab.pipelines.bets import task_stages

    return ["default", *task_stages(be_settings())]


def be_default_stage_data(wildcards):
    """SWAG files (downloaded unless the mirror has them), or nothing extra for the HellaSwag stand-in."""
    stage = be_config("default_stage", {})
    if config.get("data_mirror"):
        return []
    from choicelab.items.swag import SWAG_FILES

    if stage.get("data") == "swag":
        return [f"results/downloads/{f.mirror_path}" for f in SWAG_FILES.values()]
    return pr_hellaswag_files()


def pr_hellaswag_files():
    from choicelab.mc.commonsense import SOURCES

    return [
        f"results/downloads/{f.mirror_path}"
        for (benchmark, split), files in SOURCES.items()
        if benchmark == "hellaswag" and split == "dev"
        for f in files
    ]


def be_task_checkpoint_inputs(wildcards):
    return {
        "base": f"{BE}/checkpoints/{wildcards.model}__default",
        "train": f"{BE}/benchmarks/{wildcards.qset}.train.parquet",
        "dev": f"{BE}/benchmarks/{wildcards.qset}.dev.parquet",
    }


def be_checkpoint(wildcards):
    return f"{BE}/checkpoints/{wildcards.model}__{wildcards.stage}"


def be_score_benchmarks(wildcards):
    from choicelab.pipelines.bets import scoring_plan

    return [
        f"{BE}/benchmarks/{qset}.{split}.parquet"
        for qset, split in scoring_plan(wildcards.stage, be_settings())
    ]


def be_dumps(wildcards):
    return expand(
        f"{BE}/dumps/{{model}}__{{stage}}.parquet",
        model=study_models("bets"),
        stage=be_stages(),
    )


def be_checkpoints(wildcards):
    return expand(
        f"{BE}/checkpoints/{{model}}__{{stage}}",
        model=study_models("bets"),
        stage=be_stages(),
    )


def be_benchmarks(wildcards):
    return expand(
        f"{BE}/benchmarks/{{qset}}.{{split}}.parquet",
        qset=be_question_sets(),
        split=["train", "dev", "test"],
    )


# -- scoring methods -----------------------------------------------------------------------------------------

SM = "results/scoring_methods"
SM_FIG = "figures/scoring_methods"
SM_TABLES = ["table_numbers", "compare_paper", "human_accuracy", "robustness_matrix"]
SM_FIGURES = ["fig1", "fig2", "fig3", "fig_robustness_matrix"]


def sm_config(key, default=None):
    return config["studies"].get("scoring_methods", {}).get(key, default)


def sm_source_files(wildcards):
    """The pragmatics items and human data: read from the mirror, else downloaded."""
    if config.get("data_mirror"):
        return []
    from choicelab.items.pragmatics import SOURCES

    return [f"results/downloads/{path}" for path in sorted(SOURCES)]


def sm_embedder(wildcards):
    name = sm_config("embedder")
    return [model_dir(name)] if name else []


def sm_scores(wildcards):
    return expand(
        f"{SM}/scores/{{model}}.parquet", model=study_models("scoring_methods")
    )


def sm_grid_benchmarks():
    """The grid's benchmarks: studies.scoring_methods.grid_benchmarks (null = every multiple-choice benchmark the
    workflow builds: pragmatics, commonsense (probes), bets, STEER)."""
    from choicelab.config import chosen_benchmarks

    commonsense = (
        list(config["studies"]["probes"]["benchmarks"])
        if study_models("probes")
        else []
    )
    every = list(dict.fromkeys(["pragmatics", *commonsense, *sorted(MC_BENCHMARKS)]))
    return chosen_benchmarks(
        every, sm_config("grid_benchmarks"), "studies.scoring_methods.grid_benchmarks"
    )


def sm_grid_items(wildcards):
    if wildcards.benchmark == "pragmatics":
        return sm_source_files(wildcards)
    if wildcards.benchmark in MC_BENCHMARKS:
        return [MC_BENCHMARKS[wildcards.benchmark]]
    return [f"{PR}/benchmarks/{wildcards.benchmark}.dev.parquet"]


def sm_grid_scores(wildcards):
    return expand(
        f"{SM}/grid/{{model}}__{{benchmark}}.parquet",
        model=sm_config("grid_models", []),
        benchmark=sm_grid_benchmarks(),
    )


# A benchmark selection naming a benchmark this config does not build fails here, before any job runs.
sm_grid_benchmarks()
