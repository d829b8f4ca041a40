#!/usr/bin/env python3
"""The measurements behind docs/QUALITY.md: for an F16 model and a text,

  1. llama.cpp's llama-perplexity on the F16 file saves the base logits;
  2. trit (both engines) on the F16 file against that base: how far trit's
     forward is from llama.cpp's when neither is quantized;
  3. for each TYPE, the file `trit quantize` writes and the one
     `llama-quantize --pure` writes, each scored by trit's cpu engine against
     the F16 base (PPL, KLD, same top token): the quantizers side by side;
     the llama-quantize file also by llama.cpp against the same base (is trit
     no further from F16 than llama.cpp on the same file?);
  4. for the types in --same-file, llama.cpp's own logits of the quantized
     file as a base, and trit's cpu and reference engines against it: trit's
     distance to llama.cpp on one file, to set beside the quantization's own.

Runs alternate trit / llama.cpp per file. Needs a trit build and
llama-perplexity + llama-quantize built from the llama.cpp source in the
llama-cpp-python sdist (outside the repo):

  bench/quality_text.sh /tmp/genesis.txt
  python3 bench/quality.py --f16 qwen3-0.6b-f16.gguf --text /tmp/genesis.txt \\
      --llama-bin /tmp/lcpbuild/bin --work /tmp/quality --chunks 8 -t 2

With --imatrix FILE (an importance matrix from llama-imatrix, made on a text
other than the evaluation text) both quantizers take it: `trit quantize
--imatrix` and `llama-quantize --imatrix`.

Writes one JSON line per measurement to WORK/results.jsonl (appending; a
rerun skips what is there); `bench/quality.py --report WORK/results.jsonl`
prints the Markdown tables of docs/QUALITY.md.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

TYPES = ["q8_0", "q6_K", "q5_K", "q4_K", "q5_1", "q5_0", "q4_1", "q4_0", "iq4_nl", "iq4_xs", "tq2_0", "tq1_0"]


def log(msg):
    print(f"quality: {msg}", file=sys.stderr, flush=True)


def run(cmd, **kw):
    log(" ".join(cmd))
    start = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        sys.stderr.write(p.stdout[-3000:] + p.stderr[-3000:])
        raise SystemExit(f"quality: failed ({p.returncode}): {' '.join(cmd)}")
    return p, time.time() - start


def parse_llama(text):
    """Figures of llama-perplexity's output (perplexity or --kl-divergence)."""
    out = {}
    m = re.search(r"Final estimate: PPL = ([0-9.]+) \+/- ([0-9.]+)", text)
    if m:
        out["ppl"], out["ppl_error"] = float(m.group(1)), float(m.group(2))
    for key, pat in [("ppl", r"Mean PPL\(Q\)\s*:\s*([0-9.]+)"), ("ppl_base", r"Mean PPL\(base\)\s*:\s*([0-9.]+)"),
                     ("kld_mean", r"Mean    KLD:\s*(-?[0-9.]+)"), ("kld_p99", r"99\.0%   KLD:\s*(-?[0-9.]+)"),
                     ("kld_max", r"Maximum KLD:\s*(-?[0-9.]+)"), ("same_top", r"Same top p:\s*([0-9.]+)"),
                     ("dp_rms", r"RMS Δp\s*:\s*([0-9.]+)")]:
        m = re.search(pat, text)
        if m:
            out[key] = float(m.group(1))
    if "same_top" in out:
        out["same_top"] /= 100.0
    if "dp_rms" in out:
        out["dp_rms"] /= 100.0
    return out


def parse_trit(stdout):
    j = json.loads(stdout)
    out = {"ppl": j["ppl"], "ppl_error": j["ppl_error"], "seconds": j["seconds"], "engine": j["engine"]}
    k = j.get("kl_divergence")
    if k:
        out.update(ppl_base=k["ppl_base"]["value"], kld_mean=k["kld"]["mean"], kld_p99=k["kld"]["p99"],
                   kld_max=k["kld"]["max"], same_top=k["same_top"]["value"], dp_rms=k["delta_p"]["rms"])
    return out


