// Division by an element count in the batch-norm kernels' loops.
#pragma once

#include <hwy/base.h>  // HWY_INLINE

#include <cmath>

namespace oa {
namespace bn {

// x / count for a loop: by a power of two it is a multiplication by the exact reciprocal,
// which gives the same correctly rounded quotient for every x (the real values are equal)
// at a fraction of a division's cost; element counts such as a batch of 32 or a 16x16 plane
// are powers of two, and divisions are a large part of a small call's per-channel work.
// body(divide) runs with a functor of one kind or the other, so each loop vectorises.
struct DivideBy {
  double divisor;
  double operator()(double x) const { return x / divisor; }
};
struct MultiplyByReciprocal {
  double reciprocal;
  double operator()(double x) const { return x * reciprocal; }
};
template <class Body>
HWY_INLINE void WithDivisionBy(double count, const Body& body) {
  int exponent = 0;
  const bool power_of_two = std::frexp(count, &exponent) == 0.5 && exponent > -1021 && exponent < 1023;
  if (power_of_two) return body(MultiplyByReciprocal{1.0 / count});
  body(DivideBy{count});
}

}  // namespace bn
}  // namespace oa
