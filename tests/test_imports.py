"""Every library module imports: the fast lane (`pytest -m "not slow"`) fails on a syntax or import error anywhere
under choicelab/, even in a module that only the slow, whole-workflow tests exercise."""

from __future__ import annotations

import importlib

import pytest

from conftest import REPO

PACKAGE = REPO / "choicelab"


def _module_name(path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = sorted(_module_name(p) for p in PACKAGE.rglob("*.py"))


def test_the_walk_finds_the_library():
    assert {"choicelab", "choicelab.stats", "choicelab.workflow", "choicelab.lm.causal"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_every_library_module_imports(name):
    module = importlib.import_module(name)
    assert module.__file__ is not None and module.__file__.startswith(str(PACKAGE))
