// A small in-memory Target for protocol tests (the gdbstub way: the test
// brings its own target). Two threads with static register files, a code and
// a data region, and a toy notion of time: forward execution moves rip up to
// the next breakpoint (or to the end of history at kEndPc), reverse execution
// moves it down to the previous breakpoint (or to history's start at
// kCodeBase). Every optional capability can be switched off.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gdbserver/protocol/target.h"
#include "gdbserver/protocol/x86_64_registers.h"

namespace slsdbg::gdbserver::testing {

inline constexpr uint64_t kCodeBase = 0x401000;
inline constexpr uint64_t kEndPc = 0x401040;
inline constexpr uint64_t kDataBase = 0x601000;
inline constexpr Tid kMainTid{0x65};
inline constexpr Tid kWorkerTid{0x66};
inline constexpr uint64_t kRaxValue = 0x1122334455667788ull;

enum Capability : unsigned {
  kBreakpoints = 1, kWatchpoints = 2, kReverse = 4, kMonitor = 8, kSeek = 16, kXferSources = 32,
  kAllCapabilities = 63,
};

// What forward execution does when no breakpoint is ahead.
enum class ForwardEnd { HistoryEnd, RunsUntilInterrupted };

class StringSource final : public XferSource {
 public:
  explicit StringSource(std::string s) : s_(std::move(s)) {}
  Result<std::string> read_object(std::string_view) override { return s_; }

