// Runtime SIMD target selection (Highway dynamic dispatch) and what it picked.
#pragma once

#include <string>
#include <vector>

namespace oa {

// Applies OPENACLNN_SIMD once per process (later calls do nothing). aclInit and every
// planner call it, so the variable takes effect before any kernel is dispatched.
void ApplySimdEnvironment();
// The target phase 1 plans for: applies the environment, then names the dispatched target.
std::string ActiveSimdTarget();

// Name of the target that dynamic dispatch uses now ("AVX3", "AVX2", "SSE4", "EMU128", ...).
std::string SimdTargetName();
// Targets compiled into the library that this CPU can run, best first (whatever is forced).
std::vector<std::string> SimdAvailableTargets();
// The portable target every machine runs ("SCALAR" or "EMU128").
std::string SimdBaselineTargetName();
// The target name ForceSimdTarget(name) would dispatch to ("best", "baseline" or a target
// name, any case); empty if this CPU does not run it.
std::string ResolveSimdTarget(const std::string& name);
// Restricts dispatch to one target: "best" (undo), "baseline" (the portable fallback
// every machine runs), or a name from SimdAvailableTargets(). False if not available.
bool ForceSimdTarget(const std::string& name);

}  // namespace oa
