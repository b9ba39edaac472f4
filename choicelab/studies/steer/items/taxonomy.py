"""The STEER taxonomy (settings -> modules -> elements) and its element dependency graph, loaded from data files.

Data lives in ``data/steer/taxonomy.yaml`` and ``data/steer/dependencies.yaml``; this module validates it (unique ids,
grade ranges inside 1..13, known domains, edges between known elements, an acyclic graph that contains the paper's
Fig. 5 edges) and answers graph questions (transitive ancestors).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

from choicelab.studies.steer import DATA

DEFAULT_TAXONOMY_PATH = DATA / "taxonomy.yaml"
DEFAULT_DEPENDENCIES_PATH = DATA / "dependencies.yaml"
MIN_GRADE, MAX_GRADE = 1, 13
KNOWN_DOMAINS = ("finance", "medical", "food", "travel", "sports", "education", "technology", "politics")


@dataclass(frozen=True)
class Element:
    """One element of rationality: ``id`` is the snake_case key used everywhere (e.g. ``irds``)."""

    id: str
    code: str  # Appendix-B label, e.g. "3.1.e"
    name: str
    module_id: str  # e.g. "3.1"
    setting_id: str  # e.g. "3"
    min_grade: int
    max_grade: int
    domains: tuple[str, ...]

    @property
    def grades(self) -> tuple[int, ...]:
        return tuple(range(self.min_grade, self.max_grade + 1))


@dataclass(frozen=True)
class Module:
    id: str
    name: str
    setting_id: str
    element_ids: tuple[str, ...]


@dataclass(frozen=True)
class Setting:
    id: str
    name: str
    module_ids: tuple[str, ...]


@dataclass(frozen=True)
class Taxonomy:
    settings: tuple[Setting, ...]
    modules: tuple[Module, ...]
    elements: tuple[Element, ...]
    edges: tuple[tuple[str, str], ...]  # (prerequisite, element)
    figure5_edges: tuple[tuple[str, str], ...]

    def element(self, element_id: str) -> Element:
        return _by_id(self.elements, element_id, "element", "; see data/steer/taxonomy.yaml for the valid ids")

    def module(self, module_id: str) -> Module:
        return _by_id(self.modules, module_id, "module")

    @property
    def element_ids(self) -> tuple[str, ...]:
        return tuple(el.id for el in self.elements)

    def ancestors(self, element_id: str) -> frozenset[str]:
        """All transitive prerequisites of ``element_id`` (excluding itself)."""
        self.element(element_id)  # KeyError for an unknown id
        seen: set[str] = set()
        stack = [element_id]
        while stack:
            node = stack.pop()
            found = {src for src, dst in self.edges if dst == node} - seen
            seen |= found
            stack.extend(found)
        return frozenset(seen)


def _by_id(items: Iterable, wanted: str, kind: str, hint: str = ""):
    """The item of ``items`` whose ``id`` is ``wanted`` (KeyError naming the ``kind`` when there is none)."""
    for item in items:
        if item.id == wanted:
            return item
    raise KeyError(f"unknown STEER {kind} {wanted!r}{hint}")


def check_acyclic(nodes: Iterable[str], edges: Iterable[tuple[str, str]]) -> None:
    """Raise ``ValueError`` naming one cycle (``a -> b -> ... -> a``) if the directed graph has one."""
    succ: dict[str, list[str]] = {n: [] for n in nodes}
    for src, dst in edges:
        succ.setdefault(src, []).append(dst)
        succ.setdefault(dst, [])
    white, grey, black = 0, 1, 2
    color = {n: white for n in succ}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        color[node] = grey
        path.append(node)
        for nxt in sorted(succ[node]):
            if color[nxt] == grey:
                return path[path.index(nxt):] + [nxt]
            if color[nxt] == white:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        color[node] = black
        return None

    for start in sorted(succ):
        cycle = visit(start) if color[start] == white else None
        if cycle:
            raise ValueError(f"STEER dependency graph has a cycle: {' -> '.join(cycle)}; remove one of these edges")


def _require(mapping: dict, key: str, where: str):
    if key not in mapping:
        raise ValueError(f"{where}: missing key {key!r}")
    return mapping[key]


def parse_taxonomy(tax_doc: dict, dep_doc: dict, source: str = "taxonomy") -> Taxonomy:
    """Build and validate a :class:`Taxonomy` from the two parsed YAML documents."""
    settings: list[Setting] = []
    modules: list[Module] = []
    elements: list[Element] = []
    for s_doc in _require(tax_doc, "settings", source):
        sid = str(_require(s_doc, "id", f"{source}: setting"))
        module_ids = []
        for m_doc in _require(s_doc, "modules", f"{source}: setting {sid}"):
            mid = str(_require(m_doc, "id", f"{source}: module in setting {sid}"))
            if not mid.startswith(sid + "."):
                raise ValueError(f"{source}: module id {mid!r} must start with its setting id {sid!r}.")
            element_ids = []
            for e_doc in _require(m_doc, "elements", f"{source}: module {mid}"):
                where = f"{source}: element in module {mid}"
                eid = str(_require(e_doc, "id", where))
                grades = _require(e_doc, "grades", f"{source}: element {eid}")
                lo, hi = int(grades[0]), int(grades[1])
                if not (MIN_GRADE <= lo <= hi <= MAX_GRADE):
                    raise ValueError(f"{source}: element {eid!r} grades {grades} must satisfy 1 <= min <= max <= 13")
                domains = tuple(_require(e_doc, "domains", f"{source}: element {eid}"))
                unknown = [d for d in domains if d not in KNOWN_DOMAINS]
                if unknown:
                    raise ValueError(f"{source}: element {eid!r} has unknown domains {unknown}; known: {KNOWN_DOMAINS}")
                if len(set(domains)) != len(domains):
                    raise ValueError(f"{source}: element {eid!r} lists a domain twice: {domains}")
                elements.append(Element(eid, str(_require(e_doc, "code", where)), str(_require(e_doc, "name", where)),
                                        mid, sid, lo, hi, domains))
                element_ids.append(eid)
            module_name = str(_require(m_doc, "name", f"{source}: module {mid}"))
            modules.append(Module(mid, module_name, sid, tuple(element_ids)))
            module_ids.append(mid)
        settings.append(Setting(sid, str(_require(s_doc, "name", f"{source}: setting {sid}")), tuple(module_ids)))

    for kind, ids in (("element", [e.id for e in elements]), ("module", [m.id for m in modules]),
                      ("setting", [s.id for s in settings])):
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise ValueError(f"{source}: duplicate {kind} ids {dupes}")

    known = {e.id for e in elements}

    def parse_edges(key: str) -> tuple[tuple[str, str], ...]:
        out = []
        for edge in dep_doc.get(key) or []:
            if len(edge) != 2:
                raise ValueError(f"dependencies.{key}: edge {edge} must be [prerequisite, element]")
            src, dst = str(edge[0]), str(edge[1])
            for node in (src, dst):
                if node not in known:
                    raise ValueError(f"dependencies.{key}: edge [{src}, {dst}] names unknown element {node!r}")
            if src == dst:
                raise ValueError(f"dependencies.{key}: self-loop on {src!r}")
            out.append((src, dst))
        return tuple(dict.fromkeys(out))  # drop exact duplicates, keep order

    edges = parse_edges("edges")
    figure5 = parse_edges("figure5")
    missing = [e for e in figure5 if e not in set(edges)]
    if missing:
        raise ValueError(f"dependencies: Fig. 5 edges {missing} are not in `edges`; add them")
    check_acyclic(known, edges)
    return Taxonomy(tuple(settings), tuple(modules), tuple(elements), edges, figure5)


@lru_cache(maxsize=4)
def load_taxonomy(taxonomy_path: str | Path = DEFAULT_TAXONOMY_PATH,
                  dependencies_path: str | Path = DEFAULT_DEPENDENCIES_PATH) -> Taxonomy:
    """Load and validate the STEER taxonomy and dependency graph (cached per path pair)."""
    paths = [Path(p) for p in (taxonomy_path, dependencies_path)]
    for path in paths:
        if not path.is_file():
            raise ValueError(f"STEER taxonomy file {path} not found")
    tax_doc, dep_doc = (yaml.safe_load(path.read_text(encoding="utf-8")) for path in paths)
    return parse_taxonomy(tax_doc, dep_doc, source=str(paths[0].name))
