#!/usr/bin/env bash
# Sets up everything and runs trit's main job on the bundled model.
# Usage: scripts/run.sh [trit arguments...]
#   (default: run models/stories260K.gguf "Once upon a time" -n 200 --seed 42: a short story)
set -euo pipefail
source "$(dirname "$0")/lib.sh"

install_packages "${TRIT_BUILD_PACKAGES[@]}"
# Reuse a build directory that scripts/test.sh configured (tests included);
# otherwise configure one without tests, which need more packages.
if [ ! -f "$TRIT_ROOT/build/CMakeCache.txt" ]; then
  configure "$TRIT_ROOT/build" -DCMAKE_BUILD_TYPE=Release -DTRIT_BUILD_TESTS=OFF -DTRIT_BUILD_BENCH=OFF
fi
build "$TRIT_ROOT/build" trit

if [ $# -eq 0 ]; then
  set -- run "$TRIT_ROOT/models/stories260K.gguf" "Once upon a time" -n 200 --seed 42
fi
log "build/trit $*"
exec "$TRIT_ROOT/build/trit" "$@"
