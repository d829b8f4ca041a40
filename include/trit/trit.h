/* trit C API, ABI version 1: load a GGUF model, tokenize, render its chat
 * template, generate text, and read every row's logits.
 *
 * Plain C (C99 and later; C++ through the extern "C" guards). Only
 * fixed-width integers, floats, `char` strings, opaque pointers and plain
 * structs cross this boundary: no C++ type, exception or allocator does.
 * No exception escapes any function below; a failure of any kind is a
 * trit_status with a message (trit_last_error()).
 *
 * The contract (docs/C_API.md says it at length, with examples):
 *
 * Errors. Functions that can fail return a trit_status; TRIT_STATUS_OK (0)
 * is success. On failure, trit_last_error() gives this thread's message,
 * which names the thing that was wrong (a file, a key, an option, an id) and
 * what was expected. Outputs are left untouched on failure unless a function
 * says otherwise (TRIT_STATUS_BUFFER_TOO_SMALL reports the size needed).
 *
 * Ownership. A trit_model* from trit_model_load belongs to the caller, who
 * frees it with trit_model_free (NULL is accepted). Strings the library
 * returns as `const char*` (trit_model_architecture, ...) belong to the
 * model and live until it is freed. Text and ids the library writes go into
 * buffers the caller owns: pass capacity 0 (and NULL) to learn the size.
 * Strings passed in are only read during the call.
 *
 * Threading. A loaded model is immutable: every function taking a
 * `const trit_model*` may run on several threads at once on one model
 * (each generate or verify call uses its own KV cache and threads).
 * trit_model_free must not race with any other call on that model. The
 * token callback runs on the thread that called trit_generate.
 *
 * Versioning. TRIT_ABI_VERSION is the version of this header; the library
 * reports its own with trit_abi_version(). Within one ABI version, functions
 * and struct fields are only added, never changed or removed; option and
 * result structs start with `struct_size` (set by the *_default functions)
 * so a program built against an older header keeps working with a newer
 * library. libtrit.so's soname carries the ABI version (libtrit.so.1).
 */
#ifndef TRIT_TRIT_H_
#define TRIT_TRIT_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define TRIT_API
#else
#define TRIT_API __attribute__((visibility("default")))
#endif

/* ---- Versions ---------------------------------------------------------- */

#define TRIT_ABI_VERSION 1u

/* The ABI version of the library loaded (compare with TRIT_ABI_VERSION). */
TRIT_API uint32_t trit_abi_version(void);
/* "0.1.0 (commit 1ed3e38a0b2c)": the library's version; static storage. */
TRIT_API const char* trit_version(void);

/* ---- Errors ------------------------------------------------------------ */

typedef enum trit_status {
  TRIT_STATUS_OK = 0,
  TRIT_STATUS_INVALID_ARGUMENT = 1, /* a NULL, an out-of-range option, an id outside the vocabulary, a bad pin */
  TRIT_STATUS_NOT_FOUND = 2,        /* a file, store name or metadata key that is not there */
  TRIT_STATUS_IO = 3,               /* the operating system refused (open, read, map) */
  TRIT_STATUS_CORRUPT = 4,          /* bytes that do not follow their format */
  TRIT_STATUS_UNSUPPORTED = 5,      /* well-formed, but beyond what this library implements */
  TRIT_STATUS_BUFFER_TOO_SMALL = 6, /* the caller's buffer is too small; the size needed is reported */
  TRIT_STATUS_OUT_OF_MEMORY = 7,
  TRIT_STATUS_INTERNAL = 8          /* a bug in trit: please report the message */
} trit_status;

/* "ok", "invalid argument", ...; static storage; "unknown status" otherwise. */
TRIT_API const char* trit_status_string(trit_status status);

/* This thread's message for the last failed call ("" when the last call
 * that returns a trit_status succeeded). Every function returning a
 * trit_status sets it. The pointer stays valid until the next trit_* call
 * on this thread other than trit_last_error and trit_status_string; copy
 * it to keep it. Never NULL. */
