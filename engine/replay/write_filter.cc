#include "engine/replay/write_filter.h"

#include <sys/syscall.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "common/log.h"

namespace slsdbg::replay {

namespace {

bool changes_address_space(int64_t nr) {
  switch (nr) {
    case SYS_mmap:
    case SYS_munmap:
    case SYS_mremap:
    case SYS_brk:
    case SYS_madvise:
    case SYS_shmat:
    case SYS_shmdt:
    case SYS_execve:
    case SYS_execveat:
    case SYS_remap_file_pages: return true;
    default: return false;
  }
}

}  // namespace

std::optional<WriteFilter> WriteFilter::make(const store::RecordingReader& reader,
                                             std::vector<std::pair<uint64_t, uint64_t>> ranges, bool breakpoints,
                                             bool reads) {
  if (breakpoints || reads || ranges.empty()) return std::nullopt;
  // SLSDBG_WATCH_SKIP=off: replay every segment (measurements, bench/travel/last_write.py).
  if (const char* mode = std::getenv("SLSDBG_WATCH_SKIP"); mode && std::string(mode) == "off") return std::nullopt;
  if (reader.meta().tracker != "uffd-wp-async") {
    SLSDBG_DEBUG("timeline", "no segment skipping: the recording's dirty pages come from '%s', not uffd-wp-async",
                 reader.meta().tracker.c_str());
    return std::nullopt;
  }
  return WriteFilter(reader, std::move(ranges));
}

WriteFilter::WriteFilter(const store::RecordingReader& reader, std::vector<std::pair<uint64_t, uint64_t>> ranges)
    : reader_(&reader), ranges_(std::move(ranges)), checkpoints_(reader.checkpoints()) {}

bool WriteFilter::overlaps(uint64_t addr, uint64_t len) const {
  for (const auto& [a, n] : ranges_)
    if (addr < a + n && a < addr + len) return true;
  return false;
}

WriteFilter::Verdict WriteFilter::judge(uint64_t k) const {
  const Verdict replay{true, true};
  if (k + 1 >= checkpoints_.size()) return replay;
  if (checkpoints_[k + 1].reason == "exec" || checkpoints_[k + 1].reason == "forced") return replay;
  Result<std::vector<uint64_t>> pages = reader_->dirty_pages(CheckpointId(k + 1));
  if (!pages.ok()) return replay;
  Verdict v{false, false};
  for (const auto& [a, n] : ranges_) {
    for (uint64_t p = a / kPageSize * kPageSize; p < a + n; p += kPageSize)
      if (std::binary_search(pages->begin(), pages->end(), p)) v.writes = true;
  }
  if (checkpoints_[k].segment_events == 0) return v;
  Result<std::vector<store::Event>> events = reader_->segment_events(SegmentId(k));
  if (!events.ok()) return replay;
  for (const store::Event& ev : *events) {
    switch (ev.kind) {
      case store::EventKind::Syscall:
        if (changes_address_space(ev.syscall_no)) v.writes = true;
        for (const store::MemoryWrite& w : ev.writes)
          if (overlaps(w.addr, w.bytes.size())) v.writes = true;
        break;
      case store::EventKind::Signal: v.signal = true; break;
      case store::EventKind::ForcedCheckpoint: v.writes = true; break;
      case store::EventKind::Rdtsc:
      case store::EventKind::Exit: break;
    }
  }
  return v;
}

bool WriteFilter::must_replay(uint64_t k, Use use) {
  auto it = cache_.find(k);
  if (it == cache_.end()) it = cache_.emplace(k, judge(k)).first;
  return it->second.writes || (use == Use::Forward && it->second.signal);
}

}  // namespace slsdbg::replay
