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


# The workflow layer (the CLI, scripts/, rules/) reads the study registry and passes it down; shared code never imports
# a study package, so a study can be added or removed without touching it. The cards (choicelab.cards) sit above the
# studies like the CLI: a card reads the studies' tables and uses their rubrics as they are.
WORKFLOW_LAYER = {"choicelab.cli"}
ABOVE_THE_STUDIES = ("choicelab.studies", "choicelab.cards")
SHARED = [name for name in MODULES if not name.startswith(ABOVE_THE_STUDIES) and name not in WORKFLOW_LAYER]


@pytest.mark.parametrize("name", SHARED)
def test_shared_code_never_imports_a_study(name):
    import ast

    path = PACKAGE.parent / (name.replace(".", "/") + ".py")
    if not path.exists():
        path = PACKAGE.parent / name.replace(".", "/") / "__init__.py"
    imported = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module)
        elif isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
    assert not {m for m in imported if m.startswith("choicelab.studies")}, f"{name} imports a study package"
