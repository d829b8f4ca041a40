"""An independent llama-family forward pass in numpy (float64), reading a GGUF
file with llama.cpp's `gguf` package. Used by llama_forward_test.py to check
trit's forward pass; shares no code with trit.

The math (llama.cpp's llama graph): x = embd[token]; per layer
  h = rmsnorm(x) * attn_norm; q, k, v = h Wq^T, h Wk^T, h Wv^T (+ biases);
  (qwen3: per-head rmsnorm of q and k); rope (normal: adjacent pairs, neox:
  half-split) with theta_i = pos * base^(-2i/n_rot); causal softmax attention
  with GQA, scale 1/sqrt(head_dim); x += attn Wo^T;
  h = rmsnorm(x) * ffn_norm; x += (silu(h Wg^T) * (h Wu^T)) Wd^T;
logits = rmsnorm(x) * output_norm @ (output or token_embd)^T.

The gemma family and bitnet, as llama.cpp's graphs run them (src/models/
gemma*.cpp, bitnet.cpp), on top of that:
  gemma:  x = embd[token] * sqrt(n_embd); rope neox; q scaled by
          1/sqrt(head_dim) (27B-sized gemma2/3: 1/sqrt(n_embd/n_head));
          ffn gelu_tanh(h Wg^T) * (h Wu^T); logits from token_embd always.
  gemma2: + rmsnorm * post_attention_norm on the attention output and
          * post_ffw_norm on the ffn output, before each residual add;
          scores s -> c * tanh(s / c) (attn_logit_softcapping, default 50),
          logits likewise (final_logit_softcapping, default 30); layers with
          il % 2 == 0 see only keys with pos_q - pos_k < sliding_window.
  gemma3: + per-head q/k norms; no soft-capping; layers with il % 6 < 5 are
          local (window, rope base 10000, no rope scaling), the others use
          rope.freq_base and the linear rope.scaling.factor.
  bitnet: rope neox; rmsnorm * attn_sub_norm on the attention output before
          Wo, rmsnorm * ffn_sub_norm on silu(g) * u before Wd; each
          projection's output times its `.scale` tensor when present;
          logits from token_embd.
  bitnet-b1.58: bitnet with relu(g)^2 * u in place of silu(g) * u, and
          output.weight when present (tied otherwise).
"""
import numpy as np
import gguf
from gguf.quants import dequantize


def _field(reader, key, default=None):
    f = reader.fields.get(key)
    if f is None:
        return default
    v = f.contents()
    return v


