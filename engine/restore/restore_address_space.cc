#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "common/fd.h"
#include "engine/restore/memory_fill.h"
#include "engine/restore/restore_steps.h"

namespace slsdbg::restore {

namespace {
constexpr uint64_t kUserSpaceEnd = 0x7ffffffff000ull;
}

Status unmap_restorer(RemoteCalls& rc, InjectArea inject, const RestorePlan& plan) {
  // Two calls cover everything but the injection area: the restorer's code,
  // stack, [vdso] and [vvar] ([vsyscall] lies above user space and stays, as
  // it does in every process).
  uint64_t after = inject.start + inject.size;
  TRY(rc.call("munmap", SYS_munmap, 0, inject.start));
  TRY(rc.call("munmap", SYS_munmap, after, kUserSpaceEnd - after));
  int64_t at = TRY(rc.call("mmap (scratch)", SYS_mmap, plan.scratch_addr, kScratchSize, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, uint64_t(-1), 0));
  if (uint64_t(at) != plan.scratch_addr) return Error::msg("scratch mapping landed at the wrong address");
  rc.use_scratch(plan.scratch_addr, kScratchSize);
  return ok_status();
}

// Maps one step; for a file step `fd` is the file opened in the tracee.
static Status map_with_fd(RemoteCalls& rc, const MappingStep& s, int64_t fd) {
  const store::Mapping& m = s.mapping;
  uint64_t len = m.end - m.start;
  int64_t at;
  if (s.source == MappingSource::File) {
    at = TRY_CTX(rc.call("mmap", SYS_mmap, m.start, len, s.map_prot, uint64_t(s.mmap_flags), uint64_t(fd), m.file_offset),
                 "mapping " + describe(m));
  } else {
    at = TRY_CTX(rc.call("mmap", SYS_mmap, m.start, len, s.map_prot, uint64_t(s.mmap_flags), uint64_t(-1), 0),
                 "mapping " + describe(m));
  }
  if (uint64_t(at) != m.start) return Error::msg("mapping " + describe(m) + " landed at the wrong address");
  return ok_status();
}

static Result<int64_t> open_in_tracee(RemoteCalls& rc, const MappingStep& s) {
  rc.reset_scratch();
  uint64_t path = TRY(rc.put_string(file_of(s)));
  return TRY_CTX(rc.call("openat", SYS_openat, uint64_t(AT_FDCWD), path, uint64_t(s.open_flags)),
                 "mapping " + describe(s.mapping));
}

static Status map_one(RemoteCalls& rc, const MappingStep& s) {
  if (s.source != MappingSource::File) return map_with_fd(rc, s, -1);
  int64_t fd = TRY(open_in_tracee(rc, s));
  TRY(map_with_fd(rc, s, fd));
  TRY(rc.call("close", SYS_close, uint64_t(fd)));
  return ok_status();
}

// Every region in two stops (RemoteCalls::batch) rather than one per call:
// the files opened, then each mapped (consecutive mappings of one file, a
// library's segments, share its open) and closed. Files go in groups that
// fit the scratch with their paths.
Status map_regions(RemoteCalls& rc, const RestorePlan& plan, RestoreReport& /*report*/) {
  constexpr size_t kFilesPerGroup = 64;
  const auto& steps = plan.mappings;
  auto same_open = [&](size_t i, size_t j) {
    return steps[j].source == MappingSource::File && steps[j].mapping.path == steps[i].mapping.path &&
           steps[j].open_flags == steps[i].open_flags;
  };
  for (size_t i = 0; i < steps.size();) {
    // One group: the steps from i on holding up to kFilesPerGroup opens.
    rc.reset_scratch();
    std::vector<RemoteCalls::Queued> opens;
    std::vector<size_t> first_of_open;  // the step each open serves first
    size_t end = i;
    while (end < steps.size() && !(steps[end].source == MappingSource::File && opens.size() == kFilesPerGroup)) {
      if (steps[end].source == MappingSource::File) {
        const uint64_t path = TRY(rc.put_string(file_of(steps[end])));
        opens.push_back({"mapping " + describe(steps[end].mapping) + ": openat",
                         {SYS_openat, {uint64_t(AT_FDCWD), path, uint64_t(steps[end].open_flags), 0, 0, 0}}});
        first_of_open.push_back(end);
        size_t j = end + 1;
        while (j < steps.size() && same_open(end, j)) j++;
        end = j;
      } else {
        end++;
      }
    }
    const std::vector<int64_t> fds = TRY(rc.batch(opens));
    std::vector<RemoteCalls::Queued> maps;
    size_t open_index = 0;
    int64_t fd = -1;
    for (size_t s = i; s < end; s++) {
      const MappingStep& step = steps[s];
      const store::Mapping& m = step.mapping;
      if (step.source == MappingSource::File) {
        if (open_index < first_of_open.size() && first_of_open[open_index] == s) fd = fds[open_index++];
      }
      const bool file = step.source == MappingSource::File;
      maps.push_back({"mapping " + describe(m) + ": mmap",
                      {SYS_mmap, {m.start, m.end - m.start, step.map_prot, uint64_t(step.mmap_flags),
                                  file ? uint64_t(fd) : uint64_t(-1), file ? m.file_offset : 0}}});
      const bool last_of_open = file && (s + 1 == end || !same_open(s, s + 1));
      if (last_of_open) maps.push_back({"close", {SYS_close, {uint64_t(fd), 0, 0, 0, 0, 0}}});
    }
    const std::vector<int64_t> at = TRY(rc.batch(maps));
    size_t r = 0;
    for (size_t s = i; s < end; s++) {
      const store::Mapping& m = steps[s].mapping;
      if (uint64_t(at[r]) != m.start) return Error::msg("mapping " + describe(m) + " landed at the wrong address");
      r++;
      if (steps[s].source == MappingSource::File && (s + 1 == end || !same_open(s, s + 1))) r++;  // its close
    }
    i = end;
  }
  rc.reset_scratch();
  return ok_status();
}

Status fill_regions(RemoteCalls& rc, const store::RecordingReader& reader, CheckpointId k, RestorePlan& plan,
                    RestoreReport& report) {
  pid_t pid = rc.task().tgid();
  std::string mem_path = "/proc/" + std::to_string(pid) + "/mem";
  UniqueFd mem(::open(mem_path.c_str(), O_RDWR | O_CLOEXEC));
  if (!mem.valid()) return Error::from_errno("open " + mem_path);
  for (auto& s : plan.mappings) {
    if (s.fill == FillPolicy::None || s.lazy) continue;
    UniqueFd file;
    if (s.source == MappingSource::File) {
      file.reset(::open(file_of(s).c_str(), O_RDONLY | O_CLOEXEC));
      if (!file.valid()) return Error::from_errno("open " + file_of(s));
    }
    // Anonymous regions are mapped writable and filled with process_vm_writev;
    // file mappings keep their protection and get their few pages via /proc/PID/mem.
    int mem_fd = s.source == MappingSource::File ? mem.get() : -1;
    FillOutcome outcome = TRY(fill_mapping(reader, k, pid, s, s.fill, file.get(), mem_fd, report.timings));
    if (outcome == FillOutcome::SharedFileDiffers) {
      // Never write the recorded contents into the user's file: replace the
      // shared file mapping by a private anonymous copy of the recording.
      report.warnings.push_back("shared mapping " + describe(s.mapping) +
                                ": file contents changed since recording; restored as a private copy (writes will "
                                "not reach the file)");
      s.source = MappingSource::Anonymous;
      s.mmap_flags = MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS;
      s.map_prot = s.final_prot | PROT_READ | PROT_WRITE;
      s.fill = FillPolicy::AllPages;
      TRY(map_one(rc, s));
      TRY(fill_mapping(reader, k, pid, s, s.fill, -1, -1, report.timings));
    }
  }
  return ok_status();
}

std::vector<std::pair<uint64_t, uint64_t>> mark_lazy_regions(RestorePlan& plan) {
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (auto& s : plan.mappings) {
    bool private_anon = (s.mmap_flags & MAP_ANONYMOUS) && (s.mmap_flags & MAP_PRIVATE);
    if (s.fill != FillPolicy::AllPages || !private_anon) continue;
    s.lazy = true;
    ranges.emplace_back(s.mapping.start, s.mapping.end);
  }
  return ranges;
}

Status protect_regions(RemoteCalls& rc, const RestorePlan& plan) {
  for (const auto& s : plan.mappings) {
    if (s.map_prot == s.final_prot) continue;
    TRY_CTX(rc.call("mprotect", SYS_mprotect, s.mapping.start, s.mapping.end - s.mapping.start, s.final_prot),
            "protecting " + describe(s.mapping));
  }
  return ok_status();
}

}  // namespace slsdbg::restore
