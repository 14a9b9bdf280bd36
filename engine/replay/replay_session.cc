// The session: a restored process and the segment it is in. Running a
// segment is SegmentRun's (segment_run.h); the session restores checkpoint
// k again when a patched run failed, and moves to k+1 after a segment.
#include "engine/replay/replay_session.h"

#include <atomic>
#include <cstdio>

#include "common/log.h"
#include "engine/replay/replay_restore.h"
#include "engine/replay/segment_run.h"
#include "process/wait_cut.h"
#include "process/x86_insn.h"

namespace slsdbg::replay {

std::string Divergence::describe() const {
  return "divergence in segment " + std::to_string(segment.value) + " at event " + std::to_string(event_index) +
         ": expected " + expected + ", replay did " + actual + " (pc " + hex(pc) + ")";
}

bool same_general_registers(const user_regs_struct& a_in, const user_regs_struct& b, std::string* first_difference,
                            RegsAt at) {
  user_regs_struct a = a_in;
  if (at == RegsAt::RewoundSyscall) {
    a.rcx = b.rcx;
    a.r11 = b.r11;
  } else if (at == RegsAt::InsideRepString) {
    a.rcx = b.rcx;
    a.rsi = b.rsi;
    a.rdi = b.rdi;
  }
  constexpr uint64_t kIgnoredFlags = process::kEflagsRf | process::kEflagsTf;
#define SLSDBG_CMP(field)                                                                             \
  if (a.field != b.field) {                                                                           \
    if (first_difference) *first_difference = #field " " + hex(a.field) + " != " + hex(b.field); \
    return false;                                                                                     \
  }
  SLSDBG_CMP(rip) SLSDBG_CMP(rsp) SLSDBG_CMP(rbp) SLSDBG_CMP(rax) SLSDBG_CMP(rbx) SLSDBG_CMP(rcx)
  SLSDBG_CMP(rdx) SLSDBG_CMP(rsi) SLSDBG_CMP(rdi) SLSDBG_CMP(r8) SLSDBG_CMP(r9) SLSDBG_CMP(r10)
  SLSDBG_CMP(r11) SLSDBG_CMP(r12) SLSDBG_CMP(r13) SLSDBG_CMP(r14) SLSDBG_CMP(r15)
  SLSDBG_CMP(fs_base) SLSDBG_CMP(gs_base) SLSDBG_CMP(cs) SLSDBG_CMP(ss)
#undef SLSDBG_CMP
  if ((a.eflags & ~kIgnoredFlags) != (b.eflags & ~kIgnoredFlags)) {
    if (first_difference) *first_difference = "eflags " + hex(a.eflags) + " != " + hex(b.eflags);
    return false;
  }
  return true;
}

ReplaySession::ReplaySession(const store::RecordingReader& reader, CheckpointId k, process::Task task)
    : reader_(reader), k_(k), task_(std::move(task)) {}

ReplaySession::~ReplaySession() { task_.kill_and_reap(); }

namespace {

// The single-thread replay; threaded recordings go through threaded_timeline.h.
Result<process::Task> restore_single(const store::RecordingReader& reader, CheckpointId k) {
  if (reader.meta().threads) return Error::unsupported("this recording holds threads; the single-thread replay does not take them");
  return restore_for_replay(reader, k);
}

}  // namespace

Result<std::unique_ptr<ReplaySession>> ReplaySession::start(const store::RecordingReader& reader, CheckpointId k) {
  if (k.value >= reader.checkpoints().size())
    return Error::msg("no checkpoint " + std::to_string(k.value) + " (the recording has " +
                      std::to_string(reader.checkpoints().size()) + ")");
  process::Task task = TRY_CTX(restore_single(reader, k), "restoring checkpoint " + std::to_string(k.value));
  return std::unique_ptr<ReplaySession>(new ReplaySession(reader, k, std::move(task)));
}

uint64_t ReplaySession::events_consumed() const { return run_ ? run_->cursor() : 0; }
uint64_t ReplaySession::events_in_segment() const { return run_ ? run_->event_count() : 0; }

Result<process::Task> ReplaySession::restore_process(const store::RecordingReader& reader, CheckpointId k) {
  if (k.value >= reader.checkpoints().size())
    return Error::msg("no checkpoint " + std::to_string(k.value));
  return restore_single(reader, k);
}

std::unique_ptr<ReplaySession> ReplaySession::adopt(const store::RecordingReader& reader, CheckpointId k,
                                                    process::Task task, uint64_t start_event) {
  auto s = std::unique_ptr<ReplaySession>(new ReplaySession(reader, k, std::move(task)));
  s->signals_queued_by_restore_ = false;
  s->start_event_ = start_event;
  return s;
}

namespace {
std::atomic<uint64_t> g_patch_misses{0};
}  // namespace

void ReplaySession::note_patch_miss() { g_patch_misses.fetch_add(1, std::memory_order_relaxed); }
bool ReplaySession::patch_missed() { return g_patch_misses.load(std::memory_order_relaxed) > 0; }
void ReplaySession::forget_patch_misses() { g_patch_misses.store(0, std::memory_order_relaxed); }

Result<SegmentOutcome> ReplaySession::run_segment() {
  const process::ProgramRun program_runs;  // a user's interrupt may cut its long waits (wait_cut.h)
  if (!run_) run_ = std::make_unique<SegmentRun>(*this);
  Result<SegmentOutcome> result = run_->run();
  if (result.ok() && run_->patch_failed()) {
    // Correctness never rests on the patch: replay the segment again from
    // checkpoint k, with a larger budget when only the budget ran out.
    note_patch_miss();
    if (!run_->patch_failed_by_budget() || ++patch_failures_ >= kPatchAttempts) patch_off_ = true;
    run_.reset();
    reruns_++;
    SLSDBG_DEBUG("replay", "segment %llu: replaying again from its checkpoint (%s)", (unsigned long long)k_.value,
                 patch_off_ ? "hardware breakpoint" : "larger CPU budget");
    task_.kill_and_reap();
    task_ = TRY_CTX(restore_single(reader_, k_), "restoring checkpoint " + std::to_string(k_.value));
    signals_queued_by_restore_ = true;
    return run_segment();
  }
  if (!result.ok() || result->end != SegmentEnd::Paused) run_.reset();
  SegmentOutcome out = TRY(std::move(result));
  if (out.end != SegmentEnd::Paused) {
    out.reruns = std::exchange(reruns_, 0);
    patch_failures_ = 0;
    patch_off_ = false;
  }
  if (out.end == SegmentEnd::Paused) return out;
  if (out.end == SegmentEnd::ReachedByExecution) {
    k_ = CheckpointId(k_.value + 1);
  } else if (out.end == SegmentEnd::ReachedByRestore) {
    task_.kill_and_reap();
    const CheckpointId next(k_.value + 1);
    if (next.value >= reader_.checkpoints().size())
      return Error::msg("the log forces checkpoint " + std::to_string(next.value) + ", which the recording lacks");
    task_ = TRY_CTX(restore_single(reader_, next), "restoring forced checkpoint " + std::to_string(next.value));
    k_ = next;
    signals_queued_by_restore_ = true;
  }
  return out;
}

}  // namespace slsdbg::replay
