// rr's dialect (vRun, qRRCmd). rr numbers events across the whole recording;
// here the n-th event is the n-th logged event of the recording (segments in
// order), and "being at event n" means just after it.
#include <cinttypes>
#include <cstdio>

#include "gdbserver/replay/timeline_target.h"

namespace slsdbg::gdbserver {

Result<replay::Moment> TimelineTarget::moment_after_global_event(uint64_t n) const {
  uint64_t before = 0;
  for (const store::CheckpointInfo& c : reader_.checkpoints()) {
    if (n <= before + c.segment_events) {
      uint64_t e = n - before;
      // The pc right after the event: a syscall's is logged; rdtsc's is the
      // instruction's own. Signals move the pc to places the log does not
      // name: use the last event before them that does.
      while (e > 0) {
        store::Event ev = TRY(reader_.segment_event(SegmentId(c.id.value), e - 1));
        if (ev.kind == store::EventKind::Syscall) return replay::Moment{c.id.value, e, ev.pc, 1};
        if (ev.kind == store::EventKind::Rdtsc) {
          return replay::Moment{c.id.value, e, ev.pc + (ev.is_rdtscp ? 3u : 2u), 1};
        }
        --e;
      }
      return replay::Moment::parse(std::to_string(c.id.value));
    }
    before += c.segment_events;
  }
  return Error::msg("no event " + std::to_string(n) + ": the recording has " + std::to_string(before));
}

Result<StopReason> TimelineTarget::seek(const SeekTarget& target, StopRequest& stop) {
  replay::Timeline* t = TRY(live());
  switch (target.kind) {
    case SeekKind::Previous:
    case SeekKind::Checkpoint: {
      uint64_t k = target.kind == SeekKind::Previous ? 0 : target.value;
      if (k >= t->checkpoint_count()) {
        return Error::msg("no checkpoint " + std::to_string(k) + ": the recording has " +
                          std::to_string(t->checkpoint_count()));
      }
      return move(&stop, [t, k] { return t->goto_checkpoint(CheckpointId(k)); });
    }
    case SeekKind::Event: {
      replay::Moment m = TRY(moment_after_global_event(target.value));
      return move(&stop, [t, m] { return t->goto_moment(m); });
    }
    case SeekKind::Ticks:
      break;
  }
  return Error::msg("slsdbg counts no ticks (it needs no performance counters): seek to a checkpoint (c<K>) or an "
                    "event instead");
}

Result<std::string> TimelineTarget::rr_command(std::string_view name, std::string_view) {
  replay::Timeline* t = TRY(live());
  if (name == "when") {
    replay::Moment m = TRY(t->current_moment());
    return "Current event: " + std::to_string(global_event(m.checkpoint, m.event));
  }
  if (name == "when-tid") return "Current tid: " + std::to_string(tid_.value);
  return Error::msg("unknown rr command '" + std::string(name) + "'");
}

}  // namespace slsdbg::gdbserver
