#include "engine/replay/replay_check.h"

#include "engine/replay/sysbuf_version.h"
#include "engine/replay/thread_check.h"

namespace slsdbg::replay {

Result<CheckReport> check_recording(const store::RecordingReader& reader,
                                    const std::function<void(uint64_t, uint64_t)>& progress) {
  CheckReport report;
  const uint64_t total = reader.checkpoints().size();
  report.checkpoints = total;
  if (total == 0) return Error::msg("the recording has no checkpoint");
  TRY(check_sysbuf_version(reader));
  if (reader.meta().threads) return check_threaded_recording(reader, progress);  // record --threads
  std::unique_ptr<ReplaySession> session = TRY(ReplaySession::start(reader, CheckpointId(0)));
  for (;;) {
    SegmentOutcome out = TRY(session->run_segment());
    report.events_replayed += out.events_replayed;
    report.pages_compared += out.pages_compared;
    report.segments_rerun += out.reruns;
    if (out.patched) report.reached_patched++;
    switch (out.end) {
      case SegmentEnd::ReachedByExecution: report.crossed_by_execution++; break;
      case SegmentEnd::ReachedByRestore: report.crossed_by_restore++; break;
      case SegmentEnd::Diverged: report.divergence = out.divergence; return report;
      case SegmentEnd::EndOfHistory:
        report.end_checkpoint = session->checkpoint().value;
        report.cut_short = out.cut_short;
        return report;
      case SegmentEnd::Paused: return Error::msg("internal: a run without observer paused");
    }
    if (progress) progress(session->checkpoint().value, total);
  }
}

}  // namespace slsdbg::replay
