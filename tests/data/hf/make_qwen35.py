"""Makes the tiny Qwen3.5 (hybrid Gated DeltaNet) test file under tests/data/hf/qwen35/.

The shape is the real Qwen3.5-0.8B text config shrunk: 4 layers with
full_attention_interval 4 (3 linear-attention layers, then 1 full-attention
layer), head_dim with partial_rotary_factor 0.25 and MRoPE sections, gated
attention output, tied embeddings.  The linear-attention layers keep 2 key
heads for 4 value heads (as the 9B's 16:32) so the key-head to value-head
mapping is exercised.  Weights are random (torch.manual_seed(35)) in a real
transformers Qwen3_5ForCausalLM; the tokenizer is the tiny byte-level BPE of
tests/data/hf/qwen3 (400 tokens).

Steps: save the checkpoint to a temporary folder, convert it with llama.cpp's
own convert_hf_to_gguf.py (--outtype f32 --no-mtp: the
HF class has no MTP block) to qwen35-tiny-f32.gguf, and record
HF float32 logits of every position for two fixed token sequences into
expected_logits.json.  Then the same model in bf16 is saved as a Hugging Face
directory in checkpoint/ (what `trit convert` is tested on), and llama.cpp's
converter's --outtype f16 file of it is summed up in checkpoint/expected_f16.json
by make_expected.py (every tensor's name, shape, type and sha256; every key).

Run with a Python that has torch, transformers, tokenizers, safetensors and
llama.cpp's gguf-py on PYTHONPATH:
  PYTHONPATH=<llama.cpp>/gguf-py python tests/data/hf/make_qwen35.py \
      <llama.cpp>/convert_hf_to_gguf.py tests/data/hf/qwen35
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
TEMPLATE = os.path.join(HERE, "..", "chat_templates", "Qwen-Qwen3.5-4B.jinja")

# Token sequences whose logits are recorded (ids < 400).
SEQUENCES = [
    [1, 17, 250, 3, 99, 42, 7, 311, 128, 5, 64, 200, 13, 399, 0, 77, 150],
    [300, 2, 2, 2, 45, 180, 9],
]


# The converter knows a BPE pre-tokenizer by the hash of a test text's ids; the
# tiny tokenizer's hash is not in its table, so name it "qwen2" (the Split
# regex it was built with, as the real Qwen3.5's "qwen35" is) and run the
# converter unchanged otherwise.
CONVERT = """
import os, runpy, sys
converter = sys.argv.pop(1)
sys.path.insert(0, os.path.dirname(converter))
from conversion import base
base.TextModel.get_vocab_base_pre = lambda self, tokenizer: "qwen2"
sys.argv[0] = converter
runpy.run_path(converter, run_name="__main__")
"""


def config():
    return transformers.Qwen3_5TextConfig(
        vocab_size=400, hidden_size=64, intermediate_size=96, num_hidden_layers=4,
        num_attention_heads=4, num_key_value_heads=2, head_dim=32,
        linear_conv_kernel_dim=4, linear_key_head_dim=16, linear_value_head_dim=16,
        linear_num_key_heads=2, linear_num_value_heads=4, full_attention_interval=4,
        max_position_embeddings=256, rms_norm_eps=1e-6, tie_word_embeddings=True,
        rope_parameters=dict(rope_type="default", rope_theta=10000000.0, partial_rotary_factor=0.25,
                             mrope_section=[2, 1, 1], mrope_interleaved=True),
        bos_token_id=None, eos_token_id=None, pad_token_id=None)


def main():
    converter, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(35)
    model = transformers.Qwen3_5ForCausalLM(config()).float().eval()
    # Random init leaves some parameters at constants (norm weights at 0 or 1,
    # A_log, dt_bias); perturb every parameter so each one is visible in the
    # logits.
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "norm" in name:
                p.copy_(0.2 * torch.randn_like(p) + (0.0 if p.abs().sum() == 0 else 1.0))
            elif name.endswith("A_log"):
                p.copy_(torch.log(torch.rand_like(p) * 4 + 0.5))
            elif name.endswith("dt_bias"):
                p.copy_(0.5 * torch.randn_like(p))
            else:
                p.copy_(0.08 * torch.randn_like(p))
    with tempfile.TemporaryDirectory() as tmp:
        model.save_pretrained(tmp)
        for f in ("tokenizer.json", "tokenizer_config.json"):
            shutil.copy(os.path.join(TOKENIZER, f), tmp)
        gguf = os.path.join(out_dir, "qwen35-tiny-f32.gguf")
        subprocess.run([sys.executable, "-c", CONVERT, converter, tmp, "--outtype", "f32", "--no-mtp",
                        "--outfile", gguf], check=True)
    rows = []
    with torch.no_grad():
        for ids in SEQUENCES:
            logits = model(torch.tensor([ids])).logits[0].float()
            rows.append(dict(ids=ids, logits=[[round(float(v), 6) for v in r] for r in logits]))
    with open(os.path.join(out_dir, "expected_logits.json"), "w") as f:
        json.dump(dict(transformers=transformers.__version__, torch=torch.__version__, sequences=rows), f)
    save_checkpoint(model, converter, os.path.join(out_dir, "checkpoint"))
    save_multimodal_checkpoint(model, converter, os.path.join(out_dir, "checkpoint-vl"))


def save_checkpoint(model, converter, ckpt):
    os.makedirs(ckpt, exist_ok=True)
    model.to(torch.bfloat16).save_pretrained(ckpt)
    finish_checkpoint(converter, ckpt)


# Qwen3.5 is published as Qwen3_5ForConditionalGeneration: the text model under
# model.language_model.*, a vision tower under model.visual.*, the text config
# under text_config.  The same text weights, with a tiny random vision tower.
def save_multimodal_checkpoint(model, converter, ckpt):
    os.makedirs(ckpt, exist_ok=True)
    text = config().to_dict()
    for key in ("architectures", "transformers_version", "dtype"):
        text.pop(key, None)
    vision = dict(depth=1, hidden_size=32, intermediate_size=64, num_heads=2, out_hidden_size=64, patch_size=4,
                  spatial_merge_size=2, temporal_patch_size=2, num_position_embeddings=16)
    torch.manual_seed(36)
    mm = transformers.Qwen3_5ForConditionalGeneration(
        transformers.Qwen3_5Config(text_config=text, vision_config=vision, tie_word_embeddings=True))
    missing, unexpected = mm.model.language_model.load_state_dict(model.model.state_dict(), strict=True)
    assert not missing and not unexpected
    mm.to(torch.bfloat16).save_pretrained(ckpt)
    finish_checkpoint(converter, ckpt, template_in_config=True)


# The real Qwen3.5 chat template goes with each checkpoint, where transformers 5
# saves it (chat_template.jinja) or, for the multimodal one, where older
# checkpoints keep it (tokenizer_config.json's "chat_template").
def finish_checkpoint(converter, ckpt, template_in_config=False):
    for f in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(os.path.join(TOKENIZER, f), ckpt)
    with open(TEMPLATE) as f:
        template = f.read()
    if template_in_config:
        path = os.path.join(ckpt, "tokenizer_config.json")
        with open(path) as f:
            tok_config = json.load(f)
        tok_config["chat_template"] = template
        with open(path, "w") as f:
            json.dump(tok_config, f, indent=2)
    else:
        with open(os.path.join(ckpt, "chat_template.jinja"), "w") as f:
            f.write(template)
    junk = os.path.join(ckpt, "generation_config.json")
    if os.path.exists(junk):
        os.remove(junk)
    llama_cpp = os.path.dirname(os.path.abspath(converter))
    with tempfile.TemporaryDirectory() as tmp:
        ref = os.path.join(tmp, "ref-f16.gguf")
        subprocess.run([sys.executable, "-c", CONVERT, converter, ckpt, "--outtype", "f16", "--no-mtp",
                        "--outfile", ref], check=True)
        subprocess.run([sys.executable, os.path.join(HERE, "make_expected.py"), llama_cpp, ref,
                        os.path.join(ckpt, "expected_f16.json")], check=True)


if __name__ == "__main__":
    main()
