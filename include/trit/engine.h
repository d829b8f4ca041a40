/* trit engine plugin ABI, version 1.
 *
 * A plugin is a shared library that exports ONE symbol, `trit_engine_plugin`,
 * a `const trit_plugin_entry`. trit reads its first field, `abi_version`,
 * before it calls anything in the library; a plugin built for another
 * version is listed as unavailable (with its path and both versions) and
 * nothing of it runs.
 *
 * Only plain C types cross this boundary: fixed-width integers, floats,
 * `char` strings, opaque pointers and structs of function pointers. No C++
 * type, exception or allocator does, so a plugin built with another
 * compiler or C++ runtime works. A plugin must not let an exception or a
 * longjmp escape any function below.
 *
 * Lifetimes: strings and arrays a plugin hands to trit (names, aliases,
 * capability and format lists) are copied during the call that receives
 * them. `ctx` pointers and the function pointers stay in use for as long as
 * the process runs: trit never unloads a plugin.
 *
 * Errors: functions that can fail return 0 on success and non-zero on
 * failure, writing a NUL-terminated message (at most error_size bytes,
 * truncated) into `error`.
 *
 * docs/ENGINES.md explains discovery and priorities, and walks through the
 * in-tree plugin (src/engines/plugins/reference_abi_plugin.cpp).
 */
#ifndef TRIT_ENGINE_H_
#define TRIT_ENGINE_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TRIT_ENGINE_ABI_VERSION 1u

/* The name of the one exported symbol. */
#define TRIT_ENGINE_PLUGIN_SYMBOL "trit_engine_plugin"

#if defined(_WIN32)
#define TRIT_ENGINE_EXPORT __declspec(dllexport)
#else
#define TRIT_ENGINE_EXPORT __attribute__((visibility("default")))
#endif

/* Key/value cache element types (trit_kv_view.type). */
#define TRIT_KV_F16 0 /* IEEE binary16, round to nearest even on store */
#define TRIT_KV_F32 1

/* Where one (sequence, layer) keeps its keys and values: row p holds position
 * p, `row_stride` elements of n_head_kv * head_dim each. The cache is trit's:
 * the plugin writes the rows of the positions it runs before it reads them. */
typedef struct trit_kv_view {
  int32_t type; /* TRIT_KV_F16 or TRIT_KV_F32 */
  int32_t reserved;
  void* k;
  void* v;
  int64_t row_stride;
} trit_kv_view;

/* Given to forward(): view(ctx, seq, layer, &out) fills `out` (returns 0). */
typedef struct trit_kv_access {
  void* ctx;
  int32_t (*view)(void* ctx, int32_t seq, int64_t layer, trit_kv_view* out);
} trit_kv_access;

/* Rows of one forward pass: row i is token tokens[i] at position positions[i]
 * of sequence seqs[i]; rows of one sequence are consecutive positions in
 * increasing order. Logits are wanted for rows logit_rows[0..n_logit_rows). */
typedef struct trit_forward_batch {
  int64_t n_rows;
  const int32_t* tokens;
  const int32_t* positions;
  const int32_t* seqs;
  int64_t n_logit_rows;
  const int32_t* logit_rows;
} trit_forward_batch;

/* What trit's runtime needs to know of a loaded model (sizes its KV cache). */
typedef struct trit_model_info {
  char architecture[64]; /* NUL-terminated, e.g. "llama" */
  int64_t n_vocab;
  int64_t n_ctx_train;
  int64_t n_embd;
  int64_t n_layer;
  int64_t n_head;
  int64_t n_head_kv;
  int64_t head_dim;
} trit_model_info;

typedef struct trit_model trit_model; /* opaque, owned by the plugin */

