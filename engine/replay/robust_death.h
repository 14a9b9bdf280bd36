// What the kernel does to a dying thread's robust mutexes, done by replay
// for the thread's recorded tid. At a thread's exit the kernel walks its
// robust list (set_robust_list) and marks each futex word that names the
// thread as owner FUTEX_OWNER_DIED, so the next pthread_mutex_lock returns
// EOWNERDEAD. It compares the word with the thread's live tid; glibc
// wrote the recorded one (the tid cached in struct pthread), and a
// restored thread has another tid, so the kernel's walk marks nothing in
// replay: the threaded replay makes the same writes first.
#pragma once

#include "common/ids.h"
#include "common/result.h"
#include "process/task.h"
#include "store/process_state.h"

namespace slsdbg::replay {

// Marks what the kernel would mark at `owner`'s exit, walking the robust
// list at `head` in `task`'s memory (the list as the kernel walks it:
// entries, then list_op_pending; at most 2048). Returns the words marked.
Result<int> mark_dead_owner_mutexes(process::Task& task, uint64_t head, Tid owner);

}  // namespace slsdbg::replay
