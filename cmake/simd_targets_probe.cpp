// Configure-time probe: prints the SIMD targets the library compiles that this CPU runs,
// best first, separated by ';'. With --compiled it prints every target the library compiles
// instead, whatever this CPU runs (the cross build: the emulated CPU model is chosen per test
// run, see cmake/OpenaclnnTesting.cmake). HWY_DISABLED_TARGETS comes from the same compile
// definition as the library's (see src/CMakeLists.txt), so the lists agree. With
// --all-but-best it prints the mask of the compiled targets other than the best one this
// CPU runs and Highway's static baseline (OPENACLNN_SIMD_TARGETS=best disables them), with
// --unsupported the mask of those this CPU does not run (OPENACLNN_SIMD_TARGETS=supported).
#include <hwy/highway.h>
#include <hwy/targets.h>

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--all-but-best") == 0) {
    const int64_t best = hwy::SupportedAndGeneratedTargets().front();
    std::printf("0x%llxLL", static_cast<unsigned long long>(HWY_TARGETS & ~(best | HWY_STATIC_TARGET)));
    return 0;
  }
  if (argc > 1 && std::strcmp(argv[1], "--unsupported") == 0) {
    int64_t supported = HWY_STATIC_TARGET;
    for (int64_t target : hwy::SupportedAndGeneratedTargets()) supported |= target;
    std::printf("0x%llxLL", static_cast<unsigned long long>(HWY_TARGETS & ~supported));
    return 0;
  }
  if (argc > 1 && std::strcmp(argv[1], "--compiled") == 0) {
    // Lower bits are better targets; HWY_TARGETS holds the compiled ones.
    for (int bit = 0; bit < 63; ++bit) {
      const int64_t target = int64_t{1} << bit;
      if ((HWY_TARGETS & target) != 0) std::printf("%s;", hwy::TargetName(target));
    }
    return 0;
  }
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) std::printf("%s;", hwy::TargetName(target));
  return 0;
}