class Bench:
    def __init__(self, args):
        self.a = args
        os.makedirs(args.work, exist_ok=True)
        self.results_path = os.path.join(args.work, "results.jsonl")
        self.done = {}
        if os.path.exists(self.results_path):
            for line in open(self.results_path):
                r = json.loads(line)
                self.done[r["key"]] = r

    def record(self, key, **fields):
        r = dict(key=key, model=os.path.basename(self.a.f16), ctx=self.a.ctx,
                 imatrix=os.path.basename(self.a.imatrix) if self.a.imatrix else None,
                 **{"chunks": self.a.chunks, **fields})
        with open(self.results_path, "a") as f:
            f.write(json.dumps(r) + "\n")
        self.done[key] = r
        log(f"{key}: {json.dumps({k: v for k, v in r.items() if k not in ('key', 'model')})}")

    def imatrix_args(self):
        return ["--imatrix", self.a.imatrix] if self.a.imatrix else []

    def llama_ppl(self, model, extra):
        cmd = [os.path.join(self.a.llama_bin, "llama-perplexity"), "-m", model, "-c", str(self.a.ctx),
               "--chunks", str(self.a.chunks), "-t", str(self.a.threads), "-b", str(self.a.ctx)] + extra
        want = "kld_mean" if "--kl-divergence" in extra else "ppl"
        for _ in range(3):
            p, secs = run(cmd)
            r = parse_llama(p.stdout + p.stderr)
            r["seconds"] = secs
            if want in r:
                return r
            # llama.cpp logs from a thread of its own; its last lines have now and then not reached the pipe.
            log(f"no {want} in llama-perplexity's output; running it again")
        raise SystemExit(f"quality: llama-perplexity printed no {want}: {' '.join(cmd)}")

    def trit_ppl(self, model, extra, engine="cpu"):
        # The reference engine (float activations, scalar) is ~60x slower: fewer chunks.
        chunks = self.a.reference_chunks if engine == "reference" else self.a.chunks
        cmd = [self.a.trit, "perplexity", model, "--json", "--threads", str(self.a.threads),
               "--chunks", str(chunks), "--engine", engine] + extra
        p, _ = run(cmd)
        r = parse_trit(p.stdout)
        r["chunks"] = chunks
        return r

    def main(self):
        a = self.a
        base = os.path.join(a.work, "f16-llama.kld")
        if "f16/llama/save" not in self.done or not os.path.exists(base):
            r = self.llama_ppl(a.f16, ["-f", a.text, "--kl-divergence-base", base])
            self.record("f16/llama/save", type="f16", quantizer="-", runner="llama.cpp", **r)
        # The reference engine's F16 run only when some type is run on it too (--reference-types).
        for engine in ["cpu", "reference"] if a.reference_types else ["cpu"]:
            key = f"f16/trit-{engine}/vs-f16-llama"
            if key not in self.done:
                r = self.trit_ppl(a.f16, ["--kld-base", base], engine)
                self.record(key, type="f16", quantizer="-", runner=f"trit {engine}", **r)
        for t in a.types:
            self.one_type(t, base)

    def one_type(self, t, base):
        a = self.a
        trit_file = os.path.join(a.work, f"trit-{t}.gguf")
        llama_file = os.path.join(a.work, f"llama-{t}.gguf")
        keys = [f"{t}/trit-quantize/trit-cpu/vs-f16", f"{t}/llama-quantize/trit-cpu/vs-f16",
                f"{t}/llama-quantize/llama/vs-f16"]
        same = t in a.same_file
        engines = ("cpu", "reference") if t in a.reference_types else ("cpu",)
        if same:
            keys += [f"{t}/llama-quantize/trit-{e}/vs-llama-same-file" for e in engines]
        if t in a.reference_types:
            keys.append(f"{t}/trit-quantize/trit-reference/vs-f16")
        if all(k in self.done for k in keys):
            return
        ref_key = f"{t}/trit-quantize/trit-reference/vs-f16"
        if keys[0] not in self.done or (t in a.reference_types and ref_key not in self.done):
            run([a.trit, "quantize", "-q", "-t", str(a.threads), a.f16, trit_file, t] + self.imatrix_args())
            if keys[0] not in self.done:
                r = self.trit_ppl(trit_file, ["--kld-base", base])
                self.record(keys[0], type=t, quantizer="trit", runner="trit cpu", **r)
            if t in a.reference_types and ref_key not in self.done:
                r = self.trit_ppl(trit_file, ["--kld-base", base], "reference")
                self.record(ref_key, type=t, quantizer="trit", runner="trit reference", **r)
            os.remove(trit_file)
        if not all(k in self.done for k in keys[1:]):
            run([os.path.join(a.llama_bin, "llama-quantize"), "--pure"] + self.imatrix_args() +
                [a.f16, llama_file, t.upper(), str(a.threads)])
            if keys[1] not in self.done:
                r = self.trit_ppl(llama_file, ["--kld-base", base])
                self.record(keys[1], type=t, quantizer="llama", runner="trit cpu", **r)
            if keys[2] not in self.done:
                r = self.llama_ppl(llama_file, ["--kl-divergence-base", base, "--kl-divergence"])
                self.record(keys[2], type=t, quantizer="llama", runner="llama.cpp", **r)
            if same:
                own = os.path.join(a.work, f"llama-{t}.kld")
                self.llama_ppl(llama_file, ["-f", a.text, "--kl-divergence-base", own])
                for e in engines:
                    key = f"{t}/llama-quantize/trit-{e}/vs-llama-same-file"
                    if key not in self.done:
                        r = self.trit_ppl(llama_file, ["--kld-base", own], e)
                        self.record(key, type=t, quantizer="llama", runner=f"trit {e}", **r)
                os.remove(own)
            os.remove(llama_file)


