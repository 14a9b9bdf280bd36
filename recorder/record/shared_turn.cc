#include "recorder/record/shared_turn.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include <utility>

#include "common/log.h"
#include "recorder/record/thread_set.h"
#include "common/clock.h"

namespace slsdbg::recorder {

namespace {

// A call that may wait until another member's program does something.
bool waits_for_others(long nr, const std::array<uint64_t, 6>& args) {
  if (nr == SYS_fcntl) return args[1] == F_SETLKW || args[1] == F_OFD_SETLKW;
  return may_block(nr, args);
}

// Whether an address-space call may have added or removed memory another
// member may write. Most (brk, private mmaps of malloc and ld.so) cannot:
// they cost no read of the memory map.
bool may_change_sharing(long nr, const std::array<uint64_t, 6>& args, bool active) {
  switch (nr) {
    case SYS_mmap: return active || (args[3] & MAP_TYPE) != MAP_PRIVATE;
    case SYS_shmat: return true;
    case SYS_munmap: case SYS_mremap: case SYS_mprotect: case SYS_shmdt: return active;
    default: return false;
  }
}

}  // namespace

Status SharedTurn::take_part(bool new_read_as_zero) {
  TRY_CTX(view_.refresh(new_read_as_zero), "reading the shared mappings of " + std::to_string(pid_));
  if (view_.empty() && active_) {
    SLSDBG_DEBUG("record", "process %d no longer shares memory with other members", pid_);
    baton_.leave(pid_);
    active_ = held_ = false;
  } else if (!view_.empty() && !active_) {
    baton_.join(pid_);
    active_ = true;
    baton_.acquire(pid_);
    held_ = true;
    SLSDBG_DEBUG("record", "process %d shares %llu bytes of memory: it runs only in its turn (%zu taking part)", pid_,
                 static_cast<unsigned long long>(view_.bytes()), baton_.participants());
  }
  return ok_status();
}

Status SharedTurn::start() { return take_part(false); }

Status SharedTurn::on_exec() { return active_ ? take_part(false) : ok_status(); }

Status SharedTurn::give_up() {
  if (!held_) return ok_status();
  // Alone: nobody can write its memory; it keeps the turn.
  if (baton_.participants() <= 1) return ok_status();
  TRY_CTX(view_.snapshot(), "copying shared memory");
  baton_.release(pid_);
  held_ = false;
  return ok_status();
}

Result<std::vector<store::MemoryWrite>> SharedTurn::take() {
  if (held_) return std::vector<store::MemoryWrite>{};
  baton_.acquire(pid_);
  held_ = true;
  return view_.changes();
}

Status SharedTurn::before_kernel(long nr, const std::array<uint64_t, 6>& args) {
  if (!active_ || !waits_for_others(nr, args)) return ok_status();
  return give_up();
}

Status SharedTurn::at_syscall_exit(store::Event& ev, bool address_space) {
  if (active_) {
    std::vector<store::MemoryWrite> writes = TRY(take());
    for (store::MemoryWrite& w : writes) ev.writes.push_back(std::move(w));
  }
  if (!address_space || ev.result < 0 || !may_change_sharing(ev.syscall_no, ev.args, active_)) return ok_status();
  TRY(take_part(true));
  if (!active_) return ok_status();
  // A new shared mapping: what it holds beyond a fresh mapping's zeros
  // (another member wrote it first) reaches replay with this call.
  std::vector<store::MemoryWrite> fresh = TRY(view_.changes());
  for (store::MemoryWrite& w : fresh) ev.writes.push_back(std::move(w));
  return ok_status();
}

Status SharedTurn::pass_at_checkpoint() { return active_ ? give_up() : ok_status(); }

Result<bool> SharedTurn::take_back() {
  if (!active_) return false;
  const uint64_t t = monotonic_ns();
  std::vector<store::MemoryWrite> writes = TRY(take());
  last_wait_ns_ = monotonic_ns() - t;
  return !writes.empty();
}

}  // namespace slsdbg::recorder
