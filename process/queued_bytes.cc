#include "process/queued_bytes.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/fd.h"
#include "process/remote_fd.h"

namespace slsdbg::process {

namespace {

Result<size_t> bytes_waiting(int fd) {
  int n = 0;
  if (::ioctl(fd, FIONREAD, &n) != 0) return Error::from_errno("FIONREAD");
  return n < 0 ? 0 : std::min(size_t(n), kMaxQueuedBytes);
}

Result<std::string> peek_stream(int sock) {
  const size_t n = TRY(bytes_waiting(sock));
  std::string bytes(n, '\0');
  if (n == 0) return bytes;
  ssize_t r;
  do r = ::recv(sock, bytes.data(), n, MSG_PEEK | MSG_DONTWAIT);
  while (r < 0 && errno == EINTR);
  if (r < 0) return Error::from_errno("recv(MSG_PEEK)");
  bytes.resize(size_t(r));
  return bytes;
}

// A peek offset makes each MSG_PEEK return the next datagram; the
// socket's own offset (shared with the tracee) is put back after.
Result<std::string> peek_datagrams(int sock) {
  int old = -1;
  socklen_t len = sizeof old;
  if (::getsockopt(sock, SOL_SOCKET, SO_PEEK_OFF, &old, &len) != 0) return Error::from_errno("SO_PEEK_OFF");
  const int zero = 0;
  if (::setsockopt(sock, SOL_SOCKET, SO_PEEK_OFF, &zero, sizeof zero) != 0) return Error::from_errno("SO_PEEK_OFF");
  std::string frames, one(65536, '\0');
  for (;;) {
    const ssize_t r = ::recv(sock, one.data(), one.size(), MSG_PEEK | MSG_DONTWAIT);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0 || frames.size() + 4 + size_t(r) > kMaxQueuedBytes) break;  // none left (or empty: not stepped over)
    const uint32_t n = uint32_t(r);
    frames.append(reinterpret_cast<const char*>(&n), 4);
    frames.append(one.data(), size_t(r));
  }
  ::setsockopt(sock, SOL_SOCKET, SO_PEEK_OFF, &old, sizeof old);
  return frames;
}

}  // namespace

Result<std::string> pipe_queued_bytes(pid_t pid, int fd) {
  // A new read end of the same pipe: opening a pipe through /proc works
  // as opening a FIFO, and O_NONBLOCK never waits for a writer.
  const std::string path = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd);
  UniqueFd end(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (!end.valid()) return Error::from_errno("open " + path);
  const size_t n = TRY(bytes_waiting(end.get()));
  std::string bytes;
  if (n == 0) return bytes;
  int copy[2];
  if (::pipe2(copy, O_CLOEXEC | O_NONBLOCK) != 0) return Error::from_errno("pipe2");
  UniqueFd copy_r(copy[0]), copy_w(copy[1]);
  if (::fcntl(copy_w.get(), F_SETPIPE_SZ, int(n)) < 0) return Error::from_errno("F_SETPIPE_SZ");
  // tee duplicates the pipe's buffers into ours without consuming them.
  ssize_t teed;
  do teed = ::tee(end.get(), copy_w.get(), n, SPLICE_F_NONBLOCK);
  while (teed < 0 && errno == EINTR);
  if (teed < 0) return Error::from_errno("tee");
  bytes.resize(size_t(teed));
  size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t r = ::read(copy_r.get(), bytes.data() + got, bytes.size() - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return Error::from_errno("reading the pipe's copy");
    got += size_t(r);
  }
  return bytes;
}

Result<std::string> socket_queued_bytes(int pidfd, int fd, int type) {
  UniqueFd copy = TRY(copy_fd_from(pidfd, fd));
  return type == SOCK_STREAM ? peek_stream(copy.get()) : peek_datagrams(copy.get());
}

std::vector<std::string> datagram_frames(const std::string& queued) {
  std::vector<std::string> out;
  for (size_t at = 0; at + 4 <= queued.size();) {
    uint32_t n;
    std::memcpy(&n, queued.data() + at, 4);
    if (at + 4 + n > queued.size()) break;
    out.push_back(queued.substr(at + 4, n));
    at += 4 + n;
  }
  return out;
}

}  // namespace slsdbg::process
