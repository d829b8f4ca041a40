"""Speculative decoding in `trit run`: decode tokens/s with and without, the
acceptance rate and the tokens a pass, and a check that the text is the same.

Part (a), prompt lookup (`--spec lookup`) on --model (Gemma 3 270M Q4_K_M):
copy-heavy tasks (quoting a passage, renaming a variable in a function,
copying a list) and free writing, greedy and sampled (where lookup rarely
helps, so its cost shows). Part (b), a draft model (`--draft`): --target (a
Q8_0 or F16 file) alone against --target with --draft (a low-bit copy of the
same model, e.g. Q4_0), over three prompts; with --bad-draft (e.g. a TQ2_0
copy of a non-ternary model, whose guesses are mostly rejected) also what
rejection costs. Each model is also timed alone on the first prompt.

Every run is greedy (`--temp 0`; the sampled task `--temp 0.8 --seed 7`), -n --tokens, -t --threads, with -v; the
plain and speculative runs of a task alternate (the order turns each rep), and
each speculative run is compared with the plain run of its rep: the ratio of
their generation rates (stderr's "generated N tokens in S s, R tok/s": the
tokens after the first, the prompt's pass excluded). The tables give medians
over --reps. The stdout of every run of a task must be byte for byte the same
(trit's guarantee: speculation changes no token); a difference is reported
and makes the exit status 1. The prompts go through the model's chat template
when it has one (the stderr header says which; Gemma 3 270M's GGUF has none,
so its prompts are plain completions). Results go in docs/PERFORMANCE.md.

  python3 bench/speculative.py --trit build/trit --model gemma-3-270m-q4_k_m.gguf \\
      --target gemma-3-270m-f16.gguf --draft gemma-3-270m-q4_0.gguf --bad-draft gemma-3-270m-tq2_0.gguf

Making part (b)'s files from the Q4_K_M file (the F16 file holds its weights,
dequantized):

  trit quantize gemma-3-270m-q4_k_m.gguf gemma-3-270m-f16.gguf f16
  trit quantize gemma-3-270m-f16.gguf gemma-3-270m-q4_0.gguf q4_0
  trit quantize gemma-3-270m-f16.gguf gemma-3-270m-tq2_0.gguf tq2_0
"""
import argparse
import hashlib
import json
import os
import platform
import re
import shlex
import statistics
import subprocess
import sys
import time

# --- prompts ---------------------------------------------------------------

PASSAGE = (
    "The lighthouse at Carrow Point was built in 1871 to warn ships away from the reef that runs a mile out "
    "from the headland. For ninety years a keeper lived in the cottage at its foot, climbing the hundred and "
    "twelve steps each evening to light the lamp and each morning to put it out. The last keeper, Margaret Hale, "
    "kept a log of every ship she saw, the weather at dawn and dusk, and the birds that nested on the gallery "
    "rail. When the light was automated in 1961 she moved to the village, but she walked out to the point every "
    "Sunday until she was eighty. Her logs, forty-one volumes bound in green cloth, are now kept in the county "
    "library, where anyone may read them. They record three shipwrecks, two royal visits, and one winter so cold "
    "that the sea froze in the harbour.")

FUNCTION = '''def summarize(readings):
    x = 0
    total = 0.0
    lowest = None
    highest = None
    for value in readings:
        if value is None:
            continue
        x += 1
        total += value
        if lowest is None or value < lowest:
            lowest = value
        if highest is None or value > highest:
            highest = value
    if x == 0:
        return {"x": 0, "mean": None, "low": None, "high": None}
    mean = total / x
    spread = highest - lowest
    report = {
        "x": x,
        "mean": round(mean, 3),
        "low": lowest,
        "high": highest,
        "spread": spread,
    }
    if x < 3:
        report["warning"] = "fewer than three readings"
    elif spread > 10 * abs(mean):
        report["warning"] = "readings vary widely"
    return report'''

STORY = "Chapter 1\n\nThe rain had not stopped for three days when the stranger arrived at the inn."

GREEDY = ["--temp", "0"]
SAMPLED = ["--temp", "0.8", "--seed", "7"]

