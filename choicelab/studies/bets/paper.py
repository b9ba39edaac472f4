"""The bets paper beside ours: its Tables 5, 6, 14 and 20 next to our accuracies with the RQ3 headline (same- vs
cross-modality gap), and its printed p-values recomputed from its own accuracies with our z-test."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from choicelab.mc.competence import COLUMN
from choicelab.plotting import PAPER_COLOUR, PAPER_MARKER, plt
from choicelab.stats import Z95
from choicelab.studies.bets import metrics as m
from choicelab.studies.bets.competence import NOT_ABOVE_CHANCE
from choicelab.studies.bets.seeds import MEAN_MARK, drawn_interval, gap_over_seeds, is_seed_mean
from choicelab.studies.bets.stages import split_seed

PAPER_SHAPES = ("s", "^", "v", "P", "X", "*")  # the paper's encoders in the comparison figure, one shape each

# The random baseline of each ground truth in the paper's z-tests.
PAPER_BASELINES = {
    "standard": 1 / 3,
    "bca": 1 / 3,
    "normal": 1 / 8,
    "weak_normal": 1 / 4,
    "weak": 5 / 8,
    "strict": 1 / 8,
    "positive_gain": 1 / 4,
    "non_negative_gain": 1 / 4,
}


def _our_key(ev: pd.DataFrame) -> pd.DataFrame:
    """Our evaluations keyed like paper_numbers.csv (table, stage, condition, metric), each accuracy (%) with the 95 %
    interval its figures draw (:func:`.seeds.drawn_interval`)."""

    rows = []
    lows, highs = drawn_interval(ev) if len(ev) else (pd.Series(dtype=float), pd.Series(dtype=float))
    for r, low, high in zip(ev.itertuples(index=False), lows, highs, strict=True):
        cond = (
            r.eval_set.removeprefix("bets_value_").upper()
            if "value" in r.eval_set
            else r.eval_set.removeprefix("bets_bet_")
        )
        if r.rq == "rq1" and r.ground_truth == "standard":
            table = "table5"
        elif r.rq == "rq2" and r.ground_truth in ("standard", "bca"):
            table = "table6"
        elif r.rq == "rq2":
            table = "table14"
        elif r.rq == "rq3" and r.ground_truth == "standard":
            table, cond = "table20", f"{cond}:{r.split}"
        else:
            continue
        rows.append(
            {
                "table": table,
                "stage": r.stage,
                "condition": cond,
                "metric": r.ground_truth,
                "model": r.model,
                "accuracy_percent": 100 * r.accuracy,
                "low_percent": 100 * low,
                "high_percent": 100 * high,
                "n": r.n,
                COLUMN: getattr(r, COLUMN, ""),
            }
        )
    return pd.DataFrame(rows, columns=["table", "stage", "condition", "metric", "model", "accuracy_percent",
                                       "low_percent", "high_percent", "n", COLUMN])


def compare_paper(
    ev: pd.DataFrame, paper: pd.DataFrame, paper_labels: Mapping[str, str], notes: pd.DataFrame
) -> pd.DataFrame:
    """The paper's Tables 5, 6, 14 and 20 beside ours, plus the RQ3 headline (diagonal vs off-diagonal means).

    ``paper_labels`` maps our model names to the paper's (e.g. bert-base-uncased -> BERT); a row's ``same_model``
    says whether the two numbers come from the same model. Different models are not a reproduction, and the
    ``note`` column says so, together with the default-stage data and whether task fine-tuning reached its target.
    """
    acc = paper[paper["table"].isin(["table5", "table6", "table14", "table20"])].copy()
    acc["paper_value"] = acc["value"].astype(float)
    ours = _our_key(ev)
    keys = ["table", "stage", "condition", "metric"]
    rows = []
    for key, group in acc.groupby(keys, sort=False):
        entry = dict(zip(keys, key, strict=True))
        mine = ours[(ours[keys] == pd.Series(entry)).all(axis=1)] if not ours.empty else ours
        for r in group.itertuples(index=False):
            for o in mine.itertuples(index=False) if len(mine) else [None]:
                rows.append(
                    {
                        **entry,
                        "paper_model": r.model,
                        "paper_percent": r.paper_value,
                        "our_model": getattr(o, "model", ""),
                        "our_percent": getattr(o, "accuracy_percent", np.nan),
                        "our_low_percent": getattr(o, "low_percent", np.nan),
                        "our_high_percent": getattr(o, "high_percent", np.nan),
                        "n": int(getattr(o, "n", 0)),
                        "same_model": bool(o is not None and paper_labels.get(_encoder(o.model)) == r.model),
                        COLUMN: getattr(o, COLUMN, ""),
                    }
                )
    out = pd.DataFrame(rows)
    out["difference"] = out["our_percent"] - out["paper_percent"]
    out = pd.concat([out, _headline(acc, ours, paper_labels)], ignore_index=True)
    out["like_for_like"] = out["same_model"].fillna(False).astype(bool) & out["our_model"].astype(bool)
    out["note"] = [_note(r, notes) for r in out.itertuples(index=False)]
    return out


def _encoder(label: str) -> str:
    """The config's encoder name of a seeded model or a mean over seeds."""

    return split_seed(label.split(MEAN_MARK)[0])[0]


