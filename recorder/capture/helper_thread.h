// A thread for capture's side work (the second half of a copy or a scan,
// a deferred copy): one job at a time, started on first use and placed off
// the CPU the recorder and tracee are pinned to (a thread inherits that pin),
// so that it works beside the tracee instead of taking turns with it.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "common/result.h"

namespace slsdbg::recorder {

class HelperThread {
 public:
  HelperThread() = default;
  ~HelperThread();  // the job in hand is finished, then the thread joins
  HelperThread(const HelperThread&) = delete;
  HelperThread& operator=(const HelperThread&) = delete;

  // Runs `job` on the thread and returns at once. Fails if the previous job
  // was not waited for, or if the thread cannot be started.
  Status start(std::function<void()> job);
  // Until the started job has returned (what it wrote is then visible); at
  // once if none was started.
  void wait();
  bool outstanding() const { return outstanding_; }

 private:
  void thread_main();

  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::function<void()> job_;  // guarded by mu_
  bool done_ = false;          // guarded by mu_
  bool quit_ = false;          // guarded by mu_
  bool outstanding_ = false;   // the caller's thread only
};

}  // namespace slsdbg::recorder
