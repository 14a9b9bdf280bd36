#include "engine/replay/robust_death.h"

#include <linux/futex.h>

#include <cstring>

namespace slsdbg::replay {

namespace {

constexpr int kListLimit = 2048;  // the kernel's ROBUST_LIST_LIMIT

Result<uint64_t> read_u64(process::Task& task, uint64_t addr) {
  uint64_t v = 0;
  TRY(task.read_memory(RemoteAddr(addr), {reinterpret_cast<uint8_t*>(&v), sizeof v}));
  return v;
}

// One entry's futex word (handle_futex_death, HANDLE_DEATH_LIST): marked
// when it names the owner. A PI futex's entry is marked as well; its
// waiters are the kernel's business, which replay does not run.
Result<bool> mark_one(process::Task& task, uint64_t word_addr, uint32_t owner) {
  if (word_addr % 4 != 0) return false;  // the kernel skips it too
  uint32_t word = 0;
  if (!task.read_memory(RemoteAddr(word_addr), {reinterpret_cast<uint8_t*>(&word), sizeof word}).ok()) return false;
  if ((word & FUTEX_TID_MASK) != owner) return false;
  const uint32_t marked = (word & FUTEX_WAITERS) | FUTEX_OWNER_DIED;
  TRY(task.write_memory(RemoteAddr(word_addr), {reinterpret_cast<const uint8_t*>(&marked), sizeof marked}));
  return true;
}

}  // namespace

Result<int> mark_dead_owner_mutexes(process::Task& task, uint64_t head, Tid owner) {
  if (head == 0) return 0;
  // struct robust_list_head { robust_list list; long futex_offset; robust_list* list_op_pending; }
  auto next_of = [&](uint64_t entry) { return read_u64(task, entry); };
  Result<uint64_t> first = next_of(head);
  Result<uint64_t> offset = read_u64(task, head + 8);
  Result<uint64_t> pending = read_u64(task, head + 16);
  if (!first.ok() || !offset.ok() || !pending.ok()) return 0;  // unreadable: the kernel gives up too
  const uint64_t pending_entry = *pending & ~uint64_t(1);
  const uint32_t tid = static_cast<uint32_t>(owner.value);
  int marked = 0;
  uint64_t entry = *first & ~uint64_t(1);
  for (int n = 0; entry != head && n < kListLimit; n++) {
    Result<uint64_t> next = next_of(entry);
    if (entry != pending_entry) marked += TRY(mark_one(task, entry + *offset, tid)) ? 1 : 0;
    if (!next.ok()) break;
    entry = *next & ~uint64_t(1);
  }
  if (pending_entry) marked += TRY(mark_one(task, pending_entry + *offset, tid)) ? 1 : 0;
  return marked;
}

}  // namespace slsdbg::replay
