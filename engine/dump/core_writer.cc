#include "engine/dump/core_writer.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>
#include <cstring>
#include <memory>
#include <vector>

#include "common/ids.h"
#include "engine/dump/core_notes.h"

namespace slsdbg::dump {

namespace {

constexpr size_t kChunk = 8u << 20;  // large enough for full-speed reads and writes
constexpr size_t kBuffers = 3;       // plus one per reader thread: at most 56 MiB in flight

Elf64_Word phdr_flags(uint32_t prot) {
  Elf64_Word f = 0;
  if (prot & PROT_READ) f |= PF_R;
  if (prot & PROT_WRITE) f |= PF_W;
  if (prot & PROT_EXEC) f |= PF_X;
  return f;
}

Elf64_Ehdr make_ehdr(size_t phnum) {
  Elf64_Ehdr e{};
  std::memcpy(e.e_ident, ELFMAG, SELFMAG);
  e.e_ident[EI_CLASS] = ELFCLASS64;
  e.e_ident[EI_DATA] = ELFDATA2LSB;
  e.e_ident[EI_VERSION] = EV_CURRENT;
  e.e_ident[EI_OSABI] = ELFOSABI_NONE;
  e.e_type = ET_CORE;
  e.e_machine = EM_X86_64;
  e.e_version = EV_CURRENT;
  e.e_phoff = sizeof(Elf64_Ehdr);
  e.e_ehsize = sizeof(Elf64_Ehdr);
  e.e_phentsize = sizeof(Elf64_Phdr);
  e.e_phnum = static_cast<Elf64_Half>(phnum);
  return e;
}

bool all_zero(const uint8_t* p, size_t n) {
  // Word-at-a-time test; chunks are page multiples.
  const uint64_t* w = reinterpret_cast<const uint64_t*>(p);
  for (size_t i = 0; i < n / 8; i++)
    if (w[i]) return false;
  for (size_t i = n / 8 * 8; i < n; i++)
    if (p[i]) return false;
  return true;
}

Status pwrite_all(int fd, const uint8_t* data, size_t size, uint64_t offset, const std::string& path) {
  while (size > 0) {
    ssize_t n = ::pwrite(fd, data, size, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error::from_errno("pwrite " + path);
    }
    data += n;
    size -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return ok_status();
}

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// Writes runs of non-zero pages; zero pages stay holes (they read back as
// zeros), which keeps cores of sparse heaps small and fast.
Status write_chunk(int fd, const uint8_t* data, size_t n, uint64_t file_offset, const std::string& path,
                   CoreSummary* summary) {
  summary->memory_bytes += n;
  for (size_t run = 0; run < n;) {
    size_t len = std::min<size_t>(kPageSize, n - run);
    if (all_zero(data + run, len)) {
      summary->zero_bytes += len;
      run += len;
      continue;
    }
    size_t end = run + len;
    while (end < n && !all_zero(data + end, std::min<size_t>(kPageSize, n - end)))
      end += std::min<size_t>(kPageSize, n - end);
    TRY(pwrite_all(fd, data + run, end - run, file_offset + run, path));
    run = end;
  }
  return ok_status();
}

enum class Truncate { No, Yes };

// The recorder does not store the kernel's [vdso] pages (they read back as
// zeros); a zero-filled vDSO would make debuggers fail to load it, so it is
// written only when the image really holds an ELF file there.
bool holds_elf_image(MemorySource& memory, const store::Mapping& m) {
  uint8_t magic[SELFMAG];
  return memory.read(m.start, magic).ok() && std::memcmp(magic, ELFMAG, SELFMAG) == 0;
}

// A bounded hand-over of chunk buffers between one reader and one writer.
template <typename Chunk>
class ChunkPipeline {
 public:
  ChunkPipeline(size_t buffers, unsigned producers) : chunks_(buffers), producers_left_(producers) {
    for (auto& c : chunks_) free_.push_back(&c);
  }
  Chunk* acquire_free() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return !free_.empty() || aborted_; });
    if (aborted_) return nullptr;
    Chunk* c = free_.front();
    free_.pop_front();
    return c;
  }
  void submit(Chunk* c) { push(full_, c); }
  void release(Chunk* c) { push(free_, c); }
  // Each producer calls finish() once when it has no more tasks.
  void finish() {
    std::lock_guard lock(mu_);
    if (--producers_left_ == 0) done_ = true;
    cv_.notify_all();
  }
  // A read failed: the writer stops at once; other producers stop at their
  // next acquire_free().
  void fail(Error e) {
    std::lock_guard lock(mu_);
    if (!error_) error_ = std::move(e);
    done_ = true;
    aborted_ = true;
    cv_.notify_all();
  }
  void abort() {
    std::lock_guard lock(mu_);
    aborted_ = true;
    cv_.notify_all();
  }
  // The next chunk to write, or null when the reader finished or failed.
  Chunk* next_full() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return !full_.empty() || done_; });
    if (full_.empty() || error_) return nullptr;
    Chunk* c = full_.front();
    full_.pop_front();
    return c;
  }
  Status status() {
    std::lock_guard lock(mu_);
    if (error_) return *error_;
    return ok_status();
  }

 private:
  void push(std::deque<Chunk*>& q, Chunk* c) {
    std::lock_guard lock(mu_);
    q.push_back(c);
    cv_.notify_all();
  }
  std::vector<Chunk> chunks_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Chunk*> free_, full_;
  unsigned producers_left_;
  bool done_ = false, aborted_ = false;
  std::optional<Error> error_;
};

