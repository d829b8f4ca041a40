#!/usr/bin/env bash
# One command for the "Decode and prompt processing" figures of
# docs/PERFORMANCE.md: makes the benchmark models if missing
# (bench/make_models.sh), then times trit and llama.cpp on the same files and
# thread count (bench/vs_llamacpp.py) and prints a markdown table.
#
#   bench/run_all.sh [MODEL_DIR] [--shape tinyllama|small] [-t 2] [-p 64] [-n 16] [-r 3]
#   bench/run_all.sh [MODEL_DIR] --set real [--shapes "..."] [--types "..."] [--layers N] [--no-make] [-t ...]
#
# --set default (the default): one shape, f16 and five types made by trit quantize.
# --set real: the real Gemma 3 270M file ($GEMMA) plus random-weight models of
# the qwen3-0.6b, llama3.2-1b and tinyllama shapes (--shapes), each quantized
# by llama.cpp's own quantizer to q4_K_M q5_K_M q6_K q8_0 iq4_xs tq2_0 tq1_0
# (--types); files DIR/S-TYPE-lq.gguf. Prerequisites and files are checked
# first, and what is missing is listed before anything long starts.
# --no-make: use the files that exist, make none. --layers N: reduced models
# (S-Nl-*), a quick check of the tooling; their timings mean nothing.
#
# Environment: TRIT (default build/trit); PYTHON (with 'gguf', for making
# models; default .venv/bin/python); LCP_PYTHON (with llama-cpp-python;
# default /tmp/lcpvenv/bin/python when it exists, else python3, and then the
# llama.cpp columns say it is not installed; --set real requires it);
# GEMMA (default /tmp/models/gemma-3-270m-q4_k_m.gguf).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT_DIR="/tmp/trit-bench-models"
SET="default"
SHAPE="tinyllama"
REAL_SHAPES="qwen3-0.6b llama3.2-1b tinyllama"
REAL_TYPES="q4_K_M q5_K_M q6_K q8_0 iq4_xs tq2_0 tq1_0"
LAYERS=0
MAKE=1
THREADS=2 PROMPT=64 GEN=16 REPS=3
ARGS="$*"
REAL_ONLY=""  # the last option given that only --set real takes
SHAPE_GIVEN=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --set) SET="$2"; shift 2 ;;
    --shape) SHAPE="$2"; SHAPE_GIVEN=1; shift 2 ;;
    --shapes) REAL_SHAPES="$2"; REAL_ONLY="$1"; shift 2 ;;
    --types) REAL_TYPES="$2"; REAL_ONLY="$1"; shift 2 ;;
    --layers) LAYERS="$2"; REAL_ONLY="$1"; shift 2 ;;
    --no-make) MAKE=0; REAL_ONLY="$1"; shift ;;
    -t) THREADS="$2"; shift 2 ;;
    -p) PROMPT="$2"; shift 2 ;;
    -n) GEN="$2"; shift 2 ;;
    -r) REPS="$2"; shift 2 ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    -*) echo "run_all.sh: unknown option $1" >&2; exit 2 ;;
    *) OUT_DIR="$1"; shift ;;
  esac
done
if [[ "$SET" == default && -n "$REAL_ONLY" ]]; then
  echo "run_all.sh: $REAL_ONLY is an option of --set real" >&2; exit 2
fi
if [[ "$SET" == real && "$SHAPE_GIVEN" == 1 ]]; then
  echo "run_all.sh: --set real takes --shapes \"S1 S2 ...\", not --shape" >&2; exit 2
fi
export TRIT="${TRIT:-$ROOT/build/trit}"
if [[ -z "${LCP_PYTHON:-}" ]]; then
  if [[ -x /tmp/lcpvenv/bin/python ]]; then LCP_PYTHON=/tmp/lcpvenv/bin/python; else LCP_PYTHON=python3; fi
fi
export LCP_PYTHON
machine_line() {
  echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg)"
}

case "$SET" in
  default)
    TYPES="f16 q8_0 q4_0 q4_K tq2_0 tq1_0"
    "$ROOT/bench/make_models.sh" "$OUT_DIR" --shape "$SHAPE" >&2
    models=()
    for type in $TYPES; do models+=("$OUT_DIR/$SHAPE-$type.gguf"); done
    ;;
  real)
    GEMMA="${GEMMA:-/tmp/models/gemma-3-270m-q4_k_m.gguf}"
    models=("$GEMMA")
    for shape in $REAL_SHAPES; do
      name="$shape"
      [[ "$LAYERS" != 0 ]] && name="$shape-${LAYERS}l"
      for type in $REAL_TYPES; do models+=("$OUT_DIR/$name-$type-lq.gguf"); done
    done
    # Everything that cannot be made here, checked before hours of making and timing.
    missing=()
    [[ -x "$TRIT" ]] || missing+=("trit binary $TRIT (ninja -C build trit, or set TRIT)")
    "$LCP_PYTHON" -c "import llama_cpp" 2>/dev/null ||
      missing+=("llama-cpp-python in $LCP_PYTHON (python3 -m venv /tmp/lcpvenv && /tmp/lcpvenv/bin/pip install llama-cpp-python, or set LCP_PYTHON)")
    [[ -f "$GEMMA" ]] || missing+=("Gemma 3 270M file $GEMMA (set GEMMA)")
    if [[ "$MAKE" == 1 ]]; then
      PYTHON="${PYTHON:-$ROOT/.venv/bin/python}"
      "$PYTHON" -c "import gguf" 2>/dev/null || missing+=("the 'gguf' package in $PYTHON (set PYTHON), to make the models")
    else
      for m in "${models[@]:1}"; do [[ -f "$m" ]] || missing+=("$m (--no-make given)"); done
    fi
    if [[ ${#missing[@]} -gt 0 ]]; then
      echo "run_all.sh: --set real cannot run; missing:" >&2
      printf '  %s\n' "${missing[@]}" >&2
      exit 1
    fi
    if [[ "$MAKE" == 1 ]]; then
      for shape in $REAL_SHAPES; do
        # A type llama.cpp refuses fails only that file; the check below lists it.
        "$ROOT/bench/make_models.sh" "$OUT_DIR" --shape "$shape" --quantizer llama --types "$REAL_TYPES" \
          --layers "$LAYERS" >&2 || true
      done
    fi
    missing=()
    for m in "${models[@]}"; do [[ -f "$m" ]] || missing+=("$m"); done
    if [[ ${#missing[@]} -gt 0 ]]; then
      echo "run_all.sh: --set real: ${#missing[@]} of ${#models[@]} files missing (make_models.sh's log above says why):" >&2
      printf '  %s\n' "${missing[@]}" >&2
      exit 1
    fi
    echo "command: bench/run_all.sh $ARGS"
    ;;
  *) echo "run_all.sh: --set is default or real, not '$SET'" >&2; exit 2 ;;
esac

machine_line
"$LCP_PYTHON" "$ROOT/bench/vs_llamacpp.py" --trit "$TRIT" -t "$THREADS" -p "$PROMPT" -n "$GEN" -r "$REPS" "${models[@]}"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
