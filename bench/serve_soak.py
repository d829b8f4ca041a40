"""A long soak of `trit serve`: 8 clients send a mix of plain, streamed,
abandoned, n = 2, JSON-mode and failing requests (tests/python/soak.py) for
--seconds (default 600) after a 30-second warm-up; the server's RSS and open
file descriptors are read, with no request running, after the warm-up and at
the end. Every reply is checked for the status its kind must get. The
60-second version is a test (tests/python/server_soak_test.py); this one's
figures go in docs/PERFORMANCE.md.

  .venv/bin/python bench/serve_soak.py --trit build/trit --model gemma-3-270m-q4_k_m.gguf
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "python"))
from soak import soak  # noqa: E402
from trit_server import TritServer  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--trit", required=True)
    p.add_argument("--model", required=True, help="a GGUF file")
    p.add_argument("--seconds", type=int, default=600)
    p.add_argument("--warmup", type=int, default=30)
    p.add_argument("--clients", type=int, default=8)
    p.add_argument("--threads", default="2")
    p.add_argument("--parallel", default="4")
    p.add_argument("--ctx", default="1024")
    args = p.parse_args()
    server = TritServer(args.trit, args.model, "--parallel", args.parallel, "--ctx", args.ctx,
                        "--threads", args.threads)
    try:
        server.wait_healthy()
        model = os.path.basename(args.model).removesuffix(".gguf")
        r = soak(server, seconds=args.seconds, clients=args.clients, warmup=args.warmup, model=model)
    finally:
        code = server.stop()
    total = sum(r["counts"].values())
    print("| requests | per second | failures | RSS after warm-up | RSS at end | growth | descriptors |")
    print("|---:|---:|---:|---:|---:|---:|---|")
    print(f"| {total} | {total / r['seconds']:.1f} | {len(r['failures'])} | {r['rss_start_kib'] / 1024:.1f} MiB | "
          f"{r['rss_end_kib'] / 1024:.1f} MiB | {100 * r['rss_growth']:+.2f}% | {r['fds_start']} -> {r['fds_end']} |")
    print("\nby kind: " + ", ".join(f"{k} {n}" for k, n in sorted(r["counts"].items())))
    for why in r["failures"][:10]:
        print("failure:", why)
    print(f"server exit status {code}; {args.clients} clients, {r['seconds']:.0f} s after a {args.warmup} s warm-up")
    sys.exit(0 if not r["failures"] and code == 0 else 1)


if __name__ == "__main__":
    main()
