#!/usr/bin/env python3
"""trit against llama.cpp on the very same GGUF files and thread count.

For each MODEL, runs `trit bench MODEL -p P -n N -r R -t T --json`, then times
the same work in llama.cpp through the `llama-cpp-python` package: one warm-up,
then R repetitions of prompt processing (the P ids in one eval, in a cache of
P + N tokens, batch size P) followed by N single-token evals continuing the
prompt. The ids are the ones trit bench feeds (the same LCG as
src/cli/bench_run.cpp). Prints a markdown table: tokens/s mean ± sd of both
and trit / llama.cpp ratios, plus trit's roofline fraction and peak RSS.

When llama-cpp-python is not installed in this Python, it says so plainly and
prints trit's figures only. Not part of CI: llama-cpp-python builds llama.cpp
from source (minutes).
    python3 -m venv /tmp/lcpvenv && /tmp/lcpvenv/bin/pip install llama-cpp-python
    /tmp/lcpvenv/bin/python bench/vs_llamacpp.py --trit build/trit -t 2 -p 64 -n 16 -r 3 MODEL.gguf...
"""
import argparse
import json
import pathlib
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent


def bench_token_ids(n, n_vocab):
    """The ids of cli::BenchTokenIds (a 32-bit LCG, Numerical Recipes constants)."""
    state = 12345
    ids = []
    for _ in range(n):
        state = (state * 1664525 + 1013904223) & 0xFFFFFFFF
        ids.append((state >> 8) % n_vocab)
    return ids


def mean_sd(values):
    return statistics.fmean(values), (statistics.stdev(values) if len(values) > 1 else 0.0)


def run_trit(trit, model, args):
    cmd = [trit, "bench", model, "-p", str(args.p), "-n", str(args.n), "-r", str(args.r), "-t", str(args.t), "--json"]
    print("$ " + " ".join(cmd), file=sys.stderr, flush=True)
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        print(out.stderr, file=sys.stderr)
        return None
    return json.loads(out.stdout)


def run_llamacpp(llama_cpp, model, args):
    """{'pp': (mean, sd), 'tg': (mean, sd)} in tokens/s."""
    print(f"llama.cpp: {model}", file=sys.stderr, flush=True)
    llm = llama_cpp.Llama(model_path=model, n_ctx=args.p + args.n, n_batch=args.p, n_ubatch=args.p,
                          n_threads=args.t, n_threads_batch=args.t, verbose=False)
    ids = bench_token_ids(args.p + args.n, llm.n_vocab())
    # Warm-up, as trit bench does: a short prompt and one generated token read every weight.
    warm = min(4, args.p)
    llm.reset()
    llm.eval(ids[:warm])
    llm.eval(ids[warm:warm + 1])
    pp, tg = [], []
    for _ in range(args.r):
        llm.reset()  # eval() drops the cache past n_tokens: a fresh sequence
        start = time.perf_counter()
        llm.eval(ids[:args.p])
        pp.append(args.p / (time.perf_counter() - start))
        start = time.perf_counter()
        for i in range(args.p, args.p + args.n):
            llm.eval(ids[i:i + 1])
        tg.append(args.n / (time.perf_counter() - start))
    del llm
    return {"pp": mean_sd(pp), "tg": mean_sd(tg)}


def fmt_tps(mean, sd):
    return f"{mean:.2f} ± {sd:.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", nargs="+", help="GGUF files")
    ap.add_argument("--trit", default=str(ROOT / "build" / "trit"), help="the trit binary (default build/trit)")
    ap.add_argument("-p", type=int, default=64, help="prompt tokens (default 64)")
    ap.add_argument("-n", type=int, default=16, help="generated tokens (default 16)")
    ap.add_argument("-r", type=int, default=3, help="repetitions (default 3)")
    ap.add_argument("-t", type=int, default=2, help="threads, the same for both (default 2)")
    ap.add_argument("--no-llamacpp", action="store_true", help="time trit only")
    args = ap.parse_args()
    for name in ("p", "n", "r", "t"):
        if getattr(args, name) < 1:
            ap.error(f"-{name} must be >= 1")

    llama_cpp = None
    if not args.no_llamacpp:
        try:
            import llama_cpp  # noqa: F811  imported here so --help and trit-only runs work without it
        except ImportError:
            print(f"llama.cpp: NOT MEASURED: llama-cpp-python is not installed in {sys.executable} "
                  "(pip install llama-cpp-python, or run this script with /tmp/lcpvenv/bin/python)", file=sys.stderr)
    version = f"llama-cpp-python {llama_cpp.__version__}" if llama_cpp else "llama.cpp not measured"
    print(f"threads {args.t}, pp {args.p} tokens, tg {args.n} tokens, {args.r} repetitions; {version}\n")
    print("| model | type | trit pp tok/s | trit tg tok/s | roofline | peak RSS (mapped + KV) | "
          "llama.cpp pp tok/s | llama.cpp tg tok/s | pp ratio | tg ratio |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    failed = False
    for model in args.models:
        t = run_trit(args.trit, model, args)
        if t is None:
            failed = True
            print(f"| {pathlib.Path(model).name} | trit bench failed | | | | | | | | |", flush=True)
            continue
        lc = run_llamacpp(llama_cpp, model, args) if llama_cpp else None
        mib = 1 << 20
        rss = f"{t['peak_rss_bytes'] / mib:.0f} MiB ({t['model_bytes'] / mib:.0f} + {t['kv_cache_bytes'] / mib:.1f})"
        cells = [pathlib.Path(model).name, t["type"], fmt_tps(t["pp"]["tps"], t["pp"]["sd"]),
                 fmt_tps(t["tg"]["tps"], t["tg"]["sd"]),
                 f"{100 * t['roofline_fraction']:.1f}% of {t['bandwidth_gbs']:.1f} GB/s", rss]
        if lc:
            cells += [fmt_tps(*lc["pp"]), fmt_tps(*lc["tg"]), f"{t['pp']['tps'] / lc['pp'][0]:.2f}x",
                      f"{t['tg']['tps'] / lc['tg'][0]:.2f}x"]
        else:
            cells += ["n/a", "n/a", "n/a", "n/a"]
        print("| " + " | ".join(cells) + " |", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
