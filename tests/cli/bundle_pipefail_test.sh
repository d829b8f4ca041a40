#!/usr/bin/env bash
# `nm -D LIB | grep -q NAME` under `set -o pipefail` reports "absent" for a
# symbol that is there: grep exits at the first match, nm dies of SIGPIPE
# (exit 141) and pipefail takes nm's status. `trit bundle symbols --has`
# answers from the file itself, and trit's listing survives a closed pipe.
#   bundle_pipefail_test.sh TRIT LIB NAME
set -uo pipefail
trit="$1" lib="$2" name="$3"
fail() { echo "FAIL: $*" >&2; exit 1; }

if nm -D "$lib" | grep -q "$name"; then
  echo "nm -D | grep -q: present (this nm finished before grep exited; the race did not show)"
else
  status=("${PIPESTATUS[@]}")
  echo "nm -D | grep -q: WRONG ANSWER, says absent (nm exit ${status[0]}, grep exit ${status[1]})"
  [[ "${status[0]}" == 141 ]] || fail "expected nm to die of SIGPIPE (141), got ${status[0]}"
  nm_wrong=1
fi

"$trit" bundle symbols "$lib" --has "$name" || fail "trit bundle symbols --has $name: exit $?, expected 0"
echo "trit bundle symbols --has: present (right)"
"$trit" bundle symbols "$lib" --has "no_such_symbol_$$" && fail "--has of an absent name gave 0"
"$trit" bundle symbols "$lib" | grep -q "$name" || fail "trit bundle symbols | grep -q: pipeline failed (status ${PIPESTATUS[*]})"
echo "trit bundle symbols | grep -q: present (right, trit exited 0 on the closed pipe)"
[[ "${nm_wrong:-0}" == 1 ]] || echo "note: nm happened to give the right answer this time"
exit 0
