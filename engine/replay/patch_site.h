// Where a 5-byte jump can watch a pc (PatchSite, trampoline_code.h). At pc
// itself when the instructions there can move and no branch of the function
// targets the bytes after pc that the jump covers (one would run the jump's
// int3 tail: the patched run fails); else, for a pc whose own bytes
// cannot (`pop rbp; ret`, a lone `ret`: checkpoints of a hot call often land
// there), at an anchor a few instructions earlier from which execution can
// only fall through to pc:
//   - the function is decoded from its start (code_function.h), so the
//     anchor and pc are real instruction starts;
//   - the instructions from the anchor up to pc neither branch, call, return
//     nor make a syscall;
//   - no direct branch of the function, and no entry of its switches' jump
//     tables (jump_table.h), targets the bytes the jump replaces after the
//     anchor (a branch to pc itself would miss the check); any other
//     indirect jump (a tail call through a pointer) refuses the anchor;
//   - a `ret` or `jmp` is only the last instruction moved.
// The trampoline then runs the moved instructions up to pc, checks or
// counts, and runs the rest, `ret` included (it is position-independent).
// A pc whose own bytes a branch enters takes such an anchor when there is
// one, else its own site. Anything else is refused, and the caller keeps a
// debug register.
#pragma once

#include <cstdint>

#include "common/result.h"
#include "engine/replay/code_function.h"
#include "engine/replay/trampoline_code.h"

namespace slsdbg::replay {

Result<PatchSite> plan_patch_site(uint64_t pc, const CodeReader& read);

// The nearest anchored site before pc (the rules above), even where pc's
// own bytes could move: a debugger's int3 in the bytes after pc keeps pc's
// own site out, and an anchor ending at pc's instruction avoids them.
Result<PatchSite> plan_anchored_site(uint64_t pc, const CodeReader& read);

}  // namespace slsdbg::replay
