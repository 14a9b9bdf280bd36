// Checks that a recording this user cannot write opens read-only, reads back
// and creates no file (no lock file, no SQLite -wal/-shm), also when a
// crashed writer left its WAL behind; that saving a bookmark there is a clear
// error; and that an unreadable recording is "permission denied" naming the
// path, not "not a recording". Root ignores file modes, so as root each check
// runs in a child that has become `nobody`.
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <filesystem>
#include <set>

#include "store/tests/test_util.h"

namespace slsdbg::store {
namespace {

namespace fs = std::filesystem;
using testing::Model;

// Runs FN as an unprivileged user (root: in a child that became nobody) and
// returns what it returned ("" = passed).
std::string as_unprivileged(const std::function<std::string()>& fn) {
  if (::geteuid() != 0) return fn();
  int p[2];
  if (::pipe(p) != 0) return "pipe failed";
  pid_t child = ::fork();
  if (child == 0) {
    ::close(p[0]);
    std::string out;
    if (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0) out = "cannot become nobody";
    else out = fn();
    if (!out.empty()) (void)!::write(p[1], out.data(), out.size());
    ::_exit(out.empty() ? 0 : 1);
  }
  ::close(p[1]);
  std::string out;
  char buf[512];
  ssize_t n;
  while ((n = ::read(p[0], buf, sizeof buf)) > 0) out.append(buf, size_t(n));
  ::close(p[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  if (out.empty() && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) out = "child failed";
  return out;
}

std::set<std::string> listing(const std::string& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) out.insert(e.path().string());
  return out;
}

// chmod -R a+rX,a-w (dirs 0555, files 0444).
void make_read_only(const std::string& dir) {
  for (const auto& e : fs::recursive_directory_iterator(dir)) ::chmod(e.path().c_str(), e.is_directory() ? 0555 : 0444);
  ::chmod(dir.c_str(), 0555);
}

class ReadOnly : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/slsdbg-ro-XXXXXX";  // /tmp: nobody can reach it, unlike $TMPDIR under /root
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    base_ = tmpl;
    ::chmod(base_.c_str(), 0755);
    rec_ = base_ + "/rec";
  }
  void TearDown() override {
    ::chmod(rec_.c_str(), 0755);
    std::error_code ec;
    for (const auto& e : fs::recursive_directory_iterator(base_, ec)) ::chmod(e.path().c_str(), 0755);
    fs::remove_all(base_, ec);
  }
  // A finished recording of a few checkpoints; with `crash`, the writer is
  // killed before finishing, leaving catalog.db-wal behind.
  void write(Model& model, bool crash) {
    pid_t child = ::fork();
    if (child == 0) {
      auto w = RecordingWriter::create(rec_, testing::test_meta());
      if (!w.ok()) ::_exit(2);
      std::vector<uint8_t> storage;
      for (uint64_t k = 0; k < 5; k++)
        if (!(*w)->add_checkpoint(model.next(k, storage), k == 0 ? "start" : "tick").ok()) ::_exit(3);
      if (crash) ::kill(::getpid(), SIGKILL);
      if (!(*w)->finish().ok()) ::_exit(4);
      ::_exit(0);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_TRUE(crash ? WIFSIGNALED(status) : WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    std::vector<uint8_t> storage;
    for (uint64_t k = 0; k < 5; k++) model.next(k, storage);  // the parent's model follows the child's
  }
  std::string base_, rec_;
};

std::string read_back(const std::string& rec, const Model& model) {
  auto r = RecordingReader::open(rec);
  if (!r.ok()) return "open: " + r.error().message;
  if ((*r)->checkpoints().size() != 5) return "expected 5 checkpoints, got " + std::to_string((*r)->checkpoints().size());
  for (uint64_t k = 0; k < 5; k++)
    if (std::string d = testing::compare_checkpoint(**r, model, k); !d.empty()) return d;
  auto bm = (*r)->set_bookmark("x", "1");
  if (bm.ok() || bm.error().message.find("read-only") == std::string::npos) return "bookmark on a read-only recording did not fail clearly";
  return "";
}

TEST_F(ReadOnly, AFinishedRecordingOpensAndCreatesNoFile) {
  Model model(3);
  write(model, false);
  make_read_only(rec_);
  auto before = listing(rec_);
  EXPECT_EQ(as_unprivileged([&] { return read_back(rec_, model); }), "");
  EXPECT_EQ(listing(rec_), before);
}

TEST_F(ReadOnly, ACrashedWritersWalIsReadThrough) {
  Model model(4);
  write(model, true);
  ASSERT_TRUE(fs::exists(rec_ + "/catalog.db-wal"));
  make_read_only(rec_);
  auto before = listing(rec_);
  EXPECT_EQ(as_unprivileged([&] {
              auto r = RecordingReader::open(rec_);
              if (!r.ok()) return "open: " + r.error().message;
              if ((*r)->checkpoints().size() != 5) return std::string("checkpoints in the WAL not seen");
              return testing::compare_checkpoint(**r, model, 4);
            }),
            "");
  EXPECT_EQ(listing(rec_), before);
}

TEST_F(ReadOnly, AnUnreadableRecordingIsPermissionDeniedNamingThePath) {
  Model model(5);
  write(model, false);
  for (const std::string& p : {rec_ + "/catalog.db", rec_}) {
    for (const auto& e : fs::recursive_directory_iterator(rec_)) ::chmod(e.path().c_str(), e.is_directory() ? 0755 : 0644);
    ::chmod(rec_.c_str(), 0755);
    ::chmod(p.c_str(), ::geteuid() != 0 ? 0 : p == rec_ ? 0700 : 0600);
    EXPECT_EQ(as_unprivileged([&] {
                auto r = RecordingReader::open(rec_);
                if (r.ok()) return std::string("opened");
                const std::string& m = r.error().message;
                if (m.find("permission denied") == std::string::npos || m.find(p) == std::string::npos || m.find("not a recording") != std::string::npos)
                  return "wrong error: " + m;
                return std::string();
              }),
              "")
        << p;
  }
}

}  // namespace
}  // namespace slsdbg::store
