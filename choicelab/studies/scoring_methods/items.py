"""Pragmatic-interpretation items of Hu, Floyd et al. (2023) as used by Tsvilodub et al., and their human data.

Seven conditions (``CONDITIONS``): coherence (40 items, 2 options), deceits (20, 4), humour (25, 5), indirect speech
(20, 4), irony (25, 4), maxims (19, 4), metaphor (20, 5). Every item is one :class:`PragmaticsItem`: a task
description ``task`` (T, shared by the condition), the context ``context`` (C_i, containing the trigger utterance),
the question ``question`` (Q), the options in their **original order** (the order human participants saw, option
``k`` = ``AnswerK`` in the human data), each option's type (``CorrectNonLiteral``, ``IncorrectLiteral``...) and the
0-based index of the pragmatic target.

Sources (public files, downloaded with checksums by a download rule or read from a local mirror laid out like
``../shared/data/pragmatics``; see :data:`SOURCES`):

* Item texts: ``polina-tsvilodub/LLM_link`` ``data/data_hu_<condition>.csv`` (the materials Tsvilodub et al. scored).
* Option numbers and option types: ``jennhu/lm-pragmatics`` ``fj_raw_data/<Ph>Options.txt`` and ``<Ph>KeyComplex.txt``
  (coherence: ``CoherenceInferenceKeySimple.txt``). LLM_link options are matched to the original options by their text
  (letters and digits only, case-folded: the copies differ in punctuation and quote style); LLM_link's maxims
  items 13-19 are the original items 14-20 (matched on the scenario text).
* Human data: ``jennhu/lm-pragmatics`` ``human_data/fj/Human_<Ph>.csv`` (374 participants x every item, ``Correct``
  0/1 and ``OptionChosen`` = ``AnswerK`` / ``Coherent`` / ``Incoherent``).

Task descriptions T (:data:`TASKS`) and the rating-task templates (:data:`RATING_TASKS`) are the authors' prompt texts
(LLM_link ``prompt/prompts/*_instructions_FC.txt`` and ``prompt/prompt_rating/*_instructions_Rating.txt``): one
sentence or two per condition, kept here as prompt configuration. The question Q is the scenario's final question
sentence where the scenario ends with one (deceits, indirect speech, irony, metaphor), else the authors' per-condition
question (coherence: "Is this story coherent or not?", maxims: "Why has <speaker> responded like this?"; humour has
none). ``trigger`` (the utterance to interpret, shown in Fig. 1) is found heuristically: the last quoted span of the
context; coherence: the second sentence; humour items without quotes: the last sentence.

Human accuracy per condition (:func:`human_condition_accuracy`) = target choices / responses over **all** rows of
``Human_<Ph>.csv``. This reproduces every value in the paper to three decimals: coherence .857, deceits .842, humour
.847, indirect speech .886, irony .919, maxims .796, metaphor .897 (:data:`PAPER_HUMAN_ACCURACY`). Maxims .796 needs the
original item 13, which is absent from the language-model materials; over the 19 scored maxims items the human
accuracy is .808 (``items="scored"``). The authors' own analysis (LLM_link ``analysis/testing-stats.R``) also pools all
rows per condition, so ``items="all"`` is the default for the log-likelihood too.
"""

from __future__ import annotations

import csv
import html
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from choicelab.mc.commonsense import RemoteFile
from choicelab.mc.items import MCItem
from choicelab.studies.scoring_methods.metrics import option_order

BENCHMARK = "pragmatics"
CONDITIONS = ("coherence", "deceits", "humour", "indirect_speech", "irony", "maxims", "metaphor")
# Hu et al.'s file stems and phenomenon codes.
PHENOMENON = {
    "coherence": "CoherenceInference",
    "deceits": "Deceits",
    "humour": "Humour",
    "indirect_speech": "IndirectSpeech",
    "irony": "Irony",
    "maxims": "Maxims",
    "metaphor": "Metaphor",
}
CODES = {
    "coherence": "CIV",
    "deceits": "DV",
    "humour": "HV",
    "indirect_speech": "ISV",
    "irony": "IV",
    "maxims": "MV",
    "metaphor": "MPV",
}
N_ITEMS = {
    "coherence": 40,
    "deceits": 20,
    "humour": 25,
    "indirect_speech": 20,
    "irony": 25,
    "maxims": 19,
    "metaphor": 20,
}
N_OPTIONS = {"coherence": 2, "deceits": 4, "humour": 5, "indirect_speech": 4, "irony": 4, "maxims": 4, "metaphor": 5}
# Original maxims item dropped from every language-model version of the materials (it has human data).
MAXIMS_EXCLUDED_ITEM = 13