/* What a device engine reports of the pack it loaded (describe_pack). */
typedef struct trit_pack_info {
  char generation[32]; /* kernel set the pack runs: "sealed" or "per-role", NUL-terminated */
  int64_t width;       /* rows one pass runs (the kernels' prefill M), >= 1 */
  int64_t n_kernels;   /* kernel files the engine loaded, >= 1 */
  int64_t reserved[4]; /* leave 0; trit ignores them */
} trit_pack_info;

/* One engine. Lists are NULL-terminated arrays of strings (aliases may be
 * NULL for none). Capabilities: "generate", "embed", ... Formats: what
 * trit sniffs from the model file's bytes: "gguf", "pack".
 *
 * The struct grows at its end only, within ABI version 1; `struct_size`
 * says how much of it the plugin's header had. A plugin built before
 * device_family existed (struct_size == offsetof(trit_engine,
 * device_family), the version-1 base) is still accepted and is a host
 * engine: trit reads no field past struct_size. */
typedef struct trit_engine {
  uint32_t struct_size; /* sizeof(trit_engine) of the plugin's header */
  uint32_t reserved;
  const char* name;
  const char* const* aliases;
  int32_t priority; /* higher wins among available engines; builtins: cpu 100, reference 10 */
  const char* const* capabilities;
  const char* const* formats;
  void* ctx; /* passed back to available() and load_model() */

  /* 1 when the engine can run here; 0 with the reason written otherwise
   * (missing device, missing runtime library, unsupported CPU). */
  int32_t (*available)(void* ctx, char* reason, size_t reason_size);
  /* Loads the model at `path`; NULL with an error on failure. */
  trit_model* (*load_model)(void* ctx, const char* path, char* error, size_t error_size);
  int32_t (*describe_model)(const trit_model* model, trit_model_info* out);
  /* Runs `batch`, writing keys and values through `kv`, and fills `logits`
   * (n_logit_rows, n_vocab). With exactly n_threads threads. */
  int32_t (*forward)(trit_model* model, const trit_forward_batch* batch, const trit_kv_access* kv,
                     int32_t n_threads, float* logits, char* error, size_t error_size);
  void (*free_model)(trit_model* model);

  /* --- Device engines (docs/ENGINES.md, "Device engines (packs)") --- */

  /* NULL for an engine that drives no device. Otherwise the device family it
   * drives, the same string as a pack's plan.json "device" (e.g. "xdna2",
   * "hexagon-v81"). A device engine must list "pack" in `formats`; its
   * load_model(ctx, path) is given the pack DIRECTORY (it opens plan.json,
   * the weights and the kernel files itself), and each forward() call runs
   * one pass of up to `width` rows (trit_pack_info). */
  const char* device_family;
  /* Required (non-NULL) when device_family is set, ignored otherwise: fills
   * `out` (zeroed by trit) with the kernel set the loaded pack runs and its
   * width; 0 on success. */
  int32_t (*describe_pack)(const trit_model* model, trit_pack_info* out);
} trit_engine;

/* What trit hands to register_engines(). */
typedef struct trit_engine_host {
  uint32_t abi_version; /* TRIT_ENGINE_ABI_VERSION of the host */
  uint32_t reserved;
  void* ctx;
  /* Adds one engine (copied); 0 on success. */
  int32_t (*add_engine)(void* ctx, const trit_engine* engine);
} trit_engine_host;

/* The exported symbol's type. abi_version MUST stay the first field in every
 * version of this ABI: it is the only thing trit reads before deciding
 * whether to go on. */
typedef struct trit_plugin_entry {
  uint32_t abi_version; /* TRIT_ENGINE_ABI_VERSION the plugin was built against */
  uint32_t reserved;
  const char* description; /* one line, shown by trit backends */
  /* Adds the plugin's engines through host->add_engine; 0 on success. A
   * failure is reported with `error` and none of its engines is used. */
  int32_t (*register_engines)(const trit_engine_host* host, char* error, size_t error_size);
} trit_plugin_entry;

#ifdef __cplusplus
}
#endif

#endif /* TRIT_ENGINE_H_ */
