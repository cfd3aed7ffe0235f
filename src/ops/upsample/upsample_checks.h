// The upsample family's shared phase-1 checks and their messages, used by the nearest
// kinds (upsample_nearest_checks.h) and the interpolating kinds (upsample_interp_checks.h):
// each API's spec picks which run and in what order; these say what each one checks.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "aclnn/aclnn_base.h"
#include "core/handles.h"

namespace oa {

// Which given scales a map uses (a scale <= 0 is "not given": that axis uses in/out).
enum class ScaleUse {
  kNone,          // the API has no scale parameters
  kAllOrNone,     // all of them when every one is > 0, else none (upstream's 910B kernels)
  kPerAxis,       // each one on its own axis
  kIfConsistent,  // all of them (each > 0) when every one gives (int64)(in * scale) == out, else
                  // none (the interpolating kinds only: InterpScalesUsed)
};

// Whether each of `count` scales is used, per axis (kNone, kAllOrNone, kPerAxis).
std::array<bool, 3> ScalesUsed(ScaleUse use, const double* scales, int count);

// The channels-last labels: NHWC, NDHWC (a 1-D tensor has none).
bool IsChannelsLastLabel(const aclTensor& tensor);

// Spatial axis names: input sizes ("D", "H", "W"; "L" in 1-D), output sizes (lower case),
// and the 2-D/3-D scale parameters ("scalesH", ...; "scales" in 1-D).
const char* AxisName(int spatial, int axis);
const char* OutputAxisName(int spatial, int axis);
const char* ScaleName(int spatial, int axis);
// "l", "h, w" or "d, h, w": what an outputSize array lists.
const char* SpatialMeaning(int spatial);
// "N, C, D, H, W" and its variants: channels last or not, input (upper case) or output
// (lower case) spatial sizes.
const char* OrderText(int spatial, bool channels_last, bool output = false);

// A tensor as the planners and kernels see it: dims and strides (elements) in logical
// N, C, D, H, W order, and its element [0, 0, 0, 0, 0].
struct UpsampleView {
  std::array<int64_t, 5> dims{};
  std::array<int64_t, 5> strides{};
  const char* data = nullptr;
  int64_t Elements() const { return dims[0] * dims[1] * dims[2] * dims[3] * dims[4]; }
};

// The view of a 3-D (N, C, L), 4-D (N, C, H, W) or 5-D (N, C, D, H, W) tensor; with a
// channels-last label (NHWC, NDHWC) the channels are its last dim. Missing spatial axes get
// size 1.
UpsampleView LogicalView(const aclTensor& tensor);

// A stride may be anything on an axis of length 1.
inline bool UnitStride(int64_t size, int64_t stride) { return size <= 1 || stride == 1; }

// [N, C, spatial...] in a tensor's own label order, and back.
std::vector<int64_t> InLabelOrder(const std::vector<int64_t>& logical, bool channels_last);
std::vector<int64_t> ToLogical(std::vector<int64_t> dims, bool channels_last);

// "float32, float16 or bfloat16".
std::string DtypeList(const std::vector<aclDataType>& types);

// Each returns ACLNN_SUCCESS or the status with its message recorded.
aclnnStatus CheckPointers(const char* api, const uint64_t* workspaceSize, aclOpExecutor* const* executor);
aclnnStatus CheckData(const char* api, const char* name, const aclTensor& tensor);
aclnnStatus CheckDtypeIn(const char* api, const char* name, const aclTensor& tensor,
                         const std::vector<aclDataType>& types);
// Not a private format, and one of `formats` (empty: any public label).
aclnnStatus CheckLabel(const char* api, const char* name, const aclTensor& tensor,
                       const std::vector<aclFormat>& formats);
aclnnStatus CheckArrayLength(const char* api, const char* name, const aclIntArray& array, int length,
                             const char* meaning);
// The tensor's dims equal `logical` ([N, C, spatial...]) read in its label's order; `from`
// says where the expected shape comes from ("from self [..] and outputSize [..]").
aclnnStatus CheckShape(const char* api, const char* name, const aclTensor& tensor, const std::vector<int64_t>& logical,
                       int spatial, bool output_sizes, const std::string& from);
// A backward's pointers, in upstream's order: workspaceSize and executor, gradOut, outputSize,
// inputSize, gradInput.
aclnnStatus CheckBackwardPointers(const char* api, const char* go_name, const aclTensor* gradOut,
                                  const aclIntArray* outputSize, const aclIntArray* inputSize, const char* gi_name,
                                  const aclTensor* gradInput, const uint64_t* workspaceSize,
                                  aclOpExecutor* const* executor);
// A backward's ranks, sizes and shapes, in this order: gradOut and gradInput have rank
// spatial + 2, outputSize spatial values and inputSize spatial + 2 ([N, C, spatial...], or in a
// channels-last label's order when size_last); their spatial sizes are > 0, inputSize's N and
// C >= 0 (> 0 with require_nonempty); gradOut has shape [N, C, outputSize...] and gradInput
// inputSize's, each in its own label's order. *in: inputSize as [N, C, spatial...].
aclnnStatus CheckBackwardGeometry(const char* api, const char* go_name, const aclTensor& gradOut, const char* gi_name,
                                  const aclTensor& gradInput, const aclIntArray& inputSize,
                                  const aclIntArray& outputSize, int spatial, bool size_last, bool require_nonempty,
                                  std::vector<int64_t>* in);
// Every value <= INT32_MAX (the family's maps are int32 tables).
aclnnStatus CheckInt32(const char* api, const char* name, const std::vector<int64_t>& values);
// The output shares no memory with the input, nor with itself.
aclnnStatus CheckPlacement(const char* api, const char* in_name, const aclTensor& in, const char* out_name,
                           const aclTensor& out);

}  // namespace oa
