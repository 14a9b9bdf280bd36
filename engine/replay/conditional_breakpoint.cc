#include "engine/replay/conditional_breakpoint.h"

#include <linux/bpf.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "common/log.h"

namespace slsdbg::replay {

namespace {

// Offsets in struct pt_regs (x86-64), which starts bpf_perf_event_data.
struct RegOffset {
  unsigned long long user_regs_struct::*field;
  int16_t offset;
};
constexpr RegOffset kCompared[] = {
    {&user_regs_struct::rip, 128}, {&user_regs_struct::rsp, 152}, {&user_regs_struct::rax, 80},
    {&user_regs_struct::rcx, 88},  {&user_regs_struct::rdx, 96},  {&user_regs_struct::rbx, 40},
    {&user_regs_struct::rbp, 32},  {&user_regs_struct::rsi, 104}, {&user_regs_struct::rdi, 112},
    {&user_regs_struct::r8, 72},   {&user_regs_struct::r9, 64},   {&user_regs_struct::r10, 56},
    {&user_regs_struct::r11, 48},  {&user_regs_struct::r12, 24},  {&user_regs_struct::r13, 16},
    {&user_regs_struct::r14, 8},   {&user_regs_struct::r15, 0},
};

bpf_insn insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm) {
  bpf_insn i{};
  i.code = code;
  i.dst_reg = dst;
  i.src_reg = src;
  i.off = off;
  i.imm = imm;
  return i;
}

// r1 = ctx; for each register: r2 = ctx->regs.X; r3 = target.X; if r2 != r3
// return 0. return 1.
std::vector<bpf_insn> compare_program(const user_regs_struct& target, ConditionalBreakpoint::Compare compare) {
  std::vector<bpf_insn> p;
  std::vector<size_t> jumps;
  for (const RegOffset& r : kCompared) {
    if (compare == ConditionalBreakpoint::Compare::AllButRcxR11 &&
        (r.field == &user_regs_struct::rcx || r.field == &user_regs_struct::r11))
      continue;
    if (compare == ConditionalBreakpoint::Compare::AllButStringRegs &&
        (r.field == &user_regs_struct::rcx || r.field == &user_regs_struct::rsi || r.field == &user_regs_struct::rdi))
      continue;
    const uint64_t v = target.*(r.field);
    p.push_back(insn(BPF_LDX | BPF_MEM | BPF_DW, 2, 1, r.offset, 0));
    p.push_back(insn(BPF_LD | BPF_DW | BPF_IMM, 3, 0, 0, static_cast<int32_t>(v & 0xffffffffu)));
    p.push_back(insn(0, 0, 0, 0, static_cast<int32_t>(v >> 32)));
    jumps.push_back(p.size());
    p.push_back(insn(BPF_JMP | BPF_JNE | BPF_X, 2, 3, 0, 0));
  }
  p.push_back(insn(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 1));
  p.push_back(insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
  const size_t fail = p.size();
  p.push_back(insn(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0));
  p.push_back(insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
  for (size_t j : jumps) p[j].off = static_cast<int16_t>(fail - (j + 1));
  return p;
}

}  // namespace

Result<ConditionalBreakpoint> ConditionalBreakpoint::arm(pid_t tid, const user_regs_struct& target, Compare compare) {
  std::vector<bpf_insn> prog = compare_program(target, compare);
  thread_local char log[4096];  // a reverse scan may arm from two threads
  static const char kLicense[] = "GPL";
  bpf_attr load{};
  load.prog_type = BPF_PROG_TYPE_PERF_EVENT;
  load.insns = reinterpret_cast<uint64_t>(prog.data());
  load.insn_cnt = static_cast<uint32_t>(prog.size());
  load.license = reinterpret_cast<uint64_t>(kLicense);
  load.log_buf = reinterpret_cast<uint64_t>(log);
  load.log_size = sizeof log;
  load.log_level = 1;
  log[0] = 0;
  const int prog_fd = static_cast<int>(syscall(SYS_bpf, BPF_PROG_LOAD, &load, sizeof load));
  if (prog_fd < 0) return Error::from_errno(std::string("bpf(BPF_PROG_LOAD) of the register comparison ") + log);
  UniqueFd prog_owner(prog_fd);

  perf_event_attr attr{};
  attr.type = PERF_TYPE_BREAKPOINT;
  attr.size = sizeof attr;
  attr.bp_type = HW_BREAKPOINT_X;
  attr.bp_addr = target.rip;
  attr.bp_len = sizeof(long);
  attr.sample_period = 1;
  attr.sigtrap = 1;
  attr.remove_on_exec = 1;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  const int ev = static_cast<int>(syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC));
  if (ev < 0) return Error::from_errno("perf_event_open(breakpoint)");
  UniqueFd event_owner(ev);
  if (ioctl(ev, PERF_EVENT_IOC_SET_BPF, prog_fd) != 0) return Error::from_errno("ioctl(PERF_EVENT_IOC_SET_BPF)");
  return ConditionalBreakpoint(std::move(prog_owner), std::move(event_owner), target.rip);
}

namespace {
std::atomic<uint64_t> closed_exceptions{0};
}

uint64_t ConditionalBreakpoint::closed_debug_exceptions() { return closed_exceptions.load(); }

ConditionalBreakpoint::~ConditionalBreakpoint() {
  if (!event_.valid()) return;  // moved from
  uint64_t hits = 0;  // the perf count: every #DB, whatever the BPF compare decided
  if (::read(event_.get(), &hits, sizeof hits) == static_cast<ssize_t>(sizeof hits)) {
    closed_exceptions += hits;
    SLSDBG_DEBUG("replay", "perf breakpoint at 0x%llx: %llu debug exceptions", (unsigned long long)pc_,
                 (unsigned long long)hits);
  }
}

}  // namespace slsdbg::replay
