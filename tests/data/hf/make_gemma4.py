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
expected_logits.json.  Then the same model in bf16 is saved as a Hugging Face
directory in checkpoint/ (what `trit convert` is tested on), with the real
Gemma 4 chat template and the tiny tokenizer extended by added tokens of the
kinds Gemma 4's has (the tool and channel tokens llama.cpp's Gemma4Model
types USER_DEFINED, a named model-specific token, extra special tokens, a
plain added token), and llama.cpp's converter's --outtype f16 file of it is
summed up in checkpoint/expected_f16.json by make_expected.py.  checkpoint-vl/
holds the same text weights as Gemma4ForConditionalGeneration (the published
form: text under model.language_model.*, a tiny random vision tower, and, as
Google's checkpoints have them, k/v projections in the shared-KV layers).

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
TEMPLATE = os.path.join(HERE, "..", "chat_templates", "google-gemma-4-31B-it.jinja")

# Added past the tiny tokenizer's 401 tokens (ids 401..): (content, special,
# how tokenizer_config.json names it).
ADDED = [
    ("<|turn>", True, "extra"), ("<turn|>", True, "extra"),
    ("<|tool_call>", True, "extra"), ("<tool_call|>", True, "extra"),
    ("<|channel>", True, None), ("<channel|>", True, None), ('<|"|>', True, None),
    ("<|image|>", True, "image_token"), ("[multimodal]", False, None),
]

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


def build(converter, out_dir, own_v=False):
    """The random model, its F32 GGUF by llama.cpp's converter and its logits.
    own_v: full layers with their own v_proj (attention_k_eq_v false, as E2B
    and E4B), written as gemma4-ownv-tiny-f32.gguf / expected_logits_ownv.json."""
    cfg = config()
    if own_v:
        cfg.attention_k_eq_v = False
    suffix = "-ownv" if own_v else ""
    torch.manual_seed(4)
    model = transformers.Gemma4ForCausalLM(cfg).float().eval()
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
        gguf = os.path.join(out_dir, f"gemma4{suffix}-tiny-f32.gguf")
        subprocess.run([sys.executable, converter, tmp, "--outtype", "f32", "--outfile", gguf], check=True)
    rows = []
    with torch.no_grad():
        for ids in SEQUENCES:
            logits = model(torch.tensor([ids])).logits[0].float()
            rows.append(dict(ids=ids, logits=[[round(float(v), 6) for v in r] for r in logits]))
    with open(os.path.join(out_dir, f"expected_logits{suffix.replace('-', '_')}.json"), "w") as f:
        json.dump(dict(transformers=transformers.__version__, torch=torch.__version__, sequences=rows), f)
    return model


def main():
    converter, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    build(converter, out_dir, own_v=True)
    model = build(converter, out_dir)
    ckpt = os.path.join(out_dir, "checkpoint")
    os.makedirs(ckpt, exist_ok=True)
    model.to(torch.bfloat16).save_pretrained(ckpt)
    finish_checkpoint(converter, ckpt)
    save_multimodal_checkpoint(model, converter, os.path.join(out_dir, "checkpoint-vl"))


def save_multimodal_checkpoint(model, converter, ckpt):
    os.makedirs(ckpt, exist_ok=True)
    text = config().to_dict()
    for key in ("architectures", "transformers_version", "dtype"):
        text.pop(key, None)
    vision = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2,
                  num_key_value_heads=2, head_dim=16, patch_size=4, position_embedding_size=64)
    torch.manual_seed(5)
    mm = transformers.Gemma4ForConditionalGeneration(
        transformers.Gemma4Config(text_config=text, vision_config=vision, audio_config=None,
                                  boi_token_id=398, eoi_token_id=397, image_token_id=396, video_token_id=395,
                                  boa_token_id=394, eoa_token_index=393, audio_token_id=392))
    missing, unexpected = mm.model.language_model.load_state_dict(model.model.state_dict(), strict=True)
    assert not missing and not unexpected
    mm.to(torch.bfloat16).save_pretrained(ckpt)
    add_shared_kv_projections(os.path.join(ckpt, "model.safetensors"), text)
    finish_checkpoint(converter, ckpt)


# Google's Gemma 4 checkpoints keep k_proj / k_norm / v_proj in the layers
# that share another layer's KV (transformers' model has none and ignores
# them on load; llama.cpp's converter writes them). Random ones are added.
def add_shared_kv_projections(path, text):
    import safetensors.torch
    tensors = safetensors.torch.load_file(path)
    n_layer, n_shared = text["num_hidden_layers"], text["num_kv_shared_layers"]
    torch.manual_seed(6)
    for il in range(n_layer - n_shared, n_layer):
        full = text["layer_types"][il] == "full_attention"
        own = text["per_layer_config"].get(str(il), {}) if full else {}  # where transformers 5 keeps full layers' sizes
        hd = own.get("head_dim", text["head_dim"])
        kv = own.get("num_key_value_heads", text["num_key_value_heads"]) * hd
        p = f"model.language_model.layers.{il}.self_attn."
        tensors[p + "k_proj.weight"] = (0.08 * torch.randn(kv, text["hidden_size"])).to(torch.bfloat16)
        tensors[p + "k_norm.weight"] = (1.0 + 0.2 * torch.randn(hd)).to(torch.bfloat16)
        if not (full and text["attention_k_eq_v"]):
            tensors[p + "v_proj.weight"] = (0.08 * torch.randn(kv, text["hidden_size"])).to(torch.bfloat16)
    safetensors.torch.save_file(tensors, path, metadata={"format": "pt"})


# The tokenizer, the chat template, and llama.cpp's f16 file summed up.
def finish_checkpoint(converter, ckpt):
    with open(os.path.join(TOKENIZER, "tokenizer.json")) as f:
        tok = json.load(f)
    with open(os.path.join(TOKENIZER, "tokenizer_config.json")) as f:
        tok_config = json.load(f)
    next_id = 1 + max(a["id"] for a in tok["added_tokens"])
    for content, special, named in ADDED:
        tok["added_tokens"].append(dict(id=next_id, content=content, single_word=False, lstrip=False, rstrip=False,
                                        normalized=False, special=special))
        next_id += 1
        if named == "extra":
            tok_config["extra_special_tokens"].append(content)
        elif named:
            tok_config[named] = content
    with open(os.path.join(ckpt, "tokenizer.json"), "w") as f:
        json.dump(tok, f, ensure_ascii=False, indent=2)
    with open(os.path.join(ckpt, "tokenizer_config.json"), "w") as f:
        json.dump(tok_config, f, indent=2)
    shutil.copy(TEMPLATE, os.path.join(ckpt, "chat_template.jinja"))
    for junk in ("generation_config.json", "processor_config.json"):
        if os.path.exists(os.path.join(ckpt, junk)):
            os.remove(os.path.join(ckpt, junk))
    llama_cpp = os.path.dirname(os.path.abspath(converter))
    with tempfile.TemporaryDirectory() as tmp:
        ref = os.path.join(tmp, "ref-f16.gguf")
        subprocess.run([sys.executable, converter, ckpt, "--outtype", "f16", "--outfile", ref], check=True)
        subprocess.run([sys.executable, os.path.join(HERE, "make_expected.py"), llama_cpp, ref,
                        os.path.join(ckpt, "expected_f16.json")], check=True)


if __name__ == "__main__":
    main()
