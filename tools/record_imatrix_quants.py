#!/usr/bin/env python3
"""Records what llama.cpp's own `llama-quantize --pure --imatrix` writes for
the bundled model with the importance matrices of tests/data/imatrix/, as
the type and the sha256 of every tensor's bytes, for
tests/cli/quantize_imatrix_test.cpp to compare `trit quantize --imatrix`
against. Writes tests/data/imatrix/llama_quantize.json.

    .venv/bin/python tools/record_imatrix_quants.py --llama-bin /tmp/lcpbuild/bin

Needs llama-quantize built from the llama.cpp source in the llama-cpp-python
sdist (outside the repo; docs/QUALITY.md says how) and the gguf package of
tests/python/requirements.txt.
"""
import argparse
import hashlib
import json
import pathlib
import subprocess
import sys
import tempfile

from gguf import GGUFReader

# llama-quantize's file type name -> trit's type name (what `trit quantize` is asked for).
FTYPES = {"Q4_0": "q4_0", "Q4_1": "q4_1", "Q5_0": "q5_0", "Q5_1": "q5_1", "Q4_K_S": "q4_K", "Q5_K_S": "q5_K",
          "Q6_K": "q6_K"}
IMATRICES = ["stories260K-little_story.imatrix.gguf", "stories260K-little_story.imatrix.dat"]


def tensor_hashes(path):
    reader = GGUFReader(str(path))
    return {t.name: {"type": t.tensor_type.name.lower(), "sha256": hashlib.sha256(t.data.tobytes()).hexdigest()}
            for t in reader.tensors}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--llama-bin", required=True, help="directory with llama-quantize")
    args = ap.parse_args()
    root = pathlib.Path(__file__).resolve().parent.parent
    model = root / "models/stories260K.gguf"
    quantize = pathlib.Path(args.llama_bin) / "llama-quantize"
    out = {"about": "llama-quantize --pure --imatrix FILE models/stories260K.gguf OUT FTYPE, for each of "
                    "IMATRICES (which gave the same bytes): every tensor that is not f32, its type and the "
                    "sha256 of its bytes (tools/record_imatrix_quants.py)",
           "imatrices": IMATRICES, "types": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for ftype, trit_type in FTYPES.items():
            seen = None
            for imatrix in IMATRICES:
                dst = pathlib.Path(tmp) / f"{trit_type}.gguf"
                cmd = [str(quantize), "--pure", "--imatrix", str(root / "tests/data/imatrix" / imatrix),
                       str(model), str(dst), ftype, "1"]
                r = subprocess.run(cmd, capture_output=True, text=True)
                if r.returncode != 0:
                    sys.exit(f"record_imatrix_quants.py: {' '.join(cmd)} failed:\n{r.stderr[-2000:]}")
                tensors = {k: v for k, v in tensor_hashes(dst).items() if v["type"] != "f32"}
                if seen is not None and tensors != seen:
                    sys.exit(f"record_imatrix_quants.py: {ftype}: the two importance-matrix files give different "
                             "bytes; record them separately")
                seen = tensors
            out["types"][trit_type] = {"ftype": ftype, "tensors": seen}
            print(f"record_imatrix_quants.py: {ftype}: {len(seen)} tensors", file=sys.stderr)
    (root / "tests/data/imatrix/llama_quantize.json").write_text(json.dumps(out, indent=1) + "\n")

if __name__ == "__main__":
    main()
