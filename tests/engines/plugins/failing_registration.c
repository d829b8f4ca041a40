/* A plugin whose registration reports an error (as one would when its device
 * runtime is missing) after adding an engine: trit must list the plugin as
 * unavailable with this message and use none of its engines. */
#include <stdio.h>

#include "trit/engine.h"

static int32_t NeverAvailable(void* ctx, char* reason, size_t reason_size) {
  (void)ctx;
  snprintf(reason, reason_size, "never");
  return 0;
}

static const char* const kCaps[] = {"generate", NULL};
static const char* const kFormats[] = {"gguf", NULL};

static int32_t RegisterEngines(const trit_engine_host* host, char* error, size_t error_size) {
  trit_engine e = {0};
  e.struct_size = sizeof e;
  e.name = "half-registered";
  e.priority = 1000; /* would win every choice if it were used */
  e.capabilities = kCaps;
  e.formats = kFormats;
  e.available = &NeverAvailable;
  /* The remaining entry points are deliberately absent: add_engine refuses
   * such an engine, and the registration fails anyway. */
  (void)host->add_engine(host->ctx, &e);
  snprintf(error, error_size, "libnpu-runtime.so.3 not found (test plugin)");
  return 7;
}

TRIT_ENGINE_EXPORT const trit_plugin_entry trit_engine_plugin = {TRIT_ENGINE_ABI_VERSION, 0, "fails its registration",
                                                                 &RegisterEngines};
