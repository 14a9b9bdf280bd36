// RecordingReader: any number of readers, also while the writer is still
// appending. A reader sees the checkpoints committed when it opened (or last
// refreshed); everything they reference is durable and never rewritten, unless
// retention drops those checkpoints (then reads fail their checksums instead
// of returning other data).
#include <dirent.h>
#include <sys/file.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>

#include "store/catalog.h"
#include "store/dirty_list.h"
#include "store/event_log.h"
#include "store/extent_reader.h"
#include "store/fs_util.h"
#include "store/kept_files.h"
#include "store/pack_layout.h"
#include "store/page_tree.h"
#include "store/recording.h"
#include "store/recording_files.h"
#include "store/state_compression.h"
#include "store/summary.h"

namespace slsdbg::store {

namespace {

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

bool writer_alive(const std::string& dir) {
  std::string path = dir + "/" + kWriterLockFile;
  if (!path_exists(path)) return false;
  auto fd = open_file(path, O_RDWR);
  if (!fd.ok()) fd = open_file(path, O_RDONLY);  // a read-only recording
  if (!fd.ok()) return false;
  // Shared, so two readers probing at once do not mistake each other for a writer.
  if (::flock(fd->get(), LOCK_SH | LOCK_NB) == 0) {
    ::flock(fd->get(), LOCK_UN);
    return false;
  }
  return errno == EWOULDBLOCK;
}

class Reader final : public RecordingReader {
 public:
  explicit Reader(std::string dir) : dir_(std::move(dir)), extents_(dir_), tree_(extents_), kept_(dir_) {}
  Status init();
  Status refresh() override;

  const std::string& dir() const { return dir_; }
  const RecordingMeta& meta() const override { return meta_; }
  const OpenReport& open_report() const override { return report_; }
  std::vector<CheckpointInfo> checkpoints() const override;
  Result<ProcessState> process_state(CheckpointId k) const override;
  Status read_memory(CheckpointId k, uint64_t addr, std::span<uint8_t> out) const override;
  Result<std::vector<uint64_t>> captured_pages(CheckpointId k, uint64_t start, uint64_t end) const override;
  Status for_each_dirty_page(CheckpointId k, const std::function<Status(uint64_t, std::span<const uint8_t>)>& fn) const override;
  Result<std::vector<uint64_t>> dirty_pages(CheckpointId k) const override;
  Result<std::vector<Event>> segment_events(SegmentId k) const override;
  Result<Event> segment_event(SegmentId k, uint64_t index) const override;
  Status set_bookmark(const std::string& name, const std::string& moment) override;
  Result<std::vector<std::pair<std::string, std::string>>> bookmarks() const override;
  Result<std::map<std::string, uint64_t>> summary() const { return catalog_->summary(); }

 private:
  Result<const CheckpointRow*> row(CheckpointId k) const;
  Result<EventLogReader> open_log(SegmentId k, LogExpect expect) const;
  Status read_page(const CheckpointRow& r, uint64_t vaddr, uint8_t* out) const;
  void describe_torn_tail();
  // A page absent from checkpoint k's tree inside a private file mapping whose
  // file the recording keeps reads as that file's bytes (format 6).
  Result<bool> read_kept_page(CheckpointId k, uint64_t vaddr, uint8_t* out) const;

