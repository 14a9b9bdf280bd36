// RecordingWriter: the single writer of a recording directory. Order of a
// checkpoint commit, which is what makes a crash at any instant harmless:
//   1. seal the previous segment's event log (fdatasync + fsync events/)
//   2. stage new data blocks (dedup by xxh3-128, zero pages skipped) and the
//      changed tree nodes; wait for io_uring; fdatasync the extent files
//   3. one SQLite transaction (WAL, synchronous=FULL) adds the checkpoint row
// A checkpoint row therefore only ever points at durable blocks and logs.
// With Sync::Deferred the same order holds in the kernel (the writes of 1
// and 2 complete before 3 starts, so a killed writer loses nothing), and the
// fdatasyncs and fsyncs are made together at a sync: every sync_interval_ms
// and at finish(), before a commit with synchronous=FULL; the commits in
// between are synchronous=NORMAL (no fsync).
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <dirent.h>
#include <filesystem>
#include <numeric>
#include <set>
#include <unordered_map>

#include "common/log.h"
#include "store/catalog.h"
#include "store/dirty_list.h"
#include "store/event_log.h"
#include "store/extent_writer.h"
#include "store/fs_util.h"
#include "store/group_cuts.h"
#include "store/kept_files.h"
#include "store/page_tree.h"
#include "store/recording.h"
#include "store/recording_early.h"
#include "store/recording_files.h"
#include "store/state_compression.h"
#include "store/summary.h"

namespace slsdbg::store {

namespace {
double now_ms() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
}

struct Hash128 {
  uint64_t lo, hi;
  bool operator==(const Hash128&) const = default;
};
struct Hash128Hasher {
  size_t operator()(const Hash128& h) const { return size_t(h.lo); }
};

bool is_zero_page(const uint8_t* p) {
  const auto* w = reinterpret_cast<const uint64_t*>(p);
  uint64_t acc = 0;
  for (size_t i = 0; i < kPageSize / 8; i += 8)
    acc |= w[i] | w[i + 1] | w[i + 2] | w[i + 3] | w[i + 4] | w[i + 5] | w[i + 6] | w[i + 7];
  return acc == 0;
}

// `tree_entries`: what the tree's members may put in the root recording
// before its store exists (it is created on the writer's thread while the
// program runs): members/ (members.h), the shared kept files
// (kept_files.h) and the group cuts (group_cuts.h). claim_dir, before the
// program starts, wants the directory really empty.
Status dir_is_empty_or_missing(const std::string& dir, bool tree_entries) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) {
    if (errno == ENOENT) return ok_status();
    return Error::from_errno("opendir " + dir);
  }
  bool empty = true;
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    if (tree_entries && (name == "members" || name == kKeptFilesDir || name == kGroupCutsFile)) continue;
    empty = false;
  }
  ::closedir(d);
  if (!empty) return Error::msg("cannot create recording: " + dir + " exists and is not empty");
  return ok_status();
}

class Writer final : public RecordingWriter {
 public:
  Status init(const std::string& dir, const RecordingMeta& meta, uint32_t blocks_per_extent, IoMode io,
              const WriterOptions& options, const MetaCompleter& complete = nullptr);
  Status append_event(const Event& event) override;
  Result<CheckpointId> add_checkpoint(const CheckpointInput& input, const std::string& reason) override;
  Status put_summary(const std::string& key, uint64_t value);
  Status finish() override;
  WriterStats stats() const override {
    WriterStats s = stats_;
    s.blocks_written = extents_ ? extents_->blocks_appended() + extents_->blocks_reused() : 0;
    s.blocks_reused = extents_ ? extents_->blocks_reused() : 0;
    s.direct_io = extents_ && extents_->io_mode() == IoMode::Direct;
    return s;
  }

 private:
  Result<bool> absorb_retention();  // true: took over freed blocks (the commit forgets their rows)
  Result<std::optional<std::pair<uint64_t, SegmentRow>>> seal_segment();
  Status validate(const CheckpointInput& input) const;
  Result<CheckpointId> write_checkpoint(const CheckpointInput& input, const std::string& reason);
  bool deferred() const { return sync_interval_ms_ != 0; }
  // Deferred: makes everything written so far durable but the catalog's
  // pending commits, which the next (synchronous=FULL) commit syncs.
  Status sync_files();
  // Commits through `commit`, durably when `durable` (a sync_files() came first).
  template <typename Fn>
  Status commit(bool durable, Fn&& fn);

