"""Commonsense benchmarks load into the normalized schema with 0-based labels; missing files say how to fix it."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from choicelab.io import sha256_file
from choicelab.mc.commonsense import (
    HELLASWAG_VAL_FULL,
    SOURCES,
    hellaswag_from_val_full,
    load_benchmark,
    train_dev_split,
)


@pytest.mark.parametrize(
    "name,split,rows,choices,label_counts",
    [
        ("anli", "dev", 1532, 2, {0: 781, 1: 751}),  # 1-based {1,2} in the source
        ("hellaswag", "dev", 10042, 4, {0: 2515, 1: 2485, 2: 2584, 3: 2458}),
        ("piqa", "dev", 1838, 2, {0: 910, 1: 928}),
        ("siqa", "dev", 1954, 3, {0: 643, 1: 654, 2: 657}),  # 1-based {1,2,3} in the source
    ],
)
def test_dev_splits_load_with_zero_based_labels(data_mirror, name, split, rows, choices, label_counts):
    items = load_benchmark(name, split, data_mirror)
    assert len(items) == rows
    assert all(len(it.choices) == choices for it in items)
    assert dict(Counter(it.label for it in items)) == label_counts
    assert all(it.meta["prompt_fields"] for it in items)


def test_prompts_compose_the_spec_fields(data_mirror):
    anli = load_benchmark("anli", "dev", data_mirror)[0]
    assert anli.prompt == f"{anli.meta['prompt_fields']['obs1']} {anli.meta['prompt_fields']['obs2']}"
    siqa = load_benchmark("siqa", "dev", data_mirror)[0]
    assert siqa.prompt.endswith(siqa.meta["prompt_fields"]["question"])


def test_mirror_files_match_the_published_checksums(data_mirror):
    for files in SOURCES.values():
        for remote in files:
            assert sha256_file(data_mirror / remote.mirror_path) == remote.sha256, remote.mirror_path


def test_hellaswag_conversion_reproduces_the_mirror_from_the_public_text_file(data_mirror):
    rows, labels = hellaswag_from_val_full((data_mirror / HELLASWAG_VAL_FULL.mirror_path).read_text(encoding="utf-8"))
    mirror = [json.loads(line) for line in (data_mirror / "commonsense/hellaswag/dev.jsonl").read_text().splitlines()]
    assert rows == mirror
    assert labels == [int(x) for x in (data_mirror / "commonsense/hellaswag/dev-labels.lst").read_text().split()]


def test_missing_file_names_the_file_and_both_fixes(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"piqa/dev\.jsonl.*data_mirror.*download_commonsense"):
        load_benchmark("piqa", "dev", tmp_path)


def test_hellaswag_has_no_train_split_and_says_what_to_do(data_mirror):
    with pytest.raises(FileNotFoundError, match="seeded split of dev"):
        load_benchmark("hellaswag", "train", data_mirror)


def test_unknown_benchmark_is_named(data_mirror):
    with pytest.raises(ValueError, match="unknown commonsense benchmark 'swag'"):
        load_benchmark("swag", "dev", data_mirror)


def test_seeded_split_of_dev_is_reproducible_and_disjoint(data_mirror):
    items = load_benchmark("piqa", "dev", data_mirror)[:200]
    a_train, a_eval = train_dev_split(items, 0.5, seed=3)
    b_train, _ = train_dev_split(items, 0.5, seed=3)
    c_train, _ = train_dev_split(items, 0.5, seed=4)
    assert a_train == b_train and a_train != c_train
    assert not {i.item_id for i in a_train} & {i.item_id for i in a_eval}
    assert len(a_train) + len(a_eval) == 200


def test_full_train_releases_are_checksummed_and_read_in_the_leaderboard_layout(tmp_path):
    """``train_data: full`` reads the official full train files (HellaSwag's too) from the download folder."""
    from choicelab.mc.commonsense import FULL_TRAIN, load_benchmark, remote_file, train_files

    assert set(FULL_TRAIN) == {"anli", "hellaswag", "piqa", "siqa"}
    for files in FULL_TRAIN.values():
        for remote in files:
            assert remote.url.startswith("https://") and len(remote.sha256) == 64
            assert remote_file(remote.mirror_path) == remote
    assert train_files("hellaswag", "mirror") == ()  # the mirror has no HellaSwag train
    with pytest.raises(ValueError, match="train_data"):
        train_files("piqa", "everything")
    folder = tmp_path / "commonsense" / "hellaswag" / "full"
    folder.mkdir(parents=True)
    row = {"ctx_a": "A man is on a roof. [header] How to fix", "ctx_b": "he", "activity_label": "Roof",
           "ending_options": ["climbs down.", "fixes  the [step] roof.", "sings.", "sleeps."]}
    (folder / "train.jsonl").write_text(json.dumps(row) + "\n")
    (folder / "train-labels.lst").write_text("1\n")
    item = load_benchmark("hellaswag", "train", tmp_path, release="full")[0]
    assert item.prompt == "A man is on a roof. How to fix He"
    assert item.choices[1] == "fixes the roof." and item.label == 1


def test_heldout_split_keeps_the_last_rows_for_model_selection():
    from choicelab.mc.commonsense import heldout_split
    from conftest import toy_items

    fit, held = heldout_split(toy_items(20, 0, "train"), 0.1)
    assert [it.item_id for it in held] == ["train18", "train19"] and len(fit) == 18
    with pytest.raises(ValueError, match="heldout_fraction"):
        heldout_split(toy_items(20, 0, "train"), 0.0)


def test_heldout_split_never_lets_a_story_straddle_fit_and_heldout(data_mirror):
    """aNLI's train rows repeat stories (same observations, other hypothesis pairs): a held-out row whose story is
    also trained on would measure memory, so every row of a held-out story is held out."""
    from choicelab.mc.commonsense import heldout_split, load_benchmark
    from choicelab.stats import seeded_subsample

    train = seeded_subsample(load_benchmark("anli", "train", data_mirror), 2000, 1234)
    assert len({it.meta["group"] for it in train}) < len(train)  # the subsample repeats stories
    fit, held = heldout_split(train, 0.1)
    assert len(fit) + len(held) == 2000 and len(held) >= 200
    assert not {it.meta["group"] for it in fit} & {it.meta["group"] for it in held}
    assert {it.item_id for it in train[-200:]} <= {it.item_id for it in held}  # the last rows stay held out
