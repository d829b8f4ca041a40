"""Writes tests/data/hf/<arch>/expected_f16.json from the GGUF file that
llama.cpp's convert_hf_to_gguf.py wrote for that checkpoint with --outtype
f16: every tensor (name, GGUF shape, type, sha256 of its bytes) and every
metadata key but general.name / general.size_label (provenance); the values
of the few tensors computed with torch's exp (ssm_a).
  python make_expected.py LLAMA_CPP_DIR ARCH REF.gguf
  python make_expected.py LLAMA_CPP_DIR REF.gguf OUT.json
"""
import hashlib
import json
import os
import sys

sys.path.insert(0, os.path.join(sys.argv[1], "gguf-py"))
import gguf  # noqa: E402

if sys.argv[2].endswith(".gguf"):  # the second form: REF.gguf OUT.json
    path, out = sys.argv[2], sys.argv[3]
else:
    path = sys.argv[3]
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), sys.argv[2], "expected_f16.json")
reader = gguf.GGUFReader(path)
meta = {}
for field in reader.fields.values():
    if field.name.startswith("GGUF.") or field.name in ("general.name", "general.size_label"):
        continue
    meta[field.name] = field.contents()
tensors = {t.name: {"shape": [int(x) for x in t.shape], "type": t.tensor_type.name,
                    "sha256": hashlib.sha256(t.data.tobytes()).hexdigest()} for t in reader.tensors}
# Qwen3.5's ssm_a is -exp(A_log) by torch, whose float exp (SLEEF, 1 ulp) is
# not always correctly rounded: its values are kept so a test can allow 1 ulp.
for t in reader.tensors:
    if t.name.endswith(".ssm_a"):
        tensors[t.name]["values"] = [float(x) for x in t.data.tolist()]
with open(out, "w") as f:
    json.dump({"metadata": meta, "tensors": tensors}, f, indent=1, sort_keys=True)
