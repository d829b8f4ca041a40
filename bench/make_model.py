#!/usr/bin/env python3
"""Writes a GGUF of a real model's shape with random F16 weights, for benchmarks.

Decode and prefill speed depend on the shapes and the weight type, not on the
weight values, so a model of a real model's shape with random weights measures
what a trained one would. The values are kept sane (normal, std 0.02; norm
weights 1) so forward passes stay finite. The tokenizer is the real llama SPM
vocabulary (32000 pieces) copied from llama.cpp's ggml-vocab-llama-spm.gguf,
so prompts tokenize as they would for TinyLlama. Shapes whose real vocabulary
is larger (Qwen3: 151936, Llama 3: 128256) get the SPM pieces padded with
unused pieces `<unused0>`, `<unused1>`, ... (token type 5, UNUSED, score
-1e9) up to that size, so token_embd (and the tied LM head) has the real
number of rows: the LM head is a large part of what a small model's decode
step reads.

Shapes (all row lengths are multiples of 256, so every block type applies:
Q4_K, Q6_K, IQ4_XS, TQ1_0, TQ2_0 have 256-wide blocks):
  tinyllama    llama  TinyLlama-1.1B: dim 2048, ffn 5632, 22 layers, 32/4 heads, head 64, vocab 32000
  llama3.2-1b  llama  Llama-3.2-1B: dim 2048, ffn 8192, 16 layers, 32/8 heads, head 64, vocab 128256, tied, rope base 500000
  qwen3-0.6b   qwen3  Qwen3-0.6B: dim 1024, ffn 3072, 28 layers, 16/8 heads, head 128 (q is 2048 wide), q/k norms, vocab 151936, tied, rope base 1000000
  small        llama  quick checks: dim 512, ffn 1536, 4 layers, 8/4 heads, vocab 32000

Tensors are generated and written one at a time (the largest, Llama 3's
128256 x 2048 f16, is 525 MB), so memory stays near one tensor whatever the
model size.

    .venv/bin/python bench/make_model.py OUT.gguf [--shape tinyllama|llama3.2-1b|qwen3-0.6b|small]
        [--seed 1] [--tied] [--layers N]
"""
import argparse
import dataclasses
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEFAULT_VOCAB = ROOT.parent / "shared" / "data" / "vocab" / "llama.cpp" / "ggml-vocab-llama-spm.gguf"


@dataclasses.dataclass(frozen=True)
class Shape:
    arch: str          # general.architecture, and the prefix of the hyper-parameter keys
    dim: int           # embedding_length
    ffn: int           # feed_forward_length
    n_layer: int
    n_head: int
    n_kv_head: int
    head_dim: int      # written as attention.key_length/value_length when n_head * head_dim != dim
    n_vocab: int       # 0: the tokenizer's own size; larger: padded with unused pieces
    tied: bool         # no output.weight: the LM head is token_embd
    qk_norm: bool      # attn_q_norm / attn_k_norm (head_dim,) per layer (Qwen3)
    rope_base: float
    rms_eps: float
    # Trained context in the file. Smaller than the real models' (40960,
    # 131072): runtimes that size a cache from it by default (trit's Session
    # with n_ctx 0) would otherwise allocate GBs of KV for a benchmark.
    n_ctx: int


SHAPES = {
    "tinyllama": Shape("llama", 2048, 5632, 22, 32, 4, 64, 0, False, False, 10000.0, 1e-5, 2048),
    "llama3.2-1b": Shape("llama", 2048, 8192, 16, 32, 8, 64, 128256, True, False, 500000.0, 1e-5, 4096),
    "qwen3-0.6b": Shape("qwen3", 1024, 3072, 28, 16, 8, 128, 151936, True, True, 1000000.0, 1e-6, 4096),
    "small": Shape("llama", 512, 1536, 4, 8, 4, 64, 0, False, False, 10000.0, 1e-5, 2048),
}
WEIGHT_STD = 0.02
PAD_SCORE = -1e9  # the lowest score in the SPM vocabulary: a padded piece never wins a merge
ROWS_PER_CHUNK = 4096  # rows drawn at a time: the f32 draw stays small next to the f16 tensor