# (name, what it is, copy-heavy?, sampling, prompt). Gemma 3 270M is a base
# model: prompts are documents it continues by copying. It does not follow
# "correct the typos" or "rewrite" requests (it writes new text), so the
# edit task shows the pattern once (a one-shot rename). Its greedy free
# writing soon repeats itself, which lookup drafts well; sampled, it does not.
LOOKUP_TASKS = [
    ("quote", "quote a 150-word passage back", True, GREEDY,
     f"Passage:\n{PASSAGE}\n\nQuote the passage above exactly, word for word.\n\nQuotation:\n"),
    ("code-edit", "rename x to count in a 30-line function (one-shot)", True, GREEDY,
     "# Before:\ndef area(w, h):\n    x = w * h\n    print(x)\n    return x\n\n"
     "# After renaming x to result:\ndef area(w, h):\n    result = w * h\n    print(result)\n    return result\n\n"
     f"# Before:\n{FUNCTION}\n\n# After renaming x to count:\n"),
    ("list", "copy a list", True, GREEDY,
     "Copy this list exactly: apples, bananas, cherries, dates, elderberries, figs, grapes, kiwis, lemons, "
     "mangoes. Copy: apples, bananas, cherries, dates, elderberries, figs, grapes, kiwis, lemons, mangoes. Copy:"),
    ("free", "free writing, greedy (the model repeats itself)", False, GREEDY, STORY),
    ("free-sampled", "free writing, temperature 0.8 (lookup rarely helps)", False, SAMPLED, STORY),
]

DRAFT_TASKS = [
    ("story", "a story opening",
     "Once upon a time, in a small harbour town, there lived an old clockmaker who"),
    ("explain", "a question answered",
     "Question: Why do leaves change colour in autumn?\nAnswer:"),
    ("code", "a Python function",
     'def parse_duration(text):\n    """Turn "1h30m", "45s" or "2m5s" into a number of seconds."""\n'),
]

# --- running trit ----------------------------------------------------------

HEADER_RE = re.compile(r"^\[(?P<model>.+): engine (?P<engine>\S+), (?P<threads>\d+) threads, seed (?P<seed>\d+), "
                       r"(?P<mode>chat template|plain completion)\]$", re.M)
TIMING_RE = re.compile(r"^\[prompt (?P<prompt>\d+) tokens \((?P<reused>\d+) reused\) in (?P<prefill_s>[\d.]+) s, "
                       r"(?P<prefill_rate>[\d.]+) tok/s; generated (?P<tokens>\d+) tokens in (?P<decode_s>[\d.]+) s, "
                       r"(?P<rate>[\d.]+) tok/s; (?P<stop>[^\]]+)\]$", re.M)
SPEC_RE = re.compile(r"^\[speculative: (?P<passes>\d+) passes, (?P<drafted>\d+) drafted, (?P<accepted>\d+) "
                     r"accepted \((?P<percent>\d+)%\), (?P<per_pass>[\d.]+) tokens a pass\]$", re.M)


class BenchError(Exception):
    pass


def run_trit(trit, model, prompt, sampling, extra, args):
    cmd = [trit, "run", model, prompt, "-n", str(args.tokens)] + sampling + ["-t", str(args.threads), "-v"]
    if args.raw:
        cmd.append("--raw")
    cmd += extra
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        raise BenchError(f"timed out after {args.timeout} s: {shlex.join(cmd[:3])} ... {shlex.join(cmd[4:])}")
    err = p.stderr.decode("utf-8", "replace")
    if p.returncode != 0:
        raise BenchError(f"exit status {p.returncode}: {shlex.join(cmd[:3])} PROMPT {shlex.join(cmd[4:])}\n{err}")
    header, timing, spec = HEADER_RE.search(err), TIMING_RE.search(err), SPEC_RE.search(err)
    if header is None or timing is None:
        raise BenchError("stderr of `trit run -v` has not the expected header and timing lines "
                         f"(has the format changed? update this script's patterns):\n{err}")
    if bool(extra) != (spec is not None):
        raise BenchError(f"expected {'a' if extra else 'no'} [speculative: ...] line for {shlex.join(extra) or 'plain'}"
                         f" (has the format changed?):\n{err}")
    run = {"text": p.stdout, "mode": header["mode"], "engine": header["engine"], "threads": int(header["threads"]),
           "prompt_tokens": int(timing["prompt"]), "tokens": int(timing["tokens"]),
           "decode_s": float(timing["decode_s"]), "rate": float(timing["rate"]), "stop": timing["stop"],
           "load": os.getloadavg()[0]}
    if spec is not None:
        run.update(passes=int(spec["passes"]), drafted=int(spec["drafted"]), accepted=int(spec["accepted"]),
                   per_pass=float(spec["per_pass"]))
    return run


