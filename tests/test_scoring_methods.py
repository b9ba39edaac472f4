"""Scoring-methods study (Tsvilodub et al.): the scores, choices, human data and the five methods, as specifications."""

from __future__ import annotations

import math
from dataclasses import dataclass
from dataclasses import replace as dataclasses_replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from choicelab.lm.embed import text_embedder
from choicelab.studies.scoring_methods import coder as fc
from choicelab.studies.scoring_methods import figures, paper, prompts, score_table, scoring, sources, tables
from choicelab.studies.scoring_methods import human as hu
from choicelab.studies.scoring_methods import items as pr
from choicelab.studies.scoring_methods import metrics as sm

LOG = math.log

# -- the five string scores on a hand-made example ---------------------------------------------------------------

# An option of two tokens with P = 0.5 and 0.25 given I, and 0.25 and 0.125 given the prior prompt I0.
GIVEN_I = [LOG(0.5), LOG(0.25)]
GIVEN_I0 = [LOG(0.25), LOG(0.125)]


def test_score_1_is_the_log_of_the_product_of_token_probabilities():
    assert sm.option_logprob(GIVEN_I) == pytest.approx(LOG(0.5 * 0.25))


def test_score_2_is_the_arithmetic_mean_of_token_probabilities():
    assert sm.mean_token_prob(GIVEN_I) == pytest.approx((0.5 + 0.25) / 2)


def test_score_3_is_the_mean_token_log_probability():
    assert sm.mean_token_logprob(GIVEN_I) == pytest.approx((LOG(0.5) + LOG(0.25)) / 2)


def test_score_4_is_the_prior_corrected_probability_in_log_space():
    # P(o|I) / P(o|I0) = 0.125 / 0.03125 = 4
    assert sm.prior_corrected(GIVEN_I, GIVEN_I0) == pytest.approx(LOG(4.0))


def test_score_5_is_the_surprisal_reduction_factor_prior_over_conditional():
    # S(o|I0) / S(o|I) = -log(1/32) / -log(1/8) = 5/3: the context reduced the surprisal
    assert sm.surprisal_reduction(GIVEN_I, GIVEN_I0) == pytest.approx(5 / 3)
    assert sm.surprisal_reduction(GIVEN_I0, GIVEN_I) == pytest.approx(3 / 5)


def test_string_scores_returns_all_five_in_paper_order():
    scores = sm.string_scores(GIVEN_I, GIVEN_I0)
    assert tuple(scores) == sm.STRING_SCORES
    assert scores["prior_corrected"] == pytest.approx(LOG(4.0))


def test_length_normalisation_can_change_the_choice():
    short = [LOG(0.1)]  # one unlikely token
    long = [LOG(0.4)] * 3  # three likelier tokens, lower product
    assert sm.option_logprob(short) > sm.option_logprob(long)  # (1) prefers the short option
    assert sm.mean_token_logprob(long) > sm.mean_token_logprob(short)  # (3) the long one
    assert sm.mean_token_prob(long) > sm.mean_token_prob(short)  # (2) too


def test_prior_correction_penalises_options_that_are_likely_anyway():
    frequent = ([LOG(0.3)], [LOG(0.3)])  # as likely with as without the context
    specific = ([LOG(0.2)], [LOG(0.01)])  # made likely by the context
    assert sm.option_logprob(frequent[0]) > sm.option_logprob(specific[0])
    assert sm.prior_corrected(*specific) > sm.prior_corrected(*frequent)
    assert sm.surprisal_reduction(*specific) > sm.surprisal_reduction(*frequent)


def test_surprisal_reduction_edge_cases_and_empty_options():
    assert sm.surprisal_reduction([0.0], [LOG(0.5)]) == math.inf
    assert sm.surprisal_reduction([0.0], [0.0]) == 1.0
    with pytest.raises(ValueError):
        sm.option_logprob([])


def test_label_scores_are_scores_1_4_5_of_the_label_tokens():
    scores = sm.label_scores([LOG(0.5)], [LOG(0.25)])
    assert tuple(scores) == sm.LABEL_SCORES
    assert scores["label_logprob"] == pytest.approx(LOG(0.5))
    assert scores["label_prior_corrected"] == pytest.approx(LOG(2.0))
    assert scores["label_surprisal_reduction"] == pytest.approx(2.0)


# -- rating and embedding ----------------------------------------------------------------------------------------


def test_rating_expectation_is_the_probability_weighted_mean_rating():
    assert sm.rating_expectation([LOG(0.2)] * 5) == pytest.approx(3.0)
    probs = [0.1, 0.0001, 0.0001, 0.0001, 0.8997]
    expected = sum(r * p for r, p in zip(range(1, 6), probs, strict=True)) / sum(probs)
    assert sm.rating_expectation([LOG(p) for p in probs]) == pytest.approx(expected)
    # only the relative log-probs matter (softmax over the five phrases)
    assert sm.rating_expectation([x - 7 for x in map(LOG, probs)]) == pytest.approx(expected)
    with pytest.raises(ValueError):
        sm.rating_expectation([0.0] * 4)


