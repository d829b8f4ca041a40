#!/usr/bin/env python3
"""Tokenizer throughput of llama.cpp on the text bench/tokenizer_bench.cpp uses.

Builds the same 1 MiB of mixed text as tokenizer_bench (the llama-spm .inp
cases between prose and code, repeated, cut at 1 MiB), loads each vocabulary
with llama.cpp through the `llama-cpp-python` package (vocab_only), times
tokenize(add_bos=False, special=False) (best of N runs) and checks that its
ids equal `trit tokenize --stdin --raw` on the same bytes.

Not part of CI: llama-cpp-python builds llama.cpp from source (minutes).
    python3 -m venv /tmp/lcp && /tmp/lcp/bin/pip install llama-cpp-python
    /tmp/lcp/bin/python bench/tokenizer_vs_llamacpp.py --trit build/trit
"""
import argparse
import pathlib
import subprocess
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
VOCAB = ROOT / "tests" / "data" / "vocab"
TEXT_BYTES = 1 << 20


def bench_text():
    inp = (VOCAB / "ggml-vocab-llama-spm.gguf.inp").read_bytes()
    cases = b"".join(c + b"\n" for c in inp.split(b"\n__ggml_vocab_test__\n")[:-1])
    prose = (b"Once upon a time, there was a little girl named Lily. She loved to play outside in the sunshine. "
             b"One day, she saw a big, red ball in the park; she asked her mom, \"Can I play with it?\"\n")
    code = (b"for (size_t i = 0; i < n; ++i) {\n    out[i] = std::max(0.0f, x[i] * scale + bias[i]);\n}\n"
            b"def tokenize(text: str) -> list[int]:\n    return [vocab[w] for w in text.split()]\n")
    t = bytearray()
    while len(t) < TEXT_BYTES:
        t += prose + cases + code
    return bytes(t[:TEXT_BYTES])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trit", required=True, help="path to the trit binary")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("vocabs", nargs="*", default=["llama-spm", "gpt-2", "deepseek-llm", "bert-bge"])
    args = ap.parse_args()
    import llama_cpp  # imported here so --help works without it

    text = bench_text()
    print(f"text: {len(text)} bytes; llama-cpp-python {llama_cpp.__version__}")
    for name in args.vocabs:
        path = str(VOCAB / f"ggml-vocab-{name}.gguf")
        llm = llama_cpp.Llama(model_path=path, vocab_only=True, verbose=False)
        best = float("inf")
        ids = None
        for _ in range(args.runs):
            start = time.perf_counter()
            ids = llm.tokenize(text, add_bos=False, special=False)
            best = min(best, time.perf_counter() - start)
        out = subprocess.run([args.trit, "tokenize", path, "--stdin", "--raw"], input=text,
                             capture_output=True, check=True).stdout
        trit_ids = [int(x) for x in out.split()]
        same = "identical ids" if trit_ids == ids else f"ids DIFFER (trit {len(trit_ids)}, llama.cpp {len(ids)})"
        print(f"{name:14s} llama.cpp {len(text) / best / 1e6:6.2f} MB/s ({best * 1e3:7.1f} ms, {len(ids)} tokens); {same}")


if __name__ == "__main__":
    main()
