// Registers: g/G (the whole file in number order) and p/P (one by number).
// A register the target cannot read is sent as "xx" bytes (unavailable),
// which GDB and LLDB show as <unavailable> instead of failing the packet.
#include <vector>

#include "gdbserver/protocol/hex.h"
#include "gdbserver/protocol/packets.h"
#include "gdbserver/protocol/x86_64_registers.h"

namespace slsdbg::gdbserver {
namespace {

void append_register(PacketContext& ctx, Tid tid, const RegisterDesc& r, std::string& out) {
  std::vector<uint8_t> value(r.size);
  if (ctx.target.read_register(tid, r.number, value).ok()) {
    append_hex(out, value);
  } else {
    out.append(2 * r.size, 'x');
  }
}

}  // namespace

Reply handle_read_registers(PacketContext& ctx, std::string_view) {
  auto tid = resolve_thread(ctx, ctx.session.general_thread);
  if (!tid.ok()) return error_reply(tid.error());
  std::string out;
  for (const RegisterDesc& r : x86_64_registers()) append_register(ctx, *tid, r, out);
  return out;
}

// "G" + hex of the register file from register 0 on; a shorter packet writes
// the registers it covers completely.
Reply handle_write_registers(PacketContext& ctx, std::string_view args) {
  auto bytes = from_hex(args);
  if (!bytes || bytes->size() > x86_64_register_file_size()) return std::string(kErrorMalformed);
  auto tid = resolve_thread(ctx, ctx.session.general_thread);
  if (!tid.ok()) return error_reply(tid.error());
  size_t at = 0;
  for (const RegisterDesc& r : x86_64_registers()) {
    if (at + r.size > bytes->size()) break;
    auto status = ctx.target.write_register(*tid, r.number, std::span(bytes->data() + at, r.size));
    if (!status.ok()) return error_reply_with_text(status.error());
    at += r.size;
  }
  return std::string("OK");
}

Reply handle_read_register(PacketContext& ctx, std::string_view args) {
  auto number = parse_hex_u64(args);
  if (!number) return std::string(kErrorMalformed);
  const RegisterDesc* r = find_register(static_cast<int>(std::min<uint64_t>(*number, 1u << 20)));
  if (!r) return std::string(kErrorMalformed);
  auto tid = resolve_thread(ctx, ctx.session.general_thread);
  if (!tid.ok()) return error_reply(tid.error());
  std::string out;
  append_register(ctx, *tid, *r, out);
  return out;
}

// "P10=0010400000000000"
Reply handle_write_register(PacketContext& ctx, std::string_view args) {
  auto parts = split_once(args, '=');
  if (!parts) return std::string(kErrorMalformed);
  auto number = parse_hex_u64(parts->first);
  auto value = from_hex(parts->second);
  if (!number || !value) return std::string(kErrorMalformed);
  const RegisterDesc* r = find_register(static_cast<int>(std::min<uint64_t>(*number, 1u << 20)));
  if (!r || value->size() != r->size) return std::string(kErrorMalformed);
  auto tid = resolve_thread(ctx, ctx.session.general_thread);
  if (!tid.ok()) return error_reply(tid.error());
  auto status = ctx.target.write_register(*tid, r->number, *value);
  if (!status.ok()) return error_reply_with_text(status.error());
  return std::string("OK");
}

}  // namespace slsdbg::gdbserver