TRIT_API const char* trit_last_error(void);

/* ---- Models ------------------------------------------------------------ */

typedef struct trit_model trit_model;

/* No token (an id functions return when there is none). */
#define TRIT_NO_TOKEN (-1)

typedef struct trit_model_options {
  size_t struct_size;  /* sizeof(trit_model_options): set by trit_model_options_default */
  /* A GGUF file path, or the name of a model in the store ($TRIT_HOME or
   * ~/.trit, as `trit models list` shows). URLs are refused: pull them
   * first with `trit pull`. Required. */
  const char* model;
  /* An engine name or alias (`trit backends`), or NULL: the highest-priority
   * available engine that can generate with the file's format. A pin that
   * cannot be honoured is TRIT_STATUS_INVALID_ARGUMENT naming the engines
   * that can. */
  const char* engine;
  int32_t n_threads; /* threads per generate/verify call; 0: one per hardware thread. Results do not depend on it */
  int32_t reserved;  /* must be 0 (TRIT_STATUS_UNSUPPORTED otherwise) */
  int64_t n_ctx;     /* tokens of context per call; 0: the model's trained context length */
} trit_model_options;

/* Fills `options` with the defaults above (model = NULL). */
TRIT_API void trit_model_options_default(trit_model_options* options);

/* Loads a model: resolves options->model, chooses the engine, maps the
 * weights, builds the tokenizer and compiles the chat template (a template
 * trit cannot run does not fail the load; trit_chat_render reports it). On
 * success *out_model is the caller's; on failure it is set to NULL and the
 * message names the file (or store name) and what is wrong. */
TRIT_API trit_status trit_model_load(const trit_model_options* options, trit_model** out_model);
TRIT_API void trit_model_free(trit_model* model);

/* Metadata. Strings live as long as the model. A NULL model gives "", 0
 * or TRIT_NO_TOKEN. */
TRIT_API const char* trit_model_path(const trit_model* model);         /* the GGUF file loaded */
TRIT_API const char* trit_model_engine(const trit_model* model);       /* the engine's name */
TRIT_API const char* trit_model_architecture(const trit_model* model); /* general.architecture: "llama", ... */
TRIT_API int64_t trit_model_n_vocab(const trit_model* model);
TRIT_API int64_t trit_model_n_ctx_train(const trit_model* model); /* {arch}.context_length */
TRIT_API int64_t trit_model_n_ctx(const trit_model* model);       /* the context each call gets */
TRIT_API int64_t trit_model_n_embd(const trit_model* model);
TRIT_API int64_t trit_model_n_layer(const trit_model* model);
TRIT_API int32_t trit_model_token_bos(const trit_model* model); /* TRIT_NO_TOKEN when none */
TRIT_API int32_t trit_model_token_eos(const trit_model* model); /* TRIT_NO_TOKEN when none */
/* 1 when `token` ends a generation (EOS, end of turn, <|im_end|>, ...), else 0. */
TRIT_API int trit_model_token_is_end_of_generation(const trit_model* model, int32_t token);
/* 1 when the model has a chat template trit can run, else 0. */
TRIT_API int trit_model_has_chat_template(const trit_model* model);

/* GGUF metadata entries, in file order: the key of entry i (< count), or NULL. */
TRIT_API size_t trit_model_meta_count(const trit_model* model);
TRIT_API const char* trit_model_meta_key(const trit_model* model, size_t i);
/* A scalar metadata value as text (strings as they are; integers in decimal;
 * floats in the shortest form that reads back exactly; true/false). Writes
 * the text and a NUL into out[0..capacity) and its length (without the NUL)
 * to *n_out; TRIT_STATUS_BUFFER_TOO_SMALL (with *n_out set) when capacity
 * <= length. A missing key is TRIT_STATUS_NOT_FOUND; an array is
 * TRIT_STATUS_UNSUPPORTED. */
TRIT_API trit_status trit_model_meta_string(const trit_model* model, const char* key, char* out, size_t capacity,
                                            size_t* n_out);

/* ---- Text: tokens and the chat template -------------------------------- */

