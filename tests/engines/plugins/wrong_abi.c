/* A plugin built for a future ABI version (999). trit must read the version,
 * refuse it, and never call register_engines (which would abort). */
#include <stdlib.h>

#include "trit/engine.h"

static int32_t RegisterEngines(const trit_engine_host* host, char* error, size_t error_size) {
  (void)host;
  (void)error;
  (void)error_size;
  abort(); /* reaching this is the bug under test */
}

TRIT_ENGINE_EXPORT const trit_plugin_entry trit_engine_plugin = {999u, 0, "ABI version 999", &RegisterEngines};
