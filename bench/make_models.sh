#!/usr/bin/env bash
# Makes the benchmark models: a model of a real model's shape with random F16
# weights (bench/make_model.py), then that model quantized to each benchmarked
# type, by `trit quantize` (--quantizer trit, the default: DIR/S-TYPE.gguf) or
# by llama.cpp's own quantizer through llama-cpp-python (--quantizer llama,
# bench/llama_quantize.py: DIR/S-TYPE-lq.gguf, llama-quantize's type mix).
# Existing files are kept (delete one to remake it). Several GB per 1B-class
# shape: never inside the repo.
#
#   bench/make_models.sh [OUT_DIR] [--shape tinyllama|llama3.2-1b|qwen3-0.6b|small]
#       [--quantizer trit|llama] [--types "..."] [--layers N]
#
# Default types: trit "q8_0 q4_0 q4_K tq2_0 tq1_0"; llama "q4_K_M q5_K_M q6_K
# q8_0 iq4_xs tq2_0 tq1_0". --layers N makes a reduced model named S-Nl-*
# (format checks only, not for timing). A type that fails is reported and the
# others are still made; the exit status is then 1.
#
# Environment: TRIT (default build/trit), PYTHON (with 'gguf'; default
# .venv/bin/python), LCP_PYTHON (with llama-cpp-python, for --quantizer llama;
# default /tmp/lcpvenv/bin/python).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT_DIR="/tmp/trit-bench-models"
SHAPE="tinyllama"
QUANTIZER="trit"
TYPES=""
LAYERS=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --shape) SHAPE="$2"; shift 2 ;;
    --types) TYPES="$2"; shift 2 ;;
    --quantizer) QUANTIZER="$2"; shift 2 ;;
    --layers) LAYERS="$2"; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    -*) echo "make_models.sh: unknown option $1" >&2; exit 2 ;;
    *) OUT_DIR="$1"; shift ;;
  esac
done
PYTHON="${PYTHON:-$ROOT/.venv/bin/python}"
[[ -x "$PYTHON" ]] || { echo "make_models.sh: $PYTHON not found; set PYTHON to a python with the 'gguf' package" >&2; exit 1; }
case "$QUANTIZER" in
  trit)
    TYPES="${TYPES:-q8_0 q4_0 q4_K tq2_0 tq1_0}"
    SUFFIX=""
    TRIT="${TRIT:-$ROOT/build/trit}"
    [[ -x "$TRIT" ]] || { echo "make_models.sh: $TRIT not found; build it (ninja -C build trit) or set TRIT" >&2; exit 1; }
    ;;
  llama)
    TYPES="${TYPES:-q4_K_M q5_K_M q6_K q8_0 iq4_xs tq2_0 tq1_0}"
    SUFFIX="-lq"
    LCP_PYTHON="${LCP_PYTHON:-/tmp/lcpvenv/bin/python}"
    "$LCP_PYTHON" -c "import llama_cpp" 2>/dev/null || {
      echo "make_models.sh: llama-cpp-python is not importable by $LCP_PYTHON; install it (python3 -m venv /tmp/lcpvenv && /tmp/lcpvenv/bin/pip install llama-cpp-python) or set LCP_PYTHON" >&2
      exit 1
    }
    ;;
  *) echo "make_models.sh: --quantizer is trit or llama, not '$QUANTIZER'" >&2; exit 2 ;;
esac
NAME="$SHAPE"
[[ "$LAYERS" != 0 ]] && NAME="$SHAPE-${LAYERS}l"

mkdir -p "$OUT_DIR"
F16="$OUT_DIR/$NAME-f16.gguf"
if [[ ! -f "$F16" ]]; then
  "$PYTHON" "$ROOT/bench/make_model.py" "$F16" --shape "$SHAPE" --layers "$LAYERS"
fi
failed=()
made=("$F16")
for type in $TYPES; do
  out="$OUT_DIR/$NAME-$type$SUFFIX.gguf"
  made+=("$out")
  [[ -f "$out" ]] && continue
  echo "make_models.sh: $out" >&2
  if [[ "$QUANTIZER" == trit ]]; then
    "$TRIT" quantize "$F16" "$out" "$type" --quiet || failed+=("$type")
  else
    "$LCP_PYTHON" "$ROOT/bench/llama_quantize.py" "$F16" "$out" "$type" || failed+=("$type")
  fi
done
ls -l "${made[@]}" || true  # a failed type's file is missing: said below
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "make_models.sh: FAILED for $NAME ($QUANTIZER quantizer): ${failed[*]}" >&2
  exit 1
fi
