// One point of a recording's history as an invariant sees it: the process
// state (mappings, the executable; threads[0]'s registers are the point's
// registers) and its memory. A checkpoint gives both straight from the
// store; during refinement a Timeline moment gives them from the live replay.
#pragma once

#include <string>

#include "engine/dump/memory_source.h"
#include "store/process_state.h"

namespace slsdbg::bisect {

struct StateView {
  const store::ProcessState* state = nullptr;
  dump::MemorySource* memory = nullptr;
  std::string where;  // "checkpoint 12" or a moment "12:3:0x401136:7"
};

}  // namespace slsdbg::bisect
