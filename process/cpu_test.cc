// Checks CPUID capture: leaf 0 is present with the vendor string and the
// stored encoding round-trips; a damaged blob is an error, not garbage.
#include "process/cpu.h"

#include <gtest/gtest.h>

#include <cstring>

namespace slsdbg::process {
namespace {

TEST(Cpuid, LeafZeroHoldsTheVendor) {
  auto leaves = read_cpuid_leaves();
  ASSERT_FALSE(leaves.empty());
  EXPECT_EQ(leaves[0].leaf, 0u);
  char vendor[13] = {};
  std::memcpy(vendor, &leaves[0].ebx, 4);
  std::memcpy(vendor + 4, &leaves[0].edx, 4);
  std::memcpy(vendor + 8, &leaves[0].ecx, 4);
  EXPECT_TRUE(std::strcmp(vendor, "AuthenticAMD") == 0 || std::strcmp(vendor, "GenuineIntel") == 0) << vendor;
}

TEST(Cpuid, EncodingRoundTripsAndRejectsDamage) {
  auto leaves = read_cpuid_leaves();
  auto blob = encode_cpuid(leaves);
  auto back = decode_cpuid(blob);
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->size(), leaves.size());
  EXPECT_EQ(std::memcmp(back->data(), leaves.data(), leaves.size() * sizeof(CpuidEntry)), 0);
  blob.pop_back();
  EXPECT_FALSE(decode_cpuid(blob).ok());
  EXPECT_FALSE(decode_cpuid({1, 2, 3}).ok());
}

}  // namespace
}  // namespace slsdbg::process
