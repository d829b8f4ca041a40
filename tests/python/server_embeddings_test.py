"""`trit serve` with a real embedding model (all-MiniLM-L6-v2, converted by
`trit convert` at test time) through the official OpenAI Python client:

- vectors match sentence-transformers' (tests/data/minilm/reference_vectors.json)
  within cosine 0.99999 and max abs 1e-4, as floats and as base64;
- every input's vector is the same bits whether sent alone, in a request
  of up to 64 inputs of other lengths, or in concurrent requests batched
  together, and equal to `trit embed --output`'s vectors (CLI and server);
- token arrays, usage counts, `dimensions`, and errors named by parameter.
"""
import argparse
import base64
import concurrent.futures
import json
import os
import random
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

import numpy as np
import openai

from trit_server import TritServer

HERE = os.path.dirname(os.path.abspath(__file__))
REFERENCE = os.path.join(HERE, "..", "data", "minilm", "reference_vectors.json")


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def vectors_from_base64(response):
    """The raw float32 bits of each item of a base64 response, in index order."""
    items = sorted(response["data"], key=lambda d: d["index"])
    return [np.frombuffer(base64.b64decode(d["embedding"]), dtype="<f4") for d in items]


def post(url, body):
    req = urllib.request.Request(url + "/v1/embeddings", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def expect_close(got, want, what, min_cos=0.99999, max_abs=1e-4):
    for i, (g, w) in enumerate(zip(got, want)):
        g = np.asarray(g, dtype=np.float64)
        w = np.asarray(w, dtype=np.float64)
        cos = float(g @ w / (np.linalg.norm(g) * np.linalg.norm(w)))
        diff = float(np.max(np.abs(g - w)))
        check(cos >= min_cos and diff <= max_abs, f"{what} input {i}: cosine {cos:.9f}, max abs {diff:.3g}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trit", required=True)
    ap.add_argument("--minilm", required=True, help="the Hugging Face checkpoint folder")
    args = ap.parse_args()
    ref = json.load(open(REFERENCE))
    inputs = ref["inputs"]
    with tempfile.TemporaryDirectory() as tmp:
        gguf = os.path.join(tmp, "minilm.gguf")
        subprocess.run([args.trit, "convert", args.minilm, gguf, "--type", "f32", "-q"], check=True,
                       stdout=subprocess.DEVNULL)
        # The CLI's vectors of every input, for the CLI-versus-server check.
        npy = os.path.join(tmp, "cli.npy")
        subprocess.run([args.trit, "embed", gguf, "--normalize", "-q", "--output", npy, "--threads", "1", *inputs],
                       check=True, stderr=subprocess.DEVNULL)
        cli = np.load(npy)
        server = TritServer(args.trit, gguf, "--threads", "2")
        try:
            server.wait_healthy()
            client = openai.OpenAI(base_url=server.url + "/v1", api_key="unused")

            # 1. The client's default (base64, decoded by the client) and floats.
            r = client.embeddings.create(model="minilm", input=inputs)
            check(r.model == "minilm" and len(r.data) == len(inputs), f"response shape: {r.model}, {len(r.data)}")
            expect_close([d.embedding for d in r.data], ref["vectors"], "base64 via the client")
            n_tokens = sum(len(t) for t in ref["token_ids"])
            check(r.usage.prompt_tokens == n_tokens and r.usage.total_tokens == n_tokens,
                  f"usage {r.usage} for {n_tokens} tokens")
            r = client.embeddings.create(model="minilm", input=inputs, encoding_format="float")
            expect_close([d.embedding for d in r.data], ref["vectors"], "floats")
            check([d.index for d in r.data] == list(range(len(inputs))), "indexes in order")

            # 2. The same bits: alone, in batches, concurrently, and as the CLI computes them.
            def raw(batch):
                status, body = post(server.url, {"model": "minilm", "input": batch, "encoding_format": "base64"})
                check(status == 200, f"status {status}: {body}")
                return vectors_from_base64(body)

            alone = [raw(text)[0] for text in inputs]
            for i, v in enumerate(alone):
                check(np.array_equal(v.view(np.uint32), cli[i].view(np.uint32)),
                      f"input {i}: the server's vector differs from trit embed's")
            rng = random.Random(5)
            for size in (1, 3, 17, 64):
                picks = [rng.randrange(len(inputs)) for _ in range(size)]
                got = raw([inputs[p] for p in picks])
                for row, p in enumerate(picks):
                    check(np.array_equal(got[row].view(np.uint32), alone[p].view(np.uint32)),
                          f"batch of {size}, row {row} (input {p}) is not the bits of the input alone")
            with concurrent.futures.ThreadPoolExecutor(8) as pool:
                jobs = [pool.submit(raw, [inputs[(k + j) % len(inputs)] for j in range(1 + k % 5)]) for k in range(24)]
                for k, job in enumerate(jobs):
                    for j, v in enumerate(job.result()):
                        p = (k + j) % len(inputs)
                        check(np.array_equal(v.view(np.uint32), alone[p].view(np.uint32)),
                              f"concurrent request {k}, item {j} (input {p}) differs from the input alone")

            # 3. Token arrays give the vectors of the texts they tokenize.
            got = raw(ref["token_ids"][:3])
            for i in range(3):
                check(np.array_equal(got[i].view(np.uint32), alone[i].view(np.uint32)), f"token array {i}")
            got = raw(ref["token_ids"][0])  # one token array
            check(len(got) == 1 and np.array_equal(got[0].view(np.uint32), alone[0].view(np.uint32)), "token ids")
            status, body = post(server.url, {"input": ["Hello world"], "normalize": False})
            check(status == 200, f"normalize false: {status} {body}")
            expect_close([body["data"][0]["embedding"]], [ref["vectors_unnormalized"][0]], "normalize false")

            # 4. Errors name what is wrong.
            cases = [
                ({"input": "x", "dimensions": 100}, 400, "dimensions", "does not shorten them"),
                ({"input": "x", "dimensions": 1000}, 400, "dimensions", "gives 384-dimension vectors"),
                ({"input": " ".join(["word"] * 600)}, 400, "input", "602 tokens, the model takes at most 512"),
                ({"input": [[101, 40000]]}, 400, "input", "token 40000 at index 1 is out of range"),
                ({"input": []}, 400, "input", "empty array"),
                ({"input": ["a", 1]}, 400, "input", "all items must be strings"),
                ({"input": "a", "encoding_format": "hex"}, 400, "encoding_format", "expected \"float\" or \"base64\""),
                ({"input": "a", "temperature": 1}, 400, "temperature", "unrecognized request argument"),
                ({"model": "gpt-4o"}, 400, "input", "'input' is required"),
                ({"input": "a", "model": "nope"}, 404, "model", "does not exist"),
            ]
            for body, status, param, text in cases:
                got_status, got = post(server.url, body)
                err = got.get("error", {})
                check(got_status == status and err.get("param") == param and text in err.get("message", ""),
                      f"{body}: {got_status} {got}")
            try:
                client.chat.completions.create(model="minilm", messages=[{"role": "user", "content": "hi"}])
                check(False, "a chat request to an embedding model succeeded")
            except openai.BadRequestError as e:
                check("is an embedding model" in str(e), str(e))
        finally:
            server.stop()

        # 5. --truncatable-embeddings: the first values, at unit length again.
        server = TritServer(args.trit, gguf, "--truncatable-embeddings")
        try:
            server.wait_healthy()
            status, body = post(server.url, {"input": inputs[0], "dimensions": 64})
            check(status == 200, f"dimensions 64: {status} {body}")
            v = np.asarray(body["data"][0]["embedding"])
            want = np.asarray(ref["vectors"][0][:64])
            want = want / np.linalg.norm(want)
            check(v.shape == (64,) and float(np.max(np.abs(v - want))) < 1e-4, "truncated vector")
        finally:
            server.stop()
    print("server embeddings: OK")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
