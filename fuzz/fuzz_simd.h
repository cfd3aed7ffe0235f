// Every fuzzed call runs on a SIMD target the input chooses (its last byte), so one fuzz run
// covers the AVX-512, AVX2, SSE4 and scalar kernels, not only the best target. With
// OPENACLNN_FUZZ_EVERY_TARGET=1 each input runs on every target in turn (make fuzz replays
// the inputs of past findings that way).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/simd.h"

template <typename Body>
int RunOnSimdTargets(const uint8_t* data, size_t size, Body body) {
  static const std::vector<std::string> targets = oa::SimdAvailableTargets();
  static const bool every = [] {
    const char* value = std::getenv("OPENACLNN_FUZZ_EVERY_TARGET");
    return value != nullptr && std::strcmp(value, "1") == 0;
  }();
  if (every) {
    for (const std::string& target : targets) {
      oa::ForceSimdTarget(target);
      body();
    }
    return 0;
  }
  oa::ForceSimdTarget(targets[(size > 0 ? data[size - 1] : 0) % targets.size()]);
  body();
  return 0;
}
