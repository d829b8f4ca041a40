#!/usr/bin/env python3
"""Fails when an #include in src/ or include/ points up a layer.

Every `#include "..."` of every source file under src/ and include/ is mapped
to the module it names (src/<module>/..., or a public header of include/trit/)
and checked against LAYERS below: a module may include its own files and the
modules it sees (directly or through what those see), all of them in lower
layers. A violation is printed as

    src/base/foo.h:12: includes "cli/command.h": base (layer 0) may not include cli (layer 9): upward

and the script exits 1. A file in a folder of src/ that the table does not
name, and an include that resolves to no module, are violations too
(fail-closed: a new module gets a place in the table before it gets code).
Angle-bracket includes (the standard library, third-party headers) are not
checked.

The clients of the C API outside src/ (CLIENT_DIRS: the Python package's
native module, the C examples) sit on top of the house: they may include
include/trit/trit.h and nothing else of trit (no src/ header, quoted or in
angle brackets, and no other include/trit/ header), so Python and C users
get exactly what the C API gives. ctest runs this script (tests/CMakeLists.txt, label unit) and its
own test (tests/scripts/check_layers_test.py).

Usage: scripts/check_layers.py [--root DIR] [--table]
  --root DIR  the repository (default: this script's parent folder)
  --table     print the layer table, top layer first, and exit
"""

import argparse
import os
import re
import sys

# The layers, bottom up: (module, layer, the modules it sees directly).
# A module sees what the modules it sees see, so each row names only the
# layers just under it. docs/ARCHITECTURE.md draws the same picture.
LAYERS = [
    ("base", 0, []),                   # Status/Expected, checks, mmap, atomic files, thread pool
    ("abi", 0, []),                    # include/trit/engine.h: the engine plugin C ABI (C only)
    ("system", 1, ["base"]),           # machine probes: CPU, memory, bandwidth, peak RSS
    ("quant", 1, ["base"]),            # block formats: the type table, reference (de)quantizers
    ("chat", 1, ["base"]),             # chat templates (Jinja2 subset)
    ("grammar", 1, ["base"]),          # GBNF grammars, matchers and token masks for constrained decoding
    ("formats", 2, ["quant"]),         # GGUF, ELF/PE/Mach-O, hwx/.ane readers and writers
    ("kernels", 2, ["quant"]),         # CPU compute: scalar reference + SIMD
    ("bundle", 3, ["formats"]),        # dependency resolution, policy and checks of a shipped runtime
    ("model", 3, ["kernels", "formats", "system"]),  # architectures, weight binding, forward pass (system: memory at load)
    ("tokenizer", 3, ["formats"]),     # SPM, BPE, WordPiece
    ("runtime", 4, ["model", "tokenizer", "chat", "grammar"]),  # sessions, sampling, generation
    ("convert", 4, ["tokenizer"]),     # quantization plan, GGUF-to-GGUF quantizer, HF-to-GGUF converter (tokenizer.json)
    ("store", 5, ["formats"]),         # the models directory: pull, manifests, names
    ("engines", 5, ["runtime", "abi"]),  # engine interface, registry, plugins
    ("server", 6, ["engines", "store", "system"]),  # OpenAI-compatible HTTP, scheduler
    ("perf", 6, ["engines", "system"]),  # trit bench's runner (decode timing, bandwidth probes) and statistics
    ("pack", 6, ["engines", "system"]),  # accelerator packs: make, check and run a plan.json pack
    ("api", 7, ["server", "perf", "pack", "engines", "store", "convert", "bundle", "system"]),  # the C API, include/trit/trit.h
    ("cli", 8, ["api"]),               # frontend: argument parsing and printing only
]

# Public headers of include/ and the module each belongs to; any other file
# under include/trit/ is part of the C API.
INCLUDE_MODULES = {
    "include/trit/engine.h": "abi",
}
INCLUDE_DEFAULT_MODULE = "api"

SOURCE_EXTENSIONS = (".h", ".hpp", ".c", ".cc", ".cpp", ".cxx", ".inc")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
ANY_INCLUDE_RE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]')
# Frontends over the C API alone, and the one header they may include of trit.
CLIENT_DIRS = ("python/src", "examples/c")
CLIENT_HEADER = "trit/trit.h"


def check_table():
    """The table's own consistency: known names, lower layers only. Returns errors."""
    errors = []
    layer = {}
    for name, level, _ in LAYERS:
        if name in layer:
            errors.append(f"LAYERS: module {name} is listed twice")
        layer[name] = level
    for name, level, sees in LAYERS:
        for dep in sees:
            if dep not in layer:
                errors.append(f"LAYERS: {name} sees {dep}, which is not in the table")
            elif layer[dep] >= level:
                errors.append(f"LAYERS: {name} (layer {level}) sees {dep} (layer {layer[dep]}), not a lower layer")
    return errors


