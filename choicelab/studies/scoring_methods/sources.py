"""The public files of the pragmatics items and their human data, pinned by commit and checksum: downloaded by a
download rule or read from a local mirror laid out like ``../shared/data/pragmatics``.

* Item texts: ``polina-tsvilodub/LLM_link`` ``data/data_hu_<condition>.csv`` (the materials Tsvilodub et al. scored).
* Option numbers and option types: ``jennhu/lm-pragmatics`` ``fj_raw_data/<Ph>Options.txt`` and ``<Ph>KeyComplex.txt``
  (coherence: ``CoherenceInferenceKeySimple.txt``). LLM_link options are matched to the original options by their text
  (letters and digits only, case-folded: the copies differ in punctuation and quote style); LLM_link's maxims
  items 13-19 are the original items 14-20 (matched on the scenario text).
* Human data: ``jennhu/lm-pragmatics`` ``human_data/fj/Human_<Ph>.csv`` (374 participants x every item, ``Correct``
  0/1 and ``OptionChosen`` = ``AnswerK`` / ``Coherent`` / ``Incoherent``).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from choicelab.mc.commonsense import RemoteFile

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


def items_file(condition: str) -> str:
    return f"pragmatics/LLM_link/data/data_hu_{condition}.csv"


def fj_file(condition: str, kind: str) -> str:
    return f"pragmatics/lm-pragmatics/fj_raw_data/{PHENOMENON[condition]}{kind}.txt"


def human_file(condition: str) -> str:
    return f"pragmatics/lm-pragmatics/human_data/fj/Human_{PHENOMENON[condition]}.csv"


HUMAN_PROPORTIONS_FILE = "pragmatics/LLM_link/data/human_results/human_response_proportions.csv"
