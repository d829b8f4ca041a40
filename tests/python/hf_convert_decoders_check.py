"""Compares `trit convert` with llama.cpp's convert_hf_to_gguf.py on the tiny
decoder checkpoints of tests/data/hf/ (llama, qwen2, qwen3, gemma3): the same
tensor names, shapes, types and bytes, and the same metadata keys and values
(general.* provenance keys aside: name and size_label depend on the directory
and the converter's version). Needs torch, transformers, sentencepiece and a
llama.cpp source tree (its gguf-py is put on sys.path).

  python tests/python/hf_convert_decoders_check.py TRIT LLAMA_CPP_DIR [DATA_DIR]

The tiny byte-level BPE vocabularies are not among those llama.cpp names by
the hash of a tokenization, so its get_vocab_base_pre is made to answer
"qwen2" (the pre-tokenizer whose regex they use); everything else is the
converter as shipped. Exit status 1 on any difference.
"""
import os
import subprocess
import sys
import tempfile

ARCHS = ["llama", "qwen2", "qwen3", "gemma3"]
SKIP_KEYS = {"general.name", "general.size_label", "GGUF.kv_count", "GGUF.tensor_count", "GGUF.version"}

CONVERT = """
import sys
sys.path.insert(0, {gguf!r}); sys.path.insert(0, {root!r})
import conversion.base as base
base.TextModel.get_vocab_base_pre = lambda self, tokenizer: "qwen2"
import convert_hf_to_gguf
convert_hf_to_gguf.main()
"""


def read(path, gguf):
    reader = gguf.GGUFReader(path)
    meta = {}
    for field in reader.fields.values():
        if field.name in SKIP_KEYS:
            continue
        meta[field.name] = field.contents()
    tensors = {t.name: (list(map(int, t.shape)), t.tensor_type.name, bytes(t.data.tobytes())) for t in reader.tensors}
    return meta, tensors


def main():
    trit, llama_cpp = sys.argv[1], sys.argv[2]
    data = sys.argv[3] if len(sys.argv) > 3 else os.path.join(os.path.dirname(__file__), "..", "data", "hf")
    sys.path.insert(0, os.path.join(llama_cpp, "gguf-py"))
    import gguf
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "convert.py")
        with open(script, "w") as f:
            f.write(CONVERT.format(gguf=os.path.join(llama_cpp, "gguf-py"), root=llama_cpp))
        for arch in ARCHS:
            src = os.path.join(data, arch)
            for out_type in ["f32", "f16"]:
                ref, ours = os.path.join(tmp, f"{arch}-ref.gguf"), os.path.join(tmp, f"{arch}-trit.gguf")
                subprocess.run([sys.executable, script, src, "--outfile", ref, "--outtype", out_type], check=True,
                               capture_output=True)
                subprocess.run([trit, "convert", src, ours, "--type", out_type], check=True, capture_output=True)
                ref_meta, ref_tensors = read(ref, gguf)
                meta, tensors = read(ours, gguf)
                problems = []
                for key in sorted(set(ref_meta) | set(meta)):
                    if key not in meta:
                        problems.append(f"key {key} missing (llama.cpp: {ref_meta[key]!r:.80})")
                    elif key not in ref_meta:
                        problems.append(f"key {key} extra ({meta[key]!r:.80})")
                    elif meta[key] != ref_meta[key]:
                        problems.append(f"key {key}: {meta[key]!r:.80} vs llama.cpp {ref_meta[key]!r:.80}")
                for name in sorted(set(ref_tensors) | set(tensors)):
                    if name not in tensors:
                        problems.append(f"tensor {name} missing")
                    elif name not in ref_tensors:
                        problems.append(f"tensor {name} extra")
                    elif tensors[name][:2] != ref_tensors[name][:2]:
                        problems.append(f"tensor {name}: {tensors[name][:2]} vs llama.cpp {ref_tensors[name][:2]}")
                    elif tensors[name][2] != ref_tensors[name][2]:
                        problems.append(f"tensor {name}: bytes differ")
                status = "same" if not problems else f"{len(problems)} differences"
                print(f"{arch} {out_type}: {len(ref_tensors)} tensors, {len(ref_meta)} keys compared: {status}")
                for p in problems:
                    print("   ", p)
                failures += len(problems)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
