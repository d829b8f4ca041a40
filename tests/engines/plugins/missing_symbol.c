/* A shared library that is not a trit engine plugin: it loads, but does not
 * export trit_engine_plugin. trit must list it as unavailable. */
#include "trit/engine.h"

TRIT_ENGINE_EXPORT int trit_engine_plugin_misspelled(void) { return 0; }
