#include "engine/dump/backtrace.h"

#include <cstdio>
#include <cstdlib>

#include <nlohmann/json.hpp>

namespace slsdbg::dump {

namespace {

std::string hex(uint64_t v, int width = 16) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%0*llx", width, static_cast<unsigned long long>(v));
  return buf;
}

// "call 0x7f..." -> "call 0x7f... <raise+0x12>"
void annotate_branch_targets(std::vector<Instruction>& insns, ModuleCache& modules) {
  for (auto& insn : insns) {
    auto sp = insn.text.find(' ');
    if (sp == std::string::npos || insn.text.compare(sp + 1, 2, "0x") != 0) continue;
    const std::string mnemonic = insn.text.substr(0, sp);
    if (mnemonic != "call" && mnemonic[0] != 'j') continue;
    uint64_t target = std::strtoull(insn.text.c_str() + sp + 1, nullptr, 16);
    auto where = modules.symbolize(target);
    if (where.function.empty()) continue;
    insn.text += " <" + where.function + (where.offset ? "+" + hex(where.offset, 0) : "") + ">";
  }
}

}  // namespace

std::vector<ThreadBacktrace> backtrace_threads(const store::ProcessState& state, MemorySource& memory,
                                               Disasm disasm, const std::string& recording_dir,
                                               const UnwindOptions& unwind) {
  ModuleCache modules(state, memory, recording_dir);
  std::vector<ThreadBacktrace> out;
  for (const auto& t : state.threads) {
    ThreadBacktrace bt;
    bt.tid = t.tid;
    auto frames = unwind_thread(t, memory, modules, unwind);
    if (frames.ok()) {
      bt.frames = std::move(*frames);
    } else {
      bt.error = frames.error().message;
    }
    if (disasm == Disasm::Yes && !bt.frames.empty()) {
      const Frame& f = bt.frames[0];
      auto insns = disassemble_around(memory, f.pc, f.where.function_start);
      if (insns.ok()) {
        bt.disasm = std::move(*insns);
        annotate_branch_targets(bt.disasm, modules);
      } else {
        bt.error = insns.error().message;
      }
    }
    out.push_back(std::move(bt));
  }
  return out;
}

std::string format_frame(size_t index, const Frame& f) {
  std::string s = "#" + std::to_string(index) + (index < 10 ? "  " : " ") + hex(f.pc) + " in ";
  if (f.kind == FrameKind::Signal) {
    s += "<signal handler called>";
    if (!f.where.function.empty()) s += " (" + f.where.function + ")";
    return s;
  }
  if (f.where.function.empty()) {
    s += "??";
  } else {
    s += f.where.function;
    if (f.where.offset) s += "+" + hex(f.where.offset, 0);
  }
  if (!f.where.file.empty()) s += " at " + f.where.file + ":" + std::to_string(f.where.line);
  if (!f.where.module.empty()) s += " (" + f.where.module + ")";
  return s;
}

std::string format_text(const std::vector<ThreadBacktrace>& threads) {
  std::string out;
  for (const auto& t : threads) {
    out += "thread " + std::to_string(t.tid.value) + ":\n";
    for (size_t i = 0; i < t.frames.size(); i++) out += format_frame(i, t.frames[i]) + "\n";
    if (!t.disasm.empty()) {
      out += "disassembly around " + hex(t.frames[0].pc) + ":\n";
      for (const auto& insn : t.disasm) {
        char line[256];
        std::snprintf(line, sizeof line, "%s %s  %-24s %s\n", insn.at_pc ? "=>" : "  ", hex(insn.address).c_str(),
                      insn.bytes.c_str(), insn.text.c_str());
        out += line;
      }
    }
    if (!t.error.empty()) out += "  (" + t.error + ")\n";
  }
  return out;
}

std::string format_json(const std::vector<ThreadBacktrace>& threads, const std::string& header_fields) {
  nlohmann::json doc = header_fields.empty() ? nlohmann::json::object() : nlohmann::json::parse(header_fields);
  doc["threads"] = nlohmann::json::array();
  for (const auto& t : threads) {
    nlohmann::json jt;
    jt["tid"] = t.tid.value;
    jt["frames"] = nlohmann::json::array();
    for (size_t i = 0; i < t.frames.size(); i++) {
      const Frame& f = t.frames[i];
      jt["frames"].push_back({{"index", i},
                              {"pc", hex(f.pc)},
                              {"sp", hex(f.sp)},
                              {"function", f.where.function},
                              {"offset", f.where.offset},
                              {"module", f.where.module},
                              {"file", f.where.file},
                              {"line", f.where.line},
                              {"signal_frame", f.kind == FrameKind::Signal}});
    }
    if (!t.disasm.empty()) {
      jt["disasm"] = nlohmann::json::array();
      for (const auto& insn : t.disasm)
        jt["disasm"].push_back(
            {{"address", hex(insn.address)}, {"bytes", insn.bytes}, {"text", insn.text}, {"at_pc", insn.at_pc}});
    }
    if (!t.error.empty()) jt["error"] = t.error;
    doc["threads"].push_back(jt);
  }
  return doc.dump(2) + "\n";
}

}  // namespace slsdbg::dump
