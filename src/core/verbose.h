// OPENACLNN_VERBOSE: one CSV-like line per operator event, for logs that grep and parse.
//   openaclnn_verbose,exec,<api>,<simd>,<threads>,<kernel>,<tensors>,<workspace>,<time_us>
//   openaclnn_verbose,plan,<api>,<simd>,<threads>,<kernel>,<tensors>,<workspace>,<time_us>   (level 2)
//   openaclnn_verbose,reject,<api>,<status>,<message>                                       (level 2)
// The README documents every field. With the variable unset or 0 the only cost is reading
// an integer at each call.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "aclnn/aclnn_base.h"

namespace oa {

// 0 (off), 1 (exec lines) or 2 (also plan and reject lines): OPENACLNN_VERBOSE, read once.
int VerboseLevel();
// Tests switch levels within one process; the environment variable is for everyone else.
void SetVerboseLevelForTesting(int level);

// "gradOut:float32:NCDHW:1x2x4x4x4:128x64x16x4x1" — the compact form of a tensor in a line
// (dims and strides joined by 'x', a 0-D tensor shows "-").
std::string VerboseTensor(const char* name, const aclTensor& tensor);

// Time from `start` to now (the plan and exec lines' time).
double SecondsSince(std::chrono::steady_clock::time_point start);

// The lines. Each is written whole with one write() call (lines from concurrent streams
// never interleave) to OPENACLNN_VERBOSE_FILE, or stderr; a line that cannot be made or
// written is dropped, never turned into a failure of the call it describes.
// An exec line: `fields` from phase 1, then the run's time.
void LogExecution(const char* api, const std::string& fields, double seconds) noexcept;
// The verbose end of a failed phase-1 or phase-2 call: at level 2, a reject line with the
// status and the newest error message (left in place for aclGetRecentErrMsg).
void LogRejectedCall(const char* api, aclnnStatus status) noexcept;

// Phase 1 at level 2: PublishExecutor notes the fields of the call it planned, and
// CatchAll (which wraps every GetWorkspaceSize) writes the plan line with the phase's time,
// or the reject line.
void NotePlannedCall(const std::string& fields);
void LogPhase1(const char* api, aclnnStatus status, double seconds) noexcept;

}  // namespace oa