# Human accuracy per condition as printed in the paper (Fig. 2 / text of the spec).
PAPER_HUMAN_ACCURACY = {
    "coherence": 0.857,
    "deceits": 0.842,
    "humour": 0.847,
    "indirect_speech": 0.886,
    "irony": 0.919,
    "maxims": 0.796,
    "metaphor": 0.897,
}

TASKS = {
    "coherence": "You will read a pair of sentences. Your task is to decide whether they form a coherent story.",
    "deceits": "You will read a short story that describes an everyday situation. Your task is to interpret why the "
    "character in the story responded in a certain way.",
    "humour": "You will read a joke that is missing its punch line. A punch line is a funny line that finishes the "
    "joke. Your task is to decide which punch line will make the joke funny.",
    "indirect_speech": "You will read a short story that describes an everyday situation. Your task is to interpret "
    "what the character in the story is trying to convey.",
    "irony": "You will read a short story that describes an everyday situation. Your task is to interpret what the "
    "character in the story is trying to convey.",
    "maxims": "You will read a short story that describes an everyday situation. Your task is to interpret what the "
    "character in the story is trying to convey.",
    "metaphor": "You will read a short story that describes an everyday situation. Your task is to interpret what the "
    "character in the story is trying to convey.",
}
_STORY_RATING = (
    "You will read a short story that describes an everyday situation. Your task is to rate how {} a "
    "given interpretation is of an utterance by a character in the story."
)
RATING_TASKS = {
    "coherence": "You will read a pair of sentences. Your task is to rate how {} the decision whether the pair forms "
    "a coherent story is.",
    "deceits": _STORY_RATING,
    "humour": "You will read a joke that is missing its punch lines. A punch line is a funny line that finishes the "
    "joke. Your task is to rate how {} a given punch line is for the joke.",
    "indirect_speech": _STORY_RATING,
    "irony": _STORY_RATING,
    "maxims": _STORY_RATING,
    "metaphor": _STORY_RATING,
}
FIXED_QUESTIONS = {"coherence": "Is this story coherent or not?", "maxims": "Why has {speaker} responded like this?"}

# -- sources ---------------------------------------------------------------------------------------------------

LM_PRAGMATICS_COMMIT = "9fd4be5c0e43162c9d6e09b6024cc000e40b3398"
LLM_LINK_COMMIT = "2cfc65228c5c8f9d8d4f6660d68b1c7487b4b773"
_RAW = "https://raw.githubusercontent.com"
_REPOS = {
    "lm-pragmatics": f"{_RAW}/jennhu/lm-pragmatics/{LM_PRAGMATICS_COMMIT}",
    "LLM_link": f"{_RAW}/polina-tsvilodub/LLM_link/{LLM_LINK_COMMIT}",
}


def _f(path: str, sha256: str) -> RemoteFile:
    repo, _, inner = path.partition("/")
    return RemoteFile(f"pragmatics/{path}", f"{_REPOS[repo]}/{inner}", sha256)


