"""Compares `trit convert` with llama.cpp's convert_hf_to_gguf.py (BitnetModel,
arch "bitnet") on the tiny BitNet checkpoints of tests/data/hf/bitnet/, tensor
for tensor, and prints what agrees.  Not a ctest: it needs llama.cpp's source.

llama.cpp's BitnetModel cannot take these directories as they are, so two
things are patched in, and said so in the output:
  - its set_vocab reads tokenizer.model only; the tiny checkpoints have a
    byte-level BPE tokenizer.json, so set_vocab is _set_vocab_gpt2 (with the
    pre-tokenizer named qwen2, as make_qwen35.py does).  No tensor depends on it.
  - gguf-py's tensor_mapping knows the sub-norms only by the names of
    1bitLLM/bitnet_b1_58-3B (self_attn.inner_attn_ln, mlp.ffn_layernorm), not
    transformers' BitNetForCausalLM names (self_attn.attn_sub_norm,
    mlp.ffn_sub_norm): unpatched the converter stops at the first sub-norm.
    The run without this patch is shown first.
Its packed-weight path (dequant_bitnet) fails in the lazy mode it runs by
default ("Tensor on device cpu is not on the expected device meta"); those
forms are converted again with --no-lazy.

Run (numpy, torch, transformers, pyyaml, tqdm, requests, sentencepiece not needed):
  python tests/data/hf/compare_bitnet_llamacpp.py <llama.cpp> <trit binary>
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "bitnet")

PATCH = """
import os, runpy, sys
converter = sys.argv.pop(1)
sub_norms = sys.argv.pop(1) == "1"
sys.path.insert(0, os.path.dirname(converter))
from conversion import base, bitnet
import gguf
base.TextModel.get_vocab_base_pre = lambda self, tokenizer: "qwen2"
bitnet.BitnetModel.set_vocab = base.TextModel._set_vocab_gpt2
if sub_norms:
    m = gguf.TensorNameMap.block_mappings_cfg
    m[gguf.MODEL_TENSOR.ATTN_SUB_NORM] += ("model.layers.{bid}.self_attn.attn_sub_norm",)
    m[gguf.MODEL_TENSOR.FFN_SUB_NORM] += ("model.layers.{bid}.mlp.ffn_sub_norm",)
sys.argv[0] = converter
runpy.run_path(converter, run_name="__main__")
"""

TERNARY = ("attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down")


def llama_cpp(converter, ckpt, outtype, out, sub_norms, lazy=True):
    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(converter), "gguf-py"))
    return subprocess.run([sys.executable, "-c", PATCH, converter, "1" if sub_norms else "0", ckpt, "--outtype",
                           outtype, "--outfile", out] + ([] if lazy else ["--no-lazy"]),
                          env=env, capture_output=True, text=True)


def tensors(path):
    import gguf
    r = gguf.GGUFReader(path)
    return {t.name: (t.tensor_type.name, np.array(t.data).astype(np.float32)) for t in r.tensors}


def main():
    llama, trit = sys.argv[1], sys.argv[2]
    converter = os.path.join(llama, "convert_hf_to_gguf.py")
    sys.path.insert(0, os.path.join(llama, "gguf-py"))
    with tempfile.TemporaryDirectory() as tmp:
        r = llama_cpp(converter, os.path.join(DATA, "master"), "f32", os.path.join(tmp, "x.gguf"), sub_norms=False)
        last = (r.stderr.strip().splitlines() or ["?"])[-1]
        print(f"llama.cpp, sub-norm names unpatched: exit {r.returncode}: {last}")
        for form in ("master", "packed", "packed-autobitlinear"):
            for outtype in ("f32", "f16"):
                ours, theirs = os.path.join(tmp, "trit.gguf"), os.path.join(tmp, "llama.gguf")
                subprocess.run([trit, "convert", os.path.join(DATA, form), ours, "--type", outtype, "-q"], check=True)
                r = llama_cpp(converter, os.path.join(DATA, form), outtype, theirs, sub_norms=True)
                if r.returncode != 0:
                    print(f"{form} {outtype}: llama.cpp failed: {r.stderr.strip().splitlines()[-1]}; again with --no-lazy")
                    r = llama_cpp(converter, os.path.join(DATA, form), outtype, theirs, sub_norms=True, lazy=False)
                if r.returncode != 0:
                    print(f"{form} {outtype}: llama.cpp failed: {r.stderr.strip().splitlines()[-1]}")
                    continue
                a, b = tensors(ours), tensors(theirs)
                if sorted(a) != sorted(b):
                    print(f"{form} {outtype}: names differ: trit only {sorted(set(a) - set(b))}, "
                          f"llama.cpp only {sorted(set(b) - set(a))}")
                same, types, codes, worst = [], [], True, {}
                for name in sorted(set(a) & set(b)):
                    (ta, va), (tb, vb) = a[name], b[name]
                    if ta != tb:
                        types.append(f"{name} {ta}/{tb}")
                    if va.shape == vb.shape and np.array_equal(va, vb):
                        same.append(name)
                        continue
                    ternary = any(f".{t}." in name for t in TERNARY)
                    d = float(np.abs(va - vb).max()) if va.shape == vb.shape else float("nan")
                    rel = d / float(np.abs(va).max())
                    if ternary:
                        codes &= bool(np.array_equal(np.sign(va), np.sign(vb)))
                        ratio = float(np.abs(vb[va != 0]).mean() / np.abs(va[va != 0]).mean())
                        worst[name] = f"max |diff| {d:.3g} (rel {rel:.2g}), llama.cpp/trit magnitude {ratio:.6f}"
                    else:
                        worst[name] = f"max |diff| {d:.3g} (rel {rel:.2g})"
                print(f"{form} {outtype}: {len(same)} of {len(a)} tensors identical; types differ: {types or 'none'}; "
                      f"ternary codes (signs and zeros) {'the same' if codes else 'DIFFER'}")
                for name, what in worst.items():
                    print(f"    {name}: {what}")


if __name__ == "__main__":
    main()
