// Checks that each kind of bad input gives a one-line error naming the
// problem: not a recording, truncated or empty catalog, missing extent file,
// another format version, non-empty target, bad checkpoint input, misuse.
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "store/format.h"
#include "store/tests/test_util.h"

namespace slsdbg::store {
namespace {

void expect_one_line_error(const Result<std::unique_ptr<RecordingReader>>& r, const std::string& needle) {
  ASSERT_FALSE(r.ok()) << "expected an error containing: " << needle;
  EXPECT_NE(r.error().message.find(needle), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().message.find('\n'), std::string::npos) << r.error().message;
}

void write_recording(const std::string& rec, uint64_t checkpoints) {
  testing::Model model(11);
  auto w = RecordingWriter::create(rec, testing::test_meta());
  ASSERT_TRUE(w.ok()) << w.error().message;
  std::vector<uint8_t> storage;
  for (uint64_t k = 0; k < checkpoints; k++) ASSERT_TRUE((*w)->add_checkpoint(model.next(k, storage), "tick").ok());
  ASSERT_TRUE((*w)->finish().ok());
}

TEST(StoreBadInput, DirectoryWithoutCatalogIsNotARecording) {
  testing::TempDir tmp;
  expect_one_line_error(RecordingReader::open(tmp.path()), "not a recording (no catalog.db)");
  expect_one_line_error(RecordingReader::open(tmp.path() + "/nope"), "no such recording directory");
}

// Callers branch on the kind (a CLI's exit code, the UI's dialog), never on the text.
TEST(StoreBadInput, OpenErrorsCarryAKind) {
  testing::TempDir tmp;
  auto missing = RecordingReader::open(tmp.path() + "/nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(missing.error().is(ErrorKind::NotFound)) << error_kind_name(missing.error().kind);
  auto empty = RecordingReader::open(tmp.path());
  ASSERT_FALSE(empty.ok());
  EXPECT_TRUE(empty.error().is(ErrorKind::BadInput)) << error_kind_name(empty.error().kind);
  write_recording(tmp.rec(), 2);
  ASSERT_EQ(0, truncate((tmp.rec() + "/catalog.db").c_str(), 0));
  auto schemaless = RecordingReader::open(tmp.rec());
  ASSERT_FALSE(schemaless.ok());
  EXPECT_TRUE(schemaless.error().is(ErrorKind::BadInput)) << error_kind_name(schemaless.error().kind);
}

// A directory we may not search: Io, not "not a recording". Root may search
// anything; e2e_cli_options checks this case as another user.
TEST(StoreBadInput, UnreadableRecordingIsAnIoError) {
  if (geteuid() == 0) GTEST_SKIP() << "running as root: permissions do not apply";
  testing::TempDir tmp;
  write_recording(tmp.rec(), 2);
  ASSERT_EQ(0, chmod(tmp.rec().c_str(), 0));
  auto denied = RecordingReader::open(tmp.rec());
  ASSERT_EQ(0, chmod(tmp.rec().c_str(), 0700));
  ASSERT_FALSE(denied.ok());
  EXPECT_TRUE(denied.error().is(ErrorKind::Io)) << denied.error().message;
}

TEST(StoreBadInput, TruncatedCatalogIsNamed) {
  testing::TempDir tmp;
  write_recording(tmp.rec(), 150);
  std::string db = tmp.rec() + "/catalog.db";
  ASSERT_FALSE(testing::path_exists_for_test(db + "-wal")) << "the writer's close should have checkpointed the WAL";
  struct stat st;
  ASSERT_EQ(0, stat(db.c_str(), &st));
  ASSERT_GT(st.st_size, 4 * 4096) << "catalog too small for a meaningful truncation";
  ASSERT_EQ(0, truncate(db.c_str(), st.st_size / 2));
  expect_one_line_error(RecordingReader::open(tmp.rec()), "catalog.db is truncated or corrupt");
}

TEST(StoreBadInput, EmptyCatalogHasNoSchema) {
  testing::TempDir tmp;
  write_recording(tmp.rec(), 2);
  ASSERT_EQ(0, truncate((tmp.rec() + "/catalog.db").c_str(), 0));
  expect_one_line_error(RecordingReader::open(tmp.rec()), "not a recording (catalog.db has no recording schema)");
}

TEST(StoreBadInput, GarbageCatalogIsNamed) {
  testing::TempDir tmp;
  write_recording(tmp.rec(), 2);
  std::ofstream(tmp.rec() + "/catalog.db", std::ios::trunc) << std::string(8192, 'x');
  expect_one_line_error(RecordingReader::open(tmp.rec()), "catalog.db");
}

TEST(StoreBadInput, MissingExtentFileIsNamed) {
  testing::TempDir tmp;
  write_recording(tmp.rec(), 3);
  ASSERT_EQ(0, unlink((tmp.rec() + "/pages/000000.ext").c_str()));
  expect_one_line_error(RecordingReader::open(tmp.rec()), "missing extent file");
  expect_one_line_error(RecordingReader::open(tmp.rec()), "pages/000000.ext");
}

TEST(StoreBadInput, OtherFormatVersionNamesBothVersions) {
  testing::TempDir tmp;
  write_recording(tmp.rec(), 1);
  sqlite3* db = nullptr;
  ASSERT_EQ(SQLITE_OK, sqlite3_open((tmp.rec() + "/catalog.db").c_str(), &db));
  ASSERT_EQ(SQLITE_OK, sqlite3_exec(db, "UPDATE meta SET value=99 WHERE key='format_version'", nullptr, nullptr, nullptr));
  sqlite3_close(db);
  auto r = RecordingReader::open(tmp.rec());
  expect_one_line_error(r, "recording format version 99");
  expect_one_line_error(r, "reads version " + std::to_string(kRecordingFormatVersion));
}

TEST(StoreBadInput, CreateRefusesNonEmptyDirectory) {
  testing::TempDir tmp;
  std::ofstream(tmp.path() + "/something") << "x";
  auto w = RecordingWriter::create(tmp.path(), testing::test_meta());
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.error().message.find("exists and is not empty"), std::string::npos) << w.error().message;
}

// The tree's members may write the root's members/, files/ and group_cuts
// before the root's store is created on its writer thread (seen as a failed
// `record -- sh -c 'cat /dev/null | cat'` under load); before the program
// starts, the directory must be really empty.
TEST(StoreBadInput, CreateAcceptsWhatTheTreeWritesFirstClaimDoesNot) {
  testing::TempDir tmp;
  const std::string rec = tmp.rec();
  ASSERT_EQ(::mkdir(rec.c_str(), 0700), 0);
  ASSERT_EQ(::mkdir((rec + "/members").c_str(), 0700), 0);
  ASSERT_EQ(::mkdir((rec + "/files").c_str(), 0700), 0);
  std::ofstream(rec + "/group_cuts") << "1 10:1 11:2\n";
  Status claimed = RecordingWriter::claim_dir(rec);
  ASSERT_FALSE(claimed.ok());
  EXPECT_NE(claimed.error().message.find("exists and is not empty"), std::string::npos) << claimed.error().message;
  auto w = RecordingWriter::create(rec, testing::test_meta());
  ASSERT_TRUE(w.ok()) << w.error().message;
}

TEST(StoreBadInput, BadCheckpointInputIsRejectedAndWriterStaysUsable) {
  testing::TempDir tmp;
  auto w = RecordingWriter::create(tmp.rec(), testing::test_meta());
  ASSERT_TRUE(w.ok()) << w.error().message;
  Event e;
  Status early = (*w)->append_event(e);
  ASSERT_FALSE(early.ok());
  EXPECT_NE(early.error().message.find("no checkpoint yet"), std::string::npos);
  std::vector<uint8_t> page(kPageSize, 1);
  CheckpointInput bad;
  bad.dirty.push_back(DirtyPage{0x1001, page.data()});
  auto r1 = (*w)->add_checkpoint(bad, "start");
  ASSERT_FALSE(r1.ok());
  EXPECT_NE(r1.error().message.find("not page aligned"), std::string::npos) << r1.error().message;
  bad.dirty[0].vaddr = 1ull << 50;
  EXPECT_FALSE((*w)->add_checkpoint(bad, "start").ok());
  bad.dirty[0] = DirtyPage{0x2000, nullptr};
  EXPECT_FALSE((*w)->add_checkpoint(bad, "start").ok());
  CheckpointInput cleared;
  cleared.cleared.push_back({0x3000, 0x2000});
  EXPECT_FALSE((*w)->add_checkpoint(cleared, "start").ok());
  CheckpointInput good;
  good.dirty.push_back(DirtyPage{0x2000, page.data()});
  auto ok = (*w)->add_checkpoint(good, "start");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->value, 0u);
}

TEST(StoreBadInput, ReaderRejectsUnknownCheckpointsAndSegments) {
  testing::TempDir tmp;
  write_recording(tmp.rec(), 2);
  auto r = RecordingReader::open(tmp.rec());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE((*r)->process_state(CheckpointId(2)).ok());
  EXPECT_FALSE((*r)->segment_events(SegmentId(5)).ok());
  EXPECT_FALSE((*r)->segment_event(SegmentId(0), 0).ok());
  Status drop = drop_checkpoints_before(tmp.rec(), CheckpointId(9));
  ASSERT_FALSE(drop.ok());
  EXPECT_NE(drop.error().message.find("latest checkpoint is 1"), std::string::npos) << drop.error().message;
}

}  // namespace
}  // namespace slsdbg::store
