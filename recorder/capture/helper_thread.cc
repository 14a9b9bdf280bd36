#include "recorder/capture/helper_thread.h"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <system_error>

namespace slsdbg::recorder {

namespace {

// Every online CPU but the caller's; left as is on a single-CPU machine.
void move_off_current_cpu(std::thread& t) {
  cpu_set_t set;
  CPU_ZERO(&set);
  const int here = sched_getcpu();
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  for (long c = 0; c < n && c < CPU_SETSIZE; ++c)
    if (c != here) CPU_SET(c, &set);
  if (CPU_COUNT(&set) == 0) return;
  (void)pthread_setaffinity_np(t.native_handle(), sizeof set, &set);
}

}  // namespace

HelperThread::~HelperThread() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    quit_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

Status HelperThread::start(std::function<void()> job) {
  if (outstanding_) return Error::msg("helper thread: the previous job was not waited for");
  if (!thread_.joinable()) {
    try {
      thread_ = std::thread([this] { thread_main(); });
    } catch (const std::system_error& e) {
      return Error{std::string("starting a capture helper thread: ") + e.what(), e.code().value()};
    }
    move_off_current_cpu(thread_);
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    job_ = std::move(job);
    done_ = false;
  }
  outstanding_ = true;
  cv_.notify_all();
  return ok_status();
}

void HelperThread::wait() {
  if (!outstanding_) return;
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return done_; });
  outstanding_ = false;
}

void HelperThread::thread_main() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    // A job handed over before quit still runs: its caller may be waiting.
    cv_.wait(lock, [&] { return job_ || quit_; });
    if (!job_) return;
    std::function<void()> job = std::move(job_);
    job_ = nullptr;
    lock.unlock();
    job();
    lock.lock();
    done_ = true;
    cv_.notify_all();
  }
}

}  // namespace slsdbg::recorder
