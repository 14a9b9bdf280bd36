// Breakpoints and watchpoints: "Ztype,addr,kind" / "ztype,addr,kind".
// Types 0/1 go to the Breakpoints capability, 2/3/4 to Watchpoints; a type
// the target lacks gets the empty reply, so GDB falls back (memory writes
// for software breakpoints, single-stepping for watchpoints).
#include "gdbserver/protocol/hex.h"
#include "gdbserver/protocol/packets.h"

namespace slsdbg::gdbserver {
namespace {

enum class PointOp { Insert, Remove };

struct PointSpec {
  int type;
  RemoteAddr addr;
  uint64_t kind;  // breakpoint kind, or watch length
};

std::optional<PointSpec> parse_point(std::string_view args) {
  // Conditions and commands after ';' are not advertised; ignore them.
  args = args.substr(0, args.find(';'));
  auto first = split_once(args, ',');
  if (!first || first->first.size() != 1) return std::nullopt;
  auto second = split_once(first->second, ',');
  if (!second) return std::nullopt;
  auto addr = parse_hex_u64(second->first);
  auto kind = parse_hex_u64(second->second);
  int type = first->first[0] - '0';
  if (!addr || !kind || type < 0 || type > 4) return std::nullopt;
  return PointSpec{type, RemoteAddr(*addr), *kind};
}

Reply change_point(PacketContext& ctx, std::string_view args, PointOp op) {
  auto spec = parse_point(args);
  if (!spec) return std::string(kErrorMalformed);
  if (ctx.session.general_child > 0) {
    // A fork child's memory: the replay has no process of it. Removing
    // what GDB thinks it holds there is done; inserting (GDB keeping the
    // child attached, detach-on-fork off) is not served.
    if (op == PointOp::Remove) return std::string("OK");
    return fork_child_not_served(ctx.session.general_child);
  }
  Status status;
  if (spec->type <= 1) {
    Breakpoints* bp = ctx.target.breakpoints();
    BreakpointType type = spec->type == 0 ? BreakpointType::Software : BreakpointType::Hardware;
    if (!bp || !bp->supports(type)) return std::string();
    if (spec->kind > 0xffffffff) return std::string(kErrorMalformed);
    uint32_t kind = static_cast<uint32_t>(spec->kind);
    status = op == PointOp::Insert ? bp->insert_breakpoint(type, spec->addr, kind)
                                   : bp->remove_breakpoint(type, spec->addr, kind);
  } else {
    Watchpoints* wp = ctx.target.watchpoints();
    WatchType type = spec->type == 2 ? WatchType::Write : spec->type == 3 ? WatchType::Read : WatchType::Access;
    if (!wp || !wp->supports(type)) return std::string();
    if (spec->kind == 0) return std::string(kErrorMalformed);
    status = op == PointOp::Insert ? wp->insert_watchpoint(type, spec->addr, spec->kind)
                                   : wp->remove_watchpoint(type, spec->addr, spec->kind);
  }
  if (!status.ok()) return error_reply(status.error());
  return std::string("OK");
}

}  // namespace

Reply handle_insert_point(PacketContext& ctx, std::string_view args) {
  return change_point(ctx, args, PointOp::Insert);
}

Reply handle_remove_point(PacketContext& ctx, std::string_view args) {
  return change_point(ctx, args, PointOp::Remove);
}

}  // namespace slsdbg::gdbserver
