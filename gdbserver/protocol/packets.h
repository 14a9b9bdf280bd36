// Internal to the protocol layer: the handler signature, the helpers the
// packet families share, and one declaration per handler. Each family lives
// in its own packets_*.cc; session.cc holds the one table that routes to them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gdbserver/protocol/session.h"
#include "gdbserver/protocol/target.h"

namespace slsdbg::gdbserver {

struct PacketContext {
  Target& target;
  SessionData& session;
  StopRequest& stop;
  std::vector<std::string>& console;  // payloads sent before the reply ('O' packets)
};

// The reply payload, or nullopt for "send nothing".
using Reply = std::optional<std::string>;
using PacketHandler = Reply (*)(PacketContext& ctx, std::string_view args);

// Error replies: "E" and two hex digits, errno-like so they mean something.
inline constexpr std::string_view kErrorMalformed = "E16";  // EINVAL
inline constexpr std::string_view kErrorTooLarge = "E07";   // E2BIG
inline constexpr std::string_view kErrorMemory = "E0e";     // EFAULT
inline constexpr std::string_view kErrorNoThread = "E03";   // ESRCH
std::string error_reply(const Error& error);
// "E.message" (GDB prints the reply of some failed packets, e.g. P and G):
// the message with the characters framing would need to escape replaced.
std::string error_reply_with_text(const Error& error);
// Queues `text` as console output ('O' packets) for the client to print.
void emit_console(PacketContext& ctx, std::string_view text);

// The thread a selector means now: an explicit tid, else the thread of the
// last stop, else the target's first thread.
Result<Tid> resolve_thread(PacketContext& ctx, const ThreadSelector& selector);
// The refusal for a fork child GDB keeps attached beside its parent
// (detach-on-fork off; follow-fork-mode child on a vfork, whose parent GDB
// holds until the exec): the session replays one process at a time, and
// the child's registers and memory are not the parent's.
std::string fork_child_not_served(int32_t pid);
// Records a stop (the thread becomes the selected one) and encodes its reply.
Reply report_stop(PacketContext& ctx, const Result<StopReason>& stop);

// packets_query.cc
Reply handle_q_supported(PacketContext&, std::string_view);
Reply handle_start_no_ack_mode(PacketContext&, std::string_view);
Reply handle_must_reply_empty(PacketContext&, std::string_view);
Reply handle_q_attached(PacketContext&, std::string_view);
Reply handle_q_offsets(PacketContext&, std::string_view);
Reply handle_q_symbol(PacketContext&, std::string_view);
Reply handle_q_tstatus(PacketContext&, std::string_view);
// packets_threads.cc
Reply handle_set_thread(PacketContext&, std::string_view);
Reply handle_thread_alive(PacketContext&, std::string_view);
Reply handle_q_current_thread(PacketContext&, std::string_view);
Reply handle_q_first_thread_info(PacketContext&, std::string_view);
Reply handle_q_subsequent_thread_info(PacketContext&, std::string_view);
Reply handle_q_get_tls_addr(PacketContext&, std::string_view);
// packets_registers.cc
Reply handle_read_registers(PacketContext&, std::string_view);
Reply handle_write_registers(PacketContext&, std::string_view);
Reply handle_read_register(PacketContext&, std::string_view);
Reply handle_write_register(PacketContext&, std::string_view);
// packets_memory.cc
Reply handle_read_memory_hex(PacketContext&, std::string_view);
Reply handle_write_memory_hex(PacketContext&, std::string_view);
Reply handle_read_memory_binary(PacketContext&, std::string_view);
Reply handle_write_memory_binary(PacketContext&, std::string_view);
// packets_breakpoints.cc
Reply handle_insert_point(PacketContext&, std::string_view);
Reply handle_remove_point(PacketContext&, std::string_view);
// packets_resume.cc
Reply handle_stop_reason(PacketContext&, std::string_view);
Reply handle_continue(PacketContext&, std::string_view);
Reply handle_continue_signal(PacketContext&, std::string_view);
Reply handle_step(PacketContext&, std::string_view);
Reply handle_step_signal(PacketContext&, std::string_view);
Reply handle_vcont_query(PacketContext&, std::string_view);
Reply handle_vcont(PacketContext&, std::string_view);
Reply handle_reverse_continue(PacketContext&, std::string_view);
Reply handle_reverse_step(PacketContext&, std::string_view);
// packets_xfer.cc
Reply handle_qxfer(PacketContext&, std::string_view);
// packets_file.cc (and QCatchSyscalls)
Reply handle_catch_syscalls(PacketContext&, std::string_view);
Reply handle_vfile(PacketContext&, std::string_view);
// packets_monitor.cc
Reply handle_monitor(PacketContext&, std::string_view);
// packets_rr.cc
Reply handle_vrun(PacketContext&, std::string_view);
Reply handle_rr_command(PacketContext&, std::string_view);
// packets_process.cc
Reply handle_kill(PacketContext&, std::string_view);
Reply handle_vkill(PacketContext&, std::string_view);
Reply handle_detach(PacketContext&, std::string_view);

}  // namespace slsdbg::gdbserver
