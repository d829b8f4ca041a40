#!/usr/bin/env bash
# A long fuzzing campaign: builds the fuzz targets (clang, libFuzzer, ASan +
# UBSan) and runs each over its committed corpus (fuzz/corpus/TARGET) and the
# seeds fuzz/seeds.sh writes, with its dictionary, for the given time. Not
# part of CI; fuzz/README.md records the last campaign's table.
#
#   fuzz/campaign.sh [SECONDS_PER_TARGET] [TARGET...] [options]
#
#   SECONDS_PER_TARGET  default 600 (10 minutes)
#   TARGET...           default: every target (fuzz/lib.sh lists them)
#   --runs N            also stop a target after N inputs (e.g. 10000000)
#   --jobs N            targets run at once (default 1; each uses one core)
#   --work DIR          where corpora, findings and logs live (default
#                       $TRIT_FUZZ_WORK or ~/.cache/trit-fuzz; outside the repo)
#   --save-corpus       afterwards, merge each target's corpus into
#                       fuzz/corpus/TARGET, minimized (libFuzzer
#                       -set_cover_merge=1: a small set of inputs with the
#                       same features; each cut to --save-max-len bytes,
#                       default 1024)
#
# The corpus in WORK/TARGET/corpus is kept between campaigns, so coverage
# accumulates. A crash, leak, out-of-memory (over 2 GiB) or timeout (over 25 s
# for one input) stops libFuzzer; the campaign minimizes the input, saves it
# in WORK/TARGET/findings/ with a line saying how to reproduce it, and goes on
# fuzzing that target for the rest of its time (it stops when the same bug
# comes back, or after 5 findings).
# The closing table: target, inputs run, coverage (edges and features),
# corpus size, executions a second, findings. Exits non-zero when anything
# was found.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

usage() { sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//'; }

seconds=600
runs=0
jobs=1
work="${TRIT_FUZZ_WORK:-$HOME/.cache/trit-fuzz}"
save_corpus=0
save_max_len=1024
targets=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) runs="${2:?--runs needs a number}"; shift 2 ;;
    --jobs) jobs="${2:?--jobs needs a number}"; shift 2 ;;
    --work) work="${2:?--work needs a directory}"; shift 2 ;;
    --save-corpus) save_corpus=1; shift ;;
    --save-max-len) save_max_len="${2:?--save-max-len needs a number}"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "campaign: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *)
      if [[ "$1" =~ ^[0-9]+$ ]]; then
        seconds="$1"
      elif [[ " ${FUZZ_TARGETS[*]} " == *" $1 "* ]]; then
        targets+=("$1")
      else
        echo "campaign: '$1' is neither a number of seconds nor a target; targets: ${FUZZ_TARGETS[*]}" >&2
        exit 2
      fi
      shift ;;
  esac
