#include "engine/restore/memory_fill.h"

#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <future>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <vector>

#include "store/kept_files.h"

namespace slsdbg::restore {

namespace {

constexpr size_t kChunk = 8u << 20;     // bytes read from the store at a time
constexpr size_t kMaxIov = 1024;        // IOV_MAX

// Batches page writes into process_vm_writev calls, merging adjacent pages.
class PageWriter {
 public:
  // mem_fd >= 0: write through /proc/PID/mem (FOLL_FORCE: works on read-only
  // pages, copying them on write like a debugger's breakpoint), else
  // process_vm_writev (needs writable pages, fewer copies).
  PageWriter(pid_t pid, int mem_fd) : pid_(pid), mem_fd_(mem_fd) {
    local_.reserve(kMaxIov);
    remote_.reserve(kMaxIov);
  }

  Status add(uint64_t remote, const uint8_t* data, size_t len) {
    if (!remote_.empty()) {
      iovec& l = local_.back();
      iovec& r = remote_.back();
      if (reinterpret_cast<uint64_t>(r.iov_base) + r.iov_len == remote &&
          static_cast<const uint8_t*>(l.iov_base) + l.iov_len == data) {
        l.iov_len += len;
        r.iov_len += len;
        return ok_status();
      }
    }
    if (remote_.size() == kMaxIov) TRY(flush());
    local_.push_back({const_cast<uint8_t*>(data), len});
    remote_.push_back({reinterpret_cast<void*>(remote), len});
    return ok_status();
  }

  Status flush() {
    if (mem_fd_ >= 0) return flush_through_mem();
    size_t i = 0;
    while (i < remote_.size()) {
      size_t want = 0;
      for (size_t j = i; j < remote_.size(); j++) want += remote_[j].iov_len;
      ssize_t n = ::process_vm_writev(pid_, &local_[i], remote_.size() - i, &remote_[i], remote_.size() - i, 0);
      if (n < 0) return Error::from_errno("process_vm_writev at " + hex(remote_[i].iov_base));
      bytes_ += uint64_t(n);
      if (size_t(n) == want) break;
      // Partial: the kernel stops at the first iovec it could not complete.
      size_t done = size_t(n);
      while (i < remote_.size() && done >= remote_[i].iov_len) done -= remote_[i++].iov_len;
      if (i < remote_.size()) {
        if (done == 0) return Error::msg("process_vm_writev: cannot write at " + hex(remote_[i].iov_base));
        remote_[i].iov_base = static_cast<uint8_t*>(remote_[i].iov_base) + done;
        remote_[i].iov_len -= done;
        local_[i].iov_base = static_cast<uint8_t*>(local_[i].iov_base) + done;
        local_[i].iov_len -= done;
      }
    }
    local_.clear();
    remote_.clear();
    return ok_status();
  }

  uint64_t bytes() const { return bytes_; }

 private:
  Status flush_through_mem() {
    for (size_t i = 0; i < remote_.size(); i++) {
      size_t done = 0;
      while (done < remote_[i].iov_len) {
        ssize_t n = ::pwrite(mem_fd_, static_cast<uint8_t*>(local_[i].iov_base) + done, remote_[i].iov_len - done,
                             off_t(reinterpret_cast<uint64_t>(remote_[i].iov_base) + done));
        if (n <= 0) return Error::from_errno("write to /proc/PID/mem at " + hex(remote_[i].iov_base));
        done += size_t(n);
      }
      bytes_ += done;
    }
    local_.clear();
    remote_.clear();
    return ok_status();
  }

  static std::string hex(const void* p) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%#lx", reinterpret_cast<unsigned long>(p));
    return buf;
  }
  pid_t pid_;
  int mem_fd_;
  std::vector<iovec> local_, remote_;
  uint64_t bytes_ = 0;
};

// Reads up to `len` bytes of the file at `off`; the rest (beyond EOF) is zero.
Status read_file_range(int fd, uint64_t off, uint8_t* out, size_t len) {
  size_t got = 0;
  while (got < len) {
    ssize_t n = ::pread(fd, out + got, len - got, off_t(off + got));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error::from_errno("pread of a mapped file");
    }
    if (n == 0) break;
    got += size_t(n);
  }
  std::memset(out + got, 0, len - got);
  return ok_status();
}

