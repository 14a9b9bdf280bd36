// Checks how --expr is read for refinement (which names are variables, and
// so watched: not members, registers, calls or literals) and the GDB/MI quoting.
#include <gtest/gtest.h>

#include "engine/bisect/expr_invariant.h"
#include "engine/bisect/gdb_mi.h"

namespace slsdbg::bisect {
namespace {

using Names = std::vector<std::string>;

TEST(BisectExprNames, VariablesMembersRegistersCalls) {
  EXPECT_EQ(expression_names("bank.acct.checking + bank.acct.savings == total_expected"),
            (Names{"bank", "bank", "total_expected"}));
  EXPECT_EQ(expression_names("p->next != 0 && $rax > 0x10UL"), (Names{"p", "$rax"}));
  EXPECT_EQ(expression_names("strlen(name) < 5"), (Names{"strlen()", "name"}));
  EXPECT_EQ(expression_names("(long)x == 'a' || s == \"str ing\""), (Names{"long", "x", "s"}));
  EXPECT_EQ(expression_names("arr[3] . field > 1.5e3"), (Names{"arr"}));
}

}  // namespace
}  // namespace slsdbg::bisect

namespace slsdbg::bisect {
namespace {

// GDB/MI quoting both ways: what the probes send and read back.
TEST(BisectGdbMi, QuoteAndFields) {
  EXPECT_EQ(mi_quote("a \"b\" \\c"), "\"a \\\"b\\\" \\\\c\"");
  EXPECT_EQ(mi_field("^done,value=\"1\"", "value"), "1");
  EXPECT_EQ(mi_field("^error,msg=\"No symbol \\\"x\\\" in current context.\"", "msg"),
            "No symbol \"x\" in current context.");
  EXPECT_EQ(mi_field("^done,value=\"a\\tb\\012\"", "value"), "a\tb\n");
  EXPECT_EQ(mi_field("^done", "value"), "");
}

}  // namespace
}  // namespace slsdbg::bisect
