// Checks REC/group_cuts (group_cuts.h): lines round-trip, a recording
// without the file has no cuts, a torn last line is skipped, and a bad line
// is an error naming its number.
#include "store/group_cuts.h"

#include <fstream>

#include "store/fs_util.h"
#include "store/tests/test_util.h"

namespace slsdbg::store {
namespace {

TEST(StoreGroupCuts, AppendedCutsReadBackInOrder) {
  testing::TempDir tmp;
  const std::string rec = tmp.path();
  auto none = read_group_cuts(rec);
  ASSERT_TRUE(none.ok()) << none.error().message;
  EXPECT_TRUE(none->empty());
  ASSERT_TRUE(append_group_cut(rec, GroupCut{1, {{100, 3}, {105, 0}}}).ok());
  ASSERT_TRUE(append_group_cut(rec, GroupCut{2, {{100, 7}, {105, 4}, {106, 1}}}).ok());
  auto cuts = read_group_cuts(rec);
  ASSERT_TRUE(cuts.ok()) << cuts.error().message;
  ASSERT_EQ(cuts->size(), 2u);
  EXPECT_EQ((*cuts)[1].id, 2u);
  ASSERT_EQ((*cuts)[1].members.size(), 3u);
  EXPECT_EQ((*cuts)[1].members[2].pid, 106);
  EXPECT_EQ((*cuts)[1].members[2].checkpoint, 1u);
  EXPECT_EQ(format_group_cut((*cuts)[0]), "1 100:3 105:0");
}

TEST(StoreGroupCuts, TornLastLineIsSkipped) {
  testing::TempDir tmp;
  ASSERT_TRUE(append_group_cut(tmp.path(), GroupCut{1, {{10, 1}, {11, 2}}}).ok());
  std::ofstream(group_cuts_path(tmp.path()), std::ios::app) << "2 10:5 1";
  auto cuts = read_group_cuts(tmp.path());
  ASSERT_TRUE(cuts.ok()) << cuts.error().message;
  EXPECT_EQ(cuts->size(), 1u);
}

TEST(StoreGroupCuts, BadLineIsAnErrorNamingIt) {
  testing::TempDir tmp;
  std::ofstream(group_cuts_path(tmp.path())) << "1 10:1 11:2\n2 10:x 11:3\n";
  auto cuts = read_group_cuts(tmp.path());
  ASSERT_FALSE(cuts.ok());
  EXPECT_NE(cuts.error().message.find("line 2: '10:x' is not PID:CHECKPOINT"), std::string::npos) << cuts.error().message;
  EXPECT_FALSE(parse_group_cut("3 10:1").ok());  // one member is no group
  EXPECT_FALSE(parse_group_cut("0 10:1 11:1").ok());
}

}  // namespace
}  // namespace slsdbg::store
