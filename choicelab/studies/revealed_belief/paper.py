"""The paper's numbers beside ours: the Llama-3-70B Chebyshev rows of the appendix tables
(data/revealed_belief/paper/llama3_70b_chebyshev.csv), as context -- different models, not a pass/fail."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from choicelab.studies.revealed_belief.results import Built, Results
from choicelab.studies.revealed_belief.tables import BLOCKS, appendix_table_ids


def compare_paper(metrics: pd.DataFrame, paper: pd.DataFrame, models: Sequence[str]) -> pd.DataFrame:
    """The paper's Llama-3-70B Chebyshev rows beside ours (context, not a pass/fail)."""
    ours = metrics.groupby(["method", "appendix", "row_label", "model"])["chebyshev"].mean()
    records = []
    for row in paper.itertuples():
        group, block = appendix_table_ids()[row.table]
        method = BLOCKS[block][0]
        record = {"table": row.table, "row": row.row, "paper_llama3_70b": row.llama3_70b}
        for model in models:
            record[model] = float(ours.get((method, group, row.row, model), float("nan")))
        records.append(record)
    return pd.DataFrame.from_records(records)


def build_compare_paper(results: Results) -> Built:
    return compare_paper(results.metrics, results.need("paper"), list(results.models)), ""
