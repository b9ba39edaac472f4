"""Revealed-belief metrics: per (model, setting) the distances of the revealed (RevB) distribution to the true one
and of the stated (StaA) letter distribution to the ideal one-hot answer (Chebyshev = StaA error = 1 - P(correct)),
and Fig. 5's increases over each dice setting's own single-roll baseline."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from choicelab.stats import chebyshev, first_token_mass, l1, symmetric_kl


def _distances(p: Sequence[float], q: Sequence[float], epsilon: float) -> dict[str, float]:
    return {"chebyshev": chebyshev(p, q), "l1": l1(p, q), "symmetric_kl": symmetric_kl(p, q, epsilon=epsilon)}


def revealed_metrics(dump: pd.DataFrame, scenarios: pd.DataFrame, epsilon: float) -> pd.DataFrame:
    """Per (model, setting): distances of the revealed vs the true distribution, plus coverage (raw outcome mass)."""
    truth = scenarios.set_index("setting_id")
    records = []
    for (model, setting_id), group in dump.groupby(["model", "item_id"], sort=True):
        group = group.sort_values("option_id")
        true_probs = list(truth.loc[setting_id, "true_probs"])
        revealed = group["prob"].tolist()
        if len(revealed) != len(true_probs):
            raise ValueError(f"setting {setting_id}: {len(revealed)} revealed outcomes but {len(true_probs)} true ones")
        records.append(
            {
                "model": model, "setting_id": setting_id, "method": "revealed",
                **{c: truth.loc[setting_id, c] for c in ("family", "variant", "row_label", "appendix", "row_key")},
                **_distances(revealed, true_probs, epsilon),
                "coverage": math.fsum(math.exp(s) for s in group["score"]),
                "first_token_mass": first_token_mass(list(group["token_ids"]), list(group["token_logprobs"])),
            }
        )
    return pd.DataFrame.from_records(records)


def stated_metrics(
    dump: pd.DataFrame, questions: pd.DataFrame, scenarios: pd.DataFrame, epsilon: float
) -> pd.DataFrame:
    """Per (model, setting): the StaA distance to the ideal one-hot answer, averaged over the queried outcomes
    (Chebyshev = StaA error = 1 - P(correct letter))."""
    truth = scenarios.set_index("setting_id")
    setting_of = dict(zip(questions["question_id"], questions["setting_id"], strict=True))
    per_question = []
    for (model, variant, question_id), group in dump.groupby(["model", "variant", "item_id"], sort=True):
        group = group.sort_values("option_id")
        ideal = [1.0 if label else 0.0 for label in group["is_label"]]
        per_question.append({"model": model, "template": variant.split(":")[-1], "setting_id": setting_of[question_id],
                             **_distances(group["prob"].tolist(), ideal, epsilon)})
    frame = pd.DataFrame.from_records(per_question)
    if frame.empty:
        return frame
    out = frame.groupby(["model", "template", "setting_id"], as_index=False)[["chebyshev", "l1", "symmetric_kl"]].mean()
    for c in ("family", "variant", "row_label", "appendix", "row_key"):
        out[c] = out["setting_id"].map(truth[c])
    out["method"] = "stated"
    return out


def distances(revealed: pd.DataFrame, stated: pd.DataFrame | None, questions: pd.DataFrame, scenarios: pd.DataFrame,
              epsilon: float) -> pd.DataFrame:
    """The metrics table: RevB rows of every model, StaA rows of the instruct models (``stated`` is None when no
    model was asked), sorted by method, model and setting."""
    frames = [revealed_metrics(revealed, scenarios, epsilon)]
    if stated is not None:
        frames.append(stated_metrics(stated, questions, scenarios, epsilon))
    metrics = pd.concat(frames, ignore_index=True).sort_values(["method", "model", "setting_id"], kind="stable")
    return metrics.reset_index(drop=True)


def baseline_setting(setting_id: str, params: dict[str, Any]) -> str:
    """The single-roll setting a dice setting is compared with in Fig. 5: the same number of dice and faces."""
    return f"dice-single-{params['dice']}d{params['faces']}"


FIG5_CHANGES = (("independent", "prior independent result"), ("observation", "one observation"))


def baseline_increases(metrics: pd.DataFrame, scenarios: pd.DataFrame, roles: Mapping[str, str]) -> pd.DataFrame:
    """Fig. 5's data: per (model, setting) of a dice roll with a prior independent result or one observation, the
    increase of its Chebyshev error over *its own* baseline -- the single roll with the same dice and faces, scored by
    the same model with the same method (and, for StaA, the same prompt template). One row per (group, model,
    setting); ``group`` is "RevB base", "RevB instruct" or "StaA". A setting whose baseline is missing is an error."""
    params = {s: json.loads(p) for s, p in zip(scenarios["setting_id"], scenarios["params"], strict=True)}
    dice = metrics[metrics["family"] == "dice"]
    template = dice["template"] if "template" in dice.columns else pd.Series("", index=dice.index)
    dice = dice.assign(template=template.fillna(""))
    baseline = dice.set_index(["method", "model", "template", "setting_id"])["chebyshev"]
    records = []
    for variant, change in FIG5_CHANGES:
        for r in dice[dice["variant"] == variant].itertuples(index=False):
            base_id = baseline_setting(r.setting_id, params[r.setting_id])
            key = (r.method, r.model, r.template, base_id)
            if key not in baseline.index:
                raise ValueError(f"Fig. 5: no {r.method} baseline {base_id} for {r.model} (setting {r.setting_id})")
            group = "StaA" if r.method == "stated" else f"RevB {roles.get(r.model, '?')}"
            records.append({"group": group, "change": change, "model": r.model, "setting_id": r.setting_id,
                            "baseline_setting": base_id, "chebyshev": r.chebyshev,
                            "baseline_chebyshev": float(baseline[key]),
                            "increase": r.chebyshev - float(baseline[key])})
    columns = ["group", "change", "model", "setting_id", "baseline_setting", "chebyshev", "baseline_chebyshev",
               "increase"]
    return pd.DataFrame.from_records(records, columns=columns)
