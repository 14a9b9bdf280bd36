#include "ui/model/history.h"

#include <algorithm>
#include <cstdlib>

namespace slsdbg::ui {

std::string event_label(const store::Event& e) {
  switch (e.kind) {
    case store::EventKind::Syscall: return "syscall " + std::to_string(e.syscall_no) + " = " + std::to_string(e.result);
    case store::EventKind::Signal: return "signal " + std::to_string(e.signo);
    case store::EventKind::Rdtsc: return e.is_rdtscp ? "rdtscp" : "rdtsc";
    case store::EventKind::ForcedCheckpoint: return "forced checkpoint";
    case store::EventKind::ThreadSwitch: return "thread " + std::to_string(e.tid.value);
    case store::EventKind::Exit:
      return e.signo ? "killed by signal " + std::to_string(e.signo) : "exit " + std::to_string(e.exit_status);
  }
  return "event " + std::to_string(static_cast<int>(e.kind));
}

std::optional<uint64_t> moment_checkpoint(const std::string& moment) {
  char* end = nullptr;
  uint64_t k = std::strtoull(moment.c_str(), &end, 10);
  if (end == moment.c_str() || (*end != '\0' && *end != ':')) return std::nullopt;
  return k;
}

Result<History> open_history(const std::string& dir) {
  History h;
  h.dir = dir;
  h.reader = TRY_CTX(store::RecordingReader::open(dir), dir);
  h.checkpoints = h.reader->checkpoints();
  if (h.checkpoints.empty()) return Error::msg(dir + ": the recording has no complete checkpoint");
  for (const auto& c : h.checkpoints) {
    h.max_dirty = std::max(h.max_dirty, c.dirty_pages);
    h.end_ns = std::max(h.end_ns, c.time_ns);
  }
  // Event logs are read only for segments that have events: a recording of
  // 10,000 quiet ticks opens without touching 10,000 files.
  for (const auto& c : h.checkpoints) {
    if (c.segment_events == 0) continue;
    auto events = TRY_CTX(h.reader->segment_events(SegmentId(c.id.value)),
                          dir + ": events after checkpoint " + std::to_string(c.id.value));
    for (const auto& e : events) h.marks.push_back({c.id.value, e.kind, event_label(e)});
  }
  auto bookmarks = h.reader->bookmarks();
  if (bookmarks.ok()) h.bookmarks = std::move(*bookmarks);
  return h;
}

}  // namespace slsdbg::ui
