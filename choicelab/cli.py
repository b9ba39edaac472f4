"""The choicelab command line (the workflow layer: it may read the study registry and pass it down)."""

from __future__ import annotations

import argparse
import difflib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, NoReturn

from choicelab.cards.overlay import card_models
from choicelab.config import (
    DATA_MIRROR_ENV,
    command_data_root,
    effective_config,
    load_config_file,
    missing_keys,
    model_entry_key,
    validate_config,
)
from choicelab.errors import UserError
from choicelab.io import write_csv, write_parquet
from choicelab.lm.prepare import prepare_model
from choicelab.lm.requests import ContinuationRequest
from choicelab.lm.scorer import load_scorer
from choicelab.provenance import (
    audit,
    format_audit,
    format_lineage,
    format_verification,
    lineage,
    make_record,
    read_record,
    record_json,
    verify,
    workflow_root,
)
from choicelab.show import show_item
from choicelab.studies.scoring_methods import reanalysis
from choicelab.studies.scoring_methods.code_free import code_free_file
from choicelab.studies.steer.report import report_card_main

MODELS_ROOT = Path("results/models")
SNAKEFILE = Path(__file__).resolve().parents[1] / "Snakefile"

DESCRIPTION = """\
choicelab reproduces five published studies of how language models make choices
(STEER, revealed belief, probes, scoring methods, bets) and writes one
choice-behaviour card per model.

First steps:
  choicelab card smollm2-135m-instruct    one model's card, in minutes
                                          (results/cards/<model>.html, .png, .pdf)
  choicelab card tiny-llama --configfile configs/smoke.yaml
                                          a card of a configured tiny model
  snakemake --cores 2                     the full reproduction (hours; README)
  choicelab provenance FILE --brief       what a table or figure rests on
  choicelab show DUMP --item ID           the exact prompt behind one item

Run `choicelab COMMAND --help` for a command's options.
"""


def _token_budget(text: str) -> int | str:
    """--max-batch-tokens: a number of tokens, or auto."""
    return text if text == "auto" else int(text)


def _model_dir(model: str) -> Path:
    candidate = Path(model)
    if (candidate / "model.json").exists():
        return candidate
    named = MODELS_ROOT / model
    if (named / "model.json").exists():
        return named
    raise SystemExit(
        f"error: model {model!r} is neither a materialized model folder nor a name under {MODELS_ROOT}/; "
        f"run `snakemake --cores 1 {named}` to materialize it (it must be listed under 'models:' in the config)"
    )


def read_requests(path: Path) -> list:
    """The JSON-lines requests file: one object a line with string fields 'id', 'context' and 'continuation'
    (the continuation not empty). A bad line is refused with the file, the line and the field."""
    requests = []
    try:
        lines = path.read_bytes().decode("utf-8").splitlines()
    except UnicodeDecodeError as exc:
        number = path.read_bytes()[: exc.start].count(b"\n") + 1
        raise SystemExit(f"error: {path}:{number}: not UTF-8 text (byte {exc.start}); save the file as UTF-8") from exc
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            if not isinstance(obj, dict):
                raise TypeError(f"a JSON {type(obj).__name__}, not an object")
            missing = [k for k in ("id", "context", "continuation") if k not in obj]
            if missing:
                raise KeyError(", ".join(map(repr, missing)))
            requests.append(ContinuationRequest(str(obj["id"]), obj["context"], obj["continuation"]))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise SystemExit(
                f"error: {path}:{number}: each line must be a JSON object with string fields 'id', 'context' and "
                f"'continuation' (not empty): {exc}"
            ) from exc
    if not requests:
        raise SystemExit(f"error: {path} holds no requests")
    ids = [r.id for r in requests]
    if len(set(ids)) != len(ids):
        raise SystemExit(f"error: {path}: request ids must be unique")
    return requests


def cmd_score(args: argparse.Namespace) -> None:
    import pyarrow as pa

    requests = read_requests(Path(args.requests))
    model_dir = _model_dir(args.model)
    scorer, meta = load_scorer(model_dir, dtype=args.dtype, device=args.device, max_batch_tokens=args.max_batch_tokens)
    scores = scorer.score(requests)
    table = pa.table(
        {
            "id": [s.id for s in scores],
            "n_tokens": pa.array([s.n_tokens for s in scores], pa.int32()),
            "sum_logprob": [s.sum_logprob for s in scores],
            "token_ids": pa.array([list(s.token_ids) for s in scores], pa.list_(pa.int32())),
            "token_logprobs": pa.array([list(s.token_logprobs) for s in scores], pa.list_(pa.float64())),
        }
    )
    record = make_record(
        rule="choicelab score",
        inputs=[args.requests],
        params={"max_batch_tokens": args.max_batch_tokens, "dtype": args.dtype or meta.get("dtype")},
        models=[model_dir],
    )
    write_parquet(args.out, table, provenance=record_json(record))
    print(f"scored {len(scores)} requests with {meta['name']} -> {args.out}")


