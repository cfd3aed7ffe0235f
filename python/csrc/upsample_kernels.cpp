// ATen's upsample operators (nearest, nearest-exact, linear, bilinear, bicubic, trilinear,
// anti-aliased; forward, backward and their .out / .grad_input overloads) as the upsample
// family's aclnn APIs.
//
// torch uses each given scale (> 0) on its own axis; each API reads its scale parameters by
// its own rule (per axis, all or none, or only when all agree with the sizes). A call runs
// openaclnn's API only where that rule expresses what torch does, so fp32 results are the
// bits of torch's generic kernel; any other call runs PyTorch's kernel. bf16 is taken for
// every operator (rounded once from a wider result), also where stock 1.13 has no bf16 kernel,
// as for the nearest-exact 3-D pair before (docs/pytorch.md).
#include <ATen/ATen.h>
#include <ATen/ops/_upsample_bicubic2d_aa_backward_cpu_dispatch.h>
#include <ATen/ops/_upsample_bicubic2d_aa_cpu_dispatch.h>
#include <ATen/ops/_upsample_bilinear2d_aa_backward_cpu_dispatch.h>
#include <ATen/ops/_upsample_bilinear2d_aa_cpu_dispatch.h>
#include <ATen/ops/_upsample_nearest_exact1d_backward_cpu_dispatch.h>
#include <ATen/ops/_upsample_nearest_exact1d_cpu_dispatch.h>
#include <ATen/ops/_upsample_nearest_exact2d_backward_cpu_dispatch.h>
#include <ATen/ops/_upsample_nearest_exact2d_cpu_dispatch.h>
#include <ATen/ops/_upsample_nearest_exact3d_backward_cpu_dispatch.h>
#include <ATen/ops/_upsample_nearest_exact3d_cpu_dispatch.h>
#include <ATen/ops/upsample_bicubic2d_backward_cpu_dispatch.h>
#include <ATen/ops/upsample_bicubic2d_cpu_dispatch.h>
#include <ATen/ops/upsample_bilinear2d_backward_cpu_dispatch.h>
#include <ATen/ops/upsample_bilinear2d_cpu_dispatch.h>
#include <ATen/ops/upsample_linear1d_backward_cpu_dispatch.h>
#include <ATen/ops/upsample_linear1d_cpu_dispatch.h>
#include <ATen/ops/upsample_nearest1d_backward_cpu_dispatch.h>
#include <ATen/ops/upsample_nearest1d_cpu_dispatch.h>
#include <ATen/ops/upsample_nearest2d_backward_cpu_dispatch.h>
#include <ATen/ops/upsample_nearest2d_cpu_dispatch.h>
#include <ATen/ops/upsample_nearest3d_backward_cpu_dispatch.h>
#include <ATen/ops/upsample_nearest3d_cpu_dispatch.h>
#include <ATen/ops/upsample_trilinear3d_backward_cpu_dispatch.h>
#include <ATen/ops/upsample_trilinear3d_cpu_dispatch.h>
#include <c10/core/SymIntArrayRef.h>

#include <cmath>

#include "aclnnop/aclnn_upsample_bicubic2d_aa.h"
#include "aclnnop/aclnn_upsample_bicubic2d_aa_grad.h"
#include "aclnnop/aclnn_upsample_bicubic_2d.h"
#include "aclnnop/aclnn_upsample_bicubic_2d_backward.h"
#include "aclnnop/aclnn_upsample_bilinear2d_aa.h"
#include "aclnnop/aclnn_upsample_bilinear2d_aa_backward.h"
#include "aclnnop/aclnn_upsample_bilinear_2d.h"
#include "aclnnop/aclnn_upsample_bilinear_2d_backward_v2.h"
#include "aclnnop/aclnn_upsample_linear_1d.h"
#include "aclnnop/aclnn_upsample_linear_1d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_1d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_1d_v2.h"
#include "aclnnop/aclnn_upsample_nearest_2d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_2d_v2.h"
#include "aclnnop/aclnn_upsample_nearest_3d.h"
#include "aclnnop/aclnn_upsample_nearest_3d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_exact1d.h"
#include "aclnnop/aclnn_upsample_nearest_exact1d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_exact2d.h"
#include "aclnnop/aclnn_upsample_nearest_exact2d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d_backward.h"
#include "aclnnop/aclnn_upsample_trilinear_3d.h"
#include "aclnnop/aclnn_upsample_trilinear_3d_backward.h"
#include "torch_bridge.h"