 private:
  std::string s_;
};

class MemoryTestTarget : public Target,
                               public Breakpoints,
                               public Watchpoints,
                               public ReverseExecution,
                               public MonitorCommands,
                               public HistorySeek {
 public:
  explicit MemoryTestTarget(unsigned caps = kAllCapabilities, ForwardEnd end = ForwardEnd::HistoryEnd)
      : caps_(caps), end_(end) {
    for (Tid t : {kMainTid, kWorkerTid}) {
      auto& regs = regs_[t];
      regs.resize(x86_64_register_file_size());
      set_reg(t, x86_64::kRax, kRaxValue);
      set_reg(t, x86_64::kRip, kCodeBase);
      set_reg(t, x86_64::kRsp, 0x7ffe0000 + static_cast<uint64_t>(t.value));
      set_reg(t, x86_64::kEflags, 0x246);
      set_reg(t, x86_64::kCs, 0x33);
    }
    code_.resize(kPageSize);  // whole pages, as a real process maps them
    for (size_t i = 0; i < code_.size(); ++i) code_[i] = static_cast<uint8_t>(0x90);  // nop sled
    const uint8_t prologue[] = {0x55, 0x48, 0x89, 0xe5};  // push rbp; mov rbp,rsp
    std::memcpy(code_.data(), prologue, sizeof prologue);
    data_.resize(kPageSize);
    for (size_t i = 0; i < data_.size(); ++i) data_[i] = static_cast<uint8_t>(i);
  }

  // --- required core
  Result<std::vector<ThreadInfo>> threads() override {
    return std::vector<ThreadInfo>{{kMainTid, "main"}, {kWorkerTid, "worker"}};
  }
  Status read_register(Tid t, int number, std::span<uint8_t> out) override {
    auto* bytes = reg_bytes(t, number);
    if (!bytes) return Error::msg("no such thread or register");
    std::memcpy(out.data(), bytes, out.size());
    return ok_status();
  }
  Status write_register(Tid t, int number, std::span<const uint8_t> value) override {
    if (registers_read_only) return Error::msg("registers are read-only here");
    auto* bytes = reg_bytes(t, number);
    if (!bytes) return Error::msg("no such thread or register");
    std::memcpy(bytes, value.data(), value.size());
    return ok_status();
  }
  Result<size_t> read_memory(RemoteAddr addr, std::span<uint8_t> out) override {
    auto [region, base] = region_at(addr.value);
    if (!region) return Error::from_errno("read_memory", EFAULT);
    size_t n = std::min<size_t>(out.size(), region->size() - (addr.value - base));
    std::memcpy(out.data(), region->data() + (addr.value - base), n);
    return n;
  }
  Status write_memory(RemoteAddr addr, std::span<const uint8_t> bytes) override {
    auto [region, base] = region_at(addr.value);
    if (!region || addr.value - base + bytes.size() > region->size()) return Error::from_errno("write_memory", EFAULT);
    std::memcpy(region->data() + (addr.value - base), bytes.data(), bytes.size());
    return ok_status();
  }
  Result<StopReason> resume(const ResumeRequest& request, StopRequest& stop) override {
    last_request = request;
    ++resume_count;
    for (const auto& r : request.threads) {
      if (r.mode == ResumeMode::Step) {
        set_reg(r.tid, x86_64::kRip, reg(r.tid, x86_64::kRip) + 1);
        return last_ = StopReason::with_signal(r.tid, SIGTRAP);
      }
    }
    Tid t = kMainTid;
    uint64_t pc = reg(t, x86_64::kRip);
    if (!watches_.empty()) {
      const auto& w = *watches_.begin();
      StopKind k = w.first == WatchType::Write ? StopKind::Watch
                   : w.first == WatchType::Read ? StopKind::ReadWatch : StopKind::AccessWatch;
      set_reg(t, x86_64::kRip, pc + 2);
      // A write watchpoint fires because the "program" stored to it: bump the
      // byte so the client sees the value change (GDB resumes otherwise).
      if (w.first == WatchType::Write) {
        auto [region, base] = region_at(w.second);
        if (region) ++(*region)[w.second - base];
      }
      return last_ = StopReason::watch(t, k, RemoteAddr(w.second));
    }
    for (const auto& [type, addr] : breaks_) {
      if (addr > pc) {
        set_reg(t, x86_64::kRip, addr);
        return last_ = StopReason::breakpoint(
                   t, type == BreakpointType::Software ? StopKind::SwBreakpoint : StopKind::HwBreakpoint);
      }
    }
    if (end_ == ForwardEnd::RunsUntilInterrupted) {
      if (on_running) on_running();
      while (!stop.stop_requested()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      return last_ = StopReason::with_signal(t, SIGINT);
    }
    set_reg(t, x86_64::kRip, kEndPc);
    return last_ = StopReason::history_end(t);
  }
  Result<StopReason> last_stop() override { return last_; }
  Status kill() override { ++kill_count; return ok_status(); }
  Status detach() override { ++detach_count; return ok_status(); }

  // --- capabilities
  Breakpoints* breakpoints() override { return (caps_ & kBreakpoints) ? this : nullptr; }
  Watchpoints* watchpoints() override { return (caps_ & kWatchpoints) ? this : nullptr; }
  ReverseExecution* reverse_execution() override { return (caps_ & kReverse) ? this : nullptr; }
  MonitorCommands* monitor_commands() override { return (caps_ & kMonitor) ? this : nullptr; }
  HistorySeek* history_seek() override { return (caps_ & kSeek) ? this : nullptr; }
  XferSource* auxv() override { return (caps_ & kXferSources) ? &auxv_ : nullptr; }
  XferSource* exec_file() override { return (caps_ & kXferSources) ? &exe_ : nullptr; }
  XferSource* libraries_svr4() override { return (caps_ & kXferSources) ? &libs_ : nullptr; }

  Status insert_breakpoint(BreakpointType type, RemoteAddr addr, uint32_t) override {
    breaks_.insert({type, addr.value});
    return ok_status();
  }
  Status remove_breakpoint(BreakpointType type, RemoteAddr addr, uint32_t) override {
    if (!breaks_.erase({type, addr.value})) return Error::msg("no breakpoint there");
    return ok_status();
  }
  Status insert_watchpoint(WatchType type, RemoteAddr addr, uint64_t) override {
    watches_.insert({type, addr.value});
    return ok_status();
  }
  Status remove_watchpoint(WatchType type, RemoteAddr addr, uint64_t) override {
    if (!watches_.erase({type, addr.value})) return Error::msg("no watchpoint there");
    return ok_status();
  }

  Result<StopReason> reverse_resume(Tid thread, ResumeMode mode, StopRequest&) override {
    ++reverse_count;
    Tid t = thread;
    uint64_t pc = reg(t, x86_64::kRip);
    if (mode == ResumeMode::Step) {
      if (pc <= kCodeBase) return last_ = StopReason::history_begin(t);
      set_reg(t, x86_64::kRip, pc - 1);
      return last_ = StopReason::with_signal(t, SIGTRAP);
    }
    for (auto it = breaks_.rbegin(); it != breaks_.rend(); ++it) {
      if (it->second < pc) {
        set_reg(t, x86_64::kRip, it->second);
        return last_ = StopReason::breakpoint(t);
      }
    }
    set_reg(t, x86_64::kRip, kCodeBase);
    return last_ = StopReason::history_begin(t);
  }

  Result<std::string> run_monitor_command(std::string_view line) override {
    if (line == "help") {
      return std::string(
          "test target monitor commands:\n"
          "  help   this text\n"
          "  when   the current position\n");
    }
    if (line == "when") return "rip is 0x" + std::to_string(reg(kMainTid, x86_64::kRip) - kCodeBase) + "\n";
    return Error::msg("unknown monitor command '" + std::string(line) + "'");
  }

  Result<StopReason> seek(const SeekTarget& target, StopRequest&) override {
    last_seek = target;
    if (target.kind == SeekKind::Checkpoint) {
      if (target.value > 15) return Error::msg("no checkpoint " + std::to_string(target.value));
      set_reg(kMainTid, x86_64::kRip, kCodeBase + 4 * target.value);
    }
    return last_ = StopReason::with_signal(kMainTid, SIGTRAP);
  }
  Result<std::string> rr_command(std::string_view name, std::string_view) override {
    if (name == "when") return "Current event: " + std::to_string(reg(kMainTid, x86_64::kRip) - kCodeBase);
    return Error::msg("unknown rr command");
  }

  // --- for assertions
  uint64_t reg(Tid t, int number) {
    uint64_t v = 0;
    auto* bytes = reg_bytes(t, number);
    std::memcpy(&v, bytes, std::min<size_t>(8, find_register(number)->size));
    return v;
  }
  void set_reg(Tid t, int number, uint64_t v) {
    auto* bytes = reg_bytes(t, number);
    std::memset(bytes, 0, find_register(number)->size);
    std::memcpy(bytes, &v, std::min<size_t>(8, find_register(number)->size));
  }
  std::vector<uint8_t>& data() { return data_; }
  size_t breakpoint_count() const { return breaks_.size(); }
  size_t watchpoint_count() const { return watches_.size(); }

  // Called when a resume starts to wait for an interrupt (tests synchronise on it).
  std::function<void()> on_running;
  ResumeRequest last_request;
  SeekTarget last_seek;
  int resume_count = 0, reverse_count = 0, kill_count = 0, detach_count = 0;
  // Said once with the next stop reply (take_stop_notes).
  std::string stop_notes;
  bool registers_read_only = false;
  std::string take_stop_notes() override { return std::exchange(stop_notes, std::string()); }

 private:
  uint8_t* reg_bytes(Tid t, int number) {
    auto it = regs_.find(t);
    const RegisterDesc* r = find_register(number);
    if (it == regs_.end() || !r) return nullptr;
    size_t off = 0;
    for (const auto& d : x86_64_registers()) {
      if (d.number == number) break;
      off += d.size;
    }
    return it->second.data() + off;
  }
  std::pair<std::vector<uint8_t>*, uint64_t> region_at(uint64_t addr) {
    if (addr >= kCodeBase && addr < kCodeBase + code_.size()) return {&code_, kCodeBase};
    if (addr >= kDataBase && addr < kDataBase + data_.size()) return {&data_, kDataBase};
    return {nullptr, 0};
  }

  unsigned caps_;
  ForwardEnd end_;
  std::map<Tid, std::vector<uint8_t>> regs_;
  std::vector<uint8_t> code_, data_;
  std::set<std::pair<BreakpointType, uint64_t>> breaks_;
  std::set<std::pair<WatchType, uint64_t>> watches_;
  StopReason last_ = StopReason::with_signal(kMainTid, SIGTRAP);
  // AT_PAGESZ (6) = 0x1000 then AT_NULL; the '#' '}' '$' '*' bytes in the
  // padding entry exercise binary escaping.
  StringSource auxv_{std::string("\x06\0\0\0\0\0\0\0\0\x10\0\0\0\0\0\0" "\x23\x7d\x24\x2a\0\0\0\0\0\0\0\0\0\0\0\0"
                                 "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 48)};
  StringSource exe_{"/usr/bin/slsdbg-test-program"};
  StringSource libs_{"<library-list-svr4 version=\"1.0\"/>"};
};

}  // namespace slsdbg::gdbserver::testing