def cmd_provenance(args: argparse.Namespace) -> None:
    """What an output rests on (prompts, data files, checkpoints, weights, config file, code version), then its
    lineage tree; ``--json``: both as one JSON object (``audit``, ``lineage``)."""
    path = Path(args.path)
    if not path.exists():
        raise SystemExit(f"error: {path} does not exist")
    if read_record(path) is None:
        raise SystemExit(
            f"error: {path} has no provenance record (no {path}.prov.json sidecar, Parquet metadata or model.json)"
        )
    root = workflow_root(path)
    tree = lineage(path, root=root)
    report = audit(tree, root)
    checks = verify([path], root)
    if args.json:
        print(json.dumps({"audit": report, "lineage": tree, "verification": checks}, indent=2))
    else:
        print(format_audit(report, brief=args.brief))
        print(format_verification(checks, brief=args.brief))
        if not args.brief:
            print("\nlineage (each file, the rule that made it and its inputs):")
            print(format_lineage(tree))
    if any(c["status"] != "ok" for c in checks):
        raise SystemExit(1)


def cmd_verify(args: argparse.Namespace) -> None:
    """Re-hash every file the records under each path name; exit 1 if any is changed or missing."""
    missing = [p for p in args.paths if not Path(p).exists()]
    if missing:
        raise SystemExit(f"error: {', '.join(missing)} does not exist")
    checks = verify(args.paths)
    print(format_verification(checks, every=True))
    if not checks:
        raise SystemExit(f"error: no provenance record under {', '.join(args.paths)}: nothing to verify")
    if any(c["status"] != "ok" for c in checks):
        raise SystemExit(1)


def cmd_prepare_model(args: argparse.Namespace) -> None:
    prepare_model(args.name, json.loads(args.spec_json), Path(args.out), seed=args.seed)


def cmd_config(args: argparse.Namespace) -> None:
    """Print the config a run would use: the Snakefile parsed by Snakemake with these --configfile / --config."""
    import yaml

    overrides = {}
    for pair in args.config or []:
        key, sep, value = pair.partition("=")
        if not sep:
            raise ValueError(f"--config {pair!r}: write KEY=VALUE, as for snakemake --config")
        overrides[key] = yaml.safe_load(value)
    if args.configfile:
        filled = missing_keys(load_config_file(args.configfile))  # a missing file or a repeated key: one line
        if filled:
            print(f"# keys {args.configfile} leaves out, filled from the schema's defaults: {', '.join(filled)}")
    config = effective_config(args.configfile, overrides)
    print(f"# the config `snakemake{' --configfile ' + args.configfile if args.configfile else ''}` runs with")
    print(yaml.safe_dump(config, sort_keys=False, default_flow_style=None, width=120), end="")


def cmd_code_free(args: argparse.Namespace) -> None:
    mirror = command_data_root(args.data_mirror, "code-free (the pragmatics items)")
    coder, kind = (args.coder, "trained") if args.coder else (args.embedder, "embedding")
    result = code_free_file(args.generations, coder, args.out, mirror, kind=kind)
    print(f"coded {len(result)} generations -> {args.out}: {result['coded_option'].value_counts().to_dict()}")


def cmd_reanalyze(args: argparse.Namespace) -> None:
    result = reanalysis.reanalyze(args.outputs)  # fails before anything is written
    write_csv(args.out, reanalysis.accuracy_rows(result))  # atomic: a complete file or none
    for line in reanalysis.mismatch_summary(result.checks):
        print(f"mismatch: {line}", file=sys.stderr)
    print(f"{len(result.accuracy)} rows ({result.accuracy['model_name'].nunique()} models) -> {args.out}")


def cmd_show(args: argparse.Namespace) -> None:
    path = Path(args.path)
    if not path.exists():
        raise SystemExit(f"error: {path} does not exist")
    filters = {k: v for k, v in (("model", args.model), ("variant", args.variant), ("method", args.method)) if v}
    print(show_item(path, args.item, filters=filters))


def card_command(models: list[str], cores: int, configfile: str | None, data_mirror: str | None,
                 dry_run: bool = False, snakefile: Path = SNAKEFILE) -> list[str]:
    """The `snakemake cards` command that builds the cards of ``models`` (docs/cards.md)."""
    config = [f"card_models=[{', '.join(models)}]", *([f"data_mirror={data_mirror}"] if data_mirror else [])]
    return [sys.executable, "-m", "snakemake", "cards", "--snakefile", str(snakefile), "--cores", str(cores),
            *(["--configfile", configfile] if configfile else []), "--config", *config,
            *(["--dry-run"] if dry_run else [])]


