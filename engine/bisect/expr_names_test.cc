// Checks how --expr is read for refinement: which names are variables (and so
// watched), which are members, registers, calls, or inside literals.
#include <gtest/gtest.h>

#include "engine/bisect/expr_invariant.h"

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
