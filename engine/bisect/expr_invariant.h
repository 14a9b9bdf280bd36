// --expr: a C expression over the program's globals and registers ($rax,
// $pc, ...), evaluated by GDB over a core of the probed point; true = good.
// One GDB session serves every probe (gdb_mi.h).
#pragma once

#include <memory>
#include <string>

#include "engine/bisect/exe_symbols.h"
#include "engine/bisect/gdb_mi.h"
#include "engine/bisect/invariant.h"
#include "engine/bisect/scratch_dir.h"

namespace slsdbg::bisect {

class ExprInvariant final : public Invariant {
 public:
  // `symbols` and `scratch` must outlive the invariant.
  ExprInvariant(std::string exe, std::string expr, const ExeSymbols& symbols, const ScratchDir& scratch)
      : exe_(std::move(exe)), expr_(std::move(expr)), symbols_(symbols), scratch_(scratch) {}
  std::string describe() const override { return "--expr '" + expr_ + "'"; }
  Result<Evaluation> evaluate(const StateView& at) override;
  // The globals the expression names (resolved with the ELF symbols), or why
  // that is not the whole story (registers, function calls, non-globals).
  WatchSet watch_set(const StateView& at) override;
  // The GDB session of the probes (started by the first), for --show.
  GdbMi* gdb() { return gdb_.get(); }

 private:
  std::string exe_, expr_;
  const ExeSymbols& symbols_;
  const ScratchDir& scratch_;
  std::unique_ptr<GdbMi> gdb_;
};

// Identifiers an expression names as variables: C keywords, members after
// '.'/'->', registers ('$' names, returned with the '$') and type names are
// told apart by the caller; this only tokenizes (skipping string and char
// literals). A name followed by '(' is returned with a trailing "()".
std::vector<std::string> expression_names(const std::string& expr);

}  // namespace slsdbg::bisect
