#!/usr/bin/env python3
"""Tests scripts/check_layers.py on small trees written to a temporary
directory: a tree that keeps the layers passes; an upward include, an
include of a lower module the layer may not see, an include of a module in
the same layer, a folder of src/ the table does not name and an include
that names no module each fail, naming file:line, the include and both
layers. Run by ctest (label unit); exits non-zero on the first failure."""

import os
import subprocess
import sys
import tempfile

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "check_layers.py")


def write_tree(root, files):
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


def run(files):
    with tempfile.TemporaryDirectory() as root:
        write_tree(root, files)
        p = subprocess.run([sys.executable, SCRIPT, "--root", root], capture_output=True, text=True)
        return p.returncode, p.stdout + p.stderr


# A tree that keeps the layers: each file includes its own module, lower ones
# it sees, a generated header of its own module, a standard header.
GOOD = {
    "src/base/status.h": "#pragma once\n#include <string>\n",
    "src/formats/gguf/reader.h": '#pragma once\n#include "base/status.h"\n',
    "src/formats/gguf/reader.cpp": '#include "formats/gguf/reader.h"\n#include "reader.h"\n',
    "src/bundle/check.h": '#pragma once\n#include "formats/gguf/reader.h"\n#include "base/status.h"\n',
    "src/cli/main.cpp": '#include "cli/version.h"\n#include "bundle/check.h"\n#include "trit/engine.h"\n',
    "include/trit/engine.h": "#pragma once\n#include <stdint.h>\n",
    "include/trit/trit.h": "#pragma once\n#include <stdint.h>\n",
    "python/src/_trit.cpp": '#include <nanobind/nanobind.h>\n#include <trit/trit.h>\n',
    "examples/c/hello.c": '#include <stdio.h>\n#include "trit/trit.h"\n',
}

failures = []


def expect(name, files, rc, *needles):
    got_rc, out = run(files)
    if got_rc != rc:
        failures.append(f"{name}: exit {got_rc}, expected {rc}; output:\n{out}")
        return
    for n in needles:
        if n not in out:
            failures.append(f"{name}: output lacks {n!r}; output:\n{out}")


expect("layered tree passes", GOOD, 0, "check_layers: ok")
expect("upward include fails",
       {**GOOD, "src/base/log.h": '#pragma once\n\n#include "cli/command.h"\n', "src/cli/command.h": "#pragma once\n"},
       1, 'src/base/log.h:3: includes "cli/command.h"', "base (layer 0)", "cli (layer 8)", "upward")
expect("a lower module the layer does not see fails",
       {**GOOD, "src/bundle/policy.cpp": '#include "kernels/matmul.h"\n', "src/kernels/matmul.h": "#pragma once\n"},
       1, 'src/bundle/policy.cpp:1: includes "kernels/matmul.h"', "bundle (layer 3)", "kernels (layer 2)",
       "bundle does not see kernels")
expect("same-layer include fails",
       {**GOOD, "src/formats/hwx/x.h": '#include "kernels/rope.h"\n', "src/kernels/rope.h": "#pragma once\n"},
       1, "src/formats/hwx/x.h:1:", "formats (layer 2)", "kernels (layer 2)", "same layer")
expect("the plugin ABI header may not include the library",
       {**GOOD, "include/trit/engine.h": '#pragma once\n#include "base/status.h"\n'},
       1, "include/trit/engine.h:2:", "abi (layer 0)", "base (layer 0)")
expect("a module missing from the table fails",
       {**GOOD, "src/gpu/x.cpp": '#include "base/status.h"\n'},
       1, "src/gpu/x.cpp: module gpu is not in the layer table")
expect("an include that names no module fails",
       {**GOOD, "src/base/y.cpp": '#include "nowhere.h"\n'},
       1, 'src/base/y.cpp:1: includes "nowhere.h", which is in no module')

expect("a client of the C API may not include the library's headers",
       {**GOOD, "python/src/_trit.cpp": '#include <trit/trit.h>\n#include "base/status.h"\n'},
       1, 'python/src/_trit.cpp:2: includes "base/status.h": a client of the C API may include only')
expect("nor another public header",
       {**GOOD, "examples/c/hello.c": '#include <trit/engine.h>\n'},
       1, 'examples/c/hello.c:1: includes "trit/engine.h"')

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("check_layers_test: ok")
