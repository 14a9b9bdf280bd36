// Memory: m/M (hex) and x/X (binary, '}'-escaped). Reads may come back
// shorter than asked (the readable prefix); a read that gets nothing is an
// error. Lengths are capped by the packet size, never trusted for allocation.
#include <vector>

#include "gdbserver/protocol/hex.h"
#include "gdbserver/protocol/packets.h"

namespace slsdbg::gdbserver {
namespace {

struct Range {
  RemoteAddr addr;
  uint64_t length;
};

// "addr,length"
std::optional<Range> parse_range(std::string_view text) {
  auto parts = split_once(text, ',');
  if (!parts) return std::nullopt;
  auto addr = parse_hex_u64(parts->first);
  auto length = parse_hex_u64(parts->second);
  if (!addr || !length) return std::nullopt;
  return Range{RemoteAddr(*addr), *length};
}

Result<std::vector<uint8_t>> read_prefix(PacketContext& ctx, Range range, uint64_t cap) {
  std::vector<uint8_t> buffer(std::min(range.length, cap));
  if (buffer.empty()) return buffer;
  size_t got = TRY(ctx.target.read_memory(range.addr, buffer));
  if (got == 0) return Error::from_errno("reading memory", EFAULT);
  buffer.resize(std::min(got, buffer.size()));
  return buffer;
}

std::string memory_error(const Error& e) {
  return e.errno_value ? error_reply(e) : std::string(kErrorMemory);
}

}  // namespace

Reply handle_read_memory_hex(PacketContext& ctx, std::string_view args) {
  auto range = parse_range(args);
  if (!range) return std::string(kErrorMalformed);
  auto bytes = read_prefix(ctx, *range, (ctx.session.options.packet_size - 4) / 2);
  if (!bytes.ok()) return memory_error(bytes.error());
  return to_hex(*bytes);
}

// "Maddr,length:hex"
Reply handle_write_memory_hex(PacketContext& ctx, std::string_view args) {
  auto parts = split_once(args, ':');
  if (!parts) return std::string(kErrorMalformed);
  auto range = parse_range(parts->first);
  auto bytes = from_hex(parts->second);
  if (!range || !bytes || bytes->size() != range->length) return std::string(kErrorMalformed);
  if (bytes->empty()) return std::string("OK");
  auto status = ctx.target.write_memory(range->addr, *bytes);
  if (!status.ok()) return memory_error(status.error());
  return std::string("OK");
}

// "xaddr,length" -> "b" + escaped bytes (GDB's binary read). Escaping can at
// most double the data, so half the packet size is the cap.
Reply handle_read_memory_binary(PacketContext& ctx, std::string_view args) {
  auto range = parse_range(args);
  if (!range) return std::string(kErrorMalformed);
  auto bytes = read_prefix(ctx, *range, (ctx.session.options.packet_size - 4) / 2);
  if (!bytes.ok()) return memory_error(bytes.error());
  std::string out = "b";
  append_escaped_binary(out, *bytes);
  return out;
}

// "Xaddr,length:binary"; "Xaddr,0:" is GDB's probe for X support.
Reply handle_write_memory_binary(PacketContext& ctx, std::string_view args) {
  auto parts = split_once(args, ':');
  if (!parts) return std::string(kErrorMalformed);
  auto range = parse_range(parts->first);
  auto bytes = unescape_binary(parts->second);
  if (!range || !bytes || bytes->size() != range->length) return std::string(kErrorMalformed);
  if (bytes->empty()) return std::string("OK");
  auto status = ctx.target.write_memory(range->addr, *bytes);
  if (!status.ok()) return memory_error(status.error());
  return std::string("OK");
}

}  // namespace slsdbg::gdbserver
