// Ending the session: k, vKill;PID and D[;PID]. All three close the
// connection once the reply is out. GDB reads no reply to 'k'; LLDB waits for
// one and takes "X09" (killed by SIGKILL), as lldb-server sends.
#include "gdbserver/protocol/packets.h"

namespace slsdbg::gdbserver {

Reply handle_kill(PacketContext& ctx, std::string_view) {
  auto status = ctx.target.kill();
  ctx.session.closed = true;
  if (!status.ok()) return error_reply(status.error());
  return std::string("X09");
}

Reply handle_vkill(PacketContext& ctx, std::string_view) {
  auto status = ctx.target.kill();
  ctx.session.closed = true;
  if (!status.ok()) return error_reply(status.error());
  return std::string("OK");
}

Reply handle_detach(PacketContext& ctx, std::string_view args) {
  if (!args.empty() && args[0] != ';') return std::string(kErrorMalformed);
  auto status = ctx.target.detach();
  if (!status.ok()) return error_reply(status.error());
  ctx.session.closed = true;
  return std::string("OK");
}

}  // namespace slsdbg::gdbserver
