// Deterministic pseudo-random fills (same seed, same values on every machine and compiler:
// SplitMix64 plus our own mapping to [lo, hi), no <random> distributions).
#pragma once

#include <cstdint>
#include <vector>

#include "core/dtype.h"
#include "core/half.h"

namespace support {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1) with 53 random bits.
  double NextUnit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  double NextIn(double lo, double hi) { return lo + (hi - lo) * NextUnit(); }

 private:
  uint64_t state_;
};

inline void FillUniform(float* data, int64_t count, uint64_t seed, double lo = -1.0, double hi = 1.0) {
  SplitMix64 rng(seed);
  for (int64_t i = 0; i < count; ++i) data[i] = static_cast<float>(rng.NextIn(lo, hi));
}

inline void FillUniform(double* data, int64_t count, uint64_t seed, double lo = -1.0, double hi = 1.0) {
  SplitMix64 rng(seed);
  for (int64_t i = 0; i < count; ++i) data[i] = rng.NextIn(lo, hi);
}

// 16-bit fills round the fp32 value to nearest even (the conversions are checked bit for bit
// against torch by tests/oracle/oracle_conversion_test).
inline void FillUniform(oa::Half16* data, int64_t count, uint64_t seed, double lo = -1.0, double hi = 1.0) {
  SplitMix64 rng(seed);
  for (int64_t i = 0; i < count; ++i) data[i].bits = oa::FloatToHalf(static_cast<float>(rng.NextIn(lo, hi)));
}

inline void FillUniform(oa::BFloat16* data, int64_t count, uint64_t seed, double lo = -1.0, double hi = 1.0) {
  SplitMix64 rng(seed);
  for (int64_t i = 0; i < count; ++i) data[i].bits = oa::FloatToBf16(static_cast<float>(rng.NextIn(lo, hi)));
}

// Raw 16-bit storage (aclFloat16, uint16_t buffers): say which format.
inline void FillUniformHalfBits(uint16_t* data, int64_t count, uint64_t seed, double lo = -1.0, double hi = 1.0) {
  FillUniform(reinterpret_cast<oa::Half16*>(data), count, seed, lo, hi);
}
inline void FillUniformBf16Bits(uint16_t* data, int64_t count, uint64_t seed, double lo = -1.0, double hi = 1.0) {
  FillUniform(reinterpret_cast<oa::BFloat16*>(data), count, seed, lo, hi);
}

template <typename T>
std::vector<T> RandomVector(int64_t count, uint64_t seed, double lo = -1.0, double hi = 1.0) {
  std::vector<T> values(static_cast<size_t>(count));
  FillUniform(values.data(), count, seed, lo, hi);
  return values;
}

}  // namespace support
