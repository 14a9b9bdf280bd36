#include "engine/restore/restore_plan.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cinttypes>
#include <cstdio>

#include "common/ids.h"

namespace slsdbg::restore {

using store::flag;
using store::Mapping;
using store::MappingFlags;

namespace {

constexpr uint64_t kVsyscallStart = 0xffffffffff600000ull;
constexpr uint64_t kUserSpaceEnd = 0x7ffffffff000ull;  // 47-bit TASK_SIZE

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_vvar(const Mapping& m) { return m.path == "[vvar]" || m.path == "[vvar_vclock]"; }

// A path that names a file we could open again (not "[heap]", "pipe:[..]",
// "/memfd:x (deleted)", ...).
bool is_reopenable_file(const Mapping& m) {
  return !m.path.empty() && m.path[0] == '/' && !ends_with(m.path, " (deleted)");
}

MappingStep anonymous_step(const Mapping& m, FillPolicy fill) {
  MappingStep s;
  s.mapping = m;
  s.source = MappingSource::Anonymous;
  bool shared = m.flags & flag(MappingFlags::Shared);
  s.mmap_flags = MAP_FIXED | MAP_ANONYMOUS | (shared ? MAP_SHARED : MAP_PRIVATE);
  if (m.flags & flag(MappingFlags::Stack)) s.mmap_flags |= MAP_GROWSDOWN;
  s.final_prot = m.prot;
  s.fill = m.prot == PROT_NONE ? FillPolicy::None : fill;
  s.map_prot = s.fill == FillPolicy::None ? m.prot : (m.prot | PROT_READ | PROT_WRITE);
  return s;
}

MappingStep file_step(const Mapping& m) {
  MappingStep s;
  s.mapping = m;
  s.source = MappingSource::File;
  bool shared = m.flags & flag(MappingFlags::Shared);
  s.mmap_flags = MAP_FIXED | (shared ? MAP_SHARED : MAP_PRIVATE);
  s.final_prot = m.prot;
  if (m.prot == PROT_NONE) {
    s.fill = FillPolicy::None;
  } else {
    s.fill = shared ? FillPolicy::VerifySharedFile : FillPolicy::PagesDifferingFromFile;
  }
  // Mapped with the recorded protection: the few copy-on-write pages of a
  // private file mapping are written through /proc/PID/mem, which needs no
  // write permission (and a shared mapping is never written at all).
  s.map_prot = m.prot;
  s.open_flags = O_CLOEXEC | ((shared && (m.prot & PROT_WRITE)) ? O_RDWR : O_RDONLY);
  return s;
}

}  // namespace

std::string describe(const Mapping& m) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%" PRIx64 "-%" PRIx64, m.start, m.end);
  std::string s = buf;
  if (!m.path.empty()) s += " " + m.path;
  else s += " (anonymous)";
  return s;
}

FileCheck probe_file_on_disk(const Mapping& m, const std::string& file) {
  struct stat st;
  const bool copy = !file.empty() && file != m.path;
  if (::stat((copy ? file : m.path).c_str(), &st) != 0) return FileCheck::Missing;
  // The recorder stores dev as the kernel's encoding from /proc/PID/maps
  // (major:minor); compare both encodings to be independent of it.
  bool same_dev = m.dev == 0 || m.dev == st.st_dev ||
                  m.dev == ((uint64_t(major(st.st_dev)) << 8) | minor(st.st_dev));
  if (!copy && (!same_dev || (m.inode != 0 && m.inode != st.st_ino))) return FileCheck::Changed;
  // Pages wholly beyond the end of the file would fault with SIGBUS.
  // The last page of the mapping must still hold at least one byte of file.
  if (uint64_t(st.st_size) <= m.file_offset + (m.end - m.start) - kPageSize) return FileCheck::Changed;
  return FileCheck::Unchanged;
}

Result<uint64_t> find_free_range(const std::vector<Mapping>& mappings, InjectArea inject, uint64_t size) {
  uint64_t candidate = 0x100000000ull;  // 4 GiB: above small non-PIE programs
  for (;;) {
    if (candidate + size > kUserSpaceEnd) return Error::msg("no free address range for restore scratch memory");
    bool clash = false;
    uint64_t next = candidate;
    auto overlaps = [&](uint64_t s, uint64_t e) {
      if (s < candidate + size && candidate < e) {
        clash = true;
        if (e > next) next = e;
      }
    };
    overlaps(inject.start, inject.start + inject.size);
    for (const auto& m : mappings) {
      if (m.start >= kVsyscallStart) continue;
      // Keep a page of distance so the kernel never merges scratch with a neighbour.
      overlaps(m.start >= kPageSize ? m.start - kPageSize : 0, m.end + kPageSize);
    }
    if (!clash) return candidate;
    candidate = page_ceil(next);
  }
}

Result<RestorePlan> plan_restore(const store::ProcessState& state, InjectArea inject, const FileProbe& probe) {
  RestorePlan plan;
  uint64_t prev_end = 0;
  for (const auto& m : state.mappings) {
    if (m.start % kPageSize || m.end % kPageSize || m.end <= m.start)
      return Error::msg("recorded mapping " + describe(m) + " is not page aligned");
    if (m.start < prev_end) return Error::msg("recorded mapping " + describe(m) + " overlaps the previous one");
    prev_end = m.end;
    if (m.start >= kVsyscallStart || m.path == "[vsyscall]") continue;
    if (inject.overlaps(m)) {
      if (!inject.contains(m)) return Error::msg("recorded mapping " + describe(m) + " covers the injection page");
      continue;  // the restorer's own injection pages are the same pages
    }
    if (m.end > kUserSpaceEnd) return Error::msg("recorded mapping " + describe(m) + " lies beyond the 47-bit user address space");

    if (is_vvar(m)) {
      plan.mappings.push_back(anonymous_step(m, FillPolicy::None));
    } else if (m.flags & flag(MappingFlags::Vdso)) {
      plan.mappings.push_back(anonymous_step(m, FillPolicy::AllPages));
    } else if ((m.flags & flag(MappingFlags::Anonymous)) || m.path.empty() || m.path[0] == '[') {
      plan.mappings.push_back(anonymous_step(m, FillPolicy::AllPages));
    } else if (!is_reopenable_file(m)) {
      // Deleted files, memfd, SysV shm: no file to map; the recorded pages
      // become anonymous memory, shared if it was shared.
      plan.mappings.push_back(anonymous_step(m, FillPolicy::AllPages));
    } else {
      FileCheck check = probe(m);
      if (check == FileCheck::Unchanged) {
        plan.mappings.push_back(file_step(m));
      } else {
        plan.warnings.push_back("mapping " + describe(m) + ": file " +
                                (check == FileCheck::Missing ? "missing" : "changed") +
                                " since recording; restored its recorded pages as anonymous memory");
        plan.mappings.push_back(anonymous_step(m, FillPolicy::AllPages));
      }
    }
  }
  plan.scratch_addr = TRY(find_free_range(state.mappings, inject, kScratchSize));
  return plan;
}

}  // namespace slsdbg::restore