def _diag(frame: pd.DataFrame, diagonal: bool) -> pd.Series:
    ft = frame["stage"].str.removeprefix("fine-tuned:")
    te = frame["condition"].str.split(":").str[0]
    return (ft == te) if diagonal else (ft != te)


def _mean_and_se(frame: pd.DataFrame) -> tuple[float, float]:
    """Mean accuracy (%) of a set of cells and its binomial standard error (cells independent)."""
    if frame.empty:
        return np.nan, np.nan
    p = frame["accuracy_percent"].to_numpy(dtype=float) / 100
    n = frame["n"].to_numpy(dtype=float)
    return 100 * float(p.mean()), 100 * float(np.sqrt(np.sum(p * (1 - p) / n)) / len(p))


def _headline(acc: pd.DataFrame, ours: pd.DataFrame, paper_labels: Mapping[str, str]) -> pd.DataFrame:
    """RQ3's headline on test items: the mean of the diagonal (fine-tuned and tested on the same modality), of the
    off-diagonal cells, and their gap (paper: 96.1 - 71.8 = 24.3 points), per seed checkpoint with a binomial SE
    (question sampling only), then per encoder over its seeds (``our_model`` ``<encoder> over N seeds``): the mean
    gap with its SD and t 95 % interval over seeds. ``gap_appears`` is judged on the spread over seeds where there are
    two or more seeds (the interval lies above zero); with one seed, on the SE (> 1.96 SE), and the note says that
    the seed spread is unknown."""

    paper20 = acc[(acc["table"] == "table20") & acc["condition"].str.endswith(":test")]
    ours20 = ours[(ours["table"] == "table20") & ours["condition"].str.endswith(":test")] if not ours.empty else ours
    if len(ours20):
        ours20 = ours20[~ours20["model"].map(is_seed_mean)]
    paper_means = {d: paper20[_diag(paper20, d)]["paper_value"].mean() for d in (True, False)}
    rows, gaps = [], []

    def row(label: str, paper_value: float, model: str, value: float, low: float, high: float,
            **extra: Any) -> dict[str, Any]:
        return {"table": "table20 headline", "stage": "fine-tuned", "condition": label, "metric": "standard",
                "paper_model": "mean of 4", "paper_percent": paper_value, "our_model": model, "our_percent": value,
                "our_low_percent": low, "our_high_percent": high, "same_model": False,
                "difference": value - paper_value, "gap_appears": None, **extra}

    def normal(mean: float, se: float) -> tuple[float, float, float]:  # many questions behind each cell: z, not t
        return mean, mean - Z95 * se, mean + Z95 * se

    for model in sorted(ours20["model"].unique()) if len(ours20) else [""]:
        mine = ours20[ours20["model"] == model] if model else ours20
        stats = {d: _mean_and_se(mine[_diag(mine, d)]) if len(mine) else (np.nan, np.nan) for d in (True, False)}
        gap = stats[True][0] - stats[False][0]
        gap_se = float(np.hypot(stats[True][1], stats[False][1]))
        failed = _failed_checkpoints(mine)
        gaps.append({"model": model, "gap": gap, "failed": failed})
        verdict = {COLUMN: _verdict(failed, model)}
        rows.append(row("diagonal mean", paper_means[True], model, *normal(*stats[True]), **verdict))
        rows.append(row("off-diagonal mean", paper_means[False], model, *normal(*stats[False]), **verdict))
        rows.append(row("diagonal minus off-diagonal", paper_means[True] - paper_means[False], model,
                        *normal(gap, gap_se),
                        gap_appears=(bool(gap > Z95 * gap_se) if not np.isnan(gap) else None), gap_basis="SE",
                        **verdict))
    gap_frame = pd.DataFrame(gaps, columns=["model", "gap", "failed"])
    spreads = gap_over_seeds(gap_frame[["model", "gap"]])
    spreads = spreads[spreads["seeds"] >= 2]
    for spread in spreads.itertuples():
        failed = sorted({c for m, f in zip(gap_frame["model"], gap_frame["failed"], strict=True)
                         if _encoder(m) == spread.model for c in f})
        rows.append(row("diagonal minus off-diagonal", paper_means[True] - paper_means[False],
                        f"{spread.model} over {spread.seeds} seeds", spread.gap, spread.ci95_low_seeds,
                        spread.ci95_high_seeds,
                        gap_appears=spread.gap_appears, gap_basis=f"{spread.seeds} seeds",
                        **{COLUMN: _verdict(failed, spread.model)},
                        sd_seeds=spread.sd_seeds, ci95_low_seeds=spread.ci95_low_seeds,
                        ci95_high_seeds=spread.ci95_high_seeds))
    frame = pd.DataFrame(rows)
    if len(spreads):  # with several seeds, one checkpoint's SE-based verdict is not the headline: the seed spread is
        frame.loc[frame["gap_basis"].eq("SE"), "gap_basis"] = "SE of one seed checkpoint (see the row over seeds)"
    return frame


