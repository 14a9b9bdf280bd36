#include "recorder/record/group_cut.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include "common/clock.h"
#include "common/log.h"
#include "recorder/record/tick.h"
#include "store/group_cuts.h"

namespace slsdbg::recorder {

namespace {

// How long members wait, stopped, for the last one: a few ticks, so a
// member blocked where a tick cannot stop it costs the others little.
uint64_t wait_ns(uint64_t interval_ns) {
  return std::clamp<uint64_t>(10 * interval_ns, 50'000'000, 250'000'000);
}

}  // namespace

GroupCuts::GroupCuts(std::string rec, uint64_t interval_ns) : rec_(std::move(rec)), interval_ns_(interval_ns) {
  // For measuring what the cuts cost (docs/performance.md).
  const char* env = getenv("SLSDBG_GROUP_CUTS");
  off_ = env && std::string(env) == "off";
}

void GroupCuts::expect(pid_t pid) {
  std::lock_guard<std::mutex> lock(mu_);
  Seat& s = seats_[pid];
  s.in_cut = open_;  // its checkpoint 0 is its state at the cut's moment
}

void GroupCuts::join(pid_t pid, pid_t tick_owner) {
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, added] = seats_.try_emplace(pid);
  it->second.tick_owner = tick_owner;
  if (added) it->second.in_cut = false;  // the root: its first cut is the next one
}

void GroupCuts::leave(pid_t pid) {
  std::lock_guard<std::mutex> lock(mu_);
  if (seats_.erase(pid) == 0) return;
  if (open_) maybe_complete_locked();
}

void GroupCuts::on_tick(pid_t pid) {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t now = monotonic_ns();
  if (off_ || open_ || seats_.size() < 2 || now < next_due_ns_) return;
  open_ = true;
  generation_++;
  deadline_ns_ = now + wait_ns(interval_ns_);
  for (auto& [p, s] : seats_) {
    s.in_cut = true;
    s.arrived = false;
    // The others stop at once; a seat not ticking yet arrives with its checkpoint 0.
    if (p != pid && s.tick_owner != 0) Tick::fire_now(s.tick_owner);
  }
}

bool GroupCuts::pending(pid_t pid) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = seats_.find(pid);
  return open_ && it != seats_.end() && it->second.in_cut && !it->second.arrived;
}

bool GroupCuts::arrive(pid_t pid, uint64_t checkpoint) {
  std::unique_lock<std::mutex> lock(mu_);
  auto it = seats_.find(pid);
  if (!open_ || it == seats_.end() || !it->second.in_cut || it->second.arrived) return false;
  it->second.arrived = true;
  it->second.checkpoint = checkpoint;
  const uint64_t gen = generation_;
  const uint64_t done_before = completed_;
  maybe_complete_locked();
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::nanoseconds(deadline_ns_ > monotonic_ns() ? deadline_ns_ - monotonic_ns() : 0);
  cv_.wait_until(lock, deadline, [&] { return !open_ || generation_ != gen; });
  if (open_ && generation_ == gen) {
    SLSDBG_DEBUG("record", "group cut abandoned: a member did not stop in time");
    finish_locked(false);
  }
  return completed_ != done_before && last_complete_gen_ == gen;
}

void GroupCuts::maybe_complete_locked() {
  size_t in = 0;
  for (const auto& [p, s] : seats_) {
    if (!s.in_cut) continue;
    if (!s.arrived) return;
    in++;
  }
  finish_locked(in >= 2);
}

void GroupCuts::finish_locked(bool complete) {
  const uint64_t now = monotonic_ns();
  const uint64_t period = kCutEvery * interval_ns_;
  if (complete) {
    store::GroupCut cut;
    cut.id = ++completed_;
    last_complete_gen_ = generation_;
    for (const auto& [p, s] : seats_)
      if (s.in_cut) cut.members.push_back({p, s.checkpoint});
    Status wrote = store::append_group_cut(rec_, cut);
    if (!wrote.ok() && error_.empty()) error_ = wrote.error().message;
    backoff_ = 1;
  } else {
    abandoned_++;
    backoff_ = std::min<uint64_t>(backoff_ * 2, 16);
  }
  next_due_ns_ = now + period * backoff_;
  open_ = false;
  for (auto& [p, s] : seats_) s.in_cut = s.arrived = false;
  cv_.notify_all();
}

uint64_t GroupCuts::completed() {
  std::lock_guard<std::mutex> lock(mu_);
  return completed_;
}

uint64_t GroupCuts::abandoned() {
  std::lock_guard<std::mutex> lock(mu_);
  return abandoned_;
}

std::string GroupCuts::error() {
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

}  // namespace slsdbg::recorder
