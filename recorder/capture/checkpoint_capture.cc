// CheckpointCapture for one process: keeps the last memory map it saw, the
// dirty tracker, ranges that appeared (copied in full at the next capture)
// and ranges whose contents went away (reported as `cleared`).
#include "recorder/capture/checkpoint_capture.h"

#include <fcntl.h>
#include <time.h>

#include <algorithm>

#include "common/fd.h"
#include "common/log.h"
#include "recorder/capture/address_space_diff.h"
#include "recorder/capture/dirty_tracker.h"
#include "recorder/capture/page_copier.h"
#include "recorder/capture/populated_pages.h"
#include "recorder/capture/thread_capture.h"
#include "recorder/process/inject.h"
#include "recorder/process/proc_fds.h"
#include "recorder/process/proc_identity.h"
#include "recorder/process/proc_maps.h"
#include "recorder/process/proc_signals.h"

namespace slsdbg::recorder {

Status verify_against_store(process::Task& leader, const std::vector<pid_t>& tids, const store::RecordingReader& reader,
                            CheckpointId k);

namespace {

uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

class ProcessCapture final : public CheckpointCapture {
 public:
  ProcessCapture(pid_t pid, UniqueFd pagemap) : pid_(pid), leader_(Tid(pid), pid), pagemap_(std::move(pagemap)) {}

  Status init(TrackerChoice choice) {
    TRY_CTX(process::install_injection_page(leader_), "installing the injection page");
    if (choice != TrackerChoice::PageHash) {
      auto uffd = make_uffd_wp_tracker(leader_);
      if (uffd.ok()) {
        tracker_ = std::move(*uffd);
      } else if (choice == TrackerChoice::UffdWp) {
        return uffd.error().context("uffd-wp-async dirty tracking unavailable");
      } else {
        SLSDBG_INFO("capture", "uffd-wp-async unavailable (%s); using page hashes", uffd.error().message.c_str());
      }
    }
    if (!tracker_) tracker_ = make_page_hash_tracker(pid_);
    brk_start_ = TRY(process::read_brk_start(pid_));
    auxv_ = TRY(process::read_auxv(pid_));
    cmdline_ = TRY(process::read_cmdline(pid_));
    return reconcile();
  }

  const char* tracker_name() const override { return tracker_->name(); }

  Result<store::CheckpointInput> capture(const std::vector<pid_t>& tids) override {
    const uint64_t t0 = monotonic_ns();
    if (tids.empty() || tids[0] != pid_) return Error::msg("capture: the thread group leader must come first");
    TRY(reconcile());  // stack growth and anything the caller did not report
    store::CheckpointInput input;
    store::ProcessState& st = input.state;
    st.pid = pid_;
    for (pid_t tid : tids) {
      if (tid == pid_) {
        st.threads.push_back(TRY_CTX(capture_thread(leader_), "thread " + std::to_string(tid)));
      } else {
        process::Task thread(Tid(tid), pid_);
        st.threads.push_back(TRY_CTX(capture_thread(thread), "thread " + std::to_string(tid)));
      }
    }
    auto handlers = TRY_CTX(process::read_handlers_and_brk(leader_), "reading signal handlers");
    st.sigactions = handlers.actions;
    st.brk_start = brk_start_;
    st.brk_current = handlers.brk;
    st.shared_sigpending = TRY(process::read_pending_signals(pid_, pid_)).shared_pending;
    st.mappings = maps_;
    st.fds = TRY(process::read_fds(pid_));
    st.auxv = auxv_;
    st.exe = TRY(process::read_exe(pid_));
    st.cwd = TRY(process::read_cwd(pid_));
    st.cmdline = cmdline_;

    const uint64_t t_collect = monotonic_ns();
    pages_ = TRY_CTX(tracker_->collect(), "collecting dirty pages");
    if (!unseen_.empty()) {
      for (const auto& [range, file_backed] : unseen_) {
        if (file_backed) {
          // Every page: a file page never touched still reads as the file's bytes, not zero.
          for (uint64_t p = range.start; p < range.end; p += kPageSize) pages_.push_back(p);
        } else {
          TRY(append_populated_pages(pagemap_.get(), range, pages_));
        }
      }
      std::sort(pages_.begin(), pages_.end());
      pages_.erase(std::unique(pages_.begin(), pages_.end()), pages_.end());
      unseen_.clear();
    }
    const uint64_t t_copy = monotonic_ns();
    TRY_CTX(copier_.copy(leader_, pages_), "copying dirty pages");
    const uint64_t t_end = monotonic_ns();
    input.dirty.reserve(pages_.size());
    for (size_t i = 0; i < pages_.size(); ++i) input.dirty.push_back(store::DirtyPage{pages_[i], copier_.data(i)});
    input.cleared = std::move(cleared_);
    cleared_.clear();
    input.stop_ns = monotonic_ns() - t0;
    stats_ = CaptureStats{input.stop_ns, t_collect - t0, t_copy - t_collect, t_end - t_copy, pages_.size()};
    last_tids_ = tids;
    return input;
  }