def _failed_checkpoints(cells: pd.DataFrame) -> list[str]:
    """The checkpoints (fine-tuning stages) behind a set of RQ3 cells that the competence gate marked."""
    if COLUMN not in cells or cells.empty:
        return []
    bad = cells[cells[COLUMN].astype(str).str.startswith(NOT_ABOVE_CHANCE)]
    return sorted({f"{m}:{s.removeprefix('fine-tuned:')}" for m, s in zip(bad["model"], bad["stage"], strict=True)})


def _verdict(failed: list[str], model: str) -> str:
    """The headline's competence note: which fine-tuned checkpoints behind it are not above chance."""
    if not model:
        return ""
    return f"{NOT_ABOVE_CHANCE}: {', '.join(failed)}" if failed else "every checkpoint behind it above chance"


def _note(row: Any, notes: pd.DataFrame) -> str:
    parts = []
    verdict = str(getattr(row, COLUMN, "") or "")
    if verdict.startswith(NOT_ABOVE_CHANCE):
        parts.append(verdict)
    if row.condition == "diagonal minus off-diagonal" and row.our_model:
        appears = getattr(row, "gap_appears", None)
        basis = str(getattr(row, "gap_basis", "") or "")
        over_seeds = basis.endswith(" seeds") and not basis.startswith("SE")
        test = "its t 95% interval over seeds lies above 0" if over_seeds else "> 1.96 SE of one checkpoint"
        if appears is True:
            parts.append(f"the paper's same- vs cross-modality gap appears ({test})")
        elif appears is False:
            parts.append(f"the paper's same- vs cross-modality gap does not appear (not: {test})")
        if basis == "SE":
            parts.append("one seed: the spread over seeds is unknown")
    if row.our_model and not row.same_model:
        parts.append(
            f"different model ({row.our_model} vs the paper's {row.paper_model}): a comparison, not a reproduction"
        )
    if row.our_model and not notes.empty:
        encoder, seed = split_seed(str(row.our_model).split(" over ")[0].split(" mean of ")[0])
        mine = notes[notes["model"] == encoder]
        if seed is not None and "seed" in mine:
            mine = mine[mine["seed"] == seed]
        default = mine[mine["stage"] == "default"]
        if len(default):
            parts.append(f"default stage trained on {default.iloc[0]['trained_on']}")
        task = None
        if row.table == "table20" or row.table == "table20 headline":
            task = mine[mine["stage"].str.startswith("bet_")]
        elif row.stage == "fine-tuned":
            task = mine[mine["stage"].str.startswith("value_")]
        if task is not None and len(task) and not bool(task["reached_target"].all()):
            missed = ", ".join(sorted(set(task.loc[~task["reached_target"].astype(bool), "stage"])))
            parts.append(f"task fine-tuning did not reach the target dev accuracy for {missed}")
    if not row.our_model:
        parts.append("no model of ours for this cell")
    return "; ".join(parts)