def copy_tokenizer(writer, vocab_path, n_vocab_target):
    """Copies tokenizer.* from vocab_path, padding the per-token arrays to n_vocab_target (0: no padding).

    Returns the vocabulary size written."""
    import gguf
    reader = gguf.GGUFReader(str(vocab_path))
    fields = {key: field for key, field in reader.fields.items() if key.startswith("tokenizer.")}
    if "tokenizer.ggml.tokens" not in fields:
        sys.exit(f"make_model.py: {vocab_path}: no tokenizer.ggml.tokens array")
    tokens = fields["tokenizer.ggml.tokens"].contents()
    n_pad = max(0, n_vocab_target - len(tokens))
    if n_vocab_target and n_vocab_target < len(tokens):
        sys.exit(f"make_model.py: the shape's vocabulary ({n_vocab_target}) is smaller than {vocab_path}'s ({len(tokens)})")
    pad_names = [f"<unused{i}>" for i in range(n_pad)]
    if set(pad_names) & set(tokens):
        sys.exit(f"make_model.py: {vocab_path} already has pieces named <unusedN>; cannot pad")
    padding = {
        "tokenizer.ggml.tokens": pad_names,
        "tokenizer.ggml.scores": [PAD_SCORE] * n_pad,
        "tokenizer.ggml.token_type": [int(gguf.TokenType.UNUSED)] * n_pad,
    }
    for key, field in fields.items():
        value = field.contents()
        vtype = field.types[0]
        if vtype == gguf.GGUFValueType.ARRAY:
            if key in padding:
                value = list(value) + padding[key]
            elif isinstance(value, list) and len(value) == len(tokens) and n_pad:
                sys.exit(f"make_model.py: {vocab_path}: per-token array {key} has no padding rule")
            writer.add_key_value(key, value, vtype, sub_type=field.types[-1])
        else:
            writer.add_key_value(key, value, vtype)
    return len(tokens) + n_pad


def tensor_plan(shape, n_layer, n_vocab, tied):
    """(name, numpy shape) of every tensor, in llama.cpp's order; numpy shape is (rows, row length)."""
    dim = shape.dim
    q_dim = shape.n_head * shape.head_dim
    kv_dim = shape.n_kv_head * shape.head_dim
    plan = [("token_embd.weight", (n_vocab, dim))]
    for i in range(n_layer):
        p = f"blk.{i}."
        plan += [
            (p + "attn_norm.weight", (dim,)),
            (p + "attn_q.weight", (q_dim, dim)),
            (p + "attn_k.weight", (kv_dim, dim)),
            (p + "attn_v.weight", (kv_dim, dim)),
            (p + "attn_output.weight", (dim, q_dim)),
        ]
        if shape.qk_norm:
            plan += [(p + "attn_q_norm.weight", (shape.head_dim,)), (p + "attn_k_norm.weight", (shape.head_dim,))]
        plan += [
            (p + "ffn_norm.weight", (dim,)),
            (p + "ffn_gate.weight", (shape.ffn, dim)),
            (p + "ffn_up.weight", (shape.ffn, dim)),
            (p + "ffn_down.weight", (dim, shape.ffn)),
        ]
    plan.append(("output_norm.weight", (dim,)))
    if not tied:
        plan.append(("output.weight", (n_vocab, dim)))
    return plan


