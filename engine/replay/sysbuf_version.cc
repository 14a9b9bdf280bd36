#include "engine/replay/sysbuf_version.h"

#include <optional>
#include <string>

#include "process/syscallbuf_stub.h"
#include "store/summary.h"

namespace slsdbg::replay {

namespace {

// nullopt: the recording names no stub version.
Result<std::optional<uint64_t>> recorded_version(const store::RecordingReader& reader) {
  const auto summary = TRY(store::read_summary(reader));
  const auto it = summary.find(process::kSysbufStubSummaryKey);
  if (it == summary.end()) return std::optional<uint64_t>();
  return std::optional<uint64_t>(it->second);
}

}  // namespace

Status check_sysbuf_version(const store::RecordingReader& reader) {
  const std::optional<uint64_t> v = TRY(recorded_version(reader));
  if (!v || *v == process::kSysbufStubVersion) return ok_status();
  return Error::unsupported("this recording's syscall buffer stub is version " + std::to_string(*v) +
                            "; this slsdbg replays version " + std::to_string(process::kSysbufStubVersion) +
                            " only (replay it with the slsdbg that recorded it, or record again)");
}

Result<bool> recorded_with_sysbuf(const store::RecordingReader& reader) {
  return TRY(recorded_version(reader)).has_value();
}

Status check_sysbuf_events(const store::RecordingReader& reader, const std::vector<store::Event>& events) {
  bool from_stub = false;
  for (const store::Event& ev : events)
    from_stub = from_stub || (ev.kind == store::EventKind::Syscall && ev.pc >= process::kSysbufStubAddr &&
                              ev.pc < process::kSysbufStubAddr + 4096);
  if (!from_stub || TRY(recorded_version(reader))) return ok_status();
  return Error::unsupported(
      "this recording was made with an older syscall buffer stub (no version stored); this slsdbg replays version " +
      std::to_string(process::kSysbufStubVersion) + " only (record again)");
}

}  // namespace slsdbg::replay
