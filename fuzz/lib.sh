# Shared by fuzz/smoke.sh and fuzz/campaign.sh: the targets, the build, and
# each target's options. Sourced, not run.

FUZZ_REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FUZZ_BUILD="${FUZZ_BUILD:-$FUZZ_REPO/build-fuzz}"

# Every libFuzzer target of fuzz/CMakeLists.txt.
FUZZ_TARGETS=(
  gguf_reader_fuzz tokenizer_fuzz chat_template_fuzz openai_request_fuzz
  logits_file_fuzz importance_matrix_fuzz elf_reader_fuzz pe_reader_fuzz
  macho_reader_fuzz hwx_reader_fuzz store_text_fuzz model_load_fuzz
  json_schema_fuzz gbnf_fuzz lock_record_fuzz pack_plan_fuzz
  safetensors_reader_fuzz npy_reader_fuzz hf_tokenizer_fuzz hf_config_fuzz
)

# Configures (clang, libFuzzer, ASan + UBSan: -DTRIT_FUZZ=ON) and builds the
# targets and the seed writers into $FUZZ_BUILD.
fuzz_build() {
  if [[ ! -f "$FUZZ_BUILD/build.ninja" ]]; then
    CC=clang CXX=clang++ cmake -S "$FUZZ_REPO" -B "$FUZZ_BUILD" -G Ninja -DTRIT_FUZZ=ON \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  fi
  local targets=()
  for t in "${FUZZ_TARGETS[@]}" make_gguf_seeds make_model_seeds; do targets+=(--target "$t"); done
  cmake --build "$FUZZ_BUILD" -j "$(nproc)" "${targets[@]}"
}

# fuzz_options TARGET: the libFuzzer flags every run of TARGET uses — its
# input size cap and its dictionary (fuzz/dict/TARGET.dict) where it has one.
# Binary formats are capped at 64 KiB (FUZZ_MAX_LEN): bigger seeds then serve
# as truncated files and the fuzzer keeps thousands of inputs a second; text
# formats at 16 KiB.
fuzz_options() {
  local target="$1"
  case "$target" in
    tokenizer_fuzz|chat_template_fuzz|openai_request_fuzz|store_text_fuzz|json_schema_fuzz|gbnf_fuzz|lock_record_fuzz|pack_plan_fuzz|hf_tokenizer_fuzz|hf_config_fuzz)
      echo "-max_len=${FUZZ_MAX_LEN:-16384}" ;;
    *) echo "-max_len=${FUZZ_MAX_LEN:-65536}" ;;
  esac
  if [[ -f "$FUZZ_REPO/fuzz/dict/${target%_fuzz}.dict" ]]; then
    echo "-dict=$FUZZ_REPO/fuzz/dict/${target%_fuzz}.dict"
  fi
}
