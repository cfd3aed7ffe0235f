// The exact overlap search (core/overlap.h) against brute force: every byte of every
// element enumerated, on thousands of random small views, plus the views that matter in
// practice (channel splits, interleaves, transposed aliases) and addresses near 2^64.
#include "core/overlap.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>
#include <vector>

namespace {

aclTensor View(uintptr_t base, std::vector<int64_t> dims, std::vector<int64_t> strides, int64_t offset = 0,
               aclDataType dtype = ACL_FLOAT) {
  aclTensor t;
  t.view_dims = std::move(dims);
  t.strides = std::move(strides);
  t.offset = offset;
  t.dtype = dtype;
  t.data = reinterpret_cast<void*>(base);  // never dereferenced
  return t;
}

// Byte addresses of every element (each element's first byte, and all of its bytes).
std::vector<uintptr_t> ElementAddresses(const aclTensor& t) {
  std::vector<uintptr_t> addresses;
  const int64_t size = t.dtype == ACL_FLOAT ? 4 : 2;
  std::vector<int64_t> index(t.view_dims.size(), 0);
  if (t.IsEmpty()) return addresses;
  for (;;) {
    int64_t element = t.offset;
    for (size_t i = 0; i < index.size(); ++i) element += index[i] * t.strides[i];
    addresses.push_back(reinterpret_cast<uintptr_t>(t.data) + static_cast<uintptr_t>(element * size));
    size_t k = index.size();
    while (k > 0 && ++index[k - 1] == t.view_dims[k - 1]) index[--k] = 0;
    if (k == 0) return addresses;
  }
}

bool BruteForceOverlap(const aclTensor& a, const aclTensor& b) {
  std::set<uintptr_t> bytes;
  for (uintptr_t address : ElementAddresses(a)) {
    for (int k = 0; k < (a.dtype == ACL_FLOAT ? 4 : 2); ++k) bytes.insert(address + k);
  }
  for (uintptr_t address : ElementAddresses(b)) {
    for (int k = 0; k < (b.dtype == ACL_FLOAT ? 4 : 2); ++k) {
      if (bytes.count(address + k)) return true;
    }
  }
  return false;
}

bool BruteForceSelfOverlap(const aclTensor& t) {
  const std::vector<uintptr_t> addresses = ElementAddresses(t);
  return std::set<uintptr_t>(addresses.begin(), addresses.end()).size() != addresses.size();
}

aclTensor RandomView(std::mt19937_64& rng, uintptr_t base) {
  std::uniform_int_distribution<int> rank_dist(1, 4), size_dist(0, 4), stride_dist(-7, 7), offset_dist(0, 40);
  const int rank = rank_dist(rng);
  std::vector<int64_t> dims, strides;
  for (int i = 0; i < rank; ++i) {
    dims.push_back(size_dist(rng) == 0 ? 1 : size_dist(rng) + 1);
    strides.push_back(stride_dist(rng));
  }
  return View(base, dims, strides, offset_dist(rng) + 30, rng() % 2 ? ACL_FLOAT : ACL_FLOAT16);
}

TEST(OverlapTest, AgreesWithBruteForceOnRandomViewPairs) {
  std::mt19937_64 rng(7);
  int overlapping = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const aclTensor a = RandomView(rng, 4096 + rng() % 5);
    const aclTensor b = RandomView(rng, 4096 + rng() % 5);
    const bool expected = BruteForceOverlap(a, b);
    overlapping += expected;
    ASSERT_EQ(oa::ViewsOverlap(a, b), expected ? oa::Overlap::kYes : oa::Overlap::kNo) << "trial " << trial;
  }
  EXPECT_GT(overlapping, 2000);  // both answers are exercised
  EXPECT_LT(overlapping, 18000);
}

TEST(OverlapTest, AgreesWithBruteForceOnSelfOverlap) {
  std::mt19937_64 rng(11);
  int overlapping = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const aclTensor t = RandomView(rng, 4096);
    const bool expected = BruteForceSelfOverlap(t);
    overlapping += expected;
    ASSERT_EQ(oa::ViewOverlapsItself(t), expected ? oa::Overlap::kYes : oa::Overlap::kNo) << "trial " << trial;
  }
  EXPECT_GT(overlapping, 2000);
  EXPECT_LT(overlapping, 18000);
}

TEST(OverlapTest, ChannelSplitAndInterleaveAreDisjoint) {
  // x = buf[:, 0:C], dx = buf[:, C:2C] of one [N, 2C, L] buffer.
  const int64_t n = 32, c = 64, l = 3136;
  const aclTensor x = View(1 << 20, {n, c, l}, {2 * c * l, l, 1});
  const aclTensor dx = View(1 << 20, {n, c, l}, {2 * c * l, l, 1}, c * l);
  EXPECT_EQ(oa::ViewsOverlap(x, dx), oa::Overlap::kNo);
  const aclTensor dx_shifted = View(1 << 20, {n, c, l}, {2 * c * l, l, 1}, c * l - 1);
  EXPECT_EQ(oa::ViewsOverlap(x, dx_shifted), oa::Overlap::kYes);
  // x = buf[0::2], dx = buf[1::2]; and the same in bf16 against fp32 bytes.
  const aclTensor even = View(1 << 20, {1 << 20}, {2});
  const aclTensor odd = View(1 << 20, {1 << 20}, {2}, 1);
  EXPECT_EQ(oa::ViewsOverlap(even, odd), oa::Overlap::kNo);
  EXPECT_EQ(oa::ViewsOverlap(even, even), oa::Overlap::kYes);
  const aclTensor odd_half = View(1 << 20, {1 << 20}, {4}, 2, ACL_BF16);  // bytes 4..5 of each 8
  EXPECT_EQ(oa::ViewsOverlap(even, odd_half), oa::Overlap::kNo);
}

TEST(OverlapTest, TransposedAliasOverlapsItself) {
  // D stride == H stride: element (d, h) and (h, d) share an address.
  EXPECT_EQ(oa::ViewOverlapsItself(View(4096, {1, 1, 4, 4, 8}, {128, 128, 8, 8, 1})), oa::Overlap::kYes);
  EXPECT_EQ(oa::ViewOverlapsItself(View(4096, {1, 1, 4, 4, 8}, {128, 128, 32, 8, 1})), oa::Overlap::kNo);
  // Interlocking strides that still never collide: [2, 3] with strides [3, 2].
  EXPECT_EQ(oa::ViewOverlapsItself(View(4096, {2, 3}, {3, 2})), oa::Overlap::kNo);
  EXPECT_EQ(oa::ViewOverlapsItself(View(4096, {3, 3}, {3, 2})), oa::Overlap::kNo);
  EXPECT_EQ(oa::ViewOverlapsItself(View(4096, {3, 4}, {3, 2})), oa::Overlap::kYes);  // 2 * 3 == 3 * 2
}

TEST(OverlapTest, AddressesNearTheTopOfTheAddressSpaceDoNotOverflow) {
  const uintptr_t top = UINTPTR_MAX - (uintptr_t{1} << 40);
  const int64_t huge = int64_t{1} << 60;  // strides near 2^62 bytes
  const aclTensor a = View(top, {2, 3}, {huge, 1});
  const aclTensor b = View(top, {2, 3}, {huge, 1}, 3);
  EXPECT_EQ(oa::ViewsOverlap(a, b), oa::Overlap::kNo);
  const aclTensor low = View(4096, {2}, {huge});
  EXPECT_EQ(oa::ViewsOverlap(a, low), oa::Overlap::kNo);
  EXPECT_EQ(oa::ViewsOverlap(a, a), oa::Overlap::kYes);
}

}  // namespace
