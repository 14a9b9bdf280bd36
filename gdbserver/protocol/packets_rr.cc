// rr's dialect, for front ends written against rr's gdbserver:
//   vRun;EXE-HEX;ARG-HEX  ARG is "c<K>" (checkpoint), "t<N>" (ticks) or "<N>"
//                         (event); no ARG restarts from the previous point.
//   qRRCmd:NAME:TID[:ARGS] answered with the command's text.
#include <charconv>

#include "gdbserver/protocol/hex.h"
#include "gdbserver/protocol/packets.h"

namespace slsdbg::gdbserver {
namespace {

std::optional<uint64_t> parse_decimal(std::string_view s) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

}  // namespace

Reply handle_vrun(PacketContext& ctx, std::string_view args) {
  HistorySeek* seek = ctx.target.history_seek();
  if (!seek) return std::string();
  HistorySeek::SeekTarget target;
  if (!args.empty()) {
    if (args[0] != ';') return std::string(kErrorMalformed);
    args = args.substr(1);
    // The executable name (hex, usually empty): a replay has only one program,
    // so any name means it.
    std::string_view exe = args.substr(0, args.find(';'));
    if (!text_from_hex(exe)) return std::string(kErrorMalformed);
    if (exe.size() < args.size()) {
      std::string_view arg = args.substr(exe.size() + 1);
      arg = arg.substr(0, arg.find(';'));  // later arguments are ignored, as rr does
      auto text = text_from_hex(arg);
      if (!text || text->empty()) return std::string(kErrorMalformed);
      std::string_view t = *text;
      if (t[0] == 'c' || t[0] == 't') {
        target.kind = t[0] == 'c' ? HistorySeek::SeekKind::Checkpoint : HistorySeek::SeekKind::Ticks;
        t = t.substr(1);
      } else {
        target.kind = HistorySeek::SeekKind::Event;
      }
      auto value = parse_decimal(t);
      if (!value) return std::string(kErrorMalformed);
      target.value = *value;
    }
  }
  return report_stop(ctx, seek->seek(target, ctx.stop));
}

Reply handle_rr_command(PacketContext& ctx, std::string_view args) {
  HistorySeek* seek = ctx.target.history_seek();
  if (!seek) return std::string();
  auto name_rest = split_once(args, ':');
  std::string_view name = name_rest ? name_rest->first : args;
  if (name.empty()) return std::string(kErrorMalformed);
  std::string_view command_args;
  if (name_rest) {
    // TID, then optional arguments.
    auto tid_rest = split_once(name_rest->second, ':');
    if (tid_rest) command_args = tid_rest->second;
  }
  auto text = seek->rr_command(name, command_args);
  if (!text.ok()) return error_reply(text.error());
  std::string out;
  append_escaped_binary(out, std::span(reinterpret_cast<const uint8_t*>(text->data()), text->size()));
  return out;
}

}  // namespace slsdbg::gdbserver