_FILES = [
    _f("LLM_link/data/data_hu_coherence.csv", "43de79e1e4d3170d0091128a8eccd1484106fcf5f2cc0c38ab373de238756154"),
    _f("LLM_link/data/data_hu_deceits.csv", "8fe812b35da199ba7b907f4a1e0ea9814cca5b35ab3c36e9b7f46d27a0daf437"),
    _f("LLM_link/data/data_hu_humour.csv", "aa02eade3eae4a47b2544dacec4d6bcf6bbbbe23a9187c43de368b4d6bed9113"),
    _f("LLM_link/data/data_hu_indirect_speech.csv", "bf424010dd2d80e39482edd9d14fb624a807854cf7b6c7b8532759f2660b5a9b"),
    _f("LLM_link/data/data_hu_irony.csv", "3c871f2c06f745f9d32b869dfb5ca629d94497ee5f51f8a53ced484bb3bcb90d"),
    _f("LLM_link/data/data_hu_maxims.csv", "da14a2f25b5a365bdf7f08d6563cbb3464a262d5f777c58c306478052fed72b7"),
    _f("LLM_link/data/data_hu_metaphor.csv", "d712e4b2c0a702736664e72fe9003697414dafe8f6e1c0de57290759e9347917"),
    _f(
        "LLM_link/data/human_results/human_response_proportions.csv",
        "9c9e7477484bb6a7a6c3b8f7003666d489242ac9f0269f02ab498617d15d7102",
    ),
    _f(
        "lm-pragmatics/fj_raw_data/CoherenceInferenceKeySimple.txt",
        "760f1c5d7155b34bbced1597fcdb636b225e96d27b9a23587a926676594b1786",
    ),
    _f(
        "lm-pragmatics/fj_raw_data/CoherenceInferenceScenarios.txt",
        "73a3f72927128f35c23bd891514e5a9a33c4e2d1b391bf8c64d936c25e4b14dc",
    ),
    _f(
        "lm-pragmatics/fj_raw_data/DeceitsKeyComplex.txt",
        "a58b7026fe1392fb2d546e8f4e31967593f04f2cdfd3a32ecb1bee1800b1a4df",
    ),
    _f(
        "lm-pragmatics/fj_raw_data/DeceitsOptions.txt",
        "fd3f521ed1e5e5c2acb1cbfaab1c65de8f4845aa205096cbedc2981f9c3dbcce",
    ),
    _f(
        "lm-pragmatics/fj_raw_data/DeceitsScenarios.txt",
        "7ff6e23cda9abf7883eec66404c799eca936f6563f18c5061953d4dece581c0d",
    ),
    _f(
        "lm-pragmatics/fj_raw_data/HumourKeyComplex.txt",
        "a78858d7aa7fa2936f119c5f537c89d92783f9faeb1454f8635dd7584f2186f0",
    ),
    _f(
        "lm-pragmatics/fj_raw_data/HumourOptions.txt",
        "fdacf6ffbfbd5e00243172a9863f77f09baf099d0913310544d2883d6fe8b678",
    ),
    _f(
        "lm-pragmatics/fj_raw_data/HumourScenarios.txt",
        "9b4fd08177a07cbb075140f7792a2a6978eaf4d8cf25e980db313cee9b9df826",
    ),
    _f(
        "lm-pragmatics/fj_raw_data/IndirectSpeechKeyComplex.txt",
        "c62be37ff2913ace68b8fa2fa425ac57513cedf5c9f087e59ddac9096d00667e",
    ),
    _f(
        "lm-pragmatics/fj_raw_data/IndirectSpeechOptions.txt",
        "16808d02c641d2e93ee1b31fa5292a1617ebd94a073ae2cb7dea120cb4044e07",
    ),
    _f(
        "lm-pragmatics/fj_raw_data/IndirectSpeechScenarios.txt",
        "8f547ef15d3c4e36353f753b80346f7c4883c28e7d6fee802b0b8a2237e37175",
    ),
    _f(
        "lm-pragmatics/fj_raw_data/IronyKeyComplex.txt",
        "522af6577113667313a12c0b6e55e8d2ce3e2f986457e34eb93b97df6698c13f",
    ),
    _f(
        "lm-pragmatics/fj_raw_data/IronyOptions.txt", "6b920e836eb74957d103ade66e94a723871abde4c9b87d8d11ad9b2435e9d9c2"
    ),
    _f(
        "lm-pragmatics/fj_raw_data/IronyScenarios.txt",
        "1faa8bceb282de917af246e11ec730ac19338ce5dc766d91c7dba5f39234c97c",
    ),
    _f(
        "lm-pragmatics/fj_raw_data/MaximsKeyComplex.txt",
        "cc6a87c53d6c6806f85d3d8ce080ccc2cc0a3175d6b224b7e30823c55c0023fe",
    ),
    _f(
        "lm-pragmatics/fj_raw_data/MaximsOptions.txt",
        "3dcb9c39c6413e7f1cafe80578b0896762835e6896a2fe9e9df74aa725e7582f",
    ),
    _f(
        "lm-pragmatics/fj_raw_data/MaximsScenarios.txt",
        "c90e9b592847cd3c6c3524c46df11351b68d6c37d998e3d6f50571c5840ac8b7",
    ),
    _f(
        "lm-pragmatics/fj_raw_data/MetaphorKeyComplex.txt",
        "4c1066aea6ecd037c33021c170e792bf6a11da6bd73fb43a9de27a742402fafa",
    ),
    _f(
        "lm-pragmatics/fj_raw_data/MetaphorOptions.txt",
        "b667ec46415df1e2f10647204cbdfa4a96746a034c1c8485b155028f0bf25295",
    ),
    _f(
        "lm-pragmatics/fj_raw_data/MetaphorScenarios.txt",
        "fa67c87fe0a629a963599bd13e635371f4f4d38ea329cac285fafdcb572bc5ea",
    ),
    _f(
        "lm-pragmatics/human_data/fj/Human_CoherenceInference.csv",
        "ca7615cc780c5779aa3b3d39119f2e570e89f8f878b6950d2fc1325384ba14dc",
    ),
    _f(
        "lm-pragmatics/human_data/fj/Human_Deceits.csv",
        "62aec169997e86966f7f6018c242a660fd0417f939603ce20ebb551b2d1ce99b",
    ),
    _f(
        "lm-pragmatics/human_data/fj/Human_Humour.csv",
        "c687563397301de580de38d499161153773b95a969b002b4eac4e4fcb6ba4b32",
    ),
    _f(
        "lm-pragmatics/human_data/fj/Human_IndirectSpeech.csv",
        "004169573feb213b82c71d5b495ec4095ce8acc7ab63d76f2edb1bb4c5da198e",
    ),
    _f(
        "lm-pragmatics/human_data/fj/Human_Irony.csv",
        "0631fa6a196fcb708a8a04ffd1e6f4a7876a268b64e4282338c41b1e5b180065",
    ),
    _f(
        "lm-pragmatics/human_data/fj/Human_Maxims.csv",
        "c27b5a8f4dcc49b8625eea9971eb3a63133c22da6f81ecee699f7fac8da3df97",
    ),
    _f(
        "lm-pragmatics/human_data/fj/Human_Metaphor.csv",
        "090a065f56d88ad01f74fd08b05a362e4337d6ad09335b2198834ae8986be26a",
    ),
]
# Every file the study reads, keyed by its path under the mirror root (``pragmatics/...``).
SOURCES: dict[str, RemoteFile] = {f.mirror_path: f for f in _FILES}


