// ELF images of the files (and the vDSO) mapped at a checkpoint: where each
// is loaded, its function symbols (.symtab, else .dynsym), its .eh_frame_hdr
// for the unwinder, and FILE:LINE from DWARF (libdw) when present. The vDSO
// is read from the memory image itself; other modules from their paths (or
// the recording's pack).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "engine/dump/memory_source.h"
#include "store/process_state.h"

namespace slsdbg::dump {

struct Symbolized {
  std::string module;      // path of the mapped file, "[vdso]", or "" when unmapped
  std::string function;    // "" when no symbol covers the address
  uint64_t offset = 0;     // from the function's start
  uint64_t function_start = 0;  // runtime address of the function
  std::string file;        // source file, "" without DWARF
  int line = 0;
};

// Unwind-table location of the module around a pc, in runtime addresses.
struct EhFrameHdr {
  uint64_t text_start = 0, text_end = 0;  // the executable PT_LOAD
  uint64_t hdr_addr = 0;                  // .eh_frame_hdr
  uint64_t table_addr = 0;                // its binary search table
  uint64_t fde_count = 0;
};

class Module;

class ModuleCache {
 public:
  // recording_dir: files are read from its pack (store/pack_layout.h) when
  // it holds them; "" reads them at their recorded paths.
  ModuleCache(const store::ProcessState& state, MemorySource& memory, std::string recording_dir = "");
  ~ModuleCache();

  Symbolized symbolize(uint64_t pc);
  std::optional<EhFrameHdr> eh_frame_hdr(uint64_t pc);
  const std::vector<store::Mapping>& mappings() const { return state_.mappings; }

 private:
  // The module mapped at pc and its load bias (runtime = ELF vaddr + bias).
  Module* module_at(uint64_t pc, uint64_t* bias);

  const store::ProcessState& state_;
  MemorySource& memory_;
  std::string recording_dir_;
  std::map<std::string, std::unique_ptr<Module>> modules_;  // by path; null = not loadable
};

}  // namespace slsdbg::dump