def cmd_card(args: argparse.Namespace) -> None:
    """Check the model names against the config (a misspelt one: "did you mean"), then run `snakemake cards`."""
    if not SNAKEFILE.is_file():
        raise FileNotFoundError(f"no Snakefile at {SNAKEFILE}: `choicelab card` runs the workflow of a checkout")
    config = load_config_file(args.configfile or SNAKEFILE.parent / "config.yaml")
    validate_config(config)
    card_models({**config, "card_models": args.models})
    command = card_command(args.models, args.cores, args.configfile,
                           args.data_mirror or os.environ.get(DATA_MIRROR_ENV), args.dry_run)
    print(" ".join(command), flush=True)
    returncode = subprocess.run(command).returncode
    if returncode:
        raise SystemExit(f"error: the card run failed (return code {returncode}); each failed panel of "
                         f"results/cards/<model>.html says why, and results/cards/_run/snakemake.log has the run")
    print("cards: " + ", ".join(f"results/cards/{m}.html" for m in args.models) + "; index: results/cards/index.html")


class _Parser(argparse.ArgumentParser):
    """argparse's parser that adds "did you mean" to a misspelt command or option."""

    def _words(self) -> tuple[list[str], list[str]]:
        """(every option string, every command) of this parser and its subcommands."""
        options, commands = [], []
        for action in self._actions:
            options += action.option_strings
            for name, parser in (getattr(action, "choices", None) or {}).items():
                if isinstance(parser, argparse.ArgumentParser):
                    commands.append(name)
                    options += [o for a in parser._actions for o in a.option_strings]
        return options, commands

    def error(self, message: str) -> NoReturn:
        options, commands = self._words()
        if message.startswith("unrecognized arguments:"):
            words, known = [w for w in message.split(":", 1)[1].split() if w.startswith("-")], options
        elif "invalid choice:" in message:
            words, known = [message.split("invalid choice:", 1)[1].split("'")[1]], commands
        else:
            words, known = [], []
        hints = [f"{w!r}: did you mean {close[0]!r}?" for w in words
                 if (close := difflib.get_close_matches(w.split("=")[0], sorted(set(known)), n=1, cutoff=0.6))]
        super().error(message + ("; " + "; ".join(hints) if hints else ""))


