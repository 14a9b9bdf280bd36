// Capstone disassembly around a pc, read from a memory image. x86 cannot be
// decoded backwards, so decoding starts at the enclosing function's start
// when it is near, else at the pc itself.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"
#include "engine/dump/memory_source.h"

namespace slsdbg::dump {

struct Instruction {
  uint64_t address = 0;
  std::string bytes;     // hex
  std::string text;      // "mov rax, qword ptr [rbp - 8]"
  bool at_pc = false;
};

struct DisasmWindow {
  size_t before = 6;     // instructions shown before the pc
  size_t after = 6;      // and from the pc on
};

// function_start: 0 when unknown.
Result<std::vector<Instruction>> disassemble_around(MemorySource& memory, uint64_t pc, uint64_t function_start,
                                                    const DisasmWindow& window = {});

}  // namespace slsdbg::dump