Result<CoreSummary> write_core_to_fd(int fd, const store::ProcessState& state, MemorySource& memory,
                                     const std::string& path, const CoreOptions& options, Truncate truncate) {
  auto mappings = core_mappings(state);
  auto notes = build_core_notes(state, NoteOptions{options.signal});

  const size_t phnum = 1 + mappings.size();
  const uint64_t notes_offset = sizeof(Elf64_Ehdr) + phnum * sizeof(Elf64_Phdr);
  uint64_t offset = page_ceil(notes_offset + notes.size());

  std::vector<Elf64_Phdr> phdrs;
  phdrs.reserve(phnum);
  Elf64_Phdr note{};
  note.p_type = PT_NOTE;
  note.p_offset = notes_offset;
  note.p_filesz = notes.size();
  note.p_align = 4;
  phdrs.push_back(note);

  CoreSummary summary;
  summary.threads = static_cast<uint32_t>(state.threads.size());
  CoreProgress progress;
  for (const auto& m : mappings) {
    Elf64_Phdr ph{};
    ph.p_type = PT_LOAD;
    ph.p_flags = phdr_flags(m.prot);
    ph.p_vaddr = m.start;
    ph.p_memsz = m.end - m.start;
    ph.p_filesz = mapping_has_contents(m) && (m.path != "[vdso]" || holds_elf_image(memory, m)) ? ph.p_memsz : 0;
    ph.p_offset = offset;
    ph.p_align = kPageSize;
    offset += ph.p_filesz;
    progress.bytes_total += ph.p_filesz;
    phdrs.push_back(ph);
  }
  summary.load_segments = static_cast<uint32_t>(mappings.size());
  summary.file_size = offset;

  // Header, program headers and notes first: small, in one write.
  std::vector<uint8_t> head(notes_offset + notes.size());
  auto ehdr = make_ehdr(phnum);
  std::memcpy(head.data(), &ehdr, sizeof ehdr);
  std::memcpy(head.data() + sizeof ehdr, phdrs.data(), phdrs.size() * sizeof(Elf64_Phdr));
  std::memcpy(head.data() + notes_offset, notes.data(), notes.size());
  TRY(pwrite_all(fd, head.data(), head.size(), 0, path));

  // Reading the image (store or process) and writing the file overlap: a
  // reader thread fills chunk buffers while this thread writes the previous
  // ones. Only the reader thread touches `memory`.
  struct Chunk {
    std::unique_ptr<uint8_t[]> data{new uint8_t[kChunk]};
    uint64_t vaddr = 0, file_offset = 0;
    size_t size = 0;
  };
  // The image is cut into chunk tasks up front; reader threads take the
  // next task and a free buffer; the order of writes does not matter (pwrite).
  struct Task {
    uint64_t vaddr, file_offset;
    size_t size;
  };
  std::vector<Task> tasks;
  for (size_t i = 1; i < phdrs.size(); i++)
    for (uint64_t done = 0; done < phdrs[i].p_filesz; done += kChunk)
      tasks.push_back(Task{phdrs[i].p_vaddr + done, phdrs[i].p_offset + done,
                           static_cast<size_t>(std::min<uint64_t>(kChunk, phdrs[i].p_filesz - done))});
  const unsigned readers =
      std::max(1u, std::min({memory.concurrent_reads(), std::max(1u, std::thread::hardware_concurrency()), 4u}));
  ChunkPipeline<Chunk> pipe(kBuffers + readers, readers);
  std::atomic<size_t> next_task{0};
  auto read_tasks = [&] {
    for (;;) {
      size_t t = next_task.fetch_add(1);
      if (t >= tasks.size()) break;
      Chunk* c = pipe.acquire_free();
      if (!c) return;  // the writer gave up
      c->vaddr = tasks[t].vaddr;
      c->file_offset = tasks[t].file_offset;
      c->size = tasks[t].size;
      auto st = memory.read(c->vaddr, std::span<uint8_t>(c->data.get(), c->size));
      if (!st.ok()) {
        pipe.fail(st.error().context("reading memory at " + hex(c->vaddr)));
        return;
      }
      pipe.submit(c);
    }
    pipe.finish();
  };
  std::vector<std::thread> reader_threads;
  for (unsigned i = 0; i < readers; i++) reader_threads.emplace_back(read_tasks);
  Status written = ok_status();
  while (Chunk* c = pipe.next_full()) {
    written = write_chunk(fd, c->data.get(), c->size, c->file_offset, path, &summary);
    if (!written.ok()) break;
    progress.bytes_done += c->size;
    if (options.progress) options.progress(progress);
    pipe.release(c);
  }
  if (!written.ok()) pipe.abort();
  for (auto& t : reader_threads) t.join();
  if (!written.ok()) return written.take_error();
  TRY(pipe.status());
  // Trailing holes need the size set explicitly.
  if (truncate == Truncate::Yes && ::ftruncate(fd, static_cast<off_t>(summary.file_size)) != 0)
    return Error::from_errno("ftruncate " + path);
  return summary;
}

}  // namespace

Result<CoreSummary> write_core(const store::ProcessState& state, MemorySource& memory, const std::string& path,
                               const CoreOptions& options) {
  if (state.threads.empty()) return Error::msg("process state has no threads");
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Error::from_errno("cannot create " + path);
  struct stat st{};
  if (::fstat(fd, &st) != 0) {
    auto err = Error::from_errno("fstat " + path);
    ::close(fd);
    return err;
  }
  const bool regular = S_ISREG(st.st_mode);  // never chmod or truncate a device (-o /dev/null)
  // An existing file keeps its mode through O_TRUNC; a core holds process memory.
  if (regular && ::fchmod(fd, 0600) != 0) {
    auto err = Error::from_errno("fchmod " + path);
    ::close(fd);
    return err;
  }
  auto result = write_core_to_fd(fd, state, memory, path, options, regular ? Truncate::Yes : Truncate::No);
  if (::close(fd) != 0 && result.ok()) result = Error::from_errno("close " + path);
  if (!result.ok() && regular) ::unlink(path.c_str());
  return result;
}

}  // namespace slsdbg::dump
