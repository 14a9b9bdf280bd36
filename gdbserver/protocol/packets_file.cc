// vFile:setfs/open/pread/close/fstat — GDB's host I/O on the target's files
// (`info proc mappings` reads /proc/PID/maps this way). Open files are whole
// contents the target handed over, held by the session until closed. Errors
// are "F-1,ERRNO" with GDB's fileio errno values (ENOENT 2, EACCES 13, ...
// the same numbers as Linux for these).
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "gdbserver/protocol/hex.h"
#include "gdbserver/protocol/packets.h"

namespace slsdbg::gdbserver {

namespace {

constexpr int kFileioEnosys = 88, kFileioEbadf = 9, kFileioEinval = 22;

std::string f_error(int fileio_errno) { return "F-1," + hex_number(static_cast<uint64_t>(fileio_errno)); }

int fileio_errno_of(const Error& e) {
  switch (e.errno_value) {
    case ENOENT: case EACCES: case EPERM: case EISDIR: case ENOTDIR: case EBADF: case EINVAL: return e.errno_value;
    default: return ENOENT;
  }
}

// GDB's struct fio_stat: big-endian fields (dev, ino, mode, nlink, uid, gid,
// rdev: 4 bytes; size, blksize, blocks: 8; atime, mtime, ctime: 4).
std::string fio_stat_for(size_t size) {
  std::string out;
  auto put = [&](uint64_t v, int bytes) {
    for (int i = bytes - 1; i >= 0; i--) out += static_cast<char>((v >> (8 * i)) & 0xff);
  };
  put(0, 4), put(0, 4), put(S_IFREG | 0444, 4), put(1, 4), put(0, 4), put(0, 4), put(0, 4);
  put(size, 8), put(4096, 8), put((size + 511) / 512, 8);
  put(0, 4), put(0, 4), put(0, 4);
  return out;
}

}  // namespace

Reply handle_vfile(PacketContext& ctx, std::string_view args) {
  TargetFiles* files = ctx.target.target_files();
  if (!files) return std::string();
  auto verb_rest = split_once(args, ':');
  std::string_view verb = verb_rest ? verb_rest->first : args;
  std::string_view rest = verb_rest ? verb_rest->second : std::string_view();
  auto& open = ctx.session.open_files;
  if (verb == "setfs") return std::string("F0");  // one process: every pid sees the same files
  if (verb == "open") {
    auto path_hex = split_once(rest, ',');
    if (!path_hex) return f_error(kFileioEinval);
    auto path = text_from_hex(path_hex->first);
    if (!path) return f_error(kFileioEinval);
    auto content = files->read_file(*path);
    if (!content.ok()) return f_error(fileio_errno_of(content.error()));
    const int fd = ctx.session.next_file++;
    open[fd] = std::move(*content);
    return "F" + hex_number(static_cast<uint64_t>(fd));
  }
  auto fd_rest = split_once(rest, ',');
  auto fd = parse_hex_u64(fd_rest ? fd_rest->first : rest);
  if (!fd) return f_error(kFileioEinval);
  auto it = open.find(static_cast<int>(*fd));
  if (it == open.end()) return f_error(kFileioEbadf);
  if (verb == "close") {
    open.erase(it);
    return std::string("F0");
  }
  if (verb == "fstat") {
    std::string st = fio_stat_for(it->second.size());
    std::string out = "F" + hex_number(st.size()) + ";";
    append_escaped_binary(out, std::span(reinterpret_cast<const uint8_t*>(st.data()), st.size()));
    return out;
  }
  if (verb == "pread") {
    if (!fd_rest) return f_error(kFileioEinval);
    auto count_offset = split_once(fd_rest->second, ',');
    if (!count_offset) return f_error(kFileioEinval);
    auto count = parse_hex_u64(count_offset->first), offset = parse_hex_u64(count_offset->second);
    if (!count || !offset) return f_error(kFileioEinval);
    const std::string& data = it->second;
    const size_t start = std::min<uint64_t>(*offset, data.size());
    const size_t n = std::min<uint64_t>({*count, data.size() - start, ctx.session.options.packet_size / 2});
    std::string out = "F" + hex_number(n) + ";";
    append_escaped_binary(out, std::span(reinterpret_cast<const uint8_t*>(data.data()) + start, n));
    return out;
  }
  return f_error(kFileioEnosys);
}

// "QCatchSyscalls:0", "QCatchSyscalls:1" (all) or "QCatchSyscalls:1;NR;NR..." (hex).
Reply handle_catch_syscalls(PacketContext& ctx, std::string_view args) {
  SyscallCatch* c = ctx.target.syscall_catch();
  if (!c) return std::string();
  if (args == "0") {
    auto st = c->catch_syscalls(false, {});
    return st.ok() ? std::string("OK") : error_reply(st.error());
  }
  if (args.empty() || args[0] != '1') return std::string(kErrorMalformed);
  std::vector<int64_t> numbers;
  std::string_view rest = args.substr(1);
  while (!rest.empty()) {
    if (rest[0] != ';') return std::string(kErrorMalformed);
    rest = rest.substr(1);
    size_t end = rest.find(';');
    auto nr = parse_hex_u64(rest.substr(0, end));
    if (!nr) return std::string(kErrorMalformed);
    numbers.push_back(static_cast<int64_t>(*nr));
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end);
  }
  auto st = c->catch_syscalls(true, numbers);
  return st.ok() ? std::string("OK") : error_reply_with_text(st.error());
}

}  // namespace slsdbg::gdbserver
