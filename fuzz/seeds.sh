#!/usr/bin/env bash
# Writes each fuzz target's generated seeds into OUT_DIR/<target>/: inputs made
# from the repository's test data and the shared data, which complement the
# committed corpus in fuzz/corpus/ (see fuzz/README.md). Used by smoke.sh and
# campaign.sh; writes nothing into the repository.
#
#   fuzz/seeds.sh BUILD_DIR OUT_DIR [--copyable-only]
#
# BUILD_DIR holds the built make_gguf_seeds and make_model_seeds.
# --copyable-only leaves out the shared files that may not be copied into the
# repository (MANIFEST.md: ane/allbilly), so that a corpus grown from these
# seeds can be committed.
set -euo pipefail

build="${1:?usage: fuzz/seeds.sh BUILD_DIR OUT_DIR [--copyable-only]}"
out="${2:?usage: fuzz/seeds.sh BUILD_DIR OUT_DIR [--copyable-only]}"
copyable_only=0
[[ "${3:-}" == "--copyable-only" ]] && copyable_only=1
repo="$(cd "$(dirname "$0")/.." && pwd)"
shared="${TRIT_SHARED_DATA:-$repo/../shared/data}"
mkdir -p "$out"

# GGUF reader: the bundled model, llama.cpp's vocabulary GGUFs, and small
# valid copies of them (arrays cut to 24 elements, tensors to one block).
mkdir -p "$out/gguf_reader_fuzz"
cp "$repo/models/stories260K.gguf" "$out/gguf_reader_fuzz/"
if compgen -G "$shared/vocab/llama.cpp/*.gguf" > /dev/null; then
  cp "$shared"/vocab/llama.cpp/*.gguf "$out/gguf_reader_fuzz/"
else
  cp "$repo"/tests/data/vocab/*.gguf "$out/gguf_reader_fuzz/"
fi
"$build/fuzz/make_gguf_seeds" "$out/gguf_reader_fuzz" "$out"/gguf_reader_fuzz/*.gguf

# Model files: a tiny loadable model of each architecture (about 50 KB).
mkdir -p "$out/model_load_fuzz"
"$build/fuzz/make_model_seeds" "$out/model_load_fuzz"

# Tokenizers: each test input of tests/data/vocab, with a selector byte in
# front (which vocabulary, add_special, parse_special).
mkdir -p "$out/tokenizer_fuzz"
python3 - "$repo/tests/data/vocab/ggml-vocab-llama-spm.gguf.inp" "$out/tokenizer_fuzz" <<'PY'
import sys
cases = open(sys.argv[1], "rb").read().split(b"\n__ggml_vocab_test__\n")[:-1]
for i, text in enumerate(cases):
    for sel in (i % 9, 0x80 | (i % 9), 0x40 | ((i + 4) % 9)):
        open(f"{sys.argv[2]}/case{i}-{sel:02x}", "wb").write(bytes([sel]) + text)
PY

# Chat templates: the real templates.
mkdir -p "$out/chat_template_fuzz"
cp "$repo"/tests/data/chat_templates/*.jinja "$out/chat_template_fuzz/"

# trit serve's request bodies: a few requests of each endpoint.
mkdir -p "$out/openai_request_fuzz"
printf '%s' '{"model":"m","messages":[{"role":"system","content":"s"},{"role":"user","content":[{"type":"text","text":"hi"}]}],"temperature":0.5,"top_p":0.9,"max_tokens":8,"stop":["x","y"],"seed":1,"stream":true,"stream_options":{"include_usage":true},"logprobs":true,"top_logprobs":2}' > "$out/openai_request_fuzz/chat.json"
printf '%s' '{"prompt":[1,2,3],"max_completion_tokens":4,"logprobs":2,"presence_penalty":-1.5,"frequency_penalty":2,"n":1}' > "$out/openai_request_fuzz/completion.json"
printf '%s' '{"prompt":"text","stop":"\\n","top_k":40,"ignore_eos":true}' > "$out/openai_request_fuzz/prompt.json"
printf '%s' '{"messages":[{"role":"user","content":"w"},{"role":"assistant","content":null,"tool_calls":[{"id":"abcdefghi","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]},{"role":"tool","tool_call_id":"abcdefghi","name":"f","content":"2"}],"tools":[{"type":"function","function":{"name":"f","description":"d","parameters":{"type":"object","properties":{"a":{"type":"integer"}}}}}],"tool_choice":{"type":"function","function":{"name":"f"}},"parallel_tool_calls":false}' > "$out/openai_request_fuzz/tools.json"
printf '%s' '{"messages":[{"role":"user","content":"j"}],"response_format":{"type":"json_schema","json_schema":{"name":"n","strict":true,"schema":{"type":"object","properties":{"k":{"enum":["a","b"]}},"required":["k"]}}},"logit_bias":{"5":-100},"n":2,"min_p":0.1,"repeat_penalty":1.1}' > "$out/openai_request_fuzz/structured.json"
printf '%s' '{"prompt":"p","echo":true,"best_of":1,"grammar":"root ::= [a-z]+","user":"u","metadata":{"k":"v"}}' > "$out/openai_request_fuzz/grammar.json"
printf '%s' '{"model":"m","input":["a","b c"],"encoding_format":"base64","dimensions":64,"user":"u","normalize":false}' > "$out/openai_request_fuzz/embeddings.json"
printf '%s' '{"input":[[101,7592,102],[101,102]],"encoding_format":"float"}' > "$out/openai_request_fuzz/embeddings_tokens.json"
printf '%s' '{"input":[101,2088,102]}' > "$out/openai_request_fuzz/embeddings_ids.json"

# response_format's JSON schemas: the schemas of the validator cross-check.
mkdir -p "$out/json_schema_fuzz"
cp "$repo"/tests/data/json_schemas/*.json "$out/json_schema_fuzz/"

# Hugging Face tokenizer.json: a WordPiece and a byte-level BPE tokenizer,
# each with its tokenizer_config.json on the first line (the target's layout).
mkdir -p "$out/hf_tokenizer_fuzz"
cat > "$out/hf_tokenizer_fuzz/wordpiece.json" <<'EOF'
{"cls_token": "[CLS]", "sep_token": "[SEP]", "unk_token": "[UNK]", "pad_token": "[PAD]", "mask_token": {"content": "[MASK]"}}
{"added_tokens": [{"id": 0, "content": "[PAD]", "special": true}, {"id": 1, "content": "[UNK]", "special": true},
  {"id": 2, "content": "[CLS]", "special": true}, {"id": 3, "content": "[SEP]", "special": true},
  {"id": 4, "content": "[MASK]", "special": true}],
 "normalizer": {"type": "BertNormalizer", "lowercase": true}, "pre_tokenizer": {"type": "BertPreTokenizer"},
 "post_processor": {"type": "TemplateProcessing",
  "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
  "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}},
           {"Sequence": {"id": "B", "type_id": 1}}, {"SpecialToken": {"id": "[SEP]", "type_id": 1}}]},
 "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
  "vocab": {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "[MASK]": 4, "hello": 5, "world": 6, "##s": 7, "play": 8, "##ing": 9}}}
EOF
cat > "$out/hf_tokenizer_fuzz/bpe.json" <<'EOF'
{"bos_token": "<|endoftext|>", "eos_token": {"content": "<|endoftext|>"}, "add_bos_token": false}
{"added_tokens": [{"id": 11, "content": "<|endoftext|>", "special": true}, {"id": 12, "content": "<|im_start|>", "special": false}],
 "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
  {"type": "Split", "pattern": {"Regex": "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"}, "behavior": "Isolated", "invert": false},
  {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": false}]},
 "post_processor": {"type": "Sequence", "processors": [{"type": "ByteLevel"},
  {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<|endoftext|>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}]}]},
 "model": {"type": "BPE", "byte_fallback": false,
  "vocab": {"h": 0, "e": 1, "l": 2, "o": 3, "\u0120": 4, "w": 5, "he": 6, "ll": 7, "hell": 8, "hello": 9, "\u0120w": 10},
  "merges": [["h", "e"], ["l", "l"], ["he", "ll"], ["hell", "o"], ["\u0120", "w"]]}}
EOF

# The `grammar` field's GBNF: grammars that use every syntax form (JSON,
# arithmetic, bounded repetitions, Unicode classes and escapes, comments,
# groups over several lines, an ambiguous grammar).
mkdir -p "$out/gbnf_fuzz"
cat > "$out/gbnf_fuzz/json.gbnf" <<'GBNF'
root   ::= ws value ws
value  ::= object | array | string | number | "true" | "false" | "null"
object ::= "{" ws ( member ( ws "," ws member )* )? ws "}"
member ::= string ws ":" ws value
array  ::= "[" ws ( value ( ws "," ws value )* )? ws "]"
string ::= "\"" char* "\""
char   ::= [^"\\\x00-\x1F] | "\\" ( ["\\/bfnrt] | "u" [0-9a-fA-F]{4} )
number ::= "-"? ( "0" | [1-9] [0-9]{0,15} ) ( "." [0-9]+ )? ( [eE] [-+]? [0-9]+ )?
ws     ::= [ \t\n\r]*
GBNF
cat > "$out/gbnf_fuzz/arithmetic.gbnf" <<'GBNF'
# Arithmetic with precedence.
root ::= expr
expr ::= term (("+" | "-") term)*
term ::= factor (("*" | "/") factor)*
factor ::= [0-9]+ | "(" expr ")" | "-" factor
GBNF
cat > "$out/gbnf_fuzz/repetitions.gbnf" <<'GBNF'
root ::= "a"{2} "b"{1,3} "c"{2,} "d"{,2} "e"? "f"* "g"+ ("hi" | [j-l]){0,4} .
GBNF
cat > "$out/gbnf_fuzz/unicode.gbnf" <<'GBNF'
root ::= [\u00e0-\u00ff\U0001F600-\U0001F64F]+ [^\x00-\x7F] "\xe9\u20AC\U0001F600" "é€😀" [α-ω]* [\[\]\-\^\\] "\n\r\t\"\'\/"
GBNF
cat > "$out/gbnf_fuzz/lines.gbnf" <<'GBNF'
root ::=
  item |
  ( "(" # a group over lines
      item
    | "[" root "]"
  ) list
item ::= [a-z] [a-z0-9-]*
list ::= ("," item)*
GBNF
cat > "$out/gbnf_fuzz/ambiguous.gbnf" <<'GBNF'
root ::= x* "a" x* | "a" root "b" | "a" root root "b" | "c"
x ::= "a" | "b" | "ab"
GBNF
cat > "$out/gbnf_fuzz/no-character.gbnf" <<'GBNF'
root ::= "a" ([] | [\uD800-\uDFFF])? | [] | "b" [^\x00-\U0010FFFF]*
GBNF

# llama.cpp's KL-divergence base files: two valid ones (n_ctx 4 and 6, odd and even vocabularies).
mkdir -p "$out/logits_file_fuzz"
python3 - "$out/logits_file_fuzz" <<'PY'
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

# llama.cpp's importance matrices: the two files llama-imatrix wrote for the bundled model.
mkdir -p "$out/importance_matrix_fuzz"
cp "$repo"/tests/data/imatrix/*.imatrix.* "$out/importance_matrix_fuzz/"

# Executable formats: the binfmt test fixtures (when their cross compilers
# are installed), sorted by magic, and the ANE .hwx files (Mach-O).
"$repo/tests/formats/binfmt/make_fixtures.sh" "$out/binfmt" >/dev/null 2>&1 || true
mkdir -p "$out/elf_reader_fuzz" "$out/pe_reader_fuzz" "$out/macho_reader_fuzz"
n=0
while IFS= read -r -d '' f; do
  n=$((n + 1))
  case "$(head -c 4 "$f" | od -An -tx1 | tr -d ' ')" in
    7f454c46) cp "$f" "$out/elf_reader_fuzz/$n" ;;
    4d5a*) cp "$f" "$out/pe_reader_fuzz/$n" ;;
    cffaedfe|cefaedfe|cafebabe|cefaefbe) cp "$f" "$out/macho_reader_fuzz/$n" ;;
  esac
done < <(find "$out/binfmt" -type f -print0 2>/dev/null)
rm -rf "$out/binfmt"

# ANE readers (`trit hwx`): tests/data/ane and the shared .hwx and .ane files.
mkdir -p "$out/hwx_reader_fuzz"
cp "$repo"/tests/data/ane/*.hwx "$out/hwx_reader_fuzz/"
while IFS= read -r -d '' f; do
  [[ $copyable_only -eq 1 && "$f" == */allbilly/* ]] && continue
  cp "$f" "$out/hwx_reader_fuzz/$(echo "${f#"$shared"/}" | tr '/' '_')"
done < <(find "$shared/ane" -type f \( -name '*.hwx*' -o -name '*.ane' \) -print0 2>/dev/null)
cp "$out"/hwx_reader_fuzz/*.hwx* "$out/macho_reader_fuzz/"

# Model store text: a manifest, URLs and Hub paths.
mkdir -p "$out/store_text_fuzz"
printf '{"name":"stories260k","source":"https://h/s.gguf","size":1185376,"sha256":"%s","added":"2026-11-30T08:12:05Z"}' \
  "$(printf 'a%.0s' {1..64})" > "$out/store_text_fuzz/manifest"
printf 'hf.co/Qwen/Qwen3-0.6B-GGUF/Qwen3-0.6B-Q8_0.gguf' > "$out/store_text_fuzz/hub"
printf 'https://example.com/x/Model-Q4_0.gguf?download=true' > "$out/store_text_fuzz/url"

# Device lock records (system/device_lock.h) and a device name.
mkdir -p "$out/lock_record_fuzz"
printf '{"pid":4242,"child_pid":4243,"user":"alice","command":"trit pack run /packs/g --ids \\"1 2\\"","started_unix":1796441964,"started":"2026-12-05 03:39:24 UTC"}\n' \
  > "$out/lock_record_fuzz/record"
printf '{"pid":7,"started_unix":0}' > "$out/lock_record_fuzz/minimal"
printf 'xdna2-0' > "$out/lock_record_fuzz/device"

# Accelerator packs' plan.json (formats/pack/plan.h): one of each generation.
mkdir -p "$out/pack_plan_fuzz"
cat > "$out/pack_plan_fuzz/sealed" <<'PLAN'
{"format":"trit-pack","version":1,"model":"model.gguf","device":"xdna2","generation":"sealed","decode_m":1,"prefill_m":4,
 "ops":[{"op":"matmul","tensors":"blk.{layer}.attn_q.weight","layers":[0,4],"K":64,"N":64,
         "kernels":[{"generation":"sealed","file":"full_i8_matmul_K64_N64.elf","M":4},
                    {"generation":"per-role","file":"layer_ctx1.elf","M":1}]},
        {"op":"lmhead","tensors":"output.weight","K":64,"N":512,
         "kernels":[{"generation":"sealed","file":"SEALED-lmhead.elf","M":4}]}]}
PLAN
printf '{"format":"trit-pack","version":1,"model":"m.gguf","device":"hexagon-v81","ops":[],"comment":"x"}' \
  > "$out/pack_plan_fuzz/minimal"

# safetensors files (formats/safetensors/): two small valid files (several
# dtypes, metadata, a scalar, an empty tensor, packed F4), and a sharded
# checkpoint's index text, which the target reads too.
mkdir -p "$out/safetensors_reader_fuzz"
python3 - "$out/safetensors_reader_fuzz" <<'PY'
import json, struct, sys
def write(name, tensors, metadata=None):
    header, buffer = {}, b""
    if metadata:
        header["__metadata__"] = metadata
    for tname, dtype, shape, data in tensors:
        header[tname] = {"dtype": dtype, "shape": shape, "data_offsets": [len(buffer), len(buffer) + len(data)]}
        buffer += data
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    open(f"{sys.argv[1]}/{name}", "wb").write(struct.pack("<Q", len(text)) + text + buffer)
write("two-tensors", [("model.embed.weight", "F32", [2, 2], bytes(range(16))),
                      ("model.norm.weight", "BF16", [3], bytes(range(6)))], {"format": "pt"})
write("mixed", [("step", "I64", [], bytes(8)), ("empty", "F16", [0, 4], b""),
                ("fp4", "F4", [2, 2], b"\x12\x34"), ("codes", "U8", [3], b"abc"),
                ("scale", "F8_E8M0", [1], b"\x7f")])
PY
printf '%s' '{"metadata":{"total_size":22},"weight_map":{"model.embed.weight":"model-00001-of-00002.safetensors","model.norm.weight":"model-00002-of-00002.safetensors"}}' \
  > "$out/safetensors_reader_fuzz/index.json"

# What `trit compare` reads (formats/npy, formats/vectors): .npy files laid
# out as numpy writes them (versions 1.0, 2.0 and 3.0; float16, float32 and
# float64; one and two dimensions; a Fortran-order and an integer header,
# which are refused), and vectors as JSON in each layout the reader takes.
mkdir -p "$out/npy_reader_fuzz"
# npy_seed NAME MAJOR DICT DATA_BYTES: the dict padded with spaces and '\n'
# so the data starts on a multiple of 64, then DATA_BYTES bytes of 0x3f.
npy_seed() {
  local pre=$(( $2 == 1 ? 10 : 12 ))
  local len=$(( (pre + ${#3} + 1 + 63) / 64 * 64 - pre ))
  {
    printf '\x93NUMPY'
    printf "\\x$(printf %02x "$2")\\x00"
    printf "\\x$(printf %02x $((len & 255)))\\x$(printf %02x $((len >> 8)))"
    [[ $2 == 1 ]] || printf '\x00\x00'
    printf '%s%*s\n' "$3" $((len - ${#3} - 1)) ''
    head -c "$4" /dev/zero | tr '\0' '\077'
  } > "$out/npy_reader_fuzz/$1"
}
npy_seed f4-2d 1 "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" 24
npy_seed f2-1d 1 "{'descr': '<f2', 'fortran_order': False, 'shape': (5,), }" 10
npy_seed f8-2d 1 "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2), }" 16
npy_seed f4-v2 2 "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 1), }" 12
npy_seed f8-v3 3 "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }" 32
npy_seed empty 1 "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4), }" 0
npy_seed fortran 1 "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }" 16
npy_seed i4 1 "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }" 8
printf '[0.5, -1, 2e-3, 4]' > "$out/npy_reader_fuzz/array.json"
printf '[[1, 2, 3], [0, 0, 0], [-1.5, 2.5, 1e10]]' > "$out/npy_reader_fuzz/rows.json"
printf '{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,0.2]},{"object":"embedding","index":1,"embedding":[0.3,-0.4]}],"model":"m","usage":{"prompt_tokens":2,"total_tokens":2}}' \
  > "$out/npy_reader_fuzz/openai.json"
printf '{"logits": [[0.25, 9, -3]]}' > "$out/npy_reader_fuzz/logits.json"
printf '{"embedding": [1, 0, 0]}' > "$out/npy_reader_fuzz/embedding.json"

# Hugging Face config files (convert/hf_config.h): all-MiniLM-L6-v2's
# config.json, a BertForMaskedLM one with training-only keys, its
# sentence-transformers modules.json and Pooling config, and a modules.json
# whose Pooling path leaves the directory (refused).
# Gemma 4's SentencePiece-style tokenizer.json (the LlamaHfVocab reading):
# its tokenizer_config.json on one line, then the tokenizer.
{ tr -d '\n' < "$repo/tests/data/hf/gemma4/checkpoint/tokenizer_config.json"; echo
  cat "$repo/tests/data/hf/gemma4/checkpoint/tokenizer.json"; } > "$out/hf_tokenizer_fuzz/gemma4.json"

mkdir -p "$out/hf_config_fuzz"
cat > "$out/hf_config_fuzz/minilm-config.json" <<'JSON'
{"_name_or_path": "nreimers/MiniLM-L6-H384-uncased", "architectures": ["BertModel"], "attention_probs_dropout_prob": 0.1,
 "gradient_checkpointing": false, "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 384,
 "initializer_range": 0.02, "intermediate_size": 1536, "layer_norm_eps": 1e-12, "max_position_embeddings": 512,
 "model_type": "bert", "num_attention_heads": 12, "num_hidden_layers": 6, "pad_token_id": 0,
 "position_embedding_type": "absolute", "transformers_version": "4.8.2", "type_vocab_size": 2, "use_cache": true,
 "vocab_size": 30522}
JSON
printf '%s' '{"architectures":["BertForMaskedLM","BertModel"],"model_type":"bert","hidden_size":768,"num_hidden_layers":12,"num_attention_heads":12,"intermediate_size":3072,"max_position_embeddings":512,"type_vocab_size":2,"vocab_size":30522,"layer_norm_eps":1e-12,"hidden_act":"gelu","torch_dtype":"float32","id2label":{"0":"LABEL_0"}}' \
  > "$out/hf_config_fuzz/mlm-config.json"
cat > "$out/hf_config_fuzz/modules.json" <<'JSON'
[{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
 {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
 {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}]
JSON
printf '%s' '[{"idx":1,"name":"1","path":"../1_Pooling","type":"sentence_transformers.models.Pooling"}]' \
  > "$out/hf_config_fuzz/modules-escaping.json"
printf '%s' '{"word_embedding_dimension": 384, "pooling_mode_cls_token": false, "pooling_mode_mean_tokens": true, "pooling_mode_max_tokens": false, "pooling_mode_mean_sqrt_len_tokens": false}' \
  > "$out/hf_config_fuzz/pooling-mean.json"
printf '%s' '{"pooling_mode_cls_token": true, "pooling_mode_lasttoken": false, "pooling_mode_weightedmean_tokens": false}' \
  > "$out/hf_config_fuzz/pooling-cls.json"
# The decoders' configs (nested rope_parameters, token ids, booleans).
for arch in llama qwen2 qwen3 gemma3; do
  cp "$repo/tests/data/hf/$arch/config.json" "$out/hf_config_fuzz/$arch-config.json"
done
# Qwen3.5's and Gemma 4's (text_config, layer_types, Gemma 4's per_layer_config).
for dir in qwen35/checkpoint qwen35/checkpoint-vl gemma4/checkpoint gemma4/checkpoint-vl; do
  cp "$repo/tests/data/hf/$dir/config.json" "$out/hf_config_fuzz/${dir//\//-}-config.json"
done
