// The normalization family side by side with PyTorch's CPU kernels (native_layer_norm,
// native_group_norm and their backwards; RmsNorm as torch's composite, which 1.13 has instead
// of an operator) and the triad probe, for the cases of cases.txt, forward and backward. Both of our phases run on
// every call; torch's functional calls allocate their results (that is their cost).
//
//   openaclnn_bench_norm [--threads=N] [--cases=SUBSTRING] [--cases_file=PATH]
//
// make bench runs it at 1 and 2 threads.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_group_norm.h"
#include "aclnnop/aclnn_group_norm_backward.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_instance_norm.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnnop/aclnn_rms_norm.h"
#include "aclnnop/aclnn_rms_norm_grad.h"
#include "bench_common.h"
#include "core/half.h"
#include "core/thread_pool.h"
#include "torch_oracle.h"

namespace {

struct NormCase {
  std::string name;
  bool rms = false, backward = false;
  int64_t groups = 0;            // GroupNorm: [rows = N, cols = C * HxW] viewed as [N, C, HxW]
  int64_t channels = 0, hxw = 0;
  bool channels_last = false;    // GroupNorm: C innermost
  bool instance = false;         // aclnnInstanceNorm: GroupNorm's data with groups = C, [N, C, HxW, 1] or NHWC
  aclDataType dtype = ACL_FLOAT;
  int64_t rows = 0, cols = 0;
  int threads = 1;
  bench::Buffer x, dy, out, weight, bias, mean, rstd, grad_weight, grad_bias, workspace, triad_a, triad_b, triad_c;
  bench::Buffer torch_mean, torch_rstd;  // torch's saved statistics: the input's dtype
  aclTensor *x_t = nullptr, *dy_t = nullptr, *out_t = nullptr, *weight_t = nullptr, *bias_t = nullptr,
            *mean_t = nullptr, *rstd_t = nullptr, *grad_weight_t = nullptr, *grad_bias_t = nullptr;
  aclIntArray* norm_shape = nullptr;
  aclBoolArray* mask = nullptr;
  uint64_t workspace_bytes = 0;

  size_t ElementSize() const { return dtype == ACL_FLOAT ? 4 : 2; }
  double Bytes() const { return static_cast<double>(rows * cols * ElementSize()) * (backward ? 5 : 3); }
  oracle::DType OracleDtype() const { return dtype == ACL_FLOAT ? oracle::DType::kFloat32 : oracle::DType::kBFloat16; }

  aclTensor* Make(const bench::Buffer& buffer, std::vector<int64_t> shape, aclDataType type) const {
    std::vector<int64_t> strides(shape.size(), 1);
    for (size_t d = shape.size() - 1; d-- > 0;) strides[d] = strides[d + 1] * shape[d + 1];
    if (shape.size() == 3 && channels_last) strides = {shape[1] * shape[2], 1, shape[1]};
    return aclCreateTensor(shape.data(), shape.size(), type, strides.data(), 0, ACL_FORMAT_ND, nullptr, 0,
                           buffer.get());
  }

  void Fill(const bench::Buffer& buffer, int64_t n, double lo, double hi, uint32_t seed) const {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> uniform(static_cast<float>(lo), static_cast<float>(hi));
    for (int64_t k = 0; k < n; ++k) {
      const float v = uniform(rng);
      if (dtype == ACL_FLOAT) {
        bench::As<float>(buffer)[k] = v;
      } else {
        bench::As<uint16_t>(buffer)[k] = oa::FloatToBf16(v);
      }
    }
  }

