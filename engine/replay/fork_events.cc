#include "engine/replay/fork_events.h"

#include <sched.h>
#include <sys/syscall.h>

#include "store/summary.h"

namespace slsdbg::replay {

bool may_fork(const store::Event& ev) {
  if (ev.kind != store::EventKind::Syscall || ev.result <= 0) return false;
  switch (ev.syscall_no) {
    case SYS_fork:
    case SYS_vfork:
    case SYS_clone3: return true;
    case SYS_clone: return !(ev.args[0] & CLONE_THREAD);
    default: return false;
  }
}

ForkKind fork_kind(const store::Event& ev, const std::function<std::optional<uint64_t>(uint64_t)>& read_word) {
  if (!may_fork(ev)) return ForkKind::None;
  uint64_t flags = 0;
  switch (ev.syscall_no) {
    case SYS_fork: return ForkKind::Fork;
    case SYS_vfork: return ForkKind::VFork;
    case SYS_clone: flags = ev.args[0]; break;
    default: flags = read_word(ev.args[0]).value_or(0); break;  // clone_args.flags
  }
  if (flags & CLONE_THREAD) return ForkKind::None;
  if ((flags & CLONE_VM) && (flags & CLONE_VFORK)) return ForkKind::VFork;
  if (flags & CLONE_VM) return ForkKind::None;  // shares memory for good: no process GDB follows
  return ForkKind::Fork;
}

bool may_have_children(const store::RecordingReader& reader) {
  auto summary = store::read_summary(reader);
  if (!summary.ok()) return true;
  auto it = summary->find(store::kChildrenStartedKey);
  return it == summary->end() || it->second > 0;
}

}  // namespace slsdbg::replay
