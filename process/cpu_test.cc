// Checks CPUID capture: leaf 0 is present with the vendor string and the
// stored encoding round-trips; a damaged blob is an error, not garbage. And
// the replay's tracer pinning: one thread on one CPU, put back for spawns.
#include "process/cpu.h"

#include <gtest/gtest.h>

#include <cstring>
#include <thread>

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

cpu_set_t affinity() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  return set;
}

TEST(TracerCpu, PinsOnlyTheCallingThreadAndComesBackForSpawns) {
  const cpu_set_t start = start_cpus();
  if (CPU_COUNT(&start) < 2) GTEST_SKIP() << "one CPU allowed";
  int last = -1;
  for (int c = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET(c, &start)) last = c;
  std::thread([&] {
    pin_tracer_to_cpu(last);
    cpu_set_t now = affinity();
    EXPECT_EQ(CPU_COUNT(&now), 1);
    EXPECT_TRUE(CPU_ISSET(last, &now));
    {
      const UnpinnedScope unpinned;
      cpu_set_t in = affinity();
      EXPECT_TRUE(CPU_EQUAL(&in, &start));
    }
    now = affinity();
    EXPECT_EQ(CPU_COUNT(&now), 1);  // pinned again after the scope
    pin_tracer_to_cpu(CPU_SETSIZE + 5);  // no such CPU: left as it was
    now = affinity();
    EXPECT_TRUE(CPU_ISSET(last, &now));
    unpin_thread();
    now = affinity();
    EXPECT_TRUE(CPU_EQUAL(&now, &start));
  }).join();
  cpu_set_t main_thread = affinity();
  EXPECT_TRUE(CPU_EQUAL(&main_thread, &start));  // another thread's pin is not this one's
}

}  // namespace
}  // namespace slsdbg::process