  void Setup() {
    const int64_t n = rows * cols;
    x = bench::AllocateTouched(n * ElementSize());
    dy = bench::AllocateTouched(n * ElementSize());
    out = bench::AllocateTouched(n * ElementSize());
    weight = bench::AllocateTouched(cols * ElementSize());
    bias = bench::AllocateTouched(cols * ElementSize());
    mean = bench::AllocateTouched(rows * std::max<int64_t>(groups, 1) * 4);
    rstd = bench::AllocateTouched(rows * std::max<int64_t>(groups, 1) * 4);
    grad_weight = bench::AllocateTouched(cols * 4);
    grad_bias = bench::AllocateTouched(cols * 4);
    Fill(x, n, -2.0, 2.0, 1);
    Fill(dy, n, -1.0, 1.0, 2);
    Fill(weight, cols, 0.5, 1.5, 3);
    Fill(bias, cols, -0.5, 0.5, 4);
    const std::vector<int64_t> big = groups ? std::vector<int64_t>{rows, channels, hxw} : std::vector<int64_t>{rows, cols};
    const std::vector<int64_t> params{groups ? channels : cols};
    const std::vector<int64_t> stat = groups ? std::vector<int64_t>{rows, groups} : std::vector<int64_t>{rows, 1};
    // GroupNorm takes every tensor in self's dtype; the others float32 statistics.
    const aclDataType small = groups ? dtype : ACL_FLOAT;
    x_t = Make(x, big, dtype);
    dy_t = Make(dy, big, dtype);
    out_t = Make(out, big, dtype);
    if (instance) {  // 4-D in the layout dataFormat names
      aclDestroyTensor(x_t);
      aclDestroyTensor(out_t);
      const std::vector<int64_t> four = channels_last ? std::vector<int64_t>{rows, hxw, 1, channels}
                                                      : std::vector<int64_t>{rows, channels, hxw, 1};
      const bool keep = channels_last;
      channels_last = false;  // Make's strides: contiguous
      x_t = Make(x, four, dtype);
      out_t = Make(out, four, dtype);
      channels_last = keep;
    }
    weight_t = Make(weight, params, dtype);
    bias_t = Make(bias, params, dtype);
    mean_t = Make(mean, stat, small);
    rstd_t = Make(rstd, stat, small);
    grad_weight_t = Make(grad_weight, params, small);
    grad_bias_t = Make(grad_bias, params, small);
    const int64_t dims[1] = {cols};
    norm_shape = aclCreateIntArray(dims, 1);
    const bool flags[3] = {true, true, true};
    mask = aclCreateBoolArray(flags, 3);
    // The saved statistics the backward reads: the forward's.
    const bool keep_backward = backward;
    backward = false;
    workspace = bench::AllocateTouched(64 << 20);
    RunOurs();
    backward = keep_backward;
    torch_mean = bench::AllocateTouched(rows * ElementSize());
    torch_rstd = bench::AllocateTouched(rows * ElementSize());
    for (int64_t r = 0; r < rows; ++r) {
      for (const auto& [from, to] : {std::make_pair(&mean, &torch_mean), std::make_pair(&rstd, &torch_rstd)}) {
        const float value = bench::As<float>(*from)[r];
        if (dtype == ACL_FLOAT) {
          bench::As<float>(*to)[r] = value;
        } else {
          bench::As<uint16_t>(*to)[r] = oa::FloatToBf16(value);
        }
      }
    }
    const size_t triad_floats = static_cast<size_t>(Bytes() / 12);
    triad_a = bench::AllocateTouched(triad_floats * 4, 0x3C);
    triad_b = bench::AllocateTouched(triad_floats * 4, 0x3D);
    triad_c = bench::AllocateTouched(triad_floats * 4);
  }

  void Check(aclnnStatus status) const {
    if (status != ACLNN_SUCCESS) {
      std::fprintf(stderr, "%s: %s\n", name.c_str(), aclGetRecentErrMsg());
      std::exit(1);
    }
  }

