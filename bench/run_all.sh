#!/usr/bin/env bash
# One command for the "Decode and prompt processing" figures of
# docs/PERFORMANCE.md: makes the benchmark models if missing
# (bench/make_models.sh), then times trit and llama.cpp on the same files and
# thread count (bench/vs_llamacpp.py) and prints a markdown table.
#
#   bench/run_all.sh [MODEL_DIR] [--shape tinyllama|small] [-t 2] [-p 64] [-n 16] [-r 3]
#
# Environment: TRIT (default build/trit); PYTHON (with 'gguf', for making
# models; default .venv/bin/python); LCP_PYTHON (with llama-cpp-python;
# default /tmp/lcpvenv/bin/python when it exists, else python3, and then the
# llama.cpp columns say it is not installed).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT_DIR="/tmp/trit-bench-models"
SHAPE="tinyllama"
THREADS=2 PROMPT=64 GEN=16 REPS=3
while [[ $# -gt 0 ]]; do
  case "$1" in
    --shape) SHAPE="$2"; shift 2 ;;
    -t) THREADS="$2"; shift 2 ;;
    -p) PROMPT="$2"; shift 2 ;;
    -n) GEN="$2"; shift 2 ;;
    -r) REPS="$2"; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    -*) echo "run_all.sh: unknown option $1" >&2; exit 2 ;;
    *) OUT_DIR="$1"; shift ;;
  esac
done
export TRIT="${TRIT:-$ROOT/build/trit}"
if [[ -z "${LCP_PYTHON:-}" ]]; then
  if [[ -x /tmp/lcpvenv/bin/python ]]; then LCP_PYTHON=/tmp/lcpvenv/bin/python; else LCP_PYTHON=python3; fi
fi
TYPES="f16 q8_0 q4_0 q4_K tq2_0 tq1_0"

"$ROOT/bench/make_models.sh" "$OUT_DIR" --shape "$SHAPE" >&2
models=()
for type in $TYPES; do models+=("$OUT_DIR/$SHAPE-$type.gguf"); done
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$LCP_PYTHON" "$ROOT/bench/vs_llamacpp.py" --trit "$TRIT" -t "$THREADS" -p "$PROMPT" -n "$GEN" -r "$REPS" "${models[@]}"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
