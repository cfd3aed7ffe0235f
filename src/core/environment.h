// The library's environment variables, read one way: a value outside a variable's accepted
// set is never silently ignored; it prints one line on stderr naming the variable, the
// value, what is accepted and what is used instead (docs/environment.md lists them all).
#pragma once

#include <cstdint>

namespace oa {

// The integer value of `name` when it is set to one in [min, max]; `fallback` when unset or
// empty; otherwise the warning line ("openaclnn: NAME=VALUE is not an integer in [min,
// max]; using <fallback_description>") and `fallback`.
int64_t IntegerVariable(const char* name, int64_t min, int64_t max, int64_t fallback,
                        const char* fallback_description);

// Prints the warning line for a variable whose value is not accepted.
void WarnAboutVariable(const char* name, const char* value, const char* accepted, const char* used_instead);

}  // namespace oa
