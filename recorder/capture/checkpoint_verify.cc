// --verify: the store's image of checkpoint k against the live, stopped
// process: the leader's registers, the list of capturable mappings, and the
// bytes of every readable page.
#include <sys/mman.h>
#include <sys/uio.h>

#include <cstring>

#include "process/proc_maps.h"
#include "process/task.h"
#include "recorder/capture/address_space_diff.h"
#include "store/recording.h"

namespace slsdbg::recorder {

namespace {

std::string hex(uint64_t v) {
  char buf[32];
  snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// Reads what is readable of [addr, addr+len) into buf; `readable[i]` says
// whether page i could be read.
void read_live(pid_t pid, uint64_t addr, uint8_t* buf, size_t pages, std::vector<bool>& readable) {
  readable.assign(pages, false);
  iovec local{buf, pages * kPageSize};
  iovec remote{reinterpret_cast<void*>(addr), pages * kPageSize};
  ssize_t got = process_vm_readv(pid, &local, 1, &remote, 1, 0);
  size_t ok = got > 0 ? static_cast<size_t>(got) / kPageSize : 0;
  for (size_t i = 0; i < ok; ++i) readable[i] = true;
  for (size_t i = ok; i < pages; ++i) {
    iovec l1{buf + i * kPageSize, kPageSize};
    iovec r1{reinterpret_cast<void*>(addr + i * kPageSize), kPageSize};
    readable[i] = process_vm_readv(pid, &l1, 1, &r1, 1, 0) == static_cast<ssize_t>(kPageSize);
  }
}

// The kernel may merge two adjacent compatible VMAs after the maps were read
// (e.g. when userfaultfd registration changes their flags), which no program
// can observe: compare address-space coverage, not the VMA split.
std::vector<store::Mapping> coalesced(const std::vector<store::Mapping>& maps) {
  std::vector<store::Mapping> out;
  for (const store::Mapping& m : maps) {
    if (!out.empty()) {
      store::Mapping& last = out.back();
      const bool file_contiguous = last.inode == 0 || last.file_offset + (last.end - last.start) == m.file_offset;
      if (last.end == m.start && last.prot == m.prot && last.path == m.path && last.inode == m.inode &&
          last.dev == m.dev && file_contiguous) {
        last.end = m.end;
        continue;
      }
    }
    out.push_back(m);
  }
  return out;
}

}  // namespace

Status verify_against_store(process::Task& leader, const std::vector<pid_t>& tids, const store::RecordingReader& reader,
                            CheckpointId k) {
  const std::string where = "checkpoint " + std::to_string(k.value);
  auto state = TRY_CTX(reader.process_state(k), where);
  if (state.threads.empty()) return Error::msg(where + ": no threads stored");
  auto live_regs = TRY(leader.regs());
  const auto& stored = state.threads[0].regs;
  if (!state.threads[0].restarted_syscall && std::memcmp(&live_regs, &stored, sizeof live_regs) != 0)
    return Error::msg(where + ": registers differ from the live process (rip live " + hex(live_regs.rip) + ", stored " +
                      hex(stored.rip) + ")");
  auto maps = TRY(process::read_maps(leader.tgid()));
  std::vector<store::Mapping> live_cap, stored_cap;
  for (const auto& m : maps) if (capturable(m)) live_cap.push_back(m);
  for (const auto& m : state.mappings) if (capturable(m)) stored_cap.push_back(m);
  live_cap = coalesced(live_cap);
  stored_cap = coalesced(stored_cap);
  if (live_cap.size() != stored_cap.size()) {
    return Error::msg(where + ": " + std::to_string(stored_cap.size()) + " mappings stored, " +
                      std::to_string(live_cap.size()) + " live");
  }
  for (size_t i = 0; i < live_cap.size(); ++i) {
    if (live_cap[i].start != stored_cap[i].start || live_cap[i].end != stored_cap[i].end)
      return Error::msg(where + ": mapping " + hex(stored_cap[i].start) + "-" + hex(stored_cap[i].end) +
                        " stored, live " + hex(live_cap[i].start) + "-" + hex(live_cap[i].end));
  }
  constexpr size_t kChunk = 256;
  std::vector<uint8_t> live(kChunk * kPageSize), image(kChunk * kPageSize);
  std::vector<bool> readable;
  for (const auto& m : live_cap) {
    if (!(m.prot & PROT_READ)) continue;  // PROT_NONE: nothing the program can observe
    for (uint64_t a = m.start; a < m.end; a += kChunk * kPageSize) {
      size_t pages = std::min<uint64_t>(kChunk, (m.end - a) / kPageSize);
      read_live(leader.tgid(), a, live.data(), pages, readable);
      TRY_CTX(reader.read_memory(k, a, std::span<uint8_t>(image.data(), pages * kPageSize)), where);
      for (size_t i = 0; i < pages; ++i) {
        if (!readable[i]) continue;  // e.g. file pages beyond EOF: SIGBUS for the program too
        if (std::memcmp(live.data() + i * kPageSize, image.data() + i * kPageSize, kPageSize) != 0)
          return Error::msg(where + ": page " + hex(a + i * kPageSize) + " differs from the live process");
      }
    }
  }
  (void)tids;
  return ok_status();
}

}  // namespace slsdbg::recorder
