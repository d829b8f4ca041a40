#!/usr/bin/env python3
"""Cross-checks `trit convert --type f32|f16|bf16|q8_0` against llama.cpp's own gguf-py.

A 2-layer BERT checkpoint (hidden 64, feed-forward 80, 11 tokens) is written
by Hugging Face's `safetensors` package three times, as F32, F16 and BF16,
and converted by trit to each type. gguf-py's GGUFReader reads every output;
each tensor must have the type and the bytes llama.cpp's convert_hf_to_gguf.py
would write: its prepare_tensors rule (float32 for 1-D tensors, *_norm.weight,
position_embd and token_types; the requested type for the other matrices)
re-stated here, and the bytes of `gguf.quants.quantize(array, type)` on the
array the converter hands it (F32 and F16 as they are, BF16 widened to
float32), falling back to F16 where gguf-py raises QuantError (q8_0 of the
ffn_down rows of 80 values), as the converter does. GGUF names come from
gguf-py's TensorNameMap.

The values hold the cases where an implementation could differ: bf16 and f16
rounding ties, subnormals, values past f16's range, q8_0 ties and a q8_0 block
whose scale overflows f16; and, in two more F32 checkpoints, NaNs and
infinities, which f32, f16 and bf16 convert as gguf-py does (signalling NaNs:
f32 and bf16) and q8_0 refuses by name (trit's choice: gguf-py writes
undefined bytes there).

Prints one line per check and a closing "N passed, N failed" line.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import gguf
import safetensors
from gguf import GGMLQuantizationType as Q
from safetensors import TensorSpec
from safetensors.numpy import save_file

passed = 0
failed = 0

HIDDEN, FFN, N_LAYERS, N_VOCAB, N_POS = 64, 80, 2, 11, 40
TYPES = {"f32": Q.F32, "f16": Q.F16, "bf16": Q.BF16, "q8_0": Q.Q8_0}
FILE_TYPES = {"f32": 0, "f16": 1, "bf16": 32, "q8_0": 7}  # gguf-py's LlamaFileType


def check(ok, what):
    global passed, failed
    print(("PASS " if ok else "FAIL ") + what, flush=True)
    if ok:
        passed += 1
    else:
        failed += 1
    return ok


def write_model_dir(path):
    """config.json, a WordPiece tokenizer.json of N_VOCAB tokens and its config."""
    os.makedirs(path, exist_ok=True)
    config = {"architectures": ["BertModel"], "model_type": "bert", "hidden_size": HIDDEN,
              "num_hidden_layers": N_LAYERS, "num_attention_heads": 2, "intermediate_size": FFN,
              "max_position_embeddings": N_POS, "type_vocab_size": 2, "vocab_size": N_VOCAB,
              "layer_norm_eps": 1e-12, "hidden_act": "gelu"}
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", "world", "##s", "play", "##ing", "!"]
    tokenizer = {"version": "1.0",
                 "added_tokens": [{"id": i, "content": t, "special": True, "normalized": False}
                                  for i, t in enumerate(vocab[:5])],
                 "normalizer": {"type": "BertNormalizer", "lowercase": True},
                 "pre_tokenizer": {"type": "BertPreTokenizer"},
                 "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                           "vocab": {t: i for i, t in enumerate(vocab)}}}
    tokenizer_config = {"do_lower_case": True, "unk_token": "[UNK]", "sep_token": "[SEP]", "pad_token": "[PAD]",
                        "cls_token": "[CLS]", "mask_token": "[MASK]"}
    for name, doc in (("config.json", config), ("tokenizer.json", tokenizer),
                      ("tokenizer_config.json", tokenizer_config)):
        with open(os.path.join(path, name), "w") as f:
            json.dump(doc, f)


def bits(*words):
    return np.array(words, dtype=np.uint32).view(np.float32)


def checkpoint_arrays(dtype):
    """Every tensor of the BERT as float32 (numpy [out, in]), with the hard cases in a few rows:
    only values that `dtype` holds as finite numbers, since trit refuses q8_0 of infinities."""
    rng = np.random.default_rng(2026)
    shapes = {"embeddings.word_embeddings.weight": (N_VOCAB, HIDDEN),
              "embeddings.position_embeddings.weight": (N_POS, HIDDEN),
              "embeddings.token_type_embeddings.weight": (2, HIDDEN),
              "embeddings.LayerNorm.weight": (HIDDEN,), "embeddings.LayerNorm.bias": (HIDDEN,)}
    layer = {"attention.self.query": (HIDDEN, HIDDEN), "attention.self.key": (HIDDEN, HIDDEN),
             "attention.self.value": (HIDDEN, HIDDEN), "attention.output.dense": (HIDDEN, HIDDEN),
             "attention.output.LayerNorm": (HIDDEN,), "intermediate.dense": (FFN, HIDDEN),
             "output.dense": (HIDDEN, FFN), "output.LayerNorm": (HIDDEN,)}
    for n in range(N_LAYERS):
        for name, shape in layer.items():
            shapes[f"encoder.layer.{n}.{name}.weight"] = shape
            shapes[f"encoder.layer.{n}.{name}.bias"] = shape[:1]
    arrays = {name: (rng.standard_normal(shape) * 0.05).astype(np.float32) for name, shape in shapes.items()}
    w = arrays["embeddings.word_embeddings.weight"]
    # bf16 ties (to even down, to even up), just above and below a tie; f16 ties and subnormals.
    w[0, :7] = bits(0x3F808000, 0x3F818000, 0x3F808001, 0x3F807FFF, 0xBF818000, 0x00008000, 0x80018000)
    w[1, :5] = [1.0 + 2.0**-11, 1.0 + 3 * 2.0**-11, 1e-6, -3e-8, 6e-8]
    # A q8_0 block of amax 127 (d = 1): quants are the values rounded half away from zero.
    w[2, :32] = np.arange(32, dtype=np.float32) - 15.5
    w[2, 0] = 127.0
    # All zeros: d = 0.
    w[4, :32] = 0.0
    if dtype != "F16":
        # A q8_0 block whose scale 1e7 / 127 is past f16's range (stored as inf).
        w[3, 32:64] = np.linspace(-1e7, 1e7, 32, dtype=np.float32)
    if dtype == "F32":
        # The largest float (bf16 and f16 round it to inf; q8_0's scale overflows), and 65520,
        # halfway between f16's largest 65504 and inf (to even: inf).
        w[1, 5:7] = [bits(0x7F7FFFFF)[0], 65520.0]
    return arrays


def bf16_bytes(a):
    """bfloat16 bits of float32 `a`, rounded to nearest even (the checkpoint's own values)."""
    u = a.view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def write_checkpoint(path, arrays, dtype):
    """model.safetensors of `arrays` as F32, F16 or BF16; returns the arrays llama.cpp's converter
    sees: F32 and F16 as stored, BF16 widened to float32 (torch's .to(torch.float32))."""
    if dtype == "F32":
        save_file(arrays, path)
        return dict(arrays)
    if dtype == "F16":
        halves = {name: a.astype(np.float16) for name, a in arrays.items()}
        save_file(halves, path)
        return halves
    raw = {name: bf16_bytes(a) for name, a in arrays.items()}
    specs = {name: TensorSpec(dtype="bfloat16", shape=list(b.shape), data_ptr=b.ctypes.data, data_len=b.nbytes)
             for name, b in raw.items()}
    safetensors.serialize_file(specs, path, metadata={"format": "pt"})
    return {name: (b.astype(np.uint32) << 16).view(np.float32) for name, b in raw.items()}


def llama_cpp_tensor(gguf_name, data, requested):
    """(type, bytes) as convert_hf_to_gguf.py's prepare_tensors writes `data` (BERT: no forced types)."""
    qtype = requested
    if data.ndim <= 1 or gguf_name.endswith("_norm.weight"):
        qtype = Q.F32
    elif gguf_name in ("position_embd.weight", "token_types.weight") or not gguf_name.endswith(".weight"):
        qtype = Q.F32
    try:
        out = gguf.quants.quantize(data, qtype)
    except gguf.QuantError:
        qtype = Q.F16
        out = gguf.quants.quantize(data, qtype)
    return qtype, np.ascontiguousarray(out).tobytes()


def run_convert(trit, model_dir, out, type_name):
    return subprocess.run([trit, "convert", model_dir, out, "--type", type_name, "--json", "-q"],
                          capture_output=True, text=True, timeout=120)


def check_conversion(trit, model_dir, seen, dtype, type_name, tmp):
    out = os.path.join(tmp, f"{dtype}-{type_name}.gguf".replace(" ", "-"))
    r = run_convert(trit, model_dir, out, type_name)
    if not check(r.returncode == 0, f"{dtype} -> {type_name}: trit convert succeeds ({r.stderr.strip()[-300:]})"):
        return
    reader = gguf.GGUFReader(out)
    ftype = reader.fields["general.file_type"]
    check(int(ftype.parts[ftype.data[0]][0]) == FILE_TYPES[type_name],
          f"{dtype} -> {type_name}: general.file_type {FILE_TYPES[type_name]}")
    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.BERT, N_LAYERS)
    written = {t.name: t for t in reader.tensors}
    mismatches, counts = [], {}
    for hf_name, data in seen.items():
        gguf_name = names.get_name(hf_name, try_suffixes=(".weight", ".bias"))
        qtype, want = llama_cpp_tensor(gguf_name, data, TYPES[type_name])
        counts[qtype.name] = counts.get(qtype.name, 0) + 1
        t = written.get(gguf_name)
        if t is None:
            mismatches.append(f"{gguf_name} missing")
            continue
        if t.tensor_type != qtype:
            mismatches.append(f"{gguf_name}: {t.tensor_type.name}, llama.cpp writes {qtype.name}")
            continue
        got = np.asarray(t.data).tobytes()
        if got != want:
            a, b = np.frombuffer(got, np.uint8), np.frombuffer(want, np.uint8)
            first = int(np.argmax(a != b)) if a.size == b.size else -1
            mismatches.append(f"{gguf_name} ({qtype.name}): bytes differ, first at byte {first} of {len(want)}")
    check(len(written) == len(seen), f"{dtype} -> {type_name}: {len(seen)} tensors ({len(written)} written)")
    summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
    check(not mismatches, f"{dtype} -> {type_name}: every tensor's type and bytes are gguf-py's ({summary})"
          + "".join(f"\n    {m}" for m in mismatches[:8]))
    if type_name == "q8_0":
        # The fallback is exercised: each layer's ffn_down (rows of FFN = 80 values) is f16.
        check(counts.get("F16", 0) == N_LAYERS and counts.get("Q8_0", 0) == 1 + 5 * N_LAYERS,
              f"{dtype} -> q8_0: ffn_down falls back to F16 in each of the {N_LAYERS} layers, the rest is Q8_0")


