// catalog.db: the SQLite (WAL) index of a recording. Schema in
// catalog_schema.cc and docs/formats/catalog.md; version kRecordingFormatVersion.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "store/format.h"
#include "store/page_tree.h"
#include "store/recording.h"
#include "store/sqlite_db.h"

namespace slsdbg::store {

struct CheckpointRow {
  CheckpointInfo info;
  TreeEntry root;
  uint32_t extents = 0;  // extent files that existed when it was committed
};

struct SegmentRow {
  uint64_t events = 0;
  uint64_t log_bytes = 0;
};

// SQLite's synchronous setting for the writer's commits. Full: a returned
// commit is on disk. Normal: it reaches the kernel in commit order (a killed
// writer loses nothing) and the disk at the next Full commit or WAL
// checkpoint; the database stays consistent either way.
// Off: no sync at all, not even by the WAL copy at close (the last
// commits of a recording whose finish is not durable).
enum class Durability { Full, Normal, Off };

class Catalog {
 public:
  // `complete`, when given, fills in what of the meta was not known yet
  // (store/recording_early.h); it runs inside the schema's transaction, so
  // a catalog never holds half its meta.
  static Result<Catalog> create(const std::string& dir, const RecordingMeta& meta, Durability durability = Durability::Full,
                                const std::function<Status(RecordingMeta&)>& complete = nullptr);
  // Errors: not a recording, permission denied (naming the path),
  // truncated/corrupt, version mismatch. Opens read-only when this user
  // cannot write the recording.
  static Result<Catalog> open(const std::string& dir);
  bool read_only() const { return read_only_; }

  Result<RecordingMeta> meta();
  Result<bool> finished();
  Result<uint64_t> retention_generation();
  Result<std::vector<CheckpointRow>> checkpoints();
  Result<std::map<uint64_t, SegmentRow>> segments();
  Result<std::vector<uint8_t>> state_blob(CheckpointId id);
  Result<std::vector<uint8_t>> dirty_blob(CheckpointId id);
  Result<std::vector<BlockRef>> free_blocks();

  // Summary counts (store/summary.h) a commit below writes in its transaction.
  using Summary = std::map<std::string, uint64_t>;
  // One transaction: the checkpoint row, the sealed segment before it (if
  // any), forgetting the free blocks the writer has taken over, and `summary`.
  Status commit_checkpoint(const CheckpointRow& row, const std::vector<uint8_t>& state, const std::vector<uint8_t>& dirty,
                           std::optional<std::pair<uint64_t, SegmentRow>> sealed, bool took_free_blocks,
                           const Summary& summary = {});
  Status commit_finish(std::optional<std::pair<uint64_t, SegmentRow>> sealed, const Summary& summary = {});
  // meta `threads` = 1 (RecordingMeta::threads), once the recording holds threads.
  Status put_meta_threads();
  Result<std::map<std::string, uint64_t>> summary();
  // For the commits that follow (outside a transaction).
  Status set_durability(Durability durability);

  Status set_bookmark(const std::string& name, const std::string& moment);
  Result<std::vector<std::pair<std::string, std::string>>> bookmarks();

  SqliteDb& db() { return db_; }

 private:
  SqliteDb db_;
  int64_t version_ = kRecordingFormatVersion;
  bool read_only_ = false;
};

}  // namespace slsdbg::store