  std::string dir_;
  UniqueFd writer_lock_;
  std::optional<Catalog> catalog_;
  std::unique_ptr<ExtentWriter> extents_;
  PageTreeBuilder tree_;
  std::unordered_map<Hash128, TreeEntry, Hash128Hasher> dedup_;
  // Ranges of this checkpoint's private file mappings whose file the
  // recording keeps (kept_files.h): an absent page there reads as the file's
  // bytes, so a zero page must be stored as data.
  std::vector<std::pair<uint64_t, uint64_t>> kept_ranges(const ProcessState& state);
  std::set<std::pair<uint64_t, uint64_t>> kept_files_;
  std::unique_ptr<EventLogWriter> log_;  // segment next_id_-1
  uint64_t next_id_ = 0;
  bool threaded_ = false;  // catalog meta `threads` written
  // put_summary's rows, written in the next commit's transaction (the
  // recorder's four at the end cost four more WAL commits otherwise).
  Catalog::Summary pending_summary_;
  Status mark_threaded();
  uint64_t retention_gen_ = 0;
  std::vector<BlockRef> pending_free_;  // freed by retention, reuse held off by readers
  enum class State { Open, Broken, Finished } state_ = State::Open;
  WriterStats stats_;
  uint32_t sync_interval_ms_ = 0;    // 0: Sync::EveryCheckpoint
  bool durable_finish_ = true;       // WriterOptions::durable_finish
  double last_sync_ms_ = 0;
  std::vector<uint64_t> unsynced_logs_;  // sealed, not yet fdatasynced (Deferred)
  uint32_t synced_extents_ = 0;      // extent files whose directory entry is durable
  std::vector<uint32_t> order_;  // scratch: dirty page order
  std::vector<uint64_t> vaddrs_;
};

Status Writer::init(const std::string& dir, const RecordingMeta& meta, uint32_t blocks_per_extent, IoMode io,
                    const WriterOptions& options, const MetaCompleter& complete) {
  dir_ = dir;
  if (options.sync == WriterOptions::Sync::Deferred) sync_interval_ms_ = std::max<uint32_t>(options.sync_interval_ms, 1);
  durable_finish_ = !deferred() || options.durable_finish;
  TRY(dir_is_empty_or_missing(dir, /*tree_entries=*/true));
  TRY(make_dir(dir));
  if (::chmod(dir.c_str(), kDirMode) != 0) return Error::from_errno("chmod " + dir);
  TRY(make_dir(dir + "/pages"));
  TRY(make_dir(dir + "/events"));
  writer_lock_ = TRY(lock_file(dir + "/" + kWriterLockFile, LockWait::NoWait));
  { UniqueFd readers = TRY(open_file(dir + "/" + kReadersLockFile, O_RDWR | O_CREAT)); }
  // The extents first: the catalog may wait for the rest of the meta (create_awaiting_meta).
  extents_ = TRY(ExtentWriter::create(dir, blocks_per_extent, io, /*sync_new_files=*/!deferred()));
  catalog_ = TRY(Catalog::create(dir, meta, deferred() ? Durability::Normal : Durability::Full, complete));
  threaded_ = meta.threads;
  last_sync_ms_ = now_ms();
  if (deferred()) return ok_status();  // the first sync covers the directories
  synced_extents_ = 1;
  TRY(fsync_dir(dir));
  return ok_status();
}

Status Writer::sync_files() {
  std::vector<UniqueFd> fds;
  std::vector<ExtentWriter::SyncTarget> more;
  auto add = [&](const std::string& path, int flags) -> Status {
    fds.push_back(TRY(open_file(path, flags)));
    more.push_back({fds.back().get(), path, (flags & O_DIRECTORY) == 0});
    return ok_status();
  };
  for (uint64_t seg : unsynced_logs_) TRY(add(event_log_path(dir_, seg), O_RDONLY));
  if (!unsynced_logs_.empty()) TRY(add(dir_ + "/events", O_RDONLY | O_DIRECTORY));
  if (synced_extents_ != extents_->extent_count()) TRY(add(dir_ + "/pages", O_RDONLY | O_DIRECTORY));
  if (synced_extents_ == 0) {  // the first sync: what create() wrote
    TRY(add(dir_ + "/catalog.db", O_RDONLY));
    TRY(add(dir_, O_RDONLY | O_DIRECTORY));  // catalog.db, pages/, events/ themselves
  }
  TRY(extents_->sync_together(more));
  unsynced_logs_.clear();
  synced_extents_ = extents_->extent_count();
  last_sync_ms_ = now_ms();
  stats_.syncs++;
  return ok_status();
}

