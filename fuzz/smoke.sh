#!/usr/bin/env bash
# Builds the fuzz targets into build-fuzz and runs each for N seconds
# (default 10). The GGUF reader runs over the seed corpus: the bundled model and llama.cpp's vocab
# GGUFs from the shared data, plus small valid copies of them written by
# make_gguf_seeds (all in a temporary directory; nothing is written into the
# repository except the build directory). Inputs are capped at FUZZ_MAX_LEN
# bytes (default 65536): the big seeds then serve as truncated files, the
# small ones as complete files, and the fuzzer runs thousands of inputs a second.
#
# The ELF, PE and Mach-O readers run over the binaries the binfmt tests are
# built from (tests/formats/binfmt/make_fixtures.sh, into the temporary
# directory) and, for Mach-O, the ANE .hwx files of the shared data. The ANE
# readers of `trit hwx` (hwx_reader_fuzz) run over the .hwx and .ane files of
# the shared data and tests/data/ane.
#
# The tokenizer target runs over the tokenizer test inputs (tests/data/vocab/*.inp),
# the chat template target over the real templates in tests/data/chat_templates.
#
#   fuzz/smoke.sh [SECONDS]
#
# Exits non-zero, naming the crashing input (kept under build-fuzz/fuzz-artifacts/),
# when the fuzzer finds a crash, a leak, a timeout or an out-of-memory.
set -euo pipefail

seconds="${1:-10}"
repo="$(cd "$(dirname "$0")/.." && pwd)"
build="$repo/build-fuzz"
shared="${TRIT_SHARED_DATA:-$repo/../shared/data}"

if [[ ! -f "$build/build.ninja" ]]; then
  CC=clang CXX=clang++ cmake -S "$repo" -B "$build" -G Ninja -DTRIT_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
cmake --build "$build" -j2 --target gguf_reader_fuzz make_gguf_seeds tokenizer_fuzz chat_template_fuzz \
  elf_reader_fuzz pe_reader_fuzz macho_reader_fuzz hwx_reader_fuzz store_text_fuzz \
  openai_request_fuzz logits_file_fuzz importance_matrix_fuzz

