#!/usr/bin/env bash
# Installs the build to a temporary prefix and builds programs against the
# installed C API as an application would: with pkg-config (trit.pc:
# libtrit.so; trit-static.pc: libtrit.a) and with CMake's find_package(trit)
# (trit::trit, trit::trit_static). Each runs examples/c/generate.c on the
# bundled model and must print what `trit run ... --temp 0 --raw` prints.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR TRIT_BINARY C_COMPILER
set -euo pipefail
build=$1
src=$2
trit=$3
cc=$4

tmp=$(mktemp -d "${TMPDIR:-/tmp}/trit-install-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" || { cat "$tmp/install.log"; exit 1; }

libdir=$(dirname "$(find "$prefix" -name trit.pc -print -quit)")/..
for f in include/trit/trit.h; do [ -f "$prefix/$f" ] || { echo "not installed: $f"; exit 1; }; done
for f in libtrit.a libtrit.so libtrit.so.1 cmake/trit/tritConfig.cmake cmake/trit/tritConfigVersion.cmake; do
  [ -e "$libdir/$f" ] || { echo "not installed: $libdir/$f"; exit 1; }
done

model=$src/models/stories260K.gguf
expected=$("$trit" run "$model" "Once upon a time" -n 24 --temp 0 --raw)
[ -n "$expected" ] || { echo "trit run printed nothing"; exit 1; }
check() {  # check NAME PROGRAM
  local got
  got=$("$2" "$model" "Once upon a time" 24 2>"$tmp/$1.err") || { echo "$1 failed:"; cat "$tmp/$1.err"; exit 1; }
  [ "$got" = "$expected" ] || { printf '%s printed:\n%s\nexpected:\n%s\n' "$1" "$got" "$expected"; exit 1; }
  echo "$1: ok"
}

export PKG_CONFIG_PATH=$libdir/pkgconfig
# Shared: -ltrit finds libtrit.so; the program finds it at run time by its rpath.
"$cc" -std=c11 -Wall -Wextra -Werror -o "$tmp/generate-pc" "$src/examples/c/generate.c" \
  $(pkg-config --cflags --libs trit) -Wl,-rpath,"$libdir"
check pkg-config-shared "$tmp/generate-pc"
# ldd's output is kept before grep reads it: with pipefail, `ldd | grep -q`
# failed whenever grep's early exit cut ldd off (SIGPIPE) mid-list.
libs=$(ldd "$tmp/generate-pc")
if grep -q "libtrit.so.1 => $libdir" <<<"$libs"; then :; else
  echo "generate-pc does not load the installed libtrit.so.1:"; echo "$libs"; exit 1
fi
# Static: libtrit.a and what it needs; no libtrit.so at run time.
"$cc" -std=c11 -Wall -Wextra -Werror -o "$tmp/generate-pc-static" "$src/examples/c/generate.c" \
  $(pkg-config --cflags --libs trit-static)
check pkg-config-static "$tmp/generate-pc-static"
libs=$(ldd "$tmp/generate-pc-static")
if grep -q libtrit <<<"$libs"; then echo "the static program loads libtrit"; exit 1; fi

# CMake: find_package(trit) in a C-only project.
mkdir -p "$tmp/consumer"
cat >"$tmp/consumer/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(trit_consumer LANGUAGES C)
find_package(trit 0.1 REQUIRED)
add_executable(generate_shared "$src/examples/c/generate.c")
target_link_libraries(generate_shared PRIVATE trit::trit)
add_executable(generate_static "$src/examples/c/generate.c")
target_link_libraries(generate_static PRIVATE trit::trit_static)
CMAKE
cmake -S "$tmp/consumer" -B "$tmp/consumer/build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
  -DCMAKE_BUILD_TYPE=Release >"$tmp/consumer.log" 2>&1 || { cat "$tmp/consumer.log"; exit 1; }
cmake --build "$tmp/consumer/build" >>"$tmp/consumer.log" 2>&1 || { cat "$tmp/consumer.log"; exit 1; }
check find_package-shared "$tmp/consumer/build/generate_shared"
check find_package-static "$tmp/consumer/build/generate_static"
