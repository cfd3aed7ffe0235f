// What the gather-statistics entry points share (aclnnBatchNormGatherStatsWithCounts,
// aclnnSyncBatchNormGatherStats): their executor and the strided views of their small
// tensors.
#pragma once

#include <string>

#include "core/executor.h"
#include "core/handles.h"
#include "ops/batch_norm/batch_norm_api.h"
#include "ops/batch_norm/batch_norm_gather_kernels.h"

namespace oa {
namespace bn {

struct GatherStatsExecutor : aclOpExecutor {
  GatherStatsPlan plan;
  std::string Execute(void* /*workspace*/) override {
    RunGatherStats(plan);
    return {};
  }
  std::string PlanSummary() const override {
    if (plan.empty) return "empty";
    return "ranks=" + std::to_string(plan.ranks) + "/channels=" + std::to_string(plan.channels);
  }
  int PlanThreads() const override { return 1; }
};

inline int64_t ElementBytes(const aclTensor& t) { return static_cast<int64_t>(DataTypeSize(t.dtype)); }

inline StridedMatrix MatrixOf(const aclTensor& t) {
  StridedMatrix m;
  m.data = ElementAddress(t);
  m.dtype = t.dtype;
  m.row_stride_bytes = t.strides[0] * ElementBytes(t);
  m.col_stride_bytes = t.strides[1] * ElementBytes(t);
  return m;
}

inline ChannelVector VectorOf(const aclTensor* t) {
  ChannelVector v;
  if (t == nullptr) return v;
  v.data = ElementAddress(*t);
  v.dtype = t->dtype;
  v.stride_bytes = t->strides[0] * ElementBytes(*t);
  v.length = t->view_dims[0];
  return v;
}

}  // namespace bn
}  // namespace oa
