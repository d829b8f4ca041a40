#!/usr/bin/env bash
# Builds the GGUF reader fuzz target into build-fuzz and runs it for N seconds
# (default 10) over the seed corpus: the bundled model and llama.cpp's vocab
# GGUFs from the shared data, plus small valid copies of them written by
# make_gguf_seeds (all in a temporary directory; nothing is written into the
# repository except the build directory). Inputs are capped at FUZZ_MAX_LEN
# bytes (default 65536): the big seeds then serve as truncated files, the
# small ones as complete files, and the fuzzer runs thousands of inputs a second.
#
#   fuzz/smoke.sh [SECONDS]
#
# Exits non-zero, naming the crashing input (kept under build-fuzz/fuzz-artifacts/),
# when the fuzzer finds a crash, a leak, a timeout or an out-of-memory.
set -euo pipefail

seconds="${1:-10}"
repo="$(cd "$(dirname "$0")/.." && pwd)"
build="$repo/build-fuzz"
shared="${TRIT_SHARED_DATA:-$repo/../shared/data}"

if [[ ! -f "$build/build.ninja" ]]; then
  CC=clang CXX=clang++ cmake -S "$repo" -B "$build" -G Ninja -DTRIT_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
cmake --build "$build" -j2 --target gguf_reader_fuzz make_gguf_seeds

work="$(mktemp -d "${TMPDIR:-/tmp}/trit-fuzz.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$work/seeds" "$build/fuzz-artifacts"
cp "$repo/models/stories260K.gguf" "$work/seeds/"
if compgen -G "$shared/vocab/llama.cpp/*.gguf" > /dev/null; then
  cp "$shared"/vocab/llama.cpp/*.gguf "$work/seeds/"
else
  echo "fuzz-smoke: no vocab GGUFs under $shared/vocab/llama.cpp; seeding with the bundled model only" >&2
fi

"$build/fuzz/make_gguf_seeds" "$work/seeds" "$work"/seeds/*.gguf

# New inputs go to the first directory (scratch); seeds are only read.
status=0
"$build/fuzz/gguf_reader_fuzz" \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="${FUZZ_MAX_LEN:-65536}" -print_final_stats=1 \
  -artifact_prefix="$build/fuzz-artifacts/" \
  "$work/corpus" "$work/seeds" 2>&1 | tail -n 40 || status=$?
if [[ $status -ne 0 ]]; then
  echo "fuzz-smoke: FAILED (exit $status): the fuzzer found a bug; reproduce with" >&2
  echo "  $build/fuzz/gguf_reader_fuzz <input>   (inputs kept in $build/fuzz-artifacts/)" >&2
  ls -1t "$build/fuzz-artifacts/" >&2 || true
  exit 1
fi
echo "fuzz-smoke: ok (${seconds}s, no crash)"
