// parse_maps against fixed text: every field, the path forms the kernel
// writes (spaces, "(deleted)", [anon:NAME]) and lines that must be refused.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>

#include "process/proc_maps.h"

namespace slsdbg::process {
namespace {

using store::MappingFlags;

TEST(ParseMaps, EveryFieldAndPathForm) {
  const char* text =
      "55d0c0a00000-55d0c0a02000 r--p 00000000 fe:00 1196041                    /usr/bin/true\n"
      "55d0c0a02000-55d0c0a06000 r-xp 00002000 fe:00 1196041                    /usr/bin/true\n"
      "55d0c1f4f000-55d0c1f70000 rw-p 00000000 00:00 0                          [heap]\n"
      "7f0000000000-7f0000001000 rw-s 0000a000 103:0a 42                         /tmp/a file (deleted)\n"
      "7f0000001000-7f0000003000 ---p 00000000 00:00 0                          [anon:glibc]\n"
      "7f0000003000-7f0000004000 rw-p 00000000 00:00 0 \n"
      "7ffd7a3c1000-7ffd7a3e2000 rw-p 00000000 00:00 0                          [stack]\n"
      "7ffd7a3f6000-7ffd7a3f8000 r-xp 00000000 00:00 0                          [vdso]\n"
      "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]\n";
  auto maps = parse_maps(text, "test");
  ASSERT_TRUE(maps.ok()) << maps.error().message;
  ASSERT_EQ(maps->size(), 9u);
  const auto& exe = (*maps)[1];
  EXPECT_EQ(exe.start, 0x55d0c0a02000u);
  EXPECT_EQ(exe.end, 0x55d0c0a06000u);
  EXPECT_EQ(exe.prot, unsigned(PROT_READ | PROT_EXEC));
  EXPECT_EQ(exe.file_offset, 0x2000u);
  EXPECT_EQ(exe.dev, makedev(0xfe, 0));
  EXPECT_EQ(exe.inode, 1196041u);
  EXPECT_EQ(exe.path, "/usr/bin/true");
  EXPECT_EQ(exe.flags, 0u);
  EXPECT_EQ((*maps)[2].flags, flag(MappingFlags::Anonymous) | flag(MappingFlags::Heap));
  const auto& shared = (*maps)[3];
  EXPECT_EQ(shared.path, "/tmp/a file (deleted)");
  EXPECT_EQ(shared.dev, makedev(0x103, 0x0a));
  EXPECT_EQ(shared.file_offset, 0xa000u);
  EXPECT_EQ(shared.prot, unsigned(PROT_READ | PROT_WRITE));
  EXPECT_EQ(shared.flags, flag(MappingFlags::Shared));
  EXPECT_EQ((*maps)[4].prot, 0u);
  EXPECT_EQ((*maps)[4].flags, flag(MappingFlags::Anonymous));  // named anonymous memory is not special
  EXPECT_EQ((*maps)[5].path, "");
  EXPECT_EQ((*maps)[5].flags, flag(MappingFlags::Anonymous));
  EXPECT_EQ((*maps)[6].flags, flag(MappingFlags::Anonymous) | flag(MappingFlags::Stack));
  EXPECT_EQ((*maps)[7].flags, flag(MappingFlags::Anonymous) | flag(MappingFlags::Vdso));
  EXPECT_EQ((*maps)[8].start, 0xffffffffff600000u);
  EXPECT_EQ((*maps)[8].flags, flag(MappingFlags::Anonymous) | flag(MappingFlags::Vdso));
  EXPECT_TRUE(parse_maps("", "test")->empty());
}

TEST(ParseMaps, BadLinesAreRefusedByName) {
  for (const char* bad : {"55d0c0a00000 r--p 00000000 fe:00 1 /x\n",            // no end
                          "55d0c0a00000-55d0c0a02000 r--p 0000000g fe:00 1 /x\n",  // not hex
                          "55d0c0a00000-55d0c0a02000 r--p 00000000 fe00 1 /x\n",   // no minor
                          "55d0c0a00000-55d0c0a02000 r--p 00000000 fe:00 x /x\n",  // no inode
                          "55d0c0a00000-55d0c0a02000 rw\n"}) {
    auto maps = parse_maps(bad, "/proc/1/maps");
    ASSERT_FALSE(maps.ok()) << bad;
    EXPECT_NE(maps.error().message.find("/proc/1/maps: cannot parse line"), std::string::npos) << maps.error().message;
  }
}

}  // namespace
}  // namespace slsdbg::process