def random_matrix(rng, shape):
    """Normal(0, WEIGHT_STD) as f16, drawn in row chunks (the same values as one draw of the whole shape)."""
    out = np.empty(shape, dtype=np.float16)
    for r in range(0, shape[0], ROWS_PER_CHUNK):
        rows = min(ROWS_PER_CHUNK, shape[0] - r)
        out[r:r + rows] = rng.standard_normal((rows, shape[1]), dtype=np.float32) * WEIGHT_STD
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", help="output .gguf path (written to OUT.tmp, then renamed)")
    ap.add_argument("--shape", choices=sorted(SHAPES), default="tinyllama")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tied", action="store_true",
                    help="no output.weight: logits reuse token_embd (tied embeddings; implied by llama3.2-1b and qwen3-0.6b)")
    ap.add_argument("--layers", type=int, default=0,
                    help="override the shape's layer count (quick checks of the file format; not for timing)")
    ap.add_argument("--vocab", default=str(DEFAULT_VOCAB), help="GGUF whose tokenizer.* metadata is copied")
    args = ap.parse_args()
    if args.layers < 0:
        ap.error("--layers must be >= 1 (0, the default: the shape's own count)")
    try:
        import gguf
    except ImportError:
        sys.exit("make_model.py: the Python 'gguf' package is not installed (pip install -r tests/python/requirements.txt)")
    vocab = pathlib.Path(args.vocab)
    if not vocab.is_file():
        sys.exit(f"make_model.py: vocabulary file not found: {vocab} (give --vocab)")

    shape = SHAPES[args.shape]
    n_layer = args.layers or shape.n_layer
    tied = args.tied or shape.tied
    out = pathlib.Path(args.out)
    tmp = out.with_name(out.name + ".tmp")
    writer = gguf.GGUFWriter(str(tmp), shape.arch, use_temp_file=False)
    layers_note = f"-{n_layer}layers" if n_layer != shape.n_layer else ""
    writer.add_name(f"trit-bench-{args.shape}{layers_note}-random")
    writer.add_context_length(shape.n_ctx)
    writer.add_embedding_length(shape.dim)
    writer.add_feed_forward_length(shape.ffn)
    writer.add_block_count(n_layer)
    writer.add_head_count(shape.n_head)
    writer.add_head_count_kv(shape.n_kv_head)
    if shape.n_head * shape.head_dim != shape.dim:
        # Readers default head_dim to dim / n_head; Qwen3-0.6B's (1024 / 16 = 64) is not its 128.
        writer.add_key_length(shape.head_dim)
        writer.add_value_length(shape.head_dim)
    writer.add_rope_dimension_count(shape.head_dim)
    writer.add_rope_freq_base(shape.rope_base)
    writer.add_layer_norm_rms_eps(shape.rms_eps)
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    n_vocab = copy_tokenizer(writer, vocab, shape.n_vocab)
    writer.add_vocab_size(n_vocab)

    plan = tensor_plan(shape, n_layer, n_vocab, tied)
    for name, tshape in plan:
        # Norm weights stay f32, as llama.cpp's converter writes them.
        dtype = np.float32 if len(tshape) == 1 else np.float16
        nbytes = int(np.prod(tshape)) * np.dtype(dtype).itemsize
        writer.add_tensor_info(name, tshape, np.dtype(dtype), nbytes)
    writer.write_header_to_file(path=tmp)
    writer.write_kv_data_to_file()
    writer.write_ti_data_to_file()

    rng = np.random.default_rng(args.seed)
    n_params = 0
    for i, (name, tshape) in enumerate(plan):
        data = np.ones(tshape, dtype=np.float32) if len(tshape) == 1 else random_matrix(rng, tshape)
        writer.write_tensor_data(data)
        n_params += data.size
        print(f"\r[{i + 1}/{len(plan)}] {name}            ", end="", file=sys.stderr, flush=True)
    writer.close()
    tmp.replace(out)
    print(f"\n{out}: {args.shape} ({shape.arch}, {n_layer} layers, vocab {n_vocab}{', tied' if tied else ''}), "
          f"{n_params / 1e6:.1f}M parameters, {out.stat().st_size / 1e9:.2f} GB", file=sys.stderr)


if __name__ == "__main__":
    main()
