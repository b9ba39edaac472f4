import functools
import json
from pathlib import Path

from snakemake.logging import logger
from snakemake.utils import min_version

import choicelab.provenance
import choicelab.settings
import choicelab.studies
from choicelab.studies import STUDIES
from choicelab.provenance import SIDECAR_SUFFIX
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


# The run's effective config, saved once before any job: results/config/<config_sha256>.yaml, the file every
# provenance record names (path and sha256; choicelab.provenance.config_reference). A dry run writes nothing.
onstart:
    choicelab.provenance.save_config(config)


wildcard_constraints:
    benchmark="[a-z0-9_]+",
    model="[a-z0-9][a-z0-9._-]*?",


# -- settings: the one way from the config to a job's params ----------------------------------------------------


def setting(scope, name=""):
    """One setting as a param of a job, the one way settings reach jobs: ``scope`` is a study's name (its section
    ``studies.<study>``, typed by choicelab.studies.study_settings: the config section after validation filled the
    schema's defaults -- the one place defaults live) or "run" (the run-wide keys: seed, device, engine;
    choicelab.settings.RunSettings); dotted ``name`` ("finetune.max_length"; "" = all), JSON-plain
    (choicelab.settings.field): what the job's script reads and what its provenance record holds.
    """
    if scope == choicelab.settings.RUN:
        return choicelab.settings.field(choicelab.settings.run_settings(config), name)
    settings = choicelab.studies.study_settings(config, scope)
    return choicelab.settings.field(settings, name)


# -- files shipped with the workflow (item lists, templates, paper numbers) ---------------------------------


def repo_file(relative):
    """A file of the repository (data/...), wherever the workflow's working directory is."""
    return str(Path(workflow.basedir) / relative)


# Where the download rules write public datasets (choicelab.config.DOWNLOADS; rules name it, never the literal).
DOWNLOADS = choicelab.config.DOWNLOADS


def data_root():
    """Where public datasets are read: the configured mirror, else the download rules' folder."""
    return choicelab.config.data_root(config)


# -- models ---------------------------------------------------------------------------------------------------


def wildcard_model_dir(wildcards):
    return choicelab.config.model_dir(wildcards.model)


def model_entry(wildcards):
    """The config entry of the job's model (validation filled its defaults); an unknown name is refused."""
    if wildcards.model not in config["models"]:
        raise ValueError(
            f"unknown model {wildcards.model!r}: add it under 'models:' in the config "
            f"(configured: {sorted(config['models'])})"
        )
    return config["models"][wildcards.model]


def model_entry_json(wildcards):
    return json.dumps(model_entry(wildcards), sort_keys=True)


def model_gpus(wildcards):
    return model_entry(wildcards)["gpu"]


def model_chat_template(wildcards):
    """The entry's chat_template: true = apply the tokenizer's template, false = raw text, null = as shipped."""
    return model_entry(wildcards).get("chat_template")


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
MODEL_THREADS = setting("run", "engine.threads")
MODEL_RETRIES = setting("run", "engine.retries")


def attempt_times(wildcards, attempt, base):
    return base * attempt


def attempt_scaled(base):
    """A resource of ``base`` on the first attempt, 2 x base on the second, ... (a retry after an out-of-memory
    kill or a time limit asks for more)."""
    return functools.partial(attempt_times, base=base)


def model_job_resources(runtime, gpu=None, mem_mb=8000):
    """The resources of a job that loads a model, written once: ``mem_mb`` and ``runtime`` (minutes) on the first
    attempt, scaled by the attempt (:func:`attempt_scaled`; ``runtime`` may be a function of (wildcards, attempt)
    already), and the GPUs its model entry asks for. Each model job lists ``**model_job_resources(60)`` under
    resources, beside MODEL_RETRIES (retries), envs/models.yaml (conda; written out, tests/test_envs.py reads it)
    and MODEL_THREADS (threads).
    """
    return {
        "mem_mb": attempt_scaled(mem_mb),
        "runtime": runtime if callable(runtime) else attempt_scaled(runtime),
        "gpu": model_gpus if gpu is None else gpu,
    }


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


def study_artifacts(study):
    """The rows of a study's ARTIFACTS table (choicelab.studies.<study>.artifacts)."""
    return choicelab.studies.study_artifacts(study)


def study_jobs(study):
    """The plan of a study's jobs under this config (choicelab.studies.study_jobs: its package's jobs.Jobs): what
    the study's rules file binds as input functions, params and targets."""
    return choicelab.studies.study_jobs(config, study, workflow.basedir)


def artifact_outputs(jobs, rule):
    """The outputs of one of a study's artifact rules (``jobs``: its study_jobs): the files of the artifacts
    ``rule`` writes (rows of the study's ARTIFACTS table), each in its folder (choicelab.artifacts.Artifact.folder):
    per artifact its files (the first shown in the report under the study, labelled with the artifact's name and
    captioned by jobs.caption_file(), report/<study>.rst) and each file's provenance sidecar
    (choicelab.artifacts.write_artifacts).
    """
    study, caption, entries = jobs.study, jobs.caption_file(), []
    for artifact in jobs.artifacts(rule):
        shown, *others = artifact.paths(study)
        shown_file = report(
            shown, caption=caption, category=study, labels={"artifact": artifact.name}
        )
        entries.append(shown_file)
        entries.extend(others)
        entries.extend(f"{path}{SIDECAR_SUFFIX}" for path in artifact.paths(study))
    return entries