def compare_paper_figure(compared: pd.DataFrame) -> plt.Figure:
    """One panel per paper table and ground truth (Tables 5, 6, 14, 20 and the RQ3 headline), accuracy (%) on one
    scale: per cell the paper's four encoders (black, one marker shape each, labelled "paper: <its model>") beside each
    of our models (with its 95 % interval: clustered by item pair for a checkpoint, t over seeds for a mean, normal
    from the questions' SE for the RQ3 headline's means of cells; n questions under the cell)."""
    cells = compared[compared["table"] != "table20 headline"]
    panels = [(t, g) for t, g in cells.groupby(["table", "metric"], sort=False)]
    headline = compared[compared["table"] == "table20 headline"]
    if len(headline):
        panels.append((("table20 headline", "standard"), headline))
    n_cols = 2
    n_rows = max(1, -(-len(panels) // n_cols))
    fig, axes = plt.subplots(n_rows, n_cols, figsize=(9 * n_cols, 3.8 * n_rows), squeeze=False)
    paper_models = list(dict.fromkeys(compared["paper_model"].dropna()))
    # told apart by shape, not by a shade of grey; the mean of the four keeps the papers' diamond
    shapes = {p: PAPER_MARKER if p.startswith("mean") else PAPER_SHAPES[i % len(PAPER_SHAPES)]
              for i, p in enumerate(paper_models)}
    ours = sorted(m for m in compared["our_model"].dropna().unique() if m)
    colours = {m: f"C{i}" for i, m in enumerate(ours)}
    width = 0.8 / max(1, len(paper_models) + len(ours))
    for ax, ((table, metric), part) in zip(axes.flat, panels, strict=False):
        keys = list(dict.fromkeys(zip(part["stage"], part["condition"], strict=True)))
        x_of = {k: i for i, k in enumerate(keys)}
        ns: dict[tuple[str, str], set[str]] = {k: set() for k in keys}
        for j, model in enumerate(paper_models):
            mine = part[part["paper_model"] == model].drop_duplicates(["stage", "condition"])
            x = [x_of[k] + (j - (len(paper_models) + len(ours)) / 2 + 0.5) * width
                 for k in zip(mine["stage"], mine["condition"], strict=True)]
            ax.plot(x, mine["paper_percent"], ls="none", marker=shapes[model], color=PAPER_COLOUR,
                    markerfacecolor="none", label=f"paper: {model}")
        for i, model in enumerate(ours):
            mine = part[part["our_model"] == model].drop_duplicates(["stage", "condition"])
            if mine.empty:
                continue
            x = [x_of[k] + (len(paper_models) + i - (len(paper_models) + len(ours)) / 2 + 0.5) * width
                 for k in zip(mine["stage"], mine["condition"], strict=True)]
            below = (mine["our_percent"] - mine["our_low_percent"]).fillna(0.0)
            above = (mine["our_high_percent"] - mine["our_percent"]).fillna(0.0)
            ax.errorbar(x, mine["our_percent"], yerr=[below, above], ls="none", marker="o", capsize=2,
                        color=colours[model], label=f"ours: {model}")
            if "n" in mine:
                for k, n in zip(zip(mine["stage"], mine["condition"], strict=True), mine["n"], strict=True):
                    if pd.notna(n) and n:
                        ns[k].add(str(int(n)))
        crowded = len(keys) > 8  # Table 20's 18 cells: one rotated line each, "fine-tune modality -> test:split"
        sep = " " if crowded else "\n"
        labels = [(f"{s.removeprefix('fine-tuned:')} -> {c}" if crowded else f"{c}\n{s}")
                  + (f"{sep}n={'/'.join(sorted(ns[(s, c)]))}" if ns[(s, c)] else "") for s, c in keys]
        ax.set_xticks(range(len(keys)), labels, fontsize=8, rotation=90 if crowded else 0)
        ax.set_xlim(-0.6, len(keys) - 0.4)
        if table != "table20 headline":
            ax.set_ylim(0, 100)
        ax.set_ylabel("accuracy (%)" if table != "table20 headline" else "mean accuracy / gap (%)")
        ax.set_title(f"{table}: {metric}" + (" (paper: mean of its 4 encoders)" if table == "table20 headline"
                                              else ""), fontsize=9)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    # one legend for every panel's entries (a model of ours can appear in one panel only, e.g. the headline's
    # seed mean), so no plotted point is left without its label
    entries: dict[str, Any] = {}
    for ax in axes.flat:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            entries.setdefault(label, handle)
    fig.suptitle("The paper's Tables 5, 6, 14, 20 (black hollow markers: its encoders) beside ours "
                 f"({', '.join(ours) or 'no model run'}; bars: 95% intervals; n = questions)", fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.35 / fig.get_figheight()))  # the suptitle's line kept clear of the panels
    # the legend above the panels, under the title: over no plotted point
    rows = -(-len(entries) // 5)
    fig.legend(list(entries.values()), list(entries), loc="upper center", ncol=min(len(entries), 5),
               bbox_to_anchor=(0.5, 1 - 0.35 / fig.get_figheight()), frameon=False)
    fig.subplots_adjust(top=fig.subplotpars.top - (0.25 * rows + 0.1) / fig.get_figheight())
    return fig


def pvalue_check(paper: pd.DataFrame) -> pd.DataFrame:
    """The paper's p-values recomputed from the paper's own accuracies with our z-test; marks where they agree."""
    pairs = {"table9": "table5", "table13": "table6", "table15": "table14", "table16": "table20"}
    keys = ["model", "stage", "condition", "metric"]
    rows = []
    for p_table, acc_table in pairs.items():
        pv = paper[paper["table"] == p_table].set_index(keys)
        acc = paper[paper["table"] == acc_table].set_index(keys)
        for key, r in pv.iterrows():
            accuracy = float(acc.loc[key, "value"])
            n = int(r["n"])
            p0 = PAPER_BASELINES[key[3]]
            ours = m.pvalue_from_accuracy(accuracy, n, p0)
            rows.append(
                {
                    "table": p_table,
                    "accuracy_table": acc_table,
                    **dict(zip(keys, key, strict=True)),
                    "n": n,
                    "p0": p0,
                    "paper_accuracy_percent": accuracy,
                    "paper_p": r["value"],
                    "our_p": ours,
                    "our_p_printed": m.format_pvalue(ours),
                    "agrees": m.paper_pvalue_agrees(ours, r["value"]),
                }
            )
    return pd.DataFrame(rows)


def read_paper_numbers(path: str) -> pd.DataFrame:
    """data/bets/paper/paper_numbers.csv with values kept as printed ('<.001', '.392', '68')."""
    frame = pd.read_csv(path, dtype=str)
    frame["n"] = frame["n"].astype(int)
    return frame
