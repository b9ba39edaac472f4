"""Revealed belief: a causal LM's next-token distribution over outcomes (revealed) against its answer to the
multiple-choice question about the same outcomes (stated), for dice, coins, choices and preferences."""

RESULTS = "results/revealed_belief"