def source_path(root: str | Path, mirror_path: str) -> Path:
    """A source file under a mirror/download root, with a clear error when it is missing."""
    path = Path(root) / mirror_path
    if not path.is_file():
        raise FileNotFoundError(
            f"missing pragmatics data file {path}: set 'data_mirror' in the config to a folder laid out like "
            "../shared/data, or run the pragmatics download rule to fetch the public files"
        )
    return path


def source_root(paths: Iterable[str | Path]) -> Path:
    """The folder the source files ``paths`` lie under (a mirror or the download rules' folder): each path ends with
    a :data:`SOURCES` key, and every source must be among them (a rule declares them all as inputs)."""
    roots = set()
    found = set()
    for path in map(str, paths):
        key = next((k for k in SOURCES if path == k or path.endswith("/" + k)), None)
        if key is None:
            raise ValueError(f"{path} is not a pragmatics source file (known: {sorted(SOURCES)[:3]}...)")
        found.add(key)
        roots.add(path[: -len(key)].rstrip("/") or ".")
    missing = sorted(set(SOURCES) - found)
    if missing or len(roots) != 1:
        raise ValueError(f"the pragmatics sources must all lie under one folder; missing {missing[:3]}, roots {roots}")
    return Path(roots.pop())


def _items_file(condition: str) -> str:
    return f"pragmatics/LLM_link/data/data_hu_{condition}.csv"


