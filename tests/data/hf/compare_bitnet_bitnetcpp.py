"""Compares `trit convert --type i2_s` with bitnet.cpp's own I2_S file of the
same checkpoint (tests/data/bitnet/tiny-i2_s.gguf on the i2s branch: made by
bitnet.cpp c82b5e6's converter and llama-quantize from the f16 checkpoint
that bench/bitnet/make_bitnet_checkpoint.py writes with the flags in that
folder's README), tensor for tensor, and prints what agrees.  Not a ctest:
both inputs live on another branch.

That checkpoint is in 1bitLLM's layout (BitnetForCausalLM, sub-norms named
self_attn.inner_attn_ln and mlp.ffn_layernorm, hidden_act "silu"), which
bitnet.cpp writes as its `bitnet` architecture.  trit converts transformers'
BitNetForCausalLM (relu2) only, so a copy is made with the sub-norms renamed
to transformers' names and config.json saying BitNetForCausalLM and relu2:
only the architecture name and its keys then differ, and the tensors are
compared.

Run (torch, numpy, safetensors):
  python tests/data/hf/compare_bitnet_bitnetcpp.py <make_bitnet_checkpoint.py> <tiny-i2_s.gguf> <trit binary>
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

import numpy as np
from safetensors.torch import load_file, save_file

HERE = os.path.dirname(os.path.abspath(__file__))
FLAGS = ["--layers", "2", "--hidden", "256", "--intermediate", "512", "--heads", "4", "--vocab", "400",
         "--std", "0.1", "--embed-std", "0.1", "--seed", "1"]
SHA = "540992576e763f2f56dfad8c9c8a93d81adc8c30d7cd3f31322d9c043de56501"  # the README's checkpoint


def read_gguf(path):
    """{name: (GGUF shape, type, bytes from the tensor's offset)}, and the keys."""
    b = open(path, "rb").read()
    o = 0

    def u(fmt):
        nonlocal o
        v = struct.unpack_from("<" + fmt, b, o)
        o += struct.calcsize("<" + fmt)
        return v[0]

    def s():
        nonlocal o
        n = u("Q")
        v = b[o:o + n].decode()
        o += n
        return v

    sizes = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}

    def val(t):
        if t == 8:
            return s()
        if t == 9:
            et, n = u("I"), u("Q")
            return [val(et) for _ in range(n)]
        return u(sizes[t])

    assert b[:4] == b"GGUF"
    o = 4
    u("I")
    n_tensors, n_keys = u("Q"), u("Q")
    keys = {}
    for _ in range(n_keys):
        k = s()
        keys[k] = val(u("I"))
    infos = []
    for _ in range(n_tensors):
        name = s()
        shape = [u("Q") for _ in range(u("I"))]
        infos.append((name, shape, u("I"), u("Q")))
    align = keys.get("general.alignment", 32)
    base = (o + align - 1) // align * align
    return keys, {n: (sh, t, b[base + off:]) for n, sh, t, off in infos}


def values(shape, t, d):
    """f32/f16 values; for I2_S (36) the codes t and the trailer scale."""
    n = int(np.prod(shape))
    if t == 0:
        return np.frombuffer(d[:4 * n], np.float32)
    if t == 1:
        return np.frombuffer(d[:2 * n], np.float16).astype(np.float32)
    assert t == 36, t
    p = np.frombuffer(d[:n // 4], np.uint8).reshape(-1, 32)
    codes = np.stack([(p >> sh) & 3 for sh in (6, 4, 2, 0)], 1).reshape(-1).astype(np.int8) - 1
    return codes, np.frombuffer(d[n // 4:n // 4 + 4], np.float32)[0]


def main():
    generator, theirs, trit = sys.argv[1], sys.argv[2], sys.argv[3]
    with tempfile.TemporaryDirectory() as tmp:
        ckpt, ours_dir = os.path.join(tmp, "tiny-ckpt"), os.path.join(tmp, "renamed")
        # The generator copies tokenizer.model from the repository it sits in.
        subprocess.run([sys.executable, generator, ckpt] + FLAGS, check=True, capture_output=True)
        got = subprocess.run(["sha256sum", os.path.join(ckpt, "model.safetensors")], capture_output=True,
                             text=True).stdout.split()[0]
        print("checkpoint sha256", "as the README's" if got == SHA else f"DIFFERS: {got}")
        os.makedirs(ours_dir)
        for f in os.listdir(ckpt):
            if f.startswith("tokenizer"):
                shutil.copy(os.path.join(ckpt, f), ours_dir)
        t = load_file(os.path.join(ckpt, "model.safetensors"))
        t = {k.replace("self_attn.inner_attn_ln", "self_attn.attn_sub_norm").replace("mlp.ffn_layernorm",
                                                                                      "mlp.ffn_sub_norm"): v
             for k, v in t.items()}
        save_file(t, os.path.join(ours_dir, "model.safetensors"), metadata={"format": "pt"})
        c = json.load(open(os.path.join(ckpt, "config.json")))
        c.update(architectures=["BitNetForCausalLM"], hidden_act="relu2")
        json.dump(c, open(os.path.join(ours_dir, "config.json"), "w"))
        ours = os.path.join(tmp, "trit-i2_s.gguf")
        subprocess.run([trit, "convert", ours_dir, ours, "--type", "i2_s", "-q"], check=True, capture_output=True)
        ka, a = read_gguf(ours)
        kb, b = read_gguf(theirs)
        print("architectures", ka["general.architecture"], kb["general.architecture"])
        print("tensor names the same:", sorted(a) == sorted(b))
        codes = scales16 = floats = True
        worst = 0.0
        for n in sorted(set(a) & set(b)):
            (sa, ta, da), (sb, tb, db) = a[n], b[n]
            if (sa, ta) != (sb, tb):
                print(f"{n}: shape/type {sa}/{ta} vs {sb}/{tb}")
                continue
            if ta == 36:
                (ca, xa), (cb, xb) = values(sa, ta, da), values(sb, tb, db)
                codes &= bool(np.array_equal(ca, cb))
                scales16 &= bool(np.float32(np.float16(xa)) == xb)
                worst = max(worst, abs(float(xa) - float(xb)) / float(xb))
            else:
                floats &= bool(np.array_equal(values(sa, ta, da), values(sb, tb, db)))
        print(f"I2_S codes identical: {codes}; embeddings and norms identical: {floats}")
        print(f"bitnet.cpp's I2_S scale is trit's rounded to f16: {scales16} (largest relative gap {worst:.2g})")


if __name__ == "__main__":
    main()