template <typename Fn>
Status Writer::commit(bool durable, Fn&& fn) {
  if (!deferred() || !durable) return fn();
  TRY(catalog_->set_durability(Durability::Full));
  Status st = fn();
  Status back = catalog_->set_durability(Durability::Normal);
  TRY(st);
  return back;
}

Status Writer::append_event(const Event& event) {
  if (state_ != State::Open) return Error::msg("append_event: the recording writer is " + std::string(state_ == State::Broken ? "broken by an earlier error" : "finished"));
  if (next_id_ == 0) return Error::msg("append_event: no checkpoint yet (events belong to the segment after a checkpoint)");
  if (event.kind == EventKind::ThreadSwitch && !threaded_) TRY(mark_threaded());
  if (!log_) log_ = std::make_unique<EventLogWriter>(event_log_path(dir_, next_id_ - 1), next_id_ - 1);
  Status st = log_->append(event);
  if (!st.ok()) state_ = State::Broken;
  return st;
}

Result<std::optional<std::pair<uint64_t, SegmentRow>>> Writer::seal_segment() {
  if (next_id_ == 0) return std::optional<std::pair<uint64_t, SegmentRow>>();
  uint64_t seg = next_id_ - 1;
  SegmentRow row;
  if (log_) {
    TRY(log_->seal(/*sync=*/!deferred()));
    if (deferred()) unsynced_logs_.push_back(seg);
    else TRY(fsync_dir(dir_ + "/events"));
    row = SegmentRow{log_->count(), log_->bytes()};
    log_.reset();
  }
  return std::optional<std::pair<uint64_t, SegmentRow>>(std::make_pair(seg, row));
}

Result<bool> Writer::absorb_retention() {
  uint64_t gen = TRY(catalog_->retention_generation());
  if (gen != retention_gen_) {
    // New frees: stop deduplicating against them at once, so no new
    // checkpoint can reference a block that is about to be reused.
    retention_gen_ = gen;
    pending_free_ = TRY(catalog_->free_blocks());  // every freed block not yet taken over
    std::unordered_set<BlockRef> set(pending_free_.begin(), pending_free_.end());
    std::erase_if(dedup_, [&](const auto& kv) { return set.count(kv.second.ref) != 0; });
  }
  if (pending_free_.empty()) return false;
  // Readers may still be reading dropped checkpoints: reuse nothing until
  // none is open (retry at the next checkpoint).
  auto readers = lock_file(dir_ + "/" + kReadersLockFile, LockWait::NoWait);
  if (!readers.ok()) {
    if (readers.error().errno_value == EWOULDBLOCK) return false;
    return readers.take_error();
  }
  extents_->add_free_blocks(pending_free_);
  pending_free_.clear();
  return true;
}

std::vector<std::pair<uint64_t, uint64_t>> Writer::kept_ranges(const ProcessState& state) {
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (const Mapping& m : state.mappings) {
    if (!keepable(m)) continue;
    const std::pair<uint64_t, uint64_t> key{m.dev, m.inode};
    if (!kept_files_.count(key)) {
      if (::access(kept_file_path(dir_, m.dev, m.inode).c_str(), F_OK) != 0) continue;
      kept_files_.insert(key);
    }
    ranges.push_back({m.start, m.end});
  }
  std::sort(ranges.begin(), ranges.end());
  return ranges;
}

Status Writer::validate(const CheckpointInput& input) const {
  for (const auto& [lo, hi] : input.cleared)
    if (lo % kPageSize || hi % kPageSize || lo > hi || hi > kMaxAddress)
      return Error::msg("add_checkpoint: cleared range is not page aligned or beyond 2^48");
  for (const auto& p : input.dirty) {
    if (p.vaddr % kPageSize || p.vaddr >= kMaxAddress) return Error::msg("add_checkpoint: dirty page address is not page aligned or beyond 2^48");
    if (!p.data) return Error::msg("add_checkpoint: dirty page without data");
  }
  return ok_status();
}

