// What a logged fork-family call created, for the fork and vfork stops GDB
// follows (fork-events+, vfork-events+): a process, one sharing the
// caller's memory until it execs (vfork, posix_spawn's CLONE_VM|CLONE_VFORK),
// or no process at all (a thread, a failed call). Shared by both timelines'
// targets (gdbserver/replay).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "store/event.h"
#include "store/recording.h"

namespace slsdbg::replay {

enum class ForkKind { None, Fork, VFork };

// A call that may have created a process: fork, vfork, clone or clone3
// with a child pid returned (clone's flags are in the event; clone3's are in
// memory, fork_kind reads them).
bool may_fork(const store::Event& ev);

// `read_word` reads 8 bytes of the process's memory (clone3's struct
// clone_args, still in the caller's frame at the call's entry and return);
// an unreadable one counts as a plain fork.
ForkKind fork_kind(const store::Event& ev, const std::function<std::optional<uint64_t>(uint64_t)>& read_word);

// Whether the recorded process may have started a child: false only when
// the store summary says it started none, so that a recording without
// children never scans its logs for forks at every continue.
bool may_have_children(const store::RecordingReader& reader);

}  // namespace slsdbg::replay
