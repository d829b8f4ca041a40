#!/usr/bin/env bash
# Builds a stand-in device kernel with the host C compiler: a real ELF shared
# object carrying a trit.kernel note (docs/PACKS.md), which is all that
# `trit pack check` reads of a kernel. No device code is needed to test the
# checks; nothing here runs on a device.
#
#   make_kernel.sh CC OUT "op=matmul K=64 N=64 M=4"   # with the note
#   make_kernel.sh CC OUT ""                           # with no trit.kernel note
set -euo pipefail
cc="$1" out="$2" desc="$3"
work="$(mktemp -d "${TMPDIR:-/tmp}/trit-kernel.XXXXXX")"
trap 'rm -rf "$work"' EXIT
if [[ -n "$desc" ]]; then
  n=$(( ${#desc} + 1 ))            # the text and its NUL
  padded=$(( (n + 3) / 4 * 4 ))    # descriptors are padded to 4 bytes
  cat > "$work/k.c" <<C
struct note { unsigned namesz, descsz, type; char name[12]; char desc[$padded]; };
__attribute__((section(".note.trit.kernel"), aligned(4), used))
static const struct note trit_kernel = {12, $n, 1, "trit.kernel", "$desc"};
int kernel_entry(void) { return 0; }
C
else
  echo 'int kernel_entry(void) { return 0; }' > "$work/k.c"
fi
"$cc" -shared -fPIC -o "$out" "$work/k.c"