def build_parser() -> argparse.ArgumentParser:
    """The command line: the user's commands (card, score), the audit (provenance, verify, show), the workflow's
    own (prepare-model, config) and the studies' (code-free, reanalyze, report-card)."""
    parser = _Parser(prog="choicelab", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in (_add_run_commands, _add_audit_commands, _add_workflow_commands, _add_study_commands):
        add(sub)
    return parser


def _add_run_commands(sub: Any) -> None:
    card = sub.add_parser("card", help="build the choice-behaviour card of one or more configured models "
                          "(runs `snakemake cards`)")
    card.add_argument("models", nargs="+", metavar="MODEL", help="a model entry of the config (its 'models:')")
    card.add_argument("--configfile", default=None, help="as snakemake --configfile (default: config.yaml)")
    card.add_argument("--cores", type=int, default=2, help="cores for the run (default 2)")
    card.add_argument("--data-mirror", default=None, help="folder laid out like ../shared/data (default: "
                      "$CHOICELAB_DATA_MIRROR, else the config's data_mirror)")
    card.add_argument("--dry-run", action="store_true", help="show what would run, run nothing")
    card.set_defaults(func=cmd_card)

    score = sub.add_parser("score", help="score (context, continuation) requests with a causal or seq2seq LM "
                           "(its model.json kind picks the scorer)")
    score.add_argument("--model", required=True, help="model name (results/models/NAME) or a model folder")
    score.add_argument("--requests", required=True, help="JSONL: one {id, context, continuation} per line")
    score.add_argument(
        "--out", required=True, help="output Parquet: id, n_tokens, sum_logprob, token_ids, token_logprobs"
    )
    score.add_argument("--dtype", choices=model_entry_key("dtype")["enum"], default=None,
                       help="load in this dtype instead of the model's own (its model.json)")
    score.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")
    score.add_argument("--max-batch-tokens", type=_token_budget, default="auto",
                       help="tokens per scoring batch, or auto (sized from the free GPU memory)")
    score.set_defaults(func=cmd_score)


def _add_audit_commands(sub: Any) -> None:
    prov = sub.add_parser("provenance", help="print what an output (a figure, a table, a dump) rests on -- prompts, "
                          "data files, checkpoints, weights with their hashes, the config file, the code version -- "
                          "then its lineage back to item lists and model weights")
    prov.add_argument("path")
    prov.add_argument("--json", action="store_true", help="print the audit and the lineage tree as JSON")
    prov.add_argument("--brief", action="store_true", help="within a screen: the audit with each section's "
                      "first entries, not the lineage tree")
    prov.set_defaults(func=cmd_provenance)

    check = sub.add_parser("verify", help="re-hash every file that the provenance records under PATH name (outputs, "
                           "inputs, model weights) and report each changed or missing one; exit 1 if any")
    check.add_argument("paths", nargs="+", metavar="PATH", help="an output (its whole lineage) or a folder such as "
                       "results/ (every record under it)")
    check.set_defaults(func=cmd_verify)

    show = sub.add_parser("show", help="print one item of a logit dump or score table: the exact prompt the model "
                          "saw, its options and their scores")
    show.add_argument("path", help="a logit dump (results/**/dumps/*.parquet) or a scoring-methods score table")
    show.add_argument("--item", required=True, help="the item id (the item_id column)")
    show.add_argument("--model", help="only this model's rows")
    show.add_argument("--variant", help="only this prompt variant (e.g. 3shot, revealed, stated:chat)")
    show.add_argument("--method", help="only this scoring method (e.g. letter_prob, sum_logprob)")
    show.set_defaults(func=cmd_show)


def _add_workflow_commands(sub: Any) -> None:
    prep = sub.add_parser("prepare-model", help="materialize a configured model (used by rule prepare_model)")
    prep.add_argument("--name", required=True)
    prep.add_argument("--spec-json", required=True)
    prep.add_argument("--out", required=True)
    prep.add_argument("--seed", type=int, required=True,
                      help="the run's seed (config key seed): a random model's weights")
    prep.set_defaults(func=cmd_prepare_model)

    conf = sub.add_parser("config", help="print the effective config a run uses (config.yaml, or --configfile alone)")
    conf.add_argument(
        "--configfile", default=None, help="as snakemake --configfile (default: the embedded config.yaml)"
    )
    conf.add_argument("--config", nargs="*", metavar="KEY=VALUE", help="as snakemake --config (top-level keys)")
    conf.set_defaults(func=cmd_config)


def _add_study_commands(sub: Any) -> None:
    code = sub.add_parser("code-free", help="code free generations of the pragmatics items into the option they "
                          "express (target, competitor, ...) or error")
    code.add_argument("--generations", required=True, help="CSV with model_name, phenomenon, item_id, response "
                      "(phenomenon and item ids as in LLM_link data_hu_*.csv)")
    which = code.add_mutually_exclusive_group(required=True)
    which.add_argument("--coder", help="the trained coder's folder (the workflow's "
                       "results/scoring_methods/coders/all, rule sm_train_coder)")
    which.add_argument("--embedder", help="code by sentence similarity with this encoder folder instead, e.g. "
                       "results/models/minilm-l6")
    code.add_argument("--out", required=True, help="output CSV: the input plus coded_option")
    code.add_argument("--data-mirror", default=None, help="folder laid out like ../shared/data (default: "
                      "$CHOICELAB_DATA_MIRROR)")
    code.set_defaults(func=cmd_code_free)

    rean = sub.add_parser("reanalyze", help="reanalyse a study's released model outputs by the authors' rules: "
                          "choicelab reanalyze scoring_methods --outputs DIR --out FILE.csv")
    rean.add_argument("study", choices=["scoring_methods"], help="the study whose authors released outputs")
    rean.add_argument("--outputs", required=True, help="a folder laid out like LLM_link results/ (log_probs/, "
                      "rating/, embedding_similarity/, free/; any subset, any model folders)")
    rean.add_argument("--out", required=True, help="output CSV: model_name, phenomenon, metric, configuration, "
                      "accuracy, n, k, n_tie_broken")
    rean.set_defaults(func=cmd_reanalyze)

    sub.add_parser("report-card", help="render a STEER report card: choicelab report-card --rubric RUBRIC.yaml "
                   "--metrics questions.parquet --out-html X.html --out-png X.png (see --help)", add_help=False)


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv[:1] == ["report-card"]:  # its own parser: choicelab.studies.steer.report.build_parser
            report_card_main(argv[1:])
            return
        args = build_parser().parse_args(argv)
        args.func(args)
    except (UserError, ValueError, FileNotFoundError, ImportError, RuntimeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(1) from exc


if __name__ == "__main__":
    main()
