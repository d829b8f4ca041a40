"""Makes the tiny BitNet b1.58 test checkpoints under tests/data/hf/bitnet/.

A random transformers BitNetForCausalLM (seed 49) with 2B4T's block shrunk:
hidden 256, intermediate 512, 2 layers, 4 heads of 64 with 2 kv heads,
relu2, tied embeddings, rope theta 500000; the tokenizer is the tiny
byte-level BPE of tests/data/hf/qwen3 (400 tokens).  Every projection is
drawn with its own magnitude (so each tensor's scale differs) from a normal
distribution, so ternarizing changes every value.  The master weights are
rounded to bf16 first: that bf16 model is what the master form holds.

Three checkpoints of the one ternary model:
  master/                bf16 master weights, quantization_config as
                         microsoft/bitnet-b1.58-2B-4T-bf16's (autobitlinear,
                         online): ternarized by whoever loads them;
  packed/                transformers' packed form, linear_class "bitlinear"
                         (offline): each projection's codes packed by
                         transformers' own pack_weights (checked by its
                         unpack_weights) and weight_scale = s = 1 / mean|w|
                         in float32 (BitLinear divides by it);
  packed-autobitlinear/  the same codes, linear_class "autobitlinear"
                         (offline), weight_scale = 1 / s (AutoBitLinear
                         multiplies by it).
Everything but the projections (embeddings, norms) is the same bf16 in all three.

The reference, expected_logits.json: transformers' float32 logits of every
position of fixed token sequences from BitNetForCausalLM built without a
quantization_config (plain nn.Linear), its projections set to the
ternarized values t / s (the absmean rule in float32, as WeightQuant and
bitnet.cpp's weight_quant compute it): the same ternary model trit runs,
without BitLinear's per-token int8 activation quantization (which trit's
kernels do not do the same way).  For the record, the same sequences through
transformers' own W1.58A8 path (packed/ loaded with its quantization_config,
BitLinear) are summed up in expected_logits.json's "w158a8" entry: the
largest difference from the float reference per sequence.

Run with a Python that has torch, transformers, safetensors:
  python tests/data/hf/make_bitnet.py tests/data/hf/bitnet
"""
import json
import os
import shutil
import sys

import torch
import transformers
from safetensors.torch import save_file
from transformers.integrations import bitnet as hf_bitnet

HERE = os.path.dirname(os.path.abspath(__file__))
TOKENIZER = os.path.join(HERE, "qwen3")

SEQUENCES = [
    [1, 17, 250, 3, 99, 42, 7, 311, 128, 5, 64, 200, 13, 399, 0, 77, 150],
    [300, 2, 2, 2, 45, 180, 9],
]

PROJECTIONS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


def config(**extra):
    return transformers.BitNetConfig(
        vocab_size=400, hidden_size=256, intermediate_size=512, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, hidden_act="relu2", max_position_embeddings=256, rms_norm_eps=1e-5,
        tie_word_embeddings=True, rope_parameters=dict(rope_type="default", rope_theta=500000.0),
        bos_token_id=None, eos_token_id=None, pad_token_id=None, **extra)


def is_projection(name):
    return name.endswith(".weight") and any(f".{p}." in name for p in PROJECTIONS)


def ternarize(w):
    """BitNet's absmean rule in float32 (WeightQuant, bitnet.cpp's weight_quant),
    but for the mean, summed in float64 and rounded once to float32 as trit
    does: torch's float32 sum may end an ulp away (its order depends on the
    CPU's vector width), and with the correctly rounded mean every form of
    the tiny model, and trit's conversion of each, holds the same scales
    bit for bit."""
    w = w.float()
    s = 1.0 / w.double().abs().mean().float().clamp(min=1e-5)
    t = (w * s).round().clamp(-1, 1)
    return t, s


def unpack(packed):
    # unpack_weights is wrapped in torch.compile; the plain function is what it compiles.
    fn = getattr(hf_bitnet.unpack_weights, "_torchdynamo_orig_callable", hf_bitnet.unpack_weights)
    return fn(packed, dtype=torch.float32)


def pack(t):
    fn = getattr(hf_bitnet.pack_weights, "_torchdynamo_orig_callable", hf_bitnet.pack_weights)
    return fn(t.clone())


def copy_tokenizer(d):
    for f in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(os.path.join(TOKENIZER, f), d)


