#include "recorder/record/tick.h"

#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

namespace slsdbg::recorder {

namespace {

const int kTickSignal = SIGRTMIN + 3;
// Per recorder thread: each member's session has its own tick (member.h),
// and the signal is aimed at the thread that owns the timer.
thread_local volatile sig_atomic_t g_due = 0;

void on_tick(int) { g_due = 1; }

void set_blocked(int how) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, kTickSignal);
  pthread_sigmask(how, &set, nullptr);
}

}  // namespace

Result<std::unique_ptr<Tick>> Tick::start(uint64_t interval_ns) {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_tick;  // no SA_RESTART: waitpid must return EINTR
  sigemptyset(&sa.sa_mask);
  if (sigaction(kTickSignal, &sa, nullptr) != 0) return Error::from_errno("sigaction(tick)");
  set_blocked(SIG_BLOCK);
  std::unique_ptr<Tick> t(new Tick());
  sigevent sev;
  std::memset(&sev, 0, sizeof sev);
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = kTickSignal;
  sev._sigev_un._tid = static_cast<pid_t>(syscall(SYS_gettid));
  if (timer_create(CLOCK_MONOTONIC, &sev, &t->timer_) != 0) {
    return Error::from_errno("timer_create");
  }
  t->armed_ = true;
  t->owner_tid_ = sev._sigev_un._tid;
  t->interval_ns_ = interval_ns;
  itimerspec its;
  its.it_interval.tv_sec = static_cast<time_t>(interval_ns / 1'000'000'000);
  its.it_interval.tv_nsec = static_cast<long>(interval_ns % 1'000'000'000);
  its.it_value = its.it_interval;
  if (timer_settime(t->timer_, 0, &its, nullptr) != 0) {
    return Error::from_errno("timer_settime");
  }
  return t;
}

void Tick::allow() { set_blocked(SIG_UNBLOCK); }
void Tick::hold() { set_blocked(SIG_BLOCK); }

bool Tick::take_due() {
  if (!g_due) return false;
  g_due = 0;
  return true;
}

void Tick::rearm() {
  if (!armed_) return;
  itimerspec its;
  its.it_interval.tv_sec = static_cast<time_t>(interval_ns_ / 1'000'000'000);
  its.it_interval.tv_nsec = static_cast<long>(interval_ns_ % 1'000'000'000);
  its.it_value = its.it_interval;
  timer_settime(timer_, 0, &its, nullptr);
  g_due = 0;
}

void Tick::fire_now(pid_t owner) { syscall(SYS_tgkill, getpid(), owner, kTickSignal); }

void Tick::stop() {
  if (armed_) timer_delete(timer_);
  armed_ = false;
}

Tick::~Tick() { stop(); }

}  // namespace slsdbg::recorder