  void RunOurs() const {
    uint64_t size = 0;
    aclOpExecutor* executor = nullptr;
    aclnnStatus (*run)(void*, uint64_t, aclOpExecutor*, aclrtStream) = nullptr;
    if (instance) {
      Check(aclnnInstanceNormGetWorkspaceSize(x_t, weight_t, bias_t, channels_last ? "NHWC" : "NCHW", 1e-5, out_t,
                                              mean_t, rstd_t, &size, &executor));
      run = aclnnInstanceNorm;
    } else if (groups != 0 && !backward) {
      Check(aclnnGroupNormGetWorkspaceSize(x_t, weight_t, bias_t, rows, channels, hxw, groups, 1e-5, out_t, mean_t,
                                           rstd_t, &size, &executor));
      run = aclnnGroupNorm;
    } else if (groups != 0) {
      Check(aclnnGroupNormBackwardGetWorkspaceSize(dy_t, x_t, mean_t, rstd_t, weight_t, rows, channels, hxw, groups,
                                                   mask, out_t, grad_weight_t, grad_bias_t, &size, &executor));
      run = aclnnGroupNormBackward;
    } else if (!backward && !rms) {
      Check(aclnnLayerNormGetWorkspaceSize(x_t, norm_shape, weight_t, bias_t, 1e-5, out_t, mean_t, rstd_t, &size,
                                           &executor));
      run = aclnnLayerNorm;
    } else if (!backward) {
      Check(aclnnRmsNormGetWorkspaceSize(x_t, weight_t, 1e-6, out_t, rstd_t, &size, &executor));
      run = aclnnRmsNorm;
    } else if (!rms) {
      Check(aclnnLayerNormBackwardGetWorkspaceSize(dy_t, x_t, norm_shape, mean_t, rstd_t, weight_t, bias_t, mask, out_t,
                                                   grad_weight_t, grad_bias_t, &size, &executor));
      run = aclnnLayerNormBackward;
    } else {
      Check(aclnnRmsNormGradGetWorkspaceSize(dy_t, x_t, rstd_t, weight_t, out_t, grad_weight_t, &size, &executor));
      run = aclnnRmsNormGrad;
    }
    if (size > (64u << 20)) {
      std::fprintf(stderr, "%s: workspace of %llu bytes\n", name.c_str(), static_cast<unsigned long long>(size));
      std::exit(1);
    }
    Check(run(workspace.get(), size, executor, nullptr));
    if (aclrtSynchronizeStream(nullptr) != ACL_SUCCESS) Check(ACLNN_ERR_INNER);
  }

  oracle::View View(const bench::Buffer& buffer, std::vector<int64_t> shape, oracle::DType type) const {
    oracle::View v;
    v.data = buffer.get();
    v.dtype = type;
    v.shape = std::move(shape);
    return v;
  }
  // An output torch computes and drops.
  static oracle::View Dropped(std::vector<int64_t> shape) {
    oracle::View v;
    v.shape = std::move(shape);
    return v;
  }

  void RunTorch() const {
    const oracle::DType type = OracleDtype();
    const oracle::View xv = View(x, {rows, cols}, type), wv = View(weight, {cols}, type);
    if (groups != 0) {
      const oracle::View gx = GroupView(x), gw = View(weight, {channels}, type);
      if (!backward) {
        oracle::NativeGroupNorm(gx, gw, View(bias, {channels}, type), rows, channels, hxw, groups, 1e-5, {}, {}, {});
      } else {
        oracle::NativeGroupNormBackward(GroupView(dy), gx, View(mean, {rows, groups}, type),
                                        View(rstd, {rows, groups}, type), gw, rows, channels, hxw, groups,
                                        Dropped({rows, channels, hxw}), Dropped({channels}), Dropped({channels}));
      }
      return;
    }
    if (!backward && !rms) {
      oracle::NativeLayerNorm(xv, {cols}, wv, View(bias, {cols}, type), 1e-5, {}, {}, {});
    } else if (!backward) {
      oracle::RmsNorm(xv, wv, 1e-6, {}, {});
    } else if (!rms) {
      // torch's saved statistics are in the input's dtype.
      oracle::NativeLayerNormBackward(View(dy, {rows, cols}, type), xv, {cols}, TorchStat(torch_mean), TorchStat(torch_rstd), wv,
                                      View(bias, {cols}, type), Dropped({rows, cols}), Dropped({cols}),
                                      Dropped({cols}));
    } else {
      oracle::RmsNormGrad(View(dy, {rows, cols}, type), xv, View(rstd, {rows, 1}, oracle::DType::kFloat32), wv, {}, {});
    }
  }
  // x, dy as torch sees GroupNorm's [N, C, HxW] (channels-last: C innermost). Channels-last
  // goes to torch as a 4-D [N, C, H, W] (H x W = HxW, W the largest divisor not above its
  // square root) in channels-last strides: torch has no channels-last 3-D form, and takes a
  // size-1 W as ambiguous; either way its oracle would copy to contiguous first and time that.
  oracle::View GroupView(const bench::Buffer& buffer) const {
    if (!channels_last) return View(buffer, {rows, channels, hxw}, OracleDtype());
    int64_t w = 1;
    for (int64_t d = 2; d * d <= hxw; ++d)
      if (hxw % d == 0) w = d;
    oracle::View v = View(buffer, {rows, channels, hxw / w, w}, OracleDtype());
    v.strides = {channels * hxw, 1, w * channels, channels};
    return v;
  }
  oracle::View TorchStat(const bench::Buffer& buffer) const { return View(buffer, {rows, 1}, OracleDtype()); }

