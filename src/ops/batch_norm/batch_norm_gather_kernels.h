// Phase 2 of aclnnBatchNormGatherStatsWithCounts: runs a GatherStatsPlan on raw pointers.
#pragma once

#include "ops/batch_norm/batch_norm_gather_plan.h"

namespace oa {
namespace bn {

// Single-threaded and deterministic: the work is W x C scalars.
void RunGatherStats(const GatherStatsPlan& plan);

}  // namespace bn
}  // namespace oa
