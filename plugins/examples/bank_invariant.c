/* Example invariant plugin for the bisect_bank fixture
 * (tests/programs/bisect_bank.c): the two balances must add up to
 * total_expected. The message names the transfer under way, so a bisect
 * report says which transfer lost the money.
 *
 *   slsdbg bisect REC --plugin build/plugins/examples/libslsdbg_bank_invariant.so
 */
#include <stdio.h>

#include "slsdbg_plugin.h"

uint32_t slsdbg_plugin_abi_version(void) { return SLSDBG_PLUGIN_ABI_VERSION; }

static int read_long(const struct slsdbg_host* host, const char* name, long* out) {
  uint64_t addr = 0, size = 0;
  if (host->lookup_symbol(host->ctx, name, &addr, &size) != 0 || size != sizeof(long)) return -1;
  return host->read_memory(host->ctx, addr, out, sizeof(long));
}

int slsdbg_plugin_init(const struct slsdbg_host* host, const char* arg, char* message, size_t message_len) {
  (void)arg;  /* this invariant takes no argument */
  uint64_t addr = 0, size = 0;
  const char* needed[] = {"bank", "total_expected", "current_transfer"};
  for (unsigned i = 0; i < sizeof needed / sizeof needed[0]; i++)
    if (host->lookup_symbol(host->ctx, needed[i], &addr, &size) != 0) {
      snprintf(message, message_len, "the program has no symbol '%s' (not the bisect_bank fixture?)", needed[i]);
      return 1;
    }
  return 0;
}

int slsdbg_plugin_check(const struct slsdbg_host* host, char* message, size_t message_len) {
  uint64_t bank_addr = 0, bank_size = 0;
  int balances[2];
  long expected = 0, transfer = 0;
  if (host->lookup_symbol(host->ctx, "bank", &bank_addr, &bank_size) != 0 || bank_size != sizeof balances ||
      host->read_memory(host->ctx, bank_addr, balances, sizeof balances) != 0 ||
      read_long(host, "total_expected", &expected) != 0) {
    snprintf(message, message_len, "cannot read bank or total_expected at %s", host->where(host->ctx));
    return SLSDBG_ERROR;
  }
  long total = (long)balances[0] + balances[1];
  /* For the message only, and only when bad: refinement watches what good
   * verdicts read, and the counter changes at every transfer. */
  uint64_t t_addr = 0, t_size = 0;
  if (total != expected && host->lookup_symbol(host->ctx, "current_transfer", &t_addr, &t_size) == 0)
    host->read_memory(host->ctx, t_addr, &transfer, sizeof transfer);
  if (total == expected) {
    snprintf(message, message_len, "total %ld", total);
    return SLSDBG_GOOD;
  }
  snprintf(message, message_len, "total %ld, expected %ld, in transfer %ld", total, expected, transfer);
  return SLSDBG_BAD;
}
