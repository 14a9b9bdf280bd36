// The instructions that may have run just before pc, read from the code
// (#20). The threaded timeline's reverse step from a thread's first arrival
// since its resume counts them all in one forward run of the segment, then
// keeps the one whose last arrival is followed by pc (threaded_timeline_step_back.cc):
// single-stepping from the resume instead costs the whole stretch (a hot
// loop's 10^7 instructions and more). A wrong guess costs a run, never a
// wrong answer: every way is checked by one step before it is taken.
//
// Ways in: the instruction that falls through to pc (a plain one or a jcc),
// the direct jumps to pc, the `ret`s of the callee when pc is a call's
// return address, and, when pc is a function's entry, the call that the
// return address at the thread's rsp follows. Only instruction starts of a
// decoded function (code_function.h) are given, so a counter stub placed
// at one never splits an instruction; the one exception is a direct call
// to pc found at [rsp] - 5 by its target alone (code without unwind
// tables: Go's binaries).
//
// A way whose own instruction cannot hold a counter stub (a 2-byte jcc
// with no padding near, a 1-byte ret) is counted at an instruction before
// it that can, from which it is reached by straight-line code: plain
// instructions that no branch targets, so both run equally often.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "engine/replay/code_function.h"

namespace slsdbg::replay {

// More ways (a switch's common tail) cost a verifying run each.
inline constexpr size_t kMaxWaysIn = 4;
// How far back a way's count site may lie (instructions).
inline constexpr uint64_t kMaxCountSiteSteps = 8;

struct WayIn {
  uint64_t count_at = 0;  // the instruction whose arrivals are counted
  uint64_t steps = 0;     // single steps from there to the way itself
};

// The ways into pc, likeliest first, at most kMaxWaysIn, each with a site
// that `countable` accepts; empty when the code says nothing. `at_rsp`: the
// word at the thread's stack pointer, a return address when pc is a called
// function's entry.
std::vector<WayIn> ways_in(uint64_t pc, std::optional<uint64_t> at_rsp, const CodeReader& read,
                           const std::function<bool(uint64_t)>& countable);

// The first instruction that `countable` accepts after pc in straight-line
// code (plain instructions from pc on, none a branch target), starting at
// least 5 bytes past pc so that it lies beyond a jump patched at pc; `steps`
// is its distance from pc in instructions. A reverse step from a checkpoint
// standing at pc whose ways in cannot be counted (a 1-4 byte loop head)
// counts it instead: its last arrival lies an iteration before, and single
// steps from there reach the checkpoint.
std::optional<WayIn> later_count_site(uint64_t pc, const CodeReader& read,
                                      const std::function<bool(uint64_t)>& countable);

}  // namespace slsdbg::replay