def bench_case(case, args, log):
    """Runs the case's variants --reps times each, the order turning every rep.
    Variant 0 is plain decoding; the others are compared with it rep by rep."""
    variants = case["variants"]
    runs = {v["label"]: [] for v in variants}
    # A warm-up run, whose text every run must match.
    reference = run_trit(args.trit, case["model"], case["prompt"], case["sampling"], [], args)
    mismatches = []
    for rep in range(args.reps):
        k = rep % len(variants)
        for v in variants[k:] + variants[:k]:
            r = run_trit(args.trit, case["model"], case["prompt"], case["sampling"], v["extra"], args)
            if r["text"] != reference["text"]:
                mismatches.append(f"{case['name']}: {v['label']} rep {rep + 1}: stdout differs from plain decoding "
                                  f"(first difference at byte {first_diff(r['text'], reference['text'])})")
            runs[v["label"]].append(r)
            log(f"  {case['name']:10} {v['label']:24} {r['rate']:7.1f} tok/s"
                + (f"  {r['accepted']}/{r['drafted']} accepted, {r['per_pass']:.2f} a pass" if v["extra"] else ""))
    plain = runs[variants[0]["label"]]
    rows = []
    for v in variants[1:]:
        spec = runs[v["label"]]
        ratios = [s["rate"] / p["rate"] for s, p in zip(spec, plain) if p["rate"] > 0]
        drafted, accepted = sum(s["drafted"] for s in spec), sum(s["accepted"] for s in spec)
        rows.append({
            "part": case["part"], "task": case["name"], "what": case["what"], "kind": v.get("kind", case.get("kind")),
            "model": os.path.basename(case["model"]), "drafter": v["label"], "mode": reference["mode"],
            "tokens": reference["tokens"], "stop": reference["stop"],
            "plain_rate": statistics.median(p["rate"] for p in plain),
            "spec_rate": statistics.median(s["rate"] for s in spec),
            "ratio": statistics.median(ratios) if ratios else 0.0,
            "ratios": ratios,
            "acceptance": accepted / drafted if drafted else 0.0,
            "drafted": drafted // len(spec), "accepted": accepted // len(spec),
            "passes": statistics.median(s["passes"] for s in spec),
            "per_pass": statistics.median(s["per_pass"] for s in spec),
            "same_text": not any(m.startswith(f"{case['name']}: {v['label']} ") for m in mismatches),
        })
    plain_same = all(p["text"] == reference["text"] for p in plain)
    if not plain_same:
        mismatches.append(f"{case['name']}: plain decoding gave different texts across reps (not deterministic)")
    return rows, mismatches, {k: [strip_text(r) for r in v] for k, v in runs.items()}, reference


def bench_alone(name, model, prompt, args, log):
    run_trit(args.trit, model, prompt, GREEDY, [], args)  # warm-up
    rates = [run_trit(args.trit, model, prompt, GREEDY, [], args)["rate"] for _ in range(args.reps)]
    log(f"  alone      {os.path.basename(model):24} {statistics.median(rates):7.1f} tok/s (median)")
    return {"role": name, "model": os.path.basename(model), "rate": statistics.median(rates), "rates": rates}


def first_diff(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b))


def strip_text(r):
    return {k: v for k, v in r.items() if k != "text"}


# --- report ----------------------------------------------------------------

def meets(row):
    """The issue's targets: >= 1.8x on a copy-heavy lookup task, >= 1.3x with a
    draft model accepted 60% or more, and never below 0.95x."""
    if row["kind"] == "copy":
        return row["ratio"] >= 1.8
    if row["kind"] == "draft" and row["acceptance"] >= 0.6:
        return row["ratio"] >= 1.3
    return row["ratio"] >= 0.95


def machine():
    info = {"platform": platform.platform(), "cpus": os.cpu_count()}
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout
        for line in out.splitlines():
            key, _, value = line.partition(":")
            if key.strip() in ("Model name", "CPU(s)", "Thread(s) per core", "Core(s) per socket", "Hypervisor vendor"):
                info[key.strip()] = value.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return info


def sha256_prefix(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:12]


def command(args, model, task, sampling, extra):
    cmd = ["trit", "run", model, "PROMPT", "-n", str(args.tokens)] + sampling + ["-t", str(args.threads), "-v"]
    if args.raw:
        cmd.append("--raw")
    text = shlex.join(cmd + extra)
    return text.replace("PROMPT", f'"$(cat {args.dump_prompts or "PROMPTS"}/{task}.txt)"', 1)


