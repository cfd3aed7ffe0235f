// The batch-norm family's one format rule (review item 5; docs/batch_norm_family.md): on
// every entry point, any non-private label is accepted on the activation tensors (HWCN and
// UNDEFINED included; the label never moves the channel axis), private labels are refused
// on every tensor the call reads or writes, and the activation tensors of one call must
// carry the same label. Part of batch_norm_api_test (its environment initialises the runtime).
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "aclnnop/aclnn_batch_norm.h"
#include "aclnnop/aclnn_batch_norm_backward.h"
#include "aclnnop/aclnn_batch_norm_backward_reduce.h"
#include "aclnnop/aclnn_batch_norm_elemt.h"
#include "aclnnop/aclnn_batch_norm_elemt_backward.h"
#include "aclnnop/aclnn_batch_norm_gather_stats_with_counts.h"
#include "aclnnop/aclnn_batch_norm_stats.h"
#include "aclnnop/aclnn_fast_batch_norm_backward.h"

namespace {

constexpr int64_t kC = 3;

// Buffers for one call; tensors are made per call with the labels it asks for.
struct Buffers {
  std::vector<float> x = std::vector<float>(2 * kC * 4, 0.5f), dy = x, out = x;
  std::vector<float> vec[8];
  std::vector<int32_t> counter = std::vector<int32_t>(2, 4);
  Buffers() {
    for (auto& v : vec) v.assign(2 * kC, 1.0f);
  }
};

// The labels of one call: `act[k]` for its k-th activation tensor, `other` for the one
// per-channel tensor under test (index `other_index`, -1: none), ND for every other one.
struct Labels {
  aclFormat act[3] = {ACL_FORMAT_ND, ACL_FORMAT_ND, ACL_FORMAT_ND};
  int other_index = -1;
  aclFormat other = ACL_FORMAT_ND;
};

class Call {
 public:
  Call(Buffers& b, const Labels& l) : b_(b), l_(l) {}
  ~Call() {
    for (aclTensor* t : made_) aclDestroyTensor(t);
  }
  aclTensor* Act(int k, std::vector<float>& data) { return Make({2, kC, 4}, ACL_FLOAT, l_.act[k], data.data()); }
  aclTensor* Vec(int k) {
    return Make({kC}, ACL_FLOAT, k == l_.other_index ? l_.other : ACL_FORMAT_ND, b_.vec[k].data());
  }
  aclTensor* Matrix(int k) {  // [W = 2, C] statistics of GatherStatsWithCounts
    return Make({2, kC}, ACL_FLOAT, k == l_.other_index ? l_.other : ACL_FORMAT_ND, b_.vec[k].data());
  }
  aclTensor* Counts(int k) {  // [W = 2] float counts of GatherStatsWithCounts
    return Make({2}, ACL_FLOAT, k == l_.other_index ? l_.other : ACL_FORMAT_ND, b_.vec[k].data());
  }
  aclTensor* Counter() {
    return Make({2}, ACL_INT32, 7 == l_.other_index ? l_.other : ACL_FORMAT_ND, b_.counter.data());
  }

