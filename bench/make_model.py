#!/usr/bin/env python3
"""Writes a llama-architecture GGUF with random F16 weights, for benchmarks.

Decode and prefill speed depend on the shapes and the weight type, not on the
weight values, so a model of a real model's shape with random weights measures
what a trained one would. The values are kept sane (normal, std 0.02; norm
weights 1) so forward passes stay finite. The tokenizer is the real llama SPM
vocabulary (32000 pieces) copied from llama.cpp's ggml-vocab-llama-spm.gguf,
so prompts tokenize as they would for TinyLlama.

Tensors are generated and written one at a time (the largest, 32000 x 2048
f16, is 131 MB), so memory stays small whatever the model size.

    .venv/bin/python bench/make_model.py OUT.gguf [--shape tinyllama|small] [--seed 1] [--tied]
"""
import argparse
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEFAULT_VOCAB = ROOT.parent / "shared" / "data" / "vocab" / "llama.cpp" / "ggml-vocab-llama-spm.gguf"

# name: (dim, ffn, layers, heads, kv_heads). Row lengths are multiples of 256
# so every block type (Q4_K, TQ1_0, TQ2_0 have 256-wide blocks) applies.
SHAPES = {
    "tinyllama": (2048, 5632, 22, 32, 4),  # TinyLlama-1.1B
    "small": (512, 1536, 4, 8, 4),         # quick checks: ~40M parameters, mostly embeddings
}
WEIGHT_STD = 0.02


def copy_tokenizer(writer, vocab_path):
    import gguf
    reader = gguf.GGUFReader(str(vocab_path))
    n_vocab = 0
    for key, field in reader.fields.items():
        if not key.startswith("tokenizer."):
            continue
        value = field.contents()
        vtype = field.types[0]
        if vtype == gguf.GGUFValueType.ARRAY:
            writer.add_key_value(key, value, vtype, sub_type=field.types[-1])
            if key == "tokenizer.ggml.tokens":
                n_vocab = len(value)
        else:
            writer.add_key_value(key, value, vtype)
    if n_vocab == 0:
        sys.exit(f"make_model.py: {vocab_path}: no tokenizer.ggml.tokens array")
    return n_vocab


def tensor_plan(dim, ffn, n_layer, n_head, n_kv_head, n_vocab, tied):
    """(name, numpy shape) of every tensor, in llama.cpp's order; shape is (rows, row length)."""
    kv_dim = dim // n_head * n_kv_head
    plan = [("token_embd.weight", (n_vocab, dim))]
    for i in range(n_layer):
        p = f"blk.{i}."
        plan += [
            (p + "attn_norm.weight", (dim,)),
            (p + "attn_q.weight", (dim, dim)),
            (p + "attn_k.weight", (kv_dim, dim)),
            (p + "attn_v.weight", (kv_dim, dim)),
            (p + "attn_output.weight", (dim, dim)),
            (p + "ffn_norm.weight", (dim,)),
            (p + "ffn_gate.weight", (ffn, dim)),
            (p + "ffn_up.weight", (ffn, dim)),
            (p + "ffn_down.weight", (dim, ffn)),
        ]
    plan.append(("output_norm.weight", (dim,)))
    if not tied:
        plan.append(("output.weight", (n_vocab, dim)))
    return plan


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", help="output .gguf path (written to OUT.tmp, then renamed)")
    ap.add_argument("--shape", choices=sorted(SHAPES), default="tinyllama")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tied", action="store_true", help="no output.weight: logits reuse token_embd (tied embeddings)")
    ap.add_argument("--vocab", default=str(DEFAULT_VOCAB), help="GGUF whose tokenizer.* metadata is copied")
    args = ap.parse_args()
    try:
        import gguf
    except ImportError:
        sys.exit("make_model.py: the Python 'gguf' package is not installed (pip install -r tests/python/requirements.txt)")
    vocab = pathlib.Path(args.vocab)
    if not vocab.is_file():
        sys.exit(f"make_model.py: vocabulary file not found: {vocab} (give --vocab)")

    dim, ffn, n_layer, n_head, n_kv_head = SHAPES[args.shape]
    out = pathlib.Path(args.out)
    tmp = out.with_name(out.name + ".tmp")
    writer = gguf.GGUFWriter(str(tmp), "llama", use_temp_file=False)
    writer.add_name(f"trit-bench-{args.shape}-random")
    writer.add_context_length(2048)
    writer.add_embedding_length(dim)
    writer.add_feed_forward_length(ffn)
    writer.add_block_count(n_layer)
    writer.add_head_count(n_head)
    writer.add_head_count_kv(n_kv_head)
    writer.add_rope_dimension_count(dim // n_head)
    writer.add_rope_freq_base(10000.0)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    n_vocab = copy_tokenizer(writer, vocab)
    writer.add_vocab_size(n_vocab)

    plan = tensor_plan(dim, ffn, n_layer, n_head, n_kv_head, n_vocab, args.tied)
    for name, shape in plan:
        # Norm weights stay f32, as llama.cpp's converter writes them.
        dtype = np.float32 if len(shape) == 1 else np.float16
        nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
        writer.add_tensor_info(name, shape, np.dtype(dtype), nbytes)
    writer.write_header_to_file(path=tmp)
    writer.write_kv_data_to_file()
    writer.write_ti_data_to_file()

    rng = np.random.default_rng(args.seed)
    n_params = 0
    for i, (name, shape) in enumerate(plan):
        if len(shape) == 1:
            data = np.ones(shape, dtype=np.float32)
        else:
            data = (rng.standard_normal(shape, dtype=np.float32) * WEIGHT_STD).astype(np.float16)
        writer.write_tensor_data(data)
        n_params += data.size
        print(f"\r[{i + 1}/{len(plan)}] {name}            ", end="", file=sys.stderr, flush=True)
    writer.close()
    tmp.replace(out)
    print(f"\n{out}: {args.shape}, {n_params / 1e6:.1f}M parameters, {out.stat().st_size / 1e9:.2f} GB", file=sys.stderr)


if __name__ == "__main__":
    main()
