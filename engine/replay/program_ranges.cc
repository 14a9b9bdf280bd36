#include "engine/replay/program_ranges.h"

#include <sys/syscall.h>

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <optional>

namespace slsdbg::replay {

namespace {

constexpr uint64_t kPage = 4096;
uint64_t page_up(uint64_t v) { return (v + kPage - 1) & ~(kPage - 1); }

AddressRanges merged(AddressRanges r) {
  std::sort(r.begin(), r.end());
  AddressRanges out;
  for (const auto& [lo, hi] : r) {
    if (lo >= hi) continue;
    if (!out.empty() && lo <= out.back().second) out.back().second = std::max(out.back().second, hi);
    else out.emplace_back(lo, hi);
  }
  return out;
}

// The scopes alive, by id; the latest one's ranges are used. The scan's
// second CPU may open its own while the first is alive.
std::mutex mu;
uint64_t next_id = 1;
std::map<uint64_t, std::function<AddressRanges()>> scopes;
std::optional<AddressRanges> computed;  // the latest scope's

}  // namespace

AddressRanges recorded_program_ranges(const store::RecordingReader& reader) {
  AddressRanges r;
  const std::vector<store::CheckpointInfo> cps = reader.checkpoints();
  if (cps.empty()) return r;
  uint64_t heap_start = 0, heap_top = 0;
  for (const store::CheckpointInfo* c : {&cps.front(), &cps.back()})
    if (Result<store::ProcessState> st = reader.process_state(c->id); st.ok())
      for (const store::Mapping& m : st->mappings) {
        r.emplace_back(m.start, m.end);
        if (m.path == "[heap]" && !heap_start) heap_start = m.start, heap_top = m.end;
      }
  // Segment k runs from checkpoint k; the last one is the open segment after it.
  for (const store::CheckpointInfo& c : cps) {
    Result<std::vector<store::Event>> events = reader.segment_events(SegmentId(c.id.value));
    if (!events.ok()) continue;
    for (const store::Event& ev : *events) {
      if (ev.kind != store::EventKind::Syscall || ev.result <= 0) continue;  // failed, or no address
      const uint64_t at = static_cast<uint64_t>(ev.result);
      if (ev.syscall_no == SYS_mmap) r.emplace_back(at, at + page_up(ev.args[1]));
      else if (ev.syscall_no == SYS_mremap) r.emplace_back(at, at + page_up(ev.args[2]));
      else if (ev.syscall_no == SYS_brk && heap_start && at > heap_top && at - heap_start < (1ull << 40)) heap_top = at;
    }
  }
  if (heap_start) r.emplace_back(heap_start, page_up(heap_top));  // up to the highest break
  return merged(r);
}

ProgramRangesScope::ProgramRangesScope(const store::RecordingReader& reader) {
  const std::lock_guard lock(mu);
  id_ = next_id++;
  scopes[id_] = [&reader] { return recorded_program_ranges(reader); };
  computed.reset();
}

ProgramRangesScope::~ProgramRangesScope() {
  const std::lock_guard lock(mu);
  if (!scopes.empty() && scopes.rbegin()->first == id_) computed.reset();
  scopes.erase(id_);
}

AddressRanges current_program_ranges() {
  const std::lock_guard lock(mu);
  if (scopes.empty()) return {};
  if (!computed) computed = scopes.rbegin()->second();  // the latest scope's
  return *computed;
}

}  // namespace slsdbg::replay
