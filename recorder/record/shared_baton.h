// Members that share memory run one at a time (issue #16, "MAP_SHARED
// between members"). Each member is recorded by its own session on its own
// thread (member.h), so two members that map the same writable MAP_SHARED
// memory would otherwise write it concurrently, at moments no log holds.
//
// The baton is the group's one turn to run program code. A participant (a
// member with shared memory, shared_turn.h) holds it whenever its program
// runs, gives it up where the program waits (a trapped call that may block,
// before it goes into the kernel) and after each checkpoint, and takes it
// back before its program runs again. A member then sees the others' writes
// only at those points, where the recorder logs them.
//
// Turns are handed over first come, first served: a member that gives the
// baton up and asks again at once goes behind any member already waiting,
// so a program spinning on a flag that another member must set loses at
// most one tick.
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <set>

namespace slsdbg::recorder {

class SharedBaton {
 public:
  // `pid` shares memory from now on (it holds no turn yet).
  void join(pid_t pid);
  // It shares none any more, or has ended: gives its turn up. Idempotent.
  void leave(pid_t pid);
  // Blocks until it is `pid`'s turn. A no-op while it holds the baton.
  void acquire(pid_t pid);
  // Hands the baton to the member that has waited longest. A no-op unless
  // `pid` holds it.
  void release(pid_t pid);

  bool holds(pid_t pid);
  size_t participants();
  // Turns that went to a member other than the one that held the baton
  // before (for `record`'s summary and tests).
  uint64_t handovers();

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::set<pid_t> members_;
  std::deque<pid_t> waiting_;
  pid_t holder_ = 0;
  pid_t last_holder_ = 0;
  uint64_t handovers_ = 0;
};

}  // namespace slsdbg::recorder
