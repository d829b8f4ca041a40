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
        self.neox = a in ("qwen2", "qwen3")
        self.t = {}
        for t in r.tensors:
            # gguf-py gives shape in numpy order (rows, row length); dequantize to float64.
            arr = dequantize(t.data, t.tensor_type).astype(np.float64)
            shape = [int(x) for x in reversed(list(t.shape))]
            self.t[t.name] = arr.reshape(shape)
        self.output = self.t.get("output.weight", self.t["token_embd.weight"])

    def _rmsnorm(self, x, w):
        return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + self.eps) * w

    def _rope(self, x, pos):
        # x: (n_tokens, n_heads, head_dim)
        half = self.n_rot // 2
        inv = self.base ** (-2.0 * np.arange(half) / self.n_rot)
        theta = pos[:, None] * inv[None, :]  # (n_tokens, half)
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
        hd, nh, nkv = self.head_dim, self.n_head, self.n_head_kv
        mask = np.triu(np.full((n, n), -np.inf), 1)
        for il in range(self.n_layer):
            p = f"blk.{il}."
            h = self._rmsnorm(x, self.t[p + "attn_norm.weight"])
            q = h @ self.t[p + "attn_q.weight"].T
            k = h @ self.t[p + "attn_k.weight"].T
            v = h @ self.t[p + "attn_v.weight"].T
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
            q = self._rope(q, pos)
            k = self._rope(k, pos)
            if kv_round is not None:
                k = kv_round(k)
                v = kv_round(v)
            group = nh // nkv
            out = np.empty((n, nh, hd))
            for head in range(nh):
                s = q[:, head, :] @ k[:, head // group, :].T / np.sqrt(hd) + mask
                s = np.exp(s - s.max(axis=1, keepdims=True))
                s /= s.sum(axis=1, keepdims=True)
                out[:, head, :] = s @ v[:, head // group, :]
            x = x + out.reshape(n, nh * hd) @ self.t[p + "attn_output.weight"].T
            h = self._rmsnorm(x, self.t[p + "ffn_norm.weight"])
            g = h @ self.t[p + "ffn_gate.weight"].T
            u = h @ self.t[p + "ffn_up.weight"].T
            x = x + ((g / (1.0 + np.exp(-g))) * u) @ self.t[p + "ffn_down.weight"].T
        return self._rmsnorm(x, self.t["output_norm.weight"]) @ self.output.T


def round_f16(a):
    return a.astype(np.float16).astype(np.float64)