def check_non_finite(trit, tmp):
    # Quiet NaNs (with payloads) and infinities: f32, f16 and bf16 as gguf-py writes them.
    model_dir = os.path.join(tmp, "nonfinite")
    write_model_dir(model_dir)
    arrays = checkpoint_arrays("F32")
    arrays["embeddings.word_embeddings.weight"][5, :5] = bits(0x7FC00000, 0xFFC12345, 0x7F800000, 0xFF800000,
                                                              0x7FFFFFFF)
    seen = write_checkpoint(os.path.join(model_dir, "model.safetensors"), arrays, "F32")
    for type_name in ("f32", "f16", "bf16"):
        check_conversion(trit, model_dir, seen, "F32 with NaN and inf", type_name, tmp)
    out = os.path.join(tmp, "nonfinite-q8_0.gguf")
    r = run_convert(trit, model_dir, out, "q8_0")
    want = ("tensor 'token_embd.weight': from 'embeddings.word_embeddings.weight': element 320 is nan: "
            "q8_0 cannot hold it; convert with --type f16, bf16 or f32")
    check(r.returncode == 1 and want in r.stderr and not os.path.exists(out),
          f"q8_0 of a NaN is refused by tensor and element, nothing written ({r.stderr.strip()})")
    # Signalling NaNs: bf16 makes them quiet as gguf-py does. (Not f16: numpy's cast keeps
    # them signalling, trit's F16C conversion makes them quiet; docs/CONVERT.md.)
    model_dir = os.path.join(tmp, "signalling")
    write_model_dir(model_dir)
    arrays = checkpoint_arrays("F32")
    arrays["embeddings.word_embeddings.weight"][5, :3] = bits(0x7F800001, 0xFFA12345, 0x7FBFFFFF)
    seen = write_checkpoint(os.path.join(model_dir, "model.safetensors"), arrays, "F32")
    for type_name in ("f32", "bf16"):
        check_conversion(trit, model_dir, seen, "F32 with signalling NaNs", type_name, tmp)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trit", required=True, help="the trit program")
    args = ap.parse_args()
    print(f"gguf {gguf.__version__ if hasattr(gguf, '__version__') else '(gguf-py)'}, "
          f"safetensors {safetensors.__version__}, numpy {np.__version__}")
    # numpy says so when a value becomes inf in f16; that is the case being checked.
    warnings.filterwarnings("ignore", "overflow encountered in cast", RuntimeWarning)
    with tempfile.TemporaryDirectory(prefix="trit-hf-convert-") as tmp:
        for dtype in ("F32", "F16", "BF16"):
            model_dir = os.path.join(tmp, dtype)
            write_model_dir(model_dir)
            seen = write_checkpoint(os.path.join(model_dir, "model.safetensors"), checkpoint_arrays(dtype), dtype)
            for type_name in TYPES:
                check_conversion(args.trit, model_dir, seen, dtype, type_name, tmp)
        check_non_finite(args.trit, tmp)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