// A file mapping whose pages outside those the store held were found equal
// on disk to what the recording reads there (the kept copy of the file):
// later restores in this process compare only the pages the store holds at
// their checkpoint and those it held then (whose kept bytes were not
// compared), not every page of the mapping (libc's text is ~500 pages, a
// few patched by the recorder: half of a 10 ms restore). Keyed by the
// recording, the mapping (its place too: an exec maps ld.so again
// elsewhere) and the file as it is now.
using AgreedKey = std::array<uint64_t, 12>;
std::mutex agreed_mu;
std::map<AgreedKey, std::vector<uint64_t>> agreed;  // the pages held when it was found

std::optional<AgreedKey> agreed_key(const store::RecordingReader& reader, const store::Mapping& m, int file_fd) {
  struct stat st;
  if (::fstat(file_fd, &st) != 0) return std::nullopt;
  const store::RecordingMeta& meta = reader.meta();
  return AgreedKey{uint64_t(meta.created_unix_ns), uint64_t(meta.pid), m.start, m.end, m.dev, m.inode, m.file_offset,
                   uint64_t(st.st_dev), uint64_t(st.st_ino), uint64_t(st.st_size), uint64_t(st.st_mtim.tv_sec),
                   uint64_t(st.st_mtim.tv_nsec)};
}

// The pages to compare with the file: those held now and those held when
// the rest was found agreeing. nullopt: not found agreeing yet.
std::optional<std::vector<uint64_t>> pages_to_compare(const AgreedKey& key, const std::vector<uint64_t>& held) {
  const std::lock_guard lock(agreed_mu);
  auto it = agreed.find(key);
  if (it == agreed.end()) return std::nullopt;
  std::vector<uint64_t> out;
  std::set_union(held.begin(), held.end(), it->second.begin(), it->second.end(), std::back_inserter(out));
  return out;
}

void note_agreed(const AgreedKey& key, const std::vector<uint64_t>& held) {
  const std::lock_guard lock(agreed_mu);
  if (agreed.size() >= 4096) agreed.clear();  // a bound for long-lived processes (tests)
  agreed.emplace(key, held);
}

// Writes the non-zero pages among `held` (sorted) into the process, or with
// `file_fd` >= 0 those differing from the file (PagesDifferingFromFile for a
// mapping found agreeing: pages_to_compare). Read in batches, so a mostly
// dirty heap needs no buffer of its size.
Status fill_held_pages(const store::RecordingReader& reader, CheckpointId k, const store::Mapping& m,
                       const std::vector<uint64_t>& held, int file_fd, PageWriter& writer, RestoreTimings& timings) {
  constexpr size_t kBatch = 1024;
  std::vector<uint8_t> pages(std::min(held.size(), kBatch) * kPageSize);
  alignas(64) uint8_t file_page[kPageSize];
  for (size_t first = 0; first < held.size(); first += kBatch) {
    size_t n = std::min(kBatch, held.size() - first);
    for (size_t i = 0; i < n; i++) {
      uint64_t addr = held[first + i];
      if (addr < m.start || addr >= m.end) continue;  // not this mapping's (never, by the key)
      uint8_t* page = pages.data() + i * kPageSize;
      TRY_CTX(reader.read_memory(k, addr, std::span<uint8_t>(page, kPageSize)),
              "reading the recorded pages of " + describe(m));
      if (file_fd >= 0) {
        TRY(read_file_range(file_fd, m.file_offset + (addr - m.start), file_page, kPageSize));
        if (std::memcmp(page, file_page, kPageSize) == 0) {
          timings.pages_same_as_file++;
          continue;
        }
      } else if (is_zero_page(page)) {
        timings.pages_skipped_zero++;
        continue;
      }
      TRY(writer.add(addr, page, kPageSize));
    }
    TRY(writer.flush());  // before the batch's buffer is reused
  }
  return ok_status();
}

}  // namespace

bool is_zero_page(const uint8_t* p) {
  const uint64_t* w = reinterpret_cast<const uint64_t*>(p);
  uint64_t acc = 0;
  for (size_t i = 0; i < kPageSize / 8; i++) acc |= w[i];
  return acc == 0;
}

