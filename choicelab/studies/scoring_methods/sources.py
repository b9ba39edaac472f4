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


def _common_root(paths: Iterable[str | Path], files: Iterable[str], what: str) -> Path:
    """The one folder ``paths`` lie under, where each path ends with one of ``files`` and every one of ``files`` is
    among them; ``what`` names the files in the error."""
    files = set(files)
    roots, found = set(), set()
    for path in map(str, paths):
        key = next((k for k in files if path == k or path.endswith("/" + k)), None)
        if key is None:
            raise ValueError(f"{path} is not one of the {what} (known: {sorted(files)[:3]}...)")
        found.add(key)
        roots.add(path[: -len(key)].rstrip("/") or ".")
    missing = sorted(files - found)
    if missing or len(roots) != 1:
        raise ValueError(f"the {what} must all lie under one folder; missing {missing[:3]}, roots {roots}")
    return Path(roots.pop())


def source_root(paths: Iterable[str | Path]) -> Path:
    """The folder the source files ``paths`` lie under (a mirror or the download rules' folder): each path ends with
    a :data:`SOURCES` key, and every source must be among them (a rule declares them all as inputs)."""
    return _common_root(paths, SOURCES, "pragmatics source files")


def items_file(condition: str) -> str:
    return f"pragmatics/LLM_link/data/data_hu_{condition}.csv"


def fj_file(condition: str, kind: str) -> str:
    return f"pragmatics/lm-pragmatics/fj_raw_data/{PHENOMENON[condition]}{kind}.txt"


def human_file(condition: str) -> str:
    return f"pragmatics/lm-pragmatics/human_data/fj/Human_{PHENOMENON[condition]}.csv"


HUMAN_PROPORTIONS_FILE = "pragmatics/LLM_link/data/human_results/human_response_proportions.csv"


