#include "engine/restore/mm_layout.h"

#include <sys/mman.h>

#include <cstring>
#include <vector>

#include "common/ids.h"

namespace slsdbg::restore {

namespace {

// Locates argc/argv/envp below the auxiliary vector on the initial stack:
//   start_stack -> [argc][argv0 .. argvN-1][0][envp0 .. envpM-1][0][auxv ...]
bool locate_args(const store::ProcessState& state, uint64_t base, std::span<const uint8_t> stack, MmLayout& out) {
  if (state.auxv.size() < 32 || stack.size() < 64) return false;
  auto word = [&](uint64_t addr, uint64_t& v) {
    if (addr < base || addr + 8 > base + stack.size()) return false;
    std::memcpy(&v, stack.data() + (addr - base), 8);
    return true;
  };
  auto string_end = [&](uint64_t addr, uint64_t& end) {
    if (addr < base || addr >= base + stack.size()) return false;
    const void* nul = std::memchr(stack.data() + (addr - base), 0, base + stack.size() - addr);
    if (!nul) return false;
    end = base + (static_cast<const uint8_t*>(nul) - stack.data()) + 1;
    return true;
  };
  size_t probe = std::min<size_t>(state.auxv.size(), 64);
  for (size_t off = 0; off + probe <= stack.size(); off += 8) {
    if (std::memcmp(stack.data() + off, state.auxv.data(), probe) != 0) continue;
    uint64_t auxv_at = base + off, v = 1;
    if (!word(auxv_at - 8, v) || v != 0) continue;  // envp terminator
    std::vector<uint64_t> envp, argv;
    uint64_t at = auxv_at - 16;
    while (word(at, v) && v != 0) {
      envp.insert(envp.begin(), v);
      at -= 8;
    }
    if (v != 0) continue;
    uint64_t argv_null = at;
    at -= 8;
    bool found = false;
    while (word(at, v)) {
      if (v == argv.size()) {  // argc
        found = true;
        break;
      }
      argv.insert(argv.begin(), v);
      at -= 8;
      if (argv.size() > 4096) break;
    }
    (void)argv_null;
    if (!found || argv.empty()) continue;
    uint64_t arg_end = 0, env_end = 0;
    if (!string_end(argv.back(), arg_end)) continue;
    out.start_stack = at;
    out.arg_start = argv.front();
    out.arg_end = arg_end;
    if (!envp.empty() && string_end(envp.back(), env_end)) {
      out.env_start = envp.front();
      out.env_end = env_end;
    } else {
      out.env_start = out.env_end = arg_end;
    }
    return true;
  }
  return false;
}

}  // namespace

MmLayout derive_mm_layout(const store::ProcessState& state, uint64_t stack_start, std::span<const uint8_t> stack) {
  MmLayout l;
  const store::Mapping* first = state.mappings.empty() ? nullptr : &state.mappings.front();
  for (const auto& m : state.mappings) {
    if (m.path != state.exe || state.exe.empty()) continue;
    if ((m.prot & PROT_EXEC) && l.start_code == 0) {
      l.start_code = m.start;
      l.end_code = m.end;
    }
    if (m.prot & PROT_WRITE) {
      l.start_data = m.start;
      l.end_data = m.end;
    }
  }
  if (l.start_code == 0 && first) {
    l.start_code = first->start;
    l.end_code = first->end;
  }
  if (l.start_data == 0) l.start_data = l.end_data = l.end_code;
  l.start_brk = state.brk_start;
  l.brk = state.brk_current;
  if (l.start_brk == 0) l.start_brk = l.brk = page_ceil(l.end_data);  // no heap recorded
  if (l.brk < l.start_brk) l.brk = l.start_brk;

  if (!locate_args(state, stack_start, stack, l)) {
    l.caveat = "argv/envp not found on the recorded stack; /proc/PID/cmdline of the restored process is empty";
    uint64_t top = stack_start + stack.size();
    l.start_stack = stack.empty() ? l.end_data : top - 8;
    l.arg_start = l.arg_end = l.env_start = l.env_end = l.start_stack;
  }
  return l;
}

}  // namespace slsdbg::restore
