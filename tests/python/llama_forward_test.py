#!/usr/bin/env python3
"""trit's forward pass against an independent numpy forward (float64).

For each variant (llama untied f32, llama tied, llama with q8_0 matrices,
qwen2 with q/k/v biases, qwen3 with q/k norms, gemma with key_length !=
n_embd / n_head, gemma2 with soft-capping and a 6-key window on even
layers, gemma3 with 7 layers (one global, rope base 1e6 with linear scaling
8) and a 5-key window, bitnet in f32, TQ1_0 and TQ2_0 with weight scales, bitnet-b1.58 with
ternary f32 matrices of one scale each, as I2_S holds them),
make_random_model writes a small random-weight GGUF with trit's
gguf::Writer (the architecture's preset); llama.cpp's `gguf` package reads
it back and llama_numpy_forward.py computes the logits of every row;
`trit verify --kv f32 --engine reference --json --top VOCAB` gives trit's
(the scalar reference kernels: the optimized set quantizes activations for
q8_0/TQ1_0/TQ2_0 and is checked against the reference in
tests/model/optimized_kernels_test.cpp). They must agree
within 1e-4 absolute for llama/qwen and 1e-5 for the architectures added
after (float32 vs float64 rounding is ~1e-6 here, see the printed errors; a
wrong rope pairing, GQA mapping, norm, window or cap gives errors near 1).

Prints one line per check and a closing "N passed, N failed" line.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from llama_numpy_forward import Model  # noqa: E402

TOLERANCE = 1e-4
TIGHT = 1e-5
VARIANTS = [
    ("llama", [], TOLERANCE),
    ("llama", ["tied"], TOLERANCE),
    ("llama", ["q8_0"], TOLERANCE),
    ("qwen2", ["bias"], TOLERANCE),
    ("qwen3", ["qknorm"], TOLERANCE),
    ("gemma", [], TIGHT),
    ("gemma2", [], TIGHT),
    ("gemma3", [], TIGHT),
    ("bitnet", [], TIGHT),
    ("bitnet", ["tq1_0"], TIGHT),
    ("bitnet", ["tq2_0"], TIGHT),
    ("bitnet-b1.58", [], TIGHT),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trit", required=True)
    ap.add_argument("--make-model", required=True)
    args = ap.parse_args()
    passed = failed = 0
    rng = np.random.default_rng(4)
    with tempfile.TemporaryDirectory(prefix="trit-forward-") as tmp:
        for arch, flags, tolerance in VARIANTS:
            name = "-".join([arch] + flags)
            path = os.path.join(tmp, name + ".gguf")
            subprocess.run([args.make_model, path, arch, *flags], check=True)
            model = Model(path)
            n_vocab = model.t["token_embd.weight"].shape[0]
            ids = [int(x) for x in rng.integers(0, n_vocab, size=45)]
            out = subprocess.run([args.trit, "verify", path, "--ids", " ".join(map(str, ids)), "--kv", "f32",
                                  "--engine", "reference", "--chunk", "7", "--json", "--top", str(n_vocab)],
                                 capture_output=True, text=True, timeout=120)
            if out.returncode != 0:
                print(f"FAIL {name}: trit verify exited {out.returncode}: {out.stderr.strip()}")
                failed += 1
                continue
            j = json.loads(out.stdout)
            got = np.zeros((len(ids), n_vocab))
            for i, row in enumerate(j["top"]):
                for tok, logit in row:
                    got[i, tok] = logit
            want = model.forward(ids)
            err = float(np.abs(got - want).max())
            ok = err <= tolerance and j["differing"] == 0 and np.abs(want).max() > 0.1
            print(("PASS " if ok else "FAIL ") +
                  f"{name}: {len(ids)} rows x {n_vocab} logits, max |trit - numpy| = {err:.2e} "
                  f"(max |logit| {np.abs(want).max():.2f}, tolerance {tolerance:.0e}), differing={j['differing']}")
            passed += ok
            failed += not ok
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