namespace openaclnn_torch {
namespace {

using Scale = c10::optional<double>;
using Scales = std::array<Scale, 3>;

// How an API reads its scale parameters (a scale <= 0 is not given).
enum class ScaleRule {
  kPerAxis,       // each on its own axis, as torch
  kAllOrNone,     // all of them when every one is given, else none
  kIfConsistent,  // all of them when every one gives trunc(in * scale) == out, else none
};

// The layout of the tensor stock's kernel allocates: the input's suggested memory format
// (channels-last stays channels-last) or contiguous.
enum class Layout { kSuggested, kContiguous };

// One direction (forward or backward) of an operator: the API and how it maps.
struct Direction {
  const char* api;
  ScaleRule rule;
  double absent_scale;  // what the API takes as "no scale"
  bool float_scales;    // the API's scales are floats: only a double a float holds maps
  Layout layout;
};

using ForwardPlan = aclnnStatus (*)(const aclTensor* self, const aclIntArray* output_size, bool align_corners,
                                    const double* scales, aclTensor* out, uint64_t* workspace_size,
                                    aclOpExecutor** executor);
using BackwardPlan = aclnnStatus (*)(const aclTensor* grad_out, const aclIntArray* output_size,
                                     const aclIntArray* input_size, bool align_corners, const double* scales,
                                     aclTensor* grad_input, uint64_t* workspace_size, aclOpExecutor** executor);

// An ATen upsample operator: its four kernels are forward, forward .out, backward and
// backward .grad_input, in that order from `kernel`.
struct UpsampleOp {
  int spatial;
  Direction forward;
  ForwardPlan forward_plan;
  Phase2 forward_run;
  Direction backward;
  BackwardPlan backward_plan;
  Phase2 backward_run;
  int kernel;
};

enum Variant { kForward, kForwardOut, kBackward, kBackwardOut };

// The four kernel names of the ATen operator `aten` (a leading underscore dropped).
int AddKernels(const std::string& aten) {
  const std::string name = aten[0] == '_' ? aten.substr(1) : aten;
  const int first = AddKernel(name);
  AddKernel(name + ".out");
  AddKernel(name + "_backward");
  AddKernel(name + "_backward.grad_input");
  return first;
}

aclFormat SpatialFormat(int spatial) {
  return spatial == 1 ? ACL_FORMAT_NCL : spatial == 2 ? ACL_FORMAT_NCHW : ACL_FORMAT_NCDHW;
}

// The API's scale arguments for what torch does with `given`, or false where the API's rule
// cannot express it (the call then runs stock's kernel).
bool ApiScales(const Direction& direction, int spatial, at::IntArrayRef in, at::IntArrayRef out, const Scales& given,
               double* scales) {
  int count = 0;
  bool consistent = true;
  for (int k = 0; k < spatial; ++k) {
    const bool used = given[k].has_value() && *given[k] > 0;
    scales[k] = used ? *given[k] : direction.absent_scale;
    count += used;
    if (used && direction.float_scales && static_cast<double>(static_cast<float>(scales[k])) != scales[k])
      return false;
    consistent = consistent && used && std::trunc(static_cast<double>(in[k]) * scales[k]) == out[k];
  }
  switch (direction.rule) {
    case ScaleRule::kPerAxis: return true;
    case ScaleRule::kAllOrNone: return count == 0 || count == spatial;
    case ScaleRule::kIfConsistent: return count == 0 || consistent;
  }
  return false;
}

at::MemoryFormat LayoutOf(const Direction& direction, const at::Tensor& input) {
  return direction.layout == Layout::kSuggested ? input.suggest_memory_format() : at::MemoryFormat::Contiguous;
}

// Runs openaclnn's forward into *out (allocated here unless `into`, the .out overload,
// where it must already have the result's shape and dtype); false: stock's kernel runs.
bool Forward(const UpsampleOp& op, bool into, const at::Tensor& self, at::IntArrayRef size, bool align_corners,
             const Scales& given, at::Tensor* out) {
  const int kernel = op.kernel + (into ? kForwardOut : kForward);
  double scales[3] = {};
  if (Acceleratable(self) && self.dim() == op.spatial + 2 && ValidSizes(size, op.spatial) &&
      ApiScales(op.forward, op.spatial, self.sizes().slice(2), size, given, scales) &&
      RoutedToOpenaclnn(op.kernel + kForward, self)) {
    std::vector<int64_t> out_sizes = {self.size(0), self.size(1)};
    out_sizes.insert(out_sizes.end(), size.begin(), size.end());
    at::Tensor result =
        into ? *out : at::empty(out_sizes, self.options().memory_format(LayoutOf(op.forward, self)));
    if (!into || (Acceleratable(result) && result.scalar_type() == self.scalar_type() &&
                  result.sizes() == at::IntArrayRef(out_sizes))) {
      const aclFormat format = SpatialFormat(op.spatial);
      AclTensorView self_view(self, format), out_view(result, format);
      AclIntArrayView size_view(size);
      const auto plan = [&](uint64_t* workspace_size, aclOpExecutor** executor) {
        return op.forward_plan(self_view.get(), size_view.get(), align_corners, scales, out_view.get(),
                               workspace_size, executor);
      };
      if (RunOperator(op.forward.api, plan, op.forward_run)) {
        CountCall(kernel, true);
        *out = result;
        return true;
      }
    }
  }
  CountCall(kernel, false);
  return false;
}

// As Forward, for the backward: gradInput of `input_size`.
bool Backward(const UpsampleOp& op, bool into, const at::Tensor& grad_out, at::IntArrayRef size,
              at::IntArrayRef input_size, bool align_corners, const Scales& given, at::Tensor* grad_input) {
  const int kernel = op.kernel + (into ? kBackwardOut : kBackward);
  double scales[3] = {};
  if (Acceleratable(grad_out) && grad_out.dim() == op.spatial + 2 && ValidSizes(size, op.spatial) &&
      ValidSizes(input_size, op.spatial + 2) &&
      ApiScales(op.backward, op.spatial, input_size.slice(2), size, given, scales) &&
      RoutedToOpenaclnn(op.kernel + kBackward, grad_out)) {
    at::Tensor result =
        into ? *grad_input : at::empty(input_size, grad_out.options().memory_format(LayoutOf(op.backward, grad_out)));
    if (!into || (Acceleratable(result) && result.scalar_type() == grad_out.scalar_type() &&
                  result.sizes() == input_size)) {
      const aclFormat format = SpatialFormat(op.spatial);
      AclTensorView grad_out_view(grad_out, format), grad_input_view(result, format);
      AclIntArrayView size_view(size), input_size_view(input_size);
      const auto plan = [&](uint64_t* workspace_size, aclOpExecutor** executor) {
        return op.backward_plan(grad_out_view.get(), size_view.get(), input_size_view.get(), align_corners, scales,
                                grad_input_view.get(), workspace_size, executor);
      };
      if (RunOperator(op.backward.api, plan, op.backward_run)) {
        CountCall(kernel, true);
        *grad_input = result;
        return true;
      }
    }
  }
  CountCall(kernel, false);
  return false;
}

// ---- the operators ----

constexpr bool kFloatScales = true, kDoubleScales = false;
constexpr Layout kSuggested = Layout::kSuggested, kContiguous = Layout::kContiguous;
constexpr ScaleRule kPerAxis = ScaleRule::kPerAxis, kAllOrNone = ScaleRule::kAllOrNone,
                    kIfConsistent = ScaleRule::kIfConsistent;

const UpsampleOp kNearest1d = {
    1,
    {"aclnnUpsampleNearest1dV2", kPerAxis, 0.0, kFloatScales, kContiguous},
    [](const aclTensor* s, const aclIntArray* o, bool, const double* k, aclTensor* out, uint64_t* w,
       aclOpExecutor** e) {
      return aclnnUpsampleNearest1dV2GetWorkspaceSize(s, o, static_cast<float>(k[0]), out, w, e);
    },
    aclnnUpsampleNearest1dV2,
    {"aclnnUpsampleNearest1dBackward", kPerAxis, 0.0, kDoubleScales, kContiguous},
    [](const aclTensor* g, const aclIntArray* o, const aclIntArray* i, bool, const double* k, aclTensor* gi,
       uint64_t* w, aclOpExecutor** e) {
      return aclnnUpsampleNearest1dBackwardGetWorkspaceSize(g, o, i, k[0], gi, w, e);
    },
    aclnnUpsampleNearest1dBackward,
    AddKernels("upsample_nearest1d")};

const UpsampleOp kNearest2d = {
    2,
    {"aclnnUpsampleNearest2dV2", kAllOrNone, 0.0, kFloatScales, kSuggested},
    [](const aclTensor* s, const aclIntArray* o, bool, const double* k, aclTensor* out, uint64_t* w,
       aclOpExecutor** e) {
      return aclnnUpsampleNearest2dV2GetWorkspaceSize(s, o, static_cast<float>(k[0]), static_cast<float>(k[1]), out,
                                                      w, e);
    },
    aclnnUpsampleNearest2dV2,
    {"aclnnUpsampleNearest2dBackward", kAllOrNone, 0.0, kDoubleScales, kSuggested},
    [](const aclTensor* g, const aclIntArray* o, const aclIntArray* i, bool, const double* k, aclTensor* gi,
       uint64_t* w, aclOpExecutor** e) {
      return aclnnUpsampleNearest2dBackwardGetWorkspaceSize(g, o, i, k[0], k[1], gi, w, e);
    },
    aclnnUpsampleNearest2dBackward,
    AddKernels("upsample_nearest2d")};

const UpsampleOp kNearest3d = {
    3,
    {"aclnnUpsampleNearest3d", kAllOrNone, 0.0, kDoubleScales, kSuggested},
    [](const aclTensor* s, const aclIntArray* o, bool, const double* k, aclTensor* out, uint64_t* w,
       aclOpExecutor** e) { return aclnnUpsampleNearest3dGetWorkspaceSize(s, o, k[0], k[1], k[2], out, w, e); },
    aclnnUpsampleNearest3d,
    {"aclnnUpsampleNearest3dBackward", kAllOrNone, 0.0, kDoubleScales, kContiguous},
    [](const aclTensor* g, const aclIntArray* o, const aclIntArray* i, bool, const double* k, aclTensor* gi,
       uint64_t* w, aclOpExecutor** e) {
      return aclnnUpsampleNearest3dBackwardGetWorkspaceSize(g, o, i, k[0], k[1], k[2], gi, w, e);
    },
    aclnnUpsampleNearest3dBackward,
    AddKernels("upsample_nearest3d")};

const UpsampleOp kNearestExact1d = {
    1,
    {"aclnnUpsampleNearestExact1d", kPerAxis, 0.0, kDoubleScales, kContiguous},
    [](const aclTensor* s, const aclIntArray* o, bool, const double* k, aclTensor* out, uint64_t* w,
       aclOpExecutor** e) { return aclnnUpsampleNearestExact1dGetWorkspaceSize(s, o, k[0], out, w, e); },
    aclnnUpsampleNearestExact1d,
    {"aclnnUpsampleNearestExact1dBackward", kPerAxis, 0.0, kDoubleScales, kContiguous},
    [](const aclTensor* g, const aclIntArray* o, const aclIntArray* i, bool, const double* k, aclTensor* gi,
       uint64_t* w, aclOpExecutor** e) {
      return aclnnUpsampleNearestExact1dBackwardGetWorkspaceSize(g, o, i, k[0], gi, w, e);
    },
    aclnnUpsampleNearestExact1dBackward,
    AddKernels("_upsample_nearest_exact1d")};

const UpsampleOp kNearestExact2d = {
    2,
    {"aclnnUpsampleNearestExact2d", kPerAxis, 0.0, kDoubleScales, kSuggested},
    [](const aclTensor* s, const aclIntArray* o, bool, const double* k, aclTensor* out, uint64_t* w,
       aclOpExecutor** e) { return aclnnUpsampleNearestExact2dGetWorkspaceSize(s, o, k[0], k[1], out, w, e); },
    aclnnUpsampleNearestExact2d,
    {"aclnnUpsampleNearestExact2dBackward", kPerAxis, 0.0, kDoubleScales, kSuggested},
    [](const aclTensor* g, const aclIntArray* o, const aclIntArray* i, bool, const double* k, aclTensor* gi,
       uint64_t* w, aclOpExecutor** e) {
      return aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize(g, o, i, k[0], k[1], gi, w, e);
    },
    aclnnUpsampleNearestExact2dBackward,
    AddKernels("_upsample_nearest_exact2d")};

const UpsampleOp kNearestExact3d = {
    3,
    {"aclnnUpsampleNearestExact3d", kAllOrNone, 0.0, kDoubleScales, kSuggested},
    [](const aclTensor* s, const aclIntArray* o, bool, const double* k, aclTensor* out, uint64_t* w,
       aclOpExecutor** e) { return aclnnUpsampleNearestExact3dGetWorkspaceSize(s, o, k[0], k[1], k[2], out, w, e); },
    aclnnUpsampleNearestExact3d,
    {"aclnnUpsampleNearestExact3dBackward", kAllOrNone, 0.0, kDoubleScales, kContiguous},
    [](const aclTensor* g, const aclIntArray* o, const aclIntArray* i, bool, const double* k, aclTensor* gi,
       uint64_t* w, aclOpExecutor** e) {
      return aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(g, o, i, k[0], k[1], k[2], gi, w, e);
    },
    aclnnUpsampleNearestExact3dBackward,
    AddKernels("_upsample_nearest_exact3d")};

const UpsampleOp kLinear1d = {
    1,
    {"aclnnUpsampleLinear1d", kPerAxis, -1.0, kDoubleScales, kContiguous},
    [](const aclTensor* s, const aclIntArray* o, bool a, const double* k, aclTensor* out, uint64_t* w,
       aclOpExecutor** e) { return aclnnUpsampleLinear1dGetWorkspaceSize(s, o, a, k[0], out, w, e); },
    aclnnUpsampleLinear1d,
    {"aclnnUpsampleLinear1dBackward", kIfConsistent, -1.0, kDoubleScales, kContiguous},
    [](const aclTensor* g, const aclIntArray* o, const aclIntArray* i, bool a, const double* k, aclTensor* gi,
       uint64_t* w, aclOpExecutor** e) {
      return aclnnUpsampleLinear1dBackwardGetWorkspaceSize(g, o, i, a, k[0], gi, w, e);
    },
    aclnnUpsampleLinear1dBackward,
    AddKernels("upsample_linear1d")};

const UpsampleOp kBilinear2d = {
    2,
    {"aclnnUpsampleBilinear2d", kIfConsistent, 0.0, kDoubleScales, kSuggested},
    [](const aclTensor* s, const aclIntArray* o, bool a, const double* k, aclTensor* out, uint64_t* w,
       aclOpExecutor** e) { return aclnnUpsampleBilinear2dGetWorkspaceSize(s, o, a, k[0], k[1], out, w, e); },
    aclnnUpsampleBilinear2d,
    {"aclnnUpsampleBilinear2dBackwardV2", kIfConsistent, -1.0, kDoubleScales, kSuggested},
    [](const aclTensor* g, const aclIntArray* o, const aclIntArray* i, bool a, const double* k, aclTensor* gi,
       uint64_t* w, aclOpExecutor** e) {
      return aclnnUpsampleBilinear2dBackwardV2GetWorkspaceSize(g, o, i, a, k[0], k[1], gi, w, e);
    },
    aclnnUpsampleBilinear2dBackwardV2,
    AddKernels("upsample_bilinear2d")};

const UpsampleOp kBicubic2d = {
    2,
    {"aclnnUpsampleBicubic2d", kPerAxis, -1.0, kDoubleScales, kContiguous},
    [](const aclTensor* s, const aclIntArray* o, bool a, const double* k, aclTensor* out, uint64_t* w,
       aclOpExecutor** e) { return aclnnUpsampleBicubic2dGetWorkspaceSize(s, o, a, k[0], k[1], out, w, e); },
    aclnnUpsampleBicubic2d,
    {"aclnnUpsampleBicubic2dBackward", kPerAxis, -1.0, kDoubleScales, kContiguous},
    [](const aclTensor* g, const aclIntArray* o, const aclIntArray* i, bool a, const double* k, aclTensor* gi,
       uint64_t* w, aclOpExecutor** e) {
      return aclnnUpsampleBicubic2dBackwardGetWorkspaceSize(g, o, i, a, k[0], k[1], gi, w, e);
    },
    aclnnUpsampleBicubic2dBackward,
    AddKernels("upsample_bicubic2d")};

const UpsampleOp kTrilinear3d = {
    3,
    {"aclnnUpsampleTrilinear3d", kAllOrNone, -1.0, kDoubleScales, kSuggested},
    [](const aclTensor* s, const aclIntArray* o, bool a, const double* k, aclTensor* out, uint64_t* w,
       aclOpExecutor** e) { return aclnnUpsampleTrilinear3dGetWorkspaceSize(s, o, a, k[0], k[1], k[2], out, w, e); },
    aclnnUpsampleTrilinear3d,
    {"aclnnUpsampleTrilinear3dBackward", kAllOrNone, -1.0, kDoubleScales, kSuggested},
    [](const aclTensor* g, const aclIntArray* o, const aclIntArray* i, bool a, const double* k, aclTensor* gi,
       uint64_t* w, aclOpExecutor** e) {
      return aclnnUpsampleTrilinear3dBackwardGetWorkspaceSize(g, o, i, a, k[0], k[1], k[2], gi, w, e);
    },
    aclnnUpsampleTrilinear3dBackward,
    AddKernels("upsample_trilinear3d")};

const UpsampleOp kBilinear2dAA = {
    2,
    {"aclnnUpsampleBilinear2dAA", kPerAxis, 0.0, kDoubleScales, kSuggested},
    [](const aclTensor* s, const aclIntArray* o, bool a, const double* k, aclTensor* out, uint64_t* w,
       aclOpExecutor** e) { return aclnnUpsampleBilinear2dAAGetWorkspaceSize(s, o, a, k[0], k[1], out, w, e); },
    aclnnUpsampleBilinear2dAA,
    {"aclnnUpsampleBilinear2dAABackward", kPerAxis, 0.0, kDoubleScales, kSuggested},
    [](const aclTensor* g, const aclIntArray* o, const aclIntArray* i, bool a, const double* k, aclTensor* gi,
       uint64_t* w, aclOpExecutor** e) {
      return aclnnUpsampleBilinear2dAABackwardGetWorkspaceSize(g, o, i, a, k[0], k[1], gi, w, e);
    },
    aclnnUpsampleBilinear2dAABackward,
    AddKernels("_upsample_bilinear2d_aa")};

const UpsampleOp kBicubic2dAA = {
    2,
    {"aclnnUpsampleBicubic2dAA", kPerAxis, -1.0, kDoubleScales, kContiguous},
    [](const aclTensor* s, const aclIntArray* o, bool a, const double* k, aclTensor* out, uint64_t* w,
       aclOpExecutor** e) { return aclnnUpsampleBicubic2dAAGetWorkspaceSize(s, o, a, k[0], k[1], out, w, e); },
    aclnnUpsampleBicubic2dAA,
    {"aclnnUpsampleBicubic2dAAGrad", kPerAxis, 0.0, kDoubleScales, kContiguous},
    [](const aclTensor* g, const aclIntArray* o, const aclIntArray* i, bool a, const double* k, aclTensor* gi,
       uint64_t* w, aclOpExecutor** e) {
      return aclnnUpsampleBicubic2dAAGradGetWorkspaceSize(g, o, i, a, k[0], k[1], gi, w, e);
    },
    aclnnUpsampleBicubic2dAAGrad,
    AddKernels("_upsample_bicubic2d_aa")};

// ---- ATen's signatures ----

at::IntArrayRef Ints(c10::SymIntArrayRef values) { return c10::asIntArrayRefSlow(values); }

// The nearest kinds: (self, output_size, scales...), no align_corners.
template <const UpsampleOp& Op, typename... S>
struct NearestSignatures {
  template <at::Tensor (*Stock)(const at::Tensor&, c10::SymIntArrayRef, S...)>
  static at::Tensor Forward(const at::Tensor& self, c10::SymIntArrayRef size, S... scales) {
    at::Tensor out;
    if (openaclnn_torch::Forward(Op, false, self, Ints(size), false, Scales{scales...}, &out)) return out;
    return Stock(self, size, scales...);
  }
  template <at::Tensor& (*Stock)(const at::Tensor&, c10::SymIntArrayRef, S..., at::Tensor&)>
  static at::Tensor& ForwardOut(const at::Tensor& self, c10::SymIntArrayRef size, S... scales, at::Tensor& out) {
    if (openaclnn_torch::Forward(Op, true, self, Ints(size), false, Scales{scales...}, &out)) return out;
    return Stock(self, size, scales..., out);
  }
  template <at::Tensor (*Stock)(const at::Tensor&, c10::SymIntArrayRef, c10::SymIntArrayRef, S...)>
  static at::Tensor Backward(const at::Tensor& grad_out, c10::SymIntArrayRef size, c10::SymIntArrayRef input_size,
                             S... scales) {
    at::Tensor grad_input;
    if (openaclnn_torch::Backward(Op, false, grad_out, Ints(size), Ints(input_size), false, Scales{scales...},
                                  &grad_input))
      return grad_input;
    return Stock(grad_out, size, input_size, scales...);
  }
  template <at::Tensor& (*Stock)(const at::Tensor&, c10::SymIntArrayRef, c10::SymIntArrayRef, S..., at::Tensor&)>
  static at::Tensor& BackwardOut(const at::Tensor& grad_out, c10::SymIntArrayRef size,
                                 c10::SymIntArrayRef input_size, S... scales, at::Tensor& grad_input) {
    if (openaclnn_torch::Backward(Op, true, grad_out, Ints(size), Ints(input_size), false, Scales{scales...},
                                  &grad_input))
      return grad_input;
    return Stock(grad_out, size, input_size, scales..., grad_input);
  }
};

// The interpolating kinds: (self, output_size, align_corners, scales...).
template <const UpsampleOp& Op, typename... S>
struct InterpSignatures {
  template <at::Tensor (*Stock)(const at::Tensor&, c10::SymIntArrayRef, bool, S...)>
  static at::Tensor Forward(const at::Tensor& self, c10::SymIntArrayRef size, bool align_corners, S... scales) {
    at::Tensor out;
    if (openaclnn_torch::Forward(Op, false, self, Ints(size), align_corners, Scales{scales...}, &out)) return out;
    return Stock(self, size, align_corners, scales...);
  }
  template <at::Tensor& (*Stock)(const at::Tensor&, c10::SymIntArrayRef, bool, S..., at::Tensor&)>
  static at::Tensor& ForwardOut(const at::Tensor& self, c10::SymIntArrayRef size, bool align_corners, S... scales,
                                at::Tensor& out) {
    if (openaclnn_torch::Forward(Op, true, self, Ints(size), align_corners, Scales{scales...}, &out)) return out;
    return Stock(self, size, align_corners, scales..., out);
  }
  template <at::Tensor (*Stock)(const at::Tensor&, c10::SymIntArrayRef, c10::SymIntArrayRef, bool, S...)>
  static at::Tensor Backward(const at::Tensor& grad_out, c10::SymIntArrayRef size, c10::SymIntArrayRef input_size,
                             bool align_corners, S... scales) {
    at::Tensor grad_input;
    if (openaclnn_torch::Backward(Op, false, grad_out, Ints(size), Ints(input_size), align_corners,
                                  Scales{scales...}, &grad_input))
      return grad_input;
    return Stock(grad_out, size, input_size, align_corners, scales...);
  }
  template <at::Tensor& (*Stock)(const at::Tensor&, c10::SymIntArrayRef, c10::SymIntArrayRef, bool, S...,
                                 at::Tensor&)>
  static at::Tensor& BackwardOut(const at::Tensor& grad_out, c10::SymIntArrayRef size,
                                 c10::SymIntArrayRef input_size, bool align_corners, S... scales,
                                 at::Tensor& grad_input) {
    if (openaclnn_torch::Backward(Op, true, grad_out, Ints(size), Ints(input_size), align_corners,
                                  Scales{scales...}, &grad_input))
      return grad_input;
    return Stock(grad_out, size, input_size, align_corners, scales..., grad_input);
  }
};

}  // namespace

// The four overloads of ATen operator `aten` over Signatures, stock's kernels at::cpu::aten*.
#define OPENACLNN_REGISTER_UPSAMPLE(Signatures, aten)                                                   \
  library->impl(#aten, TORCH_FN(Signatures::Forward<&at::cpu::aten##_symint>));                          \
  library->impl(#aten ".out", TORCH_FN(Signatures::ForwardOut<&at::cpu::aten##_symint_outf>));           \
  library->impl(#aten "_backward", TORCH_FN(Signatures::Backward<&at::cpu::aten##_backward_symint>));    \
  library->impl(#aten "_backward.grad_input",                                                            \
                TORCH_FN(Signatures::BackwardOut<&at::cpu::aten##_backward_symint_outf>))

void RegisterUpsample(torch::Library* library) {
  using Nearest1d = NearestSignatures<kNearest1d, Scale>;
  using Nearest2d = NearestSignatures<kNearest2d, Scale, Scale>;
  using Nearest3d = NearestSignatures<kNearest3d, Scale, Scale, Scale>;
  using NearestExact1d = NearestSignatures<kNearestExact1d, Scale>;
  using NearestExact2d = NearestSignatures<kNearestExact2d, Scale, Scale>;
  using NearestExact3d = NearestSignatures<kNearestExact3d, Scale, Scale, Scale>;
  using Linear1d = InterpSignatures<kLinear1d, Scale>;
  using Bilinear2d = InterpSignatures<kBilinear2d, Scale, Scale>;
  using Bicubic2d = InterpSignatures<kBicubic2d, Scale, Scale>;
  using Trilinear3d = InterpSignatures<kTrilinear3d, Scale, Scale, Scale>;
  using Bilinear2dAA = InterpSignatures<kBilinear2dAA, Scale, Scale>;
  using Bicubic2dAA = InterpSignatures<kBicubic2dAA, Scale, Scale>;
  OPENACLNN_REGISTER_UPSAMPLE(Nearest1d, upsample_nearest1d);
  OPENACLNN_REGISTER_UPSAMPLE(Nearest2d, upsample_nearest2d);
  OPENACLNN_REGISTER_UPSAMPLE(Nearest3d, upsample_nearest3d);
  OPENACLNN_REGISTER_UPSAMPLE(NearestExact1d, _upsample_nearest_exact1d);
  OPENACLNN_REGISTER_UPSAMPLE(NearestExact2d, _upsample_nearest_exact2d);
  OPENACLNN_REGISTER_UPSAMPLE(NearestExact3d, _upsample_nearest_exact3d);
  OPENACLNN_REGISTER_UPSAMPLE(Linear1d, upsample_linear1d);
  OPENACLNN_REGISTER_UPSAMPLE(Bilinear2d, upsample_bilinear2d);
  OPENACLNN_REGISTER_UPSAMPLE(Bicubic2d, upsample_bicubic2d);
  OPENACLNN_REGISTER_UPSAMPLE(Trilinear3d, upsample_trilinear3d);
  OPENACLNN_REGISTER_UPSAMPLE(Bilinear2dAA, _upsample_bilinear2d_aa);
  OPENACLNN_REGISTER_UPSAMPLE(Bicubic2dAA, _upsample_bicubic2d_aa);
}

#undef OPENACLNN_REGISTER_UPSAMPLE

}  // namespace openaclnn_torch
