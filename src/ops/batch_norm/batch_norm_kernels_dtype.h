// One dtype's batch-norm pass tasks, compiled for every SIMD target (no include guard:
// Highway's foreach_target includes the translation unit once per target). The including
// file defines OA_BN_T (the element type) and OA_BN_NAME (the suffix of the task functions
// batch_norm_kernels-inl.h declares), and sets HWY_TARGET_INCLUDE to itself.
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "ops/batch_norm/batch_norm_kernels-inl.h"

#define OA_BN_CONCAT_(a, b) a##b
#define OA_BN_CONCAT(a, b) OA_BN_CONCAT_(a, b)

HWY_BEFORE_NAMESPACE();
namespace oa {
namespace HWY_NAMESPACE {
void OA_BN_CONCAT(BlockTask, OA_BN_NAME)(const bn::BatchNormPlan& plan, const bn::WorkspaceArrays& ws, int pass,
                                         int64_t task) {
  bn_kernels::BlockTaskT<OA_BN_T>(plan, ws, pass, task);
}
void OA_BN_CONCAT(WriteTask, OA_BN_NAME)(const bn::BatchNormPlan& plan, const bn::WorkspaceArrays& ws, int pass,
                                         int64_t task) {
  bn_kernels::WriteTaskT<OA_BN_T>(plan, ws, pass, task);
}
void OA_BN_CONCAT(ReduceTask, OA_BN_NAME)(const bn::BatchNormPlan& plan, const bn::WorkspaceArrays& ws, int pass,
                                          int64_t task) {
  bn_kernels::ReduceTaskT<OA_BN_T>(plan, ws, pass, task);
}
}  // namespace HWY_NAMESPACE
}  // namespace oa
HWY_AFTER_NAMESPACE();

#undef OA_BN_CONCAT
#undef OA_BN_CONCAT_
