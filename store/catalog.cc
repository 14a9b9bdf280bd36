// catalog.db access (see catalog.h). The schema text lives here so that the
// code and docs/formats/catalog.md are reviewed side by side.
#include "store/catalog.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string_view>

#include "store/format.h"
#include "store/fs_util.h"

namespace slsdbg::store {

namespace {

// Schema version 2 (1 lacked checkpoints.cpu_since_event_ns). Compatibility:
// any change bumps kRecordingFormatVersion.
constexpr const char* kSchema = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value NOT NULL);          -- scalars (program, cwd, tracker, ...)
CREATE TABLE meta_list(key TEXT NOT NULL, idx INTEGER NOT NULL,    -- 'arg' / 'env' lists, in order
                       value TEXT NOT NULL, PRIMARY KEY(key, idx));
CREATE TABLE checkpoints(
  id INTEGER PRIMARY KEY,        -- checkpoint k
  time_ns INTEGER NOT NULL,      -- since recording start
  stop_ns INTEGER NOT NULL,      -- tracee stop time for this checkpoint
  reason TEXT NOT NULL,          -- start | tick | signal | patch | forced | exec | exit | crash (version 3)
  dirty_pages INTEGER NOT NULL,  -- pages in the dirty set (incl. zero pages)
  root_ref INTEGER NOT NULL,     -- tree root block (extent << 32 | slot), 0 = empty image
  root_sum INTEGER NOT NULL,     -- xxh3-64 of the root node (seeded, see tree.md)
  extents INTEGER NOT NULL,      -- extent files in existence at commit
  cpu_since_event_ns INTEGER,    -- tracee CPU time since the segment's last event; NULL: unknown
  state BLOB NOT NULL,           -- zstd frame of encode_process_state()
  dirty_list BLOB NOT NULL);     -- sorted dirty page addresses, delta varints
CREATE TABLE segments(           -- a row exists once the segment's log is sealed
  id INTEGER PRIMARY KEY,        -- segment k: from checkpoint k to k+1
  events INTEGER NOT NULL,       -- records in events/NNNNNN.log (0: no file)
  log_bytes INTEGER NOT NULL);
CREATE TABLE bookmarks(name TEXT PRIMARY KEY, moment TEXT NOT NULL);
CREATE TABLE free_blocks(ref INTEGER PRIMARY KEY);  -- freed by retention, not yet reused
)sql";

constexpr const char* kMagic = "slsdbg-recording";
// Summary counts (store/summary.h) are meta rows "summary.KEY", apart from the fixed keys.
constexpr std::string_view kSummaryPrefix = "summary.";

Status put_meta(SqliteDb& db, const std::string& key, const std::string& value) {
  auto st = TRY(db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)"));
  return st.bind(1, key).bind(2, value).run();
}
Status put_meta_int(SqliteDb& db, const std::string& key, int64_t value) {
  auto st = TRY(db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)"));
  return st.bind(1, key).bind(2, value).run();
}
Status put_meta_blob(SqliteDb& db, const std::string& key, const std::vector<uint8_t>& value) {
  auto st = TRY(db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)"));
  return st.bind(1, key).bind_blob(2, value.data(), value.size()).run();
}
Status put_list(SqliteDb& db, const std::string& key, const std::vector<std::string>& values) {
  auto st = TRY(db.prepare("INSERT INTO meta_list(key, idx, value) VALUES(?, ?, ?)"));
  for (size_t i = 0; i < values.size(); i++) {
    TRY(st.bind(1, key).bind(2, int64_t(i)).bind(3, values[i]).run());
    st.reset();
  }
  return ok_status();
}

Status insert_segment(SqliteDb& db, const std::pair<uint64_t, SegmentRow>& s) {
  auto st = TRY(db.prepare("INSERT INTO segments(id, events, log_bytes) VALUES(?, ?, ?)"));
  return st.bind(1, s.first).bind(2, s.second.events).bind(3, s.second.log_bytes).run();
}

// Runs FN inside BEGIN IMMEDIATE ... COMMIT, rolling back on error.
template <typename Fn>
Status in_transaction(SqliteDb& db, Fn&& fn) {
  TRY(db.exec("BEGIN IMMEDIATE"));
  Status st = fn();
  if (!st.ok()) {
    (void)db.exec("ROLLBACK");
    return st;
  }
  return db.exec("COMMIT");
}

}  // namespace

