"""Glue used by the thin adapters in scripts/: logging, provenance records and outputs of the Snakemake job."""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import time
import traceback
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from choicelab.errors import UserError
from choicelab.provenance import make_record

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
    """Run a job's body: its stdout, stderr and logging go to its log file (the traceback too, on failure; a
    :class:`~choicelab.errors.UserError` prints its message alone, not its traceback), its
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
        except UserError as exc:  # the message says what to fix: printed alone, the traceback kept in the log
            traceback.print_exc(file=handle)
            handle.flush()
            old_err.write(f"error: {exc}\n(the traceback is in {path})\n")
            raise SystemExit(1) from None
        except BaseException:
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
    return make_record(rule=smk.rule, inputs=[*smk.input, *extra_inputs], params=dict(smk.params.items()),
                       config=smk.config, seed=smk.config.get("seed") if seed is None else seed, models=list(models))
