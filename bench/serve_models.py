"""What serving several models costs: a request for a model that must be
loaded first (its load, and the unloading of another, included) against one
for a model already in memory.

The given GGUF files are pulled into a temporary model store and served by
`trit serve` without MODEL. With --max-models 1, requests alternate between
two models, so every switch loads one (cold); a second request to the same
model right after is warm. With --max-models 2 both stay resident and every
request is warm. Each request is a completion of --max-tokens tokens (1:
time to the answer is time to first token). Results go in docs/PERFORMANCE.md.

  .venv/bin/python bench/serve_models.py --trit build/trit gemma-3-270m-q4_k_m.gguf models/stories260K.gguf
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "python"))
from trit_server import TritServer  # noqa: E402

PROMPT = "Once upon a time, in a small harbour town,"


def complete(url, model, max_tokens):
    body = ('{"model": "%s", "prompt": "%s", "max_tokens": %d, "temperature": 0}' % (model, PROMPT, max_tokens))
    req = urllib.request.Request(url + "/v1/completions", data=body.encode(),
                                 headers={"Content-Type": "application/json"})
    start = time.perf_counter()
    with urllib.request.urlopen(req, timeout=600) as r:
        r.read()
    return time.perf_counter() - start


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--trit", required=True)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--max-tokens", type=int, default=1)
    p.add_argument("--threads", default="2")
    p.add_argument("models", nargs=2, help="two GGUF files")
    args = p.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, TRIT_HOME=tmp)
        names = []
        for i, path in enumerate(args.models):
            name = f"m{i}-" + os.path.basename(path).removesuffix(".gguf").lower()
            subprocess.run([args.trit, "pull", path, "--name", name], env=env, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            names.append(name)
        times = {(n, kind): [] for n in names for kind in ("cold", "warm", "resident")}
        for max_models, kinds in (("1", ("cold", "warm")), ("2", ("resident", "resident"))):
            server = TritServer(args.trit, None, "--max-models", max_models, "--threads", args.threads, env=env)
            try:
                server.wait_healthy()
                for n in names:  # both loaded once before timing
                    complete(server.url, n, args.max_tokens)
                for _ in range(args.rounds):
                    for n in names:
                        for kind in kinds:
                            times[(n, kind)].append(complete(server.url, n, args.max_tokens))
            finally:
                server.stop()
        print("| model | file | cold: loaded first (ms) | warm (ms) | both resident (ms) |")
        print("|---|---:|---:|---:|---:|")
        for n, path in zip(names, args.models):
            med = {k: statistics.median(times[(n, k)]) * 1000 for k in ("cold", "warm", "resident")}
            size = os.path.getsize(path) / 2**20
            print(f"| {n} | {size:.1f} MiB | {med['cold']:.1f} | {med['warm']:.1f} | {med['resident']:.1f} |")
        print(f"\nmedians of {args.rounds} rounds, {args.max_tokens}-token completions, --threads {args.threads}")


if __name__ == "__main__":
    main()
