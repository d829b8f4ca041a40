#!/usr/bin/env python3
"""Cross-checks trit's GGUF files against llama.cpp's own Python `gguf` package.

1. A model written by gguf-py (GGUFWriter) is read by `trit show --json`.
2. trit quantizes it to every type it can produce; gguf-py reads each output
   (GGUFReader), finds the expected types and shapes, and dequantizes every
   tensor with its own numpy code: the values must match the original within
   the type's error. Where gguf-py also implements the quantizer, trit's bytes
   must be identical to gguf-py's.
3. The bundled model quantized to q8_0 keeps all its metadata for gguf-py.

Prints one line per check and a closing "N passed, N failed" line.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import gguf
from gguf import GGMLQuantizationType as Q
from gguf.quants import dequantize, quantize

# Relative RMS error allowed per type on Gaussian weights (measured values are
# well below; a wrong layout gives errors near 1 or worse).
MAX_REL_RMSE = {
    "f16": 1e-3, "bf16": 5e-3, "q8_0": 1e-2, "q5_0": 6e-2, "q5_1": 6e-2, "q4_0": 1.2e-1,
    "q4_1": 1.2e-1, "q6_K": 2.5e-2, "q5_K": 5e-2, "q4_K": 1e-1, "tq2_0": 9e-1, "tq1_0": 9e-1,
    "iq4_nl": 1e-1, "iq4_xs": 1e-1, "mxfp4": 1.5e-1,
}
# gguf-py quantizers that follow ggml's reference quantizers exactly.
PY_QUANTIZERS = {"bf16", "q8_0", "q4_0", "q4_1", "q5_0", "q5_1", "tq1_0", "tq2_0"}

passed = 0
failed = 0


def check(ok, what):
    global passed, failed
    print(("PASS " if ok else "FAIL ") + what, flush=True)
    if ok:
        passed += 1
    else:
        failed += 1
    return ok


def run_trit(trit, *args):
    return subprocess.run([trit, *args], capture_output=True, text=True, timeout=120)


def write_source_model(path):
    """A small llama-shaped F32 model written by gguf-py: 256- and 512-long rows fit every block type."""
    rng = np.random.default_rng(1130)
    w = gguf.GGUFWriter(path, "llama")
    w.add_context_length(512)
    w.add_block_count(1)
    w.add_embedding_length(256)
    w.add_head_count(4)
    w.add_string("trit.test.note", "written by gguf-py")
    w.add_array("trit.test.ints", [1, 2, 3])
    tensors = {
        "token_embd.weight": rng.standard_normal((64, 256), dtype=np.float32),
        "blk.0.attn_q.weight": rng.standard_normal((256, 256), dtype=np.float32),
        "blk.0.ffn_up.weight": rng.standard_normal((128, 512), dtype=np.float32) * 0.02,
        "blk.0.attn_norm.weight": np.ones(256, dtype=np.float32),
    }
    for name, data in tensors.items():
        w.add_tensor(name, data)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return tensors


def trit_types(trit):
    """Types trit can quantize to, from the error message that lists them."""
    r = run_trit(trit, "quantize", "/dev/null", "/dev/null", "no-such-type")
    listed = r.stderr.split("supported:", 1)[1].strip().split(", ")
    return [t for t in listed if t != "f32"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trit", required=True)
    ap.add_argument("--model", required=True, help="the bundled model")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="trit-interop-") as tmp:
        src_path = os.path.join(tmp, "source.gguf")
        originals = write_source_model(src_path)

        # 1. trit reads gguf-py's file.
        r = run_trit(args.trit, "show", src_path, "--json")
        if check(r.returncode == 0, "trit show reads a gguf-py file" + (f" failed: {r.stderr.strip()}" if r.returncode else "")):
            j = json.loads(r.stdout)
            check(j["architecture"] == "llama" and j["tensor_count"] == 4, "architecture and tensor count")
            check(j["metadata"]["trit.test.note"] == "written by gguf-py", "string metadata")
            check(j["metadata"]["trit.test.ints"] == [1, 2, 3], "array metadata")
            shapes = {t["name"]: t["shape"] for t in j["tensors"]}
            check(shapes["blk.0.ffn_up.weight"] == [512, 128], f"shape in GGUF order: {shapes['blk.0.ffn_up.weight']}")

        # 2. Every type trit writes, read and dequantized by gguf-py.
        types = trit_types(args.trit)
        check(len(types) >= 9, f"trit quantizes to {len(types)} types: {', '.join(types)}")
        for type_name in types:
            if type_name.upper() not in Q.__members__:
                # mxfp4: gguf-py 0.17.1 (requirements.txt) predates it; its reader refuses type 39.
                # i2_s is bitnet.cpp's, never upstream ggml's.
                print(f"SKIP {type_name}: this gguf-py has no such type", flush=True)
                continue
            out = os.path.join(tmp, f"out-{type_name}.gguf")
            r = run_trit(args.trit, "quantize", src_path, out, type_name, "--strict", "-q")
            if not check(r.returncode == 0, f"{type_name}: trit quantize" + (f" failed: {r.stderr.strip()}" if r.returncode else "")):
                continue
            reader = gguf.GGUFReader(out)
            qtype = Q[type_name.upper()]
            for t in reader.tensors:
                orig = originals[t.name]
                is_matrix = orig.ndim == 2
                want = qtype if is_matrix else Q.F32
                if not check(t.tensor_type == want, f"{type_name}: {t.name} has type {t.tensor_type.name}"):
                    continue
                values = dequantize(t.data, t.tensor_type).reshape(orig.shape)
                rel = float(np.sqrt(np.mean((values - orig) ** 2) / np.mean(orig ** 2)))
                bound = MAX_REL_RMSE[type_name] if is_matrix else 0.0
                check(rel <= bound, f"{type_name}: {t.name} gguf-py dequantizes to rel. RMSE {rel:.2e} <= {bound:.0e}")
                if is_matrix and type_name in PY_QUANTIZERS:
                    expected = quantize(orig, qtype)
                    same = np.array_equal(np.asarray(t.data).view(np.uint8).reshape(-1), expected.view(np.uint8).reshape(-1))
                    check(same, f"{type_name}: {t.name} bytes identical to gguf-py's quantizer")

        # 3. The bundled model through trit keeps its metadata for gguf-py.
        out = os.path.join(tmp, "stories-q8_0.gguf")
        r = run_trit(args.trit, "quantize", args.model, out, "q8_0", "-q")
        if check(r.returncode == 0, "quantize bundled model" + (f" failed: {r.stderr.strip()}" if r.returncode else "")):
            a, b = gguf.GGUFReader(args.model), gguf.GGUFReader(out)
            for key, field in a.fields.items():
                if key.startswith("GGUF."):
                    continue
                other = b.fields.get(key)
                same = other is not None and field.types == other.types and all(
                    np.array_equal(field.parts[i], other.parts[i]) for i in field.data)
                if not same:
                    check(False, f"bundled q8_0: metadata {key} kept")
            check(True, f"bundled q8_0: {len(a.fields)} metadata fields compared")
            names = [t.name for t in b.tensors]
            check(names == [t.name for t in a.tensors], "bundled q8_0: tensor order kept")
            check(b.alignment == 32 and all(t.data_offset % 32 == 0 for t in b.tensors), "tensor data aligned to 32")

    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
