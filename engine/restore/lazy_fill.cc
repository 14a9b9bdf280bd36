#include "engine/restore/lazy_fill.h"

#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>

#include "engine/restore/memory_fill.h"
#include "engine/restore/remote_calls.h"
#include "process/remote_fd.h"

namespace slsdbg::restore {

namespace {

constexpr size_t kPrefetchChunk = 1u << 20;  // filled between two looks at the fault queue
constexpr size_t kFaultWindow = 16 * 4096;   // pages filled around a faulting address

}  // namespace

LazyFiller::~LazyFiller() {
  if (thread_.joinable()) thread_.join();
}

Status LazyFiller::attach(RemoteCalls& rc, std::vector<std::pair<uint64_t, uint64_t>> ranges) {
  ranges_ = std::move(ranges);
  if (ranges_.empty()) return ok_status();
  int64_t remote = TRY(rc.call("userfaultfd", SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK));
  pid_t pid = rc.task().tgid();
  uffd_ = TRY_CTX(process::copy_remote_fd(pid, int(remote)), "userfaultfd");
  TRY(rc.call("close", SYS_close, uint64_t(remote)));

  uffdio_api api{};
  api.api = UFFD_API;
  if (::ioctl(uffd_.get(), UFFDIO_API, &api) != 0) return Error::from_errno("ioctl(UFFDIO_API)");
  for (const auto& [s, e] : ranges_) {
    uffdio_register reg{};
    reg.range.start = s;
    reg.range.len = e - s;
    reg.mode = UFFDIO_REGISTER_MODE_MISSING;
    if (::ioctl(uffd_.get(), UFFDIO_REGISTER, &reg) != 0) return Error::from_errno("ioctl(UFFDIO_REGISTER)");
  }
  return ok_status();
}

Status LazyFiller::start(const store::RecordingReader& reader, CheckpointId k) {
  if (!uffd_.valid()) {
    done_ = true;
    return ok_status();
  }
  reader_ = &reader;
  k_ = k;
  buf_.resize(kPrefetchChunk);
  thread_ = std::thread([this] { run(); });
  return ok_status();
}

void LazyFiller::wait_filled() {
  if (thread_.joinable()) thread_.join();
}

LazyStats LazyFiller::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

// Copies [addr, addr+len) of the checkpoint into the process: UFFDIO_COPY for
// data, UFFDIO_ZEROPAGE for zero runs. Pages already present (EEXIST) are
// skipped. Returns false when the process (or the region) is gone.
bool LazyFiller::fill_range(uint64_t addr, size_t len, bool from_fault) {
  if (!reader_->read_memory(k_, addr, std::span<uint8_t>(buf_.data(), len)).ok()) return false;
  size_t off = 0;
  while (off < len) {
    bool zero = is_zero_page(buf_.data() + off);
    size_t run = kPageSize;
    while (off + run < len && is_zero_page(buf_.data() + off + run) == zero) run += kPageSize;
    size_t done = 0;
    while (done < run) {
      int rc;
      int64_t result;
      if (zero) {
        uffdio_zeropage z{};
        z.range.start = addr + off + done;
        z.range.len = run - done;
        rc = ::ioctl(uffd_.get(), UFFDIO_ZEROPAGE, &z);
        result = z.zeropage;
      } else {
        uffdio_copy c{};
        c.dst = addr + off + done;
        c.src = reinterpret_cast<uint64_t>(buf_.data() + off + done);
        c.len = run - done;
        rc = ::ioctl(uffd_.get(), UFFDIO_COPY, &c);
        result = c.copy;
      }
      if (rc == 0) {
        std::lock_guard<std::mutex> lock(mu_);
        (zero ? stats_.pages_zeroed : stats_.pages_copied) += (run - done) / kPageSize;
        done = run;
        continue;
      }
      if (result > 0) done += size_t(result);  // partial progress
      if (errno == EAGAIN) continue;             // mapping changing; retry
      if (errno == EEXIST) {
        done = (done / kPageSize + 1) * kPageSize;  // this page is there already
        continue;
      }
      return false;  // ENOENT/ESRCH: region or process gone
    }
    off += run;
  }
  (void)from_fault;
  return true;
}

// Serves queued faults; waits up to timeout_ms for the first. False when the
// userfaultfd reports the process gone.
bool LazyFiller::serve_faults(int timeout_ms) {
  pollfd p{uffd_.get(), POLLIN, 0};
  int n = ::poll(&p, 1, timeout_ms);
  if (n <= 0) return n == 0 || errno == EINTR;
  if (p.revents & (POLLERR | POLLHUP)) return false;
  uffd_msg msgs[16];
  ssize_t got = ::read(uffd_.get(), msgs, sizeof msgs);
  if (got <= 0) return got < 0 && errno == EAGAIN;
  for (ssize_t i = 0; i < got / ssize_t(sizeof(uffd_msg)); i++) {
    if (msgs[i].event != UFFD_EVENT_PAGEFAULT) continue;
    uint64_t a = page_floor(msgs[i].arg.pagefault.address);
    for (const auto& [s, e] : ranges_) {
      if (a < s || a >= e) continue;
      uint64_t from = a, to = std::min<uint64_t>(e, a + kFaultWindow);
      {
        std::lock_guard<std::mutex> lock(mu_);
        stats_.faults_served++;
      }
      if (!fill_range(from, to - from, true)) return false;
      // The page may have been filled by the prefetch after the fault was
      // queued (EEXIST above): make sure the faulting thread runs on.
      uffdio_range wake{a, kPageSize};
      ::ioctl(uffd_.get(), UFFDIO_WAKE, &wake);
    }
  }
  return true;
}

void LazyFiller::run() {
  bool alive = true;
  for (const auto& [s, e] : ranges_) {
    for (uint64_t a = s; a < e && alive; a += kPrefetchChunk) {
      alive = serve_faults(0) && fill_range(a, std::min<uint64_t>(kPrefetchChunk, e - a), false);
    }
    if (!alive) break;
  }
  // Every page is present: nothing can fault any more, unless the program
  // discards pages (MADV_DONTNEED) - so stop intercepting.
  for (const auto& [s, e] : ranges_) {
    uffdio_range r{s, e - s};
    ::ioctl(uffd_.get(), UFFDIO_UNREGISTER, &r);
  }
  done_ = true;
}

}  // namespace slsdbg::restore
