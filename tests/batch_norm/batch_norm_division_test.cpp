// WithDivisionBy (the kernels' division by an element count) gives x / count bit for bit,
// and takes the multiplication only for powers of two.
#include "ops/batch_norm/batch_norm_division.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

namespace {

uint64_t Bits(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

std::vector<double> Dividends() {
  std::vector<double> values = {0.0, -0.0, 1.0, -1.0, 3.0, 1.0 / 3.0, 0.1, 1e-300, -1e-310,
                                std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::min(),
                                std::numeric_limits<double>::max(), std::numeric_limits<double>::infinity(),
                                -std::numeric_limits<double>::infinity()};
  std::mt19937_64 random(7);
  for (int i = 0; i < 4000; ++i) {
    uint64_t bits = random();
    double value;
    std::memcpy(&value, &bits, sizeof value);
    if (!std::isnan(value)) values.push_back(value);
  }
  return values;
}

std::vector<double> Counts() {
  std::vector<double> counts;
  for (int count = 1; count <= 1100; ++count) counts.push_back(count);
  for (int k = 11; k <= 62; ++k) {
    const double power = std::ldexp(1.0, k);
    counts.insert(counts.end(), {power - 1.0, power, power + 1.0, 3.0 * power});
  }
  return counts;
}

TEST(BatchNormDivisionTest, EqualsDivisionBitForBit) {
  const std::vector<double> dividends = Dividends();
  for (double count : Counts()) {
    oa::bn::WithDivisionBy(count, [&](auto divide) {
      for (double x : dividends) {
        ASSERT_EQ(Bits(divide(x)), Bits(x / count)) << x << " / " << count;
      }
    });
    const double nan = std::numeric_limits<double>::quiet_NaN();
    oa::bn::WithDivisionBy(count, [&](auto divide) { EXPECT_TRUE(std::isnan(divide(nan))); });
  }
}

TEST(BatchNormDivisionTest, MultipliesOnlyForPowersOfTwo) {
  for (double count : Counts()) {
    int exponent = 0;
    const bool power_of_two = std::frexp(count, &exponent) == 0.5;
    bool multiplied = false;
    oa::bn::WithDivisionBy(count, [&](auto divide) {
      multiplied = std::is_same<decltype(divide), oa::bn::MultiplyByReciprocal>::value;
    });
    EXPECT_EQ(multiplied, power_of_two) << count;
  }
}

}  // namespace