def print_report(rows, alone, mismatches, meta, args):
    print()
    cpu = meta["machine"].get("Model name", platform.machine())
    print(f"### {time.strftime('%Y-%m-%d')} {cpu}, speculative decoding")
    print()
    m = meta["machine"]
    print(f"{m.get('Model name', '?')}, {m.get('CPU(s)', m['cpus'])} CPUs"
          f"{', ' + m['Hypervisor vendor'] + ' guest' if 'Hypervisor vendor' in m else ''}; {meta['version']}; "
          f"`-t {args.threads}`, greedy unless said, `-n {args.tokens}`; medians of {args.reps} alternating pairs; "
          f"load average {meta['load_start']:.2f} at the start, {meta['load_end']:.2f} at the end.")
    print()
    print("| part | task | model | drafter | tokens | plain (tok/s) | speculative (tok/s) | speed-up | "
          "accepted | tokens a pass | same text | target |")
    print("|---|---|---|---|---:|---:|---:|---:|---:|---:|---|---|")
    for r in rows:
        target = ("≥ 1.8x" if r["kind"] == "copy" else
                  "≥ 1.3x" if r["kind"] == "draft" and r["acceptance"] >= 0.6 else "≥ 0.95x")
        print(f"| {r['part']} | {r['task']}: {r['what']} | {r['model']} | {r['drafter']} | {r['tokens']} | "
              f"{r['plain_rate']:.1f} | {r['spec_rate']:.1f} | {r['ratio']:.2f}x | "
              f"{r['accepted']}/{r['drafted']} ({100 * r['acceptance']:.0f}%) | {r['per_pass']:.2f} | "
              f"{'yes' if r['same_text'] else '**NO**'} | {target}: {'met' if meets(r) else '**missed**'} |")
    if alone:
        print()
        print("| model alone (first part (b) prompt) | decode (tok/s) | against the target |")
        print("|---|---:|---:|")
        base = alone[0]["rate"]
        for a in alone:
            print(f"| {a['role']}: {a['model']} | {a['rate']:.1f} | {a['rate'] / base:.2f}x |")
    print()
    print("Files (sha256 prefix): " + ", ".join(f"{os.path.basename(p)} {h}" for p, h in meta["files"].items()))
    print(f"Prompts through the {', '.join(sorted(meta['modes']))} (stderr header of `trit run -v`).")
    print()
    print("```sh")
    for c in meta["commands"]:
        print(c)
    print("```")
    if not args.dump_prompts:
        print("(--dump-prompts DIR writes each task's prompt to DIR/TASK.txt)")
    for mm in mismatches:
        print("FAILURE:", mm)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("--trit", required=True, help="the trit binary")
    p.add_argument("--model", help="part (a): the model for prompt lookup (Gemma 3 270M Q4_K_M)")
    p.add_argument("--target", help="part (b): the target model (Q8_0 or F16)")
    p.add_argument("--draft", help="part (b): a low-bit draft of the target (same vocabulary)")
    p.add_argument("--bad-draft", help="part (b): a draft whose guesses are mostly rejected (the cost of rejection)")
    p.add_argument("--reps", type=int, default=5, help="alternating pairs per task (default 5)")
    p.add_argument("--tokens", type=int, default=128, help="tokens to generate, -n (default 128)")
    p.add_argument("--threads", type=int, default=2, help="-t (default 2)")
    p.add_argument("--draft-max", type=int, help="--draft-max for every speculative run (default: trit's)")
    p.add_argument("--draft-p-min", type=float, help="--draft-p-min for every draft-model run (default: trit's)")
    p.add_argument("--raw", action="store_true", help="pass --raw: no chat template")
    p.add_argument("--tasks", help="only these tasks, comma-separated (" +
                   ", ".join(t[0] for t in LOOKUP_TASKS + [(d[0],) for d in DRAFT_TASKS]) + ")")
    p.add_argument("--timeout", type=int, default=600, help="seconds for one run (default 600)")
    p.add_argument("--dump-prompts", metavar="DIR", help="write each task's prompt to DIR/TASK.txt")
    p.add_argument("--json", metavar="OUT", help="write every run and the summary as JSON")
    args = p.parse_args()

    if not os.access(args.trit, os.X_OK):
        p.error(f"--trit {args.trit}: not an executable file")
    if args.model is None and args.target is None:
        p.error("nothing to run: give --model (part (a)) and/or --target with --draft (part (b))")
    if (args.target is None) != (args.draft is None):
        p.error("part (b) needs both --target and --draft")
    if args.bad_draft and not args.target:
        p.error("--bad-draft needs --target and --draft")
    for f in (args.model, args.target, args.draft, args.bad_draft):
        if f is not None and not os.path.isfile(f):
            p.error(f"{f}: no such file")
    if args.reps < 1 or args.tokens < 2:
        p.error("--reps must be at least 1 and --tokens at least 2")
    wanted = set(args.tasks.split(",")) if args.tasks else None
    known = {t[0] for t in LOOKUP_TASKS} | {t[0] for t in DRAFT_TASKS}
    if wanted and not wanted <= known:
        p.error(f"--tasks: unknown {', '.join(sorted(wanted - known))}")
    dm = ["--draft-max", str(args.draft_max)] if args.draft_max else []
    pm = ["--draft-p-min", str(args.draft_p_min)] if args.draft_p_min is not None else []

    cases = []
    if args.model:
        for name, what, copy, sampling, prompt in LOOKUP_TASKS:
            if wanted and name not in wanted:
                continue
            cases.append({"part": "a", "name": name, "what": what, "model": args.model, "prompt": prompt,
                          "sampling": sampling, "kind": "copy" if copy else "free",
                          "variants": [{"label": "plain", "extra": []},
                                       {"label": "--spec lookup", "extra": ["--spec", "lookup"] + dm}]})
    if args.target:
        for name, what, prompt in DRAFT_TASKS:
            if wanted and name not in wanted:
                continue
            variants = [{"label": "plain", "extra": []},
                        {"label": f"--draft {os.path.basename(args.draft)}", "kind": "draft",
                         "extra": ["--draft", args.draft] + dm + pm}]
            if args.bad_draft:
                variants.append({"label": f"--draft {os.path.basename(args.bad_draft)}", "kind": "bad-draft",
                                 "extra": ["--draft", args.bad_draft] + dm + pm})
            cases.append({"part": "b", "name": name, "what": what, "model": args.target, "prompt": prompt,
                          "sampling": GREEDY, "variants": variants})
    if not cases:
        p.error("--tasks selected nothing")

    if args.dump_prompts:
        os.makedirs(args.dump_prompts, exist_ok=True)
        for c in cases:
            with open(os.path.join(args.dump_prompts, c["name"] + ".txt"), "w") as f:
                f.write(c["prompt"])

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    version = subprocess.run([args.trit, "--version"], capture_output=True, text=True).stdout.strip()
    meta = {"machine": machine(), "version": version, "load_start": os.getloadavg()[0],
            "files": {f: sha256_prefix(f) for f in (args.model, args.target, args.draft, args.bad_draft) if f},
            "commands": [], "modes": set()}
    rows, mismatches, raw_runs, alone = [], [], {}, []
    start = time.time()
    try:
        for c in cases:
            log(f"part ({c['part']}) {c['name']}: {c['what']}")
            r, mm, runs, ref = bench_case(c, args, log)
            rows += r
            mismatches += mm
            raw_runs[c["name"]] = runs
            meta["modes"].add(ref["mode"])
            for v in c["variants"]:
                cmd = command(args, c["model"], c["name"], c["sampling"], v["extra"])
                if cmd not in meta["commands"]:
                    meta["commands"].append(cmd)
        if args.target:
            first = next(c for c in cases if c["part"] == "b")
            log(f"part (b) each model alone on {first['name']}")
            for role, f in (("target", args.target), ("draft", args.draft), ("bad draft", args.bad_draft)):
                if f:
                    alone.append(bench_alone(role, f, first["prompt"], args, log))
    except BenchError as e:
        print(f"speculative.py: {e}", file=sys.stderr)
        sys.exit(1)
    meta["load_end"] = os.getloadavg()[0]
    meta["seconds"] = time.time() - start

    print_report(rows, alone, mismatches, meta, args)
    print(f"\n{len(rows)} comparisons in {meta['seconds']:.0f} s; "
          f"{len(mismatches)} text mismatches; targets missed: {sum(not meets(r) for r in rows)}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": meta["machine"], "trit": version, "args": vars(args), "rows": rows, "alone": alone,
                       "mismatches": mismatches, "runs": raw_runs, "load_start": meta["load_start"],
                       "load_end": meta["load_end"], "commands": meta["commands"], "files": meta["files"]},
                      f, indent=1)
    sys.exit(1 if mismatches else 0)


if __name__ == "__main__":
    main()
