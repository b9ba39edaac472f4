"""How far a trained free-generation coder can get behind the rules: the classifier's ceiling and the agreement its
answers need for a kappa goal (choicelab.studies.scoring_methods.trained_coder; docs/scoring_methods.md)."""

import math

import pandas as pd
import pytest

from choicelab.studies.scoring_methods import coder as fc
from choicelab.studies.scoring_methods.trained_coder import classifier_ceiling, needed_open_agreement


def _coded(rows):
    return pd.DataFrame(rows, columns=["phenomenon", "hand_code", "coded_option", "coding_rule"])


def test_the_ceiling_codes_the_classifiers_answers_as_by_hand_and_keeps_the_rules_misses():
    coded = _coded([
        ("irony", "target", "competitor", "classifier"),  # a classifier miss: counted as right
        ("irony", "competitor", "target", "classifier"),
        ("irony", "target", fc.ERROR, "empty"),  # a rule's miss: stays a miss
        ("irony", fc.ERROR, fc.ERROR, "non_answer"),
    ])
    overall = classifier_ceiling(coded).iloc[-1]
    assert (overall["phenomenon"], overall["n"], overall["agree"]) == ("all", 4, 3)
    assert fc.agreement_table(coded).iloc[-1]["agree"] == 1


def test_the_ceiling_names_the_missing_columns():
    with pytest.raises(ValueError, match=r"coding_rule"):
        classifier_ceiling(pd.DataFrame({"hand_code": ["target"], "coded_option": ["target"]}))


def test_without_rule_misses_a_goal_below_perfect_needs_less_than_perfect_answers_and_perfect_kappa_needs_all():
    coded = _coded([("irony", code, code, "classifier") for code in ["target"] * 10 + ["competitor"] * 30])
    assert needed_open_agreement(coded, 1.0) == pytest.approx(1.0)
    needed = needed_open_agreement(coded, 0.8)
    assert 0.5 < needed < 1.0
    # checked by hand: at that agreement, the expected table's kappa is the goal
    q = needed
    table = [[30 * q, 30 * (1 - q)], [10 * (1 - q), 10 * q]]
    observed = (table[0][0] + table[1][1]) / 40
    chance = ((30 / 40) * (table[0][0] + table[1][0]) + (10 / 40) * (table[0][1] + table[1][1])) / 40
    assert (observed - chance) / (1 - chance) == pytest.approx(0.8, abs=1e-6)


def test_rule_misses_raise_the_agreement_needed_and_can_put_the_goal_out_of_reach():
    clean = [("irony", code, code, "classifier") for code in ["target"] * 10 + ["competitor"] * 30]
    missed = [("irony", "target", fc.ERROR, "empty")] * 4 + [("irony", fc.ERROR, fc.ERROR, "empty")] * 6
    assert needed_open_agreement(_coded(clean + missed), 0.7) > needed_open_agreement(_coded(clean), 0.7)
    # 4 hand-coded targets the rules call error: a perfect classifier reaches kappa 18/23 (.78), not .8
    assert classifier_ceiling(_coded(clean + missed)).iloc[-1]["target_kappa"] == pytest.approx(18 / 23)
    assert math.isnan(needed_open_agreement(_coded(clean + missed), 0.8))


def test_needed_agreement_refuses_a_goal_that_is_no_kappa_and_coded_rows_without_classifier_answers():
    coded = _coded([("irony", "target", "target", "classifier"), ("irony", "competitor", "competitor", "empty")])
    with pytest.raises(ValueError, match=r"kappa goal lies in \[-1, 1\]"):
        needed_open_agreement(coded, 1.5)
    with pytest.raises(ValueError, match="no answer is decided by the classifier"):
        needed_open_agreement(coded.assign(coding_rule="empty"), 0.5)


def test_bootstrap_intervals_hold_the_point_estimates_and_shrink_with_more_generations():
    from choicelab.studies.scoring_methods.trained_coder import agreement_intervals

    rows = [("irony", "target", "target", "classifier")] * 6 + [("irony", "competitor", "competitor", "classifier")] * 6
    rows += [("irony", "target", "competitor", "classifier"), ("irony", "competitor", "target", "classifier")]
    small, large = _coded(rows), _coded(rows * 10)
    point = fc.agreement_table(small).iloc[-1]
    a, b = agreement_intervals(small, rounds=400, seed=0), agreement_intervals(large, rounds=400, seed=0)
    assert a["n"] == 14 and b["n"] == 140
    for key in ("target_kappa", "agreement", "kappa"):
        assert a[key][0] <= point[key] <= a[key][1]
        assert b[key][1] - b[key][0] < a[key][1] - a[key][0]
    assert agreement_intervals(small, rounds=50, seed=3) == agreement_intervals(small, rounds=50, seed=3)
    with pytest.raises(ValueError, match="rounds must be >= 1"):
        agreement_intervals(small, rounds=0, seed=0)


def _bench(*args, cwd):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).parents[1]
    return subprocess.run([sys.executable, str(root / "bench/trained_coder.py"), "--config", str(root / "config.yaml"),
                           *args], capture_output=True, text=True, cwd=cwd, env={"PYTHONPATH": str(root),
                                                                                 "PATH": "/usr/bin:/bin"})


def test_the_bench_reads_a_former_runs_coded_generations_and_prints_ceiling_intervals_and_needed_agreement(tmp_path):
    rows = [("irony", "target", "target", "classifier")] * 8 + [("irony", "competitor", "target", "classifier")] * 2
    rows += [("irony", "competitor", "competitor", "classifier")] * 8 + [("irony", "target", fc.ERROR, "empty")]
    _coded(rows).assign(model="m", trained_on="other").to_csv(tmp_path / "coded.csv", index=False)
    done = _bench("--coded", str(tmp_path / "coded.csv"), "--goal-kappa", "0.8", "--bootstrap", "20", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "== m (HELD OUT; trained on other): 19 generations" in done.stdout
    assert "95 % bootstrap intervals (20 rounds" in done.stdout
    assert "ceiling (the classifier's answers coded as by hand" in done.stdout
    expected = needed_open_agreement(_coded(rows), 0.8)
    assert f"the classifier's 18 answers need for target kappa 0.8: {expected:.3f}" in done.stdout


def test_the_bench_without_a_former_run_needs_the_base_encoder_and_a_work_folder(tmp_path):
    done = _bench("--goal-kappa", "0.8", cwd=tmp_path)
    assert done.returncode != 0
    assert "needs --base and --work" in done.stderr