  void RunTriad() const {
    bench::TriadOnce(bench::As<float>(triad_a), bench::As<float>(triad_b), bench::As<float>(triad_c),
                     static_cast<size_t>(Bytes() / 12), threads);
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
    std::fprintf(stderr, "runtime setup failed: %s\n", aclGetRecentErrMsg());
    return 1;
  }
  const std::string cases_file = bench::TakeFlag(&argc, argv, "--cases_file", NORM_BENCH_CASES);
  const bench::Options options = bench::ParseOptions(&argc, argv);
  std::vector<std::shared_ptr<NormCase>> cases;
  for (const bench::ShapeLine& line : bench::ReadShapeFile(cases_file)) {
    if (line.tokens.size() < 4 || line.tokens.size() > 6) {
      std::fprintf(stderr, "%s:%d: want 'name op RxC dtype' or 'name group_norm NxCxHxW dtype groups layouts'\n",
                   cases_file.c_str(), line.line_number);
      return 1;
    }
    const std::vector<int64_t> shape = bench::ParseInts(line.tokens[2]);
    const bool instance = line.tokens[1] == "instance_norm";
    const bool group = line.tokens[1] == "group_norm" || instance;
    const std::string layouts = line.tokens.size() > 5 ? line.tokens[5] : "first";
    for (const char* layout : {"first", "last"}) {
      if (layouts.find(layout) == std::string::npos) continue;
      for (bool backward : {false, true}) {
        if (instance && backward) continue;  // no backward API
        auto c = std::make_shared<NormCase>();
        c->instance = instance;
        c->rms = line.tokens[1] == "rms_norm";
        c->backward = backward;
        c->dtype = line.tokens[3] == "bf16" ? ACL_BF16 : ACL_FLOAT;
        c->rows = shape.at(0);
        c->cols = 1;
        for (size_t k = 1; k < shape.size(); ++k) c->cols *= shape[k];
        if (group) {
          c->channels = shape.at(1);
          c->groups = instance ? c->channels : std::stoll(line.tokens.at(4));
          c->hxw = c->cols / c->channels;
          c->channels_last = std::string(layout) == "last";
          c->dtype = ACL_FLOAT;  // torch 1.13's group norm: float32 on CPU
        }
        c->threads = options.threads > 0 ? options.threads : oa::NumThreads();
        c->name = line.tokens[0] + (group ? std::string(" ") + layout : "") + (backward ? " bwd " : " fwd ") +
                  line.tokens[3];
        if (!options.filter.empty() && c->name.find(options.filter) == std::string::npos) continue;
        c->Setup();
        cases.push_back(c);
        bench::Case run{c->name, c->Bytes(), [c] { c->RunOurs(); }, [c] { c->RunTorch(); }, [c] { c->RunTriad(); }};
        run.roof = "triad";
        bench::RegisterCase(run);
      }
    }
  }
  const int status = bench::RunRegisteredCases(options, argc, argv);
  cases.clear();
  aclrtResetDevice(0);
  aclFinalize();
  return status;
}
