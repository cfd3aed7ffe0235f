#include "core/overlap.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "core/dtype.h"

namespace oa {
namespace {

using Wide = __int128;  // sums of byte offsets of views near 2^63 bytes cannot overflow

// Iterations of the search before it gives up (kUnknown); ordinary views need a few dozen.
constexpr int64_t kWorkLimit = int64_t{1} << 20;

Wide FloorDiv(Wide a, Wide b) {  // b > 0
  Wide q = a / b;
  if ((a % b) != 0 && a < 0) --q;
  return q;
}
Wide CeilDiv(Wide a, Wide b) { return -FloorDiv(-a, b); }
Wide Gcd(Wide a, Wide b) {
  while (b != 0) {
    const Wide t = a % b;
    a = b;
    b = t;
  }
  return a < 0 ? -a : a;
}

// Terms c * x with c > 0 and x in [low, high]; merged by coefficient, largest first.
struct Term {
  Wide coefficient;
  Wide low;
  Wide high;
};

class OverlapSolver {
 public:
  // Solutions must have some x != 0 when `need_nonzero` (two different elements of one view).
  OverlapSolver(std::vector<Term> terms, bool need_nonzero) : terms_(std::move(terms)), need_nonzero_(need_nonzero) {
    std::sort(terms_.begin(), terms_.end(), [](const Term& a, const Term& b) { return a.coefficient > b.coefficient; });
    const size_t n = terms_.size();
    rest_low_.assign(n + 1, 0);
    rest_high_.assign(n + 1, 0);
    rest_gcd_.assign(n + 1, 0);
    for (size_t i = n; i-- > 0;) {
      rest_low_[i] = rest_low_[i + 1] + terms_[i].coefficient * terms_[i].low;
      rest_high_[i] = rest_high_[i + 1] + terms_[i].coefficient * terms_[i].high;
      rest_gcd_[i] = Gcd(rest_gcd_[i + 1], terms_[i].coefficient);
    }
  }

  // Is there an assignment with sum c * x == target?
  Overlap Solve(Wide target) {
    work_ = 0;
    const bool found = Search(0, target, false);
    if (work_ > kWorkLimit) return Overlap::kUnknown;
    return found ? Overlap::kYes : Overlap::kNo;
  }

 private:
  bool Search(size_t level, Wide target, bool nonzero) {
    if (target < rest_low_[level] || target > rest_high_[level]) return false;
    if (rest_gcd_[level] != 0 && target % rest_gcd_[level] != 0) return false;
    if (level == terms_.size()) return target == 0 && (nonzero || !need_nonzero_);
    const Term& term = terms_[level];
    // x must leave a remainder the smaller terms can still reach.
    const Wide low = std::max(term.low, CeilDiv(target - rest_high_[level + 1], term.coefficient));
    const Wide high = std::min(term.high, FloorDiv(target - rest_low_[level + 1], term.coefficient));
    for (Wide x = low; x <= high; ++x) {
      if (++work_ > kWorkLimit) return false;
      if (Search(level + 1, target - term.coefficient * x, nonzero || x != 0)) return true;
    }
    return false;
  }