def visible_modules():
    """module -> the set of modules it may include (itself and everything below it that it sees)."""
    direct = {name: sees for name, _, sees in LAYERS}
    seen = {}

    def closure(name):
        if name not in seen:
            out = {name}
            for dep in direct.get(name, []):
                out |= closure(dep)
            seen[name] = out
        return seen[name]

    return {name: closure(name) for name in direct}


def module_of_file(rel):
    """The module of a repository-relative path, or None when it is in none."""
    parts = rel.split("/")
    if parts[0] == "src" and len(parts) >= 3:
        return parts[1]
    if parts[0] == "include":
        return INCLUDE_MODULES.get(rel, INCLUDE_DEFAULT_MODULE)
    return None


def resolve_include(root, including_rel, target):
    """The module an include names: relative to the including file first (as the
    preprocessor looks for quoted includes), then src/, then include/; a path whose
    first component names a module but does not exist (a generated header such
    as cli/version.h) belongs to that module. None when it names no module."""
    here = os.path.dirname(including_rel)
    for base in (here, "src", "include"):
        candidate = os.path.normpath(os.path.join(base, target)).replace(os.sep, "/")
        if not candidate.startswith("..") and os.path.isfile(os.path.join(root, candidate)):
            return module_of_file(candidate)
    first = target.split("/")[0]
    if first in {name for name, _, _ in LAYERS} and "/" in target:
        return first
    return None


def source_files(root, tops=("src", "include")):
    for top in tops:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for f in sorted(filenames):
                if f.endswith(SOURCE_EXTENSIONS):
                    yield os.path.relpath(os.path.join(dirpath, f), root).replace(os.sep, "/")


def includes(root, rel, pattern):
    """(line number, included path) of every line of `rel` that `pattern` matches."""
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
        for lineno, line in enumerate(f, 1):
            m = pattern.match(line)
            if m:
                yield lineno, m.group(1)


def check(root):
    errors = check_table()
    layer = {name: level for name, level, _ in LAYERS}
    visible = visible_modules()
    n_files = n_includes = 0
    for rel in source_files(root):
        n_files += 1
        module = module_of_file(rel)
        if module not in layer:
            errors.append(f"{rel}: module {module or '(none)'} is not in the layer table of scripts/check_layers.py")
            continue
        for lineno, target in includes(root, rel, INCLUDE_RE):
            n_includes += 1
            dep = resolve_include(root, rel, target)
            if dep is None or dep not in layer:
                errors.append(f'{rel}:{lineno}: includes "{target}", which is in no module of the layer table')
            elif dep not in visible[module]:
                why = ("upward" if layer[dep] > layer[module]
                       else "same layer" if layer[dep] == layer[module]
                       else f"{module} does not see {dep}")
                errors.append(f'{rel}:{lineno}: includes "{target}": {module} (layer {layer[module]}) '
                              f"may not include {dep} (layer {layer[dep]}): {why}")
    for rel in source_files(root, CLIENT_DIRS):
        n_files += 1
        for lineno, target in includes(root, rel, ANY_INCLUDE_RE):
            n_includes += 1
            inside_src = os.path.isfile(os.path.join(root, "src", target))
            if target != CLIENT_HEADER and (target.startswith("trit/") or inside_src):
                errors.append(f'{rel}:{lineno}: includes "{target}": a client of the C API may include only '
                              f"include/{CLIENT_HEADER} of trit")
    return errors, n_files, n_includes


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        help="repository root (holds src/ and include/)")
    parser.add_argument("--table", action="store_true", help="print the layer table, top layer first, and exit")
    args = parser.parse_args()
    if args.table:
        print("layer  module     sees")
        for name, level, sees in sorted(LAYERS, key=lambda row: -row[1]):
            print(f"  {level}    {name:<10} {', '.join(sees) or '-'}")
        return 0
    if not os.path.isdir(os.path.join(args.root, "src")):
        print(f"check_layers: {args.root} has no src/ folder", file=sys.stderr)
        return 2
    errors, n_files, n_includes = check(args.root)
    for e in errors:
        print(e)
    if errors:
        print(f"check_layers: {len(errors)} violation(s) in {n_files} files", file=sys.stderr)
        return 1
    print(f"check_layers: ok, {n_includes} includes in {n_files} files follow the layers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
