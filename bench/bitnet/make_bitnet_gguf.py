#!/usr/bin/env python3
"""Writes a random-weight BitNet b1.58 GGUF of a real shape, for benchmarks.

The default shape is BitNet b1.58 2B4T's (microsoft/bitnet-b1.58-2B-4T
config.json: hidden 2560, intermediate 6912, 30 layers, 20 heads, 5 KV heads,
rope theta 500000, rms eps 1e-5, vocabulary 128,256 with Llama 3's tokenizer,
tied embeddings). Every projection is ternary with one scale per tensor
(values in {-s, 0, +s}, about a third zeros, s near BitNet's absmean scales),
which is what BitNet's converters hand llama-quantize: bitnet.cpp's own
llama-quantize then makes the I2_S file, and trit quantize makes TQ1_0/TQ2_0
copies of the same weights:

  python3 bench/bitnet/make_bitnet_gguf.py --vocab-from ggml-vocab-llama-bpe.gguf \\
      --arch bitnet --out b2b4t-bitnet-f16.gguf
  <bitnet.cpp>/build/bin/llama-quantize b2b4t-bitnet-f16.gguf b2b4t-bitnet-i2_s.gguf I2_S 1
  build/trit quantize b2b4t-bitnet-i2_s.gguf b2b4t-bitnet-tq2_0.gguf tq2_0   # exact: d = 1, .scale tensors

--arch bitnet writes llama.cpp's (and the Oct-2024 bitnet.cpp's) 'bitnet'
architecture (SwiGLU); --arch bitnet-b1.58 the 2B4T's own (squared ReLU),
which only trit and newer bitnet.cpp run. The vocabulary (tokenizer.*
keys) is copied from --vocab-from: llama.cpp's models/ggml-vocab-llama-bpe.gguf
(in the llama-cpp-python sdist) is Llama 3's, the 2B4T's tokenizer.

Needs numpy and llama.cpp's gguf package (tests/python/requirements.txt).
Writes ~4.7 GB at the default shape; takes about a minute.
"""
import argparse

import numpy as np
import gguf


def ternary(rng, rows, cols, scale):
    # About a third each of -1, 0, +1 (BitNet's trained weights are near that).
    z = rng.standard_normal((rows, cols), dtype=np.float32)
    t = np.where(z > 0.43, 1.0, np.where(z < -0.43, -1.0, 0.0)).astype(np.float16)
    return t * np.float16(scale)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--vocab-from", required=True, help="a GGUF whose tokenizer.* keys are copied (its vocabulary size is used)")
    ap.add_argument("--arch", choices=["bitnet", "bitnet-b1.58"], default="bitnet-b1.58")
    ap.add_argument("--layers", type=int, default=30)
    ap.add_argument("--hidden", type=int, default=2560)
    ap.add_argument("--ff", type=int, default=6912)
    ap.add_argument("--heads", type=int, default=20)
    ap.add_argument("--kv-heads", type=int, default=5)
    ap.add_argument("--ctx", type=int, default=4096)
    ap.add_argument("--seed", type=int, default=49)
    ap.add_argument("--out-scale", type=float, default=1.0,
                    help="times the scales of attn_output and ffn_down: below 1 each layer adds less to the residual, "
                         "so that 30 random layers do not amplify rounding into different outputs (0.1 for agreement runs)")
    a = ap.parse_args()

    src = gguf.GGUFReader(a.vocab_from)
    tokens = src.fields["tokenizer.ggml.tokens"]
    n_vocab = len(tokens.data)
    rng = np.random.default_rng(a.seed)
    head_dim = a.hidden // a.heads
    arch = a.arch

    w = gguf.GGUFWriter(a.out, arch)
    w.add_name(f"random {arch} {a.layers}x{a.hidden}")
    w.add_context_length(a.ctx)
    w.add_embedding_length(a.hidden)
    w.add_block_count(a.layers)
    w.add_feed_forward_length(a.ff)
    w.add_head_count(a.heads)
    w.add_head_count_kv(a.kv_heads)
    w.add_rope_dimension_count(head_dim)
    w.add_rope_freq_base(500000.0)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_vocab_size(n_vocab)
    w.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    for name, field in src.fields.items():
        if not name.startswith("tokenizer."):
            continue
        vtype = field.types[0]
        if vtype == gguf.GGUFValueType.ARRAY:
            sub = field.types[1]
            if sub == gguf.GGUFValueType.STRING:
                vals = [bytes(field.parts[i]).decode("utf-8", errors="surrogateescape") for i in field.data]
            else:
                vals = [field.parts[i].tolist()[0] for i in field.data]
            w.add_array(name, vals)
        elif vtype == gguf.GGUFValueType.STRING:
            w.add_string(name, bytes(field.parts[field.data[0]]).decode("utf-8"))
        else:
            w.add_key_value(name, field.parts[field.data[0]].tolist()[0], vtype)

    def norm(n):
        return (1.0 + 0.1 * rng.standard_normal(n)).astype(np.float32)

    w.add_tensor("token_embd.weight", (0.02 * rng.standard_normal((n_vocab, a.hidden), dtype=np.float32)).astype(np.float16))
    w.add_tensor("output_norm.weight", norm(a.hidden))
    kv = a.kv_heads * head_dim
    for il in range(a.layers):
        p = f"blk.{il}."
        # absmean scales of trained BitNet layers are of this order; one per tensor.
        s = lambda: float(np.float16(0.01 * (1.0 + rng.random())))
        w.add_tensor(p + "attn_norm.weight", norm(a.hidden))
        w.add_tensor(p + "attn_q.weight", ternary(rng, a.hidden, a.hidden, 4 * s()))
        w.add_tensor(p + "attn_k.weight", ternary(rng, kv, a.hidden, 4 * s()))
        w.add_tensor(p + "attn_v.weight", ternary(rng, kv, a.hidden, 4 * s()))
        w.add_tensor(p + "attn_sub_norm.weight", norm(a.hidden))
        w.add_tensor(p + "attn_output.weight", ternary(rng, a.hidden, a.hidden, a.out_scale * s()))
        w.add_tensor(p + "ffn_norm.weight", norm(a.hidden))
        w.add_tensor(p + "ffn_gate.weight", ternary(rng, a.ff, a.hidden, 4 * s()))
        w.add_tensor(p + "ffn_up.weight", ternary(rng, a.ff, a.hidden, 4 * s()))
        w.add_tensor(p + "ffn_sub_norm.weight", norm(a.ff))
        w.add_tensor(p + "ffn_down.weight", ternary(rng, a.hidden, a.ff, a.out_scale * s()))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file(progress=False)
    w.close()
    print(f"wrote {a.out}: {arch}, {a.layers} layers, vocab {n_vocab}")


if __name__ == "__main__":
    main()
