#include "engine/replay/placeholder_mmap.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <string>

namespace slsdbg::replay {

bool map_placeholder_anonymous(pid_t tid, int64_t nr, const store::Event& ev, user_regs_struct& r) {
  if (nr != SYS_mmap || ev.result < 0) return false;
  const uint64_t prot = ev.args[2], flags = ev.args[3];
  if ((flags & MAP_ANONYMOUS) || (flags & MAP_TYPE) != MAP_SHARED || !(prot & PROT_WRITE)) return false;
  const std::string link = "/proc/" + std::to_string(tid) + "/fd/" + std::to_string(static_cast<int>(ev.args[4]));
  char target[64];
  const ssize_t n = readlink(link.c_str(), target, sizeof target - 1);
  if (n <= 0 || std::string(target, static_cast<size_t>(n)) != "/dev/null") return false;
  r.r10 |= MAP_ANONYMOUS;
  r.r8 = static_cast<uint64_t>(-1);
  return true;
}

}  // namespace slsdbg::replay
