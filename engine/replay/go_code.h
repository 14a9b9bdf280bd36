// Whether a replayed process runs Go code. Go's scheduler resumes a
// goroutine preempted by a signal at the pc it saved then, through a `ret`
// from anywhere (#16): a jump of ours that covers more than that pc's own
// instruction would be entered in its middle. The threaded timeline's
// counter stubs take wider sites (several moved instructions) only where no
// Go code runs. Go's linker marks every image with a note (owner "Go",
// type 4, the Go build id) in a PT_NOTE segment, which is mapped: it is
// read from the process's memory (every mapping that starts with an ELF
// header), so a restored process whose images are copies answers the same.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "process/task.h"

namespace slsdbg::replay {

// The PT_NOTE segments of the ELF image whose first bytes (header and
// program headers: at least the first page) are `head`, mapped at `start`
// (the mapping at file offset 0): {address, size} each. Empty if `head` is
// no 64-bit ELF.
std::vector<std::pair<uint64_t, uint64_t>> elf_note_segments(std::span<const uint8_t> head, uint64_t start);

// Whether the notes in `notes` (a PT_NOTE segment's bytes) include Go's build id.
bool has_go_note(std::span<const uint8_t> notes);

// Whether any ELF image mapped in task's process carries Go's note.
bool maps_go_code(process::Task& task);

}  // namespace slsdbg::replay
