// Checks the restore plan: which recorded mappings are mapped how (anonymous,
// file, shared), what is skipped (injection page, [vsyscall]), which bad maps
// are refused, where scratch memory goes, and that argv/envp/brk of the
// kernel's layout fields are found from a synthetic initial stack.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstring>

#include "engine/restore/mm_layout.h"
#include "engine/restore/restore_plan.h"

namespace slsdbg::restore {
namespace {

using store::flag;
using store::Mapping;
using store::MappingFlags;

constexpr uint64_t kInject = 0x70000000;
constexpr InjectArea kArea{kInject, 0x2000};

Mapping anon(uint64_t s, uint64_t e, uint32_t prot, uint32_t flags = flag(MappingFlags::Anonymous), std::string path = "") {
  Mapping m;
  m.start = s;
  m.end = e;
  m.prot = prot;
  m.flags = flags;
  m.path = std::move(path);
  return m;
}

Mapping file(uint64_t s, uint64_t e, uint32_t prot, std::string path, uint32_t flags = 0) {
  Mapping m = anon(s, e, prot, flags, std::move(path));
  m.file_offset = 0x1000;
  return m;
}

FileCheck always(FileCheck c, const Mapping&) { return c; }

TEST(RestorePlan, ChoosesHowEachMappingIsRecreated) {
  store::ProcessState st;
  st.mappings = {
      file(0x400000, 0x401000, PROT_READ | PROT_EXEC, "/bin/app"),
      file(0x402000, 0x403000, PROT_READ | PROT_WRITE, "/bin/app"),
      anon(0x404000, 0x405000, PROT_READ | PROT_WRITE, flag(MappingFlags::Heap) | flag(MappingFlags::Anonymous), "[heap]"),
      anon(kInject, kInject + 0x1000, PROT_READ | PROT_EXEC),
      anon(kInject + 0x1000, kInject + 0x2000, PROT_READ | PROT_WRITE),
      file(0x7f0000000000, 0x7f0000002000, PROT_READ | PROT_WRITE, "/data/shared", flag(MappingFlags::Shared)),
      anon(0x7f0000010000, 0x7f0000011000, PROT_NONE),
      anon(0x7ff000000000, 0x7ff000001000, PROT_READ, flag(MappingFlags::Vdso), "[vvar]"),
      anon(0x7ff000001000, 0x7ff000003000, PROT_READ | PROT_EXEC, flag(MappingFlags::Vdso), "[vdso]"),
      anon(0x7ffff0000000, 0x7ffff0021000, PROT_READ | PROT_WRITE, flag(MappingFlags::Stack) | flag(MappingFlags::Anonymous), "[stack]"),
      anon(0xffffffffff600000, 0xffffffffff601000, PROT_EXEC, flag(MappingFlags::Vdso), "[vsyscall]"),
  };
  auto plan = plan_restore(st, kArea, [](const Mapping& m) { return always(FileCheck::Unchanged, m); });
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  const auto& s = plan->mappings;
  ASSERT_EQ(s.size(), 8u);  // injection pages and [vsyscall] skipped
  EXPECT_TRUE(plan->warnings.empty());

  EXPECT_EQ(s[0].source, MappingSource::File);
  EXPECT_EQ(s[0].fill, FillPolicy::PagesDifferingFromFile);
  EXPECT_EQ(s[0].mmap_flags, MAP_FIXED | MAP_PRIVATE);
  EXPECT_EQ(s[0].map_prot, uint32_t(PROT_READ | PROT_EXEC));  // COW pages go through /proc/PID/mem
  EXPECT_EQ(s[0].final_prot, uint32_t(PROT_READ | PROT_EXEC));

  EXPECT_EQ(s[2].source, MappingSource::Anonymous);
  EXPECT_EQ(s[2].fill, FillPolicy::AllPages);
  EXPECT_EQ(s[2].mmap_flags, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS);

  // Shared file: mapped shared, never written, verified against the file.
  EXPECT_EQ(s[3].source, MappingSource::File);
  EXPECT_EQ(s[3].mmap_flags, MAP_FIXED | MAP_SHARED);
  EXPECT_EQ(s[3].fill, FillPolicy::VerifySharedFile);
  EXPECT_EQ(s[3].map_prot, s[3].final_prot);

  EXPECT_EQ(s[4].fill, FillPolicy::None);  // PROT_NONE cannot have been read
  EXPECT_EQ(s[4].map_prot, uint32_t(PROT_NONE));

  EXPECT_EQ(s[5].mapping.path, "[vvar]");
  EXPECT_EQ(s[5].fill, FillPolicy::None);
  EXPECT_EQ(s[6].mapping.path, "[vdso]");
  EXPECT_EQ(s[6].source, MappingSource::Anonymous);
  EXPECT_EQ(s[6].fill, FillPolicy::AllPages);

  EXPECT_EQ(s[7].mmap_flags, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_GROWSDOWN);

  // Scratch lies in none of them.
  for (const auto& m : st.mappings) {
    if (m.start >= 0xffffffffff600000) continue;
    EXPECT_TRUE(plan->scratch_addr + kScratchSize <= m.start || plan->scratch_addr >= m.end);
  }
}

TEST(RestorePlan, ChangedOrDeletedFilesBecomeAnonymousWithAWarning) {
  store::ProcessState st;
  st.mappings = {
      file(0x400000, 0x401000, PROT_READ, "/bin/gone"),
      file(0x500000, 0x501000, PROT_READ | PROT_WRITE, "/memfd:buf (deleted)", flag(MappingFlags::Shared)),
  };
  auto plan = plan_restore(st, kArea, [](const Mapping& m) { return always(FileCheck::Changed, m); });
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(plan->mappings.size(), 2u);
  EXPECT_EQ(plan->mappings[0].source, MappingSource::Anonymous);
  EXPECT_EQ(plan->mappings[0].fill, FillPolicy::AllPages);
  ASSERT_EQ(plan->warnings.size(), 1u);  // the deleted memfd is expected, not a surprise
  EXPECT_NE(plan->warnings[0].find("/bin/gone"), std::string::npos);
  EXPECT_NE(plan->warnings[0].find("changed"), std::string::npos);
  // memfd keeps MAP_SHARED semantics as shared anonymous memory.
  EXPECT_EQ(plan->mappings[1].mmap_flags, MAP_FIXED | MAP_SHARED | MAP_ANONYMOUS);
}

TEST(RestorePlan, RefusesBadMaps) {
  store::ProcessState st;
  st.mappings = {anon(0x400000, 0x400800, PROT_READ)};
  auto unchanged = [](const Mapping& m) { return always(FileCheck::Unchanged, m); };
  auto a = plan_restore(st, kArea, unchanged);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().message.find("not page aligned"), std::string::npos);