def test_cosine_similarity():
    assert sm.cosine([1, 0], [1, 0]) == pytest.approx(1.0)
    assert sm.cosine([1, 0], [0, 2]) == pytest.approx(0.0)
    assert sm.cosine([1, 1], [-1, -1]) == pytest.approx(-1.0)
    assert sm.cosine([0, 0], [1, 0]) == 0.0


# -- argmax with seeded tie breaking --------------------------------------------------------------------------------


def test_argmax_without_ties():
    assert sm.choose([0.1, 0.7, 0.2], seed=0, key="x") == (1, 1)


def test_ties_are_broken_by_a_seeded_random_choice_and_counted():
    values = [0.5, 0.9, 0.1, 0.9]
    first = sm.choose(values, seed=3, key="item-1")
    assert first == sm.choose(values, seed=3, key="item-1")  # reproducible
    assert first[0] in (1, 3) and first[1] == 2
    picks = {sm.choose(values, seed=3, key=f"item-{i}")[0] for i in range(40)}
    assert picks == {1, 3}  # both tied options get chosen across items
    # values equal up to rounding noise tie too; NaN never wins
    assert sm.choose([1.0, 1.0 + 1e-15], seed=0, key="k")[1] == 2
    assert sm.choose([float("nan"), -5.0], seed=0, key="k") == (1, 1)


# -- label and option permutations ---------------------------------------------------------------------------------


def test_option_order_is_a_seeded_permutation_per_item():
    order = sm.option_order(5, seed=2, key="irony-01")
    assert sorted(order) == list(range(5))
    assert order == sm.option_order(5, seed=2, key="irony-01")
    assert len({sm.option_order(5, seed=s, key="irony-01") for s in range(5)}) > 1


def test_permutations_round_trip():
    options = ["o0", "o1", "o2", "o3"]
    for seed in range(5):
        order = sm.option_order(4, seed, "item")
        shown = sm.present(options, order)
        assert sm.present(shown, sm.inverse_order(order)) == options
        for k in range(4):
            assert order[sm.inverse_order(order)[k]] == k  # original k is shown at inverse_order(order)[k]
            assert shown[sm.inverse_order(order)[k]] == options[k]


def test_labels_round_trip_for_both_label_sets():
    assert sm.labels_for(4, "alpha") == ("A", "B", "C", "D")
    assert sm.labels_for(5, "numeric") == ("1", "2", "3", "4", "5")
    for label_set in sm.LABEL_SETS:
        assert len(set(sm.labels_for(26, label_set))) == 26  # one distinct label per option, up to 26 options
    with pytest.raises(ValueError, match="27 options"):
        sm.labels_for(27, "alpha")
    with pytest.raises(ValueError, match="unknown label set"):
        sm.labels_for(4, "roman")


def test_label_scoring_grid_is_five_order_seeds_times_two_label_sets():
    grid = sm.label_permutations(range(5))
    assert len(grid) == 10 and set(grid) == {(s, ls) for s in range(5) for ls in ("alpha", "numeric")}


@dataclass
class _Score:
    token_logprobs: tuple[float, ...]


class TargetSeekingScorer:
    """A fake engine: given the story, the label of the line holding ``target`` gets probability 0.9; any other label,
    and every label without the story (the prior prompt), 0.01."""

    def __init__(self, target: str) -> None:
        self.target = target
        self.contexts: list[str] = []

    def score(self, requests):
        out = []
        for r in requests:
            self.contexts.append(r.context)
            label = r.continuation.strip()
            hit = f"\n{label}. {self.target}\n" in r.context and "Lara" in r.context
            out.append(_Score((LOG(0.9) if hit else LOG(0.01),)))
        return out


def _irony_item() -> prompts.ScoringItem:
    return prompts.ScoringItem(
        "pragmatics",
        "irony",
        "irony-99",
        "T.",
        'Lara asks: "Fits?" Simon: "Perfect!"',
        "What did Simon want to convey?",
        ("literal", "ironic", "associate", "non sequitur"),
        ("IncorrectLiteral", "CorrectNonLiteral", "IncorrectAssociate", "IncorrectNonSequitur"),
        1,
    )


