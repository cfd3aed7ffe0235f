// Runtime SIMD target selection (Highway dynamic dispatch) and what it picked.
#pragma once

#include <string>
#include <vector>

namespace oa {

// Name of the target that dynamic dispatch uses now ("AVX3", "AVX2", "SSE4", "EMU128", ...).
std::string SimdTargetName();
// Targets compiled into the library that this CPU can run, best first.
std::vector<std::string> SimdAvailableTargets();
// Restricts dispatch to one target: "best" (undo), "baseline" (the portable fallback
// every machine runs), or a name from SimdAvailableTargets(). False if not available.
bool ForceSimdTarget(const std::string& name);

}  // namespace oa
