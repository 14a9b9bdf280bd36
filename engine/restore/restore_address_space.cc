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

Status map_regions(RemoteCalls& rc, const RestorePlan& plan, RestoreReport& /*report*/) {
  // Consecutive mappings of one file (a library's segments) share one open.
  const auto& steps = plan.mappings;
  for (size_t i = 0; i < steps.size();) {
    if (steps[i].source != MappingSource::File) {
      TRY(map_with_fd(rc, steps[i], -1));
      i++;
      continue;
    }
    int64_t fd = TRY(open_in_tracee(rc, steps[i]));
    size_t j = i;
    for (; j < steps.size() && steps[j].source == MappingSource::File && steps[j].mapping.path == steps[i].mapping.path &&
           steps[j].open_flags == steps[i].open_flags;
         j++)
      TRY(map_with_fd(rc, steps[j], fd));
    TRY(rc.call("close", SYS_close, uint64_t(fd)));
    i = j;
  }
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
