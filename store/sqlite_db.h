// A thin RAII layer over the SQLite C API: a connection and prepared
// statements whose failures come back as Errors naming the statement.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/result.h"

namespace slsdbg::store {

// A connection's prepared statements not in use, by SQL text: preparing
// (parsing) was ~6% of a short recording's CPU, the same dozen statements
// at every checkpoint and meta row (docs/performance.md `### Fixed cost`).
struct StmtCache {
  std::mutex mu;
  bool closed = false;  // the connection is gone: finalize what comes back
  std::multimap<std::string, sqlite3_stmt*> idle;
  // Resets `st` and keeps it for the next prepare of `sql`.
  void give_back(std::string sql, sqlite3_stmt* st);
  sqlite3_stmt* take(const std::string& sql);
  void close();  // finalizes every idle statement
};

class SqliteStmt {
 public:
  SqliteStmt(sqlite3* db, sqlite3_stmt* st, std::string sql, std::shared_ptr<StmtCache> cache = nullptr)
      : db_(db), st_(st), sql_(std::move(sql)), cache_(std::move(cache)) {}
  SqliteStmt(SqliteStmt&& o) noexcept : db_(o.db_), st_(o.st_), sql_(std::move(o.sql_)), cache_(std::move(o.cache_)) {
    o.st_ = nullptr;
  }
  SqliteStmt(const SqliteStmt&) = delete;
  ~SqliteStmt() {
    if (cache_ && st_) cache_->give_back(std::move(sql_), st_);
    else sqlite3_finalize(st_);
  }

  SqliteStmt& bind(int i, int64_t v) { sqlite3_bind_int64(st_, i, v); return *this; }
  SqliteStmt& bind(int i, uint64_t v) { sqlite3_bind_int64(st_, i, int64_t(v)); return *this; }
  SqliteStmt& bind(int i, const std::string& v) { sqlite3_bind_text(st_, i, v.data(), int(v.size()), SQLITE_TRANSIENT); return *this; }
  SqliteStmt& bind_blob(int i, const void* p, size_t n) { sqlite3_bind_blob64(st_, i, n ? p : "", n, SQLITE_TRANSIENT); return *this; }

  // true: a row is available; false: done.
  Result<bool> step();
  Status run();  // step to completion, expecting no rows
  void reset() { sqlite3_reset(st_); sqlite3_clear_bindings(st_); }

  int64_t i64(int col) const { return sqlite3_column_int64(st_, col); }
  uint64_t u64(int col) const { return uint64_t(sqlite3_column_int64(st_, col)); }
  bool is_null(int col) const { return sqlite3_column_type(st_, col) == SQLITE_NULL; }
  std::string text(int col) const;
  std::vector<uint8_t> blob(int col) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* st_;
  std::string sql_;
  std::shared_ptr<StmtCache> cache_;
};

// ReadOnly: a recording the user cannot write whose WAL file exists (a
// live or crashed writer's); Immutable: one with no WAL file, so nothing
// can change under the reader and SQLite needs no -shm/-wal of its own.
enum class OpenMode { CreateNew, Existing, ReadOnly, Immutable };

class SqliteDb {
 public:
  SqliteDb() = default;
  SqliteDb(SqliteDb&& o) noexcept : db_(o.db_), path_(std::move(o.path_)), cache_(std::move(o.cache_)) { o.db_ = nullptr; }
  SqliteDb& operator=(SqliteDb&& o) noexcept;
  SqliteDb(const SqliteDb&) = delete;
  ~SqliteDb();

  static Result<SqliteDb> open(const std::string& path, OpenMode mode);
  Status exec(const std::string& sql);
  // A statement of the same SQL prepared before and no longer in use is
  // reused (reset, bindings cleared).
  Result<SqliteStmt> prepare(const std::string& sql);
  Error error(const std::string& what) const;
  sqlite3* handle() const { return db_; }

 private:
  void close();

  sqlite3* db_ = nullptr;
  std::string path_;
  std::shared_ptr<StmtCache> cache_ = std::make_shared<StmtCache>();
};

}  // namespace slsdbg::store
