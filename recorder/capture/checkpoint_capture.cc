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
#include <cstring>
#include <iterator>

#include "common/fd.h"
#include "common/log.h"
#include "process/inject.h"
#include "process/proc_fds.h"
#include "process/proc_identity.h"
#include "process/proc_maps.h"
#include "process/proc_signals.h"
#include "recorder/capture/address_space_diff.h"
#include "recorder/capture/deferred_copy.h"
#include "recorder/capture/dirty_tracker.h"
#include "recorder/capture/page_buffer_pool.h"
#include "recorder/capture/page_copier.h"
#include "recorder/capture/pending_access.h"
#include "recorder/capture/populated_pages.h"
#include "recorder/capture/staging_copier.h"
#include "recorder/capture/thread_capture.h"
#include "recorder/capture/write_history.h"

namespace slsdbg::recorder {

Status verify_against_store(process::Task& leader, const std::vector<pid_t>& tids, const store::RecordingReader& reader,
                            CheckpointId k);

namespace {

// Below this many cold pages a deferred copy is not worth its check.
constexpr size_t kMinDeferredPages = 64;
// Above this many the copy outlasts many writes (a whole heap touched for
// the first time): the checkpoint would likely be torn.
constexpr size_t kMaxDeferredPages = 16384;
// Pages this close to the stack pointer count as hot.
constexpr uint64_t kHotStackBytes = 64 * 1024;

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
        copy_path_(options.copy_path), activity_reported_(options.activity_reported), keep_file_(options.keep_file) {
    deferred_.set_delay_for_tests(options.deferred_copy_delay_us_for_tests);
  }

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
    CapturedCheckpoint c = TRY(capture_checkpoint(tids, CopyTiming::InStop));
    last_pages_ = std::move(c.pages);  // valid until the next capture, as documented
    return std::move(c.input);
  }

  Result<CapturedCheckpoint> capture_checkpoint(const std::vector<pid_t>& tids, CopyTiming timing) override {
    const uint64_t t0 = monotonic_ns();
    if (tids.empty() || tids[0] != pid_) return Error::msg("capture: the thread group leader must come first");
    if (deferred_.outstanding()) return Error::msg("capture: the previous deferred capture was not settled");
    const bool reused = !state_stale_;
    TRY(refresh_maps());
    const uint64_t t_maps = monotonic_ns();
    CapturedCheckpoint out;
    store::CheckpointInput& input = out.input;
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
    const uint64_t t_threads = monotonic_ns();
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
    std::vector<uint64_t> pages = TRY(pages_to_take());
    const std::vector<PageRange> near =
        timing == CopyTiming::Deferred ? likely_next_writes(st.threads) : std::vector<PageRange>{};
    PageSplit split = split_pages(pages, timing, near);

    const uint64_t t_copy = monotonic_ns();
    const size_t n_now = split.now.size(), n_staged = split.staged.size();
    std::shared_ptr<PageBuffer> buffer = buffers_->acquire(pages.size());
    if (!buffer) return Error::msg("capture: out of memory for " + std::to_string(pages.size()) + " page copies");
    if (!split.staged.empty()) {
      TRY_CTX(staging_.copy(leader_, split.staged), "copying dirty pages in the tracee");
      for (size_t i = 0; i < n_staged; ++i) std::memcpy(buffer->page(n_now + i), staging_.data(i), kPageSize);
    }
    TRY_CTX(copier_.copy(leader_, split.now, buffer->page(0)), "copying dirty pages");
    const uint64_t t_end = monotonic_ns();
    input.dirty.reserve(pages.size());
    for (size_t i = 0; i < split.now.size(); ++i) input.dirty.push_back(store::DirtyPage{split.now[i], buffer->page(i)});
    for (size_t i = 0; i < n_staged; ++i) input.dirty.push_back(store::DirtyPage{split.staged[i], buffer->page(n_now + i)});
    sort_by_address(input.dirty);
    input.cleared = std::move(cleared_);
    cleared_.clear();
    if (!split.cold.empty()) {
      DeferredCopyJob job;
      job.pid = pid_;
      job.pagemap_fd = pagemap_.get();
      job.pages = split.cold;
      job.dest = buffer->page(n_now + n_staged);
      deferred_offset_ = n_now + n_staged;
      job.buffer = buffer;
      TRY_CTX(deferred_.start(std::move(job)), "deferring the copy of dirty pages");
      deferred_pages_ = std::move(split.cold);
      out.deferred = true;
    }
    input.stop_ns = monotonic_ns() - t0;
    stats_ = CaptureStats{input.stop_ns, t_collect - t0, t_copy - t_collect, t_end - t_copy,
                          input.dirty.size() + deferred_pages_.size(), out.deferred ? deferred_pages_.size() : 0};
    stats_.state_reused = reused;
    stats_.rewritten_pages = repeating_.size();
    // Where a stop goes (docs/performance.md): the rest of `record`'s stop is
    // stopping the other threads and the session's own bookkeeping.
    SLSDBG_DEBUG("capture",
                 "%zu threads: maps %.0f us, threads %.0f us, handlers/fds %.0f us (%s), dirty set %.0f us, "
                 "copy %.0f us (%zu pages), deferring %.0f us",
                 tids.size(), double(t_maps - t0) / 1e3, double(t_threads - t_maps) / 1e3,
                 double(t_collect - t_threads) / 1e3, reused ? "reused" : "read", double(stats_.collect_ns) / 1e3,
                 double(stats_.copy_ns) / 1e3, n_now + n_staged, double(input.stop_ns - (t_end - t0)) / 1e3);
    out.pages = std::move(buffer);
    last_tids_ = tids;
    return out;
  }

