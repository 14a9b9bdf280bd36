// drop_checkpoints_before: flight-recorder retention. Under the retention lock
// (so no checkpoint is being committed meanwhile) it walks the trees of the
// kept checkpoints, then those of the dropped ones; nodes and data blocks
// reachable only from dropped trees go to free_blocks, where the writer takes
// them over for later writes, once no reader is open (readers.lock). Kept
// checkpoints are untouched.
#include <unistd.h>

#include <unordered_set>

#include "store/catalog.h"
#include "store/extent_reader.h"
#include "store/fs_util.h"
#include "store/page_tree.h"
#include "store/recording.h"
#include "store/recording_files.h"

namespace slsdbg::store {

Status drop_checkpoints_before(const std::string& dir, CheckpointId keep_from) {
  UniqueFd lock = TRY(lock_file(dir + "/" + kRetentionLockFile, LockWait::Block));
  Catalog catalog = TRY(Catalog::open(dir));
  std::vector<CheckpointRow> rows = TRY(catalog.checkpoints());
  if (rows.empty() || keep_from <= rows.front().info.id) return ok_status();
  if (keep_from > rows.back().info.id)
    return Error::msg("drop_checkpoints_before " + std::to_string(keep_from.value) + ": the latest checkpoint is " +
                      std::to_string(rows.back().info.id.value) + " and is always kept");

  uint32_t extents_count = 0;
  for (const auto& r : rows) extents_count = std::max(extents_count, r.extents);
  ExtentReader extents(dir);
  TRY(extents.check_extents(extents_count));
  PageTreeReader tree(extents);

  std::unordered_set<BlockRef> kept_nodes, kept_data;
  for (const auto& r : rows)
    if (r.info.id >= keep_from) TRY(tree.walk(r.root, kept_nodes, [&](BlockRef b) { kept_data.insert(b); }));
  std::unordered_set<BlockRef> freed;
  std::unordered_set<BlockRef> seen = kept_nodes;
  for (const auto& r : rows) {
    if (r.info.id >= keep_from) break;
    TRY(tree.walk(r.root, seen, [&](BlockRef b) {
      if (!kept_data.count(b)) freed.insert(b);
    }));
  }
  for (BlockRef n : seen)
    if (!kept_nodes.count(n)) freed.insert(n);

  SqliteDb& db = catalog.db();
  TRY(db.exec("BEGIN IMMEDIATE"));
  auto body = [&]() -> Status {
    auto ins = TRY(db.prepare("INSERT OR IGNORE INTO free_blocks(ref) VALUES(?)"));
    for (BlockRef b : freed) {
      TRY(ins.bind(1, uint64_t(b)).run());
      ins.reset();
    }
    auto del = TRY(db.prepare("DELETE FROM checkpoints WHERE id < ?"));
    TRY(del.bind(1, keep_from.value).run());
    auto dels = TRY(db.prepare("DELETE FROM segments WHERE id < ?"));
    TRY(dels.bind(1, keep_from.value).run());
    return db.exec("UPDATE meta SET value = value + 1 WHERE key = 'retention_gen'");
  };
  Status st = body();
  if (!st.ok()) {
    (void)db.exec("ROLLBACK");
    return st;
  }
  TRY(db.exec("COMMIT"));
  // The dropped segments' logs are no longer referenced by the catalog.
  for (const auto& r : rows) {
    if (r.info.id >= keep_from) break;
    ::unlink(event_log_path(dir, r.info.id.value).c_str());
  }
  return ok_status();
}

}  // namespace slsdbg::store