 private:
  aclTensor* Make(std::vector<int64_t> dims, aclDataType dtype, aclFormat format, void* data) {
    aclTensor* t = aclCreateTensor(dims.data(), dims.size(), dtype, nullptr, 0, format, nullptr, 0, data);
    made_.push_back(t);
    return t;
  }
  Buffers& b_;
  Labels l_;
  std::vector<aclTensor*> made_;
};

struct EntryPoint {
  const char* name;
  int activations;  // how many activation tensors the call has
  std::vector<int> others;  // the indices of its per-channel / statistics tensors (Vec, Matrix, Counts; 7: Counter)
  std::function<aclnnStatus(Call&, Buffers&)> plan;
};

aclnnStatus Planned(aclnnStatus status, aclOpExecutor* executor) {
  if (status == ACLNN_SUCCESS) aclDestroyAclOpExecutor(executor);
  return status;
}

const std::vector<EntryPoint>& EntryPoints() {
  static const std::vector<EntryPoint> points = {
      {"aclnnBatchNorm", 2, {0, 1, 2, 3, 4, 5},
       [](Call& c, Buffers& b) {
         uint64_t ws;
         aclOpExecutor* ex;
         return Planned(aclnnBatchNormGetWorkspaceSize(c.Act(0, b.x), c.Vec(0), c.Vec(1), c.Vec(2), c.Vec(3), true, 0.1,
                                                       1e-5, c.Act(1, b.out), c.Vec(4), c.Vec(5), &ws, &ex),
                        ex);
       }},
      {"aclnnFastBatchNormBackward", 3, {0, 1, 2, 3, 4},
       [](Call& c, Buffers& b) {
         uint64_t ws;
         aclOpExecutor* ex;
         const bool mask[3] = {true, true, true};
         aclBoolArray* m = aclCreateBoolArray(mask, 3);
         const aclnnStatus s = aclnnFastBatchNormBackwardGetWorkspaceSize(
             c.Act(0, b.dy), c.Act(1, b.x), c.Vec(0), nullptr, nullptr, c.Vec(1), c.Vec(2), true, 1e-5, m, 0,
             c.Act(2, b.out), c.Vec(3), c.Vec(4), &ws, &ex);
         aclDestroyBoolArray(m);
         return Planned(s, ex);
       }},
      {"aclnnBatchNormBackward", 3, {0, 1, 2, 3, 4},
       [](Call& c, Buffers& b) {
         uint64_t ws;
         aclOpExecutor* ex;
         const bool mask[3] = {true, true, true};
         aclBoolArray* m = aclCreateBoolArray(mask, 3);
         const aclnnStatus s = aclnnBatchNormBackwardGetWorkspaceSize(c.Act(0, b.dy), c.Act(1, b.x), c.Vec(0), nullptr,
                                                                      nullptr, c.Vec(1), c.Vec(2), true, 1e-5, m,
                                                                      c.Act(2, b.out), c.Vec(3), c.Vec(4), &ws, &ex);
         aclDestroyBoolArray(m);
         return Planned(s, ex);
       }},
      {"aclnnBatchNormStats", 1, {0, 1},
       [](Call& c, Buffers& b) {
         uint64_t ws;
         aclOpExecutor* ex;
         return Planned(aclnnBatchNormStatsGetWorkspaceSize(c.Act(0, b.x), 1e-5, c.Vec(0), c.Vec(1), &ws, &ex), ex);
       }},
      {"aclnnBatchNormGatherStatsWithCounts", 1, {0, 1, 2, 3, 4, 5, 6},
       [](Call& c, Buffers& b) {
         uint64_t ws;
         aclOpExecutor* ex;
         return Planned(aclnnBatchNormGatherStatsWithCountsGetWorkspaceSize(c.Act(0, b.x), c.Matrix(0), c.Matrix(1),
                                                                            c.Vec(2), c.Vec(3), 0.1, 1e-5, c.Counts(4),
                                                                            c.Vec(5), c.Vec(6), &ws, &ex),
                        ex);
       }},
      {"aclnnBatchNormElemt", 2, {0, 1, 2, 3},
       [](Call& c, Buffers& b) {
         uint64_t ws;
         aclOpExecutor* ex;
         return Planned(aclnnBatchNormElemtGetWorkspaceSize(c.Act(0, b.x), c.Vec(0), c.Vec(1), c.Vec(2), c.Vec(3), 1e-5,
                                                            c.Act(1, b.out), &ws, &ex),
                        ex);
       }},
      {"aclnnBatchNormReduceBackward", 2, {0, 1, 2, 3, 4, 5},
       [](Call& c, Buffers& b) {
         uint64_t ws;
         aclOpExecutor* ex;
         return Planned(aclnnBatchNormReduceBackwardGetWorkspaceSize(c.Act(0, b.dy), c.Act(1, b.x), c.Vec(0), c.Vec(1),
                                                                     nullptr, true, true, true, c.Vec(2), c.Vec(3),
                                                                     c.Vec(4), c.Vec(5), &ws, &ex),
                        ex);
       }},
      {"aclnnBatchNormElemtBackward", 3, {0, 1, 2, 3, 4, 7},
       [](Call& c, Buffers& b) {
         uint64_t ws;
         aclOpExecutor* ex;
         return Planned(aclnnBatchNormElemtBackwardGetWorkspaceSize(c.Act(0, b.dy), c.Act(1, b.x), c.Vec(0), c.Vec(1),
                                                                    c.Vec(2), c.Vec(3), c.Vec(4), c.Counter(),
                                                                    c.Act(2, b.out), &ws, &ex),
                        ex);
       }},
  };
  return points;
}

aclnnStatus PlanWith(const EntryPoint& point, const Labels& labels) {
  Buffers buffers;
  Call call(buffers, labels);
  return point.plan(call, buffers);
}

std::string Message() {
  const char* m = aclGetRecentErrMsg();
  return m != nullptr ? m : "";
}

}  // namespace

TEST(BatchNormFormatRule, EveryNonPrivateLabelIsAcceptedOnEveryEntryPoint) {
  for (const EntryPoint& point : EntryPoints()) {
    for (aclFormat format : {ACL_FORMAT_ND, ACL_FORMAT_NCL, ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_NDHWC,
                             ACL_FORMAT_HWCN, ACL_FORMAT_UNDEFINED}) {
      Labels labels;
      for (aclFormat& f : labels.act) f = format;
      EXPECT_EQ(PlanWith(point, labels), ACLNN_SUCCESS) << point.name << " label " << format << ": " << Message();
    }
  }
}

TEST(BatchNormFormatRule, PrivateLabelsAreRefusedOnEveryTensorACallUses) {
  for (const EntryPoint& point : EntryPoints()) {
    for (aclFormat format : {ACL_FORMAT_NC1HWC0, ACL_FORMAT_FRACTAL_NZ}) {
      Labels all_private;  // every activation tensor with the same label: only its privacy is wrong
      for (aclFormat& f : all_private.act) f = format;
      EXPECT_EQ(PlanWith(point, all_private), ACLNN_ERR_PARAM_INVALID) << point.name;
      EXPECT_NE(Message().find("private format"), std::string::npos) << point.name;
      for (int k : point.others) {
        Labels labels;
        labels.other_index = k;
        labels.other = format;
        EXPECT_EQ(PlanWith(point, labels), ACLNN_ERR_PARAM_INVALID) << point.name << " tensor " << k;
        EXPECT_NE(Message().find("private format"), std::string::npos) << point.name << " tensor " << k;
      }
    }
  }
}

TEST(BatchNormFormatRule, ActivationLabelsOfOneCallMustMatch) {
  for (const EntryPoint& point : EntryPoints()) {
    for (int k = 1; k < point.activations; ++k) {
      Labels labels;
      labels.act[k] = ACL_FORMAT_NCHW;
      EXPECT_EQ(PlanWith(point, labels), ACLNN_ERR_PARAM_INVALID) << point.name << " activation " << k;
      EXPECT_NE(Message().find("the formats must match"), std::string::npos) << point.name << ": " << Message();
    }
  }
}
