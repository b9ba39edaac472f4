#!/usr/bin/env bash
# The one command for the device machine (issue 28): bash bench/gpu_run.sh   (carry: .whl .gpu)
# Needs, carried beside the repo (both ignored by git):
#   .whl/  wheels the device image lacks, for Python 3.12 x86_64: transformers 5.23.0 (the image has 5.17, older
#          than the engine's MIN_TRANSFORMERS), lm_eval 0.4.13 (pyproject's bench extra; HFLM needs nothing else the
#          image lacks), jsonschema 4.26.0 + jsonschema-specifications, referencing, rpds-py (choicelab.config
#          imports jsonschema; CausalScorer imports choicelab.lm.loading, which imports it). Fetched with the device
#          README's `pip download --no-deps --only-binary=:all: --python-version 3.12 ...` recipe.
#   .gpu/  offline tokenizers: python bench/gpu.py --prepare-tokenizers .gpu (SmolLM2's and MiniLM's).
# Writes $OUT/gpu.json (all sections merged), $OUT/gpu-<section>.json (each section as it ran, rewritten after
# every result) and $OUT/gpu.log (everything printed).
# Each section runs in its own process under its own time limit, so one slow section cannot eat the others; the
# limits (seconds) can be changed: GPU_T1B, GPU_T8B, GPU_TFT. Defaults sum to 480 s (+ ~30 s install and start).
# GPU_ARGS adds arguments to every section (a dry run without a GPU: GPU_ARGS="--tiny --skip-lm-eval").
set -u -o pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gpu-out}
mkdir -p "$OUT"

main() {
echo "== $(date -u +%FT%TZ) bench/gpu_run.sh in $PWD"
ls .whl/*.whl .gpu/*/tokenizer.json || { echo "missing .whl or .gpu: carry both"; exit 2; }
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    || { echo "wheel install failed"; exit 3; }
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_DATASETS_OFFLINE=1
export TOKENIZERS_PARALLELISM=false
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv || true
python3 - <<'EOF'
import importlib.metadata as md
import sys

import torch

print("python", sys.version.split()[0], "| torch", torch.__version__, "cuda", torch.version.cuda,
      "|", torch.cuda.get_device_name(0) if torch.cuda.is_available() else "NO CUDA DEVICE")
for name in ("transformers", "tokenizers", "huggingface_hub", "safetensors", "accelerate", "lm_eval", "numpy",
             "pandas", "pyarrow"):
    try:
        print(f"  {name} {md.version(name)}")
    except md.PackageNotFoundError:
        print(f"  {name} MISSING")
import choicelab.lm.causal  # noqa: F401,E402  (fails here, not in a section, if a runtime need is missing)
import choicelab.lm.encoder  # noqa: F401,E402
import choicelab.lm.loading  # noqa: F401,E402  (jsonschema, through choicelab.config)
print("choicelab imports: ok")
EOF

section 1b "${GPU_T1B:-150}" --only scoring --models 1b
section 8b "${GPU_T8B:-200}" --only scoring --models 8b
section finetune "${GPU_TFT:-130}" --only finetune
echo "== all sections"
python3 bench/gpu.py --merge "$OUT/gpu-1b.json" "$OUT/gpu-8b.json" "$OUT/gpu-finetune.json" --out "$OUT/gpu.json"
echo "== $(date -u +%FT%TZ) done in $SECONDS s"
}

section() {  # name, limit, arguments...
    local name=$1 limit=$2
    shift 2
    local start=$SECONDS
    echo "== section $name (limit ${limit} s)"
    # shellcheck disable=SC2086  # GPU_ARGS is split into words on purpose
    timeout -k 10 "$limit" python3 bench/gpu.py --out "$OUT/gpu-$name.json" "$@" ${GPU_ARGS:-}
    local rc=$?
    echo "== section $name: rc=$rc after $((SECONDS - start)) s$([ $rc -eq 124 ] && echo ' (TIMED OUT)')"
}

main 2>&1 | tee "$OUT/gpu.log"
