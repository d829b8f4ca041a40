"""Writes tests/data/hf/<arch>/expected_ids.json: the ids Hugging Face's
tokenizer (transformers' AutoTokenizer on the checkpoint's own directory,
encode() with its default add_special_tokens=True) gives for a few texts.
tests/convert/hf_convert_decoders_run_test.cpp checks that trit's
tokenizer, built from the GGUF file `trit convert` wrote, gives the same
ids, or, where a case carries "trit", the ids and the reason given there.
  python make_expected_ids.py            (in a venv with transformers, sentencepiece)
"""
import json
import os

import transformers

HERE = os.path.dirname(os.path.abspath(__file__))
TEXTS = [
    "Once upon a time, there was a little girl.",
    "Caf\u00e9 na\u00efve r\u00e9sum\u00e9, \u00fcber alles",
    "In 2024 she counted 12345 apples and 7 pears.",
    "  two  spaces\tand a tab\nand a newline ",
]
# One text with a special or added token of each vocabulary.
SPECIAL_TEXT = {
    "llama": "<s>Hello</s>",
    "qwen2": "<|im_start|>user\nHello<|im_end|>",
    "qwen3": "<|im_start|>user\nHello<|im_end|>",
    "gemma3": "<start_of_turn>user\nHello<end_of_turn>",
    "gemma4/checkpoint": '<|turn>user\nHello<turn|>\n<|tool_call>call:f{a:<|"|>x<|"|>}<tool_call|>[multimodal]',
    "gemma4/checkpoint-vl": '<|turn>user\nHello<turn|>\n<|tool_call>call:f{a:<|"|>x<|"|>}<tool_call|>[multimodal]',
    "qwen3moe/checkpoint": "<|im_start|>user\nHello<|im_end|>",
    "gpt_oss/checkpoint": "<|im_start|>user\nHello<|im_end|>",
    "gpt_oss/checkpoint-mxfp4": "<|im_start|>user\nHello<|im_end|>",
}

# Where trit (following llama.cpp) gives other ids than Hugging Face, for a
# known reason: the ids trit gives and why. Checked by the test like "ids".
KNOWN = {
    ("llama", TEXTS[3]): dict(
        ids=[1, 360, 360, 261, 374, 367, 360, 262, 378, 362, 356, 370, 12, 362, 263, 260, 261, 362, 376, 13, 362, 263,
             260, 306, 361, 374, 372, 290, 361, 360],
        why="sentencepiece itself and llama.cpp prefix the dummy space to text that already starts with one; "
            "tokenizers' Metaspace (prepend_scheme first) does not, so Hugging Face has one '▁' fewer"),
    ("llama", SPECIAL_TEXT["llama"]): dict(
        ids=[1, 1, 360, 398, 361, 304, 367, 2],
        why="llama.cpp's SentencePiece tokenizer prefixes a space to text after a special token (llama-vocab.cpp: "
            "'prefix with space if previous is special'); Metaspace prepend_scheme first only to the first section"),
    ("gemma3", SPECIAL_TEXT["gemma3"]): dict(
        ids=[2, 66, 333, 358, 363, 101, 367, 385, 101, 363, 379, 369, 366, 68, 379, 370, 292, 16, 398, 361, 307,
             367, 5],
        why="tokenizer_config.json (transformers 5) has no added_tokens_decoder, so llama.cpp's converter types "
            "<start_of_turn>/<end_of_turn> normal as tokenizer.model's user-defined pieces. llama.cpp's loader, and "
            "trit's, retype <end_of_turn> control (the end-of-turn text list), so it is matched (id 5 at the end); "
            "<start_of_turn> is not in that list and stays in pieces, where Hugging Face gives id 4"),
}

for arch, special in SPECIAL_TEXT.items():
    tok = transformers.AutoTokenizer.from_pretrained(os.path.join(HERE, arch))
    cases = [{"text": t, "ids": tok.encode(t)} for t in TEXTS + [special]]
    for c in cases:
        if (arch, c["text"]) in KNOWN:
            c["trit"] = KNOWN[(arch, c["text"])]
    with open(os.path.join(HERE, arch, "expected_ids.json"), "w") as f:
        json.dump({"tokenizer": type(tok).__name__, "transformers": transformers.__version__, "cases": cases}, f,
                  indent=1, ensure_ascii=False)
        f.write("\n")
    for c in cases:
        print(arch, repr(c["text"]), c["ids"])
