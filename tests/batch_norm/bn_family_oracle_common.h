// Torch-side helpers of the batch-norm family oracle tests: fp32 copies of our tensors for
// torch (which needs one dtype), and the two comparisons every oracle test makes:
//  * the long-double reference agrees loosely with torch's fp32 result (so the reference is
//    not merely our own formula checked against itself);
//  * "fp32 rule": our fp32 output's max abs error vs the reference <= torch's on the same
//    input values (support::NoWorseThanTorch).
#pragma once

#include "batch_norm/bn_family_common.h"
#include "torch_oracle.h"

namespace bnfam {

// A contiguous fp32 copy (values of any of our dtypes are exact in fp32), or fp32 zeros to
// receive a torch result.
struct F32Copy {
  std::vector<float> values;
  oracle::View view;
  F32Copy(const HostTensor& t, const std::vector<int64_t>& shape) {
    for (int64_t i = 0; i < t.count(); ++i) values.push_back(static_cast<float>(t.Get(i)));
    Point(shape);
  }
  F32Copy(size_t n, float fill, const std::vector<int64_t>& shape) : values(n, fill) { Point(shape); }
  F32Copy(const std::vector<double>& v, const std::vector<int64_t>& shape) {
    for (double d : v) values.push_back(static_cast<float>(d));
    Point(shape);
  }
  void Point(const std::vector<int64_t>& shape) {
    view.data = values.empty() ? static_cast<void*>(&dummy) : values.data();
    view.dtype = oracle::DType::kFloat32;
    view.shape = shape;
  }
  float dummy = 0;
};

// torch's view of an optional per-channel tensor: an fp32 copy, or data == nullptr.
inline std::unique_ptr<F32Copy> OptionalCopy(const HostTensor* t, int64_t channels) {
  if (t == nullptr) return nullptr;
  return std::make_unique<F32Copy>(*t, std::vector<int64_t>{channels});
}
inline oracle::View ViewOrNull(const std::unique_ptr<F32Copy>& copy) { return copy ? copy->view : oracle::View{}; }

// |torch - reference| <= tolerance * (1 + scale) for every element: the loose agreement.
// Data whose |mean| is more than 1e4 times its spread is ill-conditioned for torch's fp32
// CPU statistics (measured: native_batch_norm's saveInvstd 84.3677 against the exact 84.4080
// at mean 1e4, spread 0.01, i.e. 5e-4 relative), so those cases use LooseTolerance's 1e-2
// (the large-mean tests skip the loose check and bound our error absolutely instead).
inline ::testing::AssertionResult AgreesLoosely(const char* what, const std::vector<float>& torch, const Ref& ref,
                                                double tolerance = 1e-4) {
  if (torch.size() != ref.value.size()) {
    return ::testing::AssertionFailure() << what << ": torch gave " << torch.size() << " values, reference "
                                         << ref.value.size();
  }
  for (size_t i = 0; i < torch.size(); ++i) {
    const double t = torch[i], r = ref.value[i];
    if (std::isnan(r) && std::isnan(t)) continue;
    if (!(std::fabs(t - r) <= tolerance * (1.0 + ref.scale[i]))) {
      return ::testing::AssertionFailure()
             << what << "[" << i << "]: torch " << t << " vs reference " << r << " (term scale " << ref.scale[i] << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

inline double LooseTolerance(double center, double spread) { return std::fabs(center) > 1e4 * spread ? 1e-2 : 1e-4; }

// The fp32 rule on raw fp32 elements (views HostTensor cannot hold, e.g. halves of a buffer).
inline ::testing::AssertionResult NoWorseThanTorch(const char* what, const support::Elements& ours,
                                                   const std::vector<float>& torch, const Ref& ref) {
  ::testing::AssertionResult r =
      support::NoWorseThanTorch(ours, support::F32(torch.data(), static_cast<int64_t>(torch.size())), ref.value.data());
  if (!r) r << " (" << what << ")";
  return r;
}

// The fp32 rule (only for fp32 outputs of ours).
inline ::testing::AssertionResult NoWorseThanTorch(const char* what, const HostTensor& ours,
                                                   const std::vector<float>& torch, const Ref& ref) {
  if (ours.dtype != ACL_FLOAT) return ::testing::AssertionFailure() << what << " is not fp32";
  ::testing::AssertionResult r = support::NoWorseThanTorch(
      ours.Elements(), support::F32(torch.data(), static_cast<int64_t>(torch.size())), ref.value.data());
  if (!r) r << " (" << what << ")";
  return r;
}

}  // namespace bnfam
