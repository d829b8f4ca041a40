#!/usr/bin/env python3
"""Quantizes a GGUF with llama.cpp's own quantizer, through llama-cpp-python.

`llama_model_quantize` with `llama_model_quantize_default_params()` is what
the `llama-quantize` tool runs, so the file gets llama-quantize's per-tensor
type mix for the file type (for Q4_K_M, say, the LM head and some attn_v and
ffn_down tensors in higher-bit types than Q4_K), not trit's. No importance matrix:
llama.cpp then refuses only the IQ1/IQ2/IQ3_XXS types (and Q2_K_S), none of
those below. Writes OUT.tmp and renames it to OUT on success, so a killed run
leaves no half file under the final name.

    /tmp/lcpvenv/bin/python bench/llama_quantize.py IN.gguf OUT.gguf TYPE [--threads N]

TYPE is a llama-quantize file type name, any that llama_cpp exports as
LLAMA_FTYPE_MOSTLY_<TYPE in capitals> (q4_0, q4_K_S, ...); the benchmark set
uses q4_K_M q5_K_M q6_K q8_0 iq4_xs tq2_0 tq1_0.
"""
import argparse
import os
import pathlib
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("input", help="source GGUF (F16 or F32 weights)")
    ap.add_argument("output", help="quantized GGUF (written to OUTPUT.tmp, then renamed)")
    ap.add_argument("type", metavar="TYPE", help="llama-quantize's name of the file type: q4_K_M, iq4_xs, tq1_0, ...")
    ap.add_argument("--threads", type=int, default=0, help="quantizer threads (default 0: llama.cpp's, all cores)")
    args = ap.parse_args()
    try:
        import llama_cpp
    except ImportError:
        sys.exit(f"llama_quantize.py: llama-cpp-python is not installed in {sys.executable} "
                 "(python3 -m venv /tmp/lcpvenv && /tmp/lcpvenv/bin/pip install llama-cpp-python)")
    ftype_name = "LLAMA_FTYPE_MOSTLY_" + args.type.upper()
    ftype = getattr(llama_cpp, ftype_name, None)
    if ftype is None:
        known = sorted(n[len("LLAMA_FTYPE_MOSTLY_"):] for n in dir(llama_cpp) if n.startswith("LLAMA_FTYPE_MOSTLY_"))
        sys.exit(f"llama_quantize.py: llama-cpp-python {llama_cpp.__version__} has no {ftype_name}; "
                 f"it has {' '.join(known)}")
    src = pathlib.Path(args.input)
    if not src.is_file():
        sys.exit(f"llama_quantize.py: {src} not found")
    out = pathlib.Path(args.output)
    tmp = out.with_name(out.name + ".tmp")

    llama_cpp.llama_backend_init()  # as llama-quantize does first (llama_cpp.Llama does it on construction)
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = ftype
    params.nthread = args.threads
    rc = llama_cpp.llama_model_quantize(str(src).encode(), str(tmp).encode(), params)
    if rc != 0 or not tmp.is_file():
        tmp.unlink(missing_ok=True)
        sys.exit(f"llama_quantize.py: llama.cpp refused {src} -> {args.type} (llama_model_quantize returned {rc}; "
                 "its log above says why)")
    os.replace(tmp, out)
    print(f"llama_quantize.py: {out}: {args.type} by llama.cpp (llama-cpp-python {llama_cpp.__version__}), "
          f"{out.stat().st_size / 1e9:.2f} GB", file=sys.stderr)


if __name__ == "__main__":
    main()