/* trit_tokenize flags. */
#define TRIT_TOKENIZE_ADD_SPECIAL 1u   /* add BOS (and EOS) as the model's metadata says */
#define TRIT_TOKENIZE_PARSE_SPECIAL 2u /* recognise control tokens such as <|im_start|> in the text */

/* Text (text_len bytes, need not be NUL-terminated) to ids. Writes the ids
 * into out_ids[0..capacity) and their count to *n_out;
 * TRIT_STATUS_BUFFER_TOO_SMALL (with *n_out set) when capacity < count. */
TRIT_API trit_status trit_tokenize(const trit_model* model, const char* text, size_t text_len, uint32_t flags,
                                   int32_t* out_ids, size_t capacity, size_t* n_out);

/* trit_detokenize / trit_token_to_piece flags. */
#define TRIT_DETOKENIZE_REMOVE_SPECIAL 1u /* drop a leading BOS and trailing EOS that tokenizing would add */
#define TRIT_DETOKENIZE_RENDER_SPECIAL 2u /* write control tokens' text (otherwise they write nothing) */

/* Ids to text, as llama.cpp's llama_detokenize. Text protocol as
 * trit_model_meta_string (NUL-terminated; *n_out excludes the NUL). An id
 * outside the vocabulary is TRIT_STATUS_INVALID_ARGUMENT naming it. */
TRIT_API trit_status trit_detokenize(const trit_model* model, const int32_t* ids, size_t n_ids, uint32_t flags,
                                     char* out, size_t capacity, size_t* n_out);
/* The bytes one token stands for (RENDER_SPECIAL applies; may be part of a
 * UTF-8 character). Text protocol as above. */
TRIT_API trit_status trit_token_to_piece(const trit_model* model, int32_t token, uint32_t flags, char* out,
                                         size_t capacity, size_t* n_out);

typedef struct trit_chat_message {
  const char* role;    /* "system", "user", "assistant", ... */
  const char* content; /* NUL-terminated UTF-8 */
} trit_chat_message;

/* Renders a conversation with the model's chat template
 * (tokenizer.chat_template), as Hugging Face's apply_chat_template does;
 * add_generation_prompt != 0 ends with the header of an assistant turn.
 * Text protocol as above. A model without a template (or with one trit
 * cannot run) is TRIT_STATUS_UNSUPPORTED. Generate from the result with
 * TRIT_TOKENIZE_PARSE_SPECIAL (trit_generate_options_default sets it). */
TRIT_API trit_status trit_chat_render(const trit_model* model, const trit_chat_message* messages, size_t n_messages,
                                      int add_generation_prompt, char* out, size_t capacity, size_t* n_out);

/* ---- Generation -------------------------------------------------------- */

/* trit_generate_options.seed: a random seed, reported in the result. */
#define TRIT_SEED_RANDOM UINT64_MAX

typedef struct trit_generate_options {
  size_t struct_size;     /* sizeof(trit_generate_options): set by trit_generate_options_default */
  int64_t max_tokens;     /* most tokens to generate (> 0); default 256 */
  /* Sampling, in llama.cpp's order (runtime/sampler.h): penalties, then
   * temperature <= 0 is greedy (highest logit, lowest id on ties), else
   * top_k, softmax(logit / temperature), top_p, min_p, one seeded draw.
   * Defaults are trit run's: 0.8, 40, 0.95, 0.05, no penalties. */
  float temperature;
  int32_t top_k;          /* 0: all */
  float top_p;            /* 1: no limit */
  float min_p;            /* 0: no limit */
  float repeat_penalty;   /* 1: none */
  float frequency_penalty;
  float presence_penalty;
  int32_t penalty_last_n; /* tokens of history the penalties look at; default 64 */
  uint64_t seed;          /* the same seed, options and prompt give the same tokens; default TRIT_SEED_RANDOM */
  /* Non-zero (default): stop when the model samples an end-of-generation
   * token (not passed to the callback). Zero: only max_tokens and the
   * callback stop it. */
  int32_t stop_at_end_of_generation;
  /* trit_generate's tokenization of the prompt: default ADD_SPECIAL |
   * PARSE_SPECIAL (a prompt that already starts with the BOS text, as a
   * rendered chat template does, gets no second BOS). */
  uint32_t tokenize_flags;
} trit_generate_options;