Result<CheckpointId> Writer::add_checkpoint(const CheckpointInput& input, const std::string& reason) {
  if (state_ != State::Open) return Error::msg("add_checkpoint: the recording writer is " + std::string(state_ == State::Broken ? "broken by an earlier error" : "finished"));
  TRY(validate(input));
  if (input.state.threads.size() > 1 && !threaded_) TRY(mark_threaded());
  // Everything below mutates the in-memory tree: any failure leaves the writer
  // unusable rather than half-updated (the on-disk recording stays consistent).
  state_ = State::Broken;
  auto id = write_checkpoint(input, reason);
  if (id.ok()) state_ = State::Open;
  return id;
}

Result<CheckpointId> Writer::write_checkpoint(const CheckpointInput& input, const std::string& reason) {
  // Retention (drop_checkpoints_before) takes this lock too: it must not free
  // blocks while this checkpoint may still dedup against them.
  UniqueFd retention_lock = TRY(lock_file(dir_ + "/" + kRetentionLockFile, LockWait::Block));
  bool took_free = TRY(absorb_retention());

  auto sealed = TRY(seal_segment());
  double t_pages = now_ms();
  for (const auto& [lo, hi] : input.cleared) tree_.clear(lo / kPageSize, hi / kPageSize);

  // Address order: neighbouring pages share tree paths; a repeated address keeps its last data.
  order_.resize(input.dirty.size());
  std::iota(order_.begin(), order_.end(), 0u);
  std::stable_sort(order_.begin(), order_.end(), [&](uint32_t a, uint32_t b) { return input.dirty[a].vaddr < input.dirty[b].vaddr; });
  vaddrs_.clear();
  const auto kept = kept_ranges(input.state);
  size_t kept_at = 0;
  for (size_t n = 0; n < order_.size(); n++) {
    const DirtyPage& p = input.dirty[order_[n]];
    if (n + 1 < order_.size() && input.dirty[order_[n + 1]].vaddr == p.vaddr) continue;
    vaddrs_.push_back(p.vaddr);
    uint64_t vpn = p.vaddr / kPageSize;
    stats_.pages_in++;
    while (kept_at < kept.size() && kept[kept_at].second <= p.vaddr) kept_at++;
    const bool in_kept = kept_at < kept.size() && kept[kept_at].first <= p.vaddr;
    if (!in_kept && is_zero_page(p.data)) {
      stats_.zero_pages++;
      tree_.set(vpn, TreeEntry{});
      continue;
    }
    XXH128_hash_t h = XXH3_128bits(p.data, kPageSize);
    Hash128 key{h.low64, h.high64};
    auto it = dedup_.find(key);
    if (it != dedup_.end()) {
      stats_.dedup_pages++;
      tree_.set(vpn, it->second);
      continue;
    }
    BlockRef ref = TRY(extents_->put(p.data));
    TreeEntry e{ref, h.low64};
    dedup_.emplace(key, e);
    tree_.set(vpn, e);
  }
  double t_tree = now_ms();
  uint64_t before_tree = extents_->blocks_appended() + extents_->blocks_reused();
  TreeEntry root = TRY(tree_.commit(*extents_));
  stats_.tree_nodes_written += extents_->blocks_appended() + extents_->blocks_reused() - before_tree;
  double t_sync = now_ms();
  const bool durable = !deferred() || t_sync - last_sync_ms_ >= sync_interval_ms_;
  if (!deferred()) {
    TRY(extents_->sync());
    stats_.syncs++;
  } else if (durable) {
    TRY(sync_files());
  } else {
    TRY(extents_->flush());
  }
  double t_commit = now_ms();

  CheckpointRow row;
  row.info.id = CheckpointId(next_id_);
  row.info.time_ns = input.time_ns;
  row.info.stop_ns = input.stop_ns;
  row.info.cpu_since_event_ns = input.cpu_since_event_ns;
  row.info.dirty_pages = input.dirty.size();
  row.info.reason = reason;
  row.root = root;
  row.extents = extents_->extent_count();
  std::vector<uint8_t> state = TRY(compress_state(encode_process_state(input.state)));
  TRY(commit(durable, [&] {
    return catalog_->commit_checkpoint(row, state, encode_dirty_list(vaddrs_), sealed, took_free, pending_summary_);
  }));
  pending_summary_.clear();
  double t_done = now_ms();
  SLSDBG_DEBUG("store", "checkpoint %llu: pages %.2f ms, tree %.2f ms, %s %.2f ms, commit %.2f ms", (unsigned long long)next_id_,
               t_tree - t_pages, t_sync - t_tree, durable ? "sync" : "flush", t_commit - t_sync, t_done - t_commit);
  stats_.checkpoints++;
  return CheckpointId(next_id_++);
}

