#!/usr/bin/env python3
"""Embeddings per second, trit against llama.cpp, on the very same GGUF files
and thread count (docs/PERFORMANCE.md, "Embeddings").

Two workloads, each a batch of B texts embedded in one call:
  short  B sentences of about 10 tokens (search queries)
  long   B paragraphs of about 200 tokens (documents to index)
trit: `trit embed MODEL --file TEXTS -q -t T`, whose stderr line gives the
time of the forward passes (after load and tokenization). llama.cpp:
llama-cpp-python's `Llama.embed(texts)`, timed around the call (it also
tokenizes, a few microseconds a text), with n_ctx = n_batch = n_ubatch = U
for each U of --ubatch (llama.cpp runs a BERT batch in one ubatch, and
attends over the whole ubatch with a mask, so its best U depends on the
workload: the table takes the fastest). Runs alternate trit / llama.cpp, R
repetitions after a warm-up each; the table gives the median embeddings/s
and the ratio.

Not part of CI: llama-cpp-python builds llama.cpp from source (minutes).
    /tmp/lcpvenv/bin/python bench/embed_vs_llamacpp.py --trit build/trit -t 2 -r 5 \\
        minilm-f32.gguf minilm-f16.gguf minilm-q8_0.gguf
"""
import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time

WORDS = ("the model reads every token of a text and returns one vector that places similar meanings "
         "near each other so that search retrieval and deduplication can compare texts by their "
         "direction alone while the batch holds many inputs of other lengths beside it").split()


def texts(kind, count):
    """Deterministic English-like texts: short ~10 tokens, long ~200 tokens."""
    out = []
    n_words = 8 if kind == "short" else 170
    for i in range(count):
        words = [WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(n_words)]
        out.append(" ".join(words) + ".")
    return out


def run_trit(trit, model, batch, threads):
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
        f.write("\n".join(batch) + "\n")
        f.flush()
        cmd = [trit, "embed", model, "--file", f.name, "-q", "-t", str(threads)]
        out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"trit embed failed: {out.stderr}")
    m = re.search(r"embedded (\d+) inputs? \((\d+) tokens\) in ([0-9.]+) s", out.stderr)
    return int(m.group(2)), float(m.group(3))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", nargs="+")
    ap.add_argument("--trit", default="build/trit")
    ap.add_argument("-t", type=int, default=2, help="threads (both)")
    ap.add_argument("-r", type=int, default=5, help="repetitions (alternating)")
    ap.add_argument("-b", type=int, default=32, help="texts per batch")
    ap.add_argument("--ubatch", default="512,2048", help="llama.cpp n_ubatch values to try (comma-separated)")
    args = ap.parse_args()
    try:
        import llama_cpp
    except ImportError:
        sys.exit(f"embed_vs_llamacpp.py: llama-cpp-python is not installed in {sys.executable}")
    ubatches = [int(u) for u in args.ubatch.split(",")]
    print(f"| model | workload | tokens | trit emb/s | llama.cpp emb/s (best ubatch) | trit / llama.cpp |")
    print(f"|---|---|---|---|---|---|")
    for model in args.models:
        for kind in ("short", "long"):
            batch = texts(kind, args.b)
            n_tok = 0
            llms = [llama_cpp.Llama(model_path=model, embedding=True, n_ctx=u, n_batch=u, n_ubatch=u,
                                    n_threads=args.t, n_threads_batch=args.t, verbose=False) for u in ubatches]
            trit_s, lcp_s = [], [[] for _ in ubatches]
            for rep in range(args.r + 1):  # the first of each: warm-up
                n_tok, s = run_trit(args.trit, model, batch, args.t)
                if rep > 0:
                    trit_s.append(s)
                for k, llm in enumerate(llms):
                    start = time.perf_counter()
                    vectors = llm.embed(batch, normalize=False)
                    t = time.perf_counter() - start
                    if len(vectors) != len(batch):
                        sys.exit("llama.cpp returned the wrong number of vectors")
                    if rep > 0:
                        lcp_s[k].append(t)
            del llms
            trit_eps = len(batch) / statistics.median(trit_s)
            best = min(range(len(ubatches)), key=lambda k: statistics.median(lcp_s[k]))
            lcp_eps = len(batch) / statistics.median(lcp_s[best])
            name = model.rsplit("/", 1)[-1]
            print(f"| {name} | {args.b} x {kind} | {n_tok} | {trit_eps:.1f} | {lcp_eps:.1f} ({ubatches[best]}) | "
                  f"{trit_eps / lcp_eps:.2f} |", flush=True)


if __name__ == "__main__":
    main()
