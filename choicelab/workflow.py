"""Glue used by the thin adapters in scripts/: logging, provenance records and outputs of the Snakemake job."""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from choicelab.provenance import make_record

if TYPE_CHECKING:
    from choicelab.artifacts import Artifact

THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def job_threads() -> int | None:
    """The running Snakemake script job's ``threads`` (Snakemake puts the ``snakemake`` object in the script's
    ``__main__``); None outside a job."""
    smk = getattr(sys.modules.get("__main__"), "snakemake", None)
    threads = getattr(smk, "threads", None)
    return int(threads) if threads else None


def set_threads(threads: int) -> None:
    """Size torch's (and the BLAS libraries') thread pools to ``threads``: set now if torch is loaded, and through
    the environment for libraries loaded later, so parallel jobs do not each start a pool as wide as the machine."""
    for variable in THREAD_VARIABLES:
        os.environ[variable] = str(threads)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(threads)


@contextlib.contextmanager
def log_to(path: str, threads: int | None = None) -> Iterator[None]:
    """Run a job's body: its stdout, stderr and logging go to its log file (the traceback too, on failure), its
    thread pools are sized to the job's ``threads`` (the rule's ``threads:``, read from the job when not given), and
    what its models computed ends the log (a ``choicelab usage:`` line, see choicelab.lm.usage)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    threads = threads or job_threads()
    if threads:
        set_threads(threads)
    with open(path, "w", encoding="utf-8") as handle:
        old_out, old_err = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = handle
        handler = logging.StreamHandler(handle)
        logging.getLogger().addHandler(handler)
        logging.getLogger().setLevel(logging.INFO)
        if threads:
            logging.getLogger(__name__).info("threads: %d (torch and BLAS pools)", threads)
        started = time.perf_counter()
        try:
            yield
            _log_usage(time.perf_counter() - started, threads)
        except BaseException:
            import traceback

            traceback.print_exc(file=handle)
            handle.flush()
            old_err.write(f"error: the job failed; see {path}\n")
            raise
        finally:
            logging.getLogger().removeHandler(handler)
            sys.stdout, sys.stderr = old_out, old_err


def _log_usage(seconds: float, threads: int | None) -> None:
    """The job's model usage (tokens, estimated FLOPs; choicelab.lm.usage) as one log line, when a model ran."""
    usage = sys.modules.get("choicelab.lm.usage")
    line = usage.usage_line(seconds, threads) if usage is not None else None
    if line:
        logging.getLogger(__name__).info(line)


def job_record(
    smk: Any, *, models: Sequence[str] = (), seed: int | None = None, extra_inputs: Sequence[str] = ()
) -> dict:
    """A provenance record for the running Snakemake job (rule, params, inputs with hashes, config hash)."""
    params = {k: v for k, v in dict(smk.params.items()).items()}
    return make_record(
        rule=smk.rule,
        inputs=[*smk.input, *extra_inputs],
        params=params,
        config=smk.config,
        seed=seed if seed is not None else smk.config.get("seed"),
        models=list(models),
    )


def outputs_by_name(paths: Iterable[str], suffix: str) -> dict[str, str]:
    """The outputs with ``suffix`` (".csv", ".png", ...) keyed by file stem, in the job's order.

    A job that writes a set of artifacts (one rule per study's tables or figures) loops over this mapping:
    ``outputs_by_name(["t/table1.csv", "t/table1.md"], ".csv") == {"table1": "t/table1.csv"}``.
    """
    return {Path(path).name.removesuffix(suffix): str(path) for path in paths if str(path).endswith(suffix)}


def output_pairs(paths: Iterable[str], shown: str, paired: str) -> dict[str, tuple[str, str]]:
    """The outputs that come in pairs (a table's ".csv" and ".md", a figure's ".png" and ".svg") keyed by file stem,
    in the job's order: ``output_pairs(["t/a.csv", "t/a.md"], ".csv", ".md") == {"a": ("t/a.csv", "t/a.md")}``.

    Raises before anything is written when a name lacks one of the two files (a rule whose outputs drifted)."""
    first, second = outputs_by_name(paths, shown), outputs_by_name(paths, paired)
    unpaired = sorted(set(first) ^ set(second))
    if unpaired:
        raise ValueError(f"outputs {unpaired} lack their {shown} or {paired} file: each name needs both")
    return {name: (path, second[name]) for name, path in first.items()}


def write_table_artifacts(smk: Any, study: str, settings: Any, artifacts: Sequence[Artifact]) -> None:
    """The generic table step of a study: each of the study's ``artifacts`` (its ARTIFACTS table) made by the running
    rule (``smk.rule``) is built by its ``builder(inputs, settings)`` -- the job's named inputs and the study's typed
    ``settings`` -- which returns a DataFrame (written as CSV and as a Markdown table) or a (DataFrame, Markdown text)
    pair; each file gets its provenance sidecar with the row's id, ``reproduces`` and caption (naming the study's
    models, when its settings have any). The outputs are the rule's ``artifact_outputs``. The adapter passes the
    study's settings and artifacts in (from the registry, :mod:`choicelab.studies`): this layer imports no study."""
    from choicelab.artifacts import caption_naming, of_rule
    from choicelab.io import write_csv, write_text
    from choicelab.provenance import write_artifact

    record = job_record(smk)
    pairs = output_pairs(smk.output, ".csv", ".md")
    for artifact in of_rule(artifacts, smk.rule, names=list(pairs)):
        built = artifact.builder(smk.input, settings)
        frame, markdown = built if isinstance(built, tuple) else (built, built.to_markdown(index=False) + "\n")
        csv, md = pairs[artifact.name]
        write_csv(csv, frame)
        write_text(md, markdown)
        write_artifact([csv, md], artifact_id=f"{study}/{artifact.name}", reproduces=artifact.reproduces,
                       caption=caption_naming(artifact.caption, getattr(settings, "models", ())), record=record)