  Status note_address_space_change() override { return reconcile(); }
  CaptureStats last_stats() const override { return stats_; }

  Status note_discarded(uint64_t start, uint64_t end) override {
    start = page_floor(start);
    end = page_ceil(end);
    if (start >= end) return ok_status();
    TRY(reconcile());
    cleared_.push_back({start, end});
    // Re-copy what is still populated there; clip to capturable mappings.
    for (const auto& m : maps_) {
      uint64_t s = std::max(start, m.start), e = std::min(end, m.end);
      if (s < e && capturable(m)) unseen_.push_back({PageRange{s, e}, false});
    }
    return ok_status();
  }

  Status verify(const store::RecordingReader& reader, CheckpointId k) override {
    return verify_against_store(leader_, last_tids_.empty() ? std::vector<pid_t>{pid_} : last_tids_, reader, k);
  }

 private:
  // Re-reads the map; ranges that appeared are tracked from now on and copied
  // in full at the next capture, ranges that went away are `cleared`.
  Status reconcile() {
    auto now = TRY(process::read_maps(pid_));
    MapDiff d = diff_maps(maps_, now);
    for (const PageRange& r : d.removed) {
      tracker_->untrack(r);
      cleared_.push_back({r.start, r.end});
      // A range that appeared and vanished before any capture needs no copy.
      std::erase_if(unseen_, [&](const auto& u) { return u.first.start >= r.start && u.first.end <= r.end; });
    }
    for (const PageRange& r : d.added) {
      TRY_CTX(tracker_->track(r), "tracking new memory");
      unseen_.push_back({r, !is_anonymous_at(now, r.start)});
    }
    maps_ = std::move(now);
    return ok_status();
  }

  static bool is_anonymous_at(const std::vector<store::Mapping>& maps, uint64_t addr) {
    for (const auto& m : maps)
      if (m.start <= addr && addr < m.end) return (m.flags & store::flag(store::MappingFlags::Anonymous)) != 0;
    return true;
  }

  pid_t pid_;
  process::Task leader_;
  UniqueFd pagemap_;
  std::unique_ptr<DirtyTracker> tracker_;
  std::vector<store::Mapping> maps_;
  std::vector<std::pair<PageRange, bool>> unseen_;  // range, file-backed
  std::vector<std::pair<uint64_t, uint64_t>> cleared_;
  std::vector<uint64_t> pages_;
  PageCopier copier_;
  uint64_t brk_start_ = 0;
  std::vector<uint8_t> auxv_;
  std::vector<std::string> cmdline_;
  std::vector<pid_t> last_tids_;
  CaptureStats stats_;
};

}  // namespace

Result<std::unique_ptr<CheckpointCapture>> CheckpointCapture::create(pid_t pid, TrackerChoice choice) {
  std::string path = "/proc/" + std::to_string(pid) + "/pagemap";
  UniqueFd pagemap(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!pagemap.valid()) return Error::from_errno("open(" + path + ")");
  auto capture = std::make_unique<ProcessCapture>(pid, std::move(pagemap));
  TRY(capture->init(choice));
  return std::unique_ptr<CheckpointCapture>(std::move(capture));
}

}  // namespace slsdbg::recorder
