"""Probes: prior bias and choice paralysis of commonsense multiple-choice models under four perturbations (no
question, wrong question, no right answer, heuristic choice paralysis); confidence shifts, MaxProb, robustness."""

RESULTS = "results/probes"
