#include "engine/replay/thread_counters.h"

#include <algorithm>

#include "common/log.h"
#include "engine/replay/patch_site.h"
#include "engine/replay/relay_site.h"
#include "engine/replay/task_code_reader.h"

namespace slsdbg::replay {

std::vector<PatchSite> counter_sites(uint64_t pc, const CodeReader& read, bool wide, std::string* why, bool* several) {
  if (several) *several = false;
  Result<PatchSite> one = plan_one_instruction_site(pc, read);
  if (one.ok()) return {*one};
  std::string reasons = one.error().message;
  std::vector<PatchSite> out;
  if (wide) {
    // pc's own instructions, then an anchor before pc that ends with pc's
    // instruction (a thread may stand after pc, inside the first).
    Result<PatchSite> own = plan_patch_site(pc, read);
    if (own.ok()) out.push_back(*own);
    else reasons += "; " + own.error().message;
    Result<PatchSite> before = plan_anchored_site(pc, read);
    if (before.ok() && (out.empty() || before->anchor != out.front().anchor || before->length != out.front().length))
      out.push_back(*before);
  }
  if (out.empty() && why) *why = reasons;
  if (several) *several = !out.empty();
  return out;
}

std::vector<ByteRange> checkpoint_patch_ranges(const std::vector<uint64_t>& checkpoint_pcs, const CodeReader& read) {
  std::vector<ByteRange> out;
  for (uint64_t c : checkpoint_pcs) {
    Result<PatchSite> p = plan_thread_checkpoint_site(c, read);
    if (!p.ok()) continue;
    out.emplace_back(p->anchor, p->end());
    if (p->relay) out.emplace_back(p->relay, p->relay + kJmpLen);
  }
  return out;
}

bool clear_of(const PatchSite& site, const std::vector<ByteRange>& ranges) {
  const auto meets = [&ranges](uint64_t from, uint64_t to) {
    return std::any_of(ranges.begin(), ranges.end(), [&](const ByteRange& r) { return r.first < to && from < r.second; });
  };
  return !meets(site.anchor, site.end()) && !(site.relay && meets(site.relay, site.relay + kJmpLen));
}

std::set<uint64_t> ThreadCounters::install(process::Task& task, const std::set<uint64_t>& pcs,
                                           const std::vector<uint64_t>& thread_pcs, bool wide,
                                           const std::vector<uint64_t>& keep_clear,
                                           const std::set<uint64_t>& also_wide,
                                           std::map<uint64_t, uint64_t>* move_threads) {
  const CodeReader read = task_code_reader(task);
  const std::vector<ByteRange> clear = checkpoint_patch_ranges(keep_clear, read);
  std::set<uint64_t> done;
  for (uint64_t pc : pcs) {
    std::string why;
    bool several = false;
    const std::vector<PatchSite> sites = counter_sites(pc, read, wide || also_wide.count(pc), &why, &several);
    Result<PatchSite> site = Error::msg(why);
    std::vector<uint8_t> code(32);
    const bool may_move = move_threads && also_wide.count(pc);
    for (const PatchSite& candidate : sites) {
      // A thread inside the bytes the jump replaces would resume into its
      // tail; a counted pc among them would never be reached. One at pc or
      // after it can resume in the stub's copy instead (move_threads).
      const auto inside = [&](uint64_t a) { return a > candidate.anchor && a < candidate.end(); };
      const bool have_code = may_move && std::any_of(thread_pcs.begin(), thread_pcs.end(), inside) &&
                             task.read_memory(RemoteAddr(candidate.anchor), code).ok();
      const auto movable = [&](uint64_t a) {
        return have_code && a >= candidate.pc && moved_offset(code, candidate, a).ok();
      };
      if (std::any_of(thread_pcs.begin(), thread_pcs.end(), [&](uint64_t a) { return inside(a) && !movable(a); }))
        site = Error::msg("a thread stands in the bytes to move");
      else if (std::any_of(pcs.begin(), pcs.end(), [&](uint64_t o) { return o != pc && (inside(o) || o == candidate.anchor); }))
        site = Error::msg("another counted pc lies in the bytes to move");
      else if (several && !clear_of(candidate, clear))
        site = Error::msg("the next checkpoint's patched breakpoint would go there");
      else if (overlaps(candidate.anchor, candidate.end()) ||
               (candidate.relay && overlaps(candidate.relay, candidate.relay + kJmpLen)))
        site = Error::msg("another counter stub lies there");
      else {
        site = candidate;
        break;
      }
    }
    Result<CountingPatch> patch = site.ok() && task.read_memory(RemoteAddr(site->anchor), code).ok()
                                      ? CountingPatch::install(task, *site, code)
                                      : Result<CountingPatch>(site.ok() ? Error::msg("code unreadable") : site.error());
    if (!patch.ok()) {
      SLSDBG_DEBUG("replay", "no counter stub at 0x%llx: %s", (unsigned long long)pc, patch.error().message.c_str());
      continue;
    }
    if (several)
      SLSDBG_DEBUG("replay", "counter stub at 0x%llx moves 0x%llx..0x%llx", (unsigned long long)pc,
                   (unsigned long long)site->anchor, (unsigned long long)site->end());
    if (may_move)
      for (uint64_t a : thread_pcs)
        if (a > site->anchor && a < site->end())
          (*move_threads)[a] = a == pc ? patch->entry_addr() : patch->displaced_addr() + *moved_offset(code, *site, a);
    stubs_.emplace(pc, std::move(*patch));
    seen_[pc] = 0;
    done.insert(pc);
  }
  return done;
}

Status ThreadCounters::flush(process::Task& task) {
  if (stubs_.empty() || !running_) return ok_status();
  Window w{*running_, {}};
  for (auto& [pc, stub] : stubs_) {
    const uint64_t now = TRY(stub.count(task));
    if (now == seen_[pc]) continue;
    w.arrivals[pc] = now - seen_[pc];
    totals_[{running_->value, pc}] += now - seen_[pc];
    seen_[pc] = now;
  }
  if (!w.arrivals.empty()) windows_.push_back(std::move(w));
  return ok_status();
}

Status ThreadCounters::set_limits(process::Task& task) {
  if (!aim_) return ok_status();
  auto it = stubs_.find(aim_->pc);
  if (it == stubs_.end()) return ok_status();
  uint64_t limit = 0;  // never
  if (running_ && *running_ == aim_->thread) {
    const uint64_t had = count(aim_->thread, aim_->pc);
    if (aim_->n > had) limit = seen_[aim_->pc] + (aim_->n - had);
  }
  return it->second.set_limit(task, limit);
}

Status ThreadCounters::switch_to(process::Task& task, Tid next) {
  if (stubs_.empty()) return ok_status();
  TRY(flush(task));
  running_ = next;
  return set_limits(task);
}

void ThreadCounters::aim(Tid thread, uint64_t pc, uint64_t n) { aim_ = Arrival{thread, pc, n}; }

std::optional<uint64_t> ThreadCounters::reached(uint64_t rip) const {
  for (const auto& [pc, stub] : stubs_)
    if (stub.reached_rip() == rip) return pc;
  return std::nullopt;
}

std::optional<uint64_t> ThreadCounters::site_end_at(uint64_t rip, bool& inside) const {
  inside = false;
  for (const auto& [pc, stub] : stubs_) {
    if (!stub.in_stub(rip)) continue;
    inside = true;
    return stub.site_end_at(rip);
  }
  return std::nullopt;
}

std::optional<uint64_t> ThreadCounters::moved_from(uint64_t rip) const {
  for (const auto& [pc, stub] : stubs_)
    if (stub.in_stub(rip)) return stub.moved_from(rip);
  return std::nullopt;
}

uint64_t ThreadCounters::count(Tid thread, uint64_t pc) const {
  auto it = totals_.find({thread.value, pc});
  return it == totals_.end() ? 0 : it->second;
}

Result<std::optional<ThreadCounters::Arrival>> ThreadCounters::last_arrival(std::optional<Arrival> left_out,
                                                                          size_t* window,
                                                                          const std::set<uint64_t>* only) const {
  std::map<std::pair<int32_t, uint64_t>, uint64_t> totals = totals_;
  for (size_t i = windows_.size(); i-- > 0;) {
    std::map<uint64_t, uint64_t> arrivals = windows_[i].arrivals;
    const Tid t = windows_[i].thread;
    if (left_out && i + 1 == windows_.size() && t == left_out->thread) {
      auto it = arrivals.find(left_out->pc);
      if (it != arrivals.end() && --it->second == 0) arrivals.erase(it);
      totals[{t.value, left_out->pc}]--;
    }
    if (only) std::erase_if(arrivals, [only](const auto& a) { return !only->count(a.first); });
    if (arrivals.empty()) continue;
    if (arrivals.size() > 1)
      return Error::msg("thread " + std::to_string(t.value) + " ran " + std::to_string(arrivals.size()) +
                        " counted breakpoints between two switches: their order is unknown");
    const uint64_t pc = arrivals.begin()->first;
    if (window) *window = i;
    return std::optional<Arrival>(Arrival{t, pc, totals[{t.value, pc}]});
  }
  return std::optional<Arrival>();
}

bool ThreadCounters::overlaps(uint64_t begin, uint64_t end) const {
  for (const auto& [pc, stub] : stubs_) {
    if (stub.anchor() < end && begin < stub.anchor() + stub.length()) return true;
    if (stub.relay() && stub.relay() < end && begin < stub.relay() + kJmpLen) return true;
  }
  return false;
}

Status ThreadCounters::remove_all(process::Task& task) {
  TRY(flush(task));
  Status first = ok_status();
  for (auto& [pc, stub] : stubs_)
    if (Status s = stub.remove(task); !s.ok() && first.ok()) first = std::move(s);
  stubs_.clear();
  return first;
}

}  // namespace slsdbg::replay
