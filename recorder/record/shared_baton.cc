#include "recorder/record/shared_baton.h"

#include <algorithm>

namespace slsdbg::recorder {

void SharedBaton::join(pid_t pid) {
  std::lock_guard<std::mutex> lock(mu_);
  members_.insert(pid);
}

void SharedBaton::leave(pid_t pid) {
  std::lock_guard<std::mutex> lock(mu_);
  members_.erase(pid);
  waiting_.erase(std::remove(waiting_.begin(), waiting_.end(), pid), waiting_.end());
  if (holder_ == pid) holder_ = 0;
  cv_.notify_all();
}

void SharedBaton::acquire(pid_t pid) {
  std::unique_lock<std::mutex> lock(mu_);
  if (holder_ == pid) return;
  waiting_.push_back(pid);
  cv_.wait(lock, [&] { return holder_ == 0 && waiting_.front() == pid; });
  waiting_.pop_front();
  holder_ = pid;
  if (last_holder_ != 0 && last_holder_ != pid) handovers_++;
  last_holder_ = pid;
  cv_.notify_all();  // the next in line checks again when this one releases
}

void SharedBaton::release(pid_t pid) {
  std::lock_guard<std::mutex> lock(mu_);
  if (holder_ != pid) return;
  holder_ = 0;
  cv_.notify_all();
}

bool SharedBaton::holds(pid_t pid) {
  std::lock_guard<std::mutex> lock(mu_);
  return holder_ == pid;
}

size_t SharedBaton::participants() {
  std::lock_guard<std::mutex> lock(mu_);
  return members_.size();
}

uint64_t SharedBaton::handovers() {
  std::lock_guard<std::mutex> lock(mu_);
  return handovers_;
}

}  // namespace slsdbg::recorder
