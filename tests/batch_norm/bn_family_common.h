// Shared by the batch-norm family tests (aclnnBatchNorm and the SyncBN operators): tensors
// of any layout and dtype, raw views into caller memory (strided per-channel views, counters
// of any dtype), the two-phase call, thread-count control, and long-double references of
// the per-channel statistics. No torch here (the chain unit test uses it too); the torch
// helpers are in bn_family_oracle_common.h.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "fast_batch_norm_backward/bn_test_common.h"
#include "support/float_coding.h"

namespace bnfam {

using bntest::DtName;
using bntest::ElementSize;
using bntest::EqualsRoundedOnce;
using bntest::HostTensor;
using bntest::Layout;
using bntest::LayoutName;
using bntest::RoundedOnceStat;
using bntest::RoundOnce;
using bntest::StridesFor;

constexpr aclDataType kFloatDtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};

inline std::string ShapeName(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

// The format label of a big tensor: ND (NCDHW for 5-D, which the specs require), or with
// `alt` the rank's N-C label (NC, NCL, NCHW) and, for 4-D/5-D, the channels-last label
// (NHWC, NDHWC), which by the specs never moves the channel axis (dim 1 of the view).
inline aclFormat BigLabel(size_t rank, bool alt) {
  if (!alt) return rank == 5 ? ACL_FORMAT_NCDHW : ACL_FORMAT_ND;
  switch (rank) {
    case 2:
      return ACL_FORMAT_NC;
    case 3:
      return ACL_FORMAT_NCL;
    case 4:
      return ACL_FORMAT_NHWC;
    case 5:
      return ACL_FORMAT_NDHWC;
    default:
      return ACL_FORMAT_ND;
  }
}

// A big [N, C, *] tensor in the given layout.
inline HostTensor MakeBig(aclDataType dt, const std::vector<int64_t>& shape, Layout layout, uint64_t seed,
                          bool alt_label = false) {
  return HostTensor(dt, shape, StridesFor(layout, shape, seed), BigLabel(shape.size(), alt_label));
}
// An input view with one non-channel dim of size > 1 broadcast (stride 0), like an expanded
// tensor: a legal read-only view whose elements share addresses. Layout as MakeBig otherwise;
// falls back to MakeBig when no dim can be broadcast.
inline HostTensor MakeExpandedInput(aclDataType dt, const std::vector<int64_t>& shape, Layout layout, uint64_t seed,
                                    bool alt_label = false) {
  std::vector<int64_t> strides = StridesFor(layout, shape, seed);
  std::vector<size_t> candidates;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (d != 1 && shape[d] > 1) candidates.push_back(d);
  }
  if (!candidates.empty()) strides[candidates[seed % candidates.size()]] = 0;
  return HostTensor(dt, shape, strides, BigLabel(shape.size(), alt_label));
}

// A [C] tensor, stride 2 when `gap` (every other element is a guarded hole).
inline HostTensor MakeVec(aclDataType dt, int64_t channels, bool gap) {
  return HostTensor(dt, {channels}, {gap ? 2 : 1});
}

// Logical element i of an [N, C, *] tensor belongs to channel (i / inner) % C.
struct ChannelIndex {
  int64_t channels = 0, inner = 1;
  explicit ChannelIndex(const std::vector<int64_t>& shape) {
    channels = shape.size() >= 2 ? shape[1] : 0;
    for (size_t d = 2; d < shape.size(); ++d) inner *= shape[d];
  }
  int64_t operator()(int64_t i) const { return (i / inner) % channels; }
};

// An aclTensor over caller memory (any dtype, shape, strides, offset); for views that
// HostTensor cannot express: several views into one buffer, integer counters, 0-D tensors.
struct RawView {
  aclTensor* handle = nullptr;
  RawView() = default;
  RawView(void* base, aclDataType dt, const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
          int64_t offset, int64_t storage_elements, aclFormat format = ACL_FORMAT_ND) {
    const int64_t storage[] = {storage_elements};
    handle = aclCreateTensor(shape.data(), shape.size(), dt, strides.data(), offset, format, storage, 1, base);
  }
  RawView(const RawView&) = delete;
  RawView& operator=(const RawView&) = delete;
  RawView(RawView&& o) noexcept { std::swap(handle, o.handle); }
  RawView& operator=(RawView&& o) noexcept {
    std::swap(handle, o.handle);
    return *this;
  }
  ~RawView() { aclDestroyTensor(handle); }
};

