// One nondeterministic input of a segment (DESIGN.md: event). Segment k holds
// the ordered events between checkpoint k and checkpoint k+1.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "common/ids.h"

namespace slsdbg::store {

enum class EventKind : uint8_t {
  Syscall = 1,           // a syscall the recorder ran for real; result + memory it wrote
  Signal = 2,            // a signal delivered to the tracee (sync, or async right after a checkpoint)
  Rdtsc = 3,             // rdtsc/rdtscp trapped and emulated
  ForcedCheckpoint = 4,  // the syscall before this could not be modelled; checkpoint follows
  Exit = 5,              // the process exited (status) or was killed (signal)
  // record --threads: from here on thread `tid` runs (the others wait in a
  // syscall or parked); logged where the running thread blocked or a tick.
  ThreadSwitch = 6,
};

struct MemoryWrite {
  uint64_t addr = 0;
  std::vector<uint8_t> bytes;
};

struct Event {
  EventKind kind = EventKind::Syscall;
  Tid tid;
  uint64_t pc = 0;        // pc at the event (syscall: after the syscall insn)

  // Syscall
  int64_t syscall_no = -1;
  std::array<uint64_t, 6> args{};
  int64_t result = 0;
  std::vector<MemoryWrite> writes;  // bytes the kernel wrote into tracee memory

  // Signal: signo + raw siginfo (128 bytes); Exit: signo if killed
  int32_t signo = 0;
  std::vector<uint8_t> siginfo;

  // Rdtsc: the value returned (edx:eax); rdtscp also sets ecx = aux
  uint64_t tsc = 0;
  uint32_t tsc_aux = 0;
  bool is_rdtscp = false;

  // Exit
  int32_t exit_status = 0;
};

}  // namespace slsdbg::store
