"""Makes the tiny Qwen3-MoE test file under tests/data/hf/qwen3moe/.

The shape is Qwen3-30B-A3B's text config shrunk: 4 layers, every one a
mixture of experts (decoder_sparse_step 1) of 8 experts with 3 chosen per
token (an odd count, so the order the chosen experts are summed in and the
renormalisation of their weights, norm_topk_prob, both show), RMS norms on q
and k per head, untied output.  Weights are random (torch.manual_seed(48)) in
a real transformers Qwen3MoeForCausalLM; the tokenizer is the tiny byte-level
BPE of tests/data/hf/qwen3 (400 tokens).

Steps: save the checkpoint to a temporary folder, convert it with llama.cpp's
own convert_hf_to_gguf.py (--outtype f32) to qwen3moe-tiny-f32.gguf, and
record HF float32 logits of every position for two fixed token sequences into
expected_logits.json.  Then the same model in bf16 is saved as a Hugging Face
directory in checkpoint/ (what `trit convert` is tested on), and llama.cpp's
converter's --outtype f16 file of it is summed up in checkpoint/expected_f16.json
by make_expected.py (every tensor's name, shape, type and sha256; every key).

Run with a Python that has torch, transformers, tokenizers, safetensors and
llama.cpp's gguf-py on PYTHONPATH:
  PYTHONPATH=<llama.cpp>/gguf-py python tests/data/hf/make_qwen3moe.py \
      <llama.cpp>/convert_hf_to_gguf.py tests/data/hf/qwen3moe
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

# make_qwen35.py's: the tiny tokenizer's pre-tokenizer hash is not in the
# converter's table; it was built with qwen2's Split regex, so name it so.
sys.path.insert(0, HERE)  # also when loaded by path (bench/make_qwen3moe.py)
from make_qwen35 import CONVERT  # noqa: E402


def config():
    return transformers.Qwen3MoeConfig(
        vocab_size=400, hidden_size=64, intermediate_size=96, moe_intermediate_size=32, num_hidden_layers=4,
        num_attention_heads=4, num_key_value_heads=2, head_dim=16, num_experts=8, num_experts_per_tok=3,
        norm_topk_prob=True, decoder_sparse_step=1, mlp_only_layers=[], max_position_embeddings=256,
        rms_norm_eps=1e-6, tie_word_embeddings=False, rope_parameters=dict(rope_type="default", rope_theta=1000000.0),
        bos_token_id=None, eos_token_id=None, pad_token_id=None)


def main():
    converter, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(48)
    model = transformers.Qwen3MoeForCausalLM(config()).float().eval()
    # Random init leaves norm weights at 1; perturb every parameter so each
    # one is visible in the logits, the router a little more so that the
    # experts' weights spread.
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "norm" in name:
                p.copy_(0.2 * torch.randn_like(p) + 1.0)
            elif name.endswith("gate.weight"):
                p.copy_(0.5 * torch.randn_like(p))
            else:
                p.copy_(0.08 * torch.randn_like(p))
    with tempfile.TemporaryDirectory() as tmp:
        model.save_pretrained(tmp)
        for f in ("tokenizer.json", "tokenizer_config.json"):
            shutil.copy(os.path.join(TOKENIZER, f), tmp)
        gguf = os.path.join(out_dir, "qwen3moe-tiny-f32.gguf")
        subprocess.run([sys.executable, "-c", CONVERT, converter, tmp, "--outtype", "f32", "--outfile", gguf],
                       check=True)
    rows = []
    with torch.no_grad():
        for ids in SEQUENCES:
            logits = model(torch.tensor([ids])).logits[0].float()
            rows.append(dict(ids=ids, logits=[[round(float(v), 6) for v in r] for r in logits]))
    with open(os.path.join(out_dir, "expected_logits.json"), "w") as f:
        json.dump(dict(transformers=transformers.__version__, torch=torch.__version__, sequences=rows), f)
    save_checkpoint(model, converter, os.path.join(out_dir, "checkpoint"))


def save_checkpoint(model, converter, ckpt):
    os.makedirs(ckpt, exist_ok=True)
    model.to(torch.bfloat16).save_pretrained(ckpt)
    for f in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(os.path.join(TOKENIZER, f), ckpt)
    junk = os.path.join(ckpt, "generation_config.json")
    if os.path.exists(junk):
        os.remove(junk)
    llama_cpp = os.path.dirname(os.path.abspath(converter))
    with tempfile.TemporaryDirectory() as tmp:
        ref = os.path.join(tmp, "ref-f16.gguf")
        subprocess.run([sys.executable, "-c", CONVERT, converter, ckpt, "--outtype", "f16", "--outfile", ref],
                       check=True)
        subprocess.run([sys.executable, os.path.join(HERE, "make_expected.py"), llama_cpp, ref,
                        os.path.join(ckpt, "expected_f16.json")], check=True)


if __name__ == "__main__":
    main()
