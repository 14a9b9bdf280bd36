// Thread selection and listing: H, T, qC, qfThreadInfo/qsThreadInfo; and
// qGetTLSAddr (a thread's thread-local variables).
#include <algorithm>

#include "gdbserver/protocol/hex.h"
#include "gdbserver/protocol/packets.h"

namespace slsdbg::gdbserver {
namespace {

bool thread_exists(PacketContext& ctx, Tid tid) {
  auto threads = ctx.target.threads();
  if (!threads.ok()) return false;
  return std::any_of(threads->begin(), threads->end(), [&](const ThreadInfo& t) { return t.tid == tid; });
}

}  // namespace

// "Hg1f", "Hc-1", "Hgp1f.1f".
Reply handle_set_thread(PacketContext& ctx, std::string_view args) {
  if (args.size() < 2 || (args[0] != 'g' && args[0] != 'c')) return std::string(kErrorMalformed);
  auto selector = parse_thread_selector(args.substr(1));
  if (!selector) return std::string(kErrorMalformed);
  // A fork child GDB has not detached yet: it removes its breakpoints from
  // the child's copy of memory first (packets_breakpoints.cc ignores them).
  if (const int32_t pid = thread_selector_pid(args.substr(1)); pid > 0 && ctx.session.fork_children.count(pid)) {
    if (args[0] == 'g') ctx.session.general_child = pid;
    return std::string("OK");
  }
  if (args[0] == 'g') ctx.session.general_child = 0;
  if (selector->kind == ThreadSelector::Kind::One && !thread_exists(ctx, selector->tid)) {
    return std::string(kErrorNoThread);
  }
  (args[0] == 'g' ? ctx.session.general_thread : ctx.session.continue_thread) = *selector;
  return std::string("OK");
}

Reply handle_thread_alive(PacketContext& ctx, std::string_view args) {
  auto selector = parse_thread_selector(args);
  if (!selector || selector->kind != ThreadSelector::Kind::One) return std::string(kErrorMalformed);
  return std::string(thread_exists(ctx, selector->tid) ? "OK" : kErrorNoThread);
}

Reply handle_q_current_thread(PacketContext& ctx, std::string_view) {
  auto tid = resolve_thread(ctx, ctx.session.general_thread);
  if (!tid.ok()) return error_reply(tid.error());
  return "QC" + thread_id_text(ctx.session.client, *tid);
}

// The whole list in the first reply; qsThreadInfo ends it.
Reply handle_q_first_thread_info(PacketContext& ctx, std::string_view) {
  auto threads = ctx.target.threads();
  if (!threads.ok()) return error_reply(threads.error());
  if (threads->empty()) return std::string("l");
  std::string out = "m";
  for (size_t i = 0; i < threads->size(); ++i) {
    if (i) out += ',';
    out += thread_id_text(ctx.session.client, (*threads)[i].tid);
  }
  return out;
}

Reply handle_q_subsequent_thread_info(PacketContext&, std::string_view) { return std::string("l"); }

// "qGetTLSAddr:p1f.20,10,7ffff7ffe2e0" (args after the colon): the address in hex.
Reply handle_q_get_tls_addr(PacketContext& ctx, std::string_view args) {
  ThreadLocalStorage* tls = ctx.target.thread_local_storage();
  if (!tls) return std::string();
  auto thread_rest = split_once(args, ',');
  if (!thread_rest) return std::string(kErrorMalformed);
  auto offset_lm = split_once(thread_rest->second, ',');
  if (!offset_lm) return std::string(kErrorMalformed);
  auto selector = parse_thread_selector(thread_rest->first);
  auto offset = parse_hex_u64(offset_lm->first);
  auto lm = parse_hex_u64(offset_lm->second);
  if (!selector || selector->kind != ThreadSelector::Kind::One || !offset || !lm) return std::string(kErrorMalformed);
  if (!thread_exists(ctx, selector->tid)) return std::string(kErrorNoThread);
  auto addr = tls->tls_address(selector->tid, *offset, RemoteAddr(*lm));
  if (!addr.ok()) return error_reply(addr.error());
  return hex_number(addr->value);
}

}  // namespace slsdbg::gdbserver
