// SQLite wrapper (see sqlite_db.h).
#include "store/sqlite_db.h"

#include <cstdio>

namespace slsdbg::store {

Result<bool> SqliteStmt::step() {
  int rc = sqlite3_step(st_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return Error::msg("sqlite: " + std::string(sqlite3_errmsg(db_)) + " (in: " + sql_.substr(0, 60) + ")");
}

Status SqliteStmt::run() {
  while (TRY(step())) {
  }
  return ok_status();
}

std::string SqliteStmt::text(int col) const {
  auto* p = sqlite3_column_text(st_, col);
  return p ? std::string(reinterpret_cast<const char*>(p), size_t(sqlite3_column_bytes(st_, col))) : std::string();
}

std::vector<uint8_t> SqliteStmt::blob(int col) const {
  auto* p = static_cast<const uint8_t*>(sqlite3_column_blob(st_, col));
  return p ? std::vector<uint8_t>(p, p + sqlite3_column_bytes(st_, col)) : std::vector<uint8_t>();
}

void StmtCache::give_back(std::string sql, sqlite3_stmt* st) {
  sqlite3_reset(st);  // also ends the read transaction a SELECT holds
  sqlite3_clear_bindings(st);
  std::lock_guard lock(mu);
  if (closed) {
    sqlite3_finalize(st);
    return;
  }
  idle.emplace(std::move(sql), st);
}

sqlite3_stmt* StmtCache::take(const std::string& sql) {
  std::lock_guard lock(mu);
  auto it = idle.find(sql);
  if (it == idle.end()) return nullptr;
  sqlite3_stmt* st = it->second;
  idle.erase(it);
  return st;
}

void StmtCache::close() {
  std::lock_guard lock(mu);
  for (auto& [sql, st] : idle) sqlite3_finalize(st);
  idle.clear();
  closed = true;
}

void SqliteDb::close() {
  if (!db_) return;
  if (cache_) cache_->close();
  sqlite3_close_v2(db_);  // a statement still held keeps it open until finalized
  db_ = nullptr;
}

SqliteDb& SqliteDb::operator=(SqliteDb&& o) noexcept {
  if (this != &o) {
    close();
    db_ = o.db_;
    path_ = std::move(o.path_);
    cache_ = std::move(o.cache_);
    o.db_ = nullptr;
  }
  return *this;
}

SqliteDb::~SqliteDb() { close(); }

namespace {

// "file:" URI for PATH with the characters URIs give a meaning escaped.
std::string file_uri(const std::string& path, const char* query) {
  std::string uri = "file:";
  for (char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      char esc[4];
      std::snprintf(esc, sizeof esc, "%%%02X", unsigned(uint8_t(c)));
      uri += esc;
    } else {
      uri += c;
    }
  }
  return uri + "?" + query;
}

}  // namespace

Result<SqliteDb> SqliteDb::open(const std::string& path, OpenMode mode) {
  SqliteDb d;
  d.path_ = path;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX;
  std::string name = path;
  if (mode == OpenMode::CreateNew) flags |= SQLITE_OPEN_CREATE;
  if (mode == OpenMode::ReadOnly || mode == OpenMode::Immutable) {
    flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_URI;
    name = file_uri(path, mode == OpenMode::Immutable ? "mode=ro&immutable=1" : "mode=ro");
  }
  int rc = sqlite3_open_v2(name.c_str(), &d.db_, flags, nullptr);
  if (rc != SQLITE_OK) return Error::make(ErrorKind::Io, "cannot open " + path + ": " + (d.db_ ? sqlite3_errmsg(d.db_) : sqlite3_errstr(rc)));
  sqlite3_busy_timeout(d.db_, 30000);
  sqlite3_extended_result_codes(d.db_, 1);
  return d;
}

Status SqliteDb::exec(const std::string& sql) {
  char* msg = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
    std::string m = msg ? msg : sqlite3_errmsg(db_);
    sqlite3_free(msg);
    return Error::msg("sqlite: " + m + " (in: " + sql.substr(0, 60) + ")");
  }
  return ok_status();
}

Result<SqliteStmt> SqliteDb::prepare(const std::string& sql) {
  if (sqlite3_stmt* cached = cache_->take(sql)) return SqliteStmt(db_, cached, sql, cache_);
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), int(sql.size()), &st, nullptr) != SQLITE_OK)
    return Error::msg("sqlite: " + std::string(sqlite3_errmsg(db_)) + " (preparing: " + sql.substr(0, 60) + ")");
  return SqliteStmt(db_, st, sql, cache_);
}

Error SqliteDb::error(const std::string& what) const { return Error::msg(what + ": " + sqlite3_errmsg(db_)); }

}  // namespace slsdbg::store
