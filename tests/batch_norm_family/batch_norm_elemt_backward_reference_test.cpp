// aclnnBatchNormElemtBackward against a long-double evaluation of
// dx = (dy - sumDy/total - (x - mean) * invstd^2 * sumDyXmu/total) * invstd * w, with
// total = the sum of every counter element: every layout, gradOut/input/gradInput dtypes
// chosen independently (the mixed path), counters of every dtype and shape, in place on
// gradOut, and the same bits for any thread count.
#include "bn_family_reference.h"

#include "aclnnop/aclnn_batch_norm_elemt_backward.h"

namespace {

using bnfam::Spec;
using bntest::HostTensor;

// A counter of the given dtype and shape with small positive counts.
struct Counter {
  aclDataType dtype = ACL_INT32;
  std::vector<int64_t> shape, strides;
  std::vector<char> storage;
  aclTensor* handle = nullptr;
  long double total = 0;

  Counter(aclDataType dt, std::vector<int64_t> dims, int64_t step, support::SplitMix64& rng)
      : dtype(dt), shape(std::move(dims)) {
    int64_t count = 1;
    for (int64_t d : shape) count *= d;
    strides.assign(shape.size(), 0);
    int64_t stride = step;
    for (size_t k = shape.size(); k-- > 0;) {
      strides[k] = stride;
      stride *= shape[k];
    }
    const int64_t span = count == 0 ? 0 : (count - 1) * step + 1;
    const size_t element = dt == ACL_INT32 || dt == ACL_FLOAT ? 4 : 2;
    storage.assign(static_cast<size_t>(std::max<int64_t>(span, 1)) * element, 0);
    for (int64_t i = 0; i < count; ++i) {
      const int value = 1 + static_cast<int>(rng.Next() % 200);
      char* p = storage.data() + i * step * element;
      if (dt == ACL_INT32) {
        const int32_t v = value;
        std::memcpy(p, &v, 4);
      } else {
        EncodeValue(value, dt, reinterpret_cast<unsigned char*>(p));  // integers: exact in fp16/fp32
      }
      total += value;
    }
    const int64_t storage_dims[] = {span};
    handle = aclCreateTensor(shape.data(), shape.size(), dt, strides.data(), 0, ACL_FORMAT_ND, storage_dims, 1,
                             storage.data());
  }
  ~Counter() { aclDestroyTensor(handle); }
};

// Channel tensors: 0 mean, 1 invstd, 2 weight, 3 sumDy, 4 sumDyXmu.
struct ElemtBackwardProblem {
  Spec s;
  aclDataType dtype[3];  // x, dy, dx
  bool in_place = false;
  HostTensor x, dy, dx, channel[5];
  std::unique_ptr<Counter> counter;

