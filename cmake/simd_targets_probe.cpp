// Configure-time probe: prints the SIMD targets the library compiles that this CPU runs,
// best first, separated by ';'. HWY_DISABLED_TARGETS comes from the same compile definition
// as the library's (see src/CMakeLists.txt), so the two lists agree.
#include <hwy/targets.h>

#include <cstdio>

int main() {
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) std::printf("%s;", hwy::TargetName(target));
  return 0;
}
