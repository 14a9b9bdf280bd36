/* Test plugin: the right ABI version but no slsdbg_plugin_check. */
#include "slsdbg_plugin.h"

uint32_t slsdbg_plugin_abi_version(void) { return SLSDBG_PLUGIN_ABI_VERSION; }
