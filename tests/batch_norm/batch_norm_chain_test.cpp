// aclnn-only chain equivalence (no torch): aclnnBatchNorm -> aclnnFastBatchNormBackward
// against the SyncBN chain Stats -> GatherStatsWithCounts -> Elemt; ReduceBackward ->
// ElemtBackward (syncbn-flow.md), on one "rank" and on W = 3 ranks with unequal batches (one
// empty), both within the stated bound of the float64 reference of the whole layer (the
// bound and its derivation: bn_chain.h).
#include <gtest/gtest.h>

#include "batch_norm/bn_chain.h"

namespace {

using bnchain::ChainCase;
using bnchain::LayerInputs;
using bnchain::LayerRef;
using bnchain::LayerResult;
using bnchain::WithinBound;
using bnfam::Layout;

const ::testing::Environment* const kEnv = ::testing::AddGlobalTestEnvironment(new bntest::AclEnvironment);

void CheckLayer(const char* way, const LayerResult& got, const LayerRef& ref, double k, const ChainCase& c,
                double* worst) {
  const double roundoff = bnchain::Roundoff(c.io);
  EXPECT_TRUE(WithinBound("output", got.y, ref.y, k, worst, roundoff)) << way << ": " << c.Describe();
  EXPECT_TRUE(WithinBound("gradInput", got.dx, ref.dx, k, worst, roundoff)) << way << ": " << c.Describe();
  EXPECT_TRUE(WithinBound("gradWeight", got.dw, ref.dw, k, worst)) << way << ": " << c.Describe();
  EXPECT_TRUE(WithinBound("gradBias", got.db, ref.db, k, worst)) << way << ": " << c.Describe();
  if (got.has_running) {
    EXPECT_TRUE(WithinBound("runningMean", got.running_mean, ref.running_mean, k, worst))
        << way << ": " << c.Describe();
    EXPECT_TRUE(WithinBound("runningVar", got.running_var, ref.running_var, k, worst)) << way << ": " << c.Describe();
  }
}

std::vector<ChainCase> SingleRankCases() {
  std::vector<ChainCase> cases;
  uint64_t seed = 100;
  const std::vector<int64_t> shapes[] = {{8, 5, 6, 7}, {64, 12}, {16, 3, 40}, {4, 6, 3, 4, 5}};
  for (const auto& shape : shapes) {
    for (Layout layout : {Layout::kContiguous, Layout::kChannelsLast, Layout::kPermuted}) {
      ChainCase c;
      c.shape = shape;
      c.parts = {shape[0]};
      c.layout = layout;
      c.seed = ++seed;
      c.weight = seed % 3 != 0;
      c.bias = seed % 4 != 0;
      c.center = seed % 2 ? 0.5 : 3.0;
      cases.push_back(c);
    }
  }
  ChainCase far;  // |mean| >> spread: the fp32 rounding of the statistics dominates the bound
  far.shape = {32, 4, 50};
  far.parts = {32};
  far.center = 1e4;
  far.seed = 99;
  cases.push_back(far);
  return cases;
}

// W = 1: the SyncBN chain reproduces aclnnBatchNorm + aclnnFastBatchNormBackward.
TEST(BatchNormChain, SingleRankSyncBnMatchesBatchNorm) {
  double worst_direct = 0, worst_sync = 0;
  for (const ChainCase& c : SingleRankCases()) {
    const LayerInputs in(c);
    const LayerRef ref = bnchain::ComputeLayerRef(in);
    CheckLayer("direct", bnchain::RunDirect(in), ref, 8, c, &worst_direct);
    CheckLayer("syncbn W=1", bnchain::RunSyncBn(in), ref, 8, c, &worst_sync);
    if (HasFatalFailure()) return;
  }
  std::printf("worst error / (u*T): direct %.3g, SyncBN chain %.3g (bound 8)\n", worst_direct, worst_sync);
}

// W = 3 ranks of unequal size, one empty: the chain equals the single-device layer on the
// concatenated batch (within the multi-rank bound).
TEST(BatchNormChain, ThreeRanksUnequalBatchesMatchBatchNorm) {
  double worst_direct = 0, worst_sync = 0;
  uint64_t seed = 300;
  struct Split {
    std::vector<int64_t> shape, parts;
  };
  const Split splits[] = {
      {{9, 5, 6, 7}, {4, 0, 5}}, {{64, 12}, {50, 13, 1}}, {{7, 3, 40}, {0, 2, 5}}, {{6, 6, 3, 4, 5}, {3, 3, 0}}};
  for (const Split& s : splits) {
    for (Layout layout : {Layout::kContiguous, Layout::kChannelsLast, Layout::kStrided}) {
      ChainCase c;
      c.shape = s.shape;
      c.parts = s.parts;
      c.layout = layout;
      c.center = 2.0;
      c.seed = ++seed;
      const LayerInputs in(c);
      const LayerRef ref = bnchain::ComputeLayerRef(in);
      CheckLayer("direct", bnchain::RunDirect(in), ref, 8, c, &worst_direct);
      CheckLayer("syncbn W=3", bnchain::RunSyncBn(in), ref, 16, c, &worst_sync);
      if (HasFatalFailure()) return;
    }
  }
  std::printf("worst error / (u*T): direct %.3g, SyncBN W=3 %.3g (bounds 8, 16)\n", worst_direct, worst_sync);
}

// SyncBN's mixed precision: bf16/fp16 activations with fp32 statistics and sums, one rank
// and (with GatherStatsWithCounts) three; y and dx get one more rounding, into their format.
TEST(BatchNormChain, SixteenBitActivations) {
  double worst_direct = 0, worst_sync = 0;
  uint64_t seed = 500;
  for (aclDataType io : {ACL_BF16, ACL_FLOAT16}) {
    for (Layout layout : {Layout::kContiguous, Layout::kChannelsLast}) {
      for (bool several : {false, true}) {
        ChainCase c;
        c.shape = {9, 5, 6, 7};
        c.parts = several ? std::vector<int64_t>{4, 0, 5} : std::vector<int64_t>{9};
        c.io = io;
        c.layout = layout;
        c.center = 1.0;
        c.seed = ++seed;
        const LayerInputs in(c);
        const LayerRef ref = bnchain::ComputeLayerRef(in);
        CheckLayer("direct", bnchain::RunDirect(in), ref, 8, c, &worst_direct);
        CheckLayer("syncbn", bnchain::RunSyncBn(in), ref, several ? 16 : 8, c, &worst_sync);
        if (HasFatalFailure()) return;
      }
    }
  }
  std::printf("worst excess error / (u*T): direct %.3g, SyncBN %.3g\n", worst_direct, worst_sync);
}

}  // namespace
