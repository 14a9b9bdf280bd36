// SqliteDb::prepare reuses a statement of the same SQL once the previous one
// is gone: a thousand prepares leave one statement on the connection; a
// reused statement starts reset with no bindings; two in use at once are
// distinct; statements outliving their connection are finalized.
#include <gtest/gtest.h>

#include "store/sqlite_db.h"
#include "store/tests/test_util.h"

namespace slsdbg::store {
namespace {

int statements(const SqliteDb& db) {
  int n = 0;
  for (sqlite3_stmt* s = sqlite3_next_stmt(db.handle(), nullptr); s; s = sqlite3_next_stmt(db.handle(), s)) n++;
  return n;
}

TEST(SqliteStmtCache, ASecondPrepareOfTheSameSqlReusesTheStatement) {
  testing::TempDir tmp;
  auto db = SqliteDb::open(tmp.path() + "/t.db", OpenMode::CreateNew);
  ASSERT_TRUE(db.ok()) << db.error().message;
  ASSERT_TRUE(db->exec("CREATE TABLE t(k INTEGER PRIMARY KEY, v); BEGIN").ok());
  for (int i = 0; i < 1000; i++) {
    auto st = db->prepare("INSERT INTO t(k, v) VALUES(?, ?)");
    ASSERT_TRUE(st.ok());
    ASSERT_TRUE(st->bind(1, int64_t(i)).bind(2, int64_t(i * 2)).run().ok());
  }
  ASSERT_EQ(statements(*db), 1) << "one statement, kept for reuse (none without the cache)";
  EXPECT_EQ(sqlite3_stmt_status(sqlite3_next_stmt(db->handle(), nullptr), SQLITE_STMTSTATUS_RUN, 0), 1000);
  ASSERT_TRUE(db->exec("COMMIT").ok());

  {  // Left mid-way with a binding: the next user gets it reset and unbound.
    auto st = db->prepare("SELECT v FROM t WHERE k = ?");
    ASSERT_TRUE(st->bind(1, int64_t(7)).step().value());
    EXPECT_EQ(st->i64(0), 14);
  }
  {
    auto st = db->prepare("SELECT v FROM t WHERE k = ?");
    EXPECT_FALSE(st->step().value()) << "the binding of k = 7 was cleared (NULL matches nothing)";
  }
  auto a = db->prepare("SELECT count(*) FROM t");
  auto b = db->prepare("SELECT count(*) FROM t");
  ASSERT_TRUE(a->step().value() && b->step().value());
  EXPECT_EQ(a->i64(0), 1000);
  EXPECT_EQ(b->i64(0), 1000);
  EXPECT_EQ(statements(*db), 4) << "insert, select by key, and two counts in use at once";
}

TEST(SqliteStmtCache, AStatementOutlivingItsConnectionIsFinalized) {
  testing::TempDir tmp;
  std::optional<SqliteStmt> late;
  {
    auto db = SqliteDb::open(tmp.path() + "/t.db", OpenMode::CreateNew);
    ASSERT_TRUE(db.ok());
    late.emplace(std::move(db->prepare("SELECT 1").value()));
  }
  EXPECT_TRUE(late->step().value());
  late.reset();  // finalizes, closing the zombie connection; ASan/valgrind would see a leak or a use after free
}

}  // namespace
}  // namespace slsdbg::store