def _fj_file(condition: str, kind: str) -> str:
    return f"pragmatics/lm-pragmatics/fj_raw_data/{PHENOMENON[condition]}{kind}.txt"


def _human_file(condition: str) -> str:
    return f"pragmatics/lm-pragmatics/human_data/fj/Human_{PHENOMENON[condition]}.csv"


HUMAN_PROPORTIONS_FILE = "pragmatics/LLM_link/data/human_results/human_response_proportions.csv"


# -- items -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PragmaticsItem:
    """One item; ``options[k]`` is original option ``option_numbers[k]`` (= human ``AnswerK``)."""

    condition: str
    item_id: str
    item_number: int
    task: str
    context: str
    trigger: str
    question: str
    options: tuple[str, ...]
    option_numbers: tuple[int, ...]
    option_types: tuple[str, ...]
    target: int
    meta: dict = field(default_factory=dict, compare=False, hash=False)
    # LLM_link's name for each option (the data_hu_* column: target, competitor, incorrect_literal, ...); the names
    # the authors' hand codes of free generations use. Empty for items built elsewhere.
    categories: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not 0 <= self.target < len(self.options):
            raise ValueError(f"{self.item_id}: target {self.target} outside the {len(self.options)} options")
        if not len(self.options) == len(self.option_numbers) == len(self.option_types):
            raise ValueError(f"{self.item_id}: options, option numbers and option types differ in length")
        if self.categories and len(self.categories) != len(self.options):
            raise ValueError(f"{self.item_id}: {len(self.categories)} categories for {len(self.options)} options")


def _check_condition(condition: str) -> None:
    if condition not in CONDITIONS:
        raise ValueError(f"unknown pragmatics condition {condition!r}; use one of {', '.join(CONDITIONS)}")


def clean_text(text: str) -> str:
    """HTML entities decoded (``caf&eacute;``), runs of whitespace collapsed, ends stripped."""
    return re.sub(r"\s+", " ", html.unescape(str(text))).strip()


def match_key(text: str) -> str:
    """Letters and digits only, case-folded: how option and scenario texts of the two repositories are matched."""
    return re.sub(r"[^a-z0-9]+", "", html.unescape(str(text)).lower())


def _read_tsv(path: Path) -> list[list[str]]:
    # Tab-separated, CR / CRLF / LF line ends, quoted fields with newlines: the csv module handles all of them.
    with open(path, newline="", encoding="utf-8") as handle:
        return [row for row in csv.reader(handle, delimiter="\t") if any(cell.strip() for cell in row)]


def fj_options(root: str | Path, condition: str) -> dict[int, dict[int, tuple[str, str]]]:
    """Original options: item number -> option number -> (text, KeyComplex type). Not for coherence."""
    if condition == "coherence":
        raise ValueError("coherence has no option files: its options are the judgements coherent / incoherent")
    offset = 0 if condition == "maxims" else 1  # maxims' Options.txt has no phenomenon-code column
    texts: dict[int, dict[int, str]] = {}
    for row in _read_tsv(source_path(root, _fj_file(condition, "Options"))):
        texts.setdefault(int(row[offset]), {})[int(row[offset + 1])] = row[offset + 2]
    type_col = 6 if condition == "metaphor" else 3
    types: dict[tuple[int, int], str] = {}
    for row in _read_tsv(source_path(root, _fj_file(condition, "KeyComplex"))):
        types[(int(row[1]), int(row[2]))] = row[type_col].strip()
    return {item: {k: (text, types[(item, k)]) for k, text in sorted(opts.items())} for item, opts in texts.items()}


