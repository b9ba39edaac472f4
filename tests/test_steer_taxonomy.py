"""Specification of the STEER taxonomy and dependency graph (data/steer/*.yaml)."""

import copy

import pytest
import yaml

from choicelab.studies.steer.items.taxonomy import (
    DEFAULT_DEPENDENCIES_PATH,
    DEFAULT_TAXONOMY_PATH,
    check_acyclic,
    load_taxonomy,
    parse_taxonomy,
)

FIG5 = {
    ("interpret_games", "irds"), ("first_order_false_belief", "irds"), ("best_response", "irds"),
    ("dominated_strategies", "irds"), ("transitivity", "dominated_strategies"),
    ("independence", "dominated_strategies"), ("irds", "pure_nash"), ("compute_eu", "maximize_eu"),
    ("transitivity", "maximize_eu"), ("discrete_optimization", "maximize_eu"),
    ("compute_expectations", "maximize_eu"),
}
# module -> number of elements, from the spec's listing (Appendix B; Level-k placed in 3.1, Copeland in 4.2)
MODULE_SIZES = {"1.1": 3, "1.2": 3, "1.3": 3, "1.4": 3, "1.5": 2, "2.1": 3, "2.2": 3, "2.3": 3, "2.4": 5,
                "2.5": 4, "3.1": 7, "3.2": 2, "3.3": 1, "3.4": 3, "3.5": 2, "4.1": 4, "4.2": 4, "4.3": 4, "4.4": 3}


def docs():
    with open(DEFAULT_TAXONOMY_PATH) as f1, open(DEFAULT_DEPENDENCIES_PATH) as f2:
        return yaml.safe_load(f1), yaml.safe_load(f2)


def test_taxonomy_has_62_unique_elements_in_4_settings_and_19_modules():
    tax = load_taxonomy()
    assert len(tax.elements) == 62
    assert len(set(tax.element_ids)) == 62
    assert [s.id for s in tax.settings] == ["1", "2", "3", "4"]
    assert {m.id: len(m.element_ids) for m in tax.modules} == MODULE_SIZES


def test_elements_know_their_module_and_setting_and_have_valid_grades_and_domains():
    tax = load_taxonomy()
    for el in tax.elements:
        assert el.code.startswith(el.module_id + ".")
        assert el.module_id.split(".")[0] == el.setting_id
        assert 1 <= el.min_grade <= el.max_grade <= 13
        assert len(el.domains) >= 3
    assert tax.element("irds").code == "3.1.e"
    assert tax.element("pure_nash").module_id == "3.1"
    assert tax.element("add_subtract").grades[0] == 1


def test_graph_is_acyclic_and_contains_figure5_edges():
    tax = load_taxonomy()
    check_acyclic(tax.element_ids, tax.edges)
    assert set(tax.edges) >= FIG5
    assert set(tax.figure5_edges) == FIG5


def test_ancestors_are_transitive():
    tax = load_taxonomy()
    # pure_nash <- irds <- dominated_strategies <- transitivity (Fig. 5 chain)
    assert {"irds", "dominated_strategies", "transitivity", "independence", "best_response"} <= tax.ancestors(
        "pure_nash")
    for el in tax.element_ids:
        anc = tax.ancestors(el)
        assert el not in anc
        for a in anc:
            assert tax.ancestors(a) <= anc


def test_roots_have_no_ancestors():
    assert load_taxonomy().ancestors("add_subtract") == frozenset()


def test_cycle_is_reported_with_its_nodes():
    tax_doc, dep_doc = docs()
    bad = copy.deepcopy(dep_doc)
    bad["edges"].append(["pure_nash", "transitivity"])
    with pytest.raises(ValueError, match="cycle: .*pure_nash.*transitivity"):
        parse_taxonomy(tax_doc, bad)


def test_unknown_element_in_edge_is_named():
    tax_doc, dep_doc = docs()
    bad = copy.deepcopy(dep_doc)
    bad["edges"].append(["telepathy", "irds"])
    with pytest.raises(ValueError, match="unknown element 'telepathy'"):
        parse_taxonomy(tax_doc, bad)


def test_missing_figure5_edge_is_rejected():
    tax_doc, dep_doc = docs()
    bad = copy.deepcopy(dep_doc)
    bad["edges"] = [e for e in bad["edges"] if e != ["irds", "pure_nash"]]
    with pytest.raises(ValueError, match="Fig. 5"):
        parse_taxonomy(tax_doc, bad)


def test_duplicate_element_id_and_bad_grades_rejected():
    tax_doc, dep_doc = docs()
    bad = copy.deepcopy(tax_doc)
    bad["settings"][0]["modules"][0]["elements"].append(dict(bad["settings"][0]["modules"][0]["elements"][0]))
    with pytest.raises(ValueError, match="duplicate element ids"):
        parse_taxonomy(bad, dep_doc)
    bad = copy.deepcopy(tax_doc)
    bad["settings"][0]["modules"][0]["elements"][0]["grades"] = [0, 14]
    with pytest.raises(ValueError, match="grades"):
        parse_taxonomy(bad, dep_doc)


def test_unknown_element_lookup_is_a_clear_error():
    with pytest.raises(KeyError, match="telepathy"):
        load_taxonomy().element("telepathy")


def test_the_words_and_fixed_texts_of_questions_are_data_files_every_domain_has(tmp_path):
    """STEER's vocabularies and fixed texts live in data/steer/domains.yaml and texts.yaml, where a reviewer reads them;
    the generators read them from there, and a file whose per-domain section lacks a domain is refused naming both."""
    from choicelab.studies.steer import DATA
    from choicelab.studies.steer.items import foundations, social_choice
    from choicelab.studies.steer.items.domains import PER_DOMAIN_SECTIONS, read_vocabularies

    words = yaml.safe_load((DATA / "domains.yaml").read_text())
    texts = yaml.safe_load((DATA / "texts.yaml").read_text())
    assert social_choice.VOTERS["finance"] == words["social_choice"]["finance"]["voters"]
    assert social_choice.RULE_TEXT["borda"] == texts["voting_rules"]["borda"]
    assert tuple(words["colours"]) == foundations.COLOURS
    for section in PER_DOMAIN_SECTIONS:
        broken = copy.deepcopy(words)
        del broken[section]["medical"]
        path = tmp_path / f"{section}.yaml"
        path.write_text(yaml.safe_dump(broken))
        expected = rf"{section}.yaml: section '{section}' has no words for domains \['medical'\]"
        with pytest.raises(ValueError, match=expected):
            read_vocabularies(path)
