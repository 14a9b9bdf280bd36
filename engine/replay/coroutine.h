// ThreadedTimeline's segment replays run as coroutines: the observer hooks
// called from deep inside a run pause it for the client and are entered
// again where they paused (threaded_timeline_impl.h).
#pragma once

#include <sys/mman.h>
#include <ucontext.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>

#include "common/result.h"

namespace slsdbg::replay {

// A function run on a stack of its own, which can pause (yield) in the
// middle and be entered again where it paused. Same OS thread throughout,
// so ptrace keeps working from inside it.
class Coroutine {
 public:
  explicit Coroutine(std::function<void()> body) : body_(std::move(body)) {}
  ~Coroutine() {
    if (stack_) munmap(stack_, kStackSize);
  }
  Coroutine(const Coroutine&) = delete;
  Coroutine& operator=(const Coroutine&) = delete;

  // Runs the body until it yields or returns.
  Status enter() {
    if (finished_) return Error::msg("internal: entering a finished replay");
    if (!stack_) {
      void* mem = mmap(nullptr, kStackSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
      if (mem == MAP_FAILED) return Error::from_errno("mmap (the replay's stack)");
      stack_ = mem;
      (void)mprotect(stack_, 4096, PROT_NONE);  // a guard page: overflow faults instead of corrupting
      if (getcontext(&self_) != 0) return Error::from_errno("getcontext");
      self_.uc_stack.ss_sp = stack_;
      self_.uc_stack.ss_size = kStackSize;
      self_.uc_link = &caller_;
      const uintptr_t p = reinterpret_cast<uintptr_t>(this);
      makecontext(&self_, reinterpret_cast<void (*)()>(&Coroutine::entry), 2, static_cast<unsigned>(p >> 32),
                  static_cast<unsigned>(p & 0xffffffffu));
    }
    if (swapcontext(&caller_, &self_) != 0) return Error::from_errno("swapcontext");
    return ok_status();
  }
  void yield() { swapcontext(&self_, &caller_); }
  bool finished() const { return finished_; }

 private:
  static void entry(unsigned hi, unsigned lo) {
    auto* self = reinterpret_cast<Coroutine*>((static_cast<uintptr_t>(hi) << 32) | lo);
    self->body_();
    self->finished_ = true;
  }  // returns to uc_link: the caller

  static constexpr size_t kStackSize = 8 << 20;  // reserved, touched on demand
  std::function<void()> body_;
  void* stack_ = nullptr;
  ucontext_t caller_{}, self_{};
  bool finished_ = false;
};

}  // namespace slsdbg::replay
