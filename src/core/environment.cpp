#include "core/environment.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace oa {

void WarnAboutVariable(const char* name, const char* value, const char* accepted, const char* used_instead) {
  std::fprintf(stderr, "openaclnn: %s=%s is not %s; using %s\n", name, value, accepted, used_instead);
}

int64_t IntegerVariable(const char* name, int64_t min, int64_t max, int64_t fallback,
                        const char* fallback_description) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text, &end, 10);
  if (errno == 0 && end != text && *end == '\0' && value >= min && value <= max) return value;
  const std::string accepted =
      "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  WarnAboutVariable(name, text, accepted.c_str(), fallback_description);
  return fallback;
}

}  // namespace oa
