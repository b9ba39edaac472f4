"""Every dump row carries the exact text the model was conditioned on, so any number can be audited back to it.

A reader holding only a dump can re-run the model on (context, option) and get the row's score back, see whether
tokenization merged the boundary, and read the terminal factor; `choicelab show` prints one item as the model saw it.
"""

from __future__ import annotations

import math
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from choicelab.dumps import read_dump, write_dump
from choicelab.lm.candidates import candidate_distributions, digit_continuation_ids
from choicelab.lm.causal import CausalScorer, ContinuationRequest
from choicelab.lm.tiny import tiny_model
from choicelab.mc.items import MCItem
from choicelab.mc.scoring import letter_prompt, score_letters, score_sequences
from choicelab.provenance import make_record, record_json
from choicelab.show import show_item
from conftest import repo_env

ITEMS = [
    MCItem("toy", "dev", "q1", "Which is heavier, a brick or a feather?", ("a brick", "a feather"), 0),
    MCItem("toy", "dev", "q2", "The sky on a clear day is", ("blue", "green", "red"), 0),
]


@pytest.fixture(scope="module")
def scorer():
    model, tokenizer = tiny_model("llama", seed=0)
    return CausalScorer(model, tokenizer)


def _write(tmp_path, rows, name="dump.parquet"):
    path = tmp_path / name
    write_dump(path, rows, record_json(make_record(rule="test", inputs=[], params={}, seed=0)))
    return path


def test_sequence_rows_hold_the_prompt_and_rescoring_it_reproduces_the_score(scorer, tmp_path):
    rows = score_sequences(scorer, ITEMS, study="toy", model="tiny")
    frame = read_dump(_write(tmp_path, rows)).to_pandas()
    by_item = {it.item_id: it for it in ITEMS}
    assert all(row.context == by_item[row.item_id].prompt for row in frame.itertuples())
    requests = [
        ContinuationRequest(str(i), row.context, " " + row.option_text) for i, row in enumerate(frame.itertuples())
    ]
    again = scorer.score(requests)
    assert [s.sum_logprob for s in again] == pytest.approx(frame["sum_logprob"].tolist(), abs=1e-6)


def test_letter_rows_hold_the_lettered_prompt_the_letters_follow(scorer, tmp_path):
    rows = score_letters(scorer, ITEMS, study="toy", model="tiny", variant="0shot")
    frame = read_dump(_write(tmp_path, rows)).to_pandas()
    for item in ITEMS:
        contexts = frame.loc[frame["item_id"] == item.item_id, "context"].astype(str).unique()
        assert list(contexts) == [letter_prompt(item)]


def test_context_is_dictionary_encoded_so_repeated_prompts_are_stored_once(scorer, tmp_path):
    path = _write(tmp_path, score_letters(scorer, ITEMS, study="toy", model="tiny"))
    field = pq.read_schema(path).field("context")
    assert pa.types.is_dictionary(field.type)
    column = pq.read_table(path).column("context").combine_chunks()
    assert len(column.dictionary) == len(ITEMS) < len(column)


def test_outcome_rows_keep_the_terminal_factor_and_the_boundary_flag(scorer, tmp_path):
    from choicelab.mc.scoring import candidate_rows

    item = MCItem("rb", "", "die", "A fair six-sided die lands on", ("1", "10", "12"), 0)
    [dist] = candidate_distributions(scorer, [item.prompt], [list(item.choices)],
                                     terminal_excluded_ids=digit_continuation_ids(scorer.tokenizer))
    frame = read_dump(_write(tmp_path, candidate_rows(item, dist, study="rb", model="tiny", method="outcome_prob",
                                                      variant="revealed"))).to_pandas()
    for row in frame.itertuples():
        assert not math.isnan(row.terminal_logprob)
        assert row.terminal_logprob <= 0.0
        assert row.sum_logprob == pytest.approx(sum(row.token_logprobs) + row.terminal_logprob, abs=1e-9)
    assert frame["boundary_merged"].tolist() == list(dist.boundary_merged)


def test_rows_without_a_terminal_factor_say_so_with_nan(scorer, tmp_path):
    frame = read_dump(_write(tmp_path, score_sequences(scorer, ITEMS, study="toy", model="tiny"))).to_pandas()
    assert frame["terminal_logprob"].isna().all()


def test_show_prints_the_prompt_options_and_scores_of_one_item(scorer, tmp_path):
    path = _write(tmp_path, score_letters(scorer, ITEMS, study="toy", model="tiny", variant="0shot"))
    text = show_item(path, "q2")
    assert letter_prompt(ITEMS[1]) in text
    for option in ITEMS[1].choices:
        assert option in text
    assert "Which is heavier" not in text  # only the item asked for


def test_show_names_the_item_ids_there_when_the_item_is_unknown(scorer, tmp_path):
    path = _write(tmp_path, score_letters(scorer, ITEMS, study="toy", model="tiny"))
    with pytest.raises(ValueError, match="item ids there: q1, q2"):
        show_item(path, "nope")


@pytest.mark.slow
def test_show_command_line(scorer, tmp_path):
    path = _write(tmp_path, score_letters(scorer, ITEMS, study="toy", model="tiny", variant="0shot"))
    proc = subprocess.run(
        [sys.executable, "-m", "choicelab.cli", "show", str(path), "--item", "q1", "--variant", "0shot"],
        capture_output=True, text=True, timeout=300, env=repo_env(),
    )
    assert proc.returncode == 0, proc.stderr
    assert "Which is heavier, a brick or a feather?" in proc.stdout
    proc = subprocess.run(
        [sys.executable, "-m", "choicelab.cli", "show", str(path), "--item", "q1", "--variant", "5shot"],
        capture_output=True, text=True, timeout=300, env=repo_env(),
    )
    assert proc.returncode == 1 and "no rows for item 'q1'" in proc.stderr
