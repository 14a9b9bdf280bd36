#include "gdbserver/protocol/session.h"

#include <algorithm>

#include "gdbserver/protocol/hex.h"
#include "gdbserver/protocol/packets.h"

namespace slsdbg::gdbserver {
namespace {

enum class Match { Exact, Prefix };

struct Route {
  std::string_view name;
  Match match;
  PacketHandler handler;
};

// The one table. First match wins, so an exact name precedes a prefix it
// shares ("vCont?" before "vCont;"). A packet that matches nothing gets the
// empty reply, which tells GDB and LLDB "not supported".
constexpr Route kRoutes[] = {
    // packets_query.cc
    {"qSupported", Match::Prefix, handle_q_supported},
    {"QStartNoAckMode", Match::Exact, handle_start_no_ack_mode},
    {"vMustReplyEmpty", Match::Exact, handle_must_reply_empty},
    {"qAttached", Match::Prefix, handle_q_attached},
    {"qOffsets", Match::Exact, handle_q_offsets},
    {"qSymbol:", Match::Prefix, handle_q_symbol},
    {"qTStatus", Match::Exact, handle_q_tstatus},
    // packets_threads.cc
    {"H", Match::Prefix, handle_set_thread},
    {"T", Match::Prefix, handle_thread_alive},
    {"qC", Match::Exact, handle_q_current_thread},
    {"qfThreadInfo", Match::Exact, handle_q_first_thread_info},
    {"qsThreadInfo", Match::Exact, handle_q_subsequent_thread_info},
    {"qGetTLSAddr:", Match::Prefix, handle_q_get_tls_addr},
    // packets_registers.cc
    {"g", Match::Exact, handle_read_registers},
    {"G", Match::Prefix, handle_write_registers},
    {"p", Match::Prefix, handle_read_register},
    {"P", Match::Prefix, handle_write_register},
    // packets_memory.cc
    {"m", Match::Prefix, handle_read_memory_hex},
    {"M", Match::Prefix, handle_write_memory_hex},
    {"x", Match::Prefix, handle_read_memory_binary},
    {"X", Match::Prefix, handle_write_memory_binary},
    // packets_breakpoints.cc
    {"Z", Match::Prefix, handle_insert_point},
    {"z", Match::Prefix, handle_remove_point},
    // packets_resume.cc
    {"?", Match::Exact, handle_stop_reason},
    {"c", Match::Prefix, handle_continue},
    {"C", Match::Prefix, handle_continue_signal},
    {"s", Match::Prefix, handle_step},
    {"S", Match::Prefix, handle_step_signal},
    {"vCont?", Match::Exact, handle_vcont_query},
    {"vCont;", Match::Prefix, handle_vcont},
    {"bc", Match::Exact, handle_reverse_continue},
    {"bs", Match::Exact, handle_reverse_step},
    // packets_xfer.cc
    {"qXfer:", Match::Prefix, handle_qxfer},
    // packets_file.cc
    {"vFile:", Match::Prefix, handle_vfile},
    {"QCatchSyscalls:", Match::Prefix, handle_catch_syscalls},
    // packets_monitor.cc
    {"qRcmd,", Match::Prefix, handle_monitor},
    // packets_rr.cc
    {"vRun", Match::Prefix, handle_vrun},
    {"qRRCmd:", Match::Prefix, handle_rr_command},
    // packets_process.cc
    {"k", Match::Exact, handle_kill},
    {"vKill", Match::Prefix, handle_vkill},
    {"D", Match::Prefix, handle_detach},
};

}  // namespace

std::optional<ThreadSelector> parse_thread_selector(std::string_view text) {
  if (text == "-1") return ThreadSelector{ThreadSelector::Kind::All, Tid{}};
  if (!text.empty() && text[0] == 'p') {
    auto parts = split_once(text.substr(1), '.');
    if (!parts) return ThreadSelector{ThreadSelector::Kind::All, Tid{}};  // "pPID": every thread of it
    text = parts->second;
    if (text == "-1") return ThreadSelector{ThreadSelector::Kind::All, Tid{}};
  }
  auto value = parse_hex_u64(text);
  if (!value || *value > 0x7fffffff) return std::nullopt;
  if (*value == 0) return ThreadSelector{ThreadSelector::Kind::Any, Tid{}};
  return ThreadSelector{ThreadSelector::Kind::One, Tid(static_cast<int32_t>(*value))};
}

int32_t thread_selector_pid(std::string_view text) {
  if (text.empty() || text[0] != 'p') return 0;
  text.remove_prefix(1);
  auto pid = parse_hex_u64(text.substr(0, text.find('.')));
  return pid && *pid <= 0x7fffffff ? static_cast<int32_t>(*pid) : 0;
}

std::string error_reply(const Error& error) {
  int code = error.errno_value > 0 && error.errno_value < 256 ? error.errno_value : 1;
  std::string out = "E";
  uint8_t byte = static_cast<uint8_t>(code);
  append_hex(out, std::span<const uint8_t>(&byte, 1));
  return out;
}

std::string error_reply_with_text(const Error& error) {
  std::string out = "E.";
  for (char c : error.message) {
    bool plain = c >= 0x20 && c < 0x7f && c != '$' && c != '#' && c != '}' && c != '*';
    out += plain ? c : '?';
  }
  return out;
}

void emit_console(PacketContext& ctx, std::string_view text) {
  // Chunks small enough that "O" plus the hex stays inside the packet size.
  size_t chunk = std::max<size_t>(1, (ctx.session.options.packet_size - 8) / 2);
  for (size_t at = 0; at < text.size(); at += chunk) {
    ctx.console.push_back("O" + to_hex(text.substr(at, chunk)));
  }
}

Result<Tid> resolve_thread(PacketContext& ctx, const ThreadSelector& selector) {
  if (selector.kind == ThreadSelector::Kind::One) return selector.tid;
  if (ctx.session.last_stop_thread) return *ctx.session.last_stop_thread;
  auto threads = TRY(ctx.target.threads());
  if (threads.empty()) return Error::msg("the target has no threads");
  return threads.front().tid;
}

std::string fork_child_not_served(int32_t pid) {
  const std::string p = std::to_string(pid);
  return error_reply_with_text(Error::msg("the fork child " + p +
                                         " is not replayed in this session (GDB keeps it attached beside its parent: detach-on-fork off, or following a vfork child, is not served); slsdbg replay -p " +
                                         p + " debugs it"));
}

Reply report_stop(PacketContext& ctx, const Result<StopReason>& stop) {
  if (!stop.ok()) {
    emit_console(ctx, "slsdbg: " + stop.error().message + "\n");
    return error_reply(stop.error());
  }
  std::string notes = ctx.target.take_stop_notes();
  if (!notes.empty()) emit_console(ctx, notes);
  if (stop->thread.value > 0) {
    ctx.session.last_stop_thread = stop->thread;
    // The client's next queries are about the thread that stopped.
    ctx.session.general_thread = ThreadSelector{ThreadSelector::Kind::One, stop->thread};
    ctx.session.continue_thread = ThreadSelector{ThreadSelector::Kind::Any, Tid{}};
    ctx.session.general_child = 0;
  }
  if (stop->kind == StopKind::Fork || stop->kind == StopKind::VFork) ctx.session.fork_children.insert(stop->child.value);
  return encode_stop_reply(*stop, ctx.session.client);
}

namespace {

// GDB follows fork child `pid` (follow-fork-mode child): it detached the
// parent, selected the child, and now asks about it. The connection becomes
// the child's replay from its fork on, with the features the client
// negotiated. nullopt when switched; else the refusal, and the connection
// ends (GDB holds nothing else).
std::optional<std::string> follow_fork_child(SessionData& s, int32_t pid) {
  Result<std::unique_ptr<Target>> child = s.options.open_fork_child
                                              ? s.options.open_fork_child(pid)
                                              : Error::msg("this server cannot open the fork child's replay");
  if (!child.ok()) {
    s.closed = true;
    return error_reply_with_text(Error::msg("following the fork child " + std::to_string(pid) + " is not served: " +
                                            child.error().message + "; slsdbg replay -p " + std::to_string(pid) +
                                            " debugs it"));
  }
  s.followed = std::move(*child);
  Target& t = *s.followed;
  if (s.client.pid > 0) s.client.pid = t.process_id();
  if (ForkEvents* forks = t.fork_events()) forks->report_forks(s.client.fork_events, s.client.vfork_events);
  s.fork_children.erase(pid);
  s.target_gone = false;
  s.general_child = 0;
  const Tid tid(pid);
  s.general_thread = ThreadSelector{ThreadSelector::Kind::One, tid};
  s.continue_thread = ThreadSelector{ThreadSelector::Kind::Any, Tid{}};
  s.last_stop_thread = tid;
  return std::nullopt;
}

// Packets GDB sends a fork child it is letting go: selecting it, taking its
// breakpoints out, detaching or killing it. Any other packet about the child
// means GDB follows it.
bool lets_child_go(std::string_view payload) {
  return payload.starts_with('H') || payload.starts_with('z') || payload.starts_with('D') || payload.starts_with("vKill");
}

}  // namespace

Session::Session(Target& target, SessionOptions options) : target_(target) { data_.options = options; }

void Session::handle_packet(std::string_view payload, StopRequest& stop, std::vector<std::string>& replies) {
  std::vector<std::string> console;
  Reply reply = std::string();
  if (data_.general_child > 0 && data_.target_gone && !lets_child_go(payload)) {
    if (auto refused = follow_fork_child(data_, data_.general_child)) {
      replies.push_back(std::move(*refused));
      return;
    }
  }
  PacketContext ctx{target(), data_, stop, console};
  // A fork child's registers and memory are not the replayed process's:
  // reading or writing them through the parent's replay would be wrong.
  constexpr std::string_view kProcessState = "gGpPmMxX";
  if (data_.general_child > 0 && !payload.empty() && kProcessState.find(payload[0]) != std::string_view::npos) {
    replies.push_back(fork_child_not_served(data_.general_child));
    return;
  }
  for (const Route& route : kRoutes) {
    bool hit = route.match == Match::Exact ? payload == route.name : payload.starts_with(route.name);
    if (hit) {
      reply = route.handler(ctx, payload.substr(route.name.size()));
      break;
    }
  }
  for (auto& c : console) replies.push_back(std::move(c));
  if (reply) replies.push_back(std::move(*reply));
}

}  // namespace slsdbg::gdbserver