Status Writer::put_summary(const std::string& key, uint64_t value) {
  if (state_ != State::Open) return Error::msg("put_summary: the recording writer is not open");
  pending_summary_[key] = value;
  return ok_status();
}

// A recording holds threads from its first thread switch (or checkpoint
// with two threads) on: replay takes it with the threaded replay
// (thread_check.h). Durable with the next commit, as put_summary.
Status Writer::mark_threaded() {
  TRY(catalog_->put_meta_threads());
  threaded_ = true;
  return ok_status();
}

Status Writer::finish() {
  if (state_ != State::Open) return Error::msg("finish: the recording writer is " + std::string(state_ == State::Broken ? "broken by an earlier error" : "already finished"));
  state_ = State::Broken;
  auto sealed = TRY(seal_segment());
  double t_sync = now_ms();
  if (deferred() && durable_finish_) TRY(sync_files());
  // Not durable: no sync now, nor when the catalog closes and copies its WAL.
  if (!durable_finish_) TRY(catalog_->set_durability(Durability::Off));
  double t_commit = now_ms();
  TRY(commit(durable_finish_, [&] { return catalog_->commit_finish(sealed, pending_summary_); }));
  pending_summary_.clear();
  SLSDBG_DEBUG("store", "finish: %s %.2f ms, commit %.2f ms", durable_finish_ ? "sync" : "not synced, flush", t_commit - t_sync,
               now_ms() - t_commit);
  state_ = State::Finished;
  // Disk use: only the blocks written stay. Failing here loses no data.
  (void)extents_->trim_tail();
  return ok_status();
}

}  // namespace

Status put_summary(RecordingWriter& writer, const std::string& key, uint64_t value) {
  auto* ours = dynamic_cast<Writer*>(&writer);  // the only RecordingWriter
  if (!ours) return Error::msg("put_summary: not a store writer");
  return ours->put_summary(key, value);
}

Status RecordingWriter::claim_dir(const std::string& dir) {
  TRY_CTX(dir_is_empty_or_missing(dir, /*tree_entries=*/false), "creating recording " + dir);
  TRY_CTX(make_dir(dir), "creating recording " + dir);
  if (::chmod(dir.c_str(), kDirMode) != 0) return Error::from_errno("chmod " + dir).context("creating recording " + dir);
  return ok_status();
}

Result<std::unique_ptr<RecordingWriter>> RecordingWriter::create(const std::string& dir, const RecordingMeta& meta,
                                                                 const WriterOptions& options) {
  return create_awaiting_meta(dir, meta, options, nullptr);
}

Result<std::unique_ptr<RecordingWriter>> create_awaiting_meta(const std::string& dir, const RecordingMeta& known,
                                                              const WriterOptions& options, const MetaCompleter& complete) {
  uint64_t blocks = options.blocks_per_extent ? options.blocks_per_extent : kBlocksPerExtent;
  if (blocks < kMinBlocksPerExtent || blocks > kBlocksPerExtent)
    return Error::msg("creating recording " + dir + ": blocks_per_extent must be between " + std::to_string(kMinBlocksPerExtent) +
                      " and " + std::to_string(kBlocksPerExtent));
  auto w = std::make_unique<Writer>();
  IoMode io = options.io == WriterOptions::Io::Buffered ? IoMode::Buffered : IoMode::Direct;
  TRY_CTX(w->init(dir, known, uint32_t(blocks), io, options, complete), "creating recording " + dir);
  return std::unique_ptr<RecordingWriter>(std::move(w));
}

Status discard_unstarted_recording(const std::string& dir) {
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  if (ec) return Error{"removing the unstarted recording " + dir + ": " + ec.message(), ec.value()};
  return ok_status();
}

}  // namespace slsdbg::store
