// TEMPORARY scaffold (first commit only): the Timeline's API compiles, every
// move returns "not implemented yet". Replaced stage by stage.
#include "engine/replay/timeline.h"

#include <charconv>
#include <cstdio>

namespace slsdbg::replay {

std::string Moment::to_string() const {
  char pcbuf[32];
  std::snprintf(pcbuf, sizeof pcbuf, "0x%llx", static_cast<unsigned long long>(pc));
  return std::to_string(checkpoint) + ":" + std::to_string(event) + ":" + pcbuf + ":" + std::to_string(n);
}

Result<Moment> Moment::parse(std::string_view) { return Error::msg("not implemented yet"); }

class Timeline::Impl {
 public:
  explicit Impl(const store::RecordingReader& reader) : reader(reader) {}
  const store::RecordingReader& reader;
};

Timeline::Timeline(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Timeline::~Timeline() = default;

Result<std::unique_ptr<Timeline>> Timeline::open(const store::RecordingReader&, TimelineOptions) {
  return Error::msg("not implemented yet");
}
Result<Moment> Timeline::current_moment() { return Error::msg("not implemented yet"); }
CheckpointId Timeline::current_segment() const { return CheckpointId(0); }
uint64_t Timeline::checkpoint_count() const { return impl_->reader.checkpoints().size(); }
TimelineStop Timeline::last_stop() const { return {}; }
Result<TimelineStop> Timeline::goto_checkpoint(CheckpointId) { return Error::msg("not implemented yet"); }
Result<TimelineStop> Timeline::goto_moment(const Moment&) { return Error::msg("not implemented yet"); }
Result<TimelineStop> Timeline::resume(Direction, Motion) { return Error::msg("not implemented yet"); }
Status Timeline::add_breakpoint(uint64_t) { return Error::msg("not implemented yet"); }
Status Timeline::remove_breakpoint(uint64_t) { return Error::msg("not implemented yet"); }
Status Timeline::add_watchpoint(WatchKind, uint64_t, uint64_t) { return Error::msg("not implemented yet"); }
Status Timeline::remove_watchpoint(WatchKind, uint64_t, uint64_t) { return Error::msg("not implemented yet"); }
Tid Timeline::thread() const { return Tid(0); }
pid_t Timeline::recorded_pid() const { return 0; }
Result<user_regs_struct> Timeline::regs() { return Error::msg("not implemented yet"); }
Result<std::vector<uint8_t>> Timeline::xsave() { return Error::msg("not implemented yet"); }
Result<size_t> Timeline::read_memory(uint64_t, std::span<uint8_t>) { return Error::msg("not implemented yet"); }
const store::RecordingReader& Timeline::recording() const { return impl_->reader; }

}  // namespace slsdbg::replay
