"""The codebase's structure, measured: non-test lines per layer, modules, import arrows (imports inside functions
count), circles, arrows from a lower layer up to a higher one, and the longest functions.

    python bench/structure.py [ROOT]    # ROOT: a checkout (default: this one), e.g. a `git worktree` of an old commit

Layers, lowest first: shared modules (choicelab/*.py but cli.py), lm/, mc/, studies/, cards/, then the workflow layer
(cli.py, scripts/). An arrow from a layer to a higher one is an arrow up. docs/architecture.md quotes its output.
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

import networkx as nx

LAYERS = ("shared", "lm", "mc", "studies", "cards", "workflow")


def layer_of(module: str) -> str:
    parts = module.split(".")
    if parts[0] == "scripts" or module == "choicelab.cli":
        return "workflow"
    if len(parts) > 1 and parts[1] in ("lm", "mc", "studies", "cards"):
        return parts[1]
    return "shared"


def modules(root: Path) -> dict[str, Path]:
    found = {}
    for path in sorted((root / "choicelab").rglob("*.py")):
        name = ".".join(path.relative_to(root).with_suffix("").parts)
        found[name.removesuffix(".__init__")] = path
    for path in sorted((root / "scripts").glob("*.py")):
        found[f"scripts.{path.stem}"] = path
    return found


def imports(path: Path, known: set[str]) -> set[str]:
    """The package modules ``path`` imports, anywhere in the file (inside functions too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    targets = set()
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name:
                targets.add(name)
    return targets


def function_lengths(files: dict[str, Path]) -> list[tuple[int, str]]:
    lengths = []
    for module, path in files.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lengths.append((node.end_lineno - node.lineno + 1, f"{module}.{node.name}"))
    return sorted(lengths, reverse=True)


def measure(root: Path) -> dict:
    files = modules(root)
    graph = nx.DiGraph()
    graph.add_nodes_from(files)
    for module, path in files.items():
        for target in imports(path, set(files)) - {module}:
            if not module.startswith(target + "."):  # a module importing its own package's face is no arrow
                graph.add_edge(module, target)
    lines = defaultdict(int)
    for module, path in files.items():
        lines[layer_of(module)] += sum(1 for _ in path.open(encoding="utf-8"))
    for smk in [root / "Snakefile", *sorted((root / "rules").glob("*.smk"))]:
        lines["workflow"] += sum(1 for _ in smk.open(encoding="utf-8"))
    up = [(a, b) for a, b in graph.edges if LAYERS.index(layer_of(a)) < LAYERS.index(layer_of(b))]
    circles = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    return {"lines": dict(lines), "total": sum(lines.values()), "modules": len(files),
            "arrows": graph.number_of_edges(), "arrows_up": sorted(up), "circles": sorted(circles),
            "longest": function_lengths(files)[:10]}


def main(argv: list[str]) -> None:
    root = Path(argv[0]) if argv else Path(__file__).resolve().parent.parent
    found = measure(root)
    print(f"{root}: {found['total']} non-test lines (choicelab/, scripts/, rules/, Snakefile), {found['modules']} "
          f"modules, {found['arrows']} import arrows")
    print("  lines per layer: " + ", ".join(f"{layer} {found['lines'].get(layer, 0)}" for layer in LAYERS))
    arrows_up = "".join(f"\n    {a} -> {b}" for a, b in found["arrows_up"])
    print(f"  arrows up a layer: {len(found['arrows_up'])}{arrows_up}")
    print(f"  circles: {len(found['circles'])}" + "".join(f"\n    {' <-> '.join(c)}" for c in found["circles"]))
    print("  ten longest functions: " + "; ".join(f"{name} {n}" for n, name in found["longest"]))


if __name__ == "__main__":
    main(sys.argv[1:])