def test_label_scoring_maps_every_permutation_back_to_the_original_options():
    item = _irony_item()
    rows = scoring.score_labels(TargetSeekingScorer("ironic"), [item], model="fake", seeds=range(5),
                                label_sets=("alpha", "numeric"))
    frame = score_table.rows_to_table(rows).to_pandas()
    assert len(frame) == 10 * 3 * 4  # versions x label scores x options
    chosen = frame[frame["chosen"]]
    assert (chosen["option_index"] == 1).all() and chosen["is_target"].all()
    # the chosen option's presented position differs between order seeds
    assert chosen["position"].nunique() > 1
    versions = chosen[chosen["score"] == "label_logprob"]
    for row in versions.itertuples():
        assert sm.option_order(4, row.seed, item.item_id)[row.position] == 1


def test_string_scoring_prior_prompt_is_the_task_only():
    item = _irony_item()
    scorer = TargetSeekingScorer("x")
    scoring.score_strings(scorer, [item], model="fake")
    assert set(scorer.contexts) == {prompts.string_prompt(item), "T.\nYour answer:"}
    assert (
        prompts.string_prompt(item)
        == 'T.\n\nLara asks: "Fits?" Simon: "Perfect!" What did Simon want to convey?\nYour answer:'
    )


def test_label_prior_prompt_keeps_the_labelled_options_but_drops_context_and_question():
    item = _irony_item()
    order = (2, 0, 3, 1)
    prior = prompts.label_prior_prompt(item, order, ("A", "B", "C", "D"))
    assert "Lara" not in prior and "What did Simon" not in prior
    assert "A. associate\nB. literal\nC. non sequitur\nD. ironic\nYour answer:" in prior
    assert prompts.label_prompt(item, order, ("A", "B", "C", "D")).endswith(prior.split("\n\n", 1)[1])


# -- free generation coding ----------------------------------------------------------------------------------------

OPTIONS = ("The dress fits well.", "Lara needs a shorter dress.", "Simon dislikes the colour.", "Simon must go.")


def test_the_workflows_free_method_codes_with_the_validated_coder_into_item_options():
    item = _irony_item()
    vectors = {o: [float(k == j) for j in range(4)] for k, o in enumerate(item.options)}
    vectors["She should get it shortened"] = [0.1, 0.9, 0.0, 0.0]

    def embed(texts):
        return np.array([vectors.get(t, [0.0, 0.0, 0.0, 0.0]) for t in texts], dtype=float)

    coded = scoring.code_free([item, item], ["She should get it shortened", "I don't know."],
                              fc.FreeCoder(embed=embed))
    assert [c.rule for c in coded] == ["embedding", "non_answer"]
    rows = scoring.free_rows(item, "She should get it shortened", coded[0], model="m", variant="tau=0.1", seed=0)
    assert [r.chosen for r in rows] == [False, True, False, False]
    assert all(r.context == prompts.string_prompt(item) for r in rows)
    assert not any(r.chosen for r in scoring.free_rows(item, "?", coded[1], model="m", variant="tau=0.1", seed=0))


# -- choices, accuracy and the fit to human data -------------------------------------------------------------------


def _choice_frame() -> pd.DataFrame:
    rows = []
    for condition, targets in {"irony": [True, True, False, True], "humour": [False, False, True, False]}.items():
        for i, hit in enumerate(targets):
            rows.append(
                {
                    "benchmark": "pragmatics",
                    "condition": condition,
                    "model": "m",
                    "method": "string",
                    "score": "option_logprob",
                    "label_set": "",
                    "variant": "",
                    "seed": 0,
                    "item_id": f"{i}",
                    "is_target": hit,
                    "chosen": 1 if hit else 0,
                    "n_tied": 1,
                    "n_options": 4,
                }
            )
    return pd.DataFrame(rows)


def test_choices_from_the_option_table():
    item = _irony_item()
    rows = score_table.option_rows(item, [0.1, 0.9, 0.9, 0.0], score_table.Version("m", "string", "option_logprob"))
    rows += scoring.free_rows(item, "?", fc.Coded(fc.ERROR, "empty", ""), model="m", variant="tau=0.1", seed=0)
    choices = sm.choices_from_scores(score_table.rows_to_table(rows).to_pandas())
    string = choices[choices["method"] == "string"].iloc[0]
    assert string["chosen"] in (1, 2) and string["n_tied"] == 2 and string["target"] == 1
    free = choices[choices["method"] == "free"].iloc[0]
    assert free["chosen"] == sm.UNCLASSIFIED and not free["is_target"] and free["classified_by"] == "empty"


def test_binomial_log_likelihood_with_clipping():
    assert sm.binomial_loglik(3, 4, 0.5) == pytest.approx(LOG(4 / 16))
    assert sm.binomial_loglik(5, 10, 0.0) == pytest.approx(sm.binomial_loglik(5, 10, 1e-3))
    assert math.isfinite(sm.binomial_loglik(10, 10, 0.0))
    assert sm.binomial_loglik(10, 10, 1.0) == pytest.approx(10 * LOG(1 - 1e-3))


