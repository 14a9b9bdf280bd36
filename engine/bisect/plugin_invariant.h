// --plugin: a shared library implementing plugins/include/slsdbg_plugin.h.
// The host callbacks read the probed point's memory and registers and the
// program's symbols; every range a good verdict reads is remembered, since
// that is what refinement watches.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/bisect/exe_symbols.h"
#include "engine/bisect/invariant.h"
#include "slsdbg_plugin.h"

namespace slsdbg::bisect {

class PluginInvariant final : public Invariant {
 public:
  // dlopen + ABI check + the plugin's init. Errors: missing file, not a
  // shared library, missing slsdbg_plugin_abi_version / slsdbg_plugin_check,
  // ABI version mismatch (naming both), init refusing (with its message).
  static Result<std::unique_ptr<PluginInvariant>> load(const std::string& path, const std::string& arg,
                                                       const ExeSymbols& symbols);
  ~PluginInvariant() override;

  std::string describe() const override { return "--plugin " + path_; }
  Result<Evaluation> evaluate(const StateView& at) override;
  WatchSet watch_set(const StateView& at) override;

 private:
  PluginInvariant(std::string path, void* handle, const ExeSymbols& symbols);
  static int cb_read_memory(void* ctx, uint64_t addr, void* buf, size_t len);
  static int cb_read_register(void* ctx, const char* name, uint64_t* value);
  static int cb_lookup_symbol(void* ctx, const char* name, uint64_t* addr, uint64_t* size);
  static const char* cb_where(void* ctx);

  std::string path_;
  void* handle_;
  const ExeSymbols& symbols_;
  slsdbg_host host_{};
  int (*check_)(const slsdbg_host*, char*, size_t) = nullptr;
  void (*fini_)() = nullptr;
  const StateView* current_ = nullptr;       // during a call into the plugin
  std::vector<MemoryRange> this_call_reads_;
  std::vector<MemoryRange> good_reads_;      // union over good verdicts
};

}  // namespace slsdbg::bisect
