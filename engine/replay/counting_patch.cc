#include "engine/replay/counting_patch.h"

#include <sys/mman.h>
#include <sys/syscall.h>

#include <cstring>

#include "engine/replay/trampoline_code.h"
#include "process/inject.h"

namespace slsdbg::replay {

namespace {

// Page layout: code from 0, data from kData.
constexpr uint64_t kData = 2048;
constexpr uint64_t kSavedRcx = kData;
constexpr uint64_t kSavedRax = kData + 24;
constexpr uint64_t kCount = kCounterCountOffset;
constexpr uint64_t kLimit = kCounterLimitOffset;
static_assert(kCount == kData + 8 && kLimit == kData + 16);

}  // namespace

Result<CounterStub> build_counter_stub(std::span<const uint8_t> code, uint64_t pc, uint64_t page) {
  Emitter scratch(page);  // checks that the code at pc can move, and how much of it
  const uint64_t length = TRY(emit_displaced(code, pc, scratch));
  return build_counter_stub(code, PatchSite::at(pc, length), page);
}

Result<CounterStub> build_counter_stub(std::span<const uint8_t> code, const PatchSite& site, uint64_t page) {
  Emitter e(page);
  TRY(emit_before_pc(code, site, e));
  CounterStub s;
  s.entry = e.here();
  // Without flags (pushfq/popfq cost about 5 times a tight loop's body):
  // rax = count + 1 by lea, rcx = count - limit by not and lea, jrcxz.
  e.rip_op(0x89, 1, page + kSavedRcx);  // mov [saved_rcx], rcx
  e.rip_op(0x89, 0, page + kSavedRax);  // mov [saved_rax], rax
  e.rip_op(0x8b, 0, page + kCount);     // mov rax, [count]
  for (uint8_t b : {0x48, 0x8d, 0x40, 0x01}) e.byte(b);  // lea rax, [rax + 1]
  e.rip_op(0x89, 0, page + kCount);     // mov [count], rax
  e.rip_op(0x8b, 1, page + kLimit);     // mov rcx, [limit]
  for (uint8_t b : {0x48, 0xf7, 0xd1}) e.byte(b);              // not rcx (= -limit - 1)
  for (uint8_t b : {0x48, 0x8d, 0x4c, 0x01, 0x01}) e.byte(b);  // lea rcx, [rcx + rax + 1]
  e.byte(0xe3);                         // jrcxz limit
  e.byte(0x00);                         // (bound below)
  const size_t to_limit = e.out.size() - 1;
  e.rip_op(0x8b, 0, page + kSavedRax);  // mov rax, [saved_rax]
  e.rip_op(0x8b, 1, page + kSavedRcx);  // mov rcx, [saved_rcx]
  e.byte(0xe9);                         // jmp run
  const size_t to_run = e.out.size();
  for (int i = 0; i < 4; i++) e.byte(0);
  e.out[to_limit] = static_cast<uint8_t>(e.out.size() - (to_limit + 1));  // limit:
  e.rip_op(0x8b, 0, page + kSavedRax);  // mov rax, [saved_rax]
  e.rip_op(0x8b, 1, page + kSavedRcx);  // mov rcx, [saved_rcx]
  e.byte(0xcc);                         // int3: the limit
  s.reached = e.here();
  e.byte(0xe9);                         // jmp run (reached and run stay apart)
  const size_t reached_to_run = e.out.size();
  for (int i = 0; i < 4; i++) e.byte(0);
  s.run = e.here();
  e.bind(to_run, s.run);
  e.bind(reached_to_run, s.run);
  TRY(emit_from_pc(code, site, e));
  s.back = e.here() - kJmpLen;
  s.displaced = site.length;
  if (e.out.size() > kData) return Error::msg("counter stub too long");
  e.out.resize(kTrampPage - 64, 0xcc);
  std::memset(&e.out[kData], 0, 32);  // saved rcx, count, limit (0: never), saved rax
  s.bytes = std::move(e.out);
  return s;
}

Result<CountingPatch> CountingPatch::install(process::Task& task, const PatchSite& site,
                                            std::span<const uint8_t> code) {
  const uint64_t pc = site.anchor;  // where the jump goes
  const uint64_t jump_at = site.relay ? site.relay : pc;
  const uint64_t page = TRY(free_page_near(task.tgid(), jump_at, PagePlace::Quiet));
  CounterStub s = TRY(build_counter_stub(code, site, page));
  const user_regs_struct now = TRY(task.regs());
  if (now.rip > pc && now.rip < pc + s.displaced && now.rip != site.pc)
    return Error::msg("the tracee stands inside the bytes the jump would replace");
  std::vector<uint8_t> relay_code(site.relay ? kJmpLen : 0);
  if (site.relay) TRY_CTX(task.read_memory(RemoteAddr(site.relay), relay_code), "reading the padding of the relay");
  const int64_t mapped = TRY(process::inject_syscall(
      task, SYS_mmap,
      {page, kTrampPage, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
       static_cast<uint64_t>(-1), 0}));
  if (mapped < 0 || static_cast<uint64_t>(mapped) != page)
    return Error::msg("mmap of the counter stub at " + hex_addr(page) + " failed (" + std::to_string(mapped) + ")");
  CountingPatch c;
  c.pc_ = site.pc;
  c.anchor_ = pc;
  c.entry_ = s.entry;
  c.page_ = page;
  c.reached_ = s.reached;
  c.run_ = s.run;
  c.back_ = s.back;
  c.relay_ = site.relay;
  c.site_ = site;
  c.relay_original_ = relay_code;
  c.original_.assign(code.begin(), code.begin() + static_cast<long>(s.displaced));
  Status written = task.write_memory(RemoteAddr(page), s.bytes);
  const SiteJump jump = site_jump(site, s.displaced, page);
  c.jump_ = jump;
  if (site.relay && written.ok()) written = task.write_memory(RemoteAddr(site.relay), jump.at_relay);
  if (written.ok()) written = task.write_memory(RemoteAddr(pc), jump.at_anchor);
  if (!written.ok()) {
    if (site.relay) (void)task.write_memory(RemoteAddr(site.relay), relay_code);
    (void)process::inject_syscall(task, SYS_munmap, {page, kTrampPage, 0, 0, 0, 0});
    return written.take_error();
  }
  return c;
}

Status CountingPatch::lift_jump(process::Task& task) const {
  TRY_CTX(task.write_memory(RemoteAddr(anchor_), original_), "putting back the code at " + hex_addr(anchor_));
  if (relay_)
    TRY_CTX(task.write_memory(RemoteAddr(relay_), relay_original_), "putting back the padding at " + hex_addr(relay_));
  return ok_status();
}

Status CountingPatch::restore_jump(process::Task& task) const {
  if (relay_) TRY_CTX(task.write_memory(RemoteAddr(relay_), jump_.at_relay), "the relay's jump at " + hex_addr(relay_));
  TRY_CTX(task.write_memory(RemoteAddr(anchor_), jump_.at_anchor), "the counter's jump at " + hex_addr(anchor_));
  return ok_status();
}

Status CountingPatch::unmap_page(process::Task& task, uint64_t page) {
  const int64_t r = TRY(process::inject_syscall(task, SYS_munmap, {page, kTrampPage, 0, 0, 0, 0}));
  if (r != 0) return Error::msg("munmap of the counter stub failed (" + std::to_string(r) + ")");
  return ok_status();
}

Status CountingPatch::remove(process::Task& task) {
  TRY(lift_jump(task));
  return unmap_page(task, page_);
}

bool CountingPatch::intact(process::Task& task) const {
  if (relay_) {
    uint8_t b[2] = {};
    return task.read_memory(RemoteAddr(anchor_), b).ok() && b[0] == 0xeb;
  }
  uint8_t b[5] = {};
  if (!task.read_memory(RemoteAddr(anchor_), b).ok()) return false;
  const int32_t rel = static_cast<int32_t>(static_cast<int64_t>(page_ - (anchor_ + kJmpLen)));
  uint8_t want[5] = {0xe9};
  std::memcpy(&want[1], &rel, 4);
  return std::memcmp(b, want, 5) == 0;
}

void CountingPatch::discard(process::Task& task) {
  (void)process::inject_syscall(task, SYS_munmap, {page_, kTrampPage, 0, 0, 0, 0});
}

Result<uint64_t> CountingPatch::count(process::Task& task) const {
  uint64_t n = 0;
  uint8_t b[8];
  TRY(task.read_memory(RemoteAddr(page_ + kCount), b));
  std::memcpy(&n, b, 8);
  return n;
}

Status CountingPatch::set_count(process::Task& task, uint64_t n) const {
  uint8_t b[8];
  std::memcpy(b, &n, 8);
  return task.write_memory(RemoteAddr(page_ + kCount), b);
}

Status CountingPatch::set_limit(process::Task& task, uint64_t n) const {
  uint8_t b[8];
  std::memcpy(b, &n, 8);
  return task.write_memory(RemoteAddr(page_ + kLimit), b);
}

void CountingPatch::hide(uint64_t addr, std::span<uint8_t> bytes) const {
  for (size_t i = 0; i < original_.size(); i++) {
    const uint64_t a = anchor_ + i;
    if (a >= addr && a < addr + bytes.size()) bytes[a - addr] = original_[i];
  }
  for (size_t i = 0; i < relay_original_.size(); i++) {
    const uint64_t a = relay_ + i;
    if (a >= addr && a < addr + bytes.size()) bytes[a - addr] = relay_original_[i];
  }
}

std::optional<uint64_t> counter_stub_program_pc(const CounterStub& s, std::span<const uint8_t> code,
                                                const PatchSite& site, uint64_t page, uint64_t rip) {
  // The moved instructions before pc start the page; those from pc on start at s.run.
  // Right after the last one before pc (a watch caught a moved store there):
  // at pc itself, its arrival not counted yet.
  if (site.anchored() && rip == s.entry) return site.pc;
  const bool before = rip >= page && rip < s.entry;
  if (!before && !(rip >= s.run && rip < s.back)) return std::nullopt;
  return moved_instruction_at(code, site, before, before ? page : s.run, rip);
}

std::optional<uint64_t> CountingPatch::moved_from(uint64_t rip) const {
  CounterStub at;  // the stub's addresses this patch keeps
  at.entry = entry_;
  at.run = run_;
  at.back = back_;
  return counter_stub_program_pc(at, original_, site_, page_, rip);
}

}  // namespace slsdbg::replay
