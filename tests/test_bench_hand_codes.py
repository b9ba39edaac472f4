"""bench/hand_code_consistency.py: what the hand codes of identical generations allow a coder, and whether a file's
codes sit on their rows."""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from hand_code_consistency import best_coder, shift_agreement, with_majority, with_texts  # noqa: E402


def _hand(files: dict[str, list[tuple[int, str, str]]]) -> pd.DataFrame:
    return with_texts(pd.DataFrame([
        {"model": "m", "phenomenon": "irony", "file": file, "row": row, "item_id": item, "response": text,
         "hand_code": code}
        for file, rows in files.items() for row, (item, text, code) in enumerate(rows, start=1)]))


def test_identical_generations_coded_differently_cap_any_coder_at_their_majority():
    """The same generation of the same item coded target, target and error: a coder reading the generation is right
    on two of the three at best."""
    hand = _hand({"a": [(1, "Yes.", "target")], "b": [(1, " Yes. ", "target")], "c": [(1, "Yes.", "error")],
                  "d": [(2, "No.", "competitor")]})
    (row,) = best_coder(with_majority(hand), ["model"]).to_dict("records")
    assert (row["n"], row["repeated"], row["exact"]) == (4, 3, 0.75)


def test_a_file_whose_codes_are_one_row_off_peaks_at_that_shift():
    rows = [(i, f"answer {i}", "target" if i % 2 else "error") for i in range(1, 9)]
    shifted = [(item, text, rows[k + 1][2] if k + 1 < len(rows) else "error") for k, (item, text, _) in
               enumerate(rows)]
    table = shift_agreement(_hand({"good": rows, "copy": rows, "again": rows, "shifted": shifted})).set_index("file")
    assert table.loc["good", "agree+0"] == table.loc["good", "n+0"] == 8
    assert table.loc["shifted", "agree+1"] > table.loc["shifted", "agree+0"]
