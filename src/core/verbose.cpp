#include "core/verbose.h"

#include "core/environment.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "core/dtype.h"
#include "core/handles.h"
#include "runtime/error.h"

namespace oa {
namespace {

int LevelFromEnvironment() {
  return static_cast<int>(IntegerVariable("OPENACLNN_VERBOSE", 0, 2, 0, "0 (no log)"));
}

std::atomic<int>& Level() {
  static std::atomic<int> level{LevelFromEnvironment()};
  return level;
}

// The log's file descriptor, opened at the first line: OPENACLNN_VERBOSE_FILE (appended
// to, so several processes can share one file) or stderr when unset or unopenable.
int LogDescriptor() {
  static const int descriptor = [] {
    const char* path = std::getenv("OPENACLNN_VERBOSE_FILE");
    if (path == nullptr || *path == '\0') return STDERR_FILENO;
    const int opened = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (opened < 0) {
      std::fprintf(stderr, "openaclnn: cannot open OPENACLNN_VERBOSE_FILE=%s; logging to stderr\n", path);
      return STDERR_FILENO;
    }
    return opened;
  }();
  return descriptor;
}

// Microseconds with two decimals ("12.34").
std::string Microseconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", seconds * 1e6);
  return text;
}

std::string JoinDims(const DimVector& values) {
  if (values.empty()) return "-";
  std::string text;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) text += 'x';
    text += std::to_string(values[i]);
  }
  return text;
}

void WriteVerboseLine(const char* kind, const std::string& fields) {
  std::string line = std::string("openaclnn_verbose,") + kind + "," + fields;
  for (char& c : line) {
    if (c == '\n') c = ' ';  // one event, one line
  }
  line += '\n';
  // O_APPEND writes of one buffer land whole; the mutex also keeps this process's lines
  // whole on stderr and on short writes.
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  const int descriptor = LogDescriptor();
  for (size_t written = 0; written < line.size();) {
    const ssize_t n = write(descriptor, line.data() + written, line.size() - written);
    if (n <= 0) return;  // a log must never fail the call it describes
    written += static_cast<size_t>(n);
  }
}

thread_local std::string t_planned_fields;  // the call this thread's phase 1 is planning

}  // namespace

int VerboseLevel() { return Level().load(std::memory_order_relaxed); }

void SetVerboseLevelForTesting(int level) { Level().store(level, std::memory_order_relaxed); }

std::string VerboseTensor(const char* name, const aclTensor& tensor) {
  return std::string(name) + ":" + DataTypeName(tensor.dtype) + ":" + FormatName(tensor.format) + ":" +
         JoinDims(tensor.view_dims) + ":" + JoinDims(tensor.strides);
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void LogExecution(const char* api, const std::string& fields, double seconds) noexcept {
  try {
    WriteVerboseLine("exec", std::string(api) + "," + fields + "," + Microseconds(seconds));
  } catch (...) {  // out of memory for the line: the run's own result matters more
  }
}

void LogRejectedCall(const char* api, aclnnStatus status) noexcept {
  if (VerboseLevel() < 2) return;
  try {
    WriteVerboseLine("reject", std::string(api) + "," + std::to_string(status) + "," + NewestErrorMessage());
  } catch (...) {  // as in LogExecution
  }
}

void NotePlannedCall(const std::string& fields) {
  if (VerboseLevel() >= 2) t_planned_fields = fields;
}

void LogPhase1(const char* api, aclnnStatus status, double seconds) noexcept {
  if (status != ACLNN_SUCCESS) {
    LogRejectedCall(api, status);
  } else if (!t_planned_fields.empty()) {
    try {
      WriteVerboseLine("plan", std::string(api) + "," + t_planned_fields + "," + Microseconds(seconds));
    } catch (...) {  // as in LogRejectedCall
    }
  }
  t_planned_fields.clear();
}

}  // namespace oa