def report(results_path):
    """Markdown tables of a results.jsonl."""
    rows = {}
    for line in open(results_path):
        r = json.loads(line)
        rows[r["key"]] = r

    def fig(r, k, fmt):
        return format(r[k], fmt) if r and k in r else "-"

    def cell(r):
        return f"{fig(r, 'ppl', '.4f')} | {fig(r, 'kld_mean', '.5f')} | {fig(r, 'kld_p99', '.4f')} | " + (
            f"{100 * r['same_top']:.2f}%" if r and "same_top" in r else "-")

    any_row = next(iter(rows.values()))
    imatrix = f", both quantizers with the importance matrix {any_row['imatrix']}" if any_row.get("imatrix") else ""
    print(f"{any_row['model']}{imatrix}, {any_row['chunks']} chunks of {any_row['ctx']} tokens; "
          f"PPL(F16, llama.cpp) = {rows['f16/llama/save']['ppl']:.4f} +/- {rows['f16/llama/save']['ppl_error']:.4f}\n")
    print("| type | trit quantize, trit: PPL | KLD | KLD p99 | same top | llama-quantize, trit: PPL | KLD | KLD p99 "
          "| same top | llama-quantize, llama.cpp: PPL | KLD | KLD p99 | same top |")
    print("|---" * 13 + "|")
    types = [k.split("/")[0] for k in rows if k.endswith("/trit-quantize/trit-cpu/vs-f16")]
    for t in types:
        print(f"| {t} | {cell(rows.get(f'{t}/trit-quantize/trit-cpu/vs-f16'))} | "
              f"{cell(rows.get(f'{t}/llama-quantize/trit-cpu/vs-f16'))} | "
              f"{cell(rows.get(f'{t}/llama-quantize/llama/vs-f16'))} |")
    print("\n| file | trit cpu vs llama.cpp: KLD | KLD p99 | same top | trit reference vs llama.cpp: KLD | KLD p99 "
          "| same top | the quantization's own KLD (llama.cpp vs F16) |")
    print("|---" * 8 + "|")
    f16 = [rows.get(f"f16/trit-{e}/vs-f16-llama") for e in ("cpu", "reference")]
    print(f"| f16 | {cell(f16[0]).split(' | ', 1)[1]} | {cell(f16[1]).split(' | ', 1)[1]} | 0 |")
    for t in types:
        same = [rows.get(f"{t}/llama-quantize/trit-{e}/vs-llama-same-file") for e in ("cpu", "reference")]
        if same[0] is None:
            continue
        own = rows.get(f"{t}/llama-quantize/llama/vs-f16")
        print(f"| {t} (llama-quantize) | {cell(same[0]).split(' | ', 1)[1]} | {cell(same[1]).split(' | ', 1)[1]} | "
              f"{fig(own, 'kld_mean', '.5f')} |")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--report":
        report(sys.argv[2])
        return
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--f16", required=True, help="the unquantized GGUF model")
    p.add_argument("--text", required=True, help="the evaluation text (bench/quality_text.sh)")
    p.add_argument("--llama-bin", required=True, help="directory with llama-perplexity and llama-quantize")
    p.add_argument("--trit", default=os.path.join(os.path.dirname(__file__), "..", "build", "trit"))
    p.add_argument("--work", required=True, help="scratch directory (quantized files, base logits, results.jsonl)")
    p.add_argument("--imatrix", help="importance matrix (llama-imatrix) for both quantizers")
    p.add_argument("--ctx", type=int, default=512)
    p.add_argument("--chunks", type=int, default=8)
    p.add_argument("-t", "--threads", type=int, default=2)
    p.add_argument("--types", default=",".join(TYPES), help="comma-separated types (default: all trit writes)")
    p.add_argument("--same-file", default="q8_0,q4_K,tq2_0",
                   help="types for which trit is also compared with llama.cpp's logits of the same file")
    p.add_argument("--reference-types", default="q8_0,q4_K",
                   help="types also run on trit's reference engine (float activations)")
    p.add_argument("--reference-chunks", type=int, default=2, help="chunks for the reference engine's runs")
    a = p.parse_args()
    a.types = [t for t in a.types.split(",") if t]
    a.same_file = set(t for t in a.same_file.split(",") if t)
    a.reference_types = set(t for t in a.reference_types.split(",") if t)
    Bench(a).main()


if __name__ == "__main__":
    main()
