#include "engine/bisect/plugin_invariant.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cstddef>
#include <cstring>
#include <span>

namespace slsdbg::bisect {
namespace {

struct RegisterName {
  const char* name;
  size_t offset;
};

#define SLSDBG_REG(field) {#field, offsetof(user_regs_struct, field)}
constexpr RegisterName kRegisters[] = {
    SLSDBG_REG(r15), SLSDBG_REG(r14), SLSDBG_REG(r13), SLSDBG_REG(r12), SLSDBG_REG(rbp),    SLSDBG_REG(rbx),
    SLSDBG_REG(r11), SLSDBG_REG(r10), SLSDBG_REG(r9),  SLSDBG_REG(r8),  SLSDBG_REG(rax),    SLSDBG_REG(rcx),
    SLSDBG_REG(rdx), SLSDBG_REG(rsi), SLSDBG_REG(rdi), SLSDBG_REG(orig_rax), SLSDBG_REG(rip), SLSDBG_REG(cs),
    SLSDBG_REG(eflags), SLSDBG_REG(rsp), SLSDBG_REG(ss), SLSDBG_REG(fs_base), SLSDBG_REG(gs_base),
    SLSDBG_REG(ds), SLSDBG_REG(es), SLSDBG_REG(fs), SLSDBG_REG(gs)};
#undef SLSDBG_REG

constexpr size_t kMessageLen = 512;

std::string one_line(const char* text) {
  std::string s(text);
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

}  // namespace

PluginInvariant::PluginInvariant(std::string path, void* handle, const ExeSymbols& symbols)
    : path_(std::move(path)), handle_(handle), symbols_(symbols) {
  host_.abi_version = SLSDBG_PLUGIN_ABI_VERSION;
  host_.size = sizeof(slsdbg_host);
  host_.ctx = this;
  host_.read_memory = cb_read_memory;
  host_.read_register = cb_read_register;
  host_.lookup_symbol = cb_lookup_symbol;
  host_.where = cb_where;
}

PluginInvariant::~PluginInvariant() {
  if (fini_) fini_();
  ::dlclose(handle_);
}

Result<std::unique_ptr<PluginInvariant>> PluginInvariant::load(const std::string& path, const std::string& arg,
                                                               const ExeSymbols& symbols) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return Error::from_errno("plugin " + path);
  // dlopen searches the library path for a bare name; the user means a file.
  std::string file = path.find('/') == std::string::npos ? "./" + path : path;
  void* handle = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) return Error::msg("plugin " + path + ": " + one_line(::dlerror()));
  std::unique_ptr<PluginInvariant> p(new PluginInvariant(path, handle, symbols));
  auto version = reinterpret_cast<uint32_t (*)()>(::dlsym(handle, "slsdbg_plugin_abi_version"));
  if (!version) return Error::msg("plugin " + path + ": no slsdbg_plugin_abi_version (not an slsdbg plugin?)");
  uint32_t v = version();
  if (v != SLSDBG_PLUGIN_ABI_VERSION)
    return Error::msg("plugin " + path + ": built for plugin ABI version " + std::to_string(v) +
                      ", this slsdbg speaks version " + std::to_string(SLSDBG_PLUGIN_ABI_VERSION) +
                      " (rebuild it against plugins/include/slsdbg_plugin.h)");
  p->check_ = reinterpret_cast<int (*)(const slsdbg_host*, char*, size_t)>(::dlsym(handle, "slsdbg_plugin_check"));
  if (!p->check_) return Error::msg("plugin " + path + ": no slsdbg_plugin_check");
  auto init = reinterpret_cast<int (*)(const slsdbg_host*, const char*, char*, size_t)>(
      ::dlsym(handle, "slsdbg_plugin_init"));
  if (init) {
    char message[kMessageLen] = {0};
    if (init(&p->host_, arg.c_str(), message, sizeof message) != 0)
      return Error::msg("plugin " + path + " refused to start: " + one_line(message));
  }
  p->fini_ = reinterpret_cast<void (*)()>(::dlsym(handle, "slsdbg_plugin_fini"));
  return p;
}

Result<Evaluation> PluginInvariant::evaluate(const StateView& at) {
  char message[kMessageLen] = {0};
  current_ = &at;
  this_call_reads_.clear();
  int verdict = check_(&host_, message, sizeof message);
  current_ = nullptr;
  message[kMessageLen - 1] = 0;
  std::string detail = one_line(message);
  switch (verdict) {
    case SLSDBG_GOOD:
      for (const auto& r : this_call_reads_) {
        bool seen = false;
        for (const auto& have : good_reads_) seen = seen || have == r;
        if (!seen) good_reads_.push_back(r);
      }
      return Evaluation{Verdict::Good, detail};
    case SLSDBG_BAD:
      return Evaluation{Verdict::Bad, detail};
    case SLSDBG_ERROR:
      return Error::msg("plugin " + path_ + " cannot tell at " + at.where + (detail.empty() ? "" : ": " + detail));
    default:
      return Error::msg("plugin " + path_ + " returned " + std::to_string(verdict) + " at " + at.where +
                        " (not SLSDBG_GOOD, SLSDBG_BAD or SLSDBG_ERROR)");
  }
}

WatchSet PluginInvariant::watch_set(const StateView&) {
  WatchSet set;
  set.ranges = good_reads_;
  if (set.ranges.empty()) set.unknown_because = "the plugin read no memory through read_memory";
  return set;
}

int PluginInvariant::cb_read_memory(void* ctx, uint64_t addr, void* buf, size_t len) {
  auto* self = static_cast<PluginInvariant*>(ctx);
  if (!self->current_ || !buf) return -1;
  if (len == 0) return 0;
  if (!self->current_->memory->read(addr, std::span<uint8_t>(static_cast<uint8_t*>(buf), len)).ok()) return -1;
  self->this_call_reads_.push_back({addr, len, self->symbols_.name_at(addr)});
  return 0;
}

int PluginInvariant::cb_read_register(void* ctx, const char* name, uint64_t* value) {
  auto* self = static_cast<PluginInvariant*>(ctx);
  if (!self->current_ || !name || !value || self->current_->state->threads.empty()) return -1;
  const auto& regs = self->current_->state->threads[0].regs;
  for (const auto& r : kRegisters)
    if (std::strcmp(r.name, name) == 0) {
      std::memcpy(value, reinterpret_cast<const char*>(&regs) + r.offset, sizeof(uint64_t));
      return 0;
    }
  if (std::strcmp(name, "pc") == 0) {
    *value = regs.rip;
    return 0;
  }
  return -1;
}

int PluginInvariant::cb_lookup_symbol(void* ctx, const char* name, uint64_t* addr, uint64_t* size) {
  auto* self = static_cast<PluginInvariant*>(ctx);
  if (!name) return -1;
  auto sym = self->symbols_.lookup(name);
  if (!sym) return -1;
  if (addr) *addr = sym->addr;
  if (size) *size = sym->size;
  return 0;
}

const char* PluginInvariant::cb_where(void* ctx) {
  auto* self = static_cast<PluginInvariant*>(ctx);
  return self->current_ ? self->current_->where.c_str() : "init";
}

}  // namespace slsdbg::bisect