def fj_scenarios(root: str | Path, condition: str) -> dict[int, str]:
    """Original scenario text per original item number."""
    offset = 0 if condition == "maxims" else 1
    return {int(row[offset]): row[offset + 1] for row in _read_tsv(source_path(root, _fj_file(condition, "Scenarios")))}


def coherence_key(root: str | Path) -> dict[int, str]:
    """Coherence item number -> the correct judgement ("Coherent" or "Incoherent")."""
    return {int(row[1]): row[2].strip() for row in _read_tsv(source_path(root, _fj_file("coherence", "KeySimple")))}


_FINAL_QUESTION = re.compile(r"^(?P<context>.*?[.!?\"'”’])\s+(?P<question>[^.!?\"“”]*\?)$", re.S)
_QUOTED = re.compile(r"[\"“]([^\"“”]+)[\"”]")


def split_question(scenario: str) -> tuple[str, str]:
    """(context, final question) when the scenario ends with a question sentence, else (scenario, "")."""
    text = clean_text(scenario)
    match = _FINAL_QUESTION.match(text)
    if not match:
        return text, ""
    return match.group("context").strip(), match.group("question").strip()


def find_trigger(condition: str, context: str) -> str:
    """The utterance to interpret (heuristic, used for display only; see the module docstring)."""
    if condition == "coherence":
        sentences = re.split(r"(?<=[.!?])\s+", context.strip())
        return sentences[-1] if len(sentences) > 1 else context
    quoted = _QUOTED.findall(context)
    if quoted:
        return quoted[-1].strip()
    sentences = re.split(r"(?<=[.!?])\s+", context.strip())
    return sentences[-1]


def _original_item_number(condition: str, row: pd.Series, scenarios: dict[int, str]) -> int:
    if condition != "maxims":
        return int(row["item_number"])
    key = match_key(row["prompt"])
    found = [n for n, text in scenarios.items() if match_key(text).startswith(key) or key.startswith(match_key(text))]
    if len(found) != 1:
        raise ValueError(
            f"maxims item {row['item_number']} of LLM_link matches original items {found}, not exactly one"
        )
    return found[0]


def _load_coherence(root: str | Path) -> list[PragmaticsItem]:
    frame = pd.read_csv(source_path(root, _items_file("coherence")))
    key = coherence_key(root)
    items = []
    for _, row in frame.iterrows():
        number = int(row["item_number"])
        correct = key[number]
        context = clean_text(row["prompt"])
        target = 0 if correct == "Coherent" else 1
        if str(row["target"]).strip().lower() != correct.lower():
            raise ValueError(
                f"coherence item {number}: LLM_link target {row['target']!r} disagrees with the key {correct!r}"
            )
        items.append(
            PragmaticsItem(
                condition="coherence",
                item_id=f"coherence-{number:02d}",
                item_number=number,
                task=TASKS["coherence"],
                context=context,
                trigger=find_trigger("coherence", context),
                question=FIXED_QUESTIONS["coherence"],
                options=("coherent", "incoherent"),
                option_numbers=(1, 2),
                option_types=("Coherent", "Incoherent"),
                target=target,
                meta={"llm_link_number": number},
                categories=("target", "competitor") if target == 0 else ("competitor", "target"),
            )
        )
    return items