Result<Catalog> Catalog::create(const std::string& dir, const RecordingMeta& known, Durability durability,
                                const std::function<Status(RecordingMeta&)>& complete) {
  RecordingMeta meta = known;
  std::string path = dir + "/catalog.db";
  // Create the file ourselves so it is 0600; SQLite gives -wal/-shm the same mode.
  { UniqueFd fd = TRY(open_file(path, O_RDWR | O_CREAT | O_EXCL)); }
  Catalog c;
  c.db_ = TRY(SqliteDb::open(path, OpenMode::CreateNew));
  // Normal: the schema is written without a sync too; the writer's first
  // sync makes catalog.db durable (Sync::Deferred).
  if (durability == Durability::Normal) TRY(c.db_.exec("PRAGMA synchronous=OFF"));
  TRY(c.db_.exec("PRAGMA journal_mode=WAL;"));
  TRY(in_transaction(c.db_, [&]() -> Status {
    TRY(c.db_.exec(kSchema));
    TRY(c.db_.exec("PRAGMA user_version=" + std::to_string(kRecordingFormatVersion)));
    if (complete) TRY(complete(meta));
    TRY(put_meta(c.db_, "magic", kMagic));
    TRY(put_meta_int(c.db_, "format_version", kRecordingFormatVersion));
    TRY(put_meta(c.db_, "program", meta.program));
    TRY(put_meta(c.db_, "cwd", meta.cwd));
    TRY(put_meta_blob(c.db_, "cpuid", meta.cpuid));
    TRY(put_meta(c.db_, "tracker", meta.tracker));
    TRY(put_meta_int(c.db_, "interval_ns", int64_t(meta.interval_ns)));
    TRY(put_meta_int(c.db_, "created_unix_ns", meta.created_unix_ns));
    if (meta.threads) TRY(put_meta_int(c.db_, "threads", 1));
    if (meta.pid > 0) {
      TRY(put_meta_int(c.db_, "pid", meta.pid));
      TRY(put_meta_int(c.db_, "parent_pid", meta.parent_pid));
      TRY(put_meta(c.db_, "origin", meta.origin));
    }
    TRY(put_meta_int(c.db_, "finished", 0));
    TRY(put_meta_int(c.db_, "retention_gen", 0));
    TRY(put_list(c.db_, "arg", meta.args));
    TRY(put_list(c.db_, "env", meta.env));
    return ok_status();
  }));
  TRY(c.set_durability(durability));
  return c;
}

Result<Catalog> Catalog::open(const std::string& dir) {
  std::string path = dir + "/catalog.db";
  // Kinds callers act on: missing is NotFound, not ours BadInput, unreadable Io.
  auto denied = [](const std::string& p) { return Error{"cannot read " + p + ": permission denied", EACCES, ErrorKind::Io}; };
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) {
    if (errno == EACCES) return denied(dir);
    return Error::not_found("no such recording directory: " + dir);
  }
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == EACCES) return denied(dir);
    return Error::bad_input("not a recording (no catalog.db): " + dir);
  }
  if (::access(path.c_str(), R_OK) != 0 && errno == EACCES) return denied(path);
  // A recording this user cannot write (chmod a-w, another user's, a
  // read-only mount) is opened read-only and creates no file: with the WAL
  // file of a live or crashed writer present SQLite reads through it,
  // otherwise the catalog cannot change and is opened immutable.
  const bool writable = ::access(dir.c_str(), W_OK) == 0 && ::access(path.c_str(), W_OK) == 0;
  OpenMode mode = writable ? OpenMode::Existing : path_exists(path + "-wal") ? OpenMode::ReadOnly : OpenMode::Immutable;
  Catalog c;
  c.read_only_ = !writable;
  c.db_ = TRY(SqliteDb::open(path, mode));
  auto corrupt = [&](const std::string& why) { return Error::bad_input(path + " is truncated or corrupt (" + why + ")"); };
  auto has_meta = c.db_.prepare("SELECT value FROM meta WHERE key='magic'");
  if (!has_meta.ok()) {
    std::string msg = sqlite3_errmsg(c.db_.handle());
    if (msg.find("no such table") != std::string::npos) return Error::bad_input("not a recording (catalog.db has no recording schema): " + dir);
    return corrupt(msg);
  }
  auto row = has_meta->step();
  if (!row.ok()) return corrupt(row.error().message);
  if (!*row || has_meta->text(0) != kMagic) return Error::bad_input("not a recording (catalog.db lacks the slsdbg magic): " + dir);
  auto ver = TRY(c.db_.prepare("SELECT value FROM meta WHERE key='format_version'"));
  auto vrow = ver.step();
  if (!vrow.ok()) return corrupt(vrow.error().message);
  int64_t version = *vrow ? ver.i64(0) : -1;
  if (version < kOldestReadableFormatVersion || version > kRecordingFormatVersion)
    return Error::unsupported("recording format version " + std::to_string(version) + " in " + dir + " is not supported: this slsdbg reads version " +
                      std::to_string(kRecordingFormatVersion) + " (and older down to " +
                      std::to_string(kOldestReadableFormatVersion) + ")");
  c.version_ = version;
  // Touch every table once so a truncated file fails here, not later.
  auto check = c.db_.exec("SELECT count(*) FROM checkpoints; SELECT count(*) FROM segments; SELECT count(*) FROM meta_list;");
  if (!check.ok()) return corrupt(check.error().message);
  auto qc = TRY(c.db_.prepare("PRAGMA quick_check(1)"));
  auto qrow = qc.step();
  if (!qrow.ok()) return corrupt(qrow.error().message);
  if (*qrow && qc.text(0) != "ok") return corrupt(qc.text(0));
  TRY(c.db_.exec("PRAGMA synchronous=FULL"));
  return c;
}

