#!/usr/bin/env bash
# Builds the binaries the `trit bundle` / binfmt tests read, into OUT (never
# committed): ELF with gcc/g++ (and a 32-bit big-endian PowerPC library with
# clang + ld.lld), PE with mingw-w64 (delay-load imports linked by ld.lld,
# since GNU ld does not fill the delay-import directory), Mach-O with clang +
# ld64.lld (and a universal file with llvm-lipo). A toolchain that is missing
# leaves its directory out and writes OUT/<format>.skipped with the reason;
# the tests then skip, saying so.
#
#   make_fixtures.sh OUT
set -euo pipefail
out="$1"
rm -rf "$out"
mkdir -p "$out"
work="$out/.work"
mkdir -p "$work"

# A tool by name, or Debian's versioned name (ld64.lld-14, llvm-lipo-14).
tool() {
  local n
  for n in "$1" "$1"-{14..20}; do
    if command -v "$n" >/dev/null; then command -v "$n"; return 0; fi
  done
  return 1
}

skip() { echo "$2" > "$out/$1.skipped"; echo "binfmt fixtures: $1 skipped: $2" >&2; }

# ---------------------------------------------------------------- ELF
elf() {
  local e="$out/elf"
  mkdir -p "$e/good/bin" "$e/good/lib" "$e/missing/bin" "$e/absrpath/lib" "$e/mixed/lib"
  cat > "$work/engine.cpp" <<'SRC'
#include <string>
extern "C" int engine_run(const char* s) { return static_cast<int>(std::string(s).size()); }
SRC
  cat > "$work/app.cpp" <<'SRC'
extern "C" int engine_run(const char* s);
int main() { return engine_run("hi") == 2 ? 0 : 1; }
SRC
  g++ -shared -fPIC -o "$e/good/lib/libengine.so" -Wl,-soname,libengine.so "$work/engine.cpp"
  g++ -o "$e/good/bin/app" "$work/app.cpp" -L"$e/good/lib" -lengine -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../lib'
  echo 'engine plugin' > "$e/good/lib/README.txt"
  # A library the bundle needs but does not ship.
  printf 'int gone(void) { return 1; }\n' > "$work/gone.c"
  printf 'int gone(void);\nint main(void) { return gone(); }\n' > "$work/app2.c"
  gcc -shared -fPIC -o "$work/libgone.so" -Wl,-soname,libgone.so "$work/gone.c"
  gcc -o "$e/missing/bin/app2" "$work/app2.c" -L"$work" -lgone -Wl,--disable-new-dtags,-rpath,'$ORIGIN'
  # An absolute rpath.
  printf 'int abs_fn(void) { return 2; }\n' > "$work/abs.c"
  gcc -shared -fPIC -o "$e/absrpath/lib/libabs.so" -Wl,-soname,libabs.so -Wl,-rpath,/opt/trit/lib:'$ORIGIN' "$work/abs.c"
  # Two C++ runtimes in one bundle: libengine (libstdc++) and a library linked
  # against a libc++.so.1 (a stand-in shipped with the bundle: only its name matters).
  printf 'int cxx_stub(void) { return 3; }\n' > "$work/cxxstub.c"
  gcc -shared -fPIC -o "$e/mixed/lib/libc++.so.1" -Wl,-soname,libc++.so.1 "$work/cxxstub.c"
  printf 'int cxx_stub(void);\nint uses_libcxx(void) { return cxx_stub(); }\n' > "$work/uses.c"
  gcc -shared -fPIC -o "$e/mixed/lib/libuses_libcxx.so" -Wl,-soname,libuses_libcxx.so "$work/uses.c" \
    -L"$e/mixed/lib" -l:libc++.so.1 -Wl,--enable-new-dtags,-rpath,'$ORIGIN'
  cp "$e/good/lib/libengine.so" "$e/mixed/lib/"
  # Device kernels as a toolchain would ship them (docs/PACKS.md): two shared
  # objects carrying a trit.kernel note (op, K, N, M) and one with none;
  # each also carries the linker's GNU build-id note.
  mkdir -p "$e/kernels"
  kernel_note() {  # NAME DESC: a C file whose only data is the note
    local desc="$2" n=$(( ${#2} + 1 ))
    local padded=$(( (n + 3) / 4 * 4 ))
    cat > "$work/$1.c" <<SRC
struct note { unsigned namesz, descsz, type; char name[12]; char desc[$padded]; };
__attribute__((section(".note.trit.kernel"), aligned(4), used))
static const struct note trit_kernel = {12, $n, 1, "trit.kernel", "$desc"};
int kernel_entry(void) { return 0; }
SRC
    gcc -shared -fPIC -o "$e/kernels/$1" "$work/$1.c"
  }
  kernel_note full_i8_matmul_K640_N2048.elf "op=matmul K=640 N=2048 M=64"
  kernel_note SEALED-lmhead.elf "op=lmhead K=640 N=262144 M=1"
  printf 'int plain_entry(void) { return 1; }\n' > "$work/plain.c"
  gcc -shared -fPIC -o "$e/kernels/no_note.elf" "$work/plain.c"
  # 32-bit big-endian (PowerPC), with a DT_NEEDED, a DT_RPATH and a required
  # version GLIBC_2.99 from a version script: clang + ld.lld, no libc needed.
  if command -v clang >/dev/null && command -v ld.lld >/dev/null; then
    mkdir -p "$e/be32"
    printf 'int versioned(void) { return 4; }\n' > "$work/vlib.c"
    printf 'GLIBC_2.0 { global: *; };\nGLIBC_2.99 { global: versioned; } GLIBC_2.0;\n' > "$work/v.map"
    printf 'int versioned(void);\nint be_entry(void) { return versioned(); }\n' > "$work/be.c"
    clang --target=powerpc-linux-gnu -fPIC -c -o "$work/vlib.o" "$work/vlib.c"
    clang --target=powerpc-linux-gnu -fPIC -c -o "$work/be.o" "$work/be.c"
    ld.lld -shared -o "$work/libvers.so" -soname libvers.so --version-script "$work/v.map" "$work/vlib.o"
    ld.lld -shared --disable-new-dtags -o "$e/be32/libbe.so" -soname libbe.so -rpath '$ORIGIN/deps' "$work/be.o" "$work/libvers.so"
  else
    skip elf-be32 "clang or ld.lld not installed"
  fi
}

# ---------------------------------------------------------------- PE
pe() {
  if ! command -v x86_64-w64-mingw32-gcc >/dev/null || ! command -v ld.lld >/dev/null \
     || ! command -v llvm-dlltool >/dev/null; then
    skip pe "needs x86_64-w64-mingw32-gcc (gcc-mingw-w64-x86-64), ld.lld (lld), llvm-dlltool (llvm)"
    return
  fi
  local p="$out/pe"
  mkdir -p "$p/app"
  printf '__declspec(dllexport) int engine_run(void) { return 1; }\n__declspec(dllexport) int engine_stop(void) { return 0; }\n' > "$work/engine_pe.c"
  printf '__declspec(dllexport) int plugin_init(void) { return 2; }\n' > "$work/plugin_pe.c"
  printf 'int engine_run(void);\nint plugin_init(void);\nint main(void) { return engine_run() + plugin_init(); }\n' > "$work/app_pe.c"
  x86_64-w64-mingw32-gcc -shared -o "$p/app/engine.dll" "$work/engine_pe.c"
  x86_64-w64-mingw32-gcc -shared -o "$p/app/plugin.dll" "$work/plugin_pe.c"
  printf 'LIBRARY engine.dll\nEXPORTS\nengine_run\nengine_stop\n' > "$work/engine.def"
  printf 'LIBRARY plugin.dll\nEXPORTS\nplugin_init\n' > "$work/plugin.def"
  # llvm-dlltool writes short import libraries, which ld.lld can delay-load.
  llvm-dlltool -m i386:x86-64 -d "$work/engine.def" -l "$work/libengine.a"
  llvm-dlltool -m i386:x86-64 -d "$work/plugin.def" -l "$work/libplugin.a"
  x86_64-w64-mingw32-gcc -c -o "$work/app_pe.o" "$work/app_pe.c"
  local gcc_dir sys_dir
  gcc_dir="$(dirname "$(x86_64-w64-mingw32-gcc -print-libgcc-file-name)")"
  sys_dir="$(dirname "$(x86_64-w64-mingw32-gcc -print-file-name=crt2.o)")"
  ld.lld -m i386pep -Bdynamic -o "$p/app/app.exe" "$sys_dir/crt2.o" "$gcc_dir/crtbegin.o" \
    -L"$gcc_dir" -L"$sys_dir" "$work/app_pe.o" "$work/libengine.a" "$work/libplugin.a" \
    -lmingw32 -lgcc -lgcc_eh -lmoldname -lmingwex -lmsvcrt -lkernel32 -lmingw32 -lgcc -lmoldname -lmingwex -lmsvcrt \
    -lkernel32 "$gcc_dir/crtend.o" --delayload=plugin.dll
  # A C++ DLL (imports libstdc++-6.dll) beside a DLL importing the MSVC STL
  # (msvcp140.dll, through an import library made from a .def): two C++ runtimes.
  mkdir -p "$p/mixed"
  printf '#include <string>\nextern "C" __declspec(dllexport) int gnu_cxx(const char* s) { return (int)std::string(s).size(); }\n' > "$work/gnu.cpp"
  x86_64-w64-mingw32-g++ -shared -o "$p/mixed/gnu_cxx.dll" "$work/gnu.cpp"
  printf 'LIBRARY msvcp140.dll\nEXPORTS\n_Thrd_yield\n' > "$work/msvcp.def"
  llvm-dlltool -m i386:x86-64 -d "$work/msvcp.def" -l "$work/libmsvcp.a"
  printf 'int _Thrd_yield(void);\n__declspec(dllexport) int msvc_user(void) { return _Thrd_yield(); }\n' > "$work/msvc.c"
  x86_64-w64-mingw32-gcc -shared -o "$p/mixed/msvc_user.dll" "$work/msvc.c" "$work/libmsvcp.a"
  # PE32: a 32-bit DLL that imports one function, no C runtime (no i686 mingw needed).
  printf 'LIBRARY KERNEL32.dll\nEXPORTS\nGetTickCount@0\n' > "$work/k32.def"
  printf '__declspec(dllimport) unsigned long __stdcall GetTickCount(void);\n__declspec(dllexport) unsigned long ticks32(void) { return GetTickCount(); }\nint __stdcall DllMainCRTStartup(void* a, unsigned b, void* c) { (void)a; (void)b; (void)c; return 1; }\n' > "$work/pe32.c"
  if clang --target=i686-w64-mingw32 -c -o "$work/pe32.o" "$work/pe32.c" 2>/dev/null \
     && llvm-dlltool -m i386 -k -d "$work/k32.def" -l "$work/libk32.a" \
     && ld.lld -m i386pe -shared -o "$p/pe32.dll" "$work/pe32.o" "$work/libk32.a" --entry=_DllMainCRTStartup@12; then
    :
  else
    skip pe32 "clang could not build the i686 DLL"
  fi
}

# ---------------------------------------------------------------- Mach-O
macho() {
  local ld64 lipo
  if ! command -v clang >/dev/null || ! ld64="$(tool ld64.lld)"; then
    skip macho "needs clang and ld64.lld (lld)"
    return
  fi
  local m="$out/macho"
  mkdir -p "$m/bundle/bin" "$m/bundle/lib"
  # A text stub for libSystem (ld64.lld links against .tbd files as Apple's ld does).
  cat > "$work/libSystem.tbd" <<'TBD'
--- !tapi-tbd
tbd-version: 4
targets: [ x86_64-macos, arm64-macos ]
install-name: '/usr/lib/libSystem.B.dylib'
current-version: 1311
exports:
  - targets: [ x86_64-macos, arm64-macos ]
    symbols: [ dyld_stub_binder, _printf ]
...
TBD
  printf 'int foo(void) { return 1; }\nint foo_extra(void) { return 2; }\n' > "$work/foo.c"
  printf 'int bar(void) { return 3; }\n' > "$work/bar.c"
  printf 'int weak_fn(void) { return 4; }\n' > "$work/weak.c"
  printf 'int foo(void);\nint bar(void);\nint weak_fn(void) __attribute__((weak_import));\nint main(void) { return foo() + bar() + (weak_fn ? weak_fn() : 0); }\n' > "$work/main.c"
  local arch
  for arch in arm64 x86_64; do
    for f in foo bar weak main; do
      clang --target=$arch-apple-macos11 -c -o "$work/$f.$arch.o" "$work/$f.c"
    done
    local lds=("$ld64" -arch $arch -platform_version macos 11.0 11.0)
    "${lds[@]}" -dylib -install_name @loader_path/libbar.dylib -o "$work/libbar.$arch.dylib" "$work/bar.$arch.o" "$work/libSystem.tbd"
    "${lds[@]}" -dylib -install_name @rpath/libweak.dylib -o "$work/libweak.$arch.dylib" "$work/weak.$arch.o" "$work/libSystem.tbd"
    "${lds[@]}" -dylib -install_name @rpath/libfoo.dylib -o "$work/libfoo.$arch.dylib" "$work/foo.$arch.o" \
      -reexport_library "$work/libbar.$arch.dylib" "$work/libSystem.tbd" -rpath @loader_path
    # ld64.lld 14 cannot follow an @loader_path re-export at link time, so the
    # executable links against a copy of libfoo without it (same install name).
    "${lds[@]}" -dylib -install_name @rpath/libfoo.dylib -o "$work/libfoo-link.$arch.dylib" "$work/foo.$arch.o" "$work/libSystem.tbd"
    "${lds[@]}" -o "$work/app.$arch" "$work/main.$arch.o" "$work/libbar.$arch.dylib" "$work/libfoo-link.$arch.dylib" \
      -weak_library "$work/libweak.$arch.dylib" "$work/libSystem.tbd" -rpath @loader_path/../lib -rpath /opt/abs/lib
  done
  cp "$work/app.arm64" "$m/bundle/bin/app"
  cp "$work/libfoo.arm64.dylib" "$m/bundle/lib/libfoo.dylib"
  cp "$work/libbar.arm64.dylib" "$m/bundle/lib/libbar.dylib"
  cp "$work/libbar.arm64.dylib" "$m/bundle/bin/libbar.dylib"  # the app loads it from @loader_path
  # libweak.dylib is left out on purpose: a weak dylib may be absent.
  if lipo="$(tool llvm-lipo)"; then
    "$lipo" -create "$work/libfoo.arm64.dylib" "$work/libfoo.x86_64.dylib" -output "$m/libfoo_universal.dylib"
  else
    skip macho-fat "llvm-lipo not installed"
  fi
}

elf
pe
macho
rm -rf "$work"
touch "$out/.done"