def _load_multiple_choice(root: str | Path, condition: str) -> list[PragmaticsItem]:
    frame = pd.read_csv(source_path(root, _items_file(condition)))
    originals = fj_options(root, condition)
    scenarios = fj_scenarios(root, condition)
    option_columns = list(frame.loc[:, "target":].columns)
    items = []
    for _, row in frame.iterrows():
        number = _original_item_number(condition, row, scenarios)
        by_key = {match_key(text): k for k, (text, _) in originals[number].items()}
        texts: dict[int, str] = {}
        category: dict[int, str] = {}
        for column in option_columns:
            k = by_key.get(match_key(row[column]))
            if k is None or k in texts:
                raise ValueError(
                    f"{condition} item {number}: option {column!r} ({row[column]!r}) matches no original option"
                )
            texts[k] = clean_text(row[column])
            category[k] = column
        if sorted(texts) != sorted(originals[number]):
            raise ValueError(
                f"{condition} item {number}: options {sorted(texts)} do not cover {sorted(originals[number])}"
            )
        numbers = tuple(sorted(texts))
        types = tuple(originals[number][k][1] for k in numbers)
        target_number = by_key[match_key(row["target"])]
        if originals[number][target_number][1] != "CorrectNonLiteral":
            raise ValueError(
                f"{condition} item {number}: LLM_link's target is keyed {originals[number][target_number][1]}"
            )
        context, question = split_question(row["prompt"])
        if condition in FIXED_QUESTIONS:
            question = FIXED_QUESTIONS[condition].format(speaker=str(row.get("speaker", "")).strip())
        items.append(
            PragmaticsItem(
                condition=condition,
                item_id=f"{condition}-{number:02d}",
                item_number=number,
                task=TASKS[condition],
                context=context,
                trigger=find_trigger(condition, context),
                question=question,
                options=tuple(texts[k] for k in numbers),
                option_numbers=numbers,
                option_types=types,
                target=numbers.index(target_number),
                meta={"llm_link_number": int(row["item_number"])},
                categories=tuple(category[k] for k in numbers),
            )
        )
    return items


def load_condition(root: str | Path, condition: str) -> list[PragmaticsItem]:
    """The items of one condition, sorted by original item number."""
    _check_condition(condition)
    items = _load_coherence(root) if condition == "coherence" else _load_multiple_choice(root, condition)
    return sorted(items, key=lambda it: it.item_number)


def load_items(root: str | Path, conditions: Iterable[str] = CONDITIONS) -> list[PragmaticsItem]:
    """Items of the given conditions (all seven by default: 169 items)."""
    return [item for condition in conditions for item in load_condition(root, condition)]


def permutation(n: int, seed: int, key: str) -> tuple[int, ...]:
    """A seeded option order for one item: ``order[j]`` is the original index shown at position j."""
    return option_order(n, seed, key)


def mc_prompt(item: PragmaticsItem) -> str:
    """T, then C and Q: the item as a plain multiple-choice prompt (no answer cue)."""
    body = item.context + (f" {item.question}" if item.question else "")
    return f"{item.task}\n\n{body}"


def to_mc_items(items: Sequence[PragmaticsItem], order_seed: int | None = None, split: str = "test") -> list[MCItem]:
    """MCItems (benchmark "pragmatics"): original option order, or a seeded order per item when ``order_seed`` is set.

    ``meta`` keeps condition, option types, original numbers, the order used and the prompt parts."""
    out = []
    for item in items:
        order = (
            tuple(range(len(item.options)))
            if order_seed is None
            else permutation(len(item.options), order_seed, item.item_id)
        )
        out.append(
            MCItem(
                benchmark=BENCHMARK,
                split=split,
                item_id=item.item_id,
                prompt=mc_prompt(item),
                choices=tuple(item.options[k] for k in order),
                label=order.index(item.target),
                meta={
                    "condition": item.condition,
                    "option_types": [item.option_types[k] for k in order],
                    "option_numbers": [item.option_numbers[k] for k in order],
                    "order": list(order),
                    "order_seed": order_seed,
                    "task": item.task,
                    "context": item.context,
                    "question": item.question,
                    "trigger": item.trigger,
                    "item_number": item.item_number,
                },
            )
        )
    return out


# -- human data ------------------------------------------------------------------------------------------------


def human_responses(root: str | Path, condition: str) -> pd.DataFrame:
    """The raw responses of one condition: participant, item_number, correct, option_number (1-based, original)."""
    _check_condition(condition)
    raw = pd.read_csv(source_path(root, _human_file(condition)))
    if condition == "coherence":
        option = raw["OptionChosen"].map({"Coherent": 1, "Incoherent": 2})
    else:
        option = raw["OptionChosen"].str.extract(r"^Answer(\d+)$", expand=False).astype(float)
    if option.isna().any():
        bad = sorted(raw.loc[option.isna(), "OptionChosen"].astype(str).unique())
        raise ValueError(f"{condition}: unexpected OptionChosen values {bad}")
    return pd.DataFrame(
        {
            "condition": condition,
            "participant": raw["pKey"].astype(int),
            "item_number": raw["itemNum"].astype(int),
            "correct": raw["Correct"].astype(int),
            "option_number": option.astype(int),
        }
    )


