"""Load benchmark of `trit serve`: 1, 4 and 8 concurrent streaming clients
(the official openai client, asyncio), each sending requests one after the
other. Reports total generated tokens/s over all streams and p50/p99 time to
first token. Results go in docs/PERFORMANCE.md.

Each level runs at every temperature of --temperatures (default 0 and 0.8,
OpenAI's other defaults: top_p 1, no top-k): at 0 a token is an argmax, at
0.8 it is a draw over the whole vocabulary, which on a 262K-token vocabulary
is where a sampler that sorts loses to one that does not.

The model is either a real file (--model, e.g. Gemma 3 270M Q4_K_M) or one
written here by tests/server/make_chat_model (a llama with the llama
SentencePiece vocabulary, the zephyr chat template and random weights;
--dims "n_embd n_layer n_ff type"), big enough that a decode step is
dominated by reading the weights, which one batched step shares among all
active streams.

  .venv/bin/python bench/serve_load.py --trit build/trit \
      --make-model build/tests/server/make_chat_model --threads 2
  .venv/bin/python bench/serve_load.py --trit build/trit --model gemma-3-270m-q4_k_m.gguf --max-tokens 64

--prompt-file sends that text as every request's message instead (a
copy-heavy task, say), and --serve-args passes flags to trit serve
(--serve-args "--spec lookup" measures speculative decoding in the slots).
"""
import argparse
import asyncio
import os
import shlex
import statistics
import sys
import tempfile
import time

import openai

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "python"))
from trit_server import TritServer, make_model  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


async def one_stream(client, model_id, worker, n_requests, max_tokens, temperature, ttfts, prompt):
    tokens = 0
    for i in range(n_requests):
        start = time.perf_counter()
        first = None
        stream = await client.chat.completions.create(
            model=model_id,
            messages=[{"role": "user", "content": prompt or f"Client {worker} request {i}: tell me a story."}],
            max_tokens=max_tokens, seed=worker * 1000 + i, temperature=temperature, stream=True,
            stream_options={"include_usage": True}, extra_body={"ignore_eos": True})
        async for chunk in stream:
            if first is None and chunk.choices and chunk.choices[0].delta.content:
                first = time.perf_counter()
            if chunk.usage is not None:
                tokens += chunk.usage.completion_tokens
        ttfts.append((first or time.perf_counter()) - start)
    return tokens


async def run_level(url, concurrency, n_requests, max_tokens, temperature, prompt):
    client = openai.AsyncOpenAI(base_url=url + "/v1", api_key="none", max_retries=0, timeout=600)
    ttfts = []
    model_id = (await client.models.list()).data[0].id  # the name the server gives its model
    start = time.perf_counter()
    totals = await asyncio.gather(
        *[one_stream(client, model_id, w, n_requests, max_tokens, temperature, ttfts, prompt)
          for w in range(concurrency)])
    wall = time.perf_counter() - start
    await client.close()
    ttfts.sort()
    p99 = ttfts[min(len(ttfts) - 1, int(round(0.99 * (len(ttfts) - 1))))]
    return sum(totals), wall, statistics.median(ttfts), p99


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--trit", required=True)
    p.add_argument("--make-model", help="tests/server/make_chat_model, to write a random-weight model")
    p.add_argument("--model", help="an existing GGUF chat model to serve instead of a generated one")
    p.add_argument("--temperatures", default="0,0.8")
    p.add_argument("--vocab", default=os.path.join(ROOT, "tests/data/vocab/ggml-vocab-llama-spm.gguf"))
    p.add_argument("--template", default=os.path.join(ROOT, "tests/data/chat_templates/HuggingFaceH4-zephyr-7b-beta.jinja"))
    p.add_argument("--dims", default="1024 16 2816 q8_0", help="n_embd n_layer n_ff type of the generated model")
    p.add_argument("--threads", default="2")
    p.add_argument("--levels", default="1,4,8")
    p.add_argument("--requests", type=int, default=2, help="requests per client, one after the other")
    p.add_argument("--max-tokens", type=int, default=32)
    p.add_argument("--prompt-file", help="every request's message: this file's text (default: a story request)")
    p.add_argument("--serve-args", default="", help="more flags for trit serve, e.g. \"--spec lookup\"")
    a = p.parse_args()
    prompt = None
    if a.prompt_file:
        with open(a.prompt_file, encoding="utf-8") as f:
            prompt = f.read()
    if not a.model and not a.make_model:
        p.error("give --model FILE or --make-model PROGRAM")
    with tempfile.TemporaryDirectory() as tmp:
        if a.model:
            model = a.model
            what = os.path.basename(model)
        else:
            model = make_model(a.make_model, a.vocab, a.template, os.path.join(tmp, "bench.gguf"), a.dims.split())
            what = f"generated llama, dims {a.dims}"
        size_mb = os.path.getsize(model) / 1e6
        levels = [int(x) for x in a.levels.split(",")]
        server = TritServer(a.trit, model, "--parallel", str(max(levels)), "--ctx", "512", "--threads", a.threads,
                            *shlex.split(a.serve_args))
        try:
            server.wait_healthy()
            print(f"model: {what}, {size_mb:.0f} MB; --threads {a.threads} {a.serve_args}; "
                  f"{a.requests} requests x {a.max_tokens} tokens per client"
                  + (f"; prompt {os.path.basename(a.prompt_file)}" if a.prompt_file else ""))
            print("| temperature | streams | generated tokens | wall s | total tok/s | p50 TTFT s | p99 TTFT s |")
            print("|---|---|---|---|---|---|---|")
            for temperature in [float(t) for t in a.temperatures.split(",")]:
                base = None
                for c in levels:
                    tokens, wall, p50, p99 = asyncio.run(
                        run_level(server.url, c, a.requests, a.max_tokens, temperature, prompt))
                    rate = tokens / wall
                    base = base or rate
                    print(f"| {temperature:g} | {c} | {tokens} | {wall:.2f} | {rate:.1f} ({rate / base:.2f}x) "
                          f"| {p50:.3f} | {p99:.3f} |", flush=True)
        finally:
            server.stop()


if __name__ == "__main__":
    main()
