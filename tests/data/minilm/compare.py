#!/usr/bin/env python3
"""Compares two vector files of this folder input by input.

Both files' vectors are scaled to unit length first (the way the model's
Normalize module does), then prints, for each input, the cosine similarity,
the largest absolute difference of the unit vectors, the largest absolute
difference of the raw (un-normalized, mean-pooled) vectors when both files
have them, and whether the token ids agree. Needs numpy only.

  python compare.py [REFERENCE_JSON [OTHER_JSON]]

Defaults: reference_vectors.json and llama_cpp_vectors.json next to this
script. The raw vectors of a file are its "vectors_unnormalized", or its
"vectors" when "normalized" is false.
"""
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def raw(doc):
    if "vectors_unnormalized" in doc:
        return doc["vectors_unnormalized"]
    return None if doc.get("normalized") else doc["vectors"]


def main():
    a_path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "reference_vectors.json")
    b_path = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "llama_cpp_vectors.json")
    a, b = json.load(open(a_path, encoding="utf-8")), json.load(open(b_path, encoding="utf-8"))
    if a["inputs"] != b["inputs"]:
        sys.exit("the two files hold different inputs")
    ra, rb = raw(a), raw(b)
    print("%-3s %-12s %-11s %-11s %-11s %-6s %s" % ("#", "cos", "maxabs unit", "maxabs raw",
                                                    "rel |raw|", "tokens", "input"))
    worst_cos, worst_unit, tok_ok = 1.0, 0.0, True
    for i, text in enumerate(a["inputs"]):
        va, vb = a["vectors"][i], b["vectors"][i]
        same_tok = a["token_ids"][i] == b["token_ids"][i]
        tok_ok &= same_tok
        if va is None or vb is None:
            print("%-3d %-12s %-11s %-11s %-11s %-6s %r" % (i, "-", "-", "-", "-", same_tok, text[:30]))
            continue
        va, vb = np.asarray(va, np.float64), np.asarray(vb, np.float64)
        ua, ub = va / np.linalg.norm(va), vb / np.linalg.norm(vb)
        cos = float(ua @ ub)
        unit = float(np.abs(ua - ub).max())
        worst_cos, worst_unit = min(worst_cos, cos), max(worst_unit, unit)
        if ra is not None and rb is not None:
            xa, xb = np.asarray(ra[i], np.float64), np.asarray(rb[i], np.float64)
            raw_s = "%.3e" % np.abs(xa - xb).max()
            rel_s = "%.3e" % (abs(np.linalg.norm(xa) - np.linalg.norm(xb)) / np.linalg.norm(xa))
        else:
            raw_s = rel_s = "-"
        print("%-3d %-12.9f %-11.3e %-11s %-11s %-6s %r" % (i, cos, unit, raw_s, rel_s, same_tok,
                                                          text[:30]))
    print("worst cos %.9f, worst max abs (unit vectors) %.3e, token ids %s" % (
        worst_cos, worst_unit, "all agree" if tok_ok else "DIFFER"))


if __name__ == "__main__":
    main()
