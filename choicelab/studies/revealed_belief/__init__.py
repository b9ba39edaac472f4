"""Revealed belief: a causal LM's next-token distribution over outcomes (revealed) against its answer to the
multiple-choice question about the same outcomes (stated), for dice, coins, choices and preferences.

Modules: ``items`` (scenarios, true distributions, the scenario table), ``stated`` (the stated-answer questions and
prompts), ``scoring`` (RevB / StaA dump rows), ``metrics`` (distances, Fig. 5's increases), ``tables``, ``paper``
(the paper's numbers beside ours), ``figures``, ``results`` (what the tables and figures are built from, captions),
``artifacts`` (``ARTIFACTS``) and ``settings`` (the typed ``studies.revealed_belief`` section).
"""

RESULTS = "results/revealed_belief"
