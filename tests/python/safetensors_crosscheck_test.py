#!/usr/bin/env python3
"""Cross-checks trit's safetensors reader against Hugging Face's own `safetensors` package.

1. Files written by the package (safetensors.numpy.save_file for numpy's
   dtypes; safetensors.serialize_file with raw bytes for bf16, the float8
   types and packed float4, which numpy lacks) are read by trit's
   dump_safetensors: every tensor's name, dtype, shape and the SHA-256 of its
   bytes, and the metadata, must be what was written, and what the package
   reads back.
2. A sharded checkpoint (two shards saved by the package and the index
   transformers writes beside them) reads as one set with the same tensors.
3. Files the package refuses (truncated, a header length past the end,
   overlapping tensors, a gap, bytes no tensor covers, a metadata value that is
   not a string) trit refuses too.

Prints one line per check and a closing "N passed, N failed" line.
"""
import argparse
import hashlib
import json
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np
import safetensors
from safetensors import TensorSpec
from safetensors.numpy import save_file

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


def dump(tool, path):
    """trit's view of a file or directory: (exit status, parsed JSON or None, stderr)."""
    r = subprocess.run([tool, path], capture_output=True, text=True, timeout=60)
    return r.returncode, (json.loads(r.stdout) if r.returncode == 0 else None), r.stderr.strip()


def numpy_tensors():
    """One array of each dtype numpy and safetensors share, a scalar and an empty one."""
    rng = np.random.default_rng(1717)
    return {
        "model.embed_tokens.weight": rng.standard_normal((8, 4)).astype(np.float32),
        "model.layers.0.attn.q.weight": rng.standard_normal((4, 4)).astype(np.float16),
        "model.layers.0.attn.q.bias": rng.standard_normal(4).astype(np.float64),
        "position_ids": np.arange(12, dtype=np.int64).reshape(1, 12),
        "quant.scales": rng.integers(-2**31, 2**31, size=(3, 2), dtype=np.int32),
        "quant.codes": rng.integers(0, 256, size=(5, 3), dtype=np.uint8),
        "quant.i8": rng.integers(-128, 128, size=7, dtype=np.int8),
        "quant.i16": rng.integers(-2**15, 2**15, size=3, dtype=np.int16),
        "quant.u16": rng.integers(0, 2**16, size=3, dtype=np.uint16),
        "quant.u32": rng.integers(0, 2**32, size=3, dtype=np.uint32),
        "quant.u64": rng.integers(0, 2**63, size=2, dtype=np.uint64),
        "mask": rng.integers(0, 2, size=(2, 3)).astype(bool),
        "step": np.array(7, dtype=np.int64),
        "empty": np.zeros((0, 3), dtype=np.float32),
    }


