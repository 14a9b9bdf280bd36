#include "engine/replay/binary_check.h"

#include <unistd.h>

#include <cstdio>
#include <map>

#include "process/build_id.h"
#include "process/cpu.h"

namespace slsdbg::replay {

std::vector<MappedFile> mapped_files(const store::RecordingReader& reader) {
  std::map<std::string, std::string> files;
  const auto cps = reader.checkpoints();
  if (cps.empty()) return {};
  // Each image the program ran: the first, every exec's, and the last
  // checkpoint's (libraries loaded since).
  std::vector<CheckpointId> ks = {cps.front().id, cps.back().id};
  for (const store::CheckpointInfo& c : cps)
    if (c.reason == "exec") ks.push_back(c.id);
  for (CheckpointId k : ks) {
    auto state = reader.process_state(k);
    if (!state.ok()) continue;
    for (const store::Mapping& m : state->mappings)
      if (m.inode != 0 && !m.path.empty() && m.path.front() == '/' && !m.path.ends_with(" (deleted)"))
        files.emplace(m.path, m.build_id);
  }
  std::vector<MappedFile> out;
  for (auto& [path, id] : files) out.push_back({path, id});
  return out;
}

std::vector<std::string> check_binaries(const store::RecordingReader& reader, const std::string& recording_dir,
                                        bool* packed) {
  std::vector<std::string> warnings;
  bool all_packed = true;
  for (const MappedFile& f : mapped_files(reader)) {
    const std::string copy = pack_root(recording_dir) + f.path;
    const bool have_copy = ::access(copy.c_str(), R_OK) == 0 && process::read_build_id(copy) == f.build_id;
    all_packed = all_packed && have_copy;
    if (f.build_id.empty()) continue;  // nothing to compare
    std::string problem;
    if (::access(f.path.c_str(), R_OK) != 0) {
      problem = f.path + " is missing (recorded build-id " + f.build_id + ")";
    } else {
      const std::string now = process::read_build_id(f.path);
      if (now != f.build_id)
        problem = f.path + " changed since recording (build-id " + (now.empty() ? "none" : now) + ", recorded " +
                  f.build_id + ")";
    }
    if (problem.empty()) continue;
    warnings.push_back(problem + (have_copy ? "; using the packed copy" : "; debug info may not match"));
  }
  if (packed) *packed = all_packed && !mapped_files(reader).empty();
  return warnings;
}

std::string check_cpu(const store::RecordingReader& reader) {
  auto recorded = process::decode_cpuid(reader.meta().cpuid);
  if (!recorded.ok() || recorded->empty()) return "";
  std::map<std::pair<uint32_t, uint32_t>, process::CpuidEntry> now;
  for (const process::CpuidEntry& e : process::read_cpuid_leaves()) now[{e.leaf, e.subleaf}] = e;
  for (const process::CpuidEntry& r : *recorded) {
    auto it = now.find({r.leaf, r.subleaf});
    if (it == now.end()) continue;
    const process::CpuidEntry& n = it->second;
    const char* reg = nullptr;
    uint32_t was = 0, is = 0;
    auto cmp = [&](const char* name, uint32_t a, uint32_t b) {
      if (!reg && a != b) reg = name, was = a, is = b;
    };
    if (r.leaf == 0) {
      cmp("ebx", r.ebx, n.ebx), cmp("ecx", r.ecx, n.ecx), cmp("edx", r.edx, n.edx);
    } else if (r.leaf == 1) {
      cmp("ecx", r.ecx, n.ecx), cmp("edx", r.edx, n.edx);  // ebx holds the APIC id
    } else if ((r.leaf == 7 && r.subleaf == 0) || r.leaf == 0x80000001) {
      cmp("ebx", r.ebx, n.ebx), cmp("ecx", r.ecx, n.ecx), cmp("edx", r.edx, n.edx);
    } else if (r.leaf == 0xd && r.subleaf == 0) {
      cmp("eax", r.eax, n.eax);
    }
    if (!reg) continue;
    char line[200];
    std::snprintf(line, sizeof line,
                  "this CPU differs from the recording's: CPUID leaf 0x%x.%u %s was 0x%08x, is 0x%08x; a program "
                  "that chose code by CPU features may diverge",
                  r.leaf, r.subleaf, reg, was, is);
    return line;
  }
  return "";
}

}  // namespace slsdbg::replay
