// At checkpoint k+1's pc: is this the arrival? The general registers first
// (cheap, by the caller or the trampoline), then the pages k+1 lists as
// dirty, with the differences no program input decides set aside.
#include <cstring>
#include <utility>

#include "common/log.h"
#include "engine/replay/differing_word.h"
#include "engine/replay/rep_ahead.h"
#include "engine/replay/segment_run.h"
#include "process/x86_insn.h"

namespace slsdbg::replay {

namespace {
constexpr uint64_t kPageSize = 4096;
}  // namespace

// The XSAVE areas (xsave_noise.h) that explain every difference between a
// live page and its recorded contents; nullopt if some difference is real.
std::optional<std::vector<XsaveArea>> ReplaySession::SegmentRun::noise_areas(uint64_t vaddr,
                                                                              std::span<const uint8_t> live,
                                                                              std::span<const uint8_t> recorded) {
  const CheckpointId next(seg_.value + 1);
  // Reads inside the page at hand come from the copies already made: the
  // search probes many candidate headers.
  const auto from_page = [vaddr](std::span<const uint8_t> page, uint64_t a, std::span<uint8_t> out) {
    if (a < vaddr || a + out.size() > vaddr + kPageSize) return false;
    std::memcpy(out.data(), page.data() + (a - vaddr), out.size());
    return true;
  };
  const ImageReader live_image = [this, &from_page, live](uint64_t a, std::span<uint8_t> out) {
    if (from_page(live, a, out)) return ok_status();
    return read_live_page(a, out);
  };
  const ImageReader recorded_image = [this, &from_page, recorded, next](uint64_t a, std::span<uint8_t> out) {
    if (from_page(recorded, a, out)) return ok_status();
    return s_.reader_.read_memory(next, a, out);
  };
  std::vector<XsaveArea> areas;
  for (size_t i = 0; i < kPageSize; i++) {
    if (live[i] == recorded[i]) continue;
    const uint64_t addr = vaddr + i;
    bool covered = false;
    for (const XsaveArea& a : areas) covered = covered || a.contains(addr);
    if (covered) continue;
    std::optional<XsaveArea> area = xsave_area_explaining(addr, live_image, recorded_image);
    if (!area) return std::nullopt;
    areas.push_back(*area);
  }
  return areas;
}

// A live page equals its recorded contents once the differences that no
// program input decides are set aside: bytes in dead stack (dead_stack.h),
// then XINUSE noise in XSAVE areas (xsave_noise.h). What must be written to
// make them equal is added to `settle`.
bool ReplaySession::SegmentRun::equal_but_noise(uint64_t vaddr, std::span<const uint8_t> live,
                                                std::span<const uint8_t> recorded, Settle& settle) {
  if (std::memcmp(live.data(), recorded.data(), kPageSize) == 0) return true;
  if (std::optional<std::vector<ByteRun>> dead = dead_only_differences(vaddr, live, recorded, dead_stack_)) {
    settle.dead_runs.insert(settle.dead_runs.end(), dead->begin(), dead->end());
    return true;
  }
  if (target_at_ == RegsAt::InsideRepString && target_rep_) {
    const ImageReader live_image = [this](uint64_t a, std::span<uint8_t> out) { return read_live_page(a, out); };
    if (std::optional<std::vector<ByteRun>> ahead =
            ahead_store_differences(vaddr, live, recorded, *target_rep_, target_, live_image)) {
      settle.ahead_runs.insert(settle.ahead_runs.end(), ahead->begin(), ahead->end());
      return true;
    }
  }
  if (std::optional<std::vector<XsaveArea>> areas = noise_areas(vaddr, live, recorded)) {
    settle.xsave_areas.insert(settle.xsave_areas.end(), areas->begin(), areas->end());
    return true;
  }
  return false;
}

// Live bytes (a page, or any run) as the program sees them: the timeline's int3
// breakpoints read as the original code.
Status ReplaySession::SegmentRun::read_live_page(uint64_t vaddr, std::span<uint8_t> out) {
  TRY(task_.read_memory(RemoteAddr(vaddr), out));
  if (s_.observer_) s_.observer_->hide_traps(vaddr, out);
  if (const PatchedArrival* p = armed<PatchedArrival>()) p->patch.hide(vaddr, out);
  return ok_status();
}

// The first word of a page that differs from its recorded contents for
// real, for the patch to compare (refit_patch; differing_word.h): not in
// dead stack nor in XSAVE noise, which may differ at the true visit too.
std::optional<MemCheck> ReplaySession::SegmentRun::differing_word_of(uint64_t vaddr, std::span<const uint8_t> live,
                                                                    std::span<const uint8_t> recorded) {
  const CheckpointId next(seg_.value + 1);
  const ImageReader live_image = [this](uint64_t a, std::span<uint8_t> out) { return read_live_page(a, out); };
  const ImageReader recorded_image = [this, next](uint64_t a, std::span<uint8_t> out) {
    return s_.reader_.read_memory(next, a, out);
  };
  std::optional<MemCheck> m = real_differing_word(vaddr, live, recorded, dead_stack_, live_image, recorded_image);
  // Not in what a cut fast string may have stored ahead: it differs at the true visit too.
  if (m && target_at_ == RegsAt::InsideRepString && target_rep_)
    if (std::optional<AddressRange> ahead = rep_remaining_destination(*target_rep_, target_);
        ahead && m->addr + 8 > ahead->begin && m->addr < ahead->end)
      return std::nullopt;
  return m;
}

void ReplaySession::SegmentRun::note_differing_word(uint64_t vaddr, std::span<const uint8_t> live,
                                                    std::span<const uint8_t> recorded) {
  if (std::optional<MemCheck> m = differing_word_of(vaddr, live, recorded)) last_differing_word_ = *m;
}

// The copy stands in for the tracee while at_next_checkpoint looks.
Result<bool> ReplaySession::SegmentRun::copy_at_next_checkpoint(process::Task& copy) {
  const SegmentOutcome outcome = outcome_;
  const std::optional<uint64_t> page = last_differing_page_;
  const std::optional<MemCheck> word = last_differing_word_;
  std::swap(task_, copy);
  Result<bool> same = at_next_checkpoint();
  std::swap(task_, copy);
  outcome_ = outcome;
  last_differing_page_ = page;
  last_differing_word_ = word;
  return same;
}

// Registers equal (checked by the caller) and the log consumed: the pages
// checkpoint k+1 lists as dirty decide. Differences that are only XINUSE noise
// in XSAVE areas are overwritten with the recorded bytes once everything else
// is equal.
Result<bool> ReplaySession::SegmentRun::at_next_checkpoint() {
  const CheckpointId next(seg_.value + 1);
  std::vector<uint8_t> live(kPageSize);
  std::vector<uint8_t> recorded(kPageSize);
  // Registers alone do not tell loop iterations apart when the loop's state
  // lives in memory (-O0 counters on the stack): the page that differed last
  // time usually differs again, so check it before all the others. Before
  // that, one read: a word that told an earlier visit apart (differing_word.h).
  const ImageReader live_word = [this](uint64_t a, std::span<uint8_t> out) { return read_live_page(a, out); };
  if (last_differing_word_ && word_differs(*last_differing_word_, live_word)) return false;
  for (const MemCheck& m : mem_checks_)
    if (word_differs(m, live_word)) return false;
  Settle settle;
  if (last_differing_page_ && s_.reader_.read_memory(next, *last_differing_page_, recorded).ok() &&
      read_live_page(*last_differing_page_, live).ok() &&
      !equal_but_noise(*last_differing_page_, live, recorded, settle)) {
    note_differing_word(*last_differing_page_, live, recorded);
    return false;
  }
  settle = Settle{};
  bool same = true;
  uint64_t compared = 0;
  // Every differing page offers a word for the patch to compare; the best is
  // one the loop has yet to write (live zero), the highest such: memory filled
  // upward (python's list.append over many pages) then traps once, not once
  // per page.
  std::optional<MemCheck> best;
  bool best_fresh = false;
  uint64_t best_page = 0;
  TRY(s_.reader_.for_each_dirty_page(next, [&](uint64_t vaddr, std::span<const uint8_t> data) -> Status {
    TRY_CTX(read_live_page(vaddr, live), "reading page " + hex(vaddr));
    compared++;
    if (equal_but_noise(vaddr, live, data, settle)) return ok_status();
    if (std::optional<MemCheck> m = differing_word_of(vaddr, live, data)) {
      uint64_t now = 0;
      std::memcpy(&now, live.data() + (m->addr - vaddr), sizeof now);
      const bool fresh = now == 0;
      if (!best || (fresh && !best_fresh) || (fresh == best_fresh && m->addr > best->addr)) {
        best = m;
        best_fresh = fresh;
        best_page = vaddr;
      }
    }
    if (!same) return ok_status();
    same = false;
    size_t first = 0;
    while (first < kPageSize && live[first] == data[first]) first++;
    SLSDBG_DEBUG("replay", "checkpoint %llu: page %s differs from byte %zu (live %02x, recorded %02x)",
                 (unsigned long long)next.value, hex(vaddr).c_str(), first, live[first], data[first]);
    for (size_t i = first, shown = 0; i < kPageSize && shown < 8; i++)
      if (live[i] != data[i]) {
        SLSDBG_DEBUG("replay", "  byte %s: live %02x recorded %02x", hex(vaddr + i).c_str(), live[i], data[i]);
        shown++;
      }
    for (size_t i = 0; i < events_.size(); i++)
      for (const store::MemoryWrite& w : events_[i].writes)
        if (w.addr < vaddr + kPageSize && w.addr + w.bytes.size() > vaddr)
          SLSDBG_DEBUG("replay", "  event %zu (%s) wrote %s+%zu", i, describe_event(events_[i]).c_str(),
                       hex(w.addr).c_str(), w.bytes.size());
    return ok_status();
  }));
  outcome_.pages_compared = compared;
  if (!same) {
    if (best) {
      last_differing_word_ = best;
      last_differing_page_ = best_page;
    }
    return false;
  }
  // Bytes that differ for no program input's sake take the recorded values.
  const auto set_recorded = [&](uint64_t addr, uint64_t len, const char* what) -> Status {
    std::vector<uint8_t> bytes(len);
    TRY_CTX(s_.reader_.read_memory(next, addr, bytes), std::string("reading recorded ") + what + " at " + hex(addr));
    TRY_CTX(task_.write_memory(RemoteAddr(addr), bytes), std::string("writing recorded ") + what + " at " + hex(addr));
    SLSDBG_DEBUG("replay", "checkpoint %llu: %llu bytes of %s at %s set to the recorded ones", (unsigned long long)next.value,
                 (unsigned long long)len, what, hex(addr).c_str());
    return ok_status();
  };
  for (const ByteRun& run : settle.dead_runs) {
    TRY(set_recorded(run.addr, run.len, "dead stack"));
    outcome_.dead_stack_bytes_settled += run.len;
  }
  for (const ByteRun& run : settle.ahead_runs) TRY(set_recorded(run.addr, run.len, "the cut rep string's stores ahead"));
  for (const XsaveArea& a : settle.xsave_areas) {
    std::vector<uint8_t> area(a.size);
    TRY_CTX(s_.reader_.read_memory(next, a.start, area), "reading the recorded XSAVE area at " + hex(a.start));
    TRY_CTX(task_.write_memory(RemoteAddr(a.start), area), "writing the recorded XSAVE area at " + hex(a.start));
    SLSDBG_DEBUG("replay", "checkpoint %llu: XSAVE area at %s (%llu bytes) differed only in bytes no program input decides; set to the recorded bytes",
                 (unsigned long long)next.value, hex(a.start).c_str(), (unsigned long long)a.size);
  }
  outcome_.xsave_areas_settled += settle.xsave_areas.size();
  return true;
}

// At the pc with the log consumed: the registers, then the memory.
Result<ReplaySession::SegmentRun::Next> ReplaySession::SegmentRun::on_breakpoint(user_regs_struct& r) {
  std::string diff;
  SLSDBG_DEBUG("replay", "at checkpoint %llu's pc %s", (unsigned long long)seg_.value + 1, hex(r.rip).c_str());
  // A cut repe/repne cmps or scas: the flags at the instruction's start are
  // the code before it's, the recorded ones are its iterations' on CPUs that
  // update them per iteration (AMD EPYC: 0x246 recorded, 0x216 at the
  // start), not on others (Intel leaves the start's); the iterations run
  // below set them.
  user_regs_struct seen = r;
  if (target_at_ == RegsAt::InsideRepString && target_rep_ && target_rep_->until != RepUntil::Count)
    seen.eflags = process::with_arithmetic_flags_of(seen.eflags, target_.eflags);
  if (cursor_ != events_.size() || !same_general_registers(seen, target_, &diff, target_at_)) {
    SLSDBG_DEBUG("replay", "breakpoint at %s: not there (%s)", hex(target_.rip).c_str(),
                 cursor_ != events_.size() ? "events left" : diff.c_str());
    return Next::Resume;
  }
  if (target_at_ == RegsAt::InsideRepString && !TRY(step_rep_iterations(r))) return Next::Resume;
  if (TRY(at_next_checkpoint())) {
    // The breakpoint hit set RF; the recorded state has it clear, and it
    // would show in a signal frame.
    r.eflags &= ~process::kEflagsRf;
    r.rcx = target_.rcx;  // equal unless rewound over a syscall
    r.r11 = target_.r11;
    TRY(task_.set_regs(r));
    outcome_.end = SegmentEnd::ReachedByExecution;
    return Next::Done;
  }
  return Next::Resume;  // same registers, other memory: an earlier visit of this pc
}

}  // namespace slsdbg::replay
