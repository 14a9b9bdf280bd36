#include "recorder/record/stop_census.h"

#include <gtest/gtest.h>
#include <sys/syscall.h>

namespace slsdbg::recorder {
namespace {

TEST(StopCensus, NamesTheLargestCountsFirst) {
  StopCensus c;
  for (int i = 0; i < 3; i++) c.note(SYS_read);
  c.note(SYS_getpid);
  for (int i = 0; i < 5; i++) c.note(SYS_write);
  c.note(-1);     // a rewound call: counted in the total only
  c.note(10000);  // beyond the table
  EXPECT_EQ(c.total(), 11u);
  EXPECT_EQ(c.count(SYS_read), 3u);
  EXPECT_EQ(c.count(-1), 0u);
  EXPECT_EQ(c.summary(2), "write 5, read 3");
  EXPECT_EQ(c.summary(10), "write 5, read 3, getpid 1");
}

}  // namespace
}  // namespace slsdbg::recorder
