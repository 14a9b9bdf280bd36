// qRcmd,HEX — "monitor CMD" in GDB. The target's text comes back as console
// output ('O' packets) followed by OK. An error is printed the same way and
// also answered OK: GDB would follow an E reply with its own "Protocol error
// with Rcmd", which hides the target's message.
#include "gdbserver/protocol/hex.h"
#include "gdbserver/protocol/packets.h"

namespace slsdbg::gdbserver {

Reply handle_monitor(PacketContext& ctx, std::string_view args) {
  MonitorCommands* monitor = ctx.target.monitor_commands();
  if (!monitor) return std::string();
  auto command = text_from_hex(args);
  if (!command) return std::string(kErrorMalformed);
  auto output = monitor->run_monitor_command(*command);
  if (!output.ok()) {
    emit_console(ctx, output.error().message + "\n");
    return std::string("OK");
  }
  if (output->empty()) return std::string("OK");
  emit_console(ctx, *output);
  return std::string("OK");
}

}  // namespace slsdbg::gdbserver