// Phase 1 + phase 2 + synchronize, with a heap workspace.
inline aclnnStatus RunTwoPhase(const std::function<aclnnStatus(uint64_t*, aclOpExecutor**)>& get_workspace,
                               aclnnStatus (*run)(void*, uint64_t, aclOpExecutor*, aclrtStream)) {
  uint64_t size = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status = get_workspace(&size, &executor);
  if (status != ACLNN_SUCCESS) return status;
  void* workspace = nullptr;
  if (size > 0 && aclrtMalloc(&workspace, size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return ACLNN_ERR_INNER;
  status = run(workspace, size, executor, nullptr);
  const aclError sync = aclrtSynchronizeStream(nullptr);
  aclrtFree(workspace);
  if (status != ACLNN_SUCCESS) return status;
  return sync == ACL_SUCCESS ? ACLNN_SUCCESS : ACLNN_ERR_RUNTIME_ERROR;
}

// Threads the library uses while in scope (0 on exit: back to the default).
struct ThreadCount {
  explicit ThreadCount(int n) { oa::SetNumThreads(n); }
  ~ThreadCount() { oa::SetNumThreads(0); }
};

// All values of a tensor, in logical order.
inline std::vector<double> Values(const HostTensor& t) {
  std::vector<double> v(static_cast<size_t>(t.count()));
  for (int64_t i = 0; i < t.count(); ++i) v[static_cast<size_t>(i)] = t.Get(i);
  return v;
}
// Per-channel values of an optional tensor (absent: `absent` everywhere).
inline std::vector<long double> ChannelValues(const HostTensor* t, int64_t channels, double absent) {
  std::vector<long double> v(static_cast<size_t>(channels), absent);
  if (t != nullptr) {
    for (int64_t c = 0; c < channels; ++c) v[static_cast<size_t>(c)] = t->Get(c);
  }
  return v;
}

// Per-channel mean, biased variance and mean |x| (the scale of the mean's evaluation error),
// two passes in long double over the stored values.
struct Moments {
  std::vector<long double> mean, var, mean_abs;
  int64_t m = 0;
};
inline Moments ComputeMoments(const HostTensor& x, const std::vector<int64_t>& shape) {
  const ChannelIndex channel_of(shape);
  Moments s;
  const int64_t channels = channel_of.channels;
  s.mean.assign(channels, 0.0L);
  s.var.assign(channels, 0.0L);
  s.mean_abs.assign(channels, 0.0L);
  s.m = channels > 0 ? x.count() / channels : 0;
  if (s.m == 0) return s;
  for (int64_t i = 0; i < x.count(); ++i) {
    s.mean[channel_of(i)] += x.Get(i);
    s.mean_abs[channel_of(i)] += std::fabs(x.Get(i));
  }
  for (int64_t c = 0; c < channels; ++c) {
    s.mean[c] /= s.m;
    s.mean_abs[c] /= s.m;
  }
  for (int64_t i = 0; i < x.count(); ++i) {
    const long double d = x.Get(i) - s.mean[channel_of(i)];
    s.var[channel_of(i)] += d * d;
  }
  for (int64_t c = 0; c < channels; ++c) s.var[c] /= s.m;
  return s;
}

// A reference result: the exact values (to long-double accuracy) and the size of the terms
// each is made of (EqualsRoundedOnce's evaluation window).
struct Ref {
  std::vector<double> value, scale;
  void Push(long double v, long double s) {
    value.push_back(static_cast<double>(v));
    scale.push_back(static_cast<double>(std::fabs(s)));
  }
};

// Every element of a view still holds the fill byte (an output that must not be written).
inline ::testing::AssertionResult Untouched(const HostTensor& t, uint8_t byte = 0xA5) {
  const char* base = static_cast<const char*>(t.buffer->data());
  for (int64_t offset : t.buffer->offsets()) {
    for (size_t b = 0; b < ElementSize(t.dtype); ++b) {
      if (static_cast<uint8_t>(base[offset * static_cast<int64_t>(ElementSize(t.dtype)) + b]) != byte) {
        return ::testing::AssertionFailure() << "element at offset " << offset << " was written";
      }
    }
  }
  return ::testing::AssertionSuccess();
}

inline double Float(double v) { return static_cast<double>(static_cast<float>(v)); }

// Data on which the grouping of a float64 sum is visible in the fp32 result, for the
// thread-count tests: per channel, +-2^60 in exactly cancelling pairs mixed with values in
// [-2, 2]. Each channel's exact sum is that of the small values, while a float64 running sum
// loses every small value added while a big one is pending (ulp(2^60) = 256), so a partition
// or combine order that depended on the thread count would change the bits of the mean,
// the variance, or sum(dy). (With ordinary data, float64 sums rounded to fp32 hide it.)
inline void FillCancelling(HostTensor& t, const std::vector<int64_t>& shape, uint64_t seed) {
  const ChannelIndex channel_of(shape);
  support::SplitMix64 rng(seed);
  const double big = 0x1p60;
  std::vector<int64_t> pending(static_cast<size_t>(channel_of.channels), -1);  // unpaired +big per channel
  for (int64_t i = 0; i < t.count(); ++i) {
    const int64_t c = channel_of(i);
    if (rng.Next() % 3 == 0) {
      t.Set(i, pending[c] < 0 ? big : -big);
      pending[c] = pending[c] < 0 ? i : -1;
    } else {
      t.Set(i, rng.NextIn(-2.0, 2.0));
    }
  }
  for (int64_t c = 0; c < channel_of.channels; ++c) {
    if (pending[c] >= 0) t.Set(pending[c], 1.0);
  }
}

}  // namespace bnfam
