// Execution control: '?', the legacy c/C/s/S, vCont?/vCont and the reverse
// bc/bs. Every forward form becomes one ResumeRequest with an action per
// thread (vCont semantics: the first action naming a thread wins, then the
// default action; threads with neither stay stopped).
#include <algorithm>
#include <vector>

#include "gdbserver/protocol/hex.h"
#include "gdbserver/protocol/packets.h"
#include "gdbserver/protocol/signals.h"
#include "gdbserver/protocol/x86_64_registers.h"

namespace slsdbg::gdbserver {
namespace {

struct Action {
  ResumeMode mode;
  int host_signal;
  ThreadSelector thread;  // All for the default action
};

bool applies(const ThreadSelector& s, Tid tid) {
  return s.kind != ThreadSelector::Kind::One || s.tid == tid;
}

Result<ResumeRequest> resolve(PacketContext& ctx, const std::vector<Action>& actions) {
  auto threads = TRY(ctx.target.threads());
  ResumeRequest request;
  // "Any" in a vCont action means one thread of our choosing: the current one.
  Tid any_thread = TRY(resolve_thread(ctx, ThreadSelector{}));
  for (const ThreadInfo& t : threads) {
    ThreadResume r{t.tid, ResumeMode::Stay, 0};
    for (const Action& a : actions) {
      bool hit = a.thread.kind == ThreadSelector::Kind::Any ? t.tid == any_thread : applies(a.thread, t.tid);
      if (hit) {
        r.mode = a.mode;
        r.signal = a.host_signal;
        break;
      }
    }
    request.threads.push_back(r);
  }
  return request;
}

Reply run(PacketContext& ctx, const std::vector<Action>& actions) {
  auto request = resolve(ctx, actions);
  if (!request.ok()) return report_stop(ctx, request.error());
  return report_stop(ctx, ctx.target.resume(*request, ctx.stop));
}

// Legacy "c[addr]" / "s[addr]": resume at addr when given.
Status set_pc_if_given(PacketContext& ctx, std::string_view addr_text, Tid tid) {
  if (addr_text.empty()) return ok_status();
  auto addr = parse_hex_u64(addr_text);
  if (!addr) return Error::msg("malformed resume address");
  uint64_t value = *addr;
  return ctx.target.write_register(tid, x86_64::kRip,
                                   std::span(reinterpret_cast<const uint8_t*>(&value), sizeof value));
}

// Legacy continue resumes every thread; legacy step steps the Hc thread only.
Reply legacy_resume(PacketContext& ctx, ResumeMode mode, int gdb_signal, std::string_view addr_text) {
  auto tid = resolve_thread(ctx, ctx.session.continue_thread);
  if (!tid.ok()) return error_reply(tid.error());
  if (!set_pc_if_given(ctx, addr_text, *tid).ok()) return std::string(kErrorMalformed);
  int host = host_signal_from_gdb(gdb_signal);
  if (mode == ResumeMode::Step) {
    return run(ctx, {Action{ResumeMode::Step, host, ThreadSelector{ThreadSelector::Kind::One, *tid}}});
  }
  return run(ctx, {Action{ResumeMode::Continue, host, ThreadSelector{ThreadSelector::Kind::All, Tid{}}}});
}

// "Csig[;addr]"
Reply resume_with_signal(PacketContext& ctx, ResumeMode mode, std::string_view args) {
  std::string_view sig_text = args.substr(0, args.find(';'));
  std::string_view addr_text = args.size() > sig_text.size() ? args.substr(sig_text.size() + 1) : "";
  auto sig = parse_hex_u64(sig_text);
  if (!sig || *sig > 0xff) return std::string(kErrorMalformed);
  return legacy_resume(ctx, mode, static_cast<int>(*sig), addr_text);
}

Reply reverse(PacketContext& ctx, ResumeMode mode) {
  ReverseExecution* rev = ctx.target.reverse_execution();
  if (!rev) return std::string();
  auto tid = resolve_thread(ctx, ctx.session.continue_thread);
  if (!tid.ok()) return error_reply(tid.error());
  return report_stop(ctx, rev->reverse_resume(*tid, mode, ctx.stop));
}

}  // namespace

Reply handle_stop_reason(PacketContext& ctx, std::string_view) { return report_stop(ctx, ctx.target.last_stop()); }

Reply handle_continue(PacketContext& ctx, std::string_view args) {
  return legacy_resume(ctx, ResumeMode::Continue, 0, args);
}

Reply handle_continue_signal(PacketContext& ctx, std::string_view args) {
  return resume_with_signal(ctx, ResumeMode::Continue, args);
}

Reply handle_step(PacketContext& ctx, std::string_view args) { return legacy_resume(ctx, ResumeMode::Step, 0, args); }

Reply handle_step_signal(PacketContext& ctx, std::string_view args) {
  return resume_with_signal(ctx, ResumeMode::Step, args);
}

Reply handle_vcont_query(PacketContext&, std::string_view) { return std::string("vCont;c;C;s;S"); }

// "vCont;s:1f;c" — args start after "vCont;".
Reply handle_vcont(PacketContext& ctx, std::string_view args) {
  std::vector<Action> actions;
  bool have_default = false;
  while (true) {
    std::string_view item = args.substr(0, args.find(';'));
    if (item.empty()) return std::string(kErrorMalformed);
    std::string_view verb = item.substr(0, item.find(':'));
    Action a{ResumeMode::Continue, 0, ThreadSelector{ThreadSelector::Kind::All, Tid{}}};
    if (verb == "c") {
      a.mode = ResumeMode::Continue;
    } else if (verb == "s") {
      a.mode = ResumeMode::Step;
    } else if (verb.size() == 3 && (verb[0] == 'C' || verb[0] == 'S')) {
      auto sig = parse_hex_u64(verb.substr(1));
      if (!sig) return std::string(kErrorMalformed);
      a.mode = verb[0] == 'C' ? ResumeMode::Continue : ResumeMode::Step;
      a.host_signal = host_signal_from_gdb(static_cast<int>(*sig));
    } else {
      return std::string(kErrorMalformed);  // 't', 'r' and others are not advertised
    }
    if (verb.size() < item.size()) {
      auto thread = parse_thread_selector(item.substr(verb.size() + 1));
      if (!thread) return std::string(kErrorMalformed);
      a.thread = *thread;
    } else {
      if (have_default) return std::string(kErrorMalformed);
      have_default = true;
    }
    actions.push_back(a);
    if (item.size() == args.size()) break;
    args = args.substr(item.size() + 1);
  }
  // The default action applies after every thread-specific one.
  std::stable_partition(actions.begin(), actions.end(),
                        [](const Action& a) { return a.thread.kind != ThreadSelector::Kind::All; });
  return run(ctx, actions);
}

Reply handle_reverse_continue(PacketContext& ctx, std::string_view) { return reverse(ctx, ResumeMode::Continue); }

Reply handle_reverse_step(PacketContext& ctx, std::string_view) { return reverse(ctx, ResumeMode::Step); }

}  // namespace slsdbg::gdbserver
