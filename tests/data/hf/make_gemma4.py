"""Makes the tiny Gemma 4 test file under tests/data/hf/gemma4/.

The shape is the real Gemma 4 text config (google/gemma-4-E2B's layout, with
the 31B's K = V full-attention layers) shrunk so that one small file carries
every part of the architecture:
  - 9 layers, sliding-window and full attention alternating 2:1 (E2B: 4:1),
    a window of 4 keys, so the 17-token sequence leaves it;
  - per-layer head sizes (16 sliding, 32 full) and KV head counts (2 sliding,
    1 full), proportional rope on the full layers (partial_rotary_factor 0.25);
  - attention_k_eq_v: the full-attention layers have no v_proj (V = K);
  - the last 3 layers share the KV of the last earlier layer of their type
    (num_kv_shared_layers), with a double-wide MLP (use_double_wide_mlp);
  - per-layer embeddings (hidden_size_per_layer_input 8);
  - final logit soft-capping 30, tied embeddings.
Weights are random (torch.manual_seed(4)) in a real transformers
Gemma4ForCausalLM; the tokenizer is the tiny SentencePiece-style BPE of
tests/data/hf/gemma3 (400 tokens, tokenizer.json only).

Steps: save the checkpoint to a temporary folder, convert it with llama.cpp's
own convert_hf_to_gguf.py (--outtype f32) to gemma4-tiny-f32.gguf, and record
HF float32 logits of every position for two fixed token sequences into
expected_logits.json.

Run with a Python that has torch, transformers, tokenizers, safetensors and
llama.cpp's gguf-py on PYTHONPATH:
  PYTHONPATH=<llama.cpp>/gguf-py python tests/data/hf/make_gemma4.py \
      <llama.cpp>/convert_hf_to_gguf.py tests/data/hf/gemma4
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
TOKENIZER = os.path.join(HERE, "gemma3")

# Token sequences whose logits are recorded (ids < 400).
SEQUENCES = [
    [2, 17, 250, 3, 99, 42, 7, 311, 128, 5, 64, 200, 13, 399, 0, 77, 150],
    [2, 300, 45, 45, 45, 180, 9],
]


def config():
    sliding, full = "sliding_attention", "full_attention"
    return transformers.Gemma4TextConfig(
        vocab_size=400, vocab_size_per_layer_input=400, hidden_size=64, intermediate_size=96,
        num_hidden_layers=9, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
        global_head_dim=32, num_global_key_value_heads=1, attention_k_eq_v=True,
        layer_types=[sliding, sliding, full] * 3, sliding_window=4, num_kv_shared_layers=3,
        use_double_wide_mlp=True, hidden_size_per_layer_input=8, final_logit_softcapping=30.0,
        max_position_embeddings=256, rms_norm_eps=1e-6, tie_word_embeddings=True,
        bos_token_id=2, eos_token_id=1, pad_token_id=0)


def main():
    converter, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(4)
    model = transformers.Gemma4ForCausalLM(config()).float().eval()
    # Random init leaves norm weights at 1 and layer_scalar at 1; perturb every
    # parameter and buffer that is stored so each one is visible in the logits.
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "norm" in name:
                p.copy_(0.2 * torch.randn_like(p) + 1.0)
            else:
                p.copy_(0.08 * torch.randn_like(p))
        for name, b in model.named_buffers():
            if name.endswith("layer_scalar"):
                b.copy_(0.5 + torch.rand_like(b))
    with tempfile.TemporaryDirectory() as tmp:
        model.save_pretrained(tmp)
        for f in ("tokenizer.json", "tokenizer_config.json"):
            shutil.copy(os.path.join(TOKENIZER, f), tmp)
        gguf = os.path.join(out_dir, "gemma4-tiny-f32.gguf")
        subprocess.run([sys.executable, converter, tmp, "--outtype", "f32", "--outfile", gguf], check=True)
    rows = []
    with torch.no_grad():
        for ids in SEQUENCES:
            logits = model(torch.tensor([ids])).logits[0].float()
            rows.append(dict(ids=ids, logits=[[round(float(v), 6) for v in r] for r in logits]))
    with open(os.path.join(out_dir, "expected_logits.json"), "w") as f:
        json.dump(dict(transformers=transformers.__version__, torch=torch.__version__, sequences=rows), f)


if __name__ == "__main__":
    main()