Result<FillOutcome> fill_mapping(const store::RecordingReader& reader, CheckpointId k, pid_t pid,
                                 const MappingStep& step, FillPolicy policy, int file_fd, int mem_fd,
                                 RestoreTimings& timings) {
  if (policy == FillPolicy::None) return FillOutcome::Done;
  const store::Mapping& m = step.mapping;
  size_t chunk = std::min<uint64_t>(kChunk, m.end - m.start);
  PageWriter writer(pid, mem_fd);
  // A mapping of a file: the pages the store holds, and whether the rest was
  // found to agree with the file before.
  std::vector<uint64_t> held;
  std::optional<AgreedKey> key;
  bool other_page_differs = false;  // a page the store does not hold differs from the file
  if (policy == FillPolicy::PagesDifferingFromFile && file_fd >= 0) {
    held = TRY(reader.captured_pages(k, m.start, m.end));
    key = agreed_key(reader, m, file_fd);
    if (std::optional<std::vector<uint64_t>> pages = key ? pages_to_compare(*key, held) : std::nullopt) {
      TRY_CTX(fill_held_pages(reader, k, m, *pages, file_fd, writer, timings), "restoring " + describe(m));
      timings.bytes_written += writer.bytes();
      return FillOutcome::Done;
    }
  }
  // An anonymous mapping (or one whose file the recording did not keep) is
  // restored into fresh zero pages, and the store reads every page it does
  // not hold there as zero: only the held ones need reading. A thread's 8
  // MiB stack holds a few dozen; reading all of them (a buffer of the
  // mapping's size, faulted in at each restore) was most of a threaded
  // restore's CPU time.
  if (policy == FillPolicy::AllPages && !store::keepable(m)) {
    std::vector<uint64_t> pages = TRY(reader.captured_pages(k, m.start, m.end));
    if (pages.size() * 2 < (m.end - m.start) / kPageSize) {
      TRY_CTX(fill_held_pages(reader, k, m, pages, -1, writer, timings), "restoring " + describe(m));
      timings.bytes_written += writer.bytes();
      return FillOutcome::Done;
    }
  }
  // Two buffers: the store reads chunk i+1 on another thread while chunk i is
  // written into the process (store reads and process_vm_writev cost about
  // the same per byte here).
  std::unique_ptr<uint8_t[]> bufs[2] = {std::unique_ptr<uint8_t[]>(new uint8_t[chunk]),
                                        std::unique_ptr<uint8_t[]>(new uint8_t[chunk])};
  std::unique_ptr<uint8_t[]> filebuf;
  bool against_file = policy == FillPolicy::PagesDifferingFromFile || policy == FillPolicy::VerifySharedFile;
  if (against_file) filebuf.reset(new uint8_t[chunk]);
  auto read_chunk = [&](uint64_t addr, uint8_t* out) -> Status {
    size_t len = std::min<uint64_t>(chunk, m.end - addr);
    return reader.read_memory(k, addr, std::span<uint8_t>(out, len));
  };

  std::future<Status> next = std::async(std::launch::deferred, read_chunk, m.start, bufs[0].get());
  int cur = 0;
  for (uint64_t addr = m.start; addr < m.end; addr += chunk, cur ^= 1) {
    size_t len = std::min<uint64_t>(chunk, m.end - addr);
    TRY_CTX(next.get(), "reading the recorded pages of " + describe(m));
    if (addr + chunk < m.end) next = std::async(std::launch::async, read_chunk, addr + chunk, bufs[cur ^ 1].get());
    const uint8_t* buf = bufs[cur].get();
    if (against_file) TRY(read_file_range(file_fd, m.file_offset + (addr - m.start), filebuf.get(), len));
    for (size_t off = 0; off < len; off += kPageSize) {
      const uint8_t* page = buf + off;
      bool write;
      if (against_file) {
        write = std::memcmp(page, filebuf.get() + off, kPageSize) != 0;
        if (!write) timings.pages_same_as_file++;
        if (write && policy == FillPolicy::VerifySharedFile) {
          if (next.valid()) (void)next.get();
          return FillOutcome::SharedFileDiffers;
        }
      } else {
        write = !is_zero_page(page);
        if (!write) timings.pages_skipped_zero++;
      }
      if (write && key && !std::binary_search(held.begin(), held.end(), addr + off)) other_page_differs = true;
      if (write) {
        Status added = writer.add(addr + off, page, kPageSize);
        if (!added.ok()) {
          if (next.valid()) (void)next.get();
          return added.take_error().context("restoring " + describe(m));
        }
      }
    }
    Status flushed = writer.flush();
    if (!flushed.ok()) {
      if (next.valid()) (void)next.get();
      return flushed.take_error().context("restoring " + describe(m));
    }
  }
  timings.bytes_written += writer.bytes();
  if (key && !other_page_differs) note_agreed(*key, held);
  return FillOutcome::Done;
}

}  // namespace slsdbg::restore
