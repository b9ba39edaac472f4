"""STEER's illustrative figures, drawn from the run's own data (never from hand-written examples):

- Fig. 1 (the taxonomy: settings -> modules, with their elements): :func:`plot_taxonomy`, from data/steer/taxonomy.yaml;
- Fig. 3 (top: the domain span of four elements; bottom: two Maximize Expected Utility questions in two domains and
  grades): :func:`plot_domain_span`, from the run's generated benchmark;
- Fig. 6 (the two adaptations, self-explanation and few-shot, on one question): :func:`plot_adaptation_examples`,
  from the exact contexts the dumps record (what the model saw, chat template included);
- Fig. 16 (one game in the three representations, word form, normal form and bimatrix form):
  :func:`plot_game_forms`, a two-player game of the run's benchmark rendered by the generators' own renderers.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from choicelab import plotting
from choicelab.mc.items import MCItem
from choicelab.plotting import plt
from choicelab.studies.steer.adaptations import Adaptation
from choicelab.studies.steer.items.multi_agent import Game, render_game
from choicelab.studies.steer.scoring import options_block

# The four elements whose domain span the paper's Fig. 3 shows are not named in its text; ours: the element of the
# figure's bottom half and one element of each other setting.
SPAN_ELEMENTS = ("maximize_eu", "add_subtract", "pure_nash", "plurality")
EXAMPLE_ELEMENT = "maximize_eu"  # Fig. 3 bottom (the paper: job offers at grade 3, medical devices at grade 4)
GAME_FORMS = (("word", "Word form"), ("normal", "Normal form"), ("bimatrix", "Bimatrix form"))
MAX_LINES = 46  # a panel of Fig. 6 shows at most this many wrapped lines; a longer prompt is cut in the middle


def _wrap(text: str, width: int) -> list[str]:
    lines: list[str] = []
    for raw in text.split("\n"):
        lines.extend(textwrap.wrap(raw, width, replace_whitespace=False) or [""])
    return lines


def _text_panel(ax: Any, title: str, text: str, width: int = 70, max_lines: int | None = None) -> None:
    lines = _wrap(text, width)
    if max_lines is not None and len(lines) > max_lines:
        head, tail = lines[: max_lines // 2], lines[-(max_lines - max_lines // 2 - 1):]
        lines = [*head, f"[... {len(lines) - len(head) - len(tail)} lines of the prompt left out here ...]", *tail]
    ax.set_axis_off()
    ax.set_title(title, fontsize=10, loc="left", parse_math=False)
    ax.text(0.0, 1.0, "\n".join(lines), family="monospace", fontsize=8, va="top", ha="left",
            transform=ax.transAxes, parse_math=False)


# --------------------------------------------------------------------------------------------------------- Fig. 1
def plot_taxonomy(taxonomy: Any, path: str | Path) -> Path:
    """Fig. 1: one column per setting, one box per module listing its elements (Appendix-B codes)."""
    columns = list(taxonomy.settings)

    def title_lines(module: Any) -> list[str]:
        return textwrap.wrap(f"{module.id} {module.name}", 40)

    def element_lines(eid: str) -> list[str]:  # a long name wraps onto an indented line; none is cut
        element = taxonomy.element(eid)
        return textwrap.wrap(f"{element.code} {element.name}", 48, subsequent_indent="      ")

    def rows_of(mid: str) -> int:
        module = taxonomy.module(mid)
        return len(title_lines(module)) + sum(len(element_lines(e)) for e in module.element_ids)

    heights = [sum(1 + rows_of(m) for m in s.module_ids) + 3 for s in columns]
    fig, ax = plt.subplots(figsize=(4.2 * len(columns), 0.2 * max(heights) + 1.6))
    ax.set_axis_off()
    ax.set_xlim(0, len(columns))
    ax.set_ylim(max(heights), 0)
    colours = ("#dbe9f6", "#e3f1dc", "#fbe6d4", "#ece0f4")
    for col, setting in enumerate(columns):
        n_elements = sum(len(taxonomy.module(m).element_ids) for m in setting.module_ids)
        ax.text(col + 0.5, 0.8, textwrap.fill(f"{setting.id}. {setting.name}", 34), ha="center", va="center",
                fontsize=10, fontweight="bold")
        ax.text(col + 0.5, 2.0, f"{len(setting.module_ids)} modules, {n_elements} elements", ha="center",
                va="center", fontsize=8, color="#444444")
        y = 3.0
        for mid in setting.module_ids:
            module = taxonomy.module(mid)
            rows = rows_of(mid)
            ax.add_patch(plt.Rectangle((col + 0.04, y - 0.1), 0.92, rows + 0.4, facecolor=colours[col % 4],
                                       edgecolor="#777777", linewidth=0.6))
            titles = title_lines(module)
            for k, line in enumerate(titles):
                ax.text(col + 0.07, y + 0.45 + k, line, fontsize=8, fontweight="bold", va="center")
            lines = [line for eid in module.element_ids for line in element_lines(eid)]
            for k, line in enumerate(lines, start=len(titles)):
                ax.text(col + 0.1, y + 0.45 + k, line, fontsize=8, va="center")
            y += rows + 1
    ax.set_title(f"STEER taxonomy: {len(columns)} settings, {len(taxonomy.modules)} modules, "
                 f"{len(taxonomy.elements)} elements (data/steer/taxonomy.yaml)", fontsize=11)
    return plotting.save_png(fig, path)


# --------------------------------------------------------------------------------------------------------- Fig. 3
def domain_span(questions: Sequence[MCItem], taxonomy: Any,
                elements: Sequence[str] = SPAN_ELEMENTS) -> pd.DataFrame:
    """Questions per (element, domain) in the benchmark for ``elements`` (those the benchmark has), with the domains
    each element allows in the taxonomy: columns element, domain, allowed, n_questions."""
    counts = pd.DataFrame([(q.meta["element"], q.meta["domain"]) for q in questions], columns=["element", "domain"])
    present = [e for e in elements if e in set(counts["element"])]
    if not present:
        raise ValueError(f"the benchmark has no question of the Fig. 3 elements {list(elements)}; add one of them to "
                         "studies.steer.scale.elements")
    domains = sorted({d for e in present for d in taxonomy.element(e).domains} | set(counts["domain"]))
    rows = []
    for e in present:
        allowed = set(taxonomy.element(e).domains)
        for d in domains:
            n = int(((counts["element"] == e) & (counts["domain"] == d)).sum())
            rows.append({"element": e, "domain": d, "allowed": d in allowed, "n_questions": n})
    return pd.DataFrame(rows)


def example_questions(questions: Sequence[MCItem], element: str = EXAMPLE_ELEMENT) -> list[MCItem]:
    """Two real questions of ``element`` for Fig. 3's bottom: its two lowest grades in the benchmark, in two
    different domains when the benchmark has them (the paper: grade 3 job offers, grade 4 medical devices)."""
    own = sorted((q for q in questions if q.meta["element"] == element),
                 key=lambda q: (int(q.meta["grade"]), q.meta["domain"], q.item_id))
    if not own:
        raise ValueError(f"the benchmark has no {element} question for Fig. 3; add {element!r} to "
                         "studies.steer.scale.elements")
    first = own[0]
    later = [q for q in own if int(q.meta["grade"]) > int(first.meta["grade"])]
    second = next((q for q in later if q.meta["domain"] != first.meta["domain"]), later[0] if later else None)
    return [first] if second is None else [first, second]


def _question_text(item: MCItem) -> str:
    return f"{item.prompt.strip()}\n{options_block(item)}"


def plot_domain_span(questions: Sequence[MCItem], taxonomy: Any, path: str | Path) -> Path:
    """Fig. 3: top, the domains each of four elements' questions span (cell = questions in the benchmark, grey = a
    domain the element does not use); bottom, two generated Maximize Expected Utility questions of different grades."""
    span = domain_span(questions, taxonomy)
    examples = example_questions(questions)
    wide = span.pivot(index="element", columns="domain", values="n_questions").reindex(
        [e for e in SPAN_ELEMENTS if e in set(span["element"])])
    allowed = span.pivot(index="element", columns="domain", values="allowed").reindex(wide.index)
    from matplotlib.colors import ListedColormap

    fig = plt.figure(figsize=(13, 6.5))
    top = fig.add_axes((0.2, 0.6, 0.75, 0.34))
    top.imshow(allowed.to_numpy(dtype=float), cmap=ListedColormap(["#f0f0f0", "#9ecae1"]), vmin=0, vmax=1,
               aspect="auto")
    for (r, c), n in pd.DataFrame(wide.to_numpy()).stack().items():
        top.text(c, r, "-" if not allowed.iat[r, c] else str(int(n)), ha="center", va="center", fontsize=8)
    top.set_xticks(range(len(wide.columns)), wide.columns, fontsize=8)
    top.set_yticks(range(len(wide.index)), [f"{taxonomy.element(e).code} {taxonomy.element(e).name}"
                                            for e in wide.index], fontsize=8)
    top.set_title("Domain span: questions per domain in this run's benchmark (blue: a domain the element uses, "
                  "0 = not drawn in this run; -: not one of its domains)", fontsize=9)
    for k, item in enumerate(examples):
        ax = fig.add_axes((0.02 + 0.5 * k, 0.02, 0.46, 0.45))
        title = (f"{taxonomy.element(item.meta['element']).name}: grade {item.meta['grade']}, "
                 f"{item.meta['domain']} ({item.item_id})")
        _text_panel(ax, title, _question_text(item), width=72)
    return plotting.save_png(fig, path)


# --------------------------------------------------------------------------------------------------------- Fig. 6
def dump_contexts(dumps: pd.DataFrame) -> pd.DataFrame:
    """One row per (model, adaptation, item_id) with the context the letters were scored after (dump columns
    model, variant, item_id, context)."""
    missing = {"model", "variant", "item_id", "context"} - set(dumps.columns)
    if missing:
        raise ValueError(f"STEER dumps lack columns {sorted(missing)}")
    out = dumps[["model", "variant", "item_id", "context"]].drop_duplicates(["model", "variant", "item_id"])
    return out.rename(columns={"variant": "adaptation"}).reset_index(drop=True)


def adaptation_examples(contexts: pd.DataFrame, prefer_element: str = EXAMPLE_ELEMENT) -> dict[str, pd.Series]:
    """The two prompts of Fig. 6 from one model of the run: a self-explanation one (``together`` preferred, as the
    paper's left panel) and a few-shot one (fewest examples >= 1), on one question scored under both when there is
    one (an ``prefer_element`` question first). Keys "explain" and "few_shot"; a key is missing when the run has no
    such adaptation."""

    def kind(adaptation: str) -> tuple[int, str]:
        parsed = Adaptation.from_name(adaptation)
        return parsed.shots, parsed.explain

    frame = contexts.assign(shots=[kind(a)[0] for a in contexts["adaptation"]],
                            mode=[kind(a)[1] for a in contexts["adaptation"]])
    explain = frame[frame["mode"] != "none"].assign(order=lambda f: f["mode"].map(
        {"together": 0, "separate": 1, "separate-hidden": 2}))
    few = frame[(frame["mode"] == "none") & (frame["shots"] >= 1)]
    model = sorted(set(explain["model"]) | set(few["model"]))[0] if len(explain) + len(few) else None
    if model is None:
        return {}
    explain, few = explain[explain["model"] == model], few[few["model"] == model]
    if len(explain):
        explain = explain[explain["order"] == explain["order"].min()]
    if len(few):
        few = few[few["shots"] == few["shots"].min()]
    both = sorted(set(explain["item_id"]) & set(few["item_id"]))
    candidates = both or sorted(set(explain["item_id"]) | set(few["item_id"]))
    preferred = [i for i in candidates if i.split("/")[0] == prefer_element]
    item = (preferred or candidates)[0]
    out = {}
    for key, part in (("explain", explain), ("few_shot", few)):
        rows = part[part["item_id"] == item]
        if len(rows) == 0 and len(part):
            rows = part.sort_values("item_id").iloc[:1]
        if len(rows):
            out[key] = rows.iloc[0]
    return out


def plot_adaptation_examples(dumps: pd.DataFrame, path: str | Path) -> Path:
    """Fig. 6: left, a self-explanation prompt; right, a few-shot prompt, each exactly as the model saw it (the
    dump's context: the explanation and solved examples included, the answer letter scored next)."""
    examples = adaptation_examples(dump_contexts(dumps))
    n_lines = max([min(len(_wrap(str(r["context"]), 88)), MAX_LINES) for r in examples.values()], default=4)
    fig, axes = plt.subplots(1, 2, figsize=(15, 1.2 + 0.14 * n_lines))
    for ax, key, label in ((axes[0], "explain", "Adapted to explain its reasoning"),
                           (axes[1], "few_shot", "Adapted through few-shot prompting")):
        row = examples.get(key)
        if row is None:
            _text_panel(ax, label, f"(this run has no {'self-explanation' if key == 'explain' else 'n-shot (n >= 1)'} "
                                   "adaptation: studies.steer.adaptations)")
            continue
        _text_panel(ax, f"{label}: {row['model']}, {row['adaptation']}, {row['item_id']}",
                    str(row["context"]) + "▮", width=88, max_lines=MAX_LINES)
    fig.suptitle("Example adaptations: the exact prompts of this run (from the dumps); the letter is scored at ▮",
                 fontsize=11)
    return plotting.save_png(fig, path)


# -------------------------------------------------------------------------------------------------------- Fig. 16
def game_question(questions: Sequence[MCItem]) -> MCItem:
    """The first benchmark question (in item order) whose game a two-player table can show in all three forms."""
    for item in sorted(questions, key=lambda q: q.item_id):
        game = (item.meta.get("params") or {}).get("game") if isinstance(item.meta.get("params"), dict) else None
        if game and len(game["players"]) == 2 and len(game["payoffs"]) <= 9:
            return item
    raise ValueError("the benchmark has no two-player game of at most 9 profiles for Fig. 16; add a normal-form "
                     "element (module 3.1) to studies.steer.scale.elements")


def game_of(params: dict[str, Any]) -> Any:
    """The generators' Game from a question's recorded ``params['game']``."""

    pay = {tuple(profile): tuple(values) for profile, values in params["payoffs"]}
    return Game(list(params["players"]), [list(a) for a in params["actions"]], pay, int(params["dec"]))


def plot_game_forms(questions: Sequence[MCItem], path: str | Path) -> Path:
    """Fig. 16: one generated game in word form, normal form and bimatrix form, by the renderers the questions use."""

    item = game_question(questions)
    game = game_of(item.meta["params"]["game"])
    texts = {form: render_game(game, form) for form, _ in GAME_FORMS}
    n_lines = max(len(_wrap(t, 52)) for t in texts.values())
    fig, axes = plt.subplots(1, 3, figsize=(16, 1.0 + 0.16 * n_lines))
    for ax, (form, label) in zip(axes, GAME_FORMS, strict=True):
        _text_panel(ax, label, texts[form], width=52)
    fig.suptitle(f"The game of {item.item_id} (shown there in {item.meta['params'].get('form', '?')} form) in the "
                 "three representations the questions use", fontsize=11)
    fig.tight_layout()  # the title above the panels' own titles, not over them
    return plotting.save_png(fig, path)