def test_human_log_likelihood_sums_conditions_and_delta_is_relative_to_the_worst():
    choices = _choice_frame()
    worse = choices.assign(model="w", is_target=False)
    human = pd.DataFrame({"condition": ["irony", "humour"], "k": [9, 8], "n": [10, 10]})
    table = sm.human_loglik(pd.concat([choices, worse]), human)
    m = table.set_index("model")
    expected = sm.binomial_loglik(9, 10, 0.75) + sm.binomial_loglik(8, 10, 0.25)
    assert m.at["m", "loglik"] == pytest.approx(expected)
    assert m.at["w", "loglik"] == pytest.approx(sm.binomial_loglik(9, 10, 1e-3) + sm.binomial_loglik(8, 10, 1e-3))
    assert m.at["m", "accuracy"] == pytest.approx(0.5) and m.at["m", "n_conditions"] == 2
    delta = sm.delta_loglik(table).set_index("model")["delta_loglik"]
    assert delta["w"] == 0 and delta["m"] > 0


# -- items and human data from the raw mirror files -----------------------------------------------------------------


def test_every_source_file_matches_its_checksum(data_mirror):
    from choicelab.io import sha256_file

    for path, remote in sources.SOURCES.items():
        assert sha256_file(data_mirror / path) == remote.sha256, path
        assert remote.url.startswith("https://raw.githubusercontent.com/")


def test_the_seven_conditions_load_into_one_schema(data_mirror):
    items = pr.load_items(data_mirror)
    assert len(items) == 169
    for condition in pr.CONDITIONS:
        group = [it for it in items if it.condition == condition]
        assert len(group) == pr.N_ITEMS[condition]
        assert {len(it.options) for it in group} == {pr.N_OPTIONS[condition]}
        assert all(it.task == pr.TASKS[condition] and it.trigger for it in group)
    for it in items:
        if it.condition != "coherence":
            assert it.option_types[it.target] == "CorrectNonLiteral"
        # humour has no question (the task asks for the punch line); every other condition ends with one
        assert it.question.endswith("?") == (it.condition != "humour")
    maxims = {it.item_number for it in items if it.condition == "maxims"}
    assert pr.MAXIMS_EXCLUDED_ITEM not in maxims and max(maxims) == 20
    irony16 = next(it for it in items if it.item_id == "irony-16")
    assert "&eacute;" not in irony16.context


def test_irony_example_item(data_mirror):
    item = next(it for it in pr.load_condition(data_mirror, "irony") if it.item_number == 1)
    assert item.options[item.target] == "Lara needs to get a dress of a shorter length."
    assert item.question == "What did Simon want to convey?"
    assert item.trigger.startswith("Wow! That must be custom made!")
    assert item.option_numbers == (1, 2, 3, 4) and item.target == 1


def test_human_accuracy_per_condition_reproduces_the_paper(data_mirror):
    ours = hu.human_condition_accuracy(data_mirror).set_index("condition")
    for condition, printed in hu.PAPER_HUMAN_ACCURACY.items():
        assert round(ours.at[condition, "accuracy"], 3) == printed, condition
    assert (ours["n"] / ours["n_items"] == 374).all()
    # maxims' .796 includes original item 13, which no language model sees; without it: .808
    scored = hu.human_condition_accuracy(data_mirror, items="scored").set_index("condition")
    assert round(scored.at["maxims", "accuracy"], 3) == 0.808 and scored.at["maxims", "n_items"] == 19


LLM_LINK_PROPORTIONS = "pragmatics/LLM_link/data/human_results/human_response_proportions.csv"
LLM_LINK_CONDITIONS = {"Humor": "humour", "Irony": "irony", "IndirectSpeech": "indirect_speech", "Deceits": "deceits",
                       "Maxims": "maxims", "Metaphor": "metaphor"}


def test_human_choices_agree_with_the_correct_column_and_llm_link_proportions(data_mirror):
    for condition in pr.CONDITIONS:
        responses = hu.human_responses(data_mirror, condition)
        counts = hu.human_choice_counts(data_mirror, [condition])
        target = counts[counts["is_target"]].set_index("item_number")["option_number"]
        assert (responses["option_number"].eq(responses["item_number"].map(target)) == responses["correct"].eq(1)).all()
        assert (counts.groupby("item_number")["count"].sum() == 374).all()
    ours = hu.human_choice_counts(data_mirror, [c for c in pr.CONDITIONS if c != "coherence"])
    ours = (
        ours[ours["scored"]]
        .groupby(["condition", "item_number", "option_type"], as_index=False)
        .agg(count=("count", "sum"), n=("n", "first"))
    )
    # LLM_link's per-item, per-option-type human proportions (6 conditions; no coherence)
    theirs = pd.read_csv(sources.source_path(data_mirror, LLM_LINK_PROPORTIONS))
    theirs = theirs.assign(condition=theirs["phenomenon"].map(LLM_LINK_CONDITIONS)).rename(
        columns={"item_id": "item_number", "answer_label_complex": "option_type"}
    )
    merged = theirs.merge(ours, on=["condition", "item_number", "option_type"], how="outer").fillna(
        {"prob": 0.0, "count": 0}
    )
    merged["n"] = merged.groupby(["condition", "item_number"])["n"].transform("max")
    assert len(theirs) == 561 and len(merged) == 561
    assert np.allclose(merged["prob"], merged["count"] / merged["n"], atol=1e-9)


