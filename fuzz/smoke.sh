#!/usr/bin/env bash
# Builds the fuzz targets into build-fuzz (or the clang tree FUZZ_BUILD
# names, as CI's sanitizer tree) and runs each for N seconds
# (default 10), starting from the committed corpus (fuzz/corpus/TARGET) and
# the seeds fuzz/seeds.sh writes from the test data and the shared data, with
# the target's dictionary (fuzz/dict/). New inputs go to a temporary directory;
# nothing is written into the repository except the build directory. CI runs
# it for 5 seconds a target; fuzz/campaign.sh is the long run.
#
#   fuzz/smoke.sh [SECONDS]
#
# Exits non-zero, naming the crashing input (kept under build-fuzz/fuzz-artifacts/),
# when the fuzzer finds a crash, a leak, a timeout or an out-of-memory.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

seconds="${1:-10}"
fuzz_build

work="$(mktemp -d "${TMPDIR:-/tmp}/trit-fuzz.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$FUZZ_BUILD/fuzz-artifacts"
"$FUZZ_REPO/fuzz/seeds.sh" "$FUZZ_BUILD" "$work/seeds"

for target in "${FUZZ_TARGETS[@]}"; do
  mkdir -p "$work/new/$target"
  corpora=("$work/new/$target" "$work/seeds/$target")
  [[ -d "$FUZZ_REPO/fuzz/corpus/$target" ]] && corpora+=("$FUZZ_REPO/fuzz/corpus/$target")
  mapfile -t options < <(fuzz_options "$target")
  status=0
  "$FUZZ_BUILD/fuzz/$target" "${options[@]}" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$FUZZ_BUILD/fuzz-artifacts/" \
    "${corpora[@]}" > "$work/$target.log" 2>&1 || status=$?
  tail -n 20 "$work/$target.log"
  if [[ $status -ne 0 ]]; then
    echo "fuzz-smoke: $target FAILED (exit $status): the fuzzer found a bug; reproduce with" >&2
    echo "  $FUZZ_BUILD/fuzz/$target <input>   (inputs kept in $FUZZ_BUILD/fuzz-artifacts/)" >&2
    ls -1t "$FUZZ_BUILD/fuzz-artifacts/" >&2 || true
    exit 1
  fi
  echo "fuzz-smoke: $target ok (${seconds}s, no crash)"
done
