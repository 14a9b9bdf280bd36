// qXfer:OBJECT:read:ANNEX:OFFSET,LENGTH — objects read in slices. Each reply
// is "m" + data (more follows) or "l" + data (last), binary-escaped, and
// never longer than the packet size after escaping.
#include "gdbserver/protocol/hex.h"
#include "gdbserver/protocol/packets.h"
#include "gdbserver/protocol/target_description.h"

namespace slsdbg::gdbserver {
namespace {

std::string threads_xml_from(const std::vector<ThreadInfo>& threads, const ClientFeatures& client) {
  std::string xml = "<?xml version=\"1.0\"?>\n<threads>\n";
  for (const auto& t : threads) {
    xml += "  <thread id=\"" + thread_id_text(client, t.tid) + "\"";
    if (!t.name.empty()) {
      xml += " name=\"";
      for (char c : t.name) {
        switch (c) {
          case '<': xml += "&lt;"; break;
          case '>': xml += "&gt;"; break;
          case '&': xml += "&amp;"; break;
          case '"': xml += "&quot;"; break;
          default: xml += c;
        }
      }
      xml += "\"";
    }
    xml += "/>\n";
  }
  xml += "</threads>\n";
  return xml;
}

// The whole object, or nullopt when the object is unknown / not supported.
std::optional<Result<std::string>> object_content(PacketContext& ctx, std::string_view object,
                                                  std::string_view annex) {
  Target& t = ctx.target;
  if (object == "features") {
    if (annex != "target.xml") return Result<std::string>(Error::from_errno("unknown annex", EINVAL));
    return Result<std::string>(x86_64_target_xml());
  }
  XferSource* source = nullptr;
  if (object == "auxv") source = t.auxv();
  if (object == "exec-file") source = t.exec_file();
  if (object == "libraries-svr4") source = t.libraries_svr4();
  if (object == "siginfo") source = t.siginfo();
  if (object == "threads") {
    source = t.threads_xml();
    if (!source) {
      auto threads = t.threads();
      if (!threads.ok()) return Result<std::string>(threads.error());
      return Result<std::string>(threads_xml_from(*threads, ctx.session.client));
    }
  }
  if (!source) return std::nullopt;
  return source->read_object(annex);
}

}  // namespace

Reply handle_qxfer(PacketContext& ctx, std::string_view args) {
  auto object_rest = split_once(args, ':');
  if (!object_rest) return std::string(kErrorMalformed);
  auto op_rest = split_once(object_rest->second, ':');
  if (!op_rest) return std::string(kErrorMalformed);
  if (op_rest->first != "read") return std::string();  // writing is not supported
  size_t last_colon = op_rest->second.rfind(':');
  if (last_colon == std::string_view::npos) return std::string(kErrorMalformed);
  std::string_view annex = op_rest->second.substr(0, last_colon);
  auto range = split_once(op_rest->second.substr(last_colon + 1), ',');
  if (!range) return std::string(kErrorMalformed);
  auto offset = parse_hex_u64(range->first);
  auto length = parse_hex_u64(range->second);
  if (!offset || !length) return std::string(kErrorMalformed);

  auto content = object_content(ctx, object_rest->first, annex);
  if (!content) return std::string();
  if (!content->ok()) return error_reply(content->error());
  const std::string& data = content->value();
  if (*offset >= data.size()) return std::string("l");

  // Take bytes while the escaped reply fits both the asked length and our packet size.
  size_t budget = std::min<uint64_t>(*length, ctx.session.options.packet_size - 4);
  std::string out = "m";
  size_t at = *offset;
  size_t raw = 0;
  while (at < data.size() && raw < *length) {
    uint8_t c = static_cast<uint8_t>(data[at]);
    size_t cost = (c == '#' || c == '$' || c == '}' || c == '*') ? 2 : 1;
    if (out.size() - 1 + cost > budget) break;
    append_escaped_binary(out, std::span<const uint8_t>(&c, 1));
    ++at;
    ++raw;
  }
  if (at >= data.size()) out[0] = 'l';
  return out;
}

}  // namespace slsdbg::gdbserver
