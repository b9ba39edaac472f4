"""Every table and figure of the revealed-belief study: the paper's table or figure it reproduces, its caption, its
builder (a function of :class:`~choicelab.studies.revealed_belief.results.Results`) and the rule that writes it.
The rules' outputs, the sidecars' ``reproduces`` and captions, the manifest and the report caption come from here.

Which appendix tables a config writes depends on its scenario families and the roles of its models:
:func:`written`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from choicelab.artifacts import Artifact
from choicelab.studies.revealed_belief import figures, paper, tables
from choicelab.studies.revealed_belief.results import Results, caption

__all__ = ["ARTIFACTS", "caption", "sources", "written"]

TABLES_RULE = "rb_tables"
FIGURES_RULE = "rb_figures"

EXACT = " (bars: the model's exact probabilities for one prompt, not a sample: no interval)"

APPENDIX_CAPTION = ("Chebyshev, L1 and symmetric-KL distances to the true distribution per row (the paper's rows), one "
                    "column per model of the block (means of exact model probabilities, no interval: intervals "
                    "clustered by scenario are in revealed_vs_stated)")

ARTIFACTS: tuple[Artifact, ...] = (
    Artifact("table1", "Table 1", "scenarios, variants and parameters, with the settings generated",
             tables.build_table1, TABLES_RULE),
    *(Artifact(table_id, tables.paper_reference(table_id), APPENDIX_CAPTION,
               partial(tables.build_appendix_table, table_id=table_id), TABLES_RULE)
      for table_id in tables.appendix_table_ids()),
    Artifact("revealed_vs_stated", "extra: revealed vs stated belief on the same settings, paired",
             "per instruct model, StaA template and scenario family: mean Chebyshev error of RevB and of StaA and "
             "RevB minus StaA paired setting by setting, each with its 95% interval clustered by scenario (family "
             "and variant: its settings repeat it with other parameters; t on scenarios - 1 degrees of freedom); "
             "covers_zero marks differences not told apart", tables.build_revealed_vs_stated, TABLES_RULE),
    Artifact("compare_paper", "extra: Llama-3-70B rows of the appendix tables beside our models",
             "the paper's Llama-3-70B Chebyshev distances beside ours, one row per appendix row; each row names the "
             "paper's model of its block and says which of our models are like for like and why the others are not",
             paper.build_compare_paper, TABLES_RULE),
    Artifact("fig2", "Figure 2", "RevB Chebyshev distance per task, base vs instruct models (box plots of the "
             "settings' distances: their spread, not an interval of a mean)",
             figures.build_fig2, FIGURES_RULE, kind="figure"),
    Artifact("fig3", "Figure 3",
             "RevB distributions for 4 abstract choices and 3 coins, with RevB and StaA errors" + EXACT,
             figures.build_fig3, FIGURES_RULE, kind="figure"),
    Artifact("fig4", "Figure 4", "RevB of one die with no prior and with a previous roll" + EXACT,
             figures.build_fig4, FIGURES_RULE, kind="figure"),
    Artifact("fig5", "Figure 5", "distribution of the per-(model, setting) increase of the Chebyshev error over the "
             "same dice's single roll, for a prior independent result and for one observation (box plots: the "
             "spread over settings, not an interval of a mean)",
             figures.build_fig5, FIGURES_RULE, kind="figure"),
    Artifact("fig6", "Figure 6", "order effect of the options Left / Right" + EXACT,
             figures.build_fig6, FIGURES_RULE, kind="figure"),
    Artifact("fig_compare_paper", "extra: the paper's Llama-3-70B Chebyshev distances beside ours, per appendix table",
             "mean Chebyshev distance per appendix table: the paper's (black diamonds) and each of our models' "
             "(mean and t 95% interval over the rows both report, n rows on the axis), one panel per block, same "
             "scale",
             paper.build_compare_paper_figure, FIGURES_RULE, kind="figure"),
    Artifact("fig_single_die", "extra", "RevB over the faces of one die vs the true uniform distribution" + EXACT,
             figures.build_single_die, FIGURES_RULE, kind="figure"),
)

# The scenario family of each appendix group (b1-b4: dice).
APPENDIX_FAMILY = {"b": "dice", "c": "coins", "d": "choice", "e": "preference"}


def written(models: Sequence[str], roles: Mapping[str, str], families: Sequence[str]) -> tuple[Artifact, ...]:
    """The artifacts a config writes: none when the study runs no model; an appendix table only when its scenario
    family is generated and its block has a model of its role (block 1: base; 2 and 3: instruct)."""
    if not models:
        return ()
    appendix = tables.appendix_table_ids()

    def writes(artifact: Artifact) -> bool:
        if artifact.name not in appendix:
            return True
        group, block = appendix[artifact.name]
        role = tables.BLOCKS[block][1]
        return APPENDIX_FAMILY[group[0]] in families and any(roles[m] == role for m in models)

    return tuple(a for a in ARTIFACTS if writes(a))


def sources(smk: Any, settings: Any) -> Results:
    """What the running job's tables (rule rb_tables) or figures (rule rb_figures: the RevB dumps and the die faces
    too) are built from: the job's inputs and its params (models in config order, their roles)."""
    import pandas as pd

    i, p = smk.input, smk.params
    common = {"metrics": pd.read_parquet(i.metrics), "scenarios": pd.read_parquet(i.scenarios),
              "paper": pd.read_csv(i.paper), "models": tuple(p.models), "roles": dict(p.roles)}
    if smk.rule == TABLES_RULE:
        return Results(**common)
    if smk.rule == FIGURES_RULE:
        revealed = pd.concat([pd.read_parquet(path) for path in i.revealed], ignore_index=True)
        return Results(**common, revealed=revealed, faces=tuple(p.faces))
    raise ValueError(f"rule {smk.rule!r} writes no revealed-belief artifact ({TABLES_RULE}, {FIGURES_RULE})")
