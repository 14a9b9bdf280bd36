// Errors as values: every fallible call at a component boundary returns
// Result<T>. An Error carries a one-line message for people, a kind that
// callers branch on (never the message's text), and, when it came from a
// syscall, that syscall's errno.
#pragma once

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace slsdbg {

// What went wrong, for callers that act on it (a CLI's exit code, a retry,
// a fallback). Internal is the default: a fault no caller is expected to
// handle, or one nobody has classified yet.
enum class ErrorKind {
  Internal,     // a bug or an unclassified failure
  NotFound,     // the thing named does not exist (file, recording, checkpoint)
  BadInput,     // the caller's input is malformed or refused (not a recording, bad address)
  Unsupported,  // valid, but this build or kernel cannot do it
  Io,           // the system failed us: permission, disk full, a syscall error
};

struct Error {
  std::string message;
  int errno_value = 0;  // 0 when not from a syscall
  ErrorKind kind = ErrorKind::Internal;

  // "what: strerror(errno)" for a failed syscall; the kind follows the errno.
  static Error from_errno(std::string what, int err = errno) {
    return Error{what + ": " + std::strerror(err), err, kind_of_errno(err)};
  }
  static Error msg(std::string text) { return Error{std::move(text), 0}; }
  static Error make(ErrorKind kind, std::string text) { return Error{std::move(text), 0, kind}; }
  static Error not_found(std::string text) { return make(ErrorKind::NotFound, std::move(text)); }
  static Error bad_input(std::string text) { return make(ErrorKind::BadInput, std::move(text)); }
  static Error unsupported(std::string text) { return make(ErrorKind::Unsupported, std::move(text)); }

  bool is(ErrorKind k) const { return kind == k; }

  // Prefix context: "reading checkpoint 4: <inner>"; kind and errno stay.
  Error context(const std::string& where) const {
    return Error{where + ": " + message, errno_value, kind};
  }

  // ENOENT/ENOTDIR are NotFound, ENOSYS/EOPNOTSUPP Unsupported, any other errno Io.
  static ErrorKind kind_of_errno(int err) {
    switch (err) {
      case ENOENT: case ENOTDIR: return ErrorKind::NotFound;
      case ENOSYS: case EOPNOTSUPP: return ErrorKind::Unsupported;
      default: return ErrorKind::Io;
    }
  }
};

inline const char* error_kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Internal: return "internal";
    case ErrorKind::NotFound: return "not found";
    case ErrorKind::BadInput: return "bad input";
    case ErrorKind::Unsupported: return "unsupported";
    case ErrorKind::Io: return "I/O";
  }
  return "internal";
}

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Error error) : v_(std::move(error)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const { return std::get<1>(v_); }
  Error take_error() { return std::get<1>(std::move(v_)); }
  // For best-effort reads whose failure has a plain answer.
  T value_or(T fallback) && { return ok() ? std::get<0>(std::move(v_)) : std::move(fallback); }

 private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : err_(std::move(error)) {}

  bool ok() const { return !err_.has_value(); }
  explicit operator bool() const { return ok(); }
  void value() const {}
  const Error& error() const { return *err_; }
  Error take_error() { return std::move(*err_); }

 private:
  std::optional<Error> err_;
};

using Status = Result<void>;

inline Status ok_status() { return Status(); }

}  // namespace slsdbg

// TRY(expr): evaluate a Result; on error return it from the enclosing
// function, otherwise yield the value (GCC/Clang statement expression).
#define SLSDBG_CONCAT_INNER(a, b) a##b
#define SLSDBG_CONCAT(a, b) SLSDBG_CONCAT_INNER(a, b)
#define TRY(expr)                                          \
  ({                                                       \
    auto SLSDBG_CONCAT(_try_, __LINE__) = (expr);          \
    if (!SLSDBG_CONCAT(_try_, __LINE__).ok())              \
      return SLSDBG_CONCAT(_try_, __LINE__).take_error();  \
    std::move(SLSDBG_CONCAT(_try_, __LINE__)).value();     \
  })

// TRY_CTX(expr, "context"): like TRY, prefixing the error with context.
#define TRY_CTX(expr, ctx)                                            \
  ({                                                                  \
    auto SLSDBG_CONCAT(_try_, __LINE__) = (expr);                     \
    if (!SLSDBG_CONCAT(_try_, __LINE__).ok())                         \
      return SLSDBG_CONCAT(_try_, __LINE__).error().context(ctx);     \
    std::move(SLSDBG_CONCAT(_try_, __LINE__)).value();                \
  })
