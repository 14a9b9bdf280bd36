// signal_name: the abbreviation when the C library has one, else the number.
#include "common/signal_name.h"

#include <gtest/gtest.h>
#include <signal.h>

namespace slsdbg {
namespace {

TEST(SignalName, NamesKnownSignalsByAbbreviation) {
  EXPECT_EQ(signal_name(SIGSEGV), "SIGSEGV");
  EXPECT_EQ(signal_name(SIGABRT), "SIGABRT");
  EXPECT_EQ(signal_name(SIGINT), "SIGINT");
}

TEST(SignalName, NamesOthersByNumber) {
  EXPECT_EQ(signal_name(0), "signal 0");
  EXPECT_EQ(signal_name(-3), "signal -3");
  EXPECT_EQ(signal_name(200), "signal 200");
}

}  // namespace
}  // namespace slsdbg
