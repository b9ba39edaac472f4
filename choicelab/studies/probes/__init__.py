"""Probes: prior bias and choice paralysis of commonsense multiple-choice models under four perturbations (no
question, wrong question, no right answer, heuristic choice paralysis); confidence shifts, MaxProb, robustness.

Modules: :mod:`.settings` (typed ``studies.probes``), :mod:`.perturbations` (the four probes), :mod:`.items`
(benchmark splits, probing, the subsets scored), :mod:`.scoring` (model-facing steps that write dumps),
:mod:`.metrics` (confidences and tests), :mod:`.tables`, :mod:`.figures`, :mod:`.paper` (the paper's names and
numbers) and :mod:`.artifacts` (``ARTIFACTS``: every table and figure, how a job builds and writes them).
"""

from choicelab.studies.probes import settings  # noqa: F401  (read by rules/common.smk's study_settings)

RESULTS = "results/probes"