Result<RecordingMeta> Catalog::meta() {
  RecordingMeta m;
  auto st = TRY(db_.prepare("SELECT key, value FROM meta"));
  while (TRY(st.step())) {
    std::string k = st.text(0);
    if (k == "program") m.program = st.text(1);
    else if (k == "cwd") m.cwd = st.text(1);
    else if (k == "cpuid") m.cpuid = st.blob(1);
    else if (k == "tracker") m.tracker = st.text(1);
    else if (k == "interval_ns") m.interval_ns = st.u64(1);
    else if (k == "created_unix_ns") m.created_unix_ns = st.i64(1);
    else if (k == "threads") m.threads = st.i64(1) != 0;
    else if (k == "pid") m.pid = static_cast<int>(st.i64(1));
    else if (k == "parent_pid") m.parent_pid = static_cast<int>(st.i64(1));
    else if (k == "origin") m.origin = st.text(1);
  }
  auto lst = TRY(db_.prepare("SELECT key, value FROM meta_list ORDER BY key, idx"));
  while (TRY(lst.step())) (lst.text(0) == "arg" ? m.args : m.env).push_back(lst.text(1));
  return m;
}

Result<bool> Catalog::finished() {
  auto st = TRY(db_.prepare("SELECT value FROM meta WHERE key='finished'"));
  return TRY(st.step()) && st.i64(0) != 0;
}

Result<uint64_t> Catalog::retention_generation() {
  auto st = TRY(db_.prepare("SELECT value FROM meta WHERE key='retention_gen'"));
  return TRY(st.step()) ? st.u64(0) : 0;
}

Result<std::vector<CheckpointRow>> Catalog::checkpoints() {
  std::vector<CheckpointRow> rows;
  // Format 1 has no cpu_since_event_ns column.
  auto st = TRY(db_.prepare(std::string("SELECT id, time_ns, stop_ns, reason, dirty_pages, root_ref, root_sum, extents, ") +
                            (version_ >= 2 ? "cpu_since_event_ns" : "NULL") + " FROM checkpoints ORDER BY id"));
  while (TRY(st.step())) {
    CheckpointRow r;
    r.info.id = CheckpointId(st.u64(0));
    r.info.time_ns = st.u64(1);
    r.info.stop_ns = st.u64(2);
    r.info.reason = st.text(3);
    r.info.dirty_pages = st.u64(4);
    r.root = TreeEntry{st.u64(5), st.u64(6)};
    r.extents = uint32_t(st.u64(7));
    if (!st.is_null(8)) r.info.cpu_since_event_ns = st.u64(8);
    rows.push_back(std::move(r));
  }
  return rows;
}

Result<std::map<uint64_t, SegmentRow>> Catalog::segments() {
  std::map<uint64_t, SegmentRow> out;
  auto st = TRY(db_.prepare("SELECT id, events, log_bytes FROM segments"));
  while (TRY(st.step())) out[st.u64(0)] = SegmentRow{st.u64(1), st.u64(2)};
  return out;
}