TRIT_API void trit_generate_options_default(trit_generate_options* options);

typedef enum trit_stop_reason {
  TRIT_STOP_MAX_TOKENS = 0,
  TRIT_STOP_END_OF_GENERATION = 1,
  TRIT_STOP_CALLBACK = 2,    /* the callback returned 0 */
  TRIT_STOP_CONTEXT_FULL = 3 /* the KV cache (trit_model_n_ctx) is full */
} trit_stop_reason;

typedef struct trit_generate_result {
  size_t struct_size;       /* the caller sets sizeof(trit_generate_result); fields past it are not written */
  int64_t n_prompt_tokens;
  int64_t n_generated;      /* tokens generated (an end-of-generation token not counted) */
  trit_stop_reason stop;
  int32_t reserved;
  uint64_t seed;            /* the seed used (the drawn one for TRIT_SEED_RANDOM) */
} trit_generate_result;

/* Called once per generated token, as soon as it is sampled, with the text
 * it completes: `piece` is not NUL-terminated, `len` may be 0 (the bytes of
 * an incomplete UTF-8 character are held until it completes), and the
 * pieces concatenated are the generated text. After the last token, bytes
 * still held (if any) come in one more call with token TRIT_NO_TOKEN, whose
 * return value is ignored. Return non-zero to go on, 0 to stop. `piece` is
 * valid only during the call. The callback must not unwind (longjmp,
 * exceptions) through trit. */
typedef int (*trit_token_callback)(const char* piece, size_t len, int32_t token, void* user_data);

/* Tokenizes `prompt` (NUL-terminated) with options->tokenize_flags and
 * generates from it on a fresh KV cache of trit_model_n_ctx tokens.
 * `options` NULL: the defaults; `callback` NULL: none; `result` NULL: not
 * reported. An empty token sequence, or a prompt longer than the context, is
 * TRIT_STATUS_INVALID_ARGUMENT; a context that fills up while generating
 * ends it (TRIT_STOP_CONTEXT_FULL). A bad option, prompt or id is reported
 * (named) before the first callback. */
TRIT_API trit_status trit_generate(const trit_model* model, const char* prompt, const trit_generate_options* options,
                                   trit_token_callback callback, void* user_data, trit_generate_result* result);
/* The same from token ids, used exactly as given (no BOS added). */
TRIT_API trit_status trit_generate_ids(const trit_model* model, const int32_t* ids, size_t n_ids,
                                       const trit_generate_options* options, trit_token_callback callback,
                                       void* user_data, trit_generate_result* result);

/* ---- Logits and embeddings --------------------------------------------- */

/* Runs `ids` (exactly as given, no BOS added) through the model in one pass
 * on a fresh KV cache and writes the logits of every row: row i (the
 * prediction after ids[0..i]) at out_logits[i * n_vocab], n_ids * n_vocab
 * floats in all. Each row is bit-identical to what one-token-at-a-time
 * decoding computes (the batch-invariance contract). out_capacity is in
 * floats; below n_ids * n_vocab it is TRIT_STATUS_BUFFER_TOO_SMALL and
 * nothing is computed. */
TRIT_API trit_status trit_verify(const trit_model* model, const int32_t* ids, size_t n_ids, float* out_logits,
                                 size_t out_capacity);

/* Embeddings are NOT implemented yet: this always returns
 * TRIT_STATUS_UNSUPPORTED with a message saying so, writes nothing, and
 * sets *n_out to 0 when n_out is not NULL. It is declared now so the ABI
 * does not change when embeddings land. */
TRIT_API trit_status trit_embed(const trit_model* model, const char* text, size_t text_len, float* out,
                                size_t capacity, size_t* n_out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TRIT_TRIT_H_ */