class Model:
    def __init__(self, path):
        r = gguf.GGUFReader(path)
        self.arch = _field(r, "general.architecture")
        a = self.arch
        self.n_embd = int(_field(r, f"{a}.embedding_length"))
        self.n_layer = int(_field(r, f"{a}.block_count"))
        self.n_head = int(_field(r, f"{a}.attention.head_count"))
        self.n_head_kv = int(_field(r, f"{a}.attention.head_count_kv", self.n_head))
        self.head_dim = int(_field(r, f"{a}.attention.key_length", self.n_embd // self.n_head))
        self.n_rot = int(_field(r, f"{a}.rope.dimension_count", self.head_dim))
        self.eps = float(_field(r, f"{a}.attention.layer_norm_rms_epsilon"))
        self.base = float(_field(r, f"{a}.rope.freq_base", 10000.0))
        self.neox = a in ("qwen2", "qwen3", "gemma", "gemma2", "gemma3", "bitnet", "bitnet-b1.58")
        self.gemma = a in ("gemma", "gemma2", "gemma3")
        factor = float(_field(r, f"{a}.rope.scaling.factor", 0.0))
        self.freq_scale = 1.0 / factor if factor > 0 else 1.0
        self.attn_softcap = self.final_softcap = 0.0
        self.n_swa = 0
        self.swa_period = 0
        self.q_scale = 1.0 / np.sqrt(self.head_dim)
        if a == "gemma2":
            self.attn_softcap = float(_field(r, f"{a}.attn_logit_softcapping", 50.0))
            self.final_softcap = float(_field(r, f"{a}.final_logit_softcapping", 30.0))
            self.n_swa = int(_field(r, f"{a}.attention.sliding_window", 4096))
            self.swa_period = 2
            if self.n_layer == 46:
                self.q_scale = 1.0 / np.sqrt(self.n_embd // self.n_head)
        if a == "gemma3":
            self.n_swa = int(_field(r, f"{a}.attention.sliding_window"))
            self.swa_period = 6
            if self.n_layer == 62:
                self.q_scale = 1.0 / np.sqrt(self.n_embd // self.n_head)
        self.t = {}
        for t in r.tensors:
            # gguf-py gives shape in numpy order (rows, row length); dequantize to float64.
            arr = dequantize(t.data, t.tensor_type).astype(np.float64)
            shape = [int(x) for x in reversed(list(t.shape))]
            self.t[t.name] = arr.reshape(shape)
        self.output = self.t.get("output.weight", self.t["token_embd.weight"])
        if self.gemma or a == "bitnet":
            self.output = self.t["token_embd.weight"]

    def _rmsnorm(self, x, w):
        return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + self.eps) * w

    def _is_swa(self, il):
        return self.swa_period > 0 and il % self.swa_period < self.swa_period - 1

    def _rope(self, x, pos, base, freq_scale):
        # x: (n_tokens, n_heads, head_dim)
        half = self.n_rot // 2
        inv = base ** (-2.0 * np.arange(half) / self.n_rot)
        theta = pos[:, None] * freq_scale * inv[None, :]  # (n_tokens, half)
        c = np.cos(theta)[:, None, :]
        s = np.sin(theta)[:, None, :]
        x = x.copy()
        if self.neox:
            a = x[..., :half].copy()
            b = x[..., half:self.n_rot].copy()
            x[..., :half] = a * c - b * s
            x[..., half:self.n_rot] = a * s + b * c
        else:
            a = x[..., 0:self.n_rot:2].copy()
            b = x[..., 1:self.n_rot:2].copy()
            x[..., 0:self.n_rot:2] = a * c - b * s
            x[..., 1:self.n_rot:2] = a * s + b * c
        return x

    def forward(self, ids, kv_round=None):
        """Logits (n_tokens, n_vocab) of `ids` at positions 0..n-1. kv_round, when
        given, is applied to keys and values as they enter the cache (e.g. f16)."""
        ids = np.asarray(ids)
        n = len(ids)
        pos = np.arange(n, dtype=np.float64)
        x = self.t["token_embd.weight"][ids]
        if self.gemma:
            x = x * np.sqrt(self.n_embd)
        hd, nh, nkv = self.head_dim, self.n_head, self.n_head_kv
        causal = np.triu(np.full((n, n), -np.inf), 1)
        # window[i, j]: key j is at least n_swa positions before query i
        window = np.where(pos[:, None] - pos[None, :] >= self.n_swa, -np.inf, 0.0) if self.n_swa else 0.0
        t = self.t

        def proj(h, name):
            y = h @ t[name + ".weight"].T
            return y * t[name + ".scale"][0] if name + ".scale" in t else y

        for il in range(self.n_layer):
            p = f"blk.{il}."
            swa = self._is_swa(il)
            mask = causal + window if swa else causal
            base, freq_scale = (10000.0, 1.0) if swa and self.arch == "gemma3" else (self.base, self.freq_scale)
            h = self._rmsnorm(x, self.t[p + "attn_norm.weight"])
            q = proj(h, p + "attn_q")
            k = proj(h, p + "attn_k")
            v = proj(h, p + "attn_v")
            if p + "attn_q.bias" in self.t:
                q = q + self.t[p + "attn_q.bias"]
                k = k + self.t[p + "attn_k.bias"]
                v = v + self.t[p + "attn_v.bias"]
            q = q.reshape(n, nh, hd)
            k = k.reshape(n, nkv, hd)
            v = v.reshape(n, nkv, hd)
            if p + "attn_q_norm.weight" in self.t:
                q = self._rmsnorm(q, self.t[p + "attn_q_norm.weight"])
                k = self._rmsnorm(k, self.t[p + "attn_k_norm.weight"])
            q = self._rope(q, pos, base, freq_scale)
            k = self._rope(k, pos, base, freq_scale)
            if kv_round is not None:
                k = kv_round(k)
                v = kv_round(v)
            group = nh // nkv
            out = np.empty((n, nh, hd))
            for head in range(nh):
                s = q[:, head, :] @ k[:, head // group, :].T * self.q_scale
                if self.attn_softcap:
                    s = self.attn_softcap * np.tanh(s / self.attn_softcap)
                s = s + mask
                s = np.exp(s - s.max(axis=1, keepdims=True))
                s /= s.sum(axis=1, keepdims=True)
                out[:, head, :] = s @ v[:, head // group, :]
            a = out.reshape(n, nh * hd)
            if p + "attn_sub_norm.weight" in t:
                a = self._rmsnorm(a, t[p + "attn_sub_norm.weight"])
            a = proj(a, p + "attn_output")
            if p + "post_attention_norm.weight" in t:
                a = self._rmsnorm(a, t[p + "post_attention_norm.weight"])
            x = x + a
            h = self._rmsnorm(x, self.t[p + "ffn_norm.weight"])
            g = proj(h, p + "ffn_gate")
            u = proj(h, p + "ffn_up")
            if self.gemma:
                c = np.sqrt(2.0 / np.pi)
                f = 0.5 * g * (1.0 + np.tanh(c * (g + 0.044715 * g ** 3))) * u
            elif self.arch == "bitnet-b1.58":
                f = np.maximum(g, 0.0) ** 2 * u
            else:
                f = (g / (1.0 + np.exp(-g))) * u
            if p + "ffn_sub_norm.weight" in t:
                f = self._rmsnorm(f, t[p + "ffn_sub_norm.weight"])
            f = proj(f, p + "ffn_down")
            if p + "post_ffw_norm.weight" in t:
                f = self._rmsnorm(f, t[p + "post_ffw_norm.weight"])
            x = x + f
        logits = self._rmsnorm(x, self.t["output_norm.weight"]) @ self.output.T
        if self.final_softcap:
            logits = self.final_softcap * np.tanh(logits / self.final_softcap)
        return logits


def round_f16(a):
    return a.astype(np.float16).astype(np.float64)