  void on_torn_copy(std::function<void()> notify) override { deferred_.set_on_torn(std::move(notify)); }

  Result<bool> settle(CapturedCheckpoint& c) override {
    if (!c.deferred) return true;
    c.deferred = false;
    DeferredCopyResult r = deferred_.wait();
    std::vector<uint64_t> cold = std::move(deferred_pages_);
    deferred_pages_.clear();
    if (!r.status.ok() || !r.torn.empty()) {
      if (!r.status.ok())
        SLSDBG_DEBUG("capture", "deferred copy failed (%s); the checkpoint is dropped", r.status.error().message.c_str());
      else
        SLSDBG_DEBUG("capture", "deferred copy: %zu of %zu cold pages written before confirmed (first 0x%llx); dropped",
                     r.torn.size(), cold.size(), static_cast<unsigned long long>(r.torn[0]));
      // Taken again next time: the next checkpoint starts from the one before this.
      for (const store::DirtyPage& d : c.input.dirty) carried_.push_back(d.vaddr);
      // Its writes stay in the history: those written again since (the torn
      // ones) show as rewritten at the retake, so the interval stretches.
      carried_.insert(carried_.end(), cold.begin(), cold.end());
      c.input.cleared.insert(c.input.cleared.end(), cleared_.begin(), cleared_.end());
      cleared_ = std::move(c.input.cleared);
      c.input.dirty.clear();
      return false;
    }
    auto* buffer = static_cast<const PageBuffer*>(c.pages.get());
    for (size_t i = 0; i < r.copied.size(); ++i)
      c.input.dirty.push_back(store::DirtyPage{r.copied[i], buffer->page(deferred_offset_ + i)});
    sort_by_address(c.input.dirty);
    return true;
  }

  Status note_address_space_change(pid_t tid) override {
    state_stale_ = true;  // a syscall ran (brk may have moved)
    TRY(reconcile());
    // At (or right after) a madvise that discards memory, its arguments are
    // still in the registers (the kernel preserves all but rax, rcx, r11).
    auto regs = TRY(thread_regs(tid));
    if (regs.orig_rax == SYS_madvise && regs.rax == 0 && discards_memory(static_cast<int>(regs.rdx)))
      TRY(note_discarded(regs.rdi, regs.rdi + regs.rsi));
    return ok_status();
  }
  // The registers of `tid` (0: the leader), a stopped thread of the tracee.
  Result<user_regs_struct> thread_regs(pid_t tid) {
    if (tid == 0 || tid == pid_) return leader_.regs();
    process::Task other(Tid(tid), pid_);
    return other.regs();
  }

  CaptureStats last_stats() const override { return stats_; }

  void note_tracee_activity() override { state_stale_ = true; }
  void note_fd_activity() override { fds_stale_ = true; }

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
  struct PageSplit {
    std::vector<uint64_t> now;     // copied by the recorder in the stop
    std::vector<uint64_t> staged;  // copied by the in-tracee stub in the stop
    std::vector<uint64_t> cold;    // copied after the tracee resumed
  };

