/* slsdbg invariant plugins: the C ABI of `slsdbg bisect --plugin LIB.so`.
 *
 * A plugin is a shared library that says whether an invariant holds in the
 * recorded program at one point of its history (a checkpoint, or during
 * refinement an exact moment). It sees the program only through the host's
 * callbacks below; it links nothing of slsdbg.
 *
 * Exports (C linkage, default visibility):
 *   required  uint32_t slsdbg_plugin_abi_version(void);
 *               returns SLSDBG_PLUGIN_ABI_VERSION as the plugin was built;
 *               a different value is refused with a clear error.
 *   required  int slsdbg_plugin_check(const struct slsdbg_host* host,
 *                                     char* message, size_t message_len);
 *               returns SLSDBG_GOOD, SLSDBG_BAD or SLSDBG_ERROR and may write a
 *               NUL-terminated one-line message (why, or what it saw) into
 *               message[0..message_len). Called once per probed point; must not
 *               keep pointers from one call to the next except its own data.
 *   optional  int slsdbg_plugin_init(const struct slsdbg_host* host, const char* arg,
 *                                    char* message, size_t message_len);
 *               called once before any check with --plugin-arg's text ("" when
 *               none); nonzero = refuse, with the reason in message. The host
 *               passed here may read only symbols (memory and registers fail).
 *   optional  void slsdbg_plugin_fini(void);   called once at the end.
 *
 * Refinement: the memory a check reads through read_memory is what slsdbg
 * watches to find the exact instruction where the verdict flips. A plugin
 * whose verdict depends on anything else (registers, its own state) is still
 * bisected correctly between checkpoints, but refinement may miss the flip.
 *
 * Versioning: SLSDBG_PLUGIN_ABI_VERSION changes whenever this header changes
 * incompatibly. Fields are only ever appended to struct slsdbg_host; `size`
 * tells a plugin which ones the host has.
 */
#ifndef SLSDBG_PLUGIN_H
#define SLSDBG_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SLSDBG_PLUGIN_ABI_VERSION 1u

enum slsdbg_verdict {
  SLSDBG_GOOD = 0,  /* the invariant holds */
  SLSDBG_BAD = 1,   /* it does not */
  SLSDBG_ERROR = 2, /* cannot tell (message says why): bisect stops */
};

struct slsdbg_host {
  uint32_t abi_version; /* the host's SLSDBG_PLUGIN_ABI_VERSION */
  uint32_t size;        /* sizeof(struct slsdbg_host) in the host */
  void* ctx;            /* pass back to every callback */

  /* Copies len bytes of the program's memory at addr into buf.
   * 0 on success; -1 when any byte is unreadable (unmapped, not recorded). */
  int (*read_memory)(void* ctx, uint64_t addr, void* buf, size_t len);

  /* A register of the recorded thread by its GDB name: rax rbx rcx rdx rsi
   * rdi rbp rsp r8..r15 rip eflags cs ss ds es fs gs fs_base gs_base
   * orig_rax. 0 on success; -1 for an unknown name. */
  int (*read_register)(void* ctx, const char* name, uint64_t* value);

  /* Runtime address and size of a symbol of the program's executable
   * (.symtab, else .dynsym; load bias applied). 0 on success; -1 when absent. */
  int (*lookup_symbol)(void* ctx, const char* name, uint64_t* addr, uint64_t* size);

  /* Where the check runs, as text: "checkpoint 12" or a moment
   * "12:3:0x401136:7" (DESIGN.md, Vocabulary). Valid until the call returns. */
  const char* (*where)(void* ctx);
};

/* Prototypes, so a plugin's definitions are checked against them. */
uint32_t slsdbg_plugin_abi_version(void);
int slsdbg_plugin_init(const struct slsdbg_host* host, const char* arg, char* message, size_t message_len);
int slsdbg_plugin_check(const struct slsdbg_host* host, char* message, size_t message_len);
void slsdbg_plugin_fini(void);

#ifdef __cplusplus
}
#endif

#endif /* SLSDBG_PLUGIN_H */
