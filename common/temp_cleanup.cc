// Signal-path removal of temporary files (see temp_cleanup.h).
#include "common/temp_cleanup.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>

namespace slsdbg {

namespace {

// A fixed table, so the handler needs no allocation and no lock.
constexpr int kSlots = 32;
enum : int { kFree = 0, kFilling = 1, kLive = 2 };

struct Slot {
  std::atomic<int> state{kFree};
  TempKind kind = TempKind::File;
  pid_t pid = 0;
  char path[4096] = {};
};
Slot g_slots[kSlots];

constexpr int kSignals[] = {SIGTERM, SIGINT, SIGHUP};

// Unlinks the entries of DIR (one level; an empty subdirectory too), then DIR.
void sweep_dir(const char* dir) {
  int fd = ::open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    alignas(8) char buf[4096];
    for (;;) {
      long n = ::syscall(SYS_getdents64, fd, buf, sizeof buf);
      if (n <= 0) break;
      for (long off = 0; off < n;) {
        struct Dirent64 {
          uint64_t ino;
          int64_t off;
          unsigned short reclen;
          unsigned char type;
          char name[1];
        };
        auto* d = reinterpret_cast<Dirent64*>(buf + off);
        const char* name = d->name;
        if (std::strcmp(name, ".") != 0 && std::strcmp(name, "..") != 0 && ::unlinkat(fd, name, 0) != 0)
          ::unlinkat(fd, name, AT_REMOVEDIR);
        off += d->reclen;
      }
    }
    ::close(fd);
  }
  ::rmdir(dir);
}

void on_fatal_signal(int sig) {
  for (TempKind pass : {TempKind::Process, TempKind::File, TempKind::Dir}) {
    for (int i = kSlots - 1; i >= 0; i--) {
      Slot& s = g_slots[i];
      if (s.state.load(std::memory_order_acquire) != kLive || s.kind != pass) continue;
      if (pass == TempKind::Process) ::kill(s.pid, SIGTERM);
      else if (pass == TempKind::File) ::unlink(s.path);
      else sweep_dir(s.path);
    }
  }
  // SA_RESETHAND put the default action back: die of the signal itself.
  ::raise(sig);
}

void install_handlers_once() {
  static std::atomic<bool> installed{false};
  if (installed.exchange(true)) return;
  for (int sig : kSignals) {
    struct sigaction old{};
    if (::sigaction(sig, nullptr, &old) != 0) continue;
    if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) continue;  // ignored, or someone's handler
    struct sigaction sa{};
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    for (int other : kSignals) sigaddset(&sa.sa_mask, other);
    sa.sa_flags = SA_RESETHAND | SA_NODEFER;
    ::sigaction(sig, &sa, nullptr);
  }
}

int claim(TempKind kind, const std::string& path, pid_t pid) {
  if (path.size() >= sizeof g_slots[0].path) return -1;
  install_handlers_once();
  for (int i = 0; i < kSlots; i++) {
    int expected = kFree;
    if (!g_slots[i].state.compare_exchange_strong(expected, kFilling)) continue;
    g_slots[i].kind = kind;
    g_slots[i].pid = pid;
    std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
    g_slots[i].state.store(kLive, std::memory_order_release);
    return i;
  }
  return -1;
}

}  // namespace

TempGuard::TempGuard(const std::string& path, TempKind kind) : slot_(claim(kind, path, 0)) {}

TempGuard::TempGuard(pid_t child) : slot_(claim(TempKind::Process, "", child)) {}

TempGuard& TempGuard::operator=(TempGuard&& o) noexcept {
  if (this != &o) {
    release();
    slot_ = o.slot_;
    o.slot_ = -1;
  }
  return *this;
}

void TempGuard::release() {
  if (slot_ < 0) return;
  g_slots[slot_].state.store(kFree, std::memory_order_release);
  slot_ = -1;
}

}  // namespace slsdbg
