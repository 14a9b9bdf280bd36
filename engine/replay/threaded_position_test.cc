// The names of threaded positions (threaded_position.h): each kind of
// position survives its text form, and bad text names what is wrong.
#include "engine/replay/threaded_position.h"

#include <gtest/gtest.h>

namespace slsdbg::replay {
namespace {

ThreadedPosition round_trip(const ThreadedPosition& p) {
  auto back = ThreadedPosition::parse(p.to_string());
  EXPECT_TRUE(back.ok()) << p.to_string() << ": " << back.error().message;
  return back.ok() ? *back : ThreadedPosition{};
}

TEST(ThreadedPositionTest, EachKindOfPositionSurvivesItsName) {
  ThreadedPosition start{7};
  EXPECT_EQ(start.to_string(), "7");
  EXPECT_EQ(round_trip(start), start);

  ThreadedPosition end{3, true};
  EXPECT_EQ(end.to_string(), "3:end");
  EXPECT_EQ(round_trip(end), end);

  ThreadedPosition arrival{2, false, Tid(4100), 0x55d0c0de11a0, 17};
  EXPECT_EQ(arrival.to_string(), "2:t=4100:pc=0x55d0c0de11a0:n=17");
  EXPECT_EQ(round_trip(arrival), arrival);

  ThreadedPosition access = arrival;
  access.watch = WatchRange{WatchKind::Access, 0x601040, 8};
  EXPECT_EQ(access.to_string(), "2:t=4100:pc=0x55d0c0de11a0:n=17:watch=access/8/0x601040");
  EXPECT_EQ(round_trip(access), access);

  ThreadedPosition resume{5, false, Tid(4101), 0, 0, std::vector<Tid>(120, Tid(4101)), 3};
  EXPECT_EQ(resume.to_string(), "5:t=4101:resume=3:steps=120");
  EXPECT_EQ(round_trip(resume), resume);

  ThreadedPosition entry{6, false, Tid(4102)};
  entry.event = 0;
  entry.entry = true;
  EXPECT_EQ(entry.to_string(), "6:t=4102:event=0:entry");
  EXPECT_EQ(round_trip(entry), entry);
  ThreadedPosition returned = entry;
  returned.entry = false;
  returned.steps = {Tid(4102), Tid(4102)};
  EXPECT_EQ(returned.to_string(), "6:t=4102:event=0:steps=2");
  EXPECT_EQ(round_trip(returned), returned);
  EXPECT_FALSE(returned.is_start());
  EXPECT_FALSE(returned.same_anchor(entry));
}

TEST(ThreadedPositionTest, StepsOfSeveralThreadsKeepTheirOrder) {
  ThreadedPosition p{1, false, Tid(10), 0x1000, 2};
  p.steps = {Tid(10), Tid(10), Tid(11), Tid(10)};
  EXPECT_EQ(p.to_string(), "1:t=10:pc=0x1000:n=2:steps=10x2,11x1,10x1");
  EXPECT_EQ(round_trip(p), p);
  // Steps from a checkpoint's start name their thread.
  ThreadedPosition from_start{4};
  from_start.steps = {Tid(12), Tid(12), Tid(12)};
  EXPECT_EQ(from_start.to_string(), "4:steps=12x3");
  EXPECT_EQ(round_trip(from_start), from_start);
}

TEST(ThreadedPositionTest, BadNamesSayWhatIsWrong) {
  auto why = [](std::string_view text) {
    auto p = ThreadedPosition::parse(text);
    return p.ok() ? std::string("parsed") : p.error().message;
  };
  EXPECT_EQ(why("x"), "position 'x': the checkpoint is not a number");
  EXPECT_EQ(why("2:t=5:pc=0x10"), "position '2:t=5:pc=0x10': an arrival needs pc= and n= (n >= 1)");
  EXPECT_EQ(why("2:pc=0x10:n=1"), "position '2:pc=0x10:n=1': an arrival or resume needs t=TID");
  EXPECT_EQ(why("2:t=5:pc=0x10:n=1:watch=poke/8/0x10"),
            "position '2:t=5:pc=0x10:n=1:watch=poke/8/0x10': watch kind 'poke' is not write, read or access");
  EXPECT_EQ(why("2:t=5:pc=0x10:n=1:watch=write/3/0x10"),
            "position '2:t=5:pc=0x10:n=1:watch=write/3/0x10': the watched length is not 1, 2, 4 or 8");
  EXPECT_EQ(why("2:steps=4"), "position '2:steps=4': steps without a thread (write TIDxCOUNT)");
  EXPECT_EQ(why("2:t=5:color=red"), "position '2:t=5:color=red': unknown field 'color'");
  EXPECT_EQ(why("2:t=0:resume=1"), "position '2:t=0:resume=1': the thread id is out of range");
  EXPECT_EQ(why("3:end:t=5:resume=1"), "position '3:end:t=5:resume=1': end takes no thread, pc, n or resume");
  // A single-thread moment is not a threaded position.
  EXPECT_EQ(why("12:3:0x401136:7"),
            "position '12:3:0x401136:7': K:E:0xPC:N names a moment of a recording without threads; with threads a "
            "moment is K:t=TID:pc=0xPC:n=N, as `monitor when` prints it");
  EXPECT_EQ(why("12:x"), "position '12:x': 'x' is not end or NAME=VALUE");
  EXPECT_EQ(why("2:t=5:entry"), "position '2:t=5:entry': entry needs event=E");
  EXPECT_EQ(why("2:event=3"), "position '2:event=3': an event needs t=TID");
  EXPECT_EQ(why("2:t=5:event=3:resume=1"), "position '2:t=5:event=3:resume=1': give event= alone, not with end, pc=/n= or resume=");
}

}  // namespace
}  // namespace slsdbg::replay
