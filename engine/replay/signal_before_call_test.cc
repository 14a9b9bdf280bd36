// Checks which logged signals the threaded replay queues itself: a thread's
// first event only, only past the segment's leading signals (restore queued
// those), only asynchronous ones.
#include "engine/replay/signal_before_call.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <cstring>

namespace slsdbg::replay {
namespace {

store::Event signal_of(int32_t tid, int signo, int code) {
  store::Event ev;
  ev.kind = store::EventKind::Signal;
  ev.tid = Tid(tid);
  ev.signo = signo;
  siginfo_t si;
  std::memset(&si, 0, sizeof si);
  si.si_signo = signo;
  si.si_code = code;
  ev.siginfo.assign(reinterpret_cast<const uint8_t*>(&si), reinterpret_cast<const uint8_t*>(&si) + sizeof si);
  return ev;
}

store::Event other(int32_t tid, store::EventKind kind) {
  store::Event ev;
  ev.kind = kind;
  ev.tid = Tid(tid);
  return ev;
}

TEST(SignalBeforeCall, AThreadsFirstEventIfALaterSignal) {
  const std::vector<store::Event> events = {
      signal_of(1, SIGUSR1, SI_TKILL),           // leading: restore queued it
      other(1, store::EventKind::Syscall),
      other(2, store::EventKind::ThreadSwitch),  // not the thread's own event
      signal_of(2, SIGCHLD, CLD_EXITED),         // thread 2's first: queued
      other(2, store::EventKind::Syscall),
      signal_of(3, SIGCHLD, CLD_EXITED),         // thread 3 is not asked about
      other(4, store::EventKind::Syscall),
      signal_of(4, SIGCHLD, CLD_EXITED),         // after the call: not before it
  };
  EXPECT_EQ(signals_before_reissue(events, {Tid(1), Tid(2), Tid(4)}), std::vector<size_t>{3});
}

TEST(SignalBeforeCall, FaultsAreNotQueued) {
  const std::vector<store::Event> events = {other(1, store::EventKind::Syscall), signal_of(2, SIGSEGV, SEGV_MAPERR)};
  EXPECT_TRUE(signals_before_reissue(events, {Tid(2)}).empty());
}

}  // namespace
}  // namespace slsdbg::replay
