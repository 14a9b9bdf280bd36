// The target description (qXfer:features:read:target.xml) for x86-64 Linux,
// generated from the register table so numbers, sizes and names cannot drift
// apart. GDB reads the standard feature names (org.gnu.gdb.i386.core, .sse,
// .linux, .segments, .avx); LLDB also reads the generic/dwarf_regnum
// attributes, which GDB ignores.
#pragma once

#include <string>

namespace slsdbg::gdbserver {

const std::string& x86_64_target_xml();

}  // namespace slsdbg::gdbserver
