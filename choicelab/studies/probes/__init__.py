"""Probes: prior bias and choice paralysis of commonsense multiple-choice models under four perturbations (no
question, wrong question, no right answer, heuristic choice paralysis); confidence shifts, MaxProb, robustness.

Modules: :mod:`.settings` (typed ``studies.probes``), :mod:`.perturbations` (the four probes), :mod:`.items`
(benchmark splits, probing, the subsets scored), :mod:`.scoring` (model-facing steps that write dumps),
:mod:`.metrics` (confidences and tests), :mod:`.tables`, :mod:`.figures`, :mod:`.paper` (the paper's names and
numbers), :mod:`.artifacts` (``ARTIFACTS``: every table and figure, how a job builds and writes them) and
:mod:`.jobs` (the rules' input functions and params).
"""

RESULTS = "results/probes"