def test_to_mc_items_keeps_the_target_under_any_option_order(data_mirror):
    items = pr.load_condition(data_mirror, "metaphor")
    plain = pr.to_mc_items(items)
    shuffled = pr.to_mc_items(items, order_seed=3)
    assert all(mc.benchmark == "pragmatics" for mc in plain)
    for it, a, b in zip(items, plain, shuffled, strict=True):
        assert a.choices[a.label] == b.choices[b.label] == it.options[it.target]
        assert b.meta["option_types"][b.label] == "CorrectNonLiteral"
    assert [mc.label for mc in shuffled] != [mc.label for mc in plain]
    again = prompts.from_mc_items(shuffled[:1])[0]
    assert (again.task, again.question, again.condition) == (items[0].task, items[0].question, "metaphor")


# -- end to end with a tiny random model ---------------------------------------------------------------------------


@pytest.fixture
def one_torch_thread():
    """A tiny model gains nothing from threads; on a busy 2-core machine extra threads make it ~20x slower."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def test_every_method_end_to_end_on_three_items(tiny_llama, data_mirror, tmp_path, one_torch_thread):
    from choicelab.lm.causal import CausalScorer, ContinuationRequest
    from choicelab.plotting import save_figure

    model, tokenizer = tiny_llama
    wanted = ("coherence-21", "irony-01", "humour-02")
    items = prompts.from_pragmatics([it for it in pr.load_items(data_mirror) if it.item_id in wanted])
    plan = scoring.MethodPlan(
        methods=scoring.METHODS, label_seeds=(0, 1), label_sets=("alpha", "numeric"), scales=tuple(prompts.SCALES),
        temperatures=(0.1, 0.9), generation_seeds=(0, 1), max_new_tokens=12,
    )
    rows = scoring.score_all(CausalScorer(model, tokenizer, max_batch_tokens=4096), items, model="tiny", plan=plan)
    path = tmp_path / "scores.parquet"
    score_table.write_scores(path, rows, '{"rule": "test"}')
    scores = score_table.read_scores(path).to_pandas()
    n_options = sum(len(it.options) for it in items)  # 2 + 4 + 5
    per_method = scores.groupby("method").size()
    assert per_method["string"] == 5 * n_options
    assert per_method["label"] == 2 * 2 * 3 * n_options
    assert per_method["rating"] == 4 * 2 * n_options
    assert per_method["embedding"] == n_options
    assert per_method["free"] == 2 * 2 * n_options
    choices = sm.choices_from_scores(scores)
    assert len(choices) == len(items) * (5 + 12 + 8 + 1 + 4)
    assert (choices.groupby(["method", "score", "label_set", "variant", "seed", "item_id"]).size() == 1).all()
    assert set(choices.loc[choices["method"] == "free", "classified_by"]) <= set(fc.RULES)
    # every row keeps the exact prompt the model saw
    string_row = scores[(scores["method"] == "string")].iloc[0]
    item_of = {it.item_id: it for it in items}
    assert string_row["context"] == prompts.string_prompt(item_of[string_row["item_id"]])
    rating = scores[(scores["method"] == "rating")].iloc[0]
    option = item_of[rating["item_id"]].options[rating["option_index"]]
    assert rating["context"] == prompts.rating_prompt(item_of[rating["item_id"]], option, rating["variant"])

    # the string scores are the formulas applied to the engine's per-token log-probs (scored here one by one)
    irony = next(it for it in items if it.condition == "irony")
    scorer = CausalScorer(model, tokenizer)
    given_i, given_i0 = scorer.score(
        [
            ContinuationRequest("a", prompts.string_prompt(irony), " " + irony.options[2]),
            ContinuationRequest("b", prompts.string_prior_prompt(irony), " " + irony.options[2]),
        ]
    )
    assert given_i.token_ids == given_i0.token_ids
    expected = sm.string_scores(given_i.token_logprobs, given_i0.token_logprobs)
    mine = scores[(scores["item_id"] == irony.item_id) & (scores["method"] == "string") & (scores["option_index"] == 2)]
    for row in mine.itertuples():
        assert row.value == pytest.approx(expected[row.score], rel=1e-4, abs=1e-4)  # batching: fp32 noise

    # the tables and figures build from these rows
    human = hu.human_condition_accuracy(data_mirror)
    numbers = tables.table_numbers(choices, human)
    assert set(numbers["figure"]) == {"fig2", "fig3", "overall"}
    comparison = paper.compare_paper(choices, human)
    assert comparison[comparison["kind"] == "human_accuracy"]["agrees"].all()
    assert comparison[comparison["kind"] == "finding"]["ours"].str.len().gt(0).all()
    matrix = tables.robustness_matrix(choices)
    assert len(matrix) == 12  # method x score combinations
    assert not tables.method_agreement(choices).empty
    drawn = {
        "fig1": figures.fig1_example(irony),
        "fig2": figures.fig2_accuracy(tables.fig2_table(choices, human)),
        "fig3": figures.fig3_accuracy_loglik(tables.fig3_table(choices, human)),
        "robustness": figures.robustness_heatmap(matrix, tables.flip_share(choices)),
    }
    for name, fig in drawn.items():
        save_figure(fig, str(tmp_path / f"{name}.png"), str(tmp_path / f"{name}.svg"))
        assert (tmp_path / f"{name}.png").stat().st_size > 0


def test_robustness_matrix_on_any_mc_benchmark(tiny_llama, one_torch_thread):
    from choicelab.lm.causal import CausalScorer
    from conftest import toy_items

    model, tokenizer = tiny_llama
    items = prompts.from_mc_items(toy_items(4, seed=0, split="dev"))
    assert {it.condition for it in items} == {"toy"} and items[0].task == prompts.GENERIC_TASK
    scorer = CausalScorer(model, tokenizer)
    rows = scoring.score_strings(scorer, items, model="tiny") + scoring.score_labels(
        scorer, items, model="tiny", seeds=[0], label_sets=("alpha", "numeric")
    )
    rows += scoring.score_embeddings(text_embedder(model, tokenizer, "causal"), items, model="tiny")
    choices = sm.choices_from_scores(score_table.rows_to_table(rows).to_pandas())
    matrix = tables.robustness_matrix(choices)
    assert set(matrix["benchmark"]) == {"toy"} and len(matrix) == 5 + 3 + 1
    assert matrix["chance"].eq(1 / 3).all()
    agreement = tables.method_agreement(choices, level="method")
    assert set(zip(agreement["a"], agreement["b"], strict=True)) == {
        ("string", "label"),
        ("string", "embedding"),
        ("label", "embedding"),
    }
    assert agreement["agreement"].between(0, 1).all()
    flips = tables.flip_share(choices)
    assert flips.iloc[0]["n_items"] == 4 and 0 <= flips.iloc[0]["flip_share"] <= 1
    # a method agrees with an identical copy of itself on every item
    one = choices[choices["score"] == "option_logprob"]
    twins = pd.concat([one.assign(method="a"), one.assign(method="b")])
    assert tables.method_agreement(twins, level="method")["agreement"].eq(1.0).all()
    assert tables.flip_share(twins)["flip_share"].eq(0.0).all()


def test_smoke_dag_produces_every_scoring_methods_artifact(smoke_run):
    from conftest import manifest_ids

    expected = {f"scoring_methods/{x}" for x in ("fig1", "fig2", "fig3", "table_numbers", "compare_paper",
                                                  "robustness_matrix", "fig_robustness_matrix", "human_accuracy",
                                                  "free_accuracy", "hand_codes", "reanalysis_fig2",
                                                  "reanalysis_fig3", "reanalysis_accuracy", "reanalysis_checks")}
    assert expected <= manifest_ids(smoke_run)
    matrix = pd.read_csv(smoke_run / "results" / "scoring_methods" / "tables" / "robustness_matrix.csv")
    # the grid spans benchmarks of several studies, not only the pragmatics items
    assert {"pragmatics", "piqa", "bets_value_cv", "steer"} <= set(matrix["benchmark"].dropna())
    assert {"accuracy", "agreement", "flip_share"} == set(matrix["kind"])


def test_numbers_table_shows_both_probability_clips_and_each_label_set_beside_the_pooled_value():

    rows = []
    # label scoring: alpha labels always hit the target, numeric labels never do; strings hit half the time
    for condition in ("irony", "humour"):
        for i in range(4):
            for label_set, hit in (("alpha", True), ("numeric", False)):
                rows.append(("label", "label_logprob", label_set, condition, i, hit))
            rows.append(("string", "option_logprob", "", condition, i, i % 2 == 0))
    choices = pd.DataFrame(
        [
            {"benchmark": "pragmatics", "condition": c, "model": "m", "method": m, "score": s, "label_set": ls,
             "variant": "", "seed": 0, "item_id": str(i), "is_target": hit, "chosen": int(not hit), "n_tied": 1,
             "n_options": 4}
            for m, s, ls, c, i, hit in rows
        ]
    )
    human = pd.DataFrame({"condition": ["irony", "humour"], "k": [300, 310], "n": [374, 374]})
    human["accuracy"] = human["k"] / human["n"]
    numbers = tables.table_numbers(choices, human)
    fig3 = numbers[numbers["figure"] == "fig3"].set_index(["method", "label_set"])
    assert fig3.loc[("label", "pooled"), "accuracy"] == pytest.approx(0.5)
    assert fig3.loc[("label", "alpha"), "accuracy"] == 1.0 and fig3.loc[("label", "numeric"), "accuracy"] == 0.0
    fig2 = numbers[(numbers["figure"] == "fig2") & (numbers["method"] == "label")]
    assert set(fig2["label_set"]) == {"pooled", "alpha", "numeric"}
    # a target rate of 0 or 1 is where the clip matters: 1e-9 punishes it far harder than 1e-3
    numeric = fig3.loc[("label", "numeric")]
    assert numeric["loglik_clip1e-9"] < numeric["loglik"] < 0
    string = fig3.loc[("string", "")]
    assert string["loglik_clip1e-9"] == pytest.approx(string["loglik"])  # p = 0.5: no clipping


# -- settings, the job plan and the artifact table -----------------------------------------------------------------


def _section_without_optional_keys() -> dict:
    import yaml
    from snakemake.utils import validate

    from choicelab.studies import study_settings

    with open("configs/smoke.yaml") as f:
        config = yaml.safe_load(f)
    config["studies"]["scoring_methods"] = {"models": ["tiny-llama"]}
    validate(config, "schemas/config.schema.yaml")  # fills the schema's defaults, as the Snakefile does
    return study_settings(config, "scoring_methods")


def test_a_section_with_only_its_models_runs_the_papers_methods_on_every_item():
    from choicelab.studies.scoring_methods import grid

    settings = _section_without_optional_keys()
    study = grid.method_plan(settings, grid=False)
    assert study.methods == scoring.METHODS and study.label_seeds == (0, 1, 2, 3, 4)
    assert study.scales == tuple(prompts.SCALES) and study.label_sets == ("alpha", "numeric")
    assert study.temperatures == (0.1, 0.9) and study.max_new_tokens == 50
    assert settings.items_per_condition is None and settings.embedder is None and settings.grid_benchmarks is None
    # the grid is smaller: 10 items per benchmark, one option order, one scale
    plan = grid.method_plan(settings, grid=True)
    assert settings.grid_items == 10 and plan.label_seeds == (0,) and plan.scales == ("likely",)


def test_jobs_score_a_seeded_subsample_per_condition_or_per_benchmark():
    from choicelab.studies.scoring_methods import grid

    settings = dataclasses_replace(_section_without_optional_keys(), items_per_condition=2, grid_items=3)
    items = [dataclasses_replace(_irony_item(), condition=c, item_id=f"{c}-{i}") for c in ("a", "b") for i in range(5)]
    study = grid.select_items(items, settings, grid=False, seed=1)
    assert [it.condition for it in study] == ["a", "a", "b", "b"]
    assert study == grid.select_items(items, settings, grid=False, seed=1)
    assert len(grid.select_items(items, settings, grid=True, seed=1)) == 3


def test_the_grid_names_only_benchmarks_the_workflow_builds():
    from choicelab.config import ConfigError
    from choicelab.studies.scoring_methods import grid

    every = _section_without_optional_keys()
    assert grid.grid_benchmarks(every, ["piqa"], ["steer", "bets_value_cv"]) == [
        "pragmatics", "piqa", "bets_value_cv", "steer"
    ]
    chosen = dataclasses_replace(every, grid_benchmarks=("steer", "pragmatics"))
    assert grid.grid_benchmarks(chosen, ["piqa"], ["steer"]) == ["pragmatics", "steer"]
    with pytest.raises(ConfigError, match="piqa2"):
        grid.grid_benchmarks(dataclasses_replace(every, grid_benchmarks=("piqa2",)), ["piqa"], [])


def test_the_sources_root_is_where_every_declared_source_file_lies(data_mirror):
    paths = [f"{data_mirror}/{key}" for key in sorted(sources.SOURCES)]
    assert sources.source_root(paths) == Path(data_mirror)
    with pytest.raises(ValueError, match="missing"):
        sources.source_root(paths[1:])


def test_compare_paper_figure_draws_the_papers_printed_numbers_beside_ours_with_interval_and_n():
    from choicelab.plotting import MIN_FONT_SIZE, PAPER_MARKER, plt, small_texts, texts

    human = pd.DataFrame({"condition": ["irony", "maxims"], "k": [344, 300], "n": [374, 380],
                          "accuracy": [344 / 374, 300 / 380], "clustered_low": [0.85, 0.70],
                          "clustered_high": [0.97, 0.88]})
    fig = paper.compare_paper_figure(human)
    fig.canvas.draw()
    words = " ".join(t.get_text() for t in texts(fig))
    assert small_texts(fig, MIN_FONT_SIZE) == []
    assert "paper: human accuracy (printed)" in words and "ours:" in words and "n=374" in words and "n=380" in words
    (ax,) = fig.axes
    diamonds = [line for line in ax.get_lines() if line.get_marker() == PAPER_MARKER]
    assert [round(float(v), 3) for v in diamonds[0].get_ydata()] == [0.919, 0.796]  # the paper's printed values
    assert len(ax.collections) == 1  # our points' interval bars
    plt.close(fig)


def test_compare_paper_says_a_finding_is_like_for_like_only_with_the_papers_four_models():
    assert paper.like_for_like("human_accuracy", ["tiny"])[0]
    alike, why = paper.like_for_like("finding", ["hf:google/flan-t5-xl", "tiny"])
    assert not alike and "not run here: GPT-3.5-turbo-instruct, text-davinci-002, LLaMA-2-7B" in why
    assert paper.like_for_like("finding", ["gpt-3.5-turbo-instruct", "text-davinci-002", "meta-llama/Llama-2-7b-hf",
                                           "google/flan-t5-xl"])[0]


def test_every_table_and_figure_has_one_artifact_row_with_its_builder():
    import yaml

    from choicelab.artifacts import by_name, of_rule
    from choicelab.config import validate_config
    from choicelab.studies import study_jobs
    from choicelab.studies.scoring_methods.artifacts import ARTIFACTS

    names = by_name(ARTIFACTS)  # unique names
    assert [a.name for a in of_rule(ARTIFACTS, "sm_tables")] == [
        "table_numbers", "compare_paper", "fig_compare_paper", "free_accuracy", "hand_codes", "human_accuracy",
        "method_differences", "robustness_matrix"
    ]
    assert {a.kind for a in of_rule(ARTIFACTS, "sm_figures")} == {"figure"}
    assert all(callable(a.builder) for a in names.values())
    repo = Path(__file__).resolve().parents[1]
    config = yaml.safe_load((repo / "configs/smoke.yaml").read_text())
    validate_config(config)
    assert "figures/scoring_methods/fig1.svg" in study_jobs(config, "scoring_methods", repo).artifact_files()
    config["studies"]["scoring_methods"]["enabled"] = False  # a study that runs no model writes nothing
    assert study_jobs(config, "scoring_methods", repo).artifact_files() == []


def test_an_item_answered_over_ten_label_seeds_counts_once_in_its_interval_and_methods_are_paired_by_item():
    """Label scoring answers each of 10 items over 10 seeds with the same answer (6 items right); string scoring
    answers each once, all right. The exact interval believes 100 draws, the clustered one knows 10 items; the
    methods' difference is paired item by item, on 10 items, not 100."""
    from scipy import stats

    label = pd.DataFrame([{"condition": "irony", "model": "m", "method": "label", "score": "s", "seed": seed,
                           "item_id": f"irony-{i:02d}", "is_target": i < 6} for i in range(10) for seed in range(10)])
    string = pd.DataFrame([{"condition": "irony", "model": "m", "method": "string", "score": "s", "seed": 0,
                            "item_id": f"irony-{i:02d}", "is_target": True} for i in range(10)])
    row = tables.item_intervals(label, ["model", "method"]).iloc[0]
    assert row["n_clusters"] == 10 and row["design_effect"] > 9
    assert row["clustered_high"] - row["clustered_low"] > 2.5 * (row["ci95_high"] - row["ci95_low"])
    diff = tables.method_differences(pd.concat([label, string])).set_index("condition").loc["all"]
    assert (diff["a"], diff["b"], diff["n_items"]) == ("string", "label", 10)
    assert diff["difference"] == pytest.approx(0.4)
    half = stats.t.ppf(0.975, 9) * np.sqrt(0.4 * 0.6 * 10 / 9) / np.sqrt(10)
    assert diff["difference_high"] - diff["difference"] == pytest.approx(half)


def test_human_accuracy_is_over_responses_with_an_interval_clustered_by_item(data_mirror):
    ours = hu.human_condition_accuracy(data_mirror).set_index("condition")
    assert (ours["n_counts"] == "responses").all()
    assert (ours["clustered_high"] - ours["clustered_low"] > ours["ci95_high"] - ours["ci95_low"]).all()
    assert (ours["design_effect"] > 1).all()
