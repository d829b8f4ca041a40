#!/usr/bin/env bash
# Makes the benchmark models: a llama of a real model's shape with random F16
# weights (bench/make_model.py), then the same model converted by
# `trit quantize` to each benchmarked type. Existing files are kept (delete
# one to remake it). Several GB for the 1.1B shape: never inside the repo.
#
#   bench/make_models.sh [OUT_DIR] [--shape tinyllama|small] [--types "q8_0 q4_0 q4_K tq2_0 tq1_0"]
#
# Environment: TRIT (default build/trit), PYTHON (default .venv/bin/python).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT_DIR="/tmp/trit-bench-models"
SHAPE="tinyllama"
TYPES="q8_0 q4_0 q4_K tq2_0 tq1_0"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --shape) SHAPE="$2"; shift 2 ;;
    --types) TYPES="$2"; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    -*) echo "make_models.sh: unknown option $1" >&2; exit 2 ;;
    *) OUT_DIR="$1"; shift ;;
  esac
done
TRIT="${TRIT:-$ROOT/build/trit}"
PYTHON="${PYTHON:-$ROOT/.venv/bin/python}"
[[ -x "$TRIT" ]] || { echo "make_models.sh: $TRIT not found; build it (ninja -C build trit) or set TRIT" >&2; exit 1; }
[[ -x "$PYTHON" ]] || { echo "make_models.sh: $PYTHON not found; set PYTHON to a python with the 'gguf' package" >&2; exit 1; }

mkdir -p "$OUT_DIR"
F16="$OUT_DIR/$SHAPE-f16.gguf"
if [[ ! -f "$F16" ]]; then
  "$PYTHON" "$ROOT/bench/make_model.py" "$F16" --shape "$SHAPE"
fi
for type in $TYPES; do
  out="$OUT_DIR/$SHAPE-$type.gguf"
  [[ -f "$out" ]] && continue
  echo "make_models.sh: $out" >&2
  "$TRIT" quantize "$F16" "$out" "$type" --quiet
done
ls -l "$OUT_DIR"/"$SHAPE"-*.gguf
