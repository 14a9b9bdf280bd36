#include "engine/bisect/expr_invariant.h"

#include <cctype>
#include <set>

namespace slsdbg::bisect {
namespace {

bool is_c_keyword(const std::string& w) {
  static const std::set<std::string> kWords = {
      "sizeof", "int", "long", "short", "char", "signed", "unsigned", "float", "double", "void",
      "struct", "union", "enum", "const", "volatile", "_Bool", "bool", "true", "false"};
  return kWords.count(w) != 0;
}

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// False at a program's first checkpoints, before ld.so maps its libraries:
// then an expression over libc's symbols cannot be evaluated (bzip2's stdio
// at the default --good 0: "No symbol table is loaded").
bool libraries_loaded(const store::ProcessState& state) {
  for (const store::Mapping& m : state.mappings)
    if (m.path.find(".so") != std::string::npos && m.path.find("/ld-linux") == std::string::npos) return true;
  return false;
}

}  // namespace

std::vector<std::string> expression_names(const std::string& expr) {
  std::vector<std::string> out;
  for (size_t i = 0; i < expr.size();) {
    char c = expr[i];
    if (c == '"' || c == '\'') {  // skip a literal
      for (i++; i < expr.size() && expr[i] != c; i++)
        if (expr[i] == '\\') i++;
      i++;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {  // a number, suffixes and hex digits included
      while (i < expr.size() && (ident_char(expr[i]) || expr[i] == '.')) i++;
      continue;
    }
    bool reg = c == '$';
    if (!reg && !ident_start(c)) {
      i++;
      continue;
    }
    size_t start = i;
    i++;
    while (i < expr.size() && ident_char(expr[i])) i++;
    std::string name = expr.substr(start, i - start);
    // A member (after '.' or '->') is part of the variable before it.
    size_t before = start;
    while (before > 0 && std::isspace(static_cast<unsigned char>(expr[before - 1]))) before--;
    bool member = before > 0 && (expr[before - 1] == '.' || (before > 1 && expr[before - 1] == '>' && expr[before - 2] == '-'));
    if (member) continue;
    size_t after = i;
    while (after < expr.size() && std::isspace(static_cast<unsigned char>(expr[after]))) after++;
    if (!reg && after < expr.size() && expr[after] == '(') name += "()";
    out.push_back(name);
  }
  return out;
}

Result<Evaluation> ExprInvariant::evaluate(const StateView& at) {
  if (!gdb_) gdb_ = TRY(GdbMi::start(exe_));
  std::string core = TRY(write_core_of(at, scratch_, "probe.core"));
  TRY_CTX(gdb_->load_core(core), "gdb could not load the core of " + at.where);
  // "!= 0" rather than "!!": gdb takes "!" of a struct as "all bytes zero".
  auto value = gdb_->evaluate("(" + expr_ + ") != 0");
  if (!value.ok()) {
    const std::string hint = libraries_loaded(*at.state)
                                 ? ""
                                 : " (no library but the dynamic linker is mapped yet at " + at.where +
                                       ": a library's symbols need --good at a later checkpoint)";
    return Error::msg("gdb cannot evaluate --expr '" + expr_ + "' at " + at.where + ": " + value.error().message + hint);
  }
  if (*value == "1") return Evaluation{Verdict::Good, "'" + expr_ + "' is true"};
  if (*value == "0") return Evaluation{Verdict::Bad, "'" + expr_ + "' is false"};
  return Error::msg("gdb gave '" + *value + "' for --expr '" + expr_ + "' at " + at.where + ", not a truth value");
}

WatchSet ExprInvariant::watch_set(const StateView& /*at*/) {
  WatchSet set;
  for (const auto& name : expression_names(expr_)) {
    if (name[0] == '$') {
      set.unknown_because = "the expression reads register " + name;
      continue;
    }
    if (name.size() > 2 && name.substr(name.size() - 2) == "()") {
      set.unknown_because = "the expression calls " + name;
      continue;
    }
    if (is_c_keyword(name)) continue;
    auto sym = symbols_.lookup(name);
    if (!sym || !sym->is_object || sym->size == 0) {
      set.unknown_because = "'" + name + "' is not a global variable of the program";
      continue;
    }
    MemoryRange r{sym->addr, sym->size, name};
    bool seen = false;
    for (const auto& have : set.ranges) seen = seen || have == r;
    if (!seen) set.ranges.push_back(r);
  }
  return set;
}

}  // namespace slsdbg::bisect
