// Every fuzzed call runs on a SIMD target the input chooses (its last byte), so one fuzz run
// covers the AVX-512, AVX2, SSE4 and scalar kernels, not only the best target.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/simd.h"

inline void SelectSimdTarget(const uint8_t* data, size_t size) {
  static const std::vector<std::string> targets = oa::SimdAvailableTargets();
  const uint8_t choice = size > 0 ? data[size - 1] : 0;
  oa::ForceSimdTarget(targets[choice % targets.size()]);
}