  std::string dir_;
  UniqueFd readers_lock_;  // shared: holds off block reuse (recording_files.h)
  mutable std::optional<Catalog> catalog_;
  ExtentReader extents_;
  PageTreeReader tree_;
  RecordingMeta meta_;
  OpenReport report_;
  std::vector<CheckpointRow> rows_;
  std::map<uint64_t, SegmentRow> segments_;
  KeptFiles kept_;
  mutable std::mutex kept_mu_;
  mutable std::map<uint64_t, std::vector<Mapping>> kept_maps_;  // per checkpoint: the mappings of kept files
};

Status Reader::init() {
  catalog_ = TRY(Catalog::open(dir_));
  const std::string lock = dir_ + "/" + kReadersLockFile;
  if (catalog_->read_only()) {
    // Best effort: only the owner's retention could need it, and a lock
    // file we cannot open is one we could not have created either.
    if (auto fd = open_file(lock, O_RDONLY); fd.ok() && ::flock(fd->get(), LOCK_SH) == 0) readers_lock_ = std::move(*fd);
  } else if (path_exists(lock)) {
    readers_lock_ = TRY(lock_file(lock, LockWait::Block, LockKind::Shared));
  }
  meta_ = TRY(catalog_->meta());
  return refresh();
}

Status Reader::refresh() {
  // One read transaction, so rows and segments are from the same commit.
  TRY(catalog_->db().exec("BEGIN"));
  auto rows = catalog_->checkpoints();
  auto segs = catalog_->segments();
  auto fin = catalog_->finished();
  (void)catalog_->db().exec("COMMIT");
  if (!rows.ok()) return rows.error().context(dir_ + "/catalog.db");
  if (!segs.ok()) return segs.error().context(dir_ + "/catalog.db");
  if (!fin.ok()) return fin.error().context(dir_ + "/catalog.db");
  uint32_t extents = 0;
  for (const auto& r : *rows) extents = std::max(extents, r.extents);
  TRY(extents_.check_extents(extents));
  rows_ = std::move(rows.value());
  segments_ = std::move(segs.value());
  for (auto& r : rows_) {
    auto it = segments_.find(r.info.id.value);
    r.info.segment_events = it == segments_.end() ? 0 : it->second.events;
  }
  kept_.rescan();
  {
    std::lock_guard lock(kept_mu_);
    kept_maps_.clear();
  }
  report_ = OpenReport{};
  report_.complete_checkpoints = rows_.size();
  report_.finished = *fin;
  report_.writer_active = !report_.finished && writer_alive(dir_);
  if (!report_.finished && !report_.writer_active) describe_torn_tail();
  return ok_status();
}

// The writer died before finish(): say what lies beyond the last checkpoint.
void Reader::describe_torn_tail() {
  std::string what = "writer stopped without finishing; ";
  if (rows_.empty()) {
    what += "no complete checkpoint";
  } else {
    uint64_t last = rows_.back().info.id.value;
    what += "last complete checkpoint is " + std::to_string(last);
    std::string log = event_log_path(dir_, last);
    if (path_exists(log)) {
      auto r = EventLogReader::open(log, last, LogExpect::MaybeTorn);
      if (r.ok())
        what += "; segment " + std::to_string(last) + " log " + (r->state() == LogState::Sealed ? "sealed" : "unsealed") + ", " +
                std::to_string(r->count()) + " events readable";
    }
    uint64_t stray = 0;
    if (DIR* d = ::opendir((dir_ + "/events").c_str())) {
      while (dirent* e = ::readdir(d)) {
        unsigned long long n;
        if (std::sscanf(e->d_name, "%llu.log", &n) == 1 && n > last) stray++;
      }
      ::closedir(d);
    }
    if (stray) what += "; " + std::to_string(stray) + " later event logs ignored";
  }
  what += "; blocks written after it are unreferenced";
  report_.torn_tail = what;
}

std::vector<CheckpointInfo> Reader::checkpoints() const {
  std::vector<CheckpointInfo> out;
  out.reserve(rows_.size());
  for (const auto& r : rows_) out.push_back(r.info);
  return out;
}

Result<const CheckpointRow*> Reader::row(CheckpointId k) const {
  if (rows_.empty() || k < rows_.front().info.id || k > rows_.back().info.id)
    return Error::msg("no checkpoint " + std::to_string(k.value) + " in " + dir_ + " (" + std::to_string(rows_.size()) + " checkpoints)");
  // Ids are contiguous from the first kept checkpoint (retention drops a prefix).
  const CheckpointRow* r = &rows_[k.value - rows_.front().info.id.value];
  if (r->info.id != k) return Error::msg("checkpoint ids in the catalog are not contiguous");
  return r;
}

Result<ProcessState> Reader::process_state(CheckpointId k) const {
  TRY(row(k));
  auto frame = TRY_CTX(catalog_->state_blob(k), "checkpoint " + std::to_string(k.value));
  auto blob = TRY_CTX(decompress_state(frame), "checkpoint " + std::to_string(k.value));
  return TRY_CTX(decode_process_state(blob.data(), blob.size()), "checkpoint " + std::to_string(k.value));
}

Status Reader::read_page(const CheckpointRow& r, uint64_t vaddr, uint8_t* out) const {
  auto fail = [&](const Error& e) { return e.context("checkpoint " + std::to_string(r.info.id.value) + ", address " + hex(vaddr)); };
  auto entry = tree_.lookup(r.root, vaddr / kPageSize);
  if (!entry.ok()) return fail(entry.error());
  if (entry->empty()) {
    auto kept = read_kept_page(r.info.id, vaddr, out);
    if (!kept.ok()) return fail(kept.error());
    if (!*kept) std::memset(out, 0, kPageSize);
    return ok_status();
  }
  Status st = tree_.read_data(*entry, out);
  if (!st.ok()) return fail(st.error());
  return ok_status();
}

Result<bool> Reader::read_kept_page(CheckpointId k, uint64_t vaddr, uint8_t* out) const {
  if (!kept_.any()) return false;
  std::vector<Mapping> maps;
  {
    std::lock_guard lock(kept_mu_);
    auto it = kept_maps_.find(k.value);
    if (it != kept_maps_.end()) maps = it->second;
  }
  if (maps.empty()) {
    ProcessState st = TRY(process_state(k));
    for (Mapping& m : st.mappings)
      if (keepable(m) && kept_.has(m.dev, m.inode)) maps.push_back(std::move(m));
    std::lock_guard lock(kept_mu_);
    if (kept_maps_.size() >= 64) kept_maps_.clear();  // a bound; the catalog has them all
    kept_maps_[k.value] = maps;
  }
  for (const Mapping& m : maps)
    if (m.start <= vaddr && vaddr < m.end) return kept_.read_page(m.dev, m.inode, m.file_offset + (vaddr - m.start), out);
  return false;
}

Status Reader::read_memory(CheckpointId k, uint64_t addr, std::span<uint8_t> out) const {
  const CheckpointRow* r = TRY(row(k));
  if (addr >= kMaxAddress || out.size() > kMaxAddress - addr) {
    std::memset(out.data(), 0, out.size());
    if (addr >= kMaxAddress) return ok_status();  // never recorded: reads as zero
  }
  alignas(64) uint8_t page[kPageSize];
  size_t done = 0;
  while (done < out.size()) {
    uint64_t a = addr + done;
    if (a >= kMaxAddress) break;
    uint64_t base = page_floor(a);
    size_t off = size_t(a - base);
    size_t n = std::min(out.size() - done, size_t(kPageSize) - off);
    if (off == 0 && n == kPageSize) {
      TRY(read_page(*r, base, out.data() + done));
    } else {
      TRY(read_page(*r, base, page));
      std::memcpy(out.data() + done, page + off, n);
    }
    done += n;
  }
  return ok_status();
}

Result<std::vector<uint64_t>> Reader::captured_pages(CheckpointId k, uint64_t start, uint64_t end) const {
  const CheckpointRow* r = TRY(row(k));
  std::vector<uint64_t> out;
  for (uint64_t a = page_floor(start); a < end && a < kMaxAddress; a += kPageSize) {
    auto entry = tree_.lookup(r->root, a / kPageSize);
    if (!entry.ok()) return entry.take_error().context("checkpoint " + std::to_string(k.value) + ", address " + hex(a));
    if (!entry->empty()) out.push_back(a);
  }
  return out;
}

Status Reader::for_each_dirty_page(CheckpointId k, const std::function<Status(uint64_t, std::span<const uint8_t>)>& fn) const {
  const CheckpointRow* r = TRY(row(k));
  auto blob = TRY_CTX(catalog_->dirty_blob(k), "checkpoint " + std::to_string(k.value));
  auto vaddrs = TRY_CTX(decode_dirty_list(blob), "checkpoint " + std::to_string(k.value));
  alignas(64) uint8_t page[kPageSize];
  for (uint64_t a : vaddrs) {
    TRY(read_page(*r, a, page));
    TRY(fn(a, std::span<const uint8_t>(page, kPageSize)));
  }
  return ok_status();
}

Result<std::vector<uint64_t>> Reader::dirty_pages(CheckpointId k) const {
  TRY(row(k));
  auto blob = TRY_CTX(catalog_->dirty_blob(k), "checkpoint " + std::to_string(k.value));
  return TRY_CTX(decode_dirty_list(blob), "checkpoint " + std::to_string(k.value));
}

Result<EventLogReader> Reader::open_log(SegmentId k, LogExpect expect) const {
  TRY(row(CheckpointId(k.value)));
  return EventLogReader::open(event_log_path(dir_, k.value), k.value, expect);
}

Result<std::vector<Event>> Reader::segment_events(SegmentId k) const {
  TRY(row(CheckpointId(k.value)));
  auto seg = segments_.find(k.value);
  std::string path = event_log_path(dir_, k.value);
  if (seg != segments_.end()) {
    if (seg->second.events == 0) return std::vector<Event>();
    auto log = TRY(open_log(k, LogExpect::Complete));
    if (log.state() != LogState::Sealed || log.count() != seg->second.events)
      return Error::msg(path + ": event log does not match the catalog (" + std::to_string(seg->second.events) + " events expected)");
    return log.all();
  }
  // The open segment after the last checkpoint: whatever prefix is on disk.
  if (!path_exists(path)) return std::vector<Event>();
  auto log = TRY(open_log(k, LogExpect::MaybeTorn));
  return log.all();
}

Result<Event> Reader::segment_event(SegmentId k, uint64_t index) const {
  TRY(row(CheckpointId(k.value)));
  auto seg = segments_.find(k.value);
  if (seg != segments_.end() && index >= seg->second.events)
    return Error::msg("segment " + std::to_string(k.value) + " has " + std::to_string(seg->second.events) + " events, no event " + std::to_string(index));
  auto log = TRY(open_log(k, seg != segments_.end() ? LogExpect::Complete : LogExpect::MaybeTorn));
  return log.event(index);
}

Status Reader::set_bookmark(const std::string& name, const std::string& moment) {
  if (catalog_->read_only()) return Error::msg("cannot save bookmark '" + name + "': " + dir_ + " is read-only for this user");
  return catalog_->set_bookmark(name, moment);
}

Result<std::vector<std::pair<std::string, std::string>>> Reader::bookmarks() const { return catalog_->bookmarks(); }

}  // namespace

Result<std::map<std::string, uint64_t>> read_summary(const RecordingReader& reader) {
  auto* ours = dynamic_cast<const Reader*>(&reader);  // the only RecordingReader
  if (!ours) return Error::msg("read_summary: not a store reader");
  return ours->summary();
}

Result<std::unique_ptr<RecordingReader>> RecordingReader::open(const std::string& dir) {
  auto r = std::make_unique<Reader>(dir);
  Status st = r->init();
  if (!st.ok()) {
    // Every error names the recording once, so callers print it as it is.
    if (st.error().message.find(dir) != std::string::npos) return st.take_error();
    return st.error().context(dir);
  }
  return std::unique_ptr<RecordingReader>(std::move(r));
}

std::string dir_of(const RecordingReader& reader) {
  const auto* r = dynamic_cast<const Reader*>(&reader);
  return r ? r->dir() : std::string();
}

}  // namespace slsdbg::store
