#!/usr/bin/env python3
"""Second reference: llama.cpp's embeddings of the same inputs on trit's GGUF.

Runs llama-cpp-python (llama.cpp's Python binding) on GGUF, the f32 file that
`trit convert MODEL_DIR GGUF --type f32` writes for all-MiniLM-L6-v2, and
embeds each input of reference_vectors.json (the list in make_reference.py)
one at a time with Llama.embed(text, normalize=False): the pooled vector as
llama.cpp computes it (pooling type from the GGUF, mean for this model), not
scaled to unit length. Writes llama_cpp_vectors.json next to this script (or
to OUT), with the token ids llama.cpp used (Llama.tokenize(text, add_bos=True,
special=False), what embed() feeds). One thread, so the run is reproducible.

  python make_llama_cpp_vectors.py GGUF [OUT]
"""
import hashlib
import json
import os
import shlex
import sys

import numpy as np

import llama_cpp
from llama_cpp import Llama

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_reference import INPUTS, f32_list, write_json  # noqa: E402


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def ggml_commit():
    # ggml-base exports its build's commit; the binding does not wrap it.
    import ctypes
    import glob
    libs = glob.glob(os.path.join(os.path.dirname(llama_cpp.__file__), "lib", "libggml-base.so"))
    if not libs:
        return None
    lib = ctypes.CDLL(libs[0])
    out = []
    for name in ("ggml_version", "ggml_commit"):
        fn = getattr(lib, name, None)
        if fn is None:
            return None
        fn.restype = ctypes.c_char_p
        out.append(fn().decode())
    return "ggml %s, commit %s" % tuple(out)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    gguf = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) == 3 else os.path.join(HERE, "llama_cpp_vectors.json")

    llm = Llama(model_path=gguf, embedding=True, n_ctx=512, n_batch=512, n_ubatch=512,
                n_threads=1, n_threads_batch=1, verbose=False)
    pooling = {llama_cpp.LLAMA_POOLING_TYPE_NONE: "none", llama_cpp.LLAMA_POOLING_TYPE_MEAN: "mean",
               llama_cpp.LLAMA_POOLING_TYPE_CLS: "cls", llama_cpp.LLAMA_POOLING_TYPE_LAST: "last",
               }.get(llm.pooling_type(), str(llm.pooling_type()))

    token_ids, vectors, errors = [], [], []
    for text in INPUTS:
        ids = llm.tokenize(text.encode("utf-8"), add_bos=True, special=False)
        token_ids.append(list(ids))
        try:
            v = np.asarray(llm.embed(text, normalize=False, truncate=False), dtype=np.float32)
            vectors.append(f32_list(v))
            errors.append(None)
            print("%4d tokens  |v|=%.6f  %r" % (len(ids), np.linalg.norm(v), text[:40]),
                  file=sys.stderr)
        except Exception as e:  # record, do not hide, what llama.cpp refuses
            vectors.append(None)
            errors.append("%s: %s" % (type(e).__name__, e))
            print("%4d tokens  ERROR %s  %r" % (len(ids), errors[-1], text[:40]), file=sys.stderr)

    commit = ggml_commit()
    doc = {
        "gguf_sha256": sha256(gguf),
        "gguf_command": "trit convert all-minilm-l6-v2 OUT --type f32 (the folder named so: general.name comes from it)",
        "generator": "llama-cpp-python %s (llama.cpp %s)" % (
            llama_cpp.__version__, commit if commit else "commit unknown"),
        "command": "python " + " ".join(shlex.quote(a) for a in
                                        ["tests/data/minilm/make_llama_cpp_vectors.py"] + sys.argv[1:]),
        "api": "Llama(model_path, embedding=True, n_ctx=512, n_batch=512, n_ubatch=512, "
               "n_threads=1, n_threads_batch=1).embed(text, normalize=False, truncate=False), "
               "one input per call",
        "pooling": pooling,
        "normalized": False,
        "dimension": llm.n_embd(),
        "inputs": INPUTS,
        "token_ids": token_ids,
        "vectors": vectors,
    }
    if any(errors):
        doc["errors"] = errors
    write_json(doc, out)
    print("wrote %s" % out, file=sys.stderr)


if __name__ == "__main__":
    main()
