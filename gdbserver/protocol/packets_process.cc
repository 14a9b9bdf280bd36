// Ending the session: k, vKill;PID and D[;PID]. All three close the
// connection once the reply is out (vKill and D: once the fork children the
// client still holds are let go too). GDB reads no reply to 'k'; LLDB waits for
// one and takes "X09" (killed by SIGKILL), as lldb-server sends.
#include "gdbserver/protocol/hex.h"
#include "gdbserver/protocol/packets.h"

namespace slsdbg::gdbserver {

Reply handle_kill(PacketContext& ctx, std::string_view) {
  auto status = ctx.target.kill();
  ctx.session.closed = true;
  if (!status.ok()) return error_reply(status.error());
  return std::string("X09");
}

// "D;PID" / "vKill;PID" of a fork child (GDB detaches it after a fork stop
// under detach-on-fork, or kills it with the session): the child is not the
// replayed process, so the session goes on. GDB detaches the parent first
// and its fork children after it: the connection closes with the last.
bool forget_fork_child(PacketContext& ctx, std::string_view args) {
  if (args.size() < 2 || args[0] != ';') return false;
  auto pid = parse_hex_u64(args.substr(1));
  if (!pid || !ctx.session.fork_children.erase(static_cast<int32_t>(*pid))) return false;
  if (ctx.session.general_child == static_cast<int32_t>(*pid)) ctx.session.general_child = 0;
  if (ctx.session.fork_children.empty() && ctx.session.target_gone) ctx.session.closed = true;
  return true;
}

// The session ends now, or once the fork children GDB still holds are let go.
void end_session(PacketContext& ctx) {
  ctx.session.target_gone = true;
  if (ctx.session.fork_children.empty()) ctx.session.closed = true;
}

Reply handle_vkill(PacketContext& ctx, std::string_view args) {
  if (forget_fork_child(ctx, args)) return std::string("OK");
  auto status = ctx.target.kill();
  end_session(ctx);
  if (!status.ok()) return error_reply(status.error());
  return std::string("OK");
}

Reply handle_detach(PacketContext& ctx, std::string_view args) {
  if (!args.empty() && args[0] != ';') return std::string(kErrorMalformed);
  if (forget_fork_child(ctx, args)) return std::string("OK");
  auto status = ctx.target.detach();
  if (!status.ok()) return error_reply(status.error());
  end_session(ctx);
  return std::string("OK");
}

}  // namespace slsdbg::gdbserver