  st.mappings = {anon(0x400000, 0x402000, PROT_READ), anon(0x401000, 0x403000, PROT_READ)};
  auto b = plan_restore(st, kArea, unchanged);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message.find("overlaps"), std::string::npos);

  st.mappings = {anon(kInject - 0x1000, kInject + 0x2000, PROT_READ)};
  auto c = plan_restore(st, kArea, unchanged);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("injection page"), std::string::npos);
}

TEST(RestorePlan, ScratchSkipsOccupiedRanges) {
  std::vector<Mapping> ms = {anon(0x100000000, 0x100100000, PROT_READ), anon(0x100101000, 0x100200000, PROT_READ)};
  auto at = find_free_range(ms, kArea, kScratchSize);
  ASSERT_TRUE(at.ok());
  EXPECT_GE(*at, 0x100200000u + kPageSize);
}

TEST(MmLayout, FindsArgvEnvpBelowTheAuxiliaryVector) {
  // Build an initial stack: [argc=2][argv0][argv1][0][envp0][0][auxv...] then strings.
  const uint64_t base = 0x7ffff0000000;
  std::vector<uint8_t> stack(0x2000, 0);
  auto put64 = [&](uint64_t addr, uint64_t v) { std::memcpy(stack.data() + (addr - base), &v, 8); };
  auto puts = [&](uint64_t addr, const char* s) { std::memcpy(stack.data() + (addr - base), s, std::strlen(s) + 1); };
  std::vector<uint64_t> auxv = {6, 4096, 25, base + 0x1f00, 0, 0};  // AT_PAGESZ, AT_RANDOM, AT_NULL
  uint64_t sp = base + 0x1000;
  uint64_t strings = base + 0x1800;
  puts(strings, "./app");
  puts(strings + 6, "x");
  puts(strings + 8, "HOME=/root");
  put64(sp, 2);
  put64(sp + 8, strings);
  put64(sp + 16, strings + 6);
  put64(sp + 24, 0);
  put64(sp + 32, strings + 8);
  put64(sp + 40, 0);
  for (size_t i = 0; i < auxv.size(); i++) put64(sp + 48 + 8 * i, auxv[i]);

  store::ProcessState st;
  st.exe = "/bin/app";
  st.mappings = {file(0x400000, 0x401000, PROT_READ | PROT_EXEC, "/bin/app"),
                 file(0x402000, 0x403000, PROT_READ | PROT_WRITE, "/bin/app")};
  st.brk_start = 0x404000;
  st.brk_current = 0x425000;
  st.auxv.resize(auxv.size() * 8);
  std::memcpy(st.auxv.data(), auxv.data(), st.auxv.size());

  MmLayout l = derive_mm_layout(st, base, stack);
  EXPECT_FALSE(l.caveat.has_value());
  EXPECT_EQ(l.start_stack, sp);
  EXPECT_EQ(l.arg_start, strings);
  EXPECT_EQ(l.arg_end, strings + 8);
  EXPECT_EQ(l.env_start, strings + 8);
  EXPECT_EQ(l.env_end, strings + 8 + 11);
  EXPECT_EQ(l.start_code, 0x400000u);
  EXPECT_EQ(l.end_code, 0x401000u);
  EXPECT_EQ(l.start_data, 0x402000u);
  EXPECT_EQ(l.start_brk, 0x404000u);
  EXPECT_EQ(l.brk, 0x425000u);

  // Without the auxiliary vector on the stack: a caveat, and still valid ranges.
  std::vector<uint8_t> empty(0x2000, 0);
  MmLayout l2 = derive_mm_layout(st, base, empty);
  ASSERT_TRUE(l2.caveat.has_value());
  EXPECT_GE(l2.start_stack, base);
  EXPECT_LT(l2.start_stack, base + 0x2000);
}

}  // namespace
}  // namespace slsdbg::restore