static Result<std::vector<uint8_t>> checkpoint_blob(SqliteDb& db, const char* column, CheckpointId id) {
  auto st = TRY(db.prepare(std::string("SELECT ") + column + " FROM checkpoints WHERE id=?"));
  st.bind(1, id.value);
  if (!TRY(st.step())) return Error::msg("no checkpoint " + std::to_string(id.value) + " in the catalog");
  return st.blob(0);
}

Result<std::vector<uint8_t>> Catalog::state_blob(CheckpointId id) { return checkpoint_blob(db_, "state", id); }
Result<std::vector<uint8_t>> Catalog::dirty_blob(CheckpointId id) { return checkpoint_blob(db_, "dirty_list", id); }

Result<std::vector<BlockRef>> Catalog::free_blocks() {
  std::vector<BlockRef> out;
  auto st = TRY(db_.prepare("SELECT ref FROM free_blocks"));
  while (TRY(st.step())) out.push_back(st.u64(0));
  return out;
}

Status put_summary_rows(SqliteDb& db, const Catalog::Summary& summary) {
  for (const auto& [key, value] : summary) TRY(put_meta_int(db, std::string(kSummaryPrefix) + key, static_cast<int64_t>(value)));
  return ok_status();
}

Status Catalog::commit_checkpoint(const CheckpointRow& row, const std::vector<uint8_t>& state, const std::vector<uint8_t>& dirty,
                                  std::optional<std::pair<uint64_t, SegmentRow>> sealed, bool took_free_blocks,
                                  const Summary& summary) {
  return in_transaction(db_, [&]() -> Status {
    auto st = TRY(db_.prepare(
        "INSERT INTO checkpoints(id, time_ns, stop_ns, reason, dirty_pages, root_ref, root_sum, extents, state, dirty_list, "
        "cpu_since_event_ns) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    st.bind(1, row.info.id.value).bind(2, row.info.time_ns).bind(3, row.info.stop_ns).bind(4, row.info.reason);
    st.bind(5, row.info.dirty_pages).bind(6, row.root.ref).bind(7, row.root.checksum).bind(8, uint64_t(row.extents));
    st.bind_blob(9, state.data(), state.size()).bind_blob(10, dirty.data(), dirty.size());
    if (row.info.cpu_since_event_ns) st.bind(11, *row.info.cpu_since_event_ns);  // unbound: NULL
    TRY(st.run());
    if (sealed) TRY(insert_segment(db_, *sealed));
    if (took_free_blocks) TRY(db_.exec("DELETE FROM free_blocks"));
    return put_summary_rows(db_, summary);
  });
}

Status Catalog::put_meta_threads() { return put_meta_int(db_, "threads", 1); }

Result<std::map<std::string, uint64_t>> Catalog::summary() {
  std::map<std::string, uint64_t> out;
  auto st = TRY(db_.prepare("SELECT key, value FROM meta WHERE substr(key, 1, ?) = ?"));
  st.bind(1, int64_t(kSummaryPrefix.size())).bind(2, std::string(kSummaryPrefix));
  while (TRY(st.step())) out[st.text(0).substr(kSummaryPrefix.size())] = st.u64(1);
  return out;
}

Status Catalog::commit_finish(std::optional<std::pair<uint64_t, SegmentRow>> sealed, const Summary& summary) {
  return in_transaction(db_, [&]() -> Status {
    if (sealed) TRY(insert_segment(db_, *sealed));
    TRY(put_summary_rows(db_, summary));
    return put_meta_int(db_, "finished", 1);
  });
}

Status Catalog::set_durability(Durability durability) {
  switch (durability) {
    case Durability::Full: return db_.exec("PRAGMA synchronous=FULL");
    case Durability::Normal: return db_.exec("PRAGMA synchronous=NORMAL");
    case Durability::Off: return db_.exec("PRAGMA synchronous=OFF");
  }
  return Error::msg("set_durability: unknown durability");
}

Status Catalog::set_bookmark(const std::string& name, const std::string& moment) {
  auto st = TRY(db_.prepare("INSERT OR REPLACE INTO bookmarks(name, moment) VALUES(?, ?)"));
  return st.bind(1, name).bind(2, moment).run();
}

Result<std::vector<std::pair<std::string, std::string>>> Catalog::bookmarks() {
  std::vector<std::pair<std::string, std::string>> out;
  auto st = TRY(db_.prepare("SELECT name, moment FROM bookmarks ORDER BY name"));
  while (TRY(st.step())) out.emplace_back(st.text(0), st.text(1));
  return out;
}

}  // namespace slsdbg::store
