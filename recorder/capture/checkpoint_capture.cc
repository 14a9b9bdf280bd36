// CheckpointCapture for one process: keeps the last memory map it saw, the
// dirty tracker, ranges that appeared (copied in full at the next capture)
// and ranges whose contents went away (reported as `cleared`).
#include "recorder/capture/checkpoint_capture.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <iterator>

#include "common/fd.h"
#include "common/log.h"
#include "recorder/capture/address_space_diff.h"
#include "recorder/capture/dirty_tracker.h"
#include "recorder/capture/page_copier.h"
#include "recorder/capture/populated_pages.h"
#include "recorder/capture/staging_copier.h"
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

bool discards_memory(int advice) {
  return advice == MADV_DONTNEED || advice == MADV_FREE || advice == MADV_REMOVE || advice == 24 /* MADV_DONTNEED_LOCKED */;
}

uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

class ProcessCapture final : public CheckpointCapture {
 public:
  ProcessCapture(pid_t pid, UniqueFd pagemap, const CaptureOptions& options)
      : pid_(pid), leader_(Tid(pid), pid), pagemap_(std::move(pagemap)), copier_(options.copy_threads),
        copy_path_(options.copy_path), activity_reported_(options.activity_reported) {}

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
    if (copy_path_ == CopyPath::InTracee) TRY_CTX(staging_.init(leader_), "setting up the in-tracee copy");
    brk_start_ = TRY(process::read_brk_start(pid_));
    auxv_ = TRY(process::read_auxv(pid_));
    cmdline_ = TRY(process::read_cmdline(pid_));
    exe_ = TRY(process::read_exe(pid_));
    std::string statm = "/proc/" + std::to_string(pid_) + "/statm";
    statm_.reset(::open(statm.c_str(), O_RDONLY | O_CLOEXEC));
    if (!statm_.valid()) return Error::from_errno("open(" + statm + ")");
    return reconcile();
  }

  const char* tracker_name() const override { return tracker_->name(); }

  Result<store::CheckpointInput> capture(const std::vector<pid_t>& tids) override {
    const uint64_t t0 = monotonic_ns();
    if (tids.empty() || tids[0] != pid_) return Error::msg("capture: the thread group leader must come first");
    const bool reused = !state_stale_;
    TRY(refresh_maps());
    store::CheckpointInput input;
    store::ProcessState& st = input.state;
    st.pid = pid_;
    for (pid_t tid : tids) {
      if (tid == pid_) {
        st.threads.push_back(TRY_CTX(capture_thread(leader_, &st.shared_sigpending), "thread " + std::to_string(tid)));
      } else {
        process::Task thread(Tid(tid), pid_);
        st.threads.push_back(TRY_CTX(capture_thread(thread), "thread " + std::to_string(tid)));
      }
    }
    TRY(refresh_process_state());
    st.sigactions = sigactions_;
    st.brk_start = brk_start_;
    st.brk_current = brk_current_;
    st.mappings = maps_;
    st.fds = fds_;
    st.auxv = auxv_;
    st.exe = exe_;  // fixed until an exec, which ends this capture's life
    st.cwd = cwd_;
    st.cmdline = cmdline_;

    const uint64_t t_collect = monotonic_ns();
    std::vector<PageRange> lost;
    std::vector<uint64_t> written = TRY_CTX(tracker_->collect(lost), "collecting dirty pages");
    for (const PageRange& r : lost) {
      cleared_.push_back({r.start, r.end});
      unseen_.push_back({r, copy_every_page(maps_, r.start)});
    }
    std::vector<uint64_t> staged;  // copied by the in-tracee stub
    if (copy_path_ == CopyPath::InTracee) {
      pages_.clear();
      for (uint64_t p : written) {
        if (staged.size() < process::kStagingMaxPages && tracee_can_read(p)) {
          staged.push_back(p);
        } else {
          pages_.push_back(p);
        }
      }
    } else {
      pages_ = std::move(written);
    }
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
      if (!staged.empty()) {
        std::vector<uint64_t> rest;
        std::set_difference(pages_.begin(), pages_.end(), staged.begin(), staged.end(), std::back_inserter(rest));
        pages_ = std::move(rest);
      }
      unseen_.clear();
    }
    const uint64_t t_copy = monotonic_ns();
    if (!staged.empty()) TRY_CTX(staging_.copy(leader_, staged), "copying dirty pages in the tracee");
    TRY_CTX(copier_.copy(leader_, pages_), "copying dirty pages");
    const uint64_t t_end = monotonic_ns();
    input.dirty.reserve(pages_.size() + staged.size());
    for (size_t i = 0; i < pages_.size(); ++i) input.dirty.push_back(store::DirtyPage{pages_[i], copier_.data(i)});
    if (!staged.empty()) {
      for (size_t i = 0; i < staged.size(); ++i) input.dirty.push_back(store::DirtyPage{staged[i], staging_.data(i)});
      std::sort(input.dirty.begin(), input.dirty.end(), [](const auto& a, const auto& b) { return a.vaddr < b.vaddr; });
    }
    input.cleared = std::move(cleared_);
    cleared_.clear();
    input.stop_ns = monotonic_ns() - t0;
    stats_ = CaptureStats{input.stop_ns, t_collect - t0, t_copy - t_collect, t_end - t_copy, input.dirty.size()};
    stats_.state_reused = reused;
    last_tids_ = tids;
    return input;
  }

  Status note_address_space_change() override {
    state_stale_ = true;  // a syscall ran (brk may have moved)
    TRY(reconcile());
    // At (or right after) a madvise that discards memory, its arguments are
    // still in the registers (the kernel preserves all but rax, rcx, r11).
    auto regs = TRY(leader_.regs());
    if (regs.orig_rax == SYS_madvise && regs.rax == 0 && discards_memory(static_cast<int>(regs.rdx)))
      TRY(note_discarded(regs.rdi, regs.rdi + regs.rsi));
    return ok_status();
  }
  CaptureStats last_stats() const override { return stats_; }

  void note_tracee_activity() override { state_stale_ = true; }

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
  // After reported activity (or without such reports): the full re-read.
  // Otherwise only a VM_GROWSDOWN mapping (the stack) can have changed, by a
  // page fault, and its growth shows in the size of the address space.
  Status refresh_maps() {
    if (state_stale_) return reconcile();
    const uint64_t total = TRY(read_total_vm());
    return total == total_vm_ ? ok_status() : reconcile();
  }

  // Handlers, brk, fds and cwd: re-read after reported activity, else the
  // previous capture's (see the members for why they cannot have changed).
  Status refresh_process_state() {
    if (!state_stale_) return ok_status();
    auto handlers = TRY_CTX(process::read_handlers_and_brk(leader_), "reading signal handlers");
    sigactions_ = handlers.actions;
    brk_current_ = handlers.brk;
    fds_ = TRY(process::read_fds(pid_));
    cwd_ = TRY(process::read_cwd(pid_));
    state_stale_ = !activity_reported_;
    return ok_status();
  }

  // The address space's size in pages: the first field of /proc/PID/statm,
  // generated afresh by every read at offset 0.
  Result<uint64_t> read_total_vm() {
    char buf[128];
    const ssize_t n = ::pread(statm_.get(), buf, sizeof buf - 1, 0);
    if (n < 0) return Error::from_errno("reading /proc/" + std::to_string(pid_) + "/statm");
    buf[n] = 0;
    char* end = nullptr;
    const uint64_t pages = std::strtoull(buf, &end, 10);
    if (end == buf) return Error::msg("/proc/" + std::to_string(pid_) + "/statm: malformed");
    return pages;
  }

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
      unseen_.push_back({r, copy_every_page(now, r.start)});
    }
    maps_ = std::move(now);
    total_vm_ = TRY(read_total_vm());
    return ok_status();
  }

  // The stub reads with the tracee's own permissions.
  bool tracee_can_read(uint64_t addr) const {
    auto it = std::upper_bound(maps_.begin(), maps_.end(), addr, [](uint64_t a, const auto& m) { return a < m.start; });
    if (it == maps_.begin()) return false;
    --it;
    return addr < it->end && (it->prot & PROT_READ);
  }

  // File pages (and [vdso] code) read as their backing bytes even when not
  // populated: copy every page. Anonymous memory: only populated pages.
  static bool copy_every_page(const std::vector<store::Mapping>& maps, uint64_t addr) {
    for (const auto& m : maps)
      if (m.start <= addr && addr < m.end)
        return !(m.flags & store::flag(store::MappingFlags::Anonymous)) || m.path == "[vdso]";
    return false;
  }

  pid_t pid_;
  process::Task leader_;
  UniqueFd pagemap_;
  std::unique_ptr<DirtyTracker> tracker_;
  std::vector<store::Mapping> maps_;
  std::vector<std::pair<PageRange, bool>> unseen_;  // range, copy every page (else populated ones)
  std::vector<std::pair<uint64_t, uint64_t>> cleared_;
  std::vector<uint64_t> pages_;
  PageCopier copier_;
  CopyPath copy_path_;
  StagingCopier staging_;
  uint64_t brk_start_ = 0;
  std::vector<uint8_t> auxv_;
  std::vector<std::string> cmdline_;
  std::string exe_;
  std::vector<pid_t> last_tids_;
  CaptureStats stats_;

  // What a capture may reuse when nothing was reported since the previous one.
  const bool activity_reported_;
  bool state_stale_ = true;  // the first capture reads everything
  UniqueFd statm_;
  uint64_t total_vm_ = 0;  // maps_: only syscalls change the map, but for VM_GROWSDOWN growth, which adds to this
  std::array<store::SignalAction, 64> sigactions_{};  // rt_sigaction, or delivering an SA_RESETHAND signal
  uint64_t brk_current_ = 0;                          // brk() only
  std::vector<store::FdEntry> fds_;                   // open, close, dup, fcntl, lseek, read ...: syscalls
  std::string cwd_;                                   // chdir/fchdir only
};

}  // namespace

Result<std::unique_ptr<CheckpointCapture>> CheckpointCapture::create(pid_t pid, TrackerChoice choice,
                                                                    const CaptureOptions& options) {
  std::string path = "/proc/" + std::to_string(pid) + "/pagemap";
  UniqueFd pagemap(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!pagemap.valid()) return Error::from_errno("open(" + path + ")");
  auto capture = std::make_unique<ProcessCapture>(pid, std::move(pagemap), options);
  TRY(capture->init(choice));
  return std::unique_ptr<CheckpointCapture>(std::move(capture));
}

}  // namespace slsdbg::recorder
