/* A test double of a device engine for the family "xdna2": available (so a
 * device run of `trit pack run` gets as far as the device lock and the
 * engine), but it opens no pack: load_model fails saying it is a test
 * plugin. It shows that a device run takes the device lock before it
 * touches the engine, and that a host run never does. Built only for the
 * tests; nothing here runs a kernel. */
#include <stdio.h>

#include "trit/engine.h"

static int32_t Available(void* ctx, char* reason, size_t reason_size) {
  (void)ctx;
  (void)reason;
  (void)reason_size;
  return 1;
}

static trit_model* LoadModel(void* ctx, const char* path, char* error, size_t error_size) {
  (void)ctx;
  snprintf(error, error_size, "probe_device is a test plugin: it opens no pack (%s)", path);
  return NULL;
}

static int32_t DescribeModel(const trit_model* model, trit_model_info* out) {
  (void)model;
  (void)out;
  return 1;
}

static int32_t Forward(trit_model* model, const trit_forward_batch* batch, const trit_kv_access* kv, int32_t n_threads,
                       float* logits, char* error, size_t error_size) {
  (void)model;
  (void)batch;
  (void)kv;
  (void)n_threads;
  (void)logits;
  snprintf(error, error_size, "probe_device runs nothing");
  return 1;
}

static void FreeModel(trit_model* model) { (void)model; }

static int32_t DescribePack(const trit_model* model, trit_pack_info* out) {
  (void)model;
  (void)out;
  return 1;
}

static const char* const kCaps[] = {"generate", NULL};
static const char* const kFormats[] = {"pack", NULL};

static int32_t RegisterEngines(const trit_engine_host* host, char* error, size_t error_size) {
  trit_engine e = {0};
  e.struct_size = sizeof e;
  e.name = "probe_device";
  e.priority = 150;
  e.capabilities = kCaps;
  e.formats = kFormats;
  e.available = &Available;
  e.load_model = &LoadModel;
  e.describe_model = &DescribeModel;
  e.forward = &Forward;
  e.free_model = &FreeModel;
  e.device_family = "xdna2";
  e.describe_pack = &DescribePack;
  if (host->add_engine(host->ctx, &e) != 0) {
    snprintf(error, error_size, "add_engine refused probe_device");
    return 1;
  }
  return 0;
}

TRIT_ENGINE_EXPORT const trit_plugin_entry trit_engine_plugin = {TRIT_ENGINE_ABI_VERSION, 0,
                                                                 "test double of an xdna2 device engine (opens no pack)",
                                                                 &RegisterEngines};
