"""Makes the tiny gpt-oss test file under tests/data/hf/gpt_oss/.

The shape is gpt-oss-20b's config shrunk: 4 layers alternating local
(sliding window 4, so a 17-token sequence leaves it) and global attention,
biases on q, k, v and the output, a learned sink per head, YaRN rope as
published (factor 32 over 4096 positions, beta 32 / 1), and in every layer 8
biased experts with 3 chosen per token (the top logits of a biased router,
a softmax over just those) and the clamped SwiGLU (alpha 1.702, limit 7).
Weights are random (torch.manual_seed(49)) in a real transformers
GptOssForCausalLM; the tokenizer is the tiny byte-level BPE of
tests/data/hf/qwen3 (400 tokens).

One difference from the published config: rope_parameters' `truncate` is
True here. GGUF has no key for it and llama.cpp always floors and ceils
YaRN's correction range (ggml_rope_yarn_corr_dims), which is what
truncate=True means in transformers; with the published False, transformers
and llama.cpp differ by design and the logits could not be compared.

Steps: save the checkpoint to a temporary folder, convert it with llama.cpp's
own convert_hf_to_gguf.py (--outtype f32) to gpt-oss-tiny-f32.gguf, and
record HF float32 logits of every position for two fixed token sequences into
expected_logits.json.  Then the same model is saved twice as a Hugging Face
directory for `trit convert` to be tested on, each with llama.cpp's
converter's --outtype f16 file of it summed up in expected_f16.json by
make_expected.py (every tensor's name, shape, type and sha256; every key):
  checkpoint/        the model in bf16, as transformers' save_pretrained
                     writes it: each layer's experts fused, gate_up_proj
                     [E, hidden, 2 x ff] with gate and up interleaved
                     (even columns gate, odd up), down_proj [E, ff, hidden];
  checkpoint-mxfp4/  as openai/gpt-oss-* are published: the experts'
                     weights in MXFP4 (gate_up_proj_blocks / _scales,
                     down_proj_blocks / _scales, uint8; config.json's
                     quantization_config quant_method "mxfp4"), everything
                     else bf16.  The bf16 experts are quantized here (round
                     to nearest FP4 under a power-of-two scale per 32
                     inputs), and the packing is checked against
                     transformers' own reader (convert_moe_packed_tensors).
  python tests/data/hf/make_gpt_oss.py --checkpoints-only ... writes only
  those two folders (gpt-oss-tiny-f32.gguf's general.name is a temporary
  folder's, so a rerun would change that file's bytes).

Run with a Python that has torch, transformers, tokenizers, safetensors and
llama.cpp's gguf-py on PYTHONPATH:
  PYTHONPATH=<llama.cpp>/gguf-py python tests/data/hf/make_gpt_oss.py \\
      <llama.cpp>/convert_hf_to_gguf.py tests/data/hf/gpt_oss
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import torch
import transformers

HERE = os.path.dirname(os.path.abspath(__file__))
TOKENIZER = os.path.join(HERE, "qwen3")

# Token sequences whose logits are recorded (ids < 400).
SEQUENCES = [
    [1, 17, 250, 3, 99, 42, 7, 311, 128, 5, 64, 200, 13, 399, 0, 77, 150],
    [300, 2, 2, 2, 45, 180, 9],
]

sys.path.insert(0, HERE)
from make_qwen35 import CONVERT  # noqa: E402


def config():
    return transformers.GptOssConfig(
        vocab_size=400, hidden_size=64, intermediate_size=32, num_hidden_layers=4, num_attention_heads=4,
        num_key_value_heads=2, head_dim=16, num_local_experts=8, num_experts_per_tok=3, sliding_window=4,
        max_position_embeddings=131072, rms_norm_eps=1e-5, tie_word_embeddings=False,
        rope_parameters=dict(rope_type="yarn", rope_theta=150000.0, factor=32.0, beta_fast=32.0, beta_slow=1.0,
                             truncate=True, original_max_position_embeddings=4096),
        bos_token_id=None, eos_token_id=None, pad_token_id=None)


def main():
    checkpoints_only = "--checkpoints-only" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--checkpoints-only"]
    converter, out_dir = args[0], args[1]
    os.makedirs(out_dir, exist_ok=True)
    model = make_model()
    if not checkpoints_only:
        save_f32_and_logits(model, converter, out_dir)
    bf16 = model.to(torch.bfloat16)
    save_checkpoint(bf16, converter, os.path.join(out_dir, "checkpoint"))
    save_mxfp4_checkpoint(bf16, converter, os.path.join(out_dir, "checkpoint-mxfp4"))


def make_model():
    torch.manual_seed(49)
    cfg = config()
    cfg._attn_implementation = "eager"  # the sinks are in the eager softmax
    model = transformers.GptOssForCausalLM(cfg).float().eval()
    # Random init leaves norms at 1, biases and sinks at 0: perturb every
    # parameter so each one shows in the logits; the router more, so that
    # the experts' weights spread; the experts so that the gate and up
    # clamps (7) are reached now and then.
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "norm" in name:
                p.copy_(0.2 * torch.randn_like(p) + 1.0)
            elif "router" in name:
                p.copy_(0.5 * torch.randn_like(p))
            elif "sinks" in name:
                p.copy_(1.0 * torch.randn_like(p))
            elif "experts.gate_up_proj" in name and not name.endswith("bias"):
                p.copy_(0.6 * torch.randn_like(p))
            else:
                p.copy_(0.08 * torch.randn_like(p))
    return model


def save_f32_and_logits(model, converter, out_dir):
    with tempfile.TemporaryDirectory() as tmp:
        model.save_pretrained(tmp)
        for f in ("tokenizer.json", "tokenizer_config.json"):
            shutil.copy(os.path.join(TOKENIZER, f), tmp)
        gguf = os.path.join(out_dir, "gpt-oss-tiny-f32.gguf")
        subprocess.run([sys.executable, "-c", CONVERT, converter, tmp, "--outtype", "f32", "--outfile", gguf],
                       check=True)
    rows = []
    with torch.no_grad():
        for ids in SEQUENCES:
            logits = model(torch.tensor([ids])).logits[0].float()
            rows.append(dict(ids=ids, logits=[[round(float(v), 6) for v in r] for r in logits]))
    with open(os.path.join(out_dir, "expected_logits.json"), "w") as f:
        json.dump(dict(transformers=transformers.__version__, torch=torch.__version__, sequences=rows), f)


def save_pretrained(model, ckpt):
    os.makedirs(ckpt, exist_ok=True)
    model.save_pretrained(ckpt)
    for f in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(os.path.join(TOKENIZER, f), ckpt)
    junk = os.path.join(ckpt, "generation_config.json")
    if os.path.exists(junk):
        os.remove(junk)


def write_expected(converter, ckpt):
    llama_cpp = os.path.dirname(os.path.abspath(converter))
    with tempfile.TemporaryDirectory() as tmp:
        ref = os.path.join(tmp, "ref-f16.gguf")
        subprocess.run([sys.executable, "-c", CONVERT, converter, ckpt, "--outtype", "f16", "--outfile", ref],
                       check=True)
        subprocess.run([sys.executable, os.path.join(HERE, "make_expected.py"), llama_cpp, ref,
                        os.path.join(ckpt, "expected_f16.json")], check=True)


def save_checkpoint(model, converter, ckpt):
    save_pretrained(model, ckpt)
    write_expected(converter, ckpt)


# FP4 (e2m1) values by their 4-bit code, as transformers' FP4_VALUES.
FP4 = torch.tensor([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0])


def quantize_mxfp4(w):
    """w: [E, rows, cols] float32, rows the outputs: the published layout's
    blocks [E, rows, cols / 32, 16] (uint8, element 2j in the low nibble of
    byte j, 2j + 1 in the high) and scales [E, rows, cols / 32] (uint8, E8M0:
    2^(s - 127)), and the values they stand for."""
    e, rows, cols = w.shape
    g = w.reshape(e, rows, cols // 32, 32)
    amax = g.abs().amax(dim=-1)
    # OCP MX: shared exponent floor(log2(amax)) - 2 (e2m1's largest is 1.5 x 2^2).
    exp = torch.where(amax > 0, torch.floor(torch.log2(amax.clamp(min=1e-30))) - 2, torch.full_like(amax, -127))
    exp = exp.clamp(-127, 127)
    x = g / torch.ldexp(torch.ones_like(exp), exp.to(torch.int32)).unsqueeze(-1)
    codes = (x.unsqueeze(-1) - FP4).abs().argmin(dim=-1).to(torch.uint8)  # nearest, first of ties (+0 before -0)
    blocks = codes[..., 0::2] | (codes[..., 1::2] << 4)
    scales = (exp + 127).to(torch.uint8)
    values = FP4[codes.long()] * torch.ldexp(torch.ones_like(exp), exp.to(torch.int32)).unsqueeze(-1)
    return blocks.contiguous(), scales.contiguous(), values.reshape(e, rows, cols)


def save_mxfp4_checkpoint(model, converter, ckpt):
    from safetensors.torch import load_file, save_file
    from transformers.integrations.mxfp4 import convert_moe_packed_tensors
    save_pretrained(model, ckpt)
    path = os.path.join(ckpt, "model.safetensors")
    tensors = load_file(path)
    out = {}
    for name, t in tensors.items():
        if not name.endswith(("experts.gate_up_proj", "experts.down_proj")):
            out[name] = t
            continue
        # [E, in, out] in the model; the published blocks hold [E, out, in / 32, 16].
        blocks, scales, values = quantize_mxfp4(t.float().transpose(1, 2).contiguous())
        # transformers reads the blocks back to the model's [E, in, out]: the same values.
        back = convert_moe_packed_tensors(blocks, scales, dtype=torch.float32)
        assert torch.equal(back, values.transpose(1, 2)), name
        out[name + "_blocks"], out[name + "_scales"] = blocks, scales
    save_file(out, path, metadata={"format": "pt"})
    with open(os.path.join(ckpt, "config.json")) as f:
        cfg = json.load(f)
    cfg["quantization_config"] = {  # as openai/gpt-oss-20b's
        "modules_to_not_convert": ["model.layers.*.self_attn", "model.layers.*.mlp.router", "model.embed_tokens",
                                   "lm_head"],
        "quant_method": "mxfp4"}
    with open(os.path.join(ckpt, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2, sort_keys=True)
        f.write("\n")
    write_expected(converter, ckpt)


if __name__ == "__main__":
    main()