def write_config(d, quantization_config):
    c = config()
    c.architectures = ["BitNetForCausalLM"]
    c.quantization_config = quantization_config
    c.save_pretrained(d)


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(49)
    model = transformers.BitNetForCausalLM(config()).float().eval()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "norm" in name:
                p.copy_(0.2 * torch.randn_like(p) + 1.0)
            elif is_projection(name):
                p.copy_(10 ** (torch.rand(()) * 1.5 - 2.0) * torch.randn_like(p))  # magnitude 0.01 .. 0.3
            else:
                p.copy_(0.5 * torch.randn_like(p))
        for p in model.parameters():  # the master weights are bf16
            p.copy_(p.to(torch.bfloat16).float())
    state = {k: v for k, v in model.state_dict().items() if k != "lm_head.weight"}  # tied

    # master/: bf16, as 2B4T-bf16 (its config's quantization_config too).
    master = os.path.join(out_dir, "master")
    os.makedirs(master, exist_ok=True)
    save_file({k: v.to(torch.bfloat16).contiguous() for k, v in state.items()},
              os.path.join(master, "model.safetensors"), metadata={"format": "pt"})
    write_config(master, dict(quant_method="bitnet", linear_class="autobitlinear", quantization_mode="online"))
    copy_tokenizer(master)

    # The ternary model, and the packed forms.
    ternary = {}
    packed_bitlinear, packed_auto = {}, {}
    for k, v in state.items():
        if not is_projection(k):
            packed_bitlinear[k] = packed_auto[k] = v.to(torch.bfloat16).contiguous()
            continue
        t, s = ternarize(v)
        ternary[k] = t / s
        packed = pack(t)
        assert packed.dtype == torch.uint8 and packed.shape == (v.shape[0] // 4, v.shape[1])
        assert torch.equal(unpack(packed), t), k
        packed_bitlinear[k] = packed_auto[k] = packed.contiguous()
        packed_bitlinear[k + "_scale"] = s.reshape(1).float()
        packed_auto[k + "_scale"] = (1.0 / s).reshape(1).float()
        assert torch.equal((t * packed_auto[k + "_scale"]), t / s), k  # t / s is t * (1 / s) for t in {-1, 0, 1}
    for sub, tensors, linear in (("packed", packed_bitlinear, "bitlinear"),
                                 ("packed-autobitlinear", packed_auto, "autobitlinear")):
        d = os.path.join(out_dir, sub)
        os.makedirs(d, exist_ok=True)
        save_file(tensors, os.path.join(d, "model.safetensors"), metadata={"format": "pt"})
        write_config(d, dict(quant_method="bitnet", linear_class=linear, quantization_mode="offline"))
        copy_tokenizer(d)

    # The reference: plain nn.Linear with the ternary values.
    with torch.no_grad():
        params = dict(model.named_parameters())
        for k, v in ternary.items():
            params[k].copy_(v)
    rows = []
    with torch.no_grad():
        for ids in SEQUENCES:
            logits = model(torch.tensor([ids])).logits[0].float()
            rows.append(dict(ids=ids, logits=[[round(float(x), 6) for x in r] for r in logits]))

    # For the record: transformers' W1.58A8 forward of the packed forms
    # (BitLinear, AutoBitLinear), each with its own weight_scale rule.
    w158a8 = {}
    # AutoBitLinear runs only in bf16 here (in float32 transformers 5.25's
    # forward fails: "expected m1 and m2 to have the same dtype").
    for sub, dtype in (("packed", torch.float32), ("packed-autobitlinear", torch.bfloat16)):
        try:
            q = transformers.AutoModelForCausalLM.from_pretrained(os.path.join(out_dir, sub), dtype=dtype).eval()
            w158a8[sub] = []
            with torch.no_grad():
                for ids, row in zip(SEQUENCES, rows):
                    got = q(torch.tensor([ids])).logits[0].float()
                    want = torch.tensor(row["logits"])
                    lp, lq = want.log_softmax(-1), got.log_softmax(-1)
                    kld = (lp.exp() * (lp - lq)).sum(-1).mean()
                    top1 = (want.argmax(-1) == got.argmax(-1)).float().mean()
                    w158a8[sub].append(dict(ids=ids, dtype=str(dtype), max_abs_diff=round(float((got - want).abs().max()), 6),
                                            max_abs_logit=round(float(want.abs().max()), 6),
                                            mean_kld=round(float(kld), 8), top1=round(float(top1), 4)))
        except Exception as e:  # noqa: BLE001 - recorded, not fatal
            w158a8[sub] = dict(error=repr(e))
    with open(os.path.join(out_dir, "expected_logits.json"), "w") as f:
        json.dump(dict(transformers=transformers.__version__, torch=torch.__version__,
                       reference="BitNetForCausalLM without quantization_config, projections = absmean t / s",
                       w158a8=w158a8, sequences=rows), f)
    print(json.dumps(w158a8))


if __name__ == "__main__":
    main()