def _option_types(root: str | Path, condition: str) -> dict[tuple[int, int], tuple[str, bool]]:
    """(item, option number) -> (type, is target) for every original item, including maxims item 13."""
    if condition == "coherence":
        out = {}
        for number, correct in coherence_key(root).items():
            out[(number, 1)] = ("Coherent", correct == "Coherent")
            out[(number, 2)] = ("Incoherent", correct == "Incoherent")
        return out
    return {
        (item, k): (kind, kind == "CorrectNonLiteral")
        for item, options in fj_options(root, condition).items()
        for k, (_, kind) in options.items()
    }


def human_choice_counts(root: str | Path, conditions: Iterable[str] = CONDITIONS) -> pd.DataFrame:
    """Per item and option: how many participants chose it, of how many responses, with type and target flag.

    Columns: condition, item_number, item_id, option_number, option_type, is_target, count, n, scored (False only for
    maxims item 13, which the language-model materials leave out). Options nobody chose have count 0."""
    frames = []
    for condition in conditions:
        responses = human_responses(root, condition)
        counts = responses.groupby(["item_number", "option_number"]).size()
        totals = responses.groupby("item_number").size()
        records = []
        for (item, k), (kind, is_target) in sorted(_option_types(root, condition).items()):
            records.append(
                {
                    "condition": condition,
                    "item_number": item,
                    "item_id": f"{condition}-{item:02d}",
                    "option_number": k,
                    "option_type": kind,
                    "is_target": is_target,
                    "count": int(counts.get((item, k), 0)),
                    "n": int(totals.get(item, 0)),
                    "scored": not (condition == "maxims" and item == MAXIMS_EXCLUDED_ITEM),
                }
            )
        frames.append(pd.DataFrame.from_records(records))
    return pd.concat(frames, ignore_index=True)


def human_item_counts(root: str | Path, conditions: Iterable[str] = CONDITIONS) -> pd.DataFrame:
    """Per item: k target choices of n responses (and the accuracy k / n)."""
    counts = human_choice_counts(root, conditions)
    target = counts[counts["is_target"]]
    out = target.groupby(["condition", "item_number", "item_id", "scored"], as_index=False).agg(
        k=("count", "sum"), n=("n", "first")
    )
    return out.assign(accuracy=out["k"] / out["n"])


def human_condition_accuracy(
    root: str | Path, items: str = "all", conditions: Iterable[str] = CONDITIONS
) -> pd.DataFrame:
    """Per condition: k target choices of n responses and the accuracy.

    ``items="all"`` pools every response of ``Human_<Ph>.csv`` (reproduces the paper's values, see the module
    docstring); ``items="scored"`` leaves out maxims item 13 (not in the language-model materials)."""
    if items not in {"all", "scored"}:
        raise ValueError("items must be 'all' or 'scored'")
    per_item = human_item_counts(root, conditions)
    if items == "scored":
        per_item = per_item[per_item["scored"]]
    out = per_item.groupby("condition", as_index=False, sort=False).agg(
        k=("k", "sum"), n=("n", "sum"), n_items=("item_number", "count")
    )
    return out.assign(accuracy=out["k"] / out["n"])


def llm_link_proportions(root: str | Path) -> pd.DataFrame:
    """LLM_link's per-item, per-option-type human proportions (6 conditions; no coherence), for cross-checks."""
    frame = pd.read_csv(source_path(root, HUMAN_PROPORTIONS_FILE))
    names = {
        "Humor": "humour",
        "Irony": "irony",
        "IndirectSpeech": "indirect_speech",
        "Deceits": "deceits",
        "Maxims": "maxims",
        "Metaphor": "metaphor",
    }
    return frame.assign(condition=frame["phenomenon"].map(names))
