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
expected_logits.json.

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
    converter, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
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


if __name__ == "__main__":
    main()
