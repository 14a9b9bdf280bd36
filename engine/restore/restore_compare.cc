#include "engine/restore/restore_compare.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <vector>

#include "engine/restore/memory_fill.h"
#include "engine/restore/restore_plan.h"
#include "process/inject.h"
#include "process/proc_maps.h"
#include "store/pack_layout.h"

namespace slsdbg::restore {

namespace {

std::string hex(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "%#" PRIx64, v);
  return b;
}

bool skipped(const store::Mapping& m) {
  return m.start >= 0xffffffffff600000ull || m.path == "[vsyscall]" ||
         (m.start >= process::kInjectPageAddr && m.end <= process::kInjectPageAddr + process::kInjectAreaSize);
}

Status compare_registers(process::Task& task, const store::ThreadState& want) {
  user_regs_struct got = TRY(task.regs());
  user_regs_struct w = want.regs;
  got.orig_rax = w.orig_rax = 0;  // restore sets -1 on purpose (restore_registers.cc)
#define CMP(field)                                                                                         \
  if (got.field != w.field)                                                                                \
    return Error::msg(std::string("register " #field ": restored ") + hex(got.field) + ", recorded " + hex(w.field));
  CMP(rip) CMP(rsp) CMP(rbp) CMP(rax) CMP(rbx) CMP(rcx) CMP(rdx) CMP(rsi) CMP(rdi) CMP(r8) CMP(r9) CMP(r10)
  CMP(r11) CMP(r12) CMP(r13) CMP(r14) CMP(r15) CMP(eflags) CMP(fs_base) CMP(gs_base) CMP(cs) CMP(ss)
#undef CMP
  if (!want.xsave.empty()) {
    std::vector<uint8_t> x = TRY(task.xsave());
    size_t n = std::min(x.size(), want.xsave.size());
    // The legacy area (x87, MXCSR, XMM0-15) and the AVX upper halves.
    for (size_t i = 0; i < n; i++) {
      if (i >= 464 && i < 512) continue;  // software-reserved bytes of FXSAVE
      if (x[i] != want.xsave[i])
        return Error::msg("XSAVE byte " + std::to_string(i) + ": restored " + std::to_string(x[i]) + ", recorded " +
                          std::to_string(want.xsave[i]));
    }
  }
  return ok_status();
}

// The kernel's robust futex list head of the restored thread (the tracer
// may read it: get_robust_list).
Status compare_robust_list(process::Task& task, const store::ThreadState& want) {
  void* head = nullptr;
  size_t len = 0;
  if (syscall(SYS_get_robust_list, task.raw_tid(), &head, &len) != 0) return Error::from_errno("get_robust_list", errno);
  if (reinterpret_cast<uint64_t>(head) != want.robust_list_head)
    return Error::msg("robust futex list: restored " + hex(reinterpret_cast<uint64_t>(head)) + ", recorded " +
                      hex(want.robust_list_head));
  return ok_status();
}

Status compare_maps(pid_t pid, const std::vector<store::Mapping>& recorded, const std::string& recording_dir) {
  std::vector<store::Mapping> live = TRY(process::read_maps(pid));
  // Per page: prot, shared flag and path of the live mapping covering it.
  auto covering = [&](uint64_t a) -> const store::Mapping* {
    for (const auto& m : live)
      if (m.start <= a && a < m.end) return &m;
    return nullptr;
  };
  uint32_t shared = store::flag(store::MappingFlags::Shared);
  for (const auto& r : recorded) {
    if (skipped(r)) continue;
    for (uint64_t a = r.start; a < r.end;) {
      const store::Mapping* l = covering(a);
      if (!l) return Error::msg("recorded mapping " + describe(r) + ": nothing mapped at " + hex(a));
      if (l->prot != r.prot)
        return Error::msg("recorded mapping " + describe(r) + ": protection " + std::to_string(l->prot) + ", recorded " +
                          std::to_string(r.prot));
      if ((l->flags & shared) != (r.flags & shared))
        return Error::msg("recorded mapping " + describe(r) + ": sharing differs");
      bool kernel_named = r.path == "[vdso]" || r.path == "[vvar]" || r.path == "[vvar_vclock]";
      // A packed recording is restored from the pack's copies.
      if (!kernel_named && l->path != r.path && l->path != store::packed_or_original(recording_dir, r.path))
        return Error::msg("recorded mapping " + describe(r) + ": restored as " + describe(*l));
      a = std::min(l->end, r.end);
    }
  }
  for (const auto& l : live) {
    if (skipped(l)) continue;
    for (uint64_t a = l.start; a < l.end; a += kPageSize) {
      bool known = false;
      for (const auto& r : recorded) known |= r.start <= a && a < r.end;
      if (!known) return Error::msg("restored process has " + describe(l) + " which the checkpoint does not");
    }
  }
  return ok_status();
}

}  // namespace

Result<CompareStats> compare_with_checkpoint(process::Task& task, const store::RecordingReader& reader, CheckpointId k,
                                             std::vector<RestoredThread>* threads) {
  CompareStats stats;
  store::ProcessState state = TRY(reader.process_state(k));
  if (state.threads.empty()) return Error::msg("checkpoint has no threads");
  TRY(compare_registers(task, state.threads.front()));
  TRY(compare_robust_list(task, state.threads.front()));
  if (threads) {
    if (threads->size() + 1 != state.threads.size())
      return Error::msg("restored " + std::to_string(threads->size() + 1) + " threads, the checkpoint holds " +
                        std::to_string(state.threads.size()));
    for (size_t i = 0; i < threads->size(); i++) {
      const store::ThreadState& want = state.threads[i + 1];
      process::Task& t = (*threads)[i].task;
      TRY_CTX(compare_registers(t, want), "thread " + std::to_string(want.tid.value));
      TRY_CTX(compare_robust_list(t, want), "thread " + std::to_string(want.tid.value));
      if (uint64_t mask = TRY(t.signal_mask()); mask != want.sigmask)
        return Error::msg("thread " + std::to_string(want.tid.value) + ": signal mask " + hex(mask) + ", recorded " +
                          hex(want.sigmask));
    }
  }
  TRY(compare_maps(task.tgid(), state.mappings, store::dir_of(reader)));
  stats.descriptors_compared = TRY(compare_descriptors(task.tgid(), state.fds));
  std::vector<uint8_t> want, got;
  for (const auto& m : state.mappings) {
    if (skipped(m) || !(m.prot & PROT_READ) || m.path == "[vvar]" || m.path == "[vvar_vclock]") continue;
    stats.mappings_compared++;
    want.resize(m.end - m.start);
    got.resize(m.end - m.start);
    TRY(reader.read_memory(k, m.start, want));
    TRY_CTX(task.read_memory(RemoteAddr(m.start), got), "reading restored " + describe(m));
    for (uint64_t off = 0; off < want.size(); off += kPageSize) {
      // A vDSO page the recorder did not store: the kernel's own is there.
      if (m.path == "[vdso]" && is_zero_page(want.data() + off)) continue;
      stats.pages_compared++;
      if (std::memcmp(want.data() + off, got.data() + off, kPageSize) != 0)
        return Error::msg("page " + hex(m.start + off) + " of " + describe(m) + " differs from checkpoint " +
                          std::to_string(k.value));
    }
  }
  return stats;
}

}  // namespace slsdbg::restore
