"""STEER prompts for chat models (the model entry's chat_template) and the explain-together cut."""

from __future__ import annotations

import copy

import pytest

from choicelab.lm.registry import ModelSpec, check_chat_template, parse_model_spec
from choicelab.studies.steer import scoring as ps
from choicelab.studies.steer.items.base import generate_benchmark, questions_to_items

# A Llama-2-chat-like template (trims contents, as Meta's does) and a ChatML one with a generation prompt.
LLAMA2_TEMPLATE = ("{% for m in messages %}{% if m['role'] == 'user' %}{{ bos_token + '[INST] ' + m['content'] | trim "
                   "+ ' [/INST]' }}{% else %}{{ ' ' + m['content'] | trim + ' ' + eos_token }}{% endif %}{% endfor %}")
CHATML_TEMPLATE = ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
                   "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")


@pytest.fixture(scope="module")
def items():
    return questions_to_items(generate_benchmark({"n_per_test": 2, "max_domains": 1, "seed": 5,
                                                  "elements": ["add_subtract"], "grades": [2]}))


@pytest.fixture()
def chat_tokenizer(tiny_llama):
    tokenizer = copy.deepcopy(tiny_llama[1])
    tokenizer.chat_template = LLAMA2_TEMPLATE
    return tokenizer


def _explainer(text):
    return lambda prompts: {item_id: text for item_id, _ in prompts}


def test_a_chat_model_sees_the_question_as_its_user_turn_and_the_letter_is_read_right_after_the_cue(items,
                                                                                                    chat_tokenizer):
    chat = ps.chat_format("llama-2-70b-chat", chat_tokenizer, True)
    [prompt] = ps.build_prompts(items[:1], [], "0shot", seed=0, chat=chat)
    raw = ps.mc_question(items[0])
    assert prompt.chat_template
    assert prompt.context.startswith(f"{chat_tokenizer.bos_token}[INST] {items[0].prompt.strip()}")
    assert "WRITE ONLY A SINGLE LETTER. [/INST] Correct Answer: " in prompt.context
    assert prompt.context.endswith(ps.ANSWER_CUE) and prompt.context != raw


def test_few_shot_examples_and_the_question_share_one_user_turn_like_the_reference_code(items, chat_tokenizer):
    pool = items[1:]
    chat = ps.chat_format("chat", chat_tokenizer, None)
    [prompt] = ps.build_prompts(items[:1], pool, "1shot", seed=0, chat=chat)
    assert prompt.context.count("[INST]") == 1 and prompt.n_examples == 1
    assert ps.solved_example(pool[0]) in prompt.context


def test_the_letter_is_scored_on_the_templated_context_and_the_dump_row_carries_it(items, tiny_llama,
                                                                                   chat_tokenizer):
    from choicelab.lm.causal import CausalScorer

    model, _ = tiny_llama
    chat = ps.chat_format("chat", chat_tokenizer, True)
    prompts = ps.build_prompts(items, [], "0shot", seed=0, chat=chat)
    rows = ps.score_adaptation(CausalScorer(model, chat_tokenizer), items, [p.context for p in prompts],
                               model="chat", adaptation="0shot")
    assert {r.context for r in rows} == {p.context for p in prompts}
    assert all("[/INST] Correct Answer: " in r.context for r in rows)


def test_explanations_are_generated_after_the_generation_prompt_and_kept_as_the_assistant_turn(items, tiny_llama):
    tokenizer = copy.deepcopy(tiny_llama[1])
    tokenizer.chat_template = CHATML_TEMPLATE
    chat = ps.chat_format("chatml", tokenizer, None)
    seen = {}

    def explain(prompts):
        seen.update(prompts)
        return {item_id: "'''two plus two'''\nCorrect Answer: B" for item_id, _ in prompts}

    [together] = ps.build_prompts(items[:1], [], "explain-together", seed=0,
                                  explain=explain, chat=chat)
    assert seen[items[0].item_id].endswith("<|im_end|>\n<|im_start|>assistant\n")
    assert together.context.endswith("<|im_start|>assistant\n'''two plus two'''\nCorrect Answer: ")
    [separate] = ps.build_prompts(items[:1], [], "explain-separate", seed=0,
                                  explain=_explainer("'''because'''"), chat=chat)
    assert separate.context.count("<|im_start|>user") == 2
    assert separate.context.endswith(f"WRITE ONLY A SINGLE LETTER.<|im_end|>\n<|im_start|>assistant\n{ps.ANSWER_CUE}")


def test_raw_text_when_the_entry_says_false_or_the_tokenizer_ships_no_template(items, tiny_llama, chat_tokenizer):
    assert ps.chat_format("raw", chat_tokenizer, False) is None
    assert ps.chat_format("base", tiny_llama[1], None) is None
    [prompt] = ps.build_prompts(items[:1], [], "0shot", seed=0, chat=None)
    assert prompt.context == ps.mc_question(items[0]) and not prompt.chat_template


