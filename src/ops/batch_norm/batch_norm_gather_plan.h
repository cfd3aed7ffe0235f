// What phase 1 decides for aclnnBatchNormGatherStatsWithCounts (per-rank means and invstds)
// and aclnnSyncBatchNormGatherStats (per-rank sums and sums of squares): strided views of
// the gathered per-rank values, the optional running statistics and the two outputs.
// Kept apart from batch_norm_plan.h (the backward's plan) since the two share only
// ChannelVector.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "ops/batch_norm/batch_norm_plan.h"

namespace oa {
namespace bn {

// A [rows, cols] view in any float dtype: element (r, c) is at
// data + r * row_stride_bytes + c * col_stride_bytes (strides may be 0 or negative).
struct StridedMatrix {
  char* data = nullptr;
  aclDataType dtype = ACL_FLOAT;
  int64_t row_stride_bytes = 0;
  int64_t col_stride_bytes = 0;
};

// What each rank sent: its batch's mean and invstd, or its sum and sum of squares.
enum class GatheredKind { kMeanInvstd, kSums };

struct GatherStatsPlan {
  GatheredKind gathered = GatheredKind::kMeanInvstd;
  // W == 0 or C == 0: meanAll <- 0, invstdAll <- NaN, running statistics untouched.
  bool empty = false;
  int64_t ranks = 0;     // W
  int64_t channels = 0;  // C
  double momentum = 0;   // already rounded to float (the spec uses both as float)
  double eps = 0;
  StridedMatrix mean;    // [W, C] (kSums: the sums)
  StridedMatrix invstd;  // [W, C] (kSums: the sums of squares)
  ChannelVector counts;  // length W (kSums: float or int32, each truncated to an integer)
  ChannelVector running_mean;  // null data: absent (not updated)
  ChannelVector running_var;
  ChannelVector mean_all;      // length C
  ChannelVector invstd_all;
};

}  // namespace bn
}  // namespace oa