  // The pages this capture takes, ascending: written since the last capture,
  // those of ranges that appeared or whose tracking was lost, and those a
  // dropped (torn) capture left behind.
  Result<std::vector<uint64_t>> pages_to_take() {
    std::vector<PageRange> lost;
    std::vector<uint64_t> written = TRY_CTX(tracker_->collect(lost), "collecting dirty pages");
    for (const PageRange& r : lost) {
      cleared_.push_back({r.start, r.end});
      for (const store::Mapping& m : maps_) {
        const uint64_t s = std::max(r.start, m.start), e = std::min(r.end, m.end);
        if (s >= e) continue;
        if (kept(m)) {
          TRY(append_private_copies(pagemap_.get(), {s, e}, unseen_pages_));
        } else {
          unseen_.push_back({{s, e}, copy_every_page(maps_, s)});
        }
      }
      TRY_CTX(tracker_->track(r), "tracking memory again");
    }
    history_.push(std::move(written_));
    written_ = written;
    repeating_ = history_.also_written(written_);
    std::vector<uint64_t> pages = std::move(written);
    for (const auto& [range, file_backed] : unseen_) {
      if (file_backed) {
        // Every page: a file page never touched still reads as the file's bytes, not zero.
        for (uint64_t p = range.start; p < range.end; p += kPageSize) pages.push_back(p);
      } else {
        TRY(append_present_pages(pagemap_.get(), range, pages));
      }
    }
    unseen_.clear();
    pages.insert(pages.end(), unseen_pages_.begin(), unseen_pages_.end());
    unseen_pages_.clear();
    pages.insert(pages.end(), carried_.begin(), carried_.end());
    carried_.clear();
    std::sort(pages.begin(), pages.end());
    pages.erase(std::unique(pages.begin(), pages.end()), pages.end());
    return pages;
  }

  // Where the threads are likely to write right after resuming: around the
  // stack pointer, and next to any register that holds an address (a loop's
  // cursor). Sorted, possibly overlapping ranges.
  std::vector<PageRange> likely_next_writes(const std::vector<store::ThreadState>& threads) {
    std::vector<PageRange> near;
    for (const store::ThreadState& t : threads) {
      const auto& r = t.regs;
      // The instruction about to run: its page fault may have been served already.
      uint8_t code[16];
      process::Task thread(t.tid, pid_);
      if (thread.read_memory(RemoteAddr(r.rip), code).ok())
        for (uint64_t a : decoder_.addresses(code, sizeof code, r))
          near.push_back({std::max(page_floor(a), kPageSize) - kPageSize, page_floor(a) + 2 * kPageSize});
      near.push_back({std::max(page_floor(r.rsp), kHotStackBytes) - kHotStackBytes, page_floor(r.rsp) + kHotStackBytes});
      for (uint64_t v : {r.rax, r.rbx, r.rcx, r.rdx, r.rsi, r.rdi, r.rbp, r.r8, r.r9, r.r10, r.r11, r.r12, r.r13,
                         r.r14, r.r15})
        if (v >= 4 * kPageSize) near.push_back({page_floor(v) - 2 * kPageSize, page_floor(v) + 8 * kPageSize});
    }
    std::sort(near.begin(), near.end(), [](const PageRange& a, const PageRange& b) { return a.start < b.start; });
    return near;
  }

  PageSplit split_pages(const std::vector<uint64_t>& pages, CopyTiming timing, const std::vector<PageRange>& near) const {
    PageSplit split;
    if (timing == CopyTiming::Deferred) {
      for (uint64_t p : pages)
        if (may_defer(p, near)) split.cold.push_back(p);
      if (split.cold.size() < kMinDeferredPages || split.cold.size() > kMaxDeferredPages) split.cold.clear();
    }
    std::vector<uint64_t> rest;
    std::set_difference(pages.begin(), pages.end(), split.cold.begin(), split.cold.end(), std::back_inserter(rest));
    for (uint64_t p : rest) {
      // The stub reads with the tracee's permissions, and only written pages
      // are surely backed (a file page beyond EOF would fault in the tracee).
      const bool stage = copy_path_ == CopyPath::InTracee && split.staged.size() < process::kStagingMaxPages &&
                         std::binary_search(written_.begin(), written_.end(), p) && tracee_can_read(p);
      (stage ? split.staged : split.now).push_back(p);
    }
    return split;
  }

  // Cold private anonymous memory the tracker watches: a write to it after
  // this stop shows in the deferred copy's check. Pages likely written again
  // at once (near a register's address, or written in one of the last few
  // intervals too) would make the checkpoint torn: those are copied in the stop.
  bool may_defer(uint64_t page, const std::vector<PageRange>& near) const {
    for (const PageRange& r : near) {
      if (r.start > page) break;
      if (page < r.end) return false;
    }
    const std::vector<uint64_t>& hot = history_.newest();
    if (std::binary_search(hot.begin(), hot.end(), page)) return false;
    if (std::binary_search(repeating_.begin(), repeating_.end(), page)) return false;
    const store::Mapping* m = mapping_at(page);
    if (!m || !(m->flags & store::flag(store::MappingFlags::Anonymous)) ||
        (m->flags & (store::flag(store::MappingFlags::Shared) | store::flag(store::MappingFlags::Vdso))))
      return false;
    return tracker_->watches(page);
  }

