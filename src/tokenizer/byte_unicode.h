// GPT-2's reversible byte <-> Unicode mapping (bytes_to_unicode in OpenAI's
// encoder.py, Hugging Face's ByteLevel pre-tokenizer, llama.cpp's
// unicode_byte_to_utf8): byte-level BPE vocabularies spell every byte as a
// printable character, so token texts never hold spaces or control bytes.
//
// Bytes '!'..'~', 0xA1..0xAC and 0xAE..0xFF map to the code point of the
// same value; the other 68 bytes (0x00..0x20, 0x7F..0xA0, 0xAD), in
// increasing order, map to U+0100, U+0101, ... (so ' ' is U+0120 'Ġ' and
// '\n' is U+010A 'Ċ').
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace trit::tokenizer {

// The code point byte `b` is spelled as.
uint32_t ByteToCodepoint(uint8_t b);

// The byte that code point `cp` spells; -1 when `cp` spells none.
int CodepointToByte(uint32_t cp);

// Appends the byte-level spelling of `bytes` (each byte's code point, in UTF-8) to `*out`.
void AppendByteEncoded(std::string_view bytes, std::string* out);

// Appends the bytes a byte-level token text spells to `*out`, as llama.cpp's
// llama_decode_text: a code point that spells no byte (or a byte of `text`
// that is not valid UTF-8) appends "[UNK_BYTE_0x<its UTF-8 bytes in hex>" +
// `text` + "]" instead.
void AppendByteDecoded(std::string_view text, std::string* out);

}  // namespace trit::tokenizer
