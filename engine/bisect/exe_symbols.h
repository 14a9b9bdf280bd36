// Name -> runtime address of the recorded program's own symbols (.symtab,
// else .dynsym of its executable), with the load bias of a PIE taken from
// where the process state maps the file. Serves the plugin ABI's
// lookup_symbol and tells refinement which memory an --expr names.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/result.h"
#include "store/process_state.h"

namespace slsdbg::bisect {

struct SymbolRange {
  uint64_t addr = 0;  // runtime address
  uint64_t size = 0;
  bool is_object = false;  // STT_OBJECT/STT_TLS (data), else code or other
};

class ExeSymbols {
 public:
  // `exe`: the executable's path; the mapping of that path at file offset 0 gives the bias.
  static Result<ExeSymbols> load(const std::string& exe, const store::ProcessState& state);
  std::optional<SymbolRange> lookup(std::string_view name) const;
  // The data symbol covering addr ("bank", or "bank+4"); "" when none.
  std::string name_at(uint64_t addr) const;

 private:
  std::unordered_map<std::string, SymbolRange> by_name_;
};

}  // namespace slsdbg::bisect
