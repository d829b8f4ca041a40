#!/usr/bin/env bash
# docs/C_API.md shows the example programs whole: each block after a line
# "<!-- example: PATH -->" must be exactly the file PATH (which the tests
# build and run), and every examples/c/*.c file must be shown.
# Usage: doc_examples_test.sh SOURCE_DIR
set -euo pipefail
src=$1
doc=$src/docs/C_API.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Writes each block to $tmp/N and prints "N PATH" per block.
awk -v dir="$tmp" '
  /^<!-- example: .* -->$/ { path = $3; want = 1; next }
  want == 1 && /^```/ { n++; file = dir "/" n; print n, path; printf "" > file; want = 2; next }
  want == 2 && /^```$/ { close(file); want = 0; next }
  want == 2 { print >> file }
' "$doc" >"$tmp/index"

status=0
while read -r n path; do
  if cmp -s "$tmp/$n" "$src/$path"; then echo "$path: shown whole"; else
    echo "docs/C_API.md's block for $path differs from the file:"; diff "$tmp/$n" "$src/$path" || true; status=1
  fi
done <"$tmp/index"
for f in "$src"/examples/c/*.c; do
  rel=${f#"$src"/}
  grep -q " $rel\$" "$tmp/index" || { echo "docs/C_API.md does not show $rel"; status=1; }
done
exit "$status"
