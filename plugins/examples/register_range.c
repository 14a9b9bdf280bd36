/* Example invariant plugin using registers and --plugin-arg: good while a
 * register of the recorded thread stays within [LO, HI].
 *
 *   slsdbg bisect REC --plugin libslsdbg_register_range.so --plugin-arg rsp:0x7ff000000000:0x7fffffffffff
 *
 * Registers are not memory, so refinement cannot watch them: bisect reports
 * such an invariant at checkpoint granularity (see plugins/README.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slsdbg_plugin.h"

static char reg[16];
static uint64_t lo, hi;

uint32_t slsdbg_plugin_abi_version(void) { return SLSDBG_PLUGIN_ABI_VERSION; }

int slsdbg_plugin_init(const struct slsdbg_host* host, const char* arg, char* message, size_t message_len) {
  (void)host;  /* registers come with each check, no symbols needed */
  char* end = NULL;
  const char* colon = strchr(arg, ':');
  if (!colon || (size_t)(colon - arg) >= sizeof reg) {
    snprintf(message, message_len, "--plugin-arg must be REG:LO:HI, got '%s'", arg);
    return 1;
  }
  memcpy(reg, arg, (size_t)(colon - arg));
  reg[colon - arg] = 0;
  lo = strtoull(colon + 1, &end, 0);
  if (*end != ':') {
    snprintf(message, message_len, "--plugin-arg must be REG:LO:HI, got '%s'", arg);
    return 1;
  }
  hi = strtoull(end + 1, &end, 0);
  if (*end || lo > hi) {
    snprintf(message, message_len, "--plugin-arg must be REG:LO:HI with LO <= HI, got '%s'", arg);
    return 1;
  }
  return 0;
}

int slsdbg_plugin_check(const struct slsdbg_host* host, char* message, size_t message_len) {
  uint64_t value = 0;
  if (host->read_register(host->ctx, reg, &value) != 0) {
    snprintf(message, message_len, "no register named '%s'", reg);
    return SLSDBG_ERROR;
  }
  snprintf(message, message_len, "%s = 0x%llx", reg, (unsigned long long)value);
  return value >= lo && value <= hi ? SLSDBG_GOOD : SLSDBG_BAD;
}
