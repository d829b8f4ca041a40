#!/usr/bin/env bash
# libtrit.so exports exactly the C API: every defined dynamic symbol is a
# function trit.h declares (besides the version script's node, TRIT_1), and
# every function trit.h declares is exported at version TRIT_1.
# Usage: exported_symbols_test.sh LIBTRIT_SO TRIT_H
set -euo pipefail
lib=$1
header=$2

# "ADDRESS TYPE NAME[@@VERSION]" lines; older nm prints no version without asking.
raw=$(nm -D --defined-only --with-symbol-versions "$lib" | awk '{print $NF}' | sort -u)
names=$(sed -E 's/@.*//' <<<"$raw" | sort -u)
declared=$(grep -oE '^TRIT_API [^(]*[ *]trit_[a-z0-9_]+\(' "$header" | sed -E 's/.*[ *](trit_[a-z0-9_]+)\($/\1/' | sort -u)

status=0
n_declared=$(wc -l <<<"$declared")
if [ "$n_declared" -lt 20 ]; then
  echo "found only $n_declared declarations in $header: the pattern is wrong"; status=1
fi
while read -r sym; do
  [ "$sym" = TRIT_1 ] && continue
  grep -qx "$sym" <<<"$declared" || { echo "exported but not a function of trit.h: $sym"; status=1; }
done <<<"$names"
while read -r fn; do
  grep -qx "$fn" <<<"$names" || { echo "declared in trit.h but not exported: $fn"; status=1; }
  grep -qx "$fn@@TRIT_1" <<<"$raw" || { echo "not at version TRIT_1: $fn"; status=1; }
done <<<"$declared"
[ "$status" -eq 0 ] && echo "libtrit.so exports the $n_declared functions of trit.h and nothing else"
exit "$status"