# The authors' hand-coded free generations (LLM_link ``results/free/<model>/seed<k>/temperature<tt>/``, every file
# at the commit above, byte copies and interleaved files included: human.hand_code_report says which are used).
_HAND_CODE_FILES = [
    ("LLM_link/results/free/flan-t5-xl/seed0/temperature01/data_hu_coherence_free_temp0.1_seed1_20231006_1403_annotated.csv",
     "b33b5ffbf42f240b7c057d1dda739a09afe168e0cb0db8e591febbbda5fb5e91"),
    ("LLM_link/results/free/flan-t5-xl/seed0/temperature01/data_hu_deceits_free_temp0.1_seed1_20231006_1436_annotated.csv",
     "3b2e284010ab4365550e5ee6840195b78db0a6ca3c6941bb2ce5938fd1d35e8a"),
    ("LLM_link/results/free/flan-t5-xl/seed0/temperature01/data_hu_humour_free_temp0.1_seed1_20231006_1452_annotated.csv",
     "4b09320eb6e517cfd8766e957f52ba9ef1008561cf908134db4246e2d3ce3da8"),
    ("LLM_link/results/free/flan-t5-xl/seed0/temperature01/data_hu_indirect_speech_free_temp0.1_seed1_20231006_1508_annotated.csv",
     "208be05b0529e695c96556ea26bc083bdc8853eb9b3acdfc7477ad3f84197da7"),
    ("LLM_link/results/free/flan-t5-xl/seed0/temperature01/data_hu_irony_free_temp0.1_seed1_20231006_1512_annotated.csv",
     "de9be683e9bffec3862c62ff04f52cefe07a0fa52f20fa8764564fe41b2fba55"),
    ("LLM_link/results/free/flan-t5-xl/seed0/temperature01/data_hu_maxims_free_temp0.1_seed1_20231006_1517_annotated.csv",
     "ec4254926b6a588ad658d50f89b892d567e9a4090d8f7ce95af12d1b6e958364"),
    ("LLM_link/results/free/flan-t5-xl/seed0/temperature01/data_hu_metaphor_free_temp0.1_seed1_20231006_1520_annotated.csv",
     "ff566d78d22ef1a27d38370f2a43dc08201aa3ee40ef4950ffb37a18294cd2af"),
    ("LLM_link/results/free/flan-t5-xl/seed0/temperature09/data_hu_coherence_free_temp0.9_seed0_20231007_2256_annotated.csv",
     "504a8c04fc7dddfab3ba7243344910361cd471389690bc116f370f6c0f239556"),
    ("LLM_link/results/free/flan-t5-xl/seed0/temperature09/data_hu_deceits_free_temp0.9_seed0_20231007_2313_annotated.csv",
     "8be1084cc2a41fcbaf908ce8ec6a2fd08448dc389efa46b050a97dc536c89f72"),
    ("LLM_link/results/free/flan-t5-xl/seed0/temperature09/data_hu_humour_free_temp0.9_seed0_20231007_2323_annotated.csv",
     "9584df375613076a2c9ea47aa65366dfb61095d07d770018f301bf7eca3936f6"),
    ("LLM_link/results/free/flan-t5-xl/seed0/temperature09/data_hu_indirect_speech_free_temp0.9_seed0_20231007_2334_annotated.csv",
     "fa5ff21290c049e95246804a7d4306ddea4bbabae945467107a3a41114fe3842"),
    ("LLM_link/results/free/flan-t5-xl/seed0/temperature09/data_hu_irony_free_temp0.9_seed0_20231007_2343_annotated.csv",
     "aba58b2893cc1a0af491b8a5c46a375fe40d2072fd0aa5da5805524f8c4c1f80"),
    ("LLM_link/results/free/flan-t5-xl/seed0/temperature09/data_hu_maxims_free_temp0.9_seed0_20231007_2355_annotated.csv",
     "57a48a17a7eaf11152804c20afaf197d4ce63c60926ea60ae62f699ba3cae9ae"),
    ("LLM_link/results/free/flan-t5-xl/seed0/temperature09/data_hu_metaphor_free_temp0.9_seed0_20231008_0003_annotated.csv",
     "6d99f2d0de2d7ad08ebb3095a1aeed9d1c8ce0baf9d2960ac5881529c143e261"),
    ("LLM_link/results/free/flan-t5-xl/seed1/temperature01/data_hu_coherence_free_temp0.1_seed1_20231006_1403_annotated.csv",
     "b33b5ffbf42f240b7c057d1dda739a09afe168e0cb0db8e591febbbda5fb5e91"),
    ("LLM_link/results/free/flan-t5-xl/seed1/temperature01/data_hu_deceits_free_temp0.1_seed1_20231006_1436_annotated.csv",
     "3b2e284010ab4365550e5ee6840195b78db0a6ca3c6941bb2ce5938fd1d35e8a"),
    ("LLM_link/results/free/flan-t5-xl/seed1/temperature01/data_hu_humour_free_temp0.1_seed1_20231006_1452_annotated.csv",
     "4b09320eb6e517cfd8766e957f52ba9ef1008561cf908134db4246e2d3ce3da8"),
    ("LLM_link/results/free/flan-t5-xl/seed1/temperature01/data_hu_indirect_speech_free_temp0.1_seed1_20231006_1508_annotated.csv",
     "208be05b0529e695c96556ea26bc083bdc8853eb9b3acdfc7477ad3f84197da7"),
    ("LLM_link/results/free/flan-t5-xl/seed1/temperature01/data_hu_irony_free_temp0.1_seed1_20231006_1512_annotated.csv",
     "de9be683e9bffec3862c62ff04f52cefe07a0fa52f20fa8764564fe41b2fba55"),
    ("LLM_link/results/free/flan-t5-xl/seed1/temperature01/data_hu_maxims_free_temp0.1_seed1_20231006_1517_annotated.csv",
     "ec4254926b6a588ad658d50f89b892d567e9a4090d8f7ce95af12d1b6e958364"),
    ("LLM_link/results/free/flan-t5-xl/seed1/temperature01/data_hu_metaphor_free_temp0.1_seed1_20231006_1520_annotated.csv",
     "ff566d78d22ef1a27d38370f2a43dc08201aa3ee40ef4950ffb37a18294cd2af"),
    ("LLM_link/results/free/flan-t5-xl/seed1/temperature09/data_hu_coherence_free_temp0.9_seed1_20231007_2256_annotated.csv",
     "8c6a7d3e107820ba83816b2b9c92737bc43b22a89bf1f55ddd57fad9efd9dd80"),
    ("LLM_link/results/free/flan-t5-xl/seed1/temperature09/data_hu_deceits_free_temp0.9_seed1_20231007_2313_annotated.csv",
     "21fcdbd9bfafe6c4df228b33842baa150333eb34f4b284b22f02d819fb86daaf"),
    ("LLM_link/results/free/flan-t5-xl/seed1/temperature09/data_hu_humour_free_temp0.9_seed1_20231007_2323_annotated.csv",
     "296382a0816b7b452715482aee0870c3c4df7df2c9ad01525c285ee8bdb55fef"),
    ("LLM_link/results/free/flan-t5-xl/seed1/temperature09/data_hu_indirect_speech_free_temp0.9_seed1_20231007_2334_annotated.csv",
     "28bb19af539253a9fd5c4713eaa1ae83ffacc3c8c2f6ba07d402d5118ed1d7fe"),
    ("LLM_link/results/free/flan-t5-xl/seed1/temperature09/data_hu_irony_free_temp0.9_seed1_20231007_2343_annotated.csv",
     "3100209f4c600a8752710ec8721064a4effe043de846196cd4c9329dcf869e70"),
    ("LLM_link/results/free/flan-t5-xl/seed1/temperature09/data_hu_maxims_free_temp0.9_seed1_20231007_2355_annotated.csv",
     "c1dad56f30d6d863df86211e430a78ca5d62ffe08f2b63d8e13e5a7a92865080"),
    ("LLM_link/results/free/flan-t5-xl/seed1/temperature09/data_hu_metaphor_free_temp0.9_seed1_20231008_0003_annotated.csv",
     "5071f90e4073eb23cb5b892b8411848544ed740c44aed9eac886cc18bc2cc15e"),
    ("LLM_link/results/free/flan-t5-xl/seed2/temperature01/data_hu_coherence_free_temp0.1_seed2_20231006_1403_annotated.csv",
     "18aa392cf1af5df79aaf4b89be1ad87019011df00f93cd898f35bed319af498d"),
    ("LLM_link/results/free/flan-t5-xl/seed2/temperature01/data_hu_deceits_free_temp0.1_seed2_20231006_1436_annotated.csv",
     "7b98ada98dcb4ce7c44db96332e8f79fe8b5519b57aa33c36410620e093d5565"),
    ("LLM_link/results/free/flan-t5-xl/seed2/temperature01/data_hu_humour_free_temp0.1_seed2_20231006_1452_annotated.csv",
     "8b5337a10495d56ee15380d4ea7a43ccd6362c9c4d2dd1aa1a8d23bced1387b5"),
    ("LLM_link/results/free/flan-t5-xl/seed2/temperature01/data_hu_indirect_speech_free_temp0.1_seed2_20231006_1508_annotated.csv",
     "03283675c837f8319b4c8ccefc3023bf1b581e059c91e087a6152721d625f3ac"),
    ("LLM_link/results/free/flan-t5-xl/seed2/temperature01/data_hu_irony_free_temp0.1_seed2_20231006_1512_annotated.csv",
     "09efc0319ea60155a5e847079ab4c2d5636439738d086db9ec039385e8641fdf"),
    ("LLM_link/results/free/flan-t5-xl/seed2/temperature01/data_hu_maxims_free_temp0.1_seed2_20231006_1517_annotated.csv",
     "e37bda3d8c668ce51bb5190e85710e3de473445a7cbccd7d5013712f5a0f2b86"),
    ("LLM_link/results/free/flan-t5-xl/seed2/temperature01/data_hu_metaphor_free_temp0.1_seed2_20231006_1520_annotated.csv",
     "4f10630efe1480280209b3ee63f027656d7b876459283598a69232bdc3fdd85b"),
    ("LLM_link/results/free/flan-t5-xl/seed2/temperature09/data_hu_coherence_free_temp0.9_seed2_20231007_2256_annotated.csv",
     "f699ccc7da104597cd5beff14d51f7eb512114b91ecb4d8d72711dc8b23f76bc"),
    ("LLM_link/results/free/flan-t5-xl/seed2/temperature09/data_hu_deceits_free_temp0.9_seed2_20231007_2313_annotated.csv",
     "6c09b4196a56a5a177620c87223925b7dde583c425f708124b37c368c1c3565a"),
    ("LLM_link/results/free/flan-t5-xl/seed2/temperature09/data_hu_humour_free_temp0.9_seed2_20231007_2323_annotated.csv",
     "cae82897035337e87d2246bd3da8a6587019eb707456e73e4160f47659472d02"),
    ("LLM_link/results/free/flan-t5-xl/seed2/temperature09/data_hu_indirect_speech_free_temp0.9_seed2_20231007_2334_annotated.csv",
     "e72d74002980b7484bad618a9e07c85b6bc196aff30836869fe9b388d0469d2f"),
    ("LLM_link/results/free/flan-t5-xl/seed2/temperature09/data_hu_irony_free_temp0.9_seed2_20231007_2343_annotated.csv",
     "595b67c052ff0b6816bea30037cdeab7c6fe653b35e7f7a869479762e2ddbfde"),
    ("LLM_link/results/free/flan-t5-xl/seed2/temperature09/data_hu_maxims_free_temp0.9_seed2_20231007_2355_annotated.csv",
     "653e5457144d7aa347826f9decbaf47fb60d07e31cd8db5309c3af8ee9bc91e7"),
    ("LLM_link/results/free/flan-t5-xl/seed2/temperature09/data_hu_metaphor_free_temp0.9_seed2_20231008_0003_annotated.csv",
     "77968e0b657d7b2501b13b20c43f1576e1ca396b10bbf561c16e39e5961732c3"),
    ("LLM_link/results/free/flan-t5-xl/seed3/temperature01/data_hu_coherence_free_temp0.1_seed3_20231006_1403_annotated.csv",
     "8513535e7aba8c0857695b8385b5b379c69ac05eb5be59b952b19e963abb13ef"),
    ("LLM_link/results/free/flan-t5-xl/seed3/temperature01/data_hu_deceits_free_temp0.1_seed3_20231006_1436_annotated.csv",
     "6418851c803c41c8684a5496de532db074b69025a74e7494fe2758135b353304"),
    ("LLM_link/results/free/flan-t5-xl/seed3/temperature01/data_hu_humour_free_temp0.1_seed3_20231006_1452_annotated.csv",
     "35011d6d7f67b0e7b18092150c24810365ee601e9f1dcf6c25776253f3b3720b"),
    ("LLM_link/results/free/flan-t5-xl/seed3/temperature01/data_hu_indirect_speech_free_temp0.1_seed3_20231006_1508_annotated.csv",
     "b666e1373a369db512cc0c935edf55e53dd88fa9bd102b13d2625c5eeeb9e390"),
    ("LLM_link/results/free/flan-t5-xl/seed3/temperature01/data_hu_irony_free_temp0.1_seed3_20231006_1512_annotated.csv",
     "43ceb04e68009cf146bc534594c57d86fef95afc1fbb5d377cf51d1cc2c1a2a4"),
    ("LLM_link/results/free/flan-t5-xl/seed3/temperature01/data_hu_maxims_free_temp0.1_seed3_20231006_1517_annotated.csv",
     "360bcfd923dc00e1b2c0a772bfe3c0b762f3a19d275d60235f088c62c0fbd96e"),
    ("LLM_link/results/free/flan-t5-xl/seed3/temperature01/data_hu_metaphor_free_temp0.1_seed3_20231006_1520_annotated.csv",
     "d733e2e48f31b4bc7c1109c35540b43e549474aa6d230c5d64de93023d5ebe04"),
    ("LLM_link/results/free/flan-t5-xl/seed3/temperature09/data_hu_coherence_free_temp0.9_seed3_20231007_2256_annotated.csv",
     "aa7493baa23ac1253f3052de97bf192e55f687c9ad545b02bcaa2bfac71cc9c6"),
    ("LLM_link/results/free/flan-t5-xl/seed3/temperature09/data_hu_deceits_free_temp0.9_seed3_20231007_2313_annotated.csv",
     "94bb3dbc5ddf134a6876431aff470c5890785ab69b392923541dcb7654b1d138"),
    ("LLM_link/results/free/flan-t5-xl/seed3/temperature09/data_hu_humour_free_temp0.9_seed3_20231007_2323_annotated.csv",
     "7ad25030203fb2313af51ba36947cc59f4a964f9a61317138f488ad05cd46ece"),
    ("LLM_link/results/free/flan-t5-xl/seed3/temperature09/data_hu_indirect_speech_free_temp0.9_seed3_20231007_2334_annotated.csv",
     "6d3e5dc8d958d949729b34c7f84cffe056ac18a8a0be0e630e9ab4e067285cc5"),
    ("LLM_link/results/free/flan-t5-xl/seed3/temperature09/data_hu_irony_free_temp0.9_seed3_20231007_2343_annotated.csv",
     "9aecb5f01cec2faea18bd1cb7d080fe76d8652d8830bbb22dc3022249f1cfa87"),
    ("LLM_link/results/free/flan-t5-xl/seed3/temperature09/data_hu_maxims_free_temp0.9_seed3_20231007_2355_annotated.csv",
     "cf3bcfef2300fcdc1216cd9c085c9149301a98e869120ba09f75a2a182139035"),
    ("LLM_link/results/free/flan-t5-xl/seed3/temperature09/data_hu_metaphor_free_temp0.9_seed3_20231008_0003_annotated.csv",
     "fe18f26ddd530e4ca4b4ff25265847318c1e4389d5fabcaa91b498786b44b9fa"),
    ("LLM_link/results/free/flan-t5-xl/seed4/temperature01/data_hu_coherence_free_temp0.1_seed4_20231006_1403_annotated.csv",
     "9aad9152877dfd1edc6bfc89e9d80836570f924aee3823273d957ebe19b67691"),
    ("LLM_link/results/free/flan-t5-xl/seed4/temperature01/data_hu_deceits_free_temp0.1_seed4_20231006_1436_annotated.csv",
     "67eab877ae1ed925eef23e433d1b9591ba0ca0a9b50d3e190c9fcde6913ecc10"),
    ("LLM_link/results/free/flan-t5-xl/seed4/temperature01/data_hu_humour_free_temp0.1_seed4_20231006_1452_annotated.csv",
     "2b1351e5e27f05b6c124451c5669aba9d45a330d1fc292ca61b29ff170e04f3a"),
    ("LLM_link/results/free/flan-t5-xl/seed4/temperature01/data_hu_indirect_speech_free_temp0.1_seed4_20231006_1508_annotated.csv",
     "e1ca22f71c5e8413bc4cbbb7259c722df916830356221804dc784d8f4c3056c4"),
    ("LLM_link/results/free/flan-t5-xl/seed4/temperature01/data_hu_irony_free_temp0.1_seed4_20231006_1512_annotated.csv",
     "a042fbf9638f8431eb2246aad9b71cdcc460cbae0d3d8cab029ca77c720b2910"),
    ("LLM_link/results/free/flan-t5-xl/seed4/temperature01/data_hu_maxims_free_temp0.1_seed4_20231006_1517_annotated.csv",
     "fa6b5b490cdca0803600deb42579460edf4ed74e5d8d5b5c3220e873537d6e57"),
    ("LLM_link/results/free/flan-t5-xl/seed4/temperature01/data_hu_metaphor_free_temp0.1_seed4_20231006_1520_annotated.csv",
     "5aa43400d07ed66be27f893480b813ded29c1c7b82391ebe1176694ada23b8d3"),
    ("LLM_link/results/free/flan-t5-xl/seed4/temperature09/data_hu_coherence_free_temp0.9_seed4_20231007_2256_annotated.csv",
     "c23cbbdbbb7a1e1a80415e29409ea423391d8cfb8b421152c23198063e8a488c"),
    ("LLM_link/results/free/flan-t5-xl/seed4/temperature09/data_hu_deceits_free_temp0.9_seed4_20231007_2313_annotated.csv",
     "9b687feb2289b756b113d85963725c3b92861348555013cb02c54b64cdff718b"),
    ("LLM_link/results/free/flan-t5-xl/seed4/temperature09/data_hu_humour_free_temp0.9_seed4_20231007_2323_annotated.csv",
     "bb21a5325f4f45b977d32b12e221b25172e9ef7bd164919b286acfde4b42c254"),
    ("LLM_link/results/free/flan-t5-xl/seed4/temperature09/data_hu_indirect_speech_free_temp0.9_seed4_20231007_2334_annotated.csv",
     "74fe637a08228f7bde02c55c55d943c4e8e554f22baf941675a288b7b76f9dda"),
    ("LLM_link/results/free/flan-t5-xl/seed4/temperature09/data_hu_irony_free_temp0.9_seed4_20231007_2343_annotated.csv",
     "92bdbd22050cc8553825f22e74fe66e4e7b29836db8dda8c3c9ed92c878d43ce"),
    ("LLM_link/results/free/flan-t5-xl/seed4/temperature09/data_hu_maxims_free_temp0.9_seed4_20231007_2355_annotated.csv",
     "af5ced7d1c48f4e19710e0a9c63bd3b7fbc31be52af0cb15ed2b86a2b892966d"),
    ("LLM_link/results/free/flan-t5-xl/seed4/temperature09/data_hu_metaphor_free_temp0.9_seed4_20231008_0003_annotated.csv",
     "b5c2caf490baadb50da6f0dd35bfc53e9ab6432108734fc0d1c730ca3dc89f62"),
    ("LLM_link/results/free/llama2/seed0/temperature01/data_hu_coherence_free_temp0.1_seed0_20231002_2258_annotated.csv",
     "4ec52eebd8135d4eca4e10f99f33c6a9db03093171948ee9928ca699c4fd0fb3"),
    ("LLM_link/results/free/llama2/seed0/temperature01/data_hu_deceits_free_temp0.1_seed0_20231002_2302_annotated.csv",
     "52c5b0f205191d0bae438a97c145f31a07dcbcc3420754b893cc40caa79e6be0"),
    ("LLM_link/results/free/llama2/seed0/temperature01/data_hu_humour_free_temp0.1_seed0_20231002_2304_annotated.csv",
     "5586b61a3eeecbb4857a32b015ccc54db1f0a844103b88b29ca9c97130352f5f"),
    ("LLM_link/results/free/llama2/seed0/temperature01/data_hu_indirect_speech_free_temp0.1_seed0_20231002_2307_annotated.csv",
     "3b0fcade6dc458c4be718b6071a233c7ab213e38acd608197de45a67ad2f6b74"),
    ("LLM_link/results/free/llama2/seed0/temperature01/data_hu_irony_free_temp0.1_seed0_20231002_2309_annotated.csv",
     "e8ccb11a938062e57685c92fd79c5ecd394a19e65f6df68473ad1d37ccf114fe"),
    ("LLM_link/results/free/llama2/seed0/temperature01/data_hu_maxims_free_temp0.1_seed0_20231002_2311_annotated.csv",
     "5e1a588dbfa8b926b00b2e536db67271d291e1b391b7d5ef08e0ac76cd050336"),
    ("LLM_link/results/free/llama2/seed0/temperature01/data_hu_metaphor_free_temp0.1_seed0_20231002_2314_annotated.csv",
     "2e26f30de92607edefb490943fb57edb2bc9d0700040db028ac5533059b2649a"),
    ("LLM_link/results/free/llama2/seed0/temperature09/data_hu_coherence_free_temp0.9_seed0_20231001_1328_annotated.csv",
     "7abe9e00fa40e70c4d28bb9d7ead0cef026465a3bbd716578d6c1709f9818c12"),
    ("LLM_link/results/free/llama2/seed0/temperature09/data_hu_deceits_free_temp0.9_seed0_20231003_0602_annotated.csv",
     "5ed23b2b232ff7e8d6cf0de01398cc55fd350ca9c7e7c48638201d901fd3b9f1"),
    ("LLM_link/results/free/llama2/seed0/temperature09/data_hu_humour_free_temp0.9_seed0_20231001_1335_annotated.csv",
     "5473bd5ee82152978b0664297aefe5afecb89fe7a19fc4d133970198c04c8bd5"),
    ("LLM_link/results/free/llama2/seed0/temperature09/data_hu_indirect_speech_free_temp0.9_seed0_20231001_1337_annotated.csv",
     "e5a18b771f82660d65965bc97fefee792ec1370fe33a10636afab6a465253559"),
    ("LLM_link/results/free/llama2/seed0/temperature09/data_hu_irony_free_temp0.9_seed0_20231001_1339_annotated.csv",
     "e2f6a1f1ac65665c507156b65a7bfacad0f43bcde6c5409e0e81a9f5fb13c204"),
    ("LLM_link/results/free/llama2/seed0/temperature09/data_hu_maxims_free_temp0.9_seed0_20231001_1342_annotated.csv",
     "59e71abae8b3ddbacd42b6b259ad6c1dc22d399fd753cae81cc2329ebc5a01e0"),
    ("LLM_link/results/free/llama2/seed0/temperature09/data_hu_metaphor_free_temp0.9_seed0_20231001_1344_annotated.csv",
     "dd7a6038f5688a9c74c92ab433d7c5771aa94258bd5640348d3abb2897a30c93"),
    ("LLM_link/results/free/llama2/seed1/temperature01/data_hu_coherence_free_temp0.1_seed1_20231003_0714_annotated.csv",
     "f3212208f7d83ec7a75ca3297dc7d22fa7f2c964ec2c2b5e903b280925d99ee3"),
    ("LLM_link/results/free/llama2/seed1/temperature01/data_hu_deceits_free_temp0.1_seed1_20231003_0731_annotated.csv",
     "2318489920f40d1968031bf5a2dd469f106be1bb35bdba751187e91393ca6367"),
    ("LLM_link/results/free/llama2/seed1/temperature01/data_hu_humour_free_temp0.1_seed1_20231003_0738_annotated.csv",
     "da8e21537e11a5548148988bc15c2e68c79a56544e9cbc8a8dc803a4ad4bc91b"),
    ("LLM_link/results/free/llama2/seed1/temperature01/data_hu_indirect_speech_free_temp0.1_seed1_20231003_0749_annotated.csv",
     "ff1058f214f5e8d423351b0745dbef88b29007ab666af457eb604cdf5dca9b01"),
    ("LLM_link/results/free/llama2/seed1/temperature01/data_hu_irony_free_temp0.1_seed1_20231003_0756_annotated.csv",
     "8516289617d4f035a9e4f4586195d3327475484b4252b8259711571ff19b65ad"),
    ("LLM_link/results/free/llama2/seed1/temperature01/data_hu_maxims_free_temp0.1_seed1_20231003_0805_annotated.csv",
     "1ace4453e5850404343991b65e82e4877786b0b0d44040c878c82583d2b76e81"),
    ("LLM_link/results/free/llama2/seed1/temperature01/data_hu_metaphor_free_temp0.1_seed1_20231003_0813_annotated.csv",
     "224aa77d076aba73914b648d5855fdd04a324b1946cd08122b362ab509f73a84"),
    ("LLM_link/results/free/llama2/seed1/temperature09/data_hu_coherence_free_temp0.9_seed1_20231003_0826_annotated.csv",
     "91fe7c73ec1a030fdefff158228a6c92d8971d291d69f92099674054cf0095c7"),
    ("LLM_link/results/free/llama2/seed1/temperature09/data_hu_deceits_free_temp0.9_seed1_20231003_0842_annotated.csv",
     "0dabe1753296828e7b21c8f1f1e74fd76772b01682a6a4f7f9080345fc71ae7b"),
    ("LLM_link/results/free/llama2/seed1/temperature09/data_hu_indirect_speech_free_temp0.9_seed1_20231003_0900_annotated.csv",
     "0d64b606bab67fbde4d21dec9897b282317cce7849c38d21c6871386435daf2d"),
    ("LLM_link/results/free/llama2/seed1/temperature09/data_hu_irony_free_temp0.9_seed1_20231003_0908_annotated.csv",
     "78ec3f37fedfceb83bcbed05f483907ea461ca96bf5b04128992089bef47710b"),
    ("LLM_link/results/free/llama2/seed1/temperature09/data_hu_maxims_free_temp0.9_seed1_20231003_0918_annotated.csv",
     "e094235009670797c397254d0dae41389095639044d31a773920a278e2a35f98"),
    ("LLM_link/results/free/llama2/seed1/temperature09/data_hu_metaphor_free_temp0.9_seed1_20231003_0925_annotated.csv",
     "19a20c31090b90d4a2d74901435866bd0c114a7964aba6a4a17a2ad21528e5bc"),
    ("LLM_link/results/free/llama2/seed2/temperature01/data_hu_coherence_free_temp0.1_seed2_20231003_0714_annotated.csv",
     "b1f68ffea636b5a8171481647a5d0d78de4adc828747cb977622489a015d0051"),
    ("LLM_link/results/free/llama2/seed2/temperature01/data_hu_deceits_free_temp0.1_seed2_20231003_0731_annotated.csv",
     "66a0a4ad4ffdbfb1dc1e77cd3ec7dbfd90586fb918f47cb40a1698563e2ffa3c"),
    ("LLM_link/results/free/llama2/seed2/temperature01/data_hu_humour_free_temp0.1_seed2_20231003_0738_annotated.csv",
     "d7d37f66c7b8c65b7f63c78e07bfe6913a840327ce1c6949f04b4ebf7d9faff1"),
    ("LLM_link/results/free/llama2/seed2/temperature01/data_hu_indirect_speech_free_temp0.1_seed2_20231003_0749_annotated.csv",
     "e820c342a8bc80800f9de691cc543ec1aca6321539dbdb87a4b9a3437d4db981"),
    ("LLM_link/results/free/llama2/seed2/temperature01/data_hu_irony_free_temp0.1_seed2_20231003_0756_annotated.csv",
     "ee57ddf58a060868e2893d157a6ee59dc23245b55365afee0d48031db99e616f"),
    ("LLM_link/results/free/llama2/seed2/temperature01/data_hu_maxims_free_temp0.1_seed2_20231003_0805_annotated.csv",
     "20a58ed07a65e976cae61c3676ad74a34606dea42363c6d2f5c368b4d9b5e300"),
    ("LLM_link/results/free/llama2/seed2/temperature01/data_hu_metaphor_free_temp0.1_seed2_20231003_0813_annotated.csv",
     "5d353054596a99cda871d76de452d346308457275a40e09dedab673da10250b8"),
    ("LLM_link/results/free/llama2/seed2/temperature09/data_hu_coherence_free_temp0.9_seed2_20231003_0826_annotated.csv",
     "d132884aeaf3b35ae7e66540bf9c8e6157579e8562638ec66ee192787ca0423b"),
    ("LLM_link/results/free/llama2/seed2/temperature09/data_hu_deceits_free_temp0.9_seed2_20231003_0842_annotated.csv",
     "9e99bfd6a3d411cab9a4940991001d576076d2894705be9c549f06b0c700a9fe"),
    ("LLM_link/results/free/llama2/seed2/temperature09/data_hu_indirect_speech_free_temp0.9_seed2_20231003_0900_annotated.csv",
     "6d790aef2479d68ab481a14dfdbf91e2d3fc86787706d94115ab605bcc732317"),
    ("LLM_link/results/free/llama2/seed2/temperature09/data_hu_irony_free_temp0.9_seed2_20231003_0908_annotated.csv",
     "c59abe7bf31531fbc474f13fd52bc313fad19d70ac341f27736b57b76a0bec98"),
    ("LLM_link/results/free/llama2/seed2/temperature09/data_hu_maxims_free_temp0.9_seed2_20231003_0918_annotated.csv",
     "124cfeb9eeaa6802d38fd0a90d5ef266174a37f2ccfc33c79e3ec11602e964b2"),
    ("LLM_link/results/free/llama2/seed2/temperature09/data_hu_metaphor_free_temp0.9_seed2_20231003_0925_annotated.csv",
     "e965b5b73714795bed4a65018d4a1f71972c0492ee957c368285325a3b90f6bd"),
    ("LLM_link/results/free/llama2/seed3/temperature01/data_hu_coherence_free_temp0.1_seed3_20231003_0714_annotated.csv",
     "304d8b1d42421a4648354e3d9e7152b4fe8a294a94ea4bd5efc600c9731ead86"),
    ("LLM_link/results/free/llama2/seed3/temperature01/data_hu_deceits_free_temp0.1_seed3_20231003_0731_annotated.csv",
     "35edd84a7ce55c16be6f801edded71a613928ea75b502e104ceaddb9c015ee69"),
    ("LLM_link/results/free/llama2/seed3/temperature01/data_hu_humour_free_temp0.1_seed3_20231003_0738_annotated.csv",
     "932fb4cdbb9d9a379d4ef0f1bc2588b06baa5afe5a11ba1beb6729f8bf48ed17"),
    ("LLM_link/results/free/llama2/seed3/temperature01/data_hu_indirect_speech_free_temp0.1_seed3_20231003_0749_annotated.csv",
     "e1943b2b4f59e64ad057da4282299d785d833604d238ac4c4dc6eb87d854110c"),
    ("LLM_link/results/free/llama2/seed3/temperature01/data_hu_irony_free_temp0.1_seed3_20231003_0756_annotated.csv",
     "7fb69009c74c8fd82d4ffb132dde4b2c90b0d203c3d55e3eb19f960b975a8272"),
    ("LLM_link/results/free/llama2/seed3/temperature01/data_hu_maxims_free_temp0.1_seed3_20231003_0805_annotated.csv",
     "7c931753d2ab8cee73db167e92ba1625274253b62995b0334dc38f8c5c947bef"),
    ("LLM_link/results/free/llama2/seed3/temperature01/data_hu_metaphor_free_temp0.1_seed3_20231003_0813_annotated.csv",
     "756a5920df287a16e08fb83195fbd48f9f067c80584729e9c5f68483cfb9733a"),
    ("LLM_link/results/free/llama2/seed3/temperature09/data_hu_coherence_free_temp0.9_seed3_20231003_0826_annotated.csv",
     "0b507814208aae6fa85a0e131dbbf69c0a46a07c481932160aef6f8b443e23ab"),
    ("LLM_link/results/free/llama2/seed3/temperature09/data_hu_deceits_free_temp0.9_seed3_20231003_0842_annotated.csv",
     "455c763c1cbb48c6b98ba7a63ee2a20f29ddb8cd6c3017c17cc82655ace4d2f9"),
    ("LLM_link/results/free/llama2/seed3/temperature09/data_hu_indirect_speech_free_temp0.9_seed3_20231003_0900_annotated.csv",
     "cea5ea081c74b7d91834939a414f3d336da14439d489997e3b0815b5ffb4ed7e"),
    ("LLM_link/results/free/llama2/seed3/temperature09/data_hu_irony_free_temp0.9_seed3_20231003_0908_annotated.csv",
     "abf6d822bac7edcbca79c80d6c267c084d90b74207ea26ad885373c958f1f8a0"),
    ("LLM_link/results/free/llama2/seed3/temperature09/data_hu_maxims_free_temp0.9_seed3_20231003_0918_annotated.csv",
     "698b34f69d321493920fa80ac7b34ba6f65fd166c78e3f18b3269ad482969bc9"),
    ("LLM_link/results/free/llama2/seed3/temperature09/data_hu_metaphor_free_temp0.9_seed3_20231003_0925_annotated.csv",
     "c2d9d1cd8e3983360c57e6dcd449d20e7a2aad42bb631d0d9ba8c68ded7c1a44"),
    ("LLM_link/results/free/llama2/seed4/temperature01/data_hu_coherence_free_temp0.1_seed4_20231003_0714_annotated.csv",
     "38bf383398da3f026b945fe3af5bdc81b4fd5fba5c38f9e197938e4b4d93d422"),
    ("LLM_link/results/free/llama2/seed4/temperature01/data_hu_deceits_free_temp0.1_seed4_20231003_0731_annotated.csv",
     "093bf4969c9f448bcd9e99332a5b322b2ce695d3fdf5f77223992133e004529f"),
    ("LLM_link/results/free/llama2/seed4/temperature01/data_hu_humour_free_temp0.1_seed4_20231003_0738_annotated.csv",
     "88c9a5f8a4e8be2169e47b5eeb1eaff480dd8d8ae044282b1e3cf2692df4c248"),
    ("LLM_link/results/free/llama2/seed4/temperature01/data_hu_indirect_speech_free_temp0.1_seed4_20231003_0749_annotated.csv",
     "2dbdd42c98c219e8fa62a2d676ed403332cbd462a7739c952ceac1ffc1af4e37"),
    ("LLM_link/results/free/llama2/seed4/temperature01/data_hu_irony_free_temp0.1_seed4_20231003_0756_annotated.csv",
     "7d3f4d24d8d6fc752aa3e62defaa61b81123d4771091a68eeb1bf03f493c7607"),
    ("LLM_link/results/free/llama2/seed4/temperature01/data_hu_maxims_free_temp0.1_seed4_20231003_0805_annotated.csv",
     "cffc329e2333d621c45a1cdaa70f784b6ae71ce61eccf764a2c9688a2e3cf770"),
    ("LLM_link/results/free/llama2/seed4/temperature01/data_hu_metaphor_free_temp0.1_seed4_20231003_0813_annotated.csv",
     "35bdb7c214dcf423180f3f0db6a614e312da0e80bf66fa981bb5177ed5e4f73d"),
    ("LLM_link/results/free/llama2/seed4/temperature09/data_hu_coherence_free_temp0.9_seed4_20231003_0826_annotated.csv",
     "94b7dec2949f99f44881f0ab3ad7fa8c8986a3349eda42b515cbb1c89cd6479b"),
    ("LLM_link/results/free/llama2/seed4/temperature09/data_hu_deceits_free_temp0.9_seed4_20231003_0842_annotated.csv",
     "ef501f6fefcb932044f3501ea99a93b2f6c997408f15b2d3cc7d46c97175c625"),
    ("LLM_link/results/free/llama2/seed4/temperature09/data_hu_indirect_speech_free_temp0.9_seed4_20231003_0900_annotated.csv",
     "fdcca093953d6d312e4bc15245a3a92db91bbc7d74e8b5fbe1a91aeaa8be0fb1"),
    ("LLM_link/results/free/llama2/seed4/temperature09/data_hu_irony_free_temp0.9_seed4_20231003_0908_annotated.csv",
     "1b516ed0d456492fc0be6b69a0d28d6381fd90ecb5f60cf4a4cd5d8d7368eb8d"),
    ("LLM_link/results/free/llama2/seed4/temperature09/data_hu_maxims_free_temp0.9_seed4_20231003_0918_annotated.csv",
     "216f6a582df36eceeb6894aaff061a44840e478f61d5affb700e28b51d66ce48"),
    ("LLM_link/results/free/llama2/seed4/temperature09/data_hu_metaphor_free_temp0.9_seed4_20231003_0925_annotated.csv",
     "2a7762e15e2cd76d624d9d1754d6703dd9672462918b8aa4129687ed3eb012f4"),
]
HAND_CODE_SOURCES: dict[str, RemoteFile] = {f.mirror_path: f for f in (_f(p, h) for p, h in _HAND_CODE_FILES)}
HAND_CODE_DIR = "pragmatics/LLM_link/results/free"


def hand_code_root(paths: Iterable[str | Path]) -> Path:
    """The folder the hand-code files ``paths`` lie under (a mirror or the download rules' folder): each path ends
    with a :data:`HAND_CODE_SOURCES` key and every hand-code file is among them."""
    return _common_root(paths, HAND_CODE_SOURCES, "authors' hand-code files")
