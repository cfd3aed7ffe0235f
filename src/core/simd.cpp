// One tiny per-target function tells which target dispatch picked; the environment
// variable OPENACLNN_SIMD forces a target at load time (tests use it to cover the baseline).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace oa {
namespace HWY_NAMESPACE {
const char* CompiledTargetName() { return hwy::TargetName(HWY_TARGET); }
}  // namespace HWY_NAMESPACE
}  // namespace oa
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <strings.h>

#include <cstdio>
#include <cstdlib>

#include "core/simd.h"

namespace oa {

HWY_EXPORT(CompiledTargetName);

std::string SimdTargetName() { return HWY_DYNAMIC_DISPATCH(CompiledTargetName)(); }

std::vector<std::string> SimdAvailableTargets() {
  std::vector<std::string> names;
  // SupportedAndGeneratedTargets lists lowest bit first, i.e. best target first on x86.
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) names.push_back(hwy::TargetName(target));
  return names;
}

bool ForceSimdTarget(const std::string& name) {
  hwy::SetSupportedTargetsForTest(0);  // back to what the CPU supports
  if (name.empty() || strcasecmp(name.c_str(), "best") == 0) {
    hwy::GetChosenTarget().Update(hwy::SupportedTargets());
    return true;
  }
  int64_t wanted = 0;
  if (strcasecmp(name.c_str(), "baseline") == 0) {
    wanted = HWY_STATIC_TARGET;
  } else {
    for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
      if (strcasecmp(name.c_str(), hwy::TargetName(target)) == 0) wanted = target;
    }
  }
  if (wanted == 0) return false;
  hwy::SetSupportedTargetsForTest(wanted);
  hwy::GetChosenTarget().Update(hwy::SupportedTargets());
  return true;
}

namespace {
// Applied when the library is loaded so every entry point sees the same choice.
struct SimdEnvironment {
  SimdEnvironment() {
    const char* requested = std::getenv("OPENACLNN_SIMD");
    if (requested != nullptr && *requested != '\0' && !ForceSimdTarget(requested)) {
      std::fprintf(stderr, "openaclnn: OPENACLNN_SIMD=%s is not an available target; using the best one\n",
                   requested);
    }
  }
};
const SimdEnvironment simd_environment;
}  // namespace

}  // namespace oa
#endif  // HWY_ONCE