  ElemtBackwardProblem(const Spec& spec, const aclDataType (&dtypes)[3], bool inplace, aclDataType counter_dtype,
                       std::vector<int64_t> counter_shape, int64_t counter_step)
      : s(spec), in_place(inplace) {
    for (int t = 0; t < 3; ++t) dtype[t] = dtypes[t];
    if (in_place) dtype[2] = dtype[1];
    x = bnfam::BigTensor(s, 0, dtype[0]);
    dy = bnfam::BigTensor(s, 1, dtype[1]);
    if (!in_place) dx = bnfam::BigTensor(s, 2, dtype[2]);
    for (int k = 0; k < 5; ++k) channel[k] = bnfam::ChannelTensor(s, k);
    support::SplitMix64 rng(s.seed);
    for (int64_t i = 0; i < x.count(); ++i) x.Set(i, s.center + s.scale * rng.NextIn(-2.0, 2.0));
    bnfam::FillRandom(dy, rng, -1.0, 1.0);
    counter = std::make_unique<Counter>(counter_dtype, std::move(counter_shape), counter_step, rng);
    const double m = std::max<int64_t>(1, x.count() / std::max<int64_t>(1, s.channels()));
    for (int64_t c = 0; c < s.channels(); ++c) {
      channel[0].Set(c, s.center + s.scale * rng.NextIn(-0.5, 0.5));
      channel[1].Set(c, rng.NextIn(0.5, 2.0) / s.scale);
      channel[2].Set(c, rng.NextIn(-2.0, 2.0));
      channel[3].Set(c, m * rng.NextIn(-0.2, 0.2));
      channel[4].Set(c, m * s.scale * rng.NextIn(-0.2, 0.2));
    }
    if (!in_place) dx.buffer->FillView(0xA5);
  }
  const HostTensor& Output() const { return in_place ? dy : dx; }
  aclnnStatus Run() {
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus status = aclnnBatchNormElemtBackwardGetWorkspaceSize(
        dy.handle, x.handle, channel[0].handle, channel[1].handle, s.present[2] ? channel[2].handle : nullptr,
        channel[3].handle, channel[4].handle, counter->handle, Output().handle, &workspace_size, &executor);
    return bnfam::RunTwoPhase(status, workspace_size, executor, aclnnBatchNormElemtBackward);
  }
};

struct Reference {
  std::vector<double> value, scale;
  explicit Reference(const ElemtBackwardProblem& p) {
    const int64_t channels = p.s.channels(), inner = bnfam::InnerSize(p.s.shape);
    const long double total = p.counter->total;
    for (int64_t i = 0; i < p.x.count(); ++i) {
      const int64_t c = (i / inner) % channels;
      const long double g = p.dy.Get(i), centered = p.x.Get(i) - static_cast<long double>(p.channel[0].Get(c));
      const long double r = p.channel[1].Get(c), w = p.s.present[2] ? p.channel[2].Get(c) : 1.0;
      const long double mean_dy = p.channel[3].Get(c) / total, mean_dyxmu = p.channel[4].Get(c) / total;
      value.push_back(static_cast<double>((g - mean_dy - centered * r * r * mean_dyxmu) * r * w));
      scale.push_back(static_cast<double>(
          std::fabs(r * w) * (std::fabs(g) + std::fabs(mean_dy) + std::fabs(centered * r * r * mean_dyxmu))));
    }
  }
};

std::string Describe(const ElemtBackwardProblem& p) {
  return p.s.Describe() + " x/dy/dx " + bntest::DtName(p.dtype[0]) + "/" + bntest::DtName(p.dtype[1]) + "/" +
         bntest::DtName(p.dtype[2]) + (p.in_place ? " in-place" : "") + " counter " + bntest::DtName(p.counter->dtype);
}

void RunAndCheck(ElemtBackwardProblem& p) {
  const Reference ref(p);
  ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << Describe(p) << ": " << aclGetRecentErrMsg();
  bnfam::ExpectRoundedOnce("gradInput", p.Output(), ref.value, ref.scale, Describe(p));
}

TEST(BatchNormElemtBackwardReference, RandomProblems) {
  const aclDataType counter_dtypes[] = {ACL_INT32, ACL_FLOAT16, ACL_FLOAT};
  for (uint64_t seed = 1; seed <= 120; ++seed) {
    const Spec s = bnfam::RandomSpec(seed);
    support::SplitMix64 rng(seed + 99);
    aclDataType dtypes[3] = {s.io, s.io, s.io};
    if (seed % 3 == 0) {  // the mixed-dtype path
      const aclDataType choices[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
      for (auto& dt : dtypes) dt = choices[rng.Next() % 3];
    }
    const int64_t ranks = 1 + static_cast<int64_t>(rng.Next() % 5);
    std::vector<int64_t> counter_shape;
    switch (seed % 4) {
      case 0: counter_shape = {ranks}; break;
      case 1: counter_shape = {ranks, 1}; break;
      case 2: counter_shape = {}; break;  // 0-D: one count
      default: counter_shape = {2, ranks}; break;
    }
    ElemtBackwardProblem p(s, dtypes, seed % 5 == 0, counter_dtypes[seed % 3], counter_shape,
                           1 + static_cast<int64_t>(rng.Next() % 3));
    RunAndCheck(p);
  }
}

TEST(BatchNormElemtBackwardReference, EveryLayoutAndMixedDtypes) {
  uint64_t seed = 400;
  const aclDataType all[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  for (bntest::Layout layout : {bntest::Layout::kContiguous, bntest::Layout::kChannelsLast, bntest::Layout::kStrided}) {
    for (aclDataType a : all) {
      for (aclDataType b : all) {
        Spec s;
        s.shape = {3, 7, 6, 5};
        s.layout[0] = s.layout[1] = s.layout[2] = layout;
        s.seed = ++seed;
        const aclDataType dtypes[3] = {a, b, a};
        ElemtBackwardProblem p(s, dtypes, false, ACL_INT32, {3, 1}, 1);
        RunAndCheck(p);
      }
    }
  }
}

TEST(BatchNormElemtBackwardReference, EmptyBatchWritesNothing) {
  Spec s;
  s.shape = {0, 4, 3};
  support::SplitMix64 rng(1);
  const aclDataType dtypes[3] = {ACL_FLOAT, ACL_FLOAT, ACL_FLOAT};
  ElemtBackwardProblem p(s, dtypes, false, ACL_FLOAT, {2}, 1);
  ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_TRUE(p.dx.buffer->GuardsIntact());
}

TEST(BatchNormElemtBackwardReference, IdenticalBitsForAnyThreadCount) {
  const std::vector<std::vector<int64_t>> shapes = {{8, 16, 24, 24}, {512, 24, 7}};
  uint64_t seed = 650;
  for (const auto& shape : shapes) {
    for (bntest::Layout layout : {bntest::Layout::kContiguous, bntest::Layout::kChannelsLast}) {
      for (bool mixed : {false, true}) {
        Spec s;
        s.shape = shape;
        s.io = ACL_BF16;
        s.layout[0] = s.layout[1] = s.layout[2] = layout;
        s.seed = ++seed;
        const aclDataType dtypes[3] = {ACL_BF16, mixed ? ACL_FLOAT : ACL_BF16, ACL_BF16};
        const auto runs = bnfam::ForThreadCounts<std::shared_ptr<ElemtBackwardProblem>>([&] {
          auto p = std::make_shared<ElemtBackwardProblem>(s, dtypes, false, ACL_INT32, std::vector<int64_t>{4}, 1);
          EXPECT_EQ(p->Run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
          return p;
        });
        for (size_t r = 1; r < runs.size(); ++r) EXPECT_TRUE(bnfam::SameBits(runs[0]->dx, runs[r]->dx)) << s.Describe();
      }
    }
  }
}

}  // namespace
