#!/usr/bin/env python3
"""trit against bitnet.cpp on the very same I2_S GGUF file and thread count.

Alternates, for --rounds rounds, `trit bench MODEL -p P -n N -r R -t T --json`
and bitnet.cpp's `llama-bench -m MODEL -p P -n N -r R -t T -o json` (its
build of llama.cpp's bench: pp is P tokens in one batch, tg N tokens one at a
time), so that both see the same machine state, and prints a markdown table:
tokens/s mean ± sd over the rounds (each round's figure the mean of its R
repetitions), and trit / bitnet.cpp.

bitnet.cpp is built outside this repository from its public source (never
vendored): see docs/PERFORMANCE.md, "BitNet b1.58 against bitnet.cpp", for
the commit and flags. Not part of CI.
    python3 bench/bitnet/vs_bitnetcpp.py --trit build/trit \\
        --llama-bench <bitnet.cpp>/build/bin/llama-bench -t 2 -p 64 -n 16 -r 3 MODEL.gguf
"""
import argparse
import json
import statistics
import subprocess
import sys


def mean_sd(values):
    return statistics.fmean(values), (statistics.stdev(values) if len(values) > 1 else 0.0)


def run(cmd):
    print("$ " + " ".join(cmd), file=sys.stderr, flush=True)
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"failed ({out.returncode}): {' '.join(cmd)}\n{out.stderr[-2000:]}")
    return out.stdout


def trit_round(a, model):
    j = json.loads(run([a.trit, "bench", model, "-p", str(a.p), "-n", str(a.n), "-r", str(a.r), "-t", str(a.t), "--json"]))
    return [j["pp"]["tps"]], [j["tg"]["tps"]], j


def bitnet_round(a, model):
    rows = json.loads(run([a.llama_bench, "-m", model, "-p", str(a.p), "-n", str(a.n), "-r", str(a.r), "-t", str(a.t),
                           "-o", "json"]))
    pp = [r for r in rows if r["n_prompt"] == a.p and r["n_gen"] == 0][0]
    tg = [r for r in rows if r["n_gen"] == a.n and r["n_prompt"] == 0][0]
    return [pp["avg_ts"]], [tg["avg_ts"]]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trit", required=True)
    ap.add_argument("--llama-bench", required=True, help="bitnet.cpp's llama-bench")
    ap.add_argument("-t", type=int, default=2)
    ap.add_argument("-p", type=int, default=64)
    ap.add_argument("-n", type=int, default=16)
    ap.add_argument("-r", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("models", nargs="+")
    a = ap.parse_args()
    print(f"| file | trit pp{a.p} | bitnet.cpp pp{a.p} | ratio | trit tg{a.n} | bitnet.cpp tg{a.n} | ratio | trit roofline |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for model in a.models:
        tp, tt, bp, bt, roof = [], [], [], [], []
        for _ in range(a.rounds):
            p, t, j = trit_round(a, model)
            tp += p
            tt += t
            roof.append(j["roofline_fraction"])
            p, t = bitnet_round(a, model)
            bp += p
            bt += t
        (tpm, tps), (ttm, tts), (bpm, bps), (btm, bts) = map(mean_sd, (tp, tt, bp, bt))
        name = model.rsplit("/", 1)[-1]
        print(f"| {name} | {tpm:.2f} ± {tps:.2f} | {bpm:.2f} ± {bps:.2f} | {tpm / bpm:.2f}x | "
              f"{ttm:.2f} ± {tts:.2f} | {btm:.2f} ± {bts:.2f} | {ttm / btm:.2f}x | {statistics.fmean(roof):.1%} |",
              flush=True)


if __name__ == "__main__":
    main()
