/* A device engine as a plugin declares one: device family "testnpu", formats
 * {"pack"}, a describe_pack entry point. There is no testnpu device anywhere,
 * so available() says so, and every other entry point fails saying this is a
 * test plugin: nothing here pretends to run a pack. trit must read and list
 * the family, and name this engine and its reason when a testnpu pack asks
 * for a device engine. */
#include <stdio.h>

#include "trit/engine.h"

static int32_t Available(void* ctx, char* reason, size_t reason_size) {
  (void)ctx;
  snprintf(reason, reason_size, "no testnpu device on this machine");
  return 0;
}

static trit_model* LoadModel(void* ctx, const char* path, char* error, size_t error_size) {
  (void)ctx;
  snprintf(error, error_size, "testnpu_engine is a test plugin and cannot load %s", path);
  return NULL;
}

static int32_t DescribeModel(const trit_model* model, trit_model_info* out) {
  (void)model;
  (void)out;
  return 1; /* no model is ever loaded */
}

static int32_t Forward(trit_model* model, const trit_forward_batch* batch, const trit_kv_access* kv, int32_t n_threads,
                       float* logits, char* error, size_t error_size) {
  (void)model;
  (void)batch;
  (void)kv;
  (void)n_threads;
  (void)logits;
  snprintf(error, error_size, "testnpu_engine is a test plugin and runs nothing");
  return 1;
}

static void FreeModel(trit_model* model) { (void)model; }

static int32_t DescribePack(const trit_model* model, trit_pack_info* out) {
  (void)model;
  (void)out;
  return 1; /* no pack is ever loaded */
}

static const char* const kCaps[] = {"generate", NULL};
static const char* const kFormats[] = {"pack", NULL};

static int32_t RegisterEngines(const trit_engine_host* host, char* error, size_t error_size) {
  trit_engine e = {0};
  e.struct_size = sizeof e;
  e.name = "testnpu_engine";
  e.priority = 200;
  e.capabilities = kCaps;
  e.formats = kFormats;
  e.available = &Available;
  e.load_model = &LoadModel;
  e.describe_model = &DescribeModel;
  e.forward = &Forward;
  e.free_model = &FreeModel;
  e.device_family = "testnpu";
  e.describe_pack = &DescribePack;
  if (host->add_engine(host->ctx, &e) != 0) {
    snprintf(error, error_size, "add_engine refused testnpu_engine");
    return 1;
  }
  return 0;
}

TRIT_ENGINE_EXPORT const trit_plugin_entry trit_engine_plugin = {TRIT_ENGINE_ABI_VERSION, 0,
                                                                 "test device engine for the family testnpu (no device)",
                                                                 &RegisterEngines};
