#!/usr/bin/env python3
"""trit's logits against llama.cpp's on the same GGUF file, and llama.cpp's own batch dependence.

For each MODEL: the same ids (BOS first when the file has one, then the LCG
ids of bench/vs_llamacpp.py) run through

  * trit (the Python package: Model.verify, every row's logits in one pass),
  * llama.cpp through llama-cpp-python: once as one batch of all rows, once
    token by token (n_batch 1),

and prints per file: the mean and max KL divergence of trit's next-token
distribution from llama.cpp's (llama.cpp's one-batch logits as the base, as
llama-perplexity's --kl-divergence takes them), how often the top token
agrees, and how many of llama.cpp's rows differ in any bit between its
one-batch and its token-by-token runs, with the largest logit difference
and the mean KL divergence between those two runs of llama.cpp itself: the
noise floor that trit's KLD is read against (trit's own rows are the same
bits by contract: `trit verify` checks that).

The two packages live in different virtual environments, so the trit side
runs in TRIT_PYTHON (a Python with the trit package, e.g. .venv after
scripts/test.sh) and hands its logits back in a .npy file. Not part of CI.

    /tmp/lcpvenv/bin/python bench/agree_llamacpp.py --trit-python .venv/bin/python -n 64 MODEL.gguf...
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

TRIT_SIDE = """
import sys, numpy as np, trit
ids = [int(i) for i in sys.argv[2].split(",")]
model = trit.Model(sys.argv[1], threads=int(sys.argv[4]), n_ctx=len(ids) + 8)
np.save(sys.argv[3], model.verify(ids))
"""


def lcg_ids(n, n_vocab):
    """bench/vs_llamacpp.py's ids (the LCG of src/cli/bench_run.cpp)."""
    state, ids = 12345, []
    for _ in range(n):
        state = (state * 1664525 + 1013904223) & 0xFFFFFFFF
        ids.append((state >> 8) % n_vocab)
    return ids


def log_softmax(x):
    x = x.astype(np.float64)
    m = x.max(axis=-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=-1, keepdims=True))


def llama_logits(llama_cpp, path, ids, n_batch, threads):
    llm = llama_cpp.Llama(model_path=path, n_ctx=len(ids) + 8, n_batch=n_batch, n_ubatch=n_batch, logits_all=True,
                          n_threads=threads, n_threads_batch=threads, verbose=False)
    llm.eval(ids)
    out = np.array(llm.scores[:len(ids)], dtype=np.float32)
    del llm
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", nargs="+")
    ap.add_argument("--trit-python", required=True, help="a Python with the trit package installed")
    ap.add_argument("-n", type=int, default=64, help="ids per file (default 64)")
    ap.add_argument("-t", "--threads", type=int, default=2)
    args = ap.parse_args()
    try:
        import llama_cpp
    except ImportError:
        sys.exit(f"agree_llamacpp.py: llama-cpp-python is not installed in {sys.executable}")
    print(f"{args.n} ids, {args.threads} threads; llama-cpp-python {llama_cpp.__version__}\n")
    print("| model | mean KLD | max KLD | same top | llama.cpp rows differing (batch vs one by one) | largest difference | llama.cpp's own mean KLD |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for path in args.models:
        probe = llama_cpp.Llama(model_path=path, n_ctx=16, vocab_only=True, verbose=False)
        n_vocab, bos = probe.n_vocab(), probe.token_bos()
        del probe
        ids = ([bos] if bos >= 0 else []) + lcg_ids(args.n, n_vocab)
        ids = ids[:args.n]
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "trit.npy")
            subprocess.run([args.trit_python, "-c", TRIT_SIDE, path, ",".join(map(str, ids)), out, str(args.threads)],
                           check=True)
            ours = np.load(out)
        batch = llama_logits(llama_cpp, path, ids, len(ids), args.threads)
        single = llama_logits(llama_cpp, path, ids, 1, args.threads)
        base = log_softmax(batch)
        kld = (np.exp(base) * (base - log_softmax(ours))).sum(axis=-1)
        same_top = float((ours.argmax(axis=-1) == batch.argmax(axis=-1)).mean())
        self_kld = (np.exp(base) * (base - log_softmax(single))).sum(axis=-1)
        differing = int((batch != single).any(axis=-1).sum())
        print(f"| {os.path.basename(path)} | {kld.mean():.2e} | {kld.max():.2e} | {same_top:.1%} | "
              f"{differing} of {len(ids)} | {np.abs(batch - single).max():.3g} | {self_kld.mean():.2e} |", flush=True)


if __name__ == "__main__":
    main()
