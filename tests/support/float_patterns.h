// fp32 bit patterns that exercise narrowing to fp16/bf16: every rounding tie, the values
// next to it, thresholds, fp32 subnormals, infinities and NaNs; and strided samples of all
// 2^32 patterns.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "support/compare.h"

namespace support {

inline void AddWithNeighbours(std::vector<uint32_t>* patterns, uint32_t bits) {
  for (uint32_t sign : {0u, 0x80000000u}) {
    patterns->push_back(bits | sign);
    patterns->push_back((bits + 1) | sign);
    patterns->push_back((bits - 1) | sign);
  }
}

// Every exact tie between two neighbouring 16-bit values and the fp32 values just above and
// below it, both signs, both formats; the 16-bit values themselves and their neighbours;
// the overflow and underflow thresholds; fp32 subnormals; infinities and many NaNs.
inline std::vector<uint32_t> BoundaryFloatPatterns() {
  std::vector<uint32_t> patterns;
  // fp16: the midpoint of h and h+1 for every non-negative finite h. 0x7BFF's upper
  // neighbour is 65536, so its midpoint 65520 is the overflow threshold; the midpoint of 0
  // and the smallest subnormal is the underflow threshold. Midpoints need 12 significant
  // bits, so they are exact in fp32.
  for (uint32_t h = 0; h <= 0x7BFF; ++h) {
    const double low = HalfBitsToDouble(static_cast<uint16_t>(h));
    const double high = h == 0x7BFF ? 65536.0 : HalfBitsToDouble(static_cast<uint16_t>(h + 1));
    const float middle = static_cast<float>((low + high) / 2);
    const float value = static_cast<float>(low);
    uint32_t bits;
    std::memcpy(&bits, &middle, 4);
    AddWithNeighbours(&patterns, bits);
    std::memcpy(&bits, &value, 4);
    AddWithNeighbours(&patterns, bits);
  }
  // bf16: the tie is the 16 dropped bits equal to 0x8000.
  for (uint32_t b = 0; b <= 0x7F7F; ++b) {
    AddWithNeighbours(&patterns, (b << 16) | 0x8000u);
    AddWithNeighbours(&patterns, b << 16);
  }
  // fp32 subnormals, both ends of their range.
  for (uint32_t bits = 1; bits < 4096; ++bits) {
    AddWithNeighbours(&patterns, bits);
    AddWithNeighbours(&patterns, 0x00800000u - bits);
  }
  // Zero, infinities and NaNs: quiet, signalling, payload only in the low bits (which
  // truncation would turn into infinity), payload only in the high bits; FLT_MAX, FLT_MIN.
  const uint32_t specials[] = {0x00000000u, 0x7F800000u, 0x7FC00000u, 0x7F800001u, 0x7F801000u,
                               0x7F802000u, 0x7FA00000u, 0x7FBFFFFFu, 0x7FFFFFFFu, 0x7FC00001u,
                               0x7F7FFFFFu, 0x00800000u, 0x7F810000u, 0x7F808000u, 0x7F8000FFu};
  for (uint32_t bits : specials) {
    patterns.push_back(bits);
    patterns.push_back(bits | 0x80000000u);
  }
  return patterns;
}

// start, start + stride, ... up to 0xFFFFFFFF. A prime stride (e.g. 4099) visits every
// residue of the low mantissa bits.
inline std::vector<uint32_t> StridedFloatPatterns(uint64_t stride, uint64_t start = 0) {
  std::vector<uint32_t> patterns;
  for (uint64_t bits = start; bits <= 0xFFFFFFFFull; bits += stride) patterns.push_back(static_cast<uint32_t>(bits));
  return patterns;
}

inline std::vector<float> PatternsAsFloats(const std::vector<uint32_t>& patterns) {
  std::vector<float> values(patterns.size());
  if (!patterns.empty()) std::memcpy(values.data(), patterns.data(), patterns.size() * 4);
  return values;
}

}  // namespace support
