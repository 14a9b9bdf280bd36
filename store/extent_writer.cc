// io_uring extent writer (see extent_writer.h).
#include "store/extent_writer.h"

#include <fcntl.h>
#include <unistd.h>
#include <xxhash.h>

#include <cstdlib>
#include <cstring>

#include "store/extent_header.h"
#include "store/fs_util.h"

namespace slsdbg::store {

namespace {
constexpr size_t kBufferBlocks = 256;  // 1 MiB staging buffers
constexpr size_t kBuffers = 8;
constexpr unsigned kQueueDepth = 64;
// The first blocks of a recording go through the page cache even in Direct
// mode: an O_DIRECT write waits for the device (0.2-7 ms each here, more
// under load; three of them, the header and two checkpoints, were most of
// a recording of /bin/true), a buffered one only for a copy. Past this
// much, O_DIRECT's throughput and clean page cache win.
constexpr uint64_t kBufferedStartBlocks = 1024;  // 4 MiB

// O_DIRECT on or off for an open file; false: the filesystem refuses it.
bool set_direct(int fd, bool on) {
  const int fl = ::fcntl(fd, F_GETFL);
  return fl >= 0 && ::fcntl(fd, F_SETFL, on ? (fl | O_DIRECT) : (fl & ~O_DIRECT)) == 0;
}
}  // namespace

ExtentWriter::~ExtentWriter() {
  if (ring_ok_) {
    (void)wait_all();
    io_uring_queue_exit(&ring_);
  }
  for (auto& b : buffers_) std::free(b.data);
}

Result<std::unique_ptr<ExtentWriter>> ExtentWriter::create(const std::string& dir, uint32_t blocks_per_extent, IoMode mode,
                                                        bool sync_new_files) {
  std::unique_ptr<ExtentWriter> w(new ExtentWriter());
  w->mode_ = mode;
  w->sync_new_files_ = sync_new_files;
  w->dir_ = dir;
  w->blocks_per_extent_ = blocks_per_extent;
  // The ring and the staging buffers come when first needed: a short
  // recording writes a few blocks through one buffer and needs no ring.
  w->buffers_.resize(kBuffers);
  TRY(w->open_extent(0));
  return w;
}

Status ExtentWriter::ensure_ring() {
  if (ring_ok_) return ok_status();
  int r = io_uring_queue_init(kQueueDepth, &ring_, 0);
  if (r < 0) return Error::from_errno("io_uring_queue_init", -r);
  ring_ok_ = true;
  return ok_status();
}

Status ExtentWriter::open_extent(uint32_t extent) {
  std::string path = extent_path(dir_, extent);
  int flags = O_RDWR | O_CREAT | O_EXCL;
  auto fd = open_file(path, flags | (direct_now_ ? O_DIRECT : 0));
  if (!fd.ok() && fd.error().errno_value == EINVAL && direct_now_) {
    // No O_DIRECT here (tmpfs): the file was not created, retry buffered.
    mode_ = IoMode::Buffered;
    direct_now_ = false;
    fd = open_file(path, flags);
  }
  if (!fd.ok()) return fd.take_error();
  File f;
  f.fd = std::move(fd.value());
  // Still buffered (kBufferedStartBlocks): whether O_DIRECT will work later.
  if (mode_ == IoMode::Direct && !direct_now_ && !(set_direct(f.fd.get(), true) && set_direct(f.fd.get(), false)))
    mode_ = IoMode::Buffered;
  f.preallocated = next_preallocation(0, blocks_per_extent_);
  if (::fallocate(f.fd.get(), 0, 0, f.preallocated * kBlockSize) != 0) return Error::from_errno("fallocate " + path);
  uint8_t* hdr = static_cast<uint8_t*>(std::aligned_alloc(kBlockSize, kBlockSize));
  if (!hdr) return Error::msg("out of memory");
  fill_extent_header(hdr, extent, blocks_per_extent_);
  Status st = write_all(f.fd.get(), hdr, kBlockSize, 0);
  std::free(hdr);
  TRY_CTX(st, path);
  if (sync_new_files_) {
    if (::fsync(f.fd.get()) != 0) return Error::from_errno("fsync " + path);
    TRY(fsync_dir(dir_ + "/pages"));
  } else {
    f.needs_sync = true;  // fdatasync also writes the size fallocate set
  }
  files_.push_back(std::move(f));
  head_slot_ = 1;
  return ok_status();
}

void ExtentWriter::add_free_blocks(const std::vector<BlockRef>& refs) { free_.insert(free_.end(), refs.begin(), refs.end()); }

Result<BlockRef> ExtentWriter::allocate() {
  if (!free_.empty()) {
    BlockRef r = free_.back();
    free_.pop_back();
    reused_++;
    return r;
  }
  if (head_slot_ >= blocks_per_extent_) {
    TRY(submit_current());  // a staged run never spans two files
    TRY(open_extent(uint32_t(files_.size())));
  }
  if (mode_ == IoMode::Direct && !direct_now_ && appended_ >= kBufferedStartBlocks) TRY(go_direct());
  File& f = files_.back();
  if (head_slot_ >= f.preallocated) {
    uint64_t grow = next_preallocation(f.preallocated, blocks_per_extent_);
    if (::fallocate(f.fd.get(), 0, f.preallocated * kBlockSize, grow * kBlockSize) != 0)
      return Error::from_errno("fallocate " + extent_path(dir_, uint32_t(files_.size() - 1)));
    f.preallocated += grow;
  }
  appended_++;
  return make_ref(uint32_t(files_.size() - 1), head_slot_++);
}

Status ExtentWriter::go_direct() {
  // The blocks staged so far go out through the page cache like those before them.
  TRY(flush());
  for (size_t i = 0; i < files_.size(); i++)
    if (!set_direct(files_[i].fd.get(), true)) return Error::from_errno("fcntl(O_DIRECT) " + extent_path(dir_, uint32_t(i)));
  direct_now_ = true;
  return ok_status();
}

Result<ExtentWriter::Buffer*> ExtentWriter::free_buffer() {
  for (;;) {
    for (auto& b : buffers_) {
      if (b.in_flight != 0 || !b.refs.empty()) continue;
      if (!b.data) {
        b.data = static_cast<uint8_t*>(std::aligned_alloc(kBlockSize, kBufferBlocks * kBlockSize));
        if (!b.data) return Error::msg("out of memory for extent staging buffers");
        b.refs.reserve(kBufferBlocks);
      }
      return &b;
    }
    TRY(reap(true));
  }
}

Result<BlockRef> ExtentWriter::put(const uint8_t* block) {
  if (!current_) current_ = TRY(free_buffer());
  BlockRef ref = TRY(allocate());
  if (!current_) current_ = TRY(free_buffer());  // allocate() may have submitted it
  std::memcpy(current_->data + current_->refs.size() * kBlockSize, block, kBlockSize);
  current_->refs.push_back(ref);
  if (current_->refs.size() == kBufferBlocks) TRY(submit_current());
  return ref;
}

Status ExtentWriter::submit_current() {
  Buffer* b = current_;
  if (!b || b->refs.empty()) return ok_status();
  current_ = nullptr;
  size_t i = 0;
  const size_t n = b->refs.size();
  if (!direct_now_) {
    // Into the page cache: a copy, done at once. Through the ring such a
    // write may go to an io-wq worker the kernel first has to start (3-9 ms
    // for checkpoint 0 of /bin/true at load 9).
    while (i < n) {
      size_t j = i + 1;
      while (j < n && b->refs[j] == b->refs[j - 1] + 1) j++;  // same extent, next slot
      const BlockRef first = b->refs[i];
      TRY_CTX(write_all(files_[ref_extent(first)].fd.get(), b->data + i * kBlockSize, (j - i) * kBlockSize,
                        uint64_t(ref_slot(first)) * kBlockSize),
              extent_path(dir_, ref_extent(first)));
      files_[ref_extent(first)].needs_sync = true;
      i = j;
    }
    b->refs.clear();
    return ok_status();
  }
  TRY(ensure_ring());
  while (i < n) {
    size_t j = i + 1;
    while (j < n && b->refs[j] == b->refs[j - 1] + 1) j++;  // same extent, next slot
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    while (!sqe) {
      int r = io_uring_submit(&ring_);
      if (r < 0) return Error::from_errno("io_uring_submit", -r);
      TRY(reap(true));
      sqe = io_uring_get_sqe(&ring_);
    }
    BlockRef first = b->refs[i];
    io_uring_prep_write(sqe, files_[ref_extent(first)].fd.get(), b->data + i * kBlockSize, unsigned((j - i) * kBlockSize),
                        uint64_t(ref_slot(first)) * kBlockSize);
    // user_data: buffer index in the low 8 bits, expected byte count above.
    io_uring_sqe_set_data64(sqe, (uint64_t((j - i) * kBlockSize) << 8) | uint64_t(b - buffers_.data()));
    files_[ref_extent(first)].needs_sync = true;
    b->in_flight++;
    pending_sqes_++;
    i = j;
  }
  int r = io_uring_submit(&ring_);
  if (r < 0) return Error::from_errno("io_uring_submit", -r);
  return ok_status();
}

Status ExtentWriter::reap(bool wait_one) {
  io_uring_cqe* cqe = nullptr;
  int r = wait_one ? io_uring_wait_cqe(&ring_, &cqe) : io_uring_peek_cqe(&ring_, &cqe);
  // A signal for the recorder (or a debugger attached to it) interrupts the
  // wait; the write is still in flight, so wait again.
  while (wait_one && r == -EINTR) r = io_uring_wait_cqe(&ring_, &cqe);
  while (r == 0 && cqe) {
    uint64_t data = io_uring_cqe_get_data64(cqe);
    Buffer* b = &buffers_[data & 0xff];
    int64_t expected = int64_t(data >> 8);
    int res = cqe->res;
    io_uring_cqe_seen(&ring_, cqe);
    pending_sqes_--;
    b->in_flight--;
    if (res < 0) return Error::from_errno("io_uring write to extent file", -res);
    // Short writes do not happen on preallocated regular files; if one did,
    // the tail blocks would be missing, so fail rather than commit them.
    if (res != expected) return Error::msg("short io_uring write to extent file (" + std::to_string(res) + " of " + std::to_string(expected) + " bytes)");
    if (b->in_flight == 0) b->refs.clear();
    cqe = nullptr;
    r = io_uring_peek_cqe(&ring_, &cqe);
  }
  if (r < 0 && r != -EAGAIN) return Error::from_errno("io_uring_wait_cqe", -r);
  return ok_status();
}

Status ExtentWriter::wait_all() {
  while (pending_sqes_ > 0) TRY(reap(true));
  return ok_status();
}

Status ExtentWriter::trim_tail() {
  TRY(flush());
  File& f = files_.back();
  if (head_slot_ >= f.preallocated) return ok_status();
  const std::string path = extent_path(dir_, uint32_t(files_.size() - 1));
  if (::ftruncate(f.fd.get(), off_t(uint64_t(head_slot_) * kBlockSize)) != 0) return Error::from_errno("ftruncate " + path);
  f.preallocated = head_slot_;
  // No sync: no block past the new end is referenced, so a crash that keeps
  // the old size only costs disk space.
  return ok_status();
}

Status ExtentWriter::flush() {
  TRY(submit_current());
  return wait_all();
}

Status ExtentWriter::sync() {
  TRY(flush());
  for (size_t i = 0; i < files_.size(); i++) {
    File& f = files_[i];
    if (!f.needs_sync) continue;
    if (::fdatasync(f.fd.get()) != 0) return Error::from_errno("fdatasync " + extent_path(dir_, uint32_t(i)));
    f.needs_sync = false;
  }
  return ok_status();
}

Status ExtentWriter::sync_together(const std::vector<SyncTarget>& more) {
  TRY(flush());  // no write is in flight: every completion below is a sync's
  TRY(ensure_ring());
  struct Job {
    int fd;
    unsigned flags;
    std::string path;
  };
  std::vector<Job> jobs;
  for (size_t i = 0; i < files_.size(); i++)
    if (files_[i].needs_sync) jobs.push_back({files_[i].fd.get(), IORING_FSYNC_DATASYNC, extent_path(dir_, uint32_t(i))});
  for (const SyncTarget& t : more) jobs.push_back({t.fd, t.data_only ? IORING_FSYNC_DATASYNC : 0u, t.path});
  size_t submitted = 0, completed = 0;
  while (completed < jobs.size()) {
    for (io_uring_sqe* sqe; submitted < jobs.size() && (sqe = io_uring_get_sqe(&ring_)) != nullptr; submitted++) {
      io_uring_prep_fsync(sqe, jobs[submitted].fd, jobs[submitted].flags);
      io_uring_sqe_set_data64(sqe, submitted);
    }
    int r = io_uring_submit_and_wait(&ring_, 1);
    if (r < 0 && r != -EINTR) return Error::from_errno("io_uring_submit (fsync)", -r);
    io_uring_cqe* cqe = nullptr;
    while (io_uring_peek_cqe(&ring_, &cqe) == 0 && cqe) {
      const uint64_t i = io_uring_cqe_get_data64(cqe);
      const int res = cqe->res;
      io_uring_cqe_seen(&ring_, cqe);
      completed++;
      if (res < 0) return Error::from_errno("fsync " + (i < jobs.size() ? jobs[i].path : std::string("?")), -res);
    }
  }
  for (auto& f : files_) f.needs_sync = false;
  return ok_status();
}

}  // namespace slsdbg::store
