// Temporary files, directories and helper processes that must not outlive
// slsdbg when it is killed by SIGTERM, SIGINT or SIGHUP (a replay's
// /tmp/slsdbg-replay.* with GDB's socket, a --server unix socket, the GDB it
// started). Their owners remove them on every normal path; a TempGuard
// registers them for the signal path too: the handler removes them, then
// lets the signal kill the process, so the parent sees the usual exit
// (128+signal in a shell).
//
// The handlers are installed by the first guard, only for those of the three
// signals whose disposition is still the default (an ignored SIGHUP under
// nohup, or a command's own handler, stays). The handler only makes
// async-signal-safe calls: unlink, a one-level directory sweep, rmdir, kill.
#pragma once

#include <sys/types.h>

#include <string>

namespace slsdbg {

enum class TempKind {
  File,     // unlinked
  Dir,      // its entries are unlinked (one level), then it is removed
  Process,  // sent SIGTERM (a child such as GDB)
};

class TempGuard {
 public:
  TempGuard() = default;
  TempGuard(const std::string& path, TempKind kind);  // File or Dir
  explicit TempGuard(pid_t child);                      // Process
  TempGuard(TempGuard&& o) noexcept : slot_(o.slot_) { o.slot_ = -1; }
  TempGuard& operator=(TempGuard&& o) noexcept;
  TempGuard(const TempGuard&) = delete;
  TempGuard& operator=(const TempGuard&) = delete;
  // Forgets the entry (its owner removes it on the normal path).
  ~TempGuard() { release(); }
  void release();
  // false: the fixed table was full or the path too long; nothing is guarded.
  bool active() const { return slot_ >= 0; }

 private:
  int slot_ = -1;
};

}  // namespace slsdbg
