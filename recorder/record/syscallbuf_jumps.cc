#include "recorder/record/syscallbuf_jumps.h"

#include <capstone/capstone.h>
#include <elf.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>

namespace slsdbg::recorder {

namespace {

bool vm_read(pid_t pid, uint64_t addr, void* out, uint64_t len) {
  struct iovec local{out, len};
  struct iovec remote{reinterpret_cast<void*>(addr), len};
  return process_vm_readv(pid, &local, 1, &remote, 1, 0) == static_cast<ssize_t>(len);
}

bool is_libc(const store::Mapping& m) { return m.path.find("/libc.so") != std::string::npos; }

int32_t rel32(const uint8_t* p) {
  int32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// The sites, sorted, with a mark on every byte after a site's first.
struct Interiors {
  std::map<uint64_t, uint64_t> sites;  // address -> length
  std::vector<uint8_t> mark;           // one per byte of the text
  uint64_t text_addr = 0;

  // The site whose bytes after the first hold `target`, if any.
  bool enters(uint64_t target, uint64_t* site) const {
    if (target < text_addr || target - text_addr >= mark.size() || !mark[target - text_addr]) return false;
    auto it = sites.upper_bound(target);
    *site = (--it)->first;
    return true;
  }
};

// The target of a relative jmp, jcc, loop, jrcxz or call (its displacement
// is its last 1 or 4 bytes), or nullopt.
std::optional<uint64_t> relative_target(const cs_insn& insn) {
  const uint8_t* b = insn.bytes;
  size_t i = 0;
  while (i < insn.size && (b[i] == 0x66 || b[i] == 0x67 || b[i] == 0xf2 || b[i] == 0xf3 || b[i] == 0x2e ||
                           b[i] == 0x3e || (b[i] & 0xf0) == 0x40))
    i++;
  if (i >= insn.size) return std::nullopt;
  const uint64_t next = insn.address + insn.size;
  const uint8_t op = b[i];
  if (op == 0xeb || (op >= 0x70 && op <= 0x7f) || (op >= 0xe0 && op <= 0xe3))
    return next + static_cast<int8_t>(b[insn.size - 1]);
  if (op == 0xe8 || op == 0xe9 || (op == 0x0f && i + 1 < insn.size && (b[i + 1] & 0xf0) == 0x80))
    return next + static_cast<int64_t>(rel32(b + insn.size - 4));
  return std::nullopt;
}

// Near branches around `site`: its function disassembled from its start up
// to the farthest a rel8 branch into the site can sit. False when that
// does not decode or never meets `site`.
bool sweep_function(csh cs, cs_insn* insn, std::span<const uint8_t> text, uint64_t text_addr, uint64_t begin,
                    uint64_t end, uint64_t site, const Interiors& in, std::set<uint64_t>& out) {
  const uint64_t reach = std::min(end, site + 8 + 128);
  const uint8_t* p = text.data() + (begin - text_addr);
  size_t left = end - begin;
  uint64_t addr = begin;
  bool met = false;
  while (addr < reach) {
    if (!cs_disasm_iter(cs, &p, &left, &addr, insn)) return false;
    if (insn->address == site) met = true;
    uint64_t hit = 0;
    if (const std::optional<uint64_t> t = relative_target(*insn); t && in.enters(*t, &hit)) out.insert(hit);
  }
  return met;
}

}  // namespace

Result<std::vector<uint64_t>> eh_frame_hdr_functions(std::span<const uint8_t> hdr, uint64_t hdr_addr) {
  // version 1; eh_frame_ptr encoding (any 4-byte one); fde_count udata4
  // (0x03); table datarel sdata4 (0x3b): pairs of (initial location, FDE),
  // each relative to the header.
  if (hdr.size() < 12 || hdr[0] != 1 || hdr[2] != 0x03 || hdr[3] != 0x3b || (hdr[1] & 0x0f) < 0x02)
    return Error::msg(".eh_frame_hdr: an encoding this reader does not take");
  uint32_t count;
  std::memcpy(&count, hdr.data() + 8, sizeof count);
  if (hdr.size() < 12 + uint64_t{count} * 8) return Error::msg(".eh_frame_hdr: table cut short");
  std::vector<uint64_t> out(count);
  for (uint32_t i = 0; i < count; i++) out[i] = hdr_addr + static_cast<int64_t>(rel32(hdr.data() + 12 + i * 8));
  std::sort(out.begin(), out.end());
  return out;
}

std::set<uint64_t> sites_jumped_into(std::span<const uint8_t> text, uint64_t text_addr,
                                     std::span<const uint64_t> functions, std::span<const SysbufSite> sites) {
  Interiors in;
  in.text_addr = text_addr;
  in.mark.assign(text.size(), 0);
  std::set<uint64_t> out;
  for (const SysbufSite& s : sites) {
    const uint64_t len = s.wide ? 8 : 7;
    if (s.addr < text_addr || s.addr + len > text_addr + text.size()) {
      out.insert(s.addr);
      continue;
    }
    in.sites[s.addr] = len;
    for (uint64_t i = 1; i < len; i++) in.mark[s.addr - text_addr + i] = 1;
  }
  // Far: every rel32 call (e8), jmp (e9) and jcc (0f 8x) pattern, decoded
  // or not (one memchr pass per opcode byte: a plain loop costs ~5 ms).
  const uint8_t* b = text.data();
  const size_t n = text.size();
  for (const uint8_t op : {uint8_t{0xe8}, uint8_t{0xe9}, uint8_t{0x0f}}) {
    for (const uint8_t* q = b; (q = static_cast<const uint8_t*>(std::memchr(q, op, b + n - q))) != nullptr; q++) {
      const size_t i = q - b;
      const size_t len = op == 0x0f ? 6 : 5;
      if (i + len > n || (op == 0x0f && (b[i + 1] & 0xf0) != 0x80)) continue;
      uint64_t hit = 0;
      if (in.enters(text_addr + i + len + rel32(b + i + len - 4), &hit)) out.insert(hit);
      if (q + 1 >= b + n) break;
    }
  }
  // Near: the holding function, disassembled.
  csh cs = 0;
  if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK) {
    for (const auto& [site, len] : in.sites) out.insert(site);
    return out;
  }
  cs_insn* insn = cs_malloc(cs);
  const uint64_t text_end = text_addr + text.size();
  for (const auto& [site, len] : in.sites) {
    auto next = std::upper_bound(functions.begin(), functions.end(), site);
    if (next == functions.begin()) {
      out.insert(site);
      continue;
    }
    const uint64_t begin = *(next - 1);
    const uint64_t end = std::min(next == functions.end() ? text_end : *next, text_end);
    if (begin < text_addr || end < site + len || !sweep_function(cs, insn, text, text_addr, begin, end, site, in, out))
      out.insert(site);
  }
  cs_free(insn, 1);
  cs_close(&cs);
  return out;
}

Result<SiteJumpCheck> SiteJumpCheck::load(pid_t pid, const std::vector<store::Mapping>& maps) {
  SiteJumpCheck c;
  const store::Mapping* head = nullptr;
  for (const store::Mapping& m : maps) {
    if (!is_libc(m)) continue;
    if (m.file_offset == 0 && !head) head = &m;
    if ((m.prot & PROT_EXEC) && c.text_.empty() && m.end - m.start <= (64u << 20)) {
      c.text_addr_ = m.start;
      c.text_.resize(m.end - m.start);
      if (!vm_read(pid, m.start, c.text_.data(), c.text_.size())) return Error::from_errno("reading libc's text");
    }
  }
  if (!head || c.text_.empty()) return Error::msg("libc's mappings were not found");
  // libc is a shared object whose first PT_LOAD starts at 0: the bias is
  // where its first page is mapped.
  const uint64_t bias = head->start;
  Elf64_Ehdr eh;
  if (!vm_read(pid, bias, &eh, sizeof eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_phnum > 64)
    return Error::msg("libc's ELF header is not readable");
  std::vector<Elf64_Phdr> ph(eh.e_phnum);
  if (!vm_read(pid, bias + eh.e_phoff, ph.data(), ph.size() * sizeof(Elf64_Phdr)))
    return Error::msg("libc's program headers are not readable");
  for (const Elf64_Phdr& p : ph) {
    if (p.p_type != PT_GNU_EH_FRAME || p.p_memsz > (16u << 20)) continue;
    std::vector<uint8_t> hdr(p.p_memsz);
    if (!vm_read(pid, bias + p.p_vaddr, hdr.data(), hdr.size())) return Error::msg("libc's .eh_frame_hdr is not readable");
    c.functions_ = TRY(eh_frame_hdr_functions(hdr, bias + p.p_vaddr));
    return c;
  }
  return Error::msg("libc has no .eh_frame_hdr");
}

std::set<uint64_t> SiteJumpCheck::refused(std::span<const SysbufSite> sites) const {
  return sites_jumped_into(text_, text_addr_, functions_, sites);
}

}  // namespace slsdbg::recorder