work="$(mktemp -d "${TMPDIR:-/tmp}/trit-fuzz.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$work/seeds" "$build/fuzz-artifacts"
cp "$repo/models/stories260K.gguf" "$work/seeds/"
if compgen -G "$shared/vocab/llama.cpp/*.gguf" > /dev/null; then
  cp "$shared"/vocab/llama.cpp/*.gguf "$work/seeds/"
else
  echo "fuzz-smoke: no vocab GGUFs under $shared/vocab/llama.cpp; seeding with the bundled model only" >&2
fi

"$build/fuzz/make_gguf_seeds" "$work/seeds" "$work"/seeds/*.gguf

# run_fuzzer TARGET CORPUS... : new inputs go to the first directory (scratch);
# the others are only read.
run_fuzzer() {
  local target="$1"; shift
  local status=0
  "$build/fuzz/$target" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="${FUZZ_MAX_LEN:-65536}" -print_final_stats=1 \
    -artifact_prefix="$build/fuzz-artifacts/" \
    "$@" 2>&1 | tail -n 40 || status=$?
  if [[ $status -ne 0 ]]; then
    echo "fuzz-smoke: $target FAILED (exit $status): the fuzzer found a bug; reproduce with" >&2
    echo "  $build/fuzz/$target <input>   (inputs kept in $build/fuzz-artifacts/)" >&2
    ls -1t "$build/fuzz-artifacts/" >&2 || true
    exit 1
  fi
  echo "fuzz-smoke: $target ok (${seconds}s, no crash)"
}

run_fuzzer gguf_reader_fuzz "$work/corpus" "$work/seeds"

# Tokenizer seeds: each test input of tests/data/vocab, with a selector byte
# in front (which vocabulary, add_special, parse_special).
mkdir -p "$work/tok-corpus" "$work/tok-seeds"
python3 - "$repo/tests/data/vocab/ggml-vocab-llama-spm.gguf.inp" "$work/tok-seeds" <<'PY'
import sys
cases = open(sys.argv[1], "rb").read().split(b"\n__ggml_vocab_test__\n")[:-1]
for i, text in enumerate(cases):
    for sel in (i % 9, 0x80 | (i % 9), 0x40 | ((i + 4) % 9)):
        open(f"{sys.argv[2]}/case{i}-{sel:02x}", "wb").write(bytes([sel]) + text)
PY
run_fuzzer tokenizer_fuzz "$work/tok-corpus" "$work/tok-seeds"

mkdir -p "$work/chat-corpus"
run_fuzzer chat_template_fuzz "$work/chat-corpus" "$repo/tests/data/chat_templates"

# trit serve's request bodies: seeds are a few requests of each endpoint.
mkdir -p "$work/request-seeds" "$work/request-corpus"
printf '%s' '{"model":"m","messages":[{"role":"system","content":"s"},{"role":"user","content":[{"type":"text","text":"hi"}]}],"temperature":0.5,"top_p":0.9,"max_tokens":8,"stop":["x","y"],"seed":1,"stream":true,"stream_options":{"include_usage":true},"logprobs":true,"top_logprobs":2}' > "$work/request-seeds/chat.json"
printf '%s' '{"prompt":[1,2,3],"max_completion_tokens":4,"logprobs":2,"presence_penalty":-1.5,"frequency_penalty":2,"n":1}' > "$work/request-seeds/completion.json"
printf '%s' '{"prompt":"text","stop":"\\n","top_k":40,"ignore_eos":true}' > "$work/request-seeds/prompt.json"
run_fuzzer openai_request_fuzz "$work/request-corpus" "$work/request-seeds"

# llama.cpp's KL-divergence base files: two valid ones (n_ctx 4 and 6, odd and even vocabularies).
mkdir -p "$work/logits-seeds" "$work/logits-corpus"
python3 - "$work/logits-seeds" <<'PY'
import struct, sys
for n_ctx, n_vocab, n_chunk in ((4, 3, 2), (6, 4, 1)):
    rows = n_ctx - 1 - n_ctx // 2
    words = 2 * ((n_vocab + 1) // 2) + 4
    body = b"_logits_" + struct.pack("<3i", n_ctx, n_vocab, n_chunk)
    body += struct.pack(f"<{n_chunk * n_ctx}i", *[i % n_vocab for i in range(n_chunk * n_ctx)])
    record = struct.pack("<2f", 16 / 65535, -17.5) + struct.pack(f"<{words - 4}H", *range(words - 4))
    body += record * (rows * n_chunk)
    open(f"{sys.argv[1]}/ctx{n_ctx}-vocab{n_vocab}", "wb").write(body)
PY
run_fuzzer logits_file_fuzz "$work/logits-corpus" "$work/logits-seeds"

# llama.cpp's importance matrices: the two files llama-imatrix wrote for the bundled model.
mkdir -p "$work/imatrix-seeds" "$work/imatrix-corpus"
cp "$repo"/tests/data/imatrix/*.imatrix.* "$work/imatrix-seeds/"
run_fuzzer importance_matrix_fuzz "$work/imatrix-corpus" "$work/imatrix-seeds"

# Executable formats: seeds are the test fixtures, sorted by format.
"$repo/tests/formats/binfmt/make_fixtures.sh" "$work/binfmt" >/dev/null 2>&1 || true
mkdir -p "$work/elf-seeds" "$work/pe-seeds" "$work/macho-seeds" "$work/elf-corpus" "$work/pe-corpus" "$work/macho-corpus"
n=0
while IFS= read -r -d '' f; do
  n=$((n + 1))
  case "$(head -c 4 "$f" | od -An -tx1 | tr -d ' ')" in
    7f454c46) cp "$f" "$work/elf-seeds/$n" ;;
    4d5a*) cp "$f" "$work/pe-seeds/$n" ;;
    cffaedfe|cefaedfe|cafebabe|cefaefbe) cp "$f" "$work/macho-seeds/$n" ;;
  esac
done < <(find "$work/binfmt" -type f -print0)
if compgen -G "$shared/ane/*/*.hwx" > /dev/null; then cp "$shared"/ane/*/*.hwx "$work/macho-seeds/"; fi
run_fuzzer elf_reader_fuzz "$work/elf-corpus" "$work/elf-seeds"
run_fuzzer pe_reader_fuzz "$work/pe-corpus" "$work/pe-seeds"
run_fuzzer macho_reader_fuzz "$work/macho-corpus" "$work/macho-seeds"

# ANE readers: every .hwx and .ane of the shared data, and tests/data/ane.
mkdir -p "$work/hwx-seeds" "$work/hwx-corpus"
cp "$repo"/tests/data/ane/*.hwx "$work/hwx-seeds/"
while IFS= read -r -d '' f; do
  cp "$f" "$work/hwx-seeds/$(echo "$f" | tr '/' '_')"
done < <(find "$shared/ane" -type f \( -name '*.hwx*' -o -name '*.ane' \) -print0 2>/dev/null)
run_fuzzer hwx_reader_fuzz "$work/hwx-corpus" "$work/hwx-seeds"
# Model store text: a manifest, URLs and Hub paths.
mkdir -p "$work/store-corpus" "$work/store-seeds"
printf '{"name":"stories260k","source":"https://h/s.gguf","size":1185376,"sha256":"%s","added":"2026-11-30T08:12:05Z"}' \
  "$(printf 'a%.0s' {1..64})" > "$work/store-seeds/manifest"
printf 'hf.co/Qwen/Qwen3-0.6B-GGUF/Qwen3-0.6B-Q8_0.gguf' > "$work/store-seeds/hub"
printf 'https://example.com/x/Model-Q4_0.gguf?download=true' > "$work/store-seeds/url"
run_fuzzer store_text_fuzz "$work/store-corpus" "$work/store-seeds"
