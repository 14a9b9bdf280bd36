// General queries: feature negotiation and the small questions GDB asks on
// connect. qSupported advertises a capability only when the target has it.
#include "gdbserver/protocol/hex.h"
#include "gdbserver/protocol/packets.h"

namespace slsdbg::gdbserver {

Reply handle_q_supported(PacketContext& ctx, std::string_view args) {
  // "qSupported:multiprocess+;swbreak+;hwbreak+;..." — remember what the
  // client understands of our stop replies.
  std::string_view features = args.starts_with(":") ? args.substr(1) : args;
  ctx.session.client = ClientFeatures{};
  while (!features.empty()) {
    size_t end = features.find(';');
    std::string_view f = features.substr(0, end);
    if (f == "swbreak+") ctx.session.client.swbreak = true;
    if (f == "hwbreak+") ctx.session.client.hwbreak = true;
    if (f == "exec-events+") ctx.session.client.exec_events = true;
    if (f == "fork-events+") ctx.session.client.fork_events = true;
    if (f == "vfork-events+") ctx.session.client.vfork_events = true;
    if (f == "multiprocess+") ctx.session.client.pid = ctx.target.process_id();
    if (end == std::string_view::npos) break;
    features = features.substr(end + 1);
  }

  Target& t = ctx.target;
  std::string out = "PacketSize=" + hex_number(ctx.session.options.packet_size);
  out += ";QStartNoAckMode+;qXfer:features:read+;vContSupported+";
  if (Breakpoints* bp = t.breakpoints()) {
    if (bp->supports(BreakpointType::Software)) out += ";swbreak+";
    if (bp->supports(BreakpointType::Hardware)) out += ";hwbreak+";
  }
  if (t.auxv()) out += ";qXfer:auxv:read+";
  if (t.exec_file()) out += ";qXfer:exec-file:read+";
  if (t.libraries_svr4()) out += ";qXfer:libraries-svr4:read+";
  if (t.siginfo()) out += ";qXfer:siginfo:read+";
  out += ";qXfer:threads:read+";  // built from threads() when the target has no source of its own
  if (t.reverse_execution()) out += ";ReverseContinue+;ReverseStep+";
  if (ctx.session.client.pid > 0) out += ";multiprocess+";
  if (t.syscall_catch()) out += ";QCatchSyscalls+";
  if (ctx.session.client.exec_events) out += ";exec-events+";  // a target that never execs just never says so
  // Fork stops name the child as "pPID.TID": only under multiprocess.
  ForkEvents* forks = ctx.session.client.pid > 0 ? t.fork_events() : nullptr;
  if (!forks) ctx.session.client.fork_events = ctx.session.client.vfork_events = false;
  if (ctx.session.client.fork_events) out += ";fork-events+";
  if (ctx.session.client.vfork_events) out += ";vfork-events+";
  if (forks) forks->report_forks(ctx.session.client.fork_events, ctx.session.client.vfork_events);
  return out;
}

Reply handle_start_no_ack_mode(PacketContext& ctx, std::string_view) {
  // The OK still travels under acks; the server stops acking after it.
  ctx.session.no_ack = true;
  return std::string("OK");
}

Reply handle_must_reply_empty(PacketContext&, std::string_view) { return std::string(); }

// "1": the process existed before the client came (a replay always did), so
// quitting GDB detaches instead of killing.
Reply handle_q_attached(PacketContext&, std::string_view) { return std::string("1"); }

// Empty: no relocation to report; GDB takes the addresses in the ELF file.
Reply handle_q_offsets(PacketContext&, std::string_view) { return std::string(); }

// We never ask the client to look up symbols.
Reply handle_q_symbol(PacketContext&, std::string_view) { return std::string("OK"); }

// Empty: tracepoints are not supported, so GDB stops asking about them.
Reply handle_q_tstatus(PacketContext&, std::string_view) { return std::string(); }

}  // namespace slsdbg::gdbserver
