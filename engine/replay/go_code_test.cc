// Go's build-id note found in ELF bytes built here (a header, program
// headers, a PT_NOTE segment), and in this test's own process (a C++
// program: no Go note in any image it maps).
#include "engine/replay/go_code.h"

#include <elf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <vector>

namespace slsdbg::replay {
namespace {

// `namesz` 0: the name's length with its NUL.
std::vector<uint8_t> note(const char* name, uint32_t type, size_t desc, uint32_t namesz = 0) {
  if (namesz == 0) namesz = static_cast<uint32_t>(std::strlen(name) + 1);
  const uint32_t descsz = static_cast<uint32_t>(desc);
  std::vector<uint8_t> n(12 + ((namesz + 3) & ~3u) + ((descsz + 3) & ~3u), 0);
  std::memcpy(&n[0], &namesz, 4);
  std::memcpy(&n[4], &descsz, 4);
  std::memcpy(&n[8], &type, 4);
  std::memcpy(&n[12], name, std::strlen(name));  // the rest of the name stays 0
  return n;
}

TEST(GoCode, FindsGosBuildIdNoteAmongOthers) {
  std::vector<uint8_t> notes = note("GNU", NT_GNU_BUILD_ID, 20);
  EXPECT_FALSE(has_go_note(notes));
  const std::vector<uint8_t> go = note("Go", 4, 83);
  notes.insert(notes.end(), go.begin(), go.end());
  EXPECT_TRUE(has_go_note(notes));
  EXPECT_FALSE(has_go_note(note("Go", 1, 4)));  // another Go note type
  EXPECT_FALSE(has_go_note(note("Gox", 4, 4)));
  // As Go's linker writes it (/usr/local/go/bin/gofmt): namesz 4, "Go\0\0".
  EXPECT_TRUE(has_go_note(note("Go", 4, 83, 4)));
  EXPECT_FALSE(has_go_note(note("Gox", 4, 83, 4)));
  std::vector<uint8_t> cut = go;
  cut.resize(13);  // a truncated segment
  EXPECT_FALSE(has_go_note(cut));
}

TEST(GoCode, PlacesNoteSegmentsByTheLoadBias) {
  std::vector<uint8_t> head(4096, 0);
  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_phoff = sizeof eh;
  eh.e_phentsize = sizeof(Elf64_Phdr);
  eh.e_phnum = 2;
  std::memcpy(head.data(), &eh, sizeof eh);
  Elf64_Phdr load{}, notes{};
  load.p_type = PT_LOAD;
  load.p_vaddr = 0x400000;  // ET_EXEC, as Go links by default
  notes.p_type = PT_NOTE;
  notes.p_vaddr = 0x400f78;
  notes.p_memsz = 0x64;
  std::memcpy(head.data() + sizeof eh, &load, sizeof load);
  std::memcpy(head.data() + sizeof eh + sizeof load, &notes, sizeof notes);
  auto at = elf_note_segments(head, 0x400000);
  ASSERT_EQ(at.size(), 1u);
  EXPECT_EQ(at[0].first, 0x400f78u);
  EXPECT_EQ(at[0].second, 0x64u);
  // Position-independent: its first PT_LOAD at 0, mapped at a bias.
  load.p_vaddr = 0;
  notes.p_vaddr = 0x338;
  std::memcpy(head.data() + sizeof eh, &load, sizeof load);
  std::memcpy(head.data() + sizeof eh + sizeof load, &notes, sizeof notes);
  at = elf_note_segments(head, 0x55550000);
  ASSERT_EQ(at.size(), 1u);
  EXPECT_EQ(at[0].first, 0x55550338u);
  head[0] = 0;  // no ELF
  EXPECT_TRUE(elf_note_segments(head, 0x55550000).empty());
}

TEST(GoCode, ThisProcessRunsNoGo) {
  process::Task self(Tid(getpid()), getpid());
  EXPECT_FALSE(maps_go_code(self));
}

}  // namespace
}  // namespace slsdbg::replay
