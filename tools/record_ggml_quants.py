#!/usr/bin/env python3
"""Records ggml's own quantizer output, with and without importance weights,
for tests/quant/weighted_quantize_test.cpp to compare trit's bytes against.

Also records ggml's dequantization of MXFP4 blocks with every exponent
byte (tests/quant/dequantize_test.cpp).

Calls `ggml_quantize_chunk` in the libggml-base that llama-cpp-python ships
(the quantizer `llama-quantize` runs: with an importance matrix its
quantize_row_*_impl paths, without one the *_ref paths) on rows made by a
generator that the C++ test reproduces exactly: splitmix64, integer
arithmetic and powers of two only, so every value is the same float in both
languages. Writes tests/data/reference/ggml_quants.json.

    /tmp/lcpvenv/bin/python tools/record_ggml_quants.py [--out PATH]

(llama-cpp-python in that venv: `python3 -m venv /tmp/lcpvenv &&
/tmp/lcpvenv/bin/pip install llama-cpp-python`.)
"""
import argparse
import ctypes
import json
import os
import pathlib
import sys

import numpy as np

N_PER_ROW = 512
N_ROWS = 6
SEED = 0x7472697451  # "tritQ"
MASK = (1 << 64) - 1

# ggml_type ids (GGUF tensor type ids) of the types ggml weighs by an
# importance matrix and trit reproduces byte for byte.
TYPES = {"q4_0": 2, "q4_1": 3, "q5_0": 6, "q5_1": 7, "q4_K": 12, "q5_K": 13, "q6_K": 14}
# Types whose quantizer ggml runs the same with or without importance
# weights, and trit reproduces byte for byte: 'plain' only.
PLAIN_ONLY_TYPES = {"mxfp4": 39}
BLOCK = {"q4_0": (32, 18), "q4_1": (32, 20), "q5_0": (32, 22), "q5_1": (32, 24),
         "q4_K": (256, 144), "q5_K": (256, 176), "q6_K": (256, 210), "mxfp4": (32, 17)}


class TypeTraits(ctypes.Structure):
    """ggml.h's struct ggml_type_traits (the fields up to to_float)."""
    _fields_ = [("type_name", ctypes.c_char_p), ("blck_size", ctypes.c_int64),
                ("blck_size_interleave", ctypes.c_int64), ("type_size", ctypes.c_size_t),
                ("is_quantized", ctypes.c_bool), ("to_float", ctypes.c_void_p)]


def mxfp4_exponent_blocks():
    """256 MXFP4 blocks, block e with exponent byte e and the 32 nibbles
    (j + e) % 16 (every code, in an order that moves with e): the bytes
    whose dequantization ggml records, every E8M0 value included."""
    out = bytearray()
    for e in range(256):
        out.append(e)
        for j in range(16):
            out.append(((j + e) % 16) | (((15 - j + e) % 16) << 4))
    return bytes(out)


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & MASK

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)


def make_inputs():
    """Rows and importance weights; the C++ test's MakeRows/MakeImportance."""
    rng = SplitMix64(SEED)
    rows = []
    for r in range(N_ROWS):
        row = []
        for c in range(N_PER_ROW):
            u1 = rng.next() >> 41  # 23 bits each: their sum is exact in float
            u2 = rng.next() >> 41
            v = (u1 + u2 - (1 << 23)) / float(1 << 23)  # triangular in [-1, 1)
            v /= float(1 << (r % 4))
            if (rng.next() >> 58) == 0:  # 1 in 64: an outlier, 8x
                v *= 8.0
            if r == 4:
                block = c // 32
                if block == 0:
                    v = 0.0  # an all-zero block
                elif block == 1:
                    v = 0.25  # a constant block
                elif block == 2:
                    v = -abs(v) - 1.0 / 1024  # all negative
            if r == 5:
                v = abs(v)  # an all non-negative row
            row.append(v)
        rows.append(row)
    importance = []
    for c in range(N_PER_ROW):
        w = ((rng.next() >> 54) + 1) / 1024.0  # 1/1024 .. 1
        if c % 7 == 0:
            w *= 16.0
        if c % 61 == 0:
            w = 0.0  # a column no input ever drove
        importance.append(w)
    return np.array(rows, dtype=np.float32), np.array(importance, dtype=np.float32)


def find_ggml():
    try:
        import llama_cpp
    except ImportError:
        sys.exit(f"record_ggml_quants.py: llama-cpp-python is not installed in {sys.executable}")
    lib_dir = pathlib.Path(llama_cpp.__file__).parent / "lib"
    path = lib_dir / "libggml-base.so"
    if not path.exists():
        sys.exit(f"record_ggml_quants.py: no {path}")
    lib = ctypes.CDLL(str(path))
    lib.ggml_quantize_chunk.restype = ctypes.c_size_t
    lib.ggml_quantize_chunk.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64,
                                        ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p]
    return lib, llama_cpp.__version__


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    here = pathlib.Path(__file__).resolve().parent.parent
    ap.add_argument("--out", default=str(here / "tests/data/reference/ggml_quants.json"))
    args = ap.parse_args()
    lib, version = find_ggml()
    rows, importance = make_inputs()
    out = {
        "about": "ggml_quantize_chunk output (llama-cpp-python " + version + "'s libggml-base) on the rows of "
                 "tools/record_ggml_quants.py; 'plain' without importance weights, 'weighted' with them (types ggml quantizes the same either way: 'plain' only); 'dequantized': "
                 "ggml's to_float of the blocks mxfp4_exponent_blocks() makes",
        "n_per_row": N_PER_ROW, "n_rows": N_ROWS, "seed": SEED,
        "plain": {}, "weighted": {},
    }
    for name, type_id in list(TYPES.items()) + list(PLAIN_ONLY_TYPES.items()):
        block, size = BLOCK[name]
        nbytes = N_ROWS * (N_PER_ROW // block) * size
        keys = (("plain", None),) if name in PLAIN_ONLY_TYPES else (("plain", None), ("weighted", importance))
        for key, weights in keys:
            dst = ctypes.create_string_buffer(nbytes)
            got = lib.ggml_quantize_chunk(type_id, rows.ctypes.data, dst, 0, N_ROWS, N_PER_ROW,
                                          None if weights is None else weights.ctypes.data)
            if got != nbytes:
                sys.exit(f"record_ggml_quants.py: {name}: ggml wrote {got} bytes, expected {nbytes}")
            out[key][name] = dst.raw.hex()
    # ggml's own dequantization (its type traits' to_float) of MXFP4 blocks
    # with every exponent byte: the floats' bits, little-endian f32 hex.
    lib.ggml_get_type_traits.restype = ctypes.POINTER(TypeTraits)
    lib.ggml_get_type_traits.argtypes = [ctypes.c_int]
    to_float = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)(
        lib.ggml_get_type_traits(PLAIN_ONLY_TYPES["mxfp4"]).contents.to_float)
    blocks = mxfp4_exponent_blocks()
    src = ctypes.create_string_buffer(blocks, len(blocks))
    floats = np.zeros(256 * 32, dtype=np.float32)
    to_float(ctypes.addressof(src), floats.ctypes.data, floats.size)
    out["dequantized"] = {"mxfp4": {"blocks": blocks.hex(), "floats": floats.astype("<f4").tobytes().hex()}}
    pathlib.Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    print(f"record_ggml_quants.py: wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