def test_asking_for_a_chat_template_the_tokenizer_lacks_fails_naming_the_model(tiny_llama):
    with pytest.raises(ValueError, match="model 'falcon-7b-instruct'.*chat_template: true.*no chat template"):
        ps.chat_format("falcon-7b-instruct", tiny_llama[1], True)
    spec = ModelSpec("falcon-7b-instruct", "causal", "hf:tiiuae/falcon-7b-instruct", chat_template=True)
    with pytest.raises(ValueError, match="model 'falcon-7b-instruct'.*no chat template"):
        check_chat_template(spec, has_chat_template=False)
    check_chat_template(spec, has_chat_template=True)
    with pytest.raises(ValueError, match="model 'm'.*'chat_template' names the template file 'yes'"):
        parse_model_spec("m", {"kind": "causal", "source": "random:llama", "chat_template": "yes"})


def test_the_prompt_record_says_whether_the_template_was_applied(items, chat_tokenizer):
    chat = ps.chat_format("chat", chat_tokenizer, True)
    table = ps.prompts_table(ps.build_prompts(items, [], "0shot", seed=0,
                                              chat=chat), "chat")
    assert table.column("chat_template").to_pylist() == [True] * len(items)


def test_explain_together_keeps_the_reasoning_up_to_the_last_correct_answer():
    generation = ("'''The correct answer: not A, since 3 > 2. Checking again, Correct Answer: B is tempting but "
                  "wrong.'''\nCorrect Answer: C")
    kept = ps.explanation_text(generation, "together")
    assert kept.endswith("Correct Answer: B is tempting but wrong.'''")
    assert kept.startswith("'''The correct answer: not A, since 3 > 2.")
    assert ps.explanation_text("'''no cue at all'''", "together") == "'''no cue at all'''"
    assert ps.explanation_text(generation, "separate") == generation


@pytest.fixture(scope="module")
def pair_bench():
    from choicelab.studies.steer.items.base import generate_benchmark_with_pool

    scored, pool = generate_benchmark_with_pool({"n_per_test": 1, "max_domains": 1, "seed": 3,
                                                 "elements": ["certainty_effect"], "grades": [6]}, 2)
    return questions_to_items(scored), questions_to_items(pool, "fewshot")


def test_part_two_of_a_two_part_question_is_the_next_user_turn_after_part_ones_answer(pair_bench, tiny_llama):
    items, pool = pair_bench
    tokenizer = copy.deepcopy(tiny_llama[1])
    tokenizer.chat_template = CHATML_TEMPLATE
    chat = ps.chat_format("chatml", tokenizer, None)
    first, second = items
    assert ps.is_follow_up(second) and ps.part_one_id(second) == first.item_id
    [p1] = ps.build_prompts([first], pool, "1shot", seed=0, chat=chat,
                            then={first.item_id: second})
    [p2] = ps.build_follow_up_prompts([second], [p1], {first.item_id: "B"}, "1shot", chat=chat)
    part_one = p1.context.removesuffix(ps.ANSWER_CUE)
    part_two_question = ps.mc_question(second).removesuffix(ps.ANSWER_CUE).rstrip()
    # one conversation: part 1's user turn, the model's letter in the assistant's turn, part 2 as the next user turn
    assert p2.context == (f"{part_one}{ps.ANSWER_CUE}B<|im_end|>\n<|im_start|>user\n{part_two_question}<|im_end|>\n"
                          f"<|im_start|>assistant\n{ps.ANSWER_CUE}")
    assert p2.context.count("<|im_start|>user") == 2 and p2.chat_template
    assert [role for role, _ in p2.turns] == ["user", "assistant", "user", "assistant"]
    assert (p2.n_examples, p2.example_ids) == (p1.n_examples, p1.example_ids)  # the examples sit in part 1 only
    # the window keeps room for part 2's turns: part 1's example is dropped when part 2 would not fit
    window = len(p2.context) + 2 - 1
    [short] = ps.build_prompts([first], pool, "1shot", seed=0, window=ps.ContextWindow(len, window), chat=chat,
                               then={first.item_id: second})
    assert short.n_examples == 0
    [alone] = ps.build_prompts([first], pool, "1shot", seed=0, window=ps.ContextWindow(len, window), chat=chat)
    assert alone.n_examples == 1  # part 1 alone would have kept it
    # self-explanation: part 2's explanation is asked after part 1's answered conversation
    [e1] = ps.build_prompts([first], [], "explain-separate", seed=0,
                            explain=_explainer("'''first'''"), chat=chat)
    seen = {}

    def explain(prompts):
        seen.update(prompts)
        return {item_id: "'''second'''" for item_id, _ in prompts}

    [e2] = ps.build_follow_up_prompts([second], [e1], {first.item_id: "A"}, "explain-separate",
                                      explain=explain, chat=chat)
    assert seen[second.item_id].startswith(e1.context + "A<|im_end|>\n<|im_start|>user\n")
    assert seen[second.item_id].endswith("<|im_start|>assistant\n")
    assert e2.context.startswith(e1.context + "A<|im_end|>") and e2.context.count("<|im_start|>user") == 4
    assert e2.context.endswith(ps.ANSWER_CUE)


