#include "runtime/error.h"

#include <cstdio>
#include <deque>

#include "acl/acl_base.h"

namespace oa {
namespace {

// CANN keeps a short per-thread stack; the oldest messages drop out first.
constexpr size_t kMaxPendingMessages = 16;

struct ThreadErrors {
  std::deque<std::string> pending;  // oldest first
  std::string returned;             // storage behind the last aclGetRecentErrMsg result
};

ThreadErrors& Errors() {
  thread_local ThreadErrors errors;
  return errors;
}

std::string FormatV(const char* format, va_list args) {
  va_list copy;
  va_copy(copy, args);
  const int length = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  if (length <= 0) return std::string();
  std::string text(static_cast<size_t>(length) + 1, '\0');
  std::vsnprintf(&text[0], text.size(), format, args);
  text.resize(static_cast<size_t>(length));
  return text;
}

}  // namespace

void PushErrorMessageV(const char* format, va_list args) {
  ThreadErrors& errors = Errors();
  errors.pending.push_back(FormatV(format, args));
  if (errors.pending.size() > kMaxPendingMessages) errors.pending.pop_front();
}

void PushErrorMessage(const char* format, ...) {
  va_list args;
  va_start(args, format);
  PushErrorMessageV(format, args);
  va_end(args);
}

std::string NewestErrorMessage() {
  const ThreadErrors& errors = Errors();
  return errors.pending.empty() ? std::string() : errors.pending.back();
}

std::string Format(const char* format, ...) {
  va_list args;
  va_start(args, format);
  std::string text = FormatV(format, args);
  va_end(args);
  return text;
}

}  // namespace oa

extern "C" const char* aclGetRecentErrMsg(void) {
  oa::ThreadErrors& errors = oa::Errors();
  errors.returned.clear();
  // Newest first, as CANN documents.
  for (auto it = errors.pending.rbegin(); it != errors.pending.rend(); ++it) {
    if (!errors.returned.empty()) errors.returned += '\n';
    errors.returned += *it;
  }
  errors.pending.clear();
  return errors.returned.c_str();
}