  std::vector<Term> terms_;
  bool need_nonzero_;
  std::vector<Wide> rest_low_, rest_high_, rest_gcd_;
  int64_t work_ = 0;
};

// Adds `sign * coefficient * x`, x in [0, count - 1], to the equation sum(terms) == target,
// keeping coefficients positive (x -> count - 1 - x flips a sign and moves the target).
void AddTerm(Wide coefficient, int64_t count, int sign, std::map<Wide, Wide>* merged, Wide* target) {
  if (count <= 1 || coefficient == 0) return;
  coefficient *= sign;
  const Wide reach = count - 1;
  if (coefficient < 0) {
    *target -= coefficient * reach;
    coefficient = -coefficient;
  }
  (*merged)[coefficient] += reach;  // x1 + x2 over equal coefficients covers [0, reach1 + reach2]
}

Wide ElementByteAddress(const aclTensor& t) {
  return static_cast<Wide>(reinterpret_cast<uintptr_t>(t.data)) +
         static_cast<Wide>(t.offset) * static_cast<Wide>(DataTypeSize(t.dtype));
}

}  // namespace

Overlap ViewsOverlap(const aclTensor& a, const aclTensor& b) {
  if (a.data == nullptr || b.data == nullptr || a.IsEmpty() || b.IsEmpty()) return Overlap::kNo;
  // Disjoint byte spans (the common case: separate buffers) cannot share a byte; only
  // interleaved views need the solver.
  const ByteSpan span_a = ViewByteSpan(a), span_b = ViewByteSpan(b);
  const Wide base_a = static_cast<Wide>(reinterpret_cast<uintptr_t>(a.data));
  const Wide base_b = static_cast<Wide>(reinterpret_cast<uintptr_t>(b.data));
  if (base_a + span_a.last < base_b + span_b.first || base_b + span_b.last < base_a + span_a.first) {
    return Overlap::kNo;
  }
  // Byte of a == byte of b:  base_a + sum(i * sa) + ba == base_b + sum(j * sb) + bb,
  // with ba, bb the byte inside each element. Every term moves to the left-hand side.
  std::map<Wide, Wide> merged;
  Wide target = ElementByteAddress(b) - ElementByteAddress(a);
  const auto add_view = [&](const aclTensor& t, int sign) {
    const Wide size = static_cast<Wide>(DataTypeSize(t.dtype));
    for (size_t i = 0; i < t.view_dims.size(); ++i) AddTerm(t.strides[i] * size, t.view_dims[i], sign, &merged, &target);
    AddTerm(1, static_cast<int64_t>(size), sign, &merged, &target);
  };
  add_view(a, +1);
  add_view(b, -1);
  std::vector<Term> terms;
  for (const auto& [coefficient, reach] : merged) terms.push_back({coefficient, 0, reach});
  return OverlapSolver(std::move(terms), false).Solve(target);
}

Overlap ViewOverlapsItself(const aclTensor& tensor) {
  if (tensor.IsEmpty()) return Overlap::kNo;
  // The common case without the search (and its allocations): dims whose |stride|, in
  // order, each reach past the whole extent of the dims after them (row-major, with or
  // without gaps) give every element its own address.
  bool nested = true;
  int64_t inner_extent = 1;  // elements spanned by the dims after the current one, plus one
  for (size_t i = tensor.view_dims.size(); i-- > 0 && nested;) {
    const int64_t size = tensor.view_dims[i];
    if (size <= 1) continue;
    const int64_t stride = tensor.strides[i] < 0 ? -tensor.strides[i] : tensor.strides[i];
    int64_t extent = 0;
    nested = stride >= inner_extent && !__builtin_mul_overflow(stride, size - 1, &extent) &&
             !__builtin_add_overflow(extent, inner_extent, &inner_extent);
  }
  if (nested) return Overlap::kNo;
  // Two elements i != j at one address: sum((i - j) * |stride|) == 0 with |i - j| < size.
  std::map<Wide, Wide> reach_by_stride;
  for (size_t i = 0; i < tensor.view_dims.size(); ++i) {
    if (tensor.view_dims[i] <= 1) continue;
    const Wide stride = tensor.strides[i] < 0 ? -static_cast<Wide>(tensor.strides[i]) : tensor.strides[i];
    if (stride == 0 || reach_by_stride.count(stride) != 0) return Overlap::kYes;  // step one way along one, back along the other
    reach_by_stride[stride] = tensor.view_dims[i] - 1;
  }
  std::vector<Term> terms;
  for (const auto& [stride, reach] : reach_by_stride) terms.push_back({stride, -reach, reach});
  return OverlapSolver(std::move(terms), true).Solve(0);
}

}  // namespace oa
