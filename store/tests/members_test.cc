// Checks the process-tree layout (members.h): the meta keys of format 6
// round-trip, the tree is listed root first and each member after its
// parent, a member is found by pid, an unknown pid is a one-line error
// naming it and the pids there are, and a recording without members/ (older
// formats) is a tree of one. A reused pid is the next name, PID.2.
#include "store/members.h"

#include "store/fs_util.h"
#include "store/tests/test_util.h"

namespace slsdbg::store {
namespace {

void write_member(const std::string& dir, int pid, int parent, const char* origin) {
  RecordingMeta m = testing::test_meta();
  m.pid = pid;
  m.parent_pid = parent;
  m.origin = origin;
  auto w = RecordingWriter::create(dir, m);
  ASSERT_TRUE(w.ok()) << w.error().message;
  ASSERT_TRUE((*w)->finish().ok());
}

TEST(StoreMembers, TreeIsListedRootFirstEachAfterItsParent) {
  testing::TempDir tmp;
  const std::string rec = tmp.path() + "/rec";
  ASSERT_TRUE(make_dir(rec).ok());
  ASSERT_TRUE(make_dir(members_dir(rec)).ok());  // may exist before the root's store (members.h)
  write_member(rec, 100, 1, "spawn");
  write_member(member_dir(rec, 105), 105, 100, "fork");
  write_member(member_dir(rec, 102), 102, 100, "exec");
  write_member(member_dir(rec, 103), 103, 105, "fork");
  auto members = list_members(rec);
  ASSERT_TRUE(members.ok()) << members.error().message;
  std::vector<int> pids;
  for (const Member& m : *members) pids.push_back(m.pid);
  EXPECT_EQ(pids, (std::vector<int>{100, 102, 105, 103}));
  EXPECT_EQ((*members)[0].origin, "spawn");
  EXPECT_EQ((*members)[3].parent_pid, 105);
  EXPECT_EQ((*members)[1].origin, "exec");

  auto dir = member_recording(rec, 103);
  ASSERT_TRUE(dir.ok()) << dir.error().message;
  EXPECT_EQ(*dir, member_dir(rec, 103));
  auto root = member_recording(rec, 100);
  ASSERT_TRUE(root.ok());
  EXPECT_EQ(*root, rec);

  auto bad = member_recording(rec, 999);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::NotFound);
  EXPECT_NE(bad.error().message.find("no process 999 in " + rec + " (its processes: 100 102 105 103)"), std::string::npos)
      << bad.error().message;
  EXPECT_EQ(bad.error().message.find('\n'), std::string::npos);
}

// A pid used twice (the kernel reuses pids): the second process is
// "PID.2", listed after the first, found by that name; a reused pid that
// became its own ancestor's child (5 forked by 4, then a later 4 forked by
// 5) is listed once each, not walked for ever.
TEST(StoreMembers, AReusedPidIsTheNextName) {
  testing::TempDir tmp;
  const std::string rec = tmp.path() + "/rec";
  ASSERT_TRUE(make_dir(rec).ok());
  ASSERT_TRUE(make_dir(members_dir(rec)).ok());
  write_member(rec, 3, 1, "spawn");
  EXPECT_EQ(unused_member_dir(rec, 4), member_dir(rec, 4));
  write_member(unused_member_dir(rec, 4), 4, 3, "fork");
  write_member(unused_member_dir(rec, 5), 5, 4, "fork");
  EXPECT_EQ(unused_member_dir(rec, 4), member_dir(rec, 4) + ".2");
  write_member(unused_member_dir(rec, 4), 4, 5, "fork");
  EXPECT_EQ(unused_member_dir(rec, 4), member_dir(rec, 4) + ".3");
  auto members = list_members(rec);
  ASSERT_TRUE(members.ok()) << members.error().message;
  std::vector<std::string> names;
  for (const Member& m : *members) names.push_back(m.name);
  EXPECT_EQ(names, (std::vector<std::string>{"", "4", "5", "4.2"}));
  auto second = member_recording(rec, std::string("4.2"));
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ(*second, member_dir(rec, 4) + ".2");
  auto first = member_recording(rec, std::string("4"));
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(*first, member_dir(rec, 4));
  auto bad = member_recording(rec, std::string("4.3"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("(its processes: 4 5 4.2)"), std::string::npos) << bad.error().message;
  EXPECT_TRUE(is_member_name("4"));
  EXPECT_TRUE(is_member_name("4.2"));
  EXPECT_FALSE(is_member_name("4."));
  EXPECT_FALSE(is_member_name(".2"));
  EXPECT_FALSE(is_member_name("4.2.1"));
  EXPECT_FALSE(is_member_name("x"));
  EXPECT_FALSE(is_member_name(""));
}

TEST(StoreMembers, OlderRecordingIsATreeOfOne) {
  testing::TempDir tmp;
  const std::string rec = tmp.path() + "/rec";
  auto w = RecordingWriter::create(rec, testing::test_meta());  // no pid: as before format 6
  ASSERT_TRUE(w.ok()) << w.error().message;
  ASSERT_TRUE((*w)->finish().ok());
  auto members = list_members(rec);
  ASSERT_TRUE(members.ok());
  ASSERT_EQ(members->size(), 1u);
  EXPECT_EQ((*members)[0].pid, 0);
  auto bad = member_recording(rec, 5);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("no process 5 in"), std::string::npos) << bad.error().message;
}

}  // namespace
}  // namespace slsdbg::store
