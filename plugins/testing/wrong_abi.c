/* Test plugin: claims an ABI version no host has, so loading must fail. */
#include "slsdbg_plugin.h"

uint32_t slsdbg_plugin_abi_version(void) { return SLSDBG_PLUGIN_ABI_VERSION + 1000; }

int slsdbg_plugin_check(const struct slsdbg_host* host, char* message, size_t message_len) {
  (void)host, (void)message, (void)message_len;  /* never called: loading fails first */
  return SLSDBG_GOOD;
}