  const store::Mapping* mapping_at(uint64_t addr) const {
    auto it = std::upper_bound(maps_.begin(), maps_.end(), addr, [](uint64_t a, const auto& m) { return a < m.start; });
    if (it == maps_.begin()) return nullptr;
    --it;
    return addr < it->end ? &*it : nullptr;
  }

  static void sort_by_address(std::vector<store::DirtyPage>& dirty) {
    std::sort(dirty.begin(), dirty.end(), [](const auto& a, const auto& b) { return a.vaddr < b.vaddr; });
  }

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
    if (!state_stale_ && fds_stale_) {
      fds_ = TRY(process::read_fds(pid_));
      fds_stale_ = !activity_reported_;
      return ok_status();
    }
    if (!state_stale_) return ok_status();
    auto handlers = TRY_CTX(process::read_handlers_and_brk(leader_), "reading signal handlers");
    sigactions_ = handlers.actions;
    brk_current_ = handlers.brk;
    fds_ = TRY(process::read_fds(pid_));
    cwd_ = TRY(process::read_cwd(pid_));
    state_stale_ = fds_stale_ = !activity_reported_;
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
      std::erase_if(unseen_pages_, [&](uint64_t p) { return p >= r.start && p < r.end; });
    }
    for (const PageRange& r : d.added) {
      // One mapping at a time: a range may span a library's file pages and
      // its anonymous bss, or the [vdso] (which the uffd refuses, so its
      // range is hashed) and the loader next to it.
      for (const store::Mapping& m : now) {
        const uint64_t s = std::max(r.start, m.start), e = std::min(r.end, m.end);
        if (s >= e) continue;
        if (kept(m)) {
          // The file is in the recording: pages absent from the tree read
          // as its bytes, so stale ones go and only copies are taken.
          cleared_.push_back({s, e});
          TRY(append_private_copies(pagemap_.get(), {s, e}, unseen_pages_));
        } else if (copy_every_page(now, s)) {
          unseen_.push_back({{s, e}, true});
        } else {
          // Before tracking: its markers would make every page look populated.
          TRY(append_populated_pages(pagemap_.get(), {s, e}, unseen_pages_));
        }
        TRY_CTX(tracker_->track({s, e}), "tracking new memory");
      }
    }
    maps_ = std::move(now);
    total_vm_ = TRY(read_total_vm());
    return ok_status();
  }

  // The stub reads with the tracee's own permissions.
  bool tracee_can_read(uint64_t addr) const {
    const store::Mapping* m = mapping_at(addr);
    return m && (m->prot & PROT_READ);
  }

  // A private file mapping whose file the recording keeps: its pages absent
  // from the tree read as the file's, so only the program's copies are taken.
  bool kept(const store::Mapping& m) const {
    return !(m.flags & store::flag(store::MappingFlags::Anonymous)) && keep_file_ && keep_file_(m);
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
  std::vector<std::pair<PageRange, bool>> unseen_;  // range, copy every page (else the present ones)
  std::vector<uint64_t> unseen_pages_;              // populated when their range appeared
  std::vector<std::pair<uint64_t, uint64_t>> cleared_;
  PageCopier copier_;
  std::shared_ptr<PageBufferPool> buffers_ = PageBufferPool::create();
  std::shared_ptr<const void> last_pages_;  // capture()'s result points here
  DeferredCopier deferred_;
  std::vector<uint64_t> deferred_pages_;    // the cold pages of the capture not yet settled
  size_t deferred_offset_ = 0;              // where their copies start in its buffer
  std::vector<uint64_t> carried_;           // a dropped capture's pages, taken by the next
  std::vector<uint64_t> written_;           // the tracker's pages at the last capture
  WriteHistory history_;                    // ... and at the few before (newest(): the previous one)
  std::vector<uint64_t> repeating_;         // of written_, those in history_ too
  PendingAccessDecoder decoder_;
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
  const std::function<bool(const store::Mapping&)> keep_file_;
  bool state_stale_ = true;  // the first capture reads everything
  bool fds_stale_ = true;    // only the fd table (note_fd_activity)
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
