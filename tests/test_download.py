"""The public data files' origins and checksums are data (data/sources/*.yaml), read strictly by choicelab.download."""

from __future__ import annotations

import hashlib
import re

import pytest

from choicelab import download as dl

SHA256 = re.compile(r"[0-9a-f]{64}")


@pytest.fixture
def sources_dir(tmp_path, monkeypatch):
    """A folder of source lists of the test's own, read afresh (read_sources caches each list)."""
    monkeypatch.setattr(dl, "SOURCES_DIR", tmp_path)
    dl.read_sources.cache_clear()
    yield tmp_path
    dl.read_sources.cache_clear()


@pytest.mark.parametrize("name", sorted(p.stem for p in dl.SOURCES_DIR.glob("*.yaml")))
def test_every_shipped_source_list_names_each_file_once_with_an_https_url_or_its_origin(name):
    groups = dl.read_sources(name)
    entries = [entry for group in groups.values() for entry in group]
    paths = [entry["path"] for entry in entries]
    assert all(groups.values()), f"{name}: a group is empty"
    assert len(paths) == len(set(paths)), f"{name}: a path is listed twice"
    for entry in entries:
        if "derived_from" in entry:  # converted by the download rule from another listed file
            assert entry["derived_from"] in paths, entry
        else:
            assert entry["url"].startswith("https://") and "{" not in entry["url"], entry


def test_the_pragmatics_list_gives_the_scoring_methods_files_with_checksums():
    from choicelab.studies.scoring_methods import sources

    assert len(sources.SOURCES) == 35 and len(sources.HAND_CODE_SOURCES) == 136
    remote = sources.SOURCES["pragmatics/LLM_link/data/data_hu_irony.csv"]
    assert remote.url == ("https://raw.githubusercontent.com/polina-tsvilodub/LLM_link/"
                          "2cfc65228c5c8f9d8d4f6660d68b1c7487b4b773/data/data_hu_irony.csv")
    assert all(SHA256.fullmatch(f.sha256) for f in (*sources.SOURCES.values(), *sources.HAND_CODE_SOURCES.values()))


def test_a_url_naming_an_undefined_base_is_refused_with_the_entry(sources_dir):
    (sources_dir / "x.yaml").write_text(
        "format: sources/1\nbases:\n  a: https://example.org\nfiles:\n  g:\n"
        "    - {path: x/f.txt, url: '{b}/f.txt', sha256: " + "0" * 64 + "}\n"
    )
    with pytest.raises(ValueError, match=r"files\.g\[0\].*base 'b'"):
        dl.read_sources("x")


def test_an_entry_without_a_checksum_a_key_set_twice_or_another_format_is_refused(sources_dir):
    (sources_dir / "nosum.yaml").write_text("format: sources/1\nfiles:\n  g:\n    - {path: f, url: 'https://e/f'}\n")
    with pytest.raises(ValueError, match=r"files\.g\[0\] \(f\): no sha256"):
        dl.source_files("nosum", "g")
    (sources_dir / "twice.yaml").write_text("format: sources/1\nfiles: {}\nfiles: {}\n")
    with pytest.raises(ValueError, match="line 3: key 'files' is set twice"):
        dl.read_sources("twice")
    (sources_dir / "old.yaml").write_text("format: sources/0\nfiles: {}\n")
    with pytest.raises(ValueError, match="expected 'sources/1'"):
        dl.read_sources("old")
    with pytest.raises(FileNotFoundError, match="no data source list"):
        dl.read_sources("absent")
    (sources_dir / "nourl.yaml").write_text("format: sources/1\nfiles:\n  g:\n    - {path: f, sha256: x}\n")
    with pytest.raises(ValueError, match=r"files\.g\[0\]: each file needs a path, its checksums and either a url"):
        dl.read_sources("nourl")
    with pytest.raises(KeyError, match="no group 'h'"):
        dl.source_entries("nosum", "h")


def test_a_download_appears_only_when_its_checksum_matches(tmp_path):
    source = tmp_path / "remote.txt"
    source.write_text("public data\n")
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    dest = tmp_path / "got" / "remote.txt"
    dest.parent.mkdir()
    dl.download(source.as_uri(), dest, digest)
    assert dest.read_text() == "public data\n"
    wrong = tmp_path / "got" / "wrong.txt"
    with pytest.raises(dl.ChecksumError, match="does not match"):
        dl.download(source.as_uri(), wrong, "0" * 64)
    assert not wrong.exists()
