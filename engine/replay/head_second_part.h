#pragma once
// A head's second part (head_progress.h says how it is sized), for any run
// that can read its thread and run it on by CPU time: the single-thread
// head (checkpoint_arrival_head.cc, whose fallback is the head's fork) and
// the threaded one (thread_check.cc, whose fallback is a rerun of the
// segment). The values are the general registers but rsp, then the stack
// words around the checkpoint's rsp (a -O0 loop's index; below rsp: a
// leaf function's red zone).
#include <sys/user.h>

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "common/result.h"

namespace slsdbg::replay {

using ReadWords = std::function<Status(uint64_t addr, std::span<uint8_t> out)>;

// The values read from `r` and, through `read`, the words around `rsp`
// (registers only when the words cannot be read).
std::vector<uint64_t> progress_values(const user_regs_struct& r, uint64_t rsp, const ReadWords& read);

struct SecondPartRun {
  std::function<Result<user_regs_struct>()> regs;  // the thread's, now
  ReadWords live;                                  // its memory, now
  ReadWords recorded;                              // checkpoint k+1's memory
  // Runs the thread `ns` more of its CPU time: false when something else
  // stopped it (the caller has then taken its fallback).
  std::function<Result<bool>(uint64_t ns, const char* what)> run;
};

enum class SecondPartEnd {
  None,     // no value to size it by, or too little left: the thread stands where the first part left it
  Ran,      // it ran `ns` more, the value still short of its target
  Stopped,  // a part was stopped otherwise (run returned false)
  Past,     // the value is not short of its target any more: the caller must fall back
};
struct SecondPart {
  SecondPartEnd end = SecondPartEnd::None;
  uint64_t ns = 0;  // CPU time run in this part (probe and last part)
};

// After a first part of `first_ns` from the values `start`, toward the
// checkpoint's registers `target` (whose recorded tail took `hint_ns`).
// `where` names the checkpoint in debug lines.
Result<SecondPart> run_second_part(const user_regs_struct& target, uint64_t first_ns, uint64_t hint_ns,
                                   const std::vector<uint64_t>& start, const SecondPartRun& io,
                                   const std::string& where);

}  // namespace slsdbg::replay
