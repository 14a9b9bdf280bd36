// The GNU build-id of an ELF file (NT_GNU_BUILD_ID in a PT_NOTE), as hex:
// recorded with each file mapping so that replay can tell a rebuilt binary
// from the one that ran.
#pragma once

#include <string>

namespace slsdbg::process {

// "" when the file cannot be read, is not ELF64, or has no build-id.
std::string read_build_id(const std::string& path);

}  // namespace slsdbg::process
