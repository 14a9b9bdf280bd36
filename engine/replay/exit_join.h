// When a thread's end runs in the threaded replay. The recorder logs a
// thread's `exit` at its seccomp stop, before the kernel runs it; the kernel
// then clears the thread's tid word (its clear_child_tid) and wakes a futex
// on it at some later point, while another thread runs. So a pthread_join
// may read the tid word still set and go to wait on it:
//   - its futex wait is logged later in the same segment: the end runs
//     right after that wait is served (before it, the joiner would read 0
//     and never call it);
//   - a checkpoint cut the joiner between its read and its futex wait (the
//     tick came there; the wait is the next segment's): the next checkpoint
//     holds the joiner standing before a futex wait on the word, and the
//     end runs once every thread reached that checkpoint;
//   - else the end runs at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "common/ids.h"
#include "store/event.h"
#include "store/process_state.h"

namespace slsdbg::replay {

// The index of the first futex wait on `word` in `events` after `from`.
std::optional<size_t> futex_wait_after(const std::vector<store::Event>& events, size_t from, uint64_t word);

// Whether a thread of checkpoint `at` other than `exiting` stands before a
// futex wait on `word` (registers as the recorder rewinds a call: pc at its
// `syscall` instruction, rax the call's number). `at_syscall_insn(pc)` says
// whether the code at pc is a `syscall`.
bool waits_on_word_at(const store::ProcessState& at, Tid exiting, uint64_t word,
                      const std::function<bool(uint64_t pc)>& at_syscall_insn);

}  // namespace slsdbg::replay