done
[[ ${#targets[@]} -eq 0 ]] && targets=("${FUZZ_TARGETS[@]}")
for n in "$seconds" "$runs" "$jobs" "$save_max_len"; do
  [[ "$n" =~ ^[0-9]+$ ]] || { echo "campaign: '$n' is not a number" >&2; exit 2; }
done
[[ "$jobs" -ge 1 ]] || { echo "campaign: --jobs must be at least 1" >&2; exit 2; }

echo "campaign: building the fuzz targets into $FUZZ_BUILD" >&2
fuzz_build >/dev/null
mkdir -p "$work"
work="$(cd "$work" && pwd)"
# This campaign's own seeds (campaigns of other targets may share WORK).
seeds="$(mktemp -d "$work/seeds.XXXXXX")"
trap 'rm -rf "$seeds"' EXIT
"$FUZZ_REPO/fuzz/seeds.sh" "$FUZZ_BUILD" "$seeds" --copyable-only
started="$(date -u +%Y-%m-%dT%H:%MZ)"
runs_note=""
[[ "$runs" -gt 0 ]] && runs_note=" (or $runs inputs, whichever comes first)"

# campaign_target TARGET: runs TARGET for its time, restarting after each
# finding; writes one table row to WORK/TARGET/row.
campaign_target() {
  local target="$1"
  local bin="$FUZZ_BUILD/fuzz/$target"
  local dir="$work/$target"
  mkdir -p "$dir/corpus" "$dir/findings" "$dir/logs"
  local corpora=("$dir/corpus" "$seeds/$target")
  [[ -d "$FUZZ_REPO/fuzz/corpus/$target" ]] && corpora+=("$FUZZ_REPO/fuzz/corpus/$target")
  local -a options
  mapfile -t options < <(fuzz_options "$target")

  local left="$seconds" total_runs=0 findings=0 attempt=0 cov="-" ft="-" elapsed_all=0
  : > "$dir/findings.txt"
  : > "$dir/signatures"
  while [[ "$left" -gt 0 && "$findings" -lt 5 ]]; do
    attempt=$((attempt + 1))
    local log="$dir/logs/run-$attempt.log" limit=()
    if [[ "$runs" -gt 0 ]]; then
      [[ "$total_runs" -ge "$runs" ]] && break
      limit=(-runs=$((runs - total_runs)))
    fi
    local marker="$dir/logs/.start-$attempt" t0 status=0
    touch "$marker"
    t0="$(date +%s)"
    "$bin" "${options[@]}" "${limit[@]}" -max_total_time="$left" -timeout=25 -rss_limit_mb=2048 \
      -malloc_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$dir/findings/" \
      "${corpora[@]}" > "$log" 2>&1 || status=$?
    local took=$(( $(date +%s) - t0 ))
    elapsed_all=$((elapsed_all + took))
    left=$((left - took))
    local n
    n="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
    total_runs=$((total_runs + ${n:-0}))
    local last
    last="$(grep -E '^#[0-9]+.*cov: [0-9]+' "$log" | tail -n 1 || true)"
    if [[ -n "$last" ]]; then
      cov="$(sed -E 's/.*cov: ([0-9]+).*/\1/' <<< "$last")"
      ft="$(sed -E 's/.*ft: ([0-9]+).*/\1/' <<< "$last")"
    fi
    [[ "$status" -eq 0 ]] && break
    # A finding: every artifact this run wrote, minimized where libFuzzer can.
    local found=0 artifact
    while IFS= read -r -d '' artifact; do
      found=1
      findings=$((findings + 1))
      local kind="${artifact##*/}"; kind="${kind%%-*}"
      local minimized="$dir/findings/minimized-${artifact##*/}"
      "$bin" "${options[@]}" -minimize_crash=1 -max_total_time=120 -timeout=25 -rss_limit_mb=2048 \
        -malloc_limit_mb=2048 -exact_artifact_path="$minimized" "$artifact" > "$dir/logs/minimize-$attempt.log" 2>&1 || true
      [[ -s "$minimized" ]] || minimized="$artifact"
      local what where
      what="$(grep -m1 -E '^SUMMARY:|ERROR: libFuzzer:|==ERROR:' "$log" | sed 's/^[=0-9]*//' || true)"
      # Where: the first stack frame in trit's own code names the bug.
      where="$(grep -m1 -oE " in [^ ]+ $FUZZ_REPO/(src|fuzz)/[^ ]+" "$log" | sed "s| $FUZZ_REPO/| |" || true)"
      printf '%s: %s (%s bytes) %s%s\n  reproduce: %s %s\n' "$target" "$kind" "$(stat -c %s "$minimized")" \
        "${what:-see $log}" "${where:+,$where}" "$bin" "$minimized" >> "$dir/findings.txt"
      # The same bug found again: stop this target rather than rediscover it.
      if grep -qxF "$kind$where" "$dir/signatures" 2>/dev/null; then
        printf '%s: the same finding again; this target stops here\n' "$target" >> "$dir/findings.txt"
        left=0
      fi
      echo "$kind$where" >> "$dir/signatures"
    done < <(find "$dir/findings" -maxdepth 1 -type f -newer "$marker" \
               \( -name 'crash-*' -o -name 'oom-*' -o -name 'timeout-*' -o -name 'leak-*' \) -print0)
    if [[ "$found" -eq 0 ]]; then
      # No input to blame (a bad flag or dictionary, a crash while loading the
      # corpus): running it again would fail the same way.
      findings=$((findings + 1))
      printf '%s: libFuzzer exited %s without an artifact: %s\n  see %s\n' "$target" "$status" \
        "$(grep -m1 -iE 'error' "$log" || tail -n 1 "$log")" "$log" >> "$dir/findings.txt"
      break
    fi
  done
  local files size
  files="$(find "$dir/corpus" -type f | wc -l)"
  size="$(find "$dir/corpus" -type f -printf '%s\n' | awk '{ s += $1 } END { printf "%.0f KiB", s / 1024 }')"
  local rate="-"
  [[ "$elapsed_all" -gt 0 ]] && rate=$((total_runs / elapsed_all))
  printf '| %s | %s | %s | %s | %s files, %s | %s | %s | %s |\n' "$target" "$total_runs" "$cov" "$ft" \
    "$files" "$size" "$elapsed_all" "$rate" "$findings" > "$dir/row"
  echo "campaign: $target done: $total_runs inputs in ${elapsed_all}s, $findings finding(s)" >&2
}

echo "campaign: ${#targets[@]} target(s), ${seconds}s each$runs_note, $jobs at once; work in $work" >&2
# 0 seconds: no fuzzing, no table (merging an existing corpus with --save-corpus).
[[ "$seconds" -eq 0 ]] && targets_to_run=() || targets_to_run=("${targets[@]}")
running=0
for target in "${targets_to_run[@]}"; do
  if [[ "$running" -ge "$jobs" ]]; then
    wait -n || true
    running=$((running - 1))
  fi
  campaign_target "$target" &
  running=$((running + 1))
done
wait

if [[ "$save_corpus" -eq 1 ]]; then
  for target in "${targets[@]}"; do
    dest="$FUZZ_REPO/fuzz/corpus/$target"
    merged="$work/$target/merged"
    rm -rf "$merged"
    mkdir -p "$merged" "$dest"
    mapfile -t options < <(fuzz_options "$target" | grep -v '^-max_len=')
    "$FUZZ_BUILD/fuzz/$target" "${options[@]}" -set_cover_merge=1 -max_len="$save_max_len" -rss_limit_mb=2048 \
      "$merged" "$dest" "$work/$target/corpus" > "$work/$target/logs/merge.log" 2>&1
    rm -rf "$dest"
    mv "$merged" "$dest"
    echo "campaign: $target corpus saved: $(find "$dest" -type f | wc -l) files," \
      "$(find "$dest" -type f -printf '%s\n' | awk '{ s += $1 } END { printf "%.0f KiB", s / 1024 }')" >&2
  done
fi

[[ "$seconds" -eq 0 ]] && exit 0
echo
echo "Campaign of $started, ${seconds} s a target$runs_note, $jobs at once, $(uname -m), $(nproc) CPUs:"
echo
echo "| target | inputs run | coverage (edges) | features | corpus | seconds | inputs/s | findings |"
echo "|---|---:|---:|---:|---|---:|---:|---:|"
status=0
for target in "${targets[@]}"; do
  cat "$work/$target/row"
  [[ -s "$work/$target/findings.txt" ]] && status=1
done
if [[ "$status" -ne 0 ]]; then
  echo
  echo "Findings:"
  for target in "${targets[@]}"; do cat "$work/$target/findings.txt"; done
fi
exit "$status"
