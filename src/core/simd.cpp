// One tiny per-target function tells which target dispatch picked; the environment
// variable OPENACLNN_SIMD forces a target (read once, before the first plan is made).
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
#include <mutex>

#include "core/simd.h"

#include "core/environment.h"

namespace oa {

HWY_EXPORT(CompiledTargetName);

std::string SimdTargetName() { return HWY_DYNAMIC_DISPATCH(CompiledTargetName)(); }

namespace {
// What this CPU runs of the compiled targets, best first (SupportedAndGeneratedTargets lists
// the lowest bit first, i.e. the best target on x86). Computed before any target is forced:
// forcing narrows what Highway reports as supported.
const std::vector<int64_t>& CpuTargets() {
  static const std::vector<int64_t> targets = [] {
    std::vector<int64_t> list;
    for (int64_t target : hwy::SupportedAndGeneratedTargets()) list.push_back(target);
    return list;
  }();
  return targets;
}
}  // namespace

std::vector<std::string> SimdAvailableTargets() {
  std::vector<std::string> names;
  for (int64_t target : CpuTargets()) names.push_back(hwy::TargetName(target));
  return names;
}

std::string SimdBaselineTargetName() { return hwy::TargetName(HWY_STATIC_TARGET); }

std::string ResolveSimdTarget(const std::string& name) {
  if (name.empty() || strcasecmp(name.c_str(), "best") == 0) return hwy::TargetName(CpuTargets().front());
  if (strcasecmp(name.c_str(), "baseline") == 0) return SimdBaselineTargetName();
  for (int64_t target : CpuTargets()) {
    if (strcasecmp(name.c_str(), hwy::TargetName(target)) == 0) return hwy::TargetName(target);
  }
  return {};
}

bool ForceSimdTarget(const std::string& name) {
  const std::string resolved = ResolveSimdTarget(name);
  if (resolved.empty()) return false;
  int64_t wanted = HWY_STATIC_TARGET;
  for (int64_t target : CpuTargets()) {
    if (resolved == hwy::TargetName(target)) wanted = target;
  }
  const bool best = wanted == CpuTargets().front();
  hwy::SetSupportedTargetsForTest(best ? 0 : wanted);  // 0: back to what the CPU supports
  hwy::GetChosenTarget().Update(hwy::SupportedTargets());
  return true;
}

namespace {
std::once_flag g_environment_applied;
}  // namespace

void ApplySimdEnvironment() {
  // Explicit, not a static initializer: a static archive drops an unreferenced object file
  // together with its initializers, and then OPENACLNN_SIMD would silently do nothing.
  std::call_once(g_environment_applied, [] {
    const char* requested = std::getenv("OPENACLNN_SIMD");
    if (requested != nullptr && *requested != '\0' && !ForceSimdTarget(requested)) {
      std::string accepted = "best, baseline";
      for (const std::string& target : SimdAvailableTargets()) accepted += ", " + target;
      accepted = "a target this CPU runs (" + accepted + ")";
      WarnAboutVariable("OPENACLNN_SIMD", requested, accepted.c_str(), "the best one");
    }
  });
}

std::string ActiveSimdTarget() {
  ApplySimdEnvironment();
  return SimdTargetName();
}

}  // namespace oa
#endif  // HWY_ONCE
