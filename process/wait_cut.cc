#include "process/wait_cut.h"

#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <thread>

namespace slsdbg::process {

namespace {

using Clock = std::chrono::steady_clock;

// Marks the watcher's SIGSTOP (si_value), beside si_code SI_QUEUE and our pid:
// the program's own SIGSTOPs carry neither.
constexpr int kCookie = 0x534c5343;  // "SLSC"
constexpr int kPollMs = 5;           // the watcher's tick once an interrupt is wanted

thread_local WaitCut::State* t_cut = nullptr;

}  // namespace

struct WaitCut::State {
  int wake_fd = -1;
  int stop_fd = -1;  // eventfd: ends the watcher's poll at once
  std::thread watcher;
  std::atomic<bool> requested{false};
  std::atomic<bool> fired{false};
  std::atomic<bool> disarmed{false};
  int program_runs = 0;  // the owner thread's ProgramRun depth

  // The owner's current wait, published by wait_cut::Window.
  std::mutex mu;
  pid_t tgid = 0, tid = 0;
  bool cuttable = false;
  Clock::time_point since;
  uint64_t generation = 0, sent = 0;

  // The debugger's bytes hold its interrupt, or it hung up.
  bool interrupt_waiting(short revents) const {
    if (revents & (POLLHUP | POLLERR)) return true;
    char buf[512];
    ssize_t n = ::recv(wake_fd, buf, sizeof buf, MSG_PEEK | MSG_DONTWAIT);
    if (n == 0) return true;
    if (n < 0) return errno != EAGAIN && errno != EINTR;  // not a socket: readable is enough
    return std::memchr(buf, 0x03, static_cast<size_t>(n)) != nullptr;
  }

  void cut_long_wait() {
    std::lock_guard lock(mu);
    if (tid == 0 || !cuttable || sent == generation || Clock::now() - since < kLongWait) return;
    siginfo_t si{};
    si.si_signo = SIGSTOP;
    si.si_code = SI_QUEUE;
    si.si_pid = ::getpid();
    si.si_uid = ::getuid();
    si.si_value.sival_int = kCookie;
    (void)::syscall(SYS_rt_tgsigqueueinfo, tgid, tid, SIGSTOP, &si);
    sent = generation;
  }

  void watch() {
    while (!disarmed.load()) {
      pollfd fds[2] = {{stop_fd, POLLIN, 0}, {wake_fd, POLLIN, 0}};
      const bool wanted = requested.load();
      const int n = ::poll(fds, wanted ? 1 : 2, wanted ? kPollMs : 1000);
      if (fds[0].revents) return;
      if (!wanted && n > 0 && fds[1].revents) {
        if (interrupt_waiting(fds[1].revents)) requested = true;
        else (void)::poll(fds, 1, kPollMs);  // another packet, read at the next event: do not spin
      }
      if (requested.load()) cut_long_wait();
    }
  }
};

WaitCut::WaitCut(int wake_fd) {
  if (wake_fd < 0 || t_cut) return;
  auto s = std::make_shared<State>();
  s->wake_fd = wake_fd;
  s->stop_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (s->stop_fd < 0) return;  // no watcher: interrupts wait for the next event, as before
  s->watcher = std::thread([raw = s.get()] { raw->watch(); });
  state_ = std::move(s);
  t_cut = state_.get();
}

WaitCut::~WaitCut() {
  if (!state_) return;
  disarm();
  ::close(state_->stop_fd);
  t_cut = nullptr;
}

bool WaitCut::fired() const { return state_ && state_->fired.load(); }

void WaitCut::disarm() {
  if (!state_ || state_->disarmed.exchange(true)) return;
  const uint64_t one = 1;
  (void)!::write(state_->stop_fd, &one, sizeof one);
  state_->watcher.join();
}

void WaitCut::request() {
  if (state_) state_->requested = true;
}

ProgramRun::ProgramRun() : state_(t_cut) {
  if (state_) state_->program_runs++;
}

ProgramRun::~ProgramRun() {
  if (state_ && state_ == t_cut) state_->program_runs--;  // its WaitCut may have ended first
}

namespace wait_cut {

Window::Window(pid_t tgid, pid_t tid) : state_(t_cut) {
  if (!state_ || state_->disarmed.load()) {
    state_ = nullptr;
    return;
  }
  std::lock_guard lock(state_->mu);
  state_->tgid = tgid;
  state_->tid = tid;
  state_->cuttable = state_->program_runs > 0;
  state_->since = Clock::now();
  state_->generation++;
}

Window::~Window() {
  if (!state_) return;
  std::lock_guard lock(state_->mu);
  state_->tid = 0;
}

bool is_cut_signal(pid_t tid) {
  siginfo_t si{};
  if (::ptrace(PTRACE_GETSIGINFO, tid, nullptr, &si) != 0) return false;
  return si.si_signo == SIGSTOP && si.si_code == SI_QUEUE && si.si_pid == ::getpid() &&
         si.si_value.sival_int == kCookie;
}

bool cut_now() {
  if (!t_cut || t_cut->disarmed.load() || !t_cut->requested.load()) return false;
  t_cut->fired = true;
  return true;
}

}  // namespace wait_cut

}  // namespace slsdbg::process