@pytest.fixture(scope="module")
def tiny_falcon_instruct(tmp_path_factory):
    """A tiny random Falcon prepared with ``chat_template: falcon_instruct`` (the template file), loaded back."""
    from choicelab.lm.loading import load_tokenizer
    from choicelab.lm.registry import materialize

    spec = parse_model_spec("falcon-7b-instruct", {"kind": "causal", "source": "random:falcon",
                                                   "chat_template": "falcon_instruct"})
    folder = tmp_path_factory.mktemp("falcon") / "falcon-7b-instruct"
    meta = materialize(spec, folder, seed=0)
    return meta, load_tokenizer(folder)


def test_a_falcon_instruct_entry_with_the_template_file_is_prompted_in_the_authors_textual_format(
        items, pair_bench, tiny_falcon_instruct):
    from choicelab.lm.registry import CHAT_TEMPLATES_DIR

    meta, tokenizer = tiny_falcon_instruct
    template = (CHAT_TEMPLATES_DIR / "falcon_instruct.jinja").read_text()
    assert meta["has_chat_template"] and meta["chat_template"] == template
    assert tokenizer.chat_template == template  # the loader sets it from model.json
    chat = ps.chat_format("falcon-7b-instruct", tokenizer, "falcon_instruct")
    assert chat is not None
    # a lone question (n-shot, explain-together) is the plain text the authors' code sends, ending with the cue
    for adaptation, pool, explain in (("1shot", items[1:], None),
                                      ("explain-together", [], _explainer("'''why'''\nCorrect Answer: B"))):
        [templated] = ps.build_prompts(items[:1], pool, adaptation, seed=0,
                                       explain=explain, chat=chat)
        [raw] = ps.build_prompts(items[:1], pool, adaptation, seed=0,
                                 explain=explain)
        assert templated.chat_template and templated.context == raw.context
        assert templated.context.endswith(ps.ANSWER_CUE)
    # after an answer, turns read "User: ..." / "Falcon: ..." and the next question keeps the cue at its end
    seen = {}

    def explain(prompts):
        seen.update(prompts)
        return {item_id: "'''why'''" for item_id, _ in prompts}

    [separate] = ps.build_prompts(items[:1], [], "explain-separate", seed=0,
                                  explain=explain, chat=chat)
    assert seen[items[0].item_id] == ps.explanation_prompt(items[0], "separate")  # the call itself is plain text
    assert separate.context.startswith("User: ") and "\nFalcon: '''why'''\nUser: " in separate.context
    assert separate.context.endswith("WRITE ONLY A SINGLE LETTER. \n\nCorrect Answer: ")
    two_part, two_pool = pair_bench
    first, second = two_part
    [p1] = ps.build_prompts([first], two_pool, "1shot", seed=0, chat=chat,
                            then={first.item_id: second})
    [p2] = ps.build_follow_up_prompts([second], [p1], {first.item_id: "B"}, "1shot", chat=chat)
    [raw1] = ps.build_prompts([first], two_pool, "1shot", seed=0,
                              then={first.item_id: second})
    assert p1.context == raw1.context  # part 1 is a lone question too
    assert "\n\nCorrect Answer: \nFalcon: B\nUser: " in p2.context and p2.context.startswith("User: ")
    assert p2.context.endswith(ps.ANSWER_CUE)


def test_a_chat_template_given_inline_is_used_as_is_and_an_unknown_template_file_fails_naming_it():
    from choicelab.lm.registry import chat_template_text

    inline = "{% for m in messages %}{{ m['content'] }}{% endfor %}"
    spec = parse_model_spec("m", {"kind": "causal", "source": "random:falcon", "chat_template": inline})
    assert spec.chat_template == inline and chat_template_text("m", inline) == inline
    with pytest.raises(ValueError, match=r"model 'falcon-7b-instruct'.*'falcon_instrcut'.*known: falcon_instruct"):
        parse_model_spec("falcon-7b-instruct", {"kind": "causal", "source": "hf:tiiuae/falcon-7b-instruct",
                                                "chat_template": "falcon_instrcut"})
