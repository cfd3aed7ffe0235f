// aclnnUpsampleNearestExact3dBackward on small real buffers built from fuzzed metadata, on a
// SIMD target the input picks: every call returns a documented status with a message, or
// runs and writes nothing outside gradInput's view (guard bytes, gaps) and nothing at all
// into gradOut. gradInput sometimes lives in gradOut's storage and carries another format
// label; brute force then decides what the spec requires (accept disjoint views, reject
// overlapping or self-overlapping ones and differing labels).
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d_backward.h"
#include "fuzz_input.h"
#include "fuzz_simd.h"
#include "fuzz_status.h"
#include "fuzz_tensor.h"

namespace {
const bool g_runtime_ready = aclInit(nullptr) == ACL_SUCCESS;

aclDataType PickDtype(FuzzInput& input) {
  static const aclDataType kTypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  return kTypes[input.Below(3)];
}

// The sizes array a correct caller would pass for a tensor, or a fuzzed one.
std::vector<int64_t> Sizes(FuzzInput& input, const aclTensor* tensor, bool spatial_only) {
  std::vector<int64_t> sizes;
  if (tensor != nullptr && tensor->view_dims.size() == 5 && input.Below(8) != 0) {
    const auto& d = tensor->view_dims;
    const bool ndhwc = tensor->format == ACL_FORMAT_NDHWC;
    sizes = ndhwc ? std::vector<int64_t>{d[0], d[4], d[1], d[2], d[3]} : std::vector<int64_t>(d.begin(), d.end());
  } else {
    sizes.resize(input.Below(7));
    for (auto& s : sizes) s = input.Dim();
  }
  if (spatial_only && sizes.size() == 5) sizes.erase(sizes.begin(), sizes.begin() + 2);
  return sizes;
}
}  // namespace

namespace {
void FuzzOnce(const uint8_t* data, size_t size) {
  FuzzInput input(data, size);
  const aclDataType dtype = PickDtype(input);
  const aclFormat format = input.Below(3) == 0 ? ACL_FORMAT_NDHWC : ACL_FORMAT_NCDHW;
  static const aclFormat kLabels[] = {ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC, ACL_FORMAT_ND,        ACL_FORMAT_NCHW,
                                      ACL_FORMAT_HWCN,  ACL_FORMAT_NC,    ACL_FORMAT_UNDEFINED, ACL_FORMAT_NC1HWC0};
  const aclFormat input_format = input.Below(4) == 0 ? kLabels[input.Below(8)] : format;
  const bool aliased = input.Below(4) == 0;
  FuzzTensor grad_out(input, 5, dtype, format);
  FuzzTensor grad_input(input, 5, input.Below(8) == 0 ? PickDtype(input) : dtype, input_format,
                        aliased ? &grad_out : nullptr);
  const std::vector<int64_t> output_size = Sizes(input, grad_out.get(), true);
  const std::vector<int64_t> input_size = Sizes(input, grad_input.get(), false);
  aclIntArray* output_array = input.Below(32) == 0 ? nullptr : aclCreateIntArray(output_size.data(), output_size.size());
  aclIntArray* input_array = input.Below(32) == 0 ? nullptr : aclCreateIntArray(input_size.data(), input_size.size());
  const bool use_scales = input.Below(3) == 0;
  double scales[3];
  for (int k = 0; k < 3; ++k) {
    double usual = 0.0;
    if (use_scales && output_size.size() == 3 && input_size.size() == 5 && input_size[2 + k] > 0) {
      usual = static_cast<double>(output_size[k]) / static_cast<double>(input_size[2 + k]);
    }
    scales[k] = FuzzDouble(input, usual);
  }

  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(
      grad_out.get(), output_array, input_array, scales[0], scales[1], scales[2], grad_input.get(),
      input.Below(64) == 0 ? nullptr : &workspace_size, &executor);
  const std::string message = CheckDocumentedStatus(status);
  // Brute force (and running) only for views of affordable size.
  const bool affordable = grad_out.ElementCount() <= FuzzTensor::kMaxRunElements &&
                          grad_input.ElementCount() <= FuzzTensor::kMaxRunElements;
  if (status == ACLNN_SUCCESS) Require(grad_out.format() == grad_input.format());
  if (status == ACLNN_SUCCESS && affordable) {
    Require(!grad_input.OverlapsItself() && !grad_input.SharesBytesWith(grad_out));
  }
  if (affordable && Mentions(message, "overlaps gradOut")) Require(grad_input.SharesBytesWith(grad_out));
  if (affordable && Mentions(message, "refers to one memory location")) Require(grad_input.OverlapsItself());
  if (status == ACLNN_SUCCESS && !affordable) aclDestroyAclOpExecutor(executor);
  if (status == ACLNN_SUCCESS && affordable) {
    std::vector<unsigned char> workspace(workspace_size + 1);
    if (aclnnUpsampleNearestExact3dBackward(workspace.data(), workspace_size, executor, nullptr) != ACLNN_SUCCESS ||
        aclrtSynchronizeStream(nullptr) != ACL_SUCCESS) {
      std::abort();  // a plan that validated must run
    }
  }
  grad_out.CheckOnlyViewWritten(false, aliased && status == ACLNN_SUCCESS && affordable ? &grad_input : nullptr);
  grad_input.CheckOnlyViewWritten(status == ACLNN_SUCCESS && affordable);  // nothing ran otherwise
  aclDestroyIntArray(output_array);
  aclDestroyIntArray(input_array);
  aclGetRecentErrMsg();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!g_runtime_ready) return 0;
  return RunOnSimdTargets(data, size, [&] { FuzzOnce(data, size); });
}