def raw_specs():
    """Tensors of dtypes numpy lacks, as raw little-endian bytes: (torch-style dtype name, shape, bytes)."""
    rng = np.random.default_rng(1718)
    bf16 = (rng.standard_normal(6).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    return {
        "lm_head.weight": ("bfloat16", [2, 3], bf16.tobytes()),
        "fp8.e4m3": ("float8_e4m3fn", [4, 2], rng.integers(0, 256, 8, dtype=np.uint8).tobytes()),
        "fp8.e5m2": ("float8_e5m2", [3], rng.integers(0, 256, 3, dtype=np.uint8).tobytes()),
        "fp8.scale": ("float8_e8m0fnu", [2], rng.integers(0, 256, 2, dtype=np.uint8).tobytes()),
        # Two float4 values a byte: the spec's shape counts bytes, the file's elements.
        "fp4.packed": ("float4_e2m1fn_x2", [2, 3], rng.integers(0, 256, 6, dtype=np.uint8).tobytes()),
    }


def package_view(path):
    """What the safetensors package reads from `path`: name -> (dtype, shape, sha256)."""
    with open(path, "rb") as f:
        return {name: (t["dtype"], list(t["shape"]), hashlib.sha256(bytes(t["data"])).hexdigest())
                for name, t in safetensors.deserialize(f.read())}


def trit_view(out):
    return {t["name"]: (t["dtype"], t["shape"], t["sha256"]) for t in out["tensors"]}


def check_numpy_file(tool, tmp):
    arrays = numpy_tensors()
    metadata = {"format": "np", "note": "written by safetensors.numpy, ünïcode"}
    path = os.path.join(tmp, "numpy.safetensors")
    save_file(arrays, path, metadata=metadata)
    status, out, err = dump(tool, path)
    if not check(status == 0, f"trit reads the numpy-written file ({err})"):
        return
    check(out["metadata"] == metadata, "metadata as written")
    seen = trit_view(out)
    check(sorted(seen) == sorted(arrays), f"the same {len(arrays)} tensor names")
    for name, a in arrays.items():
        want = (None, list(a.shape), hashlib.sha256(a.tobytes()).hexdigest())
        got = seen.get(name)
        check(got is not None and got[1:] == want[1:], f"{name}: shape {list(a.shape)} and bytes as written")
    check(seen == package_view(path), "every tensor as the package reads it (dtype, shape, bytes)")
    names = {"F32", "F16", "F64", "I64", "I32", "U8", "I8", "I16", "U16", "U32", "U64", "BOOL"}
    check({d for d, _, _ in seen.values()} == names, "all twelve numpy dtypes named as the package names them")


def check_raw_file(tool, tmp):
    specs = raw_specs()
    buffers = {name: np.frombuffer(data, dtype=np.uint8).copy() for name, (_, _, data) in specs.items()}
    tensors = {name: TensorSpec(dtype=dtype, shape=shape, data_ptr=buffers[name].ctypes.data,
                                data_len=buffers[name].nbytes)
               for name, (dtype, shape, _) in specs.items()}
    path = os.path.join(tmp, "raw.safetensors")
    safetensors.serialize_file(tensors, path, metadata={"format": "pt"})
    status, out, err = dump(tool, path)
    if not check(status == 0, f"trit reads the file of bf16, float8 and float4 tensors ({err})"):
        return
    seen = trit_view(out)
    want_dtype = {"lm_head.weight": "BF16", "fp8.e4m3": "F8_E4M3", "fp8.e5m2": "F8_E5M2", "fp8.scale": "F8_E8M0",
                  "fp4.packed": "F4"}
    for name, (_, shape, data) in specs.items():
        got = seen.get(name)
        check(got is not None and got[0] == want_dtype[name] and got[2] == hashlib.sha256(data).hexdigest(),
              f"{name}: {want_dtype[name]}, bytes as written")
    check(seen["fp4.packed"][1] == [2, 6], "F4's shape counts elements, two a byte")
    check(seen == package_view(path), "every tensor as the package reads it")


def check_sharded(tool, tmp):
    arrays = numpy_tensors()
    names = sorted(arrays)
    shards = {"model-00001-of-00002.safetensors": names[: len(names) // 2],
              "model-00002-of-00002.safetensors": names[len(names) // 2:]}
    ckpt = os.path.join(tmp, "sharded")
    os.mkdir(ckpt)
    weight_map = {}
    for file, members in shards.items():
        save_file({n: arrays[n] for n in members}, os.path.join(ckpt, file), metadata={"format": "np"})
        weight_map.update({n: file for n in members})
    total = sum(a.nbytes for a in arrays.values())
    with open(os.path.join(ckpt, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": total}, "weight_map": dict(sorted(weight_map.items()))}, f, indent=2)
    status, out, err = dump(tool, ckpt)
    if not check(status == 0, f"trit opens the sharded checkpoint ({err})"):
        return
    check(out["files"] == sorted(shards), "both shards, in order")
    want = {}
    for file in shards:
        want.update(package_view(os.path.join(ckpt, file)))
    check(trit_view(out) == want, f"the {len(want)} tensors of both shards as the package reads them")


def header_file(path, header, buffer):
    text = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + buffer)


def check_refusals(tool, tmp):
    valid = os.path.join(tmp, "valid.safetensors")
    save_file({"a": np.arange(4, dtype=np.float32), "b": np.arange(2, dtype=np.int16)}, valid)
    with open(valid, "rb") as f:
        good = f.read()
    t = {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}
    cases = {
        "truncated": good[:-1],
        "length past the end": struct.pack("<Q", len(good)) + good[8:],
        "overlap": {"a": t, "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}},
        "gap": {"a": t, "b": {"dtype": "F32", "shape": [1], "data_offsets": [12, 16]}},
        "bytes after the last tensor": ({"a": t}, bytes(12)),
        "size not shape x dtype": {"a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}},
        "metadata value a number": {"__metadata__": {"n": 1}, "a": t},
        "unknown dtype": {"a": {"dtype": "F7", "shape": [2], "data_offsets": [0, 8]}},
    }
    for what, case in cases.items():
        path = os.path.join(tmp, "bad.safetensors")
        if isinstance(case, bytes):
            with open(path, "wb") as f:
                f.write(case)
        else:
            header, buffer = case if isinstance(case, tuple) else (case, bytes(16))
            header_file(path, header, buffer)
        try:
            package_view(path)
            package_refuses = False
        except Exception:  # the package raises SafetensorError, or a JSON error for the metadata
            package_refuses = True
        status, _, err = dump(tool, path)
        check(package_refuses and status == 1 and err.startswith("dump_safetensors: " + path + ": "),
              f"{what}: the package and trit both refuse ({err})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dump", required=True, help="the dump_safetensors program")
    args = ap.parse_args()
    print(f"safetensors {safetensors.__version__}, numpy {np.__version__}")
    with tempfile.TemporaryDirectory(prefix="trit-safetensors-") as tmp:
        check_numpy_file(args.dump, tmp)
        check_raw_file(args.dump, tmp)
        check_sharded(args.dump, tmp)
        check_refusals(args.dump, tmp)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
