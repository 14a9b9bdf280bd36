#include "recorder/record/checkpoint_writer.h"

#include <pthread.h>

#include <system_error>

namespace slsdbg::recorder {

Result<std::unique_ptr<CheckpointWriter>> CheckpointWriter::start(std::unique_ptr<store::RecordingWriter> writer,
                                                                  const cpu_set_t& cpus) {
  std::unique_ptr<CheckpointWriter> w(new CheckpointWriter(std::move(writer)));
  try {
    w->thread_ = std::thread([p = w.get()] { p->thread_main(); });
  } catch (const std::system_error& e) {
    return Error{std::string("starting the checkpoint writer thread: ") + e.what(), e.code().value()};
  }
  // Best effort: where it runs only changes how much of its work overlaps.
  (void)pthread_setaffinity_np(w->thread_.native_handle(), sizeof cpus, &cpus);
  return w;
}

CheckpointWriter::~CheckpointWriter() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    quit_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void CheckpointWriter::thread_main() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    // A job handed over before quit is still stored: its checkpoint is complete.
    cv_.wait(lock, [&] { return job_.has_value() || quit_; });
    if (!job_) return;
    auto [input, reason] = std::move(*job_);
    job_.reset();
    lock.unlock();
    Status st = ok_status();
    Result<CheckpointId> k = writer_->add_checkpoint(input, reason);
    if (!k.ok()) st = k.error().context("storing a checkpoint (" + reason + ")");
    lock.lock();
    job_status_ = std::move(st);
    job_done_.store(true, std::memory_order_release);
    cv_.notify_all();
  }
}

Status CheckpointWriter::collect() {
  Status st = ok_status();
  {
    std::lock_guard<std::mutex> lock(mu_);
    st = std::move(*job_status_);
    job_status_.reset();
    job_done_.store(false, std::memory_order_relaxed);
  }
  in_flight_ = false;
  if (!st.ok()) return st;
  for (const store::Event& ev : held_) TRY_CTX(writer_->append_event(ev), "writing the event log");
  held_.clear();
  return ok_status();
}

Status CheckpointWriter::wait() {
  if (!in_flight_) return ok_status();
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return job_status_.has_value(); });
  }
  return collect();
}

Status CheckpointWriter::append_event(const store::Event& event) {
  if (in_flight_) {
    if (!job_done_.load(std::memory_order_acquire)) {
      held_.push_back(event);
      return ok_status();
    }
    TRY(collect());
  }
  return writer_->append_event(event);
}

Status CheckpointWriter::add_in_background(store::CheckpointInput input, std::string reason) {
  TRY(wait());
  {
    std::lock_guard<std::mutex> lock(mu_);
    job_.emplace(std::move(input), std::move(reason));
  }
  in_flight_ = true;
  cv_.notify_all();
  return ok_status();
}

Result<CheckpointId> CheckpointWriter::add_now(const store::CheckpointInput& input, const std::string& reason) {
  TRY(wait());
  return writer_->add_checkpoint(input, reason);
}

Status CheckpointWriter::finish() {
  TRY(wait());
  return writer_->finish();
}

}  // namespace slsdbg::recorder
