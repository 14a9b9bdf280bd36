#include "gdbserver/replay/tls_address.h"

#include <elf.h>

#include <cstring>
#include <string>

namespace slsdbg::gdbserver {

namespace {

constexpr int kMaxModules = 4096;  // a loop in a corrupt chain ends here
// struct link_map's public head (<link.h>): l_addr, l_name, l_ld, l_next, l_prev.
constexpr uint64_t kLinkMapNext = 24;
constexpr uint64_t kLinkMapPrev = 32;

Result<uint64_t> read_u64(const MemoryReader& read, uint64_t addr) {
  uint64_t v = 0;
  TRY(read(addr, {reinterpret_cast<uint8_t*>(&v), sizeof v}));
  return v;
}

// The main program's program headers, from AT_PHDR / AT_PHNUM.
bool main_phdrs(std::span<const uint8_t> auxv, uint64_t& phdr, uint64_t& phnum) {
  phdr = phnum = 0;
  for (size_t at = 0; at + 16 <= auxv.size(); at += 16) {
    uint64_t key, value;
    std::memcpy(&key, auxv.data() + at, 8);
    std::memcpy(&value, auxv.data() + at + 8, 8);
    if (key == AT_PHDR) phdr = value;
    if (key == AT_PHNUM) phnum = value;
  }
  return phdr && phnum;
}

Result<bool> has_tls_segment(const MemoryReader& read, uint64_t link_map, bool is_main, std::span<const uint8_t> auxv) {
  uint64_t phdr = 0, phnum = 0;
  if (!is_main || !main_phdrs(auxv, phdr, phnum)) {
    const uint64_t base = TRY(read_u64(read, link_map));
    Elf64_Ehdr eh;
    if (!read(base, {reinterpret_cast<uint8_t*>(&eh), sizeof eh}).ok() || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
      return false;  // no ELF header at its base: not a module with TLS we can tell
    phdr = base + eh.e_phoff;
    phnum = eh.e_phnum;
  }
  for (uint64_t i = 0; i < phnum && i < 256; i++) {
    Elf64_Phdr ph;
    TRY(read(phdr + i * sizeof ph, {reinterpret_cast<uint8_t*>(&ph), sizeof ph}));
    if (ph.p_type == PT_TLS) return true;
  }
  return false;
}

}  // namespace

Result<RemoteAddr> thread_local_address(const MemoryReader& read, uint64_t fs_base, std::span<const uint8_t> auxv,
                                        uint64_t offset, uint64_t link_map) {
  if (link_map == 0) return Error::from_errno("no link_map given", EINVAL);
  uint64_t head = link_map;
  for (int i = 0; i < kMaxModules; i++) {
    const uint64_t prev = TRY_CTX(read_u64(read, head + kLinkMapPrev), "reading the link_map chain");
    if (prev == 0) break;
    head = prev;
  }
  uint64_t modid = 0;
  bool found = false;
  uint64_t m = head;
  for (int i = 0; m != 0 && i < kMaxModules; i++) {
    const bool tls = TRY(has_tls_segment(read, m, m == head, auxv));
    if (tls) modid++;
    if (m == link_map) {
      if (!tls) return Error::msg("that module has no thread-local storage");
      found = true;
      break;
    }
    m = TRY(read_u64(read, m + kLinkMapNext));
  }
  if (!found) return Error::msg("the link_map is not in the chain of loaded modules");
  if (fs_base == 0) return Error::msg("the thread has no TLS set up yet (fs_base is 0)");
  const uint64_t dtv = TRY_CTX(read_u64(read, fs_base + 8), "reading the thread's DTV pointer");
  const uint64_t block = TRY_CTX(read_u64(read, dtv + 16 * modid), "reading the thread's DTV");
  if (block == 0 || block == ~0ull)
    return Error::msg("module " + std::to_string(modid) + "'s thread-local storage is not allocated in this thread yet");
  return RemoteAddr(block + offset);
}

}  // namespace slsdbg::gdbserver
