// Errors for untrusted input: Status (success or a message) and Expected<T>
// (a value or a Status). Broken invariants use TRIT_CHECK (check.h) instead.
//
// A message names the thing that was wrong and what was expected, e.g.
//   tensor 'blk.3.attn_q.weight': data [812345, +4096) runs past end of file (800000 bytes)
#pragma once

#include <fmt/format.h>

#include <string>
#include <utility>
#include <variant>

namespace trit {

enum class ErrorCode {
  kOk = 0,
  kInvalidArgument,  // the caller asked for something that cannot be (bad flag, bad type name)
  kNotFound,         // a file, key or tensor that is not there
  kIo,               // the operating system refused (open, read, write, rename)
  kCorrupt,          // bytes that do not follow their format
  kUnsupported,      // well-formed, but beyond what trit implements
};

std::string_view ErrorCodeName(ErrorCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // success
  Status(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == ErrorCode::kOk; }
  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Returns a copy whose message is "<context>: <message>", for adding the
  // name of the enclosing thing (a file path, a tensor) as an error travels up.
  Status WithContext(std::string_view context) const;

 private:
  ErrorCode code_ = ErrorCode::kOk;
  std::string message_;
};

template <typename... Args>
Status Error(ErrorCode code, fmt::format_string<Args...> format, Args&&... args) {
  return Status(code, fmt::format(format, std::forward<Args>(args)...));
}

// A value or the Status that explains why there is none.
template <typename T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Expected(Status status) : v_(std::move(status)) {  // NOLINT: implicit by design
    if (std::get<Status>(v_).ok()) {
      v_ = Status(ErrorCode::kInvalidArgument, "internal error: Expected built from an OK status");
    }
  }

  bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }

  // Precondition: ok().
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  // The error; an OK status when there is a value.
  Status status() const { return ok() ? Status() : std::get<Status>(v_); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace trit

// Returns the Status of `expr` from the enclosing function when it is an
// error: `TRIT_RETURN_IF_ERROR(cursor.Read(&n));` for
// `if (Status s = cursor.Read(&n); !s.ok()) return s;`. The enclosing
// function returns a Status or an Expected<T>.
#define TRIT_RETURN_IF_ERROR(expr)                                              \
  do {                                                                          \
    if (::trit::Status trit_status_ = (expr); !trit_status_.ok()) return trit_status_; \
  } while (0)

// Evaluates `expr` (an Expected<T>); on an error returns its Status from the
// enclosing function, else moves the value into `lhs`, which may declare a
// variable: `TRIT_ASSIGN_OR_RETURN(gguf::File file, gguf::File::Open(path));`.
// One statement, not an expression: it cannot be the body of an unbraced if.
#define TRIT_ASSIGN_OR_RETURN(lhs, expr) \
  TRIT_ASSIGN_OR_RETURN_IMPL_(TRIT_STATUS_CONCAT_(trit_expected_, __LINE__), lhs, expr)
#define TRIT_STATUS_CONCAT_INNER_(a, b) a##b
#define TRIT_STATUS_CONCAT_(a, b) TRIT_STATUS_CONCAT_INNER_(a, b)
#define TRIT_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return tmp.status();               \
  lhs = std::move(tmp).value()
