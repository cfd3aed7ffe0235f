// aclnnFastBatchNormBackward side by side with PyTorch's native_batch_norm_backward, oneDNN's
// batch_normalization_backward and the triad bandwidth probe, on the same pre-faulted
// buffers: training and inference, NCHW and channels-last, fp32 and bf16, 1 thread and all.
//
//   openaclnn_bench_fast_batch_norm_backward [--shapes=FILE] [--cases=SUBSTRING]
//       [--threads=N (default: 1 and all)] [--reps=R] [--min_time_s=S]
//
// Times are the minimum over R repetitions of the mean of a timed loop lasting >= S seconds.
// GB/s counts the traffic floor 3·|x| (read x, read dy, write dx); "roof%" divides it by
// the triad bandwidth measured on buffers of the same size at the same thread count.
// oneDNN's backward reads variance instead of invstd (fine for timing); its diff_src goes to
// a separate pre-faulted buffer. torch returns new tensors: their allocation is included in
// its time, with freed memory kept in the heap so only outputs above glibc's 32 MiB mmap
// ceiling pay page faults per call.
#include <malloc.h>

#include <algorithm>
#include <cerrno>  // program_invocation_short_name
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_fast_batch_norm_backward.h"
#include "bench_common.h"
#include "bn_family_bench.h"
#include "core/half.h"
#include "core/simd.h"
#include "core/thread_pool.h"

#if OPENACLNN_BENCH_WITH_TORCH
#include "torch_oracle.h"
#endif
#if OPENACLNN_BENCH_WITH_DNNL
#include <oneapi/dnnl/dnnl.hpp>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

namespace {

// The timing loop, settings, fills and formatting shared with the batch-norm family benchmarks.
using bnbench::FillRandom;
using bnbench::Ms;
using bnbench::Ratio;
using bnbench::SetLibraryThreads;
using bnbench::Settings;
using bnbench::StridesFor;
using bnbench::TimeCall;

// Everything one (shape, layout, dtype) needs, allocated and touched once.
struct Buffers {
  std::vector<int64_t> shape, strides;
  aclDataType dtype;
  int64_t numel = 0, channels = 0;
  size_t element_bytes = 4;
  bench::Buffer x, dy, dx, dnnl_dx;
  bench::Buffer weight, mean, invstd, var, gw, gb, dnnl_scale_diff, dnnl_shift_diff;
  bench::Buffer triad_a, triad_b, triad_c;

  Buffers(const std::vector<int64_t>& s, bool channels_last, aclDataType dt)
      : shape(s), strides(StridesFor(s, channels_last)), dtype(dt) {
    numel = 1;
    for (int64_t d : shape) numel *= d;
    channels = shape[1];
    element_bytes = dt == ACL_FLOAT ? 4 : 2;
    const size_t bytes = static_cast<size_t>(numel) * element_bytes;
    x = bench::AllocateTouched(bytes);
    dy = bench::AllocateTouched(bytes);
    dx = bench::AllocateTouched(bytes);
    dnnl_dx = bench::AllocateTouched(bytes);
    FillRandom(x.get(), numel, dt, 1);
    FillRandom(dy.get(), numel, dt, 2);
    const size_t cbytes = static_cast<size_t>(channels) * 4;
    for (bench::Buffer* b : {&weight, &mean, &invstd, &var, &gw, &gb, &dnnl_scale_diff, &dnnl_shift_diff}) {
      *b = bench::AllocateTouched(cbytes);
    }
    for (int64_t c = 0; c < channels; ++c) {
      bench::As<float>(weight)[c] = 1.0f + 0.01f * static_cast<float>(c % 7);
      bench::As<float>(mean)[c] = 0.1f;
      bench::As<float>(invstd)[c] = 1.5f;
      bench::As<float>(var)[c] = 0.4f;
    }
    // Triad probe over the same footprint as x, dy, dx.
    const size_t floats = std::max<size_t>(bytes / 4, 16);
    triad_a = bench::AllocateTouched(floats * 4, 0x3C);
    triad_b = bench::AllocateTouched(floats * 4, 0x3D);
    triad_c = bench::AllocateTouched(floats * 4);
  }
  double TrafficBytes() const { return 3.0 * static_cast<double>(numel) * static_cast<double>(element_bytes); }
};

}  // namespace


namespace {

// Our operator: a repeatable executor planned for `threads`, run + synchronize per call.
struct Ours {
  aclTensor *x = nullptr, *dy = nullptr, *dx = nullptr, *w = nullptr, *mean = nullptr, *spread = nullptr,
            *gw = nullptr, *gb = nullptr;
  aclBoolArray* mask = nullptr;
  aclOpExecutor* executor = nullptr;
  uint64_t workspace_size = 0;
  bench::Buffer workspace;
  aclrtStream stream = nullptr;

  Ours(Buffers& b, bool training, int threads, aclrtStream s) : stream(s) {
    const int64_t storage[] = {b.numel};
    const int64_t c[] = {b.channels};
    const uint64_t rank = b.shape.size();
    x = aclCreateTensor(b.shape.data(), rank, b.dtype, b.strides.data(), 0, ACL_FORMAT_ND, storage, 1, b.x.get());
    dy = aclCreateTensor(b.shape.data(), rank, b.dtype, b.strides.data(), 0, ACL_FORMAT_ND, storage, 1, b.dy.get());
    dx = aclCreateTensor(b.shape.data(), rank, b.dtype, b.strides.data(), 0, ACL_FORMAT_ND, storage, 1, b.dx.get());
    auto vec = [&](bench::Buffer& buffer) {
      return aclCreateTensor(c, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, buffer.get());
    };
    w = vec(b.weight), mean = vec(b.mean), spread = vec(training ? b.invstd : b.var), gw = vec(b.gw), gb = vec(b.gb);
    const bool all[] = {true, true, true};
    mask = aclCreateBoolArray(all, 3);
    oa::SetNumThreads(threads);
    const aclnnStatus status = aclnnFastBatchNormBackwardGetWorkspaceSize(
        dy, x, w, training ? nullptr : mean, training ? nullptr : spread, training ? mean : nullptr,
        training ? spread : nullptr, training, 1e-5, mask, 0, dx, gw, gb, &workspace_size, &executor);
    oa::SetNumThreads(0);
    if (status != ACLNN_SUCCESS) {
      std::fprintf(stderr, "GetWorkspaceSize failed: %s\n", aclGetRecentErrMsg());
      std::exit(1);
    }
    aclSetAclOpExecutorRepeatable(executor);
    workspace = bench::AllocateTouched(std::max<uint64_t>(workspace_size, 64));
  }
  ~Ours() {
    aclDestroyAclOpExecutor(executor);
    for (aclTensor* t : {x, dy, dx, w, mean, spread, gw, gb}) aclDestroyTensor(t);
    aclDestroyBoolArray(mask);
  }
  void Run() {
    if (aclnnFastBatchNormBackward(workspace.get(), workspace_size, executor, stream) != ACLNN_SUCCESS ||
        aclrtSynchronizeStream(stream) != ACL_SUCCESS) {
      std::fprintf(stderr, "run failed: %s\n", aclGetRecentErrMsg());
      std::exit(1);
    }
  }
};

#if OPENACLNN_BENCH_WITH_DNNL
struct OneDnn {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::batch_normalization_backward primitive;
  std::unordered_map<int, dnnl::memory> args;

  OneDnn(Buffers& b, bool training, bool channels_last) {
    using tag = dnnl::memory::format_tag;
    const size_t rank = b.shape.size();
    tag layout = tag::nc;
    if (rank == 3) layout = channels_last ? tag::nwc : tag::ncw;
    if (rank == 4) layout = channels_last ? tag::nhwc : tag::nchw;
    if (rank == 5) layout = channels_last ? tag::ndhwc : tag::ncdhw;
    const auto dt = b.dtype == ACL_FLOAT ? dnnl::memory::data_type::f32 : dnnl::memory::data_type::bf16;
    const dnnl::memory::dims dims(b.shape.begin(), b.shape.end());
    const dnnl::memory::desc data(dims, dt, layout);
    auto flags = dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;
    if (!training) flags = flags | dnnl::normalization_flags::use_global_stats;
    const dnnl::batch_normalization_forward::primitive_desc forward(
        {dnnl::prop_kind::forward_training, data, 1e-5f, flags}, engine);
    const dnnl::batch_normalization_backward::primitive_desc backward(
        {dnnl::prop_kind::backward, data, data, 1e-5f, flags}, engine, forward);
    primitive = dnnl::batch_normalization_backward(backward);
    const dnnl::memory::desc vec({b.channels}, dnnl::memory::data_type::f32, tag::a);
    args[DNNL_ARG_SRC] = dnnl::memory(data, engine, b.x.get());
    args[DNNL_ARG_DIFF_DST] = dnnl::memory(data, engine, b.dy.get());
    args[DNNL_ARG_DIFF_SRC] = dnnl::memory(data, engine, b.dnnl_dx.get());
    args[DNNL_ARG_MEAN] = dnnl::memory(vec, engine, b.mean.get());
    args[DNNL_ARG_VARIANCE] = dnnl::memory(vec, engine, b.var.get());
    args[DNNL_ARG_SCALE] = dnnl::memory(vec, engine, b.weight.get());
    args[DNNL_ARG_SHIFT] = dnnl::memory(vec, engine, b.mean.get());  // required with use_shift, not read
    args[DNNL_ARG_DIFF_SCALE] = dnnl::memory(vec, engine, b.dnnl_scale_diff.get());
    args[DNNL_ARG_DIFF_SHIFT] = dnnl::memory(vec, engine, b.dnnl_shift_diff.get());
  }
  void Run() {
    primitive.execute(stream, args);
    stream.wait();
  }
};
#endif

}  // namespace

int main(int argc, char** argv) {
  const Settings s = bnbench::ParseSettings(argc, argv);
  // torch returns freshly allocated outputs: keep freed blocks in the heap (up to glibc's
  // 32 MiB mmap ceiling) so its timing does not include first-touch page faults each call.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  if (aclInit(nullptr) != ACL_SUCCESS) return 1;
  aclrtStream stream = nullptr;
  if (aclrtCreateStream(&stream) != ACL_SUCCESS) return 1;
  const int all_threads = oa::DefaultThreadCount();
  std::vector<int> thread_counts = s.threads > 0 ? std::vector<int>{s.threads} : std::vector<int>{1, all_threads};
  if (thread_counts.size() == 2 && all_threads == 1) thread_counts.pop_back();

  std::printf("aclnnFastBatchNormBackward benchmark: SIMD %s, torch %s, oneDNN %s; buffers pre-faulted, all "
              "outputs requested; min of %d reps (>= %.2f s each); times in ms\n",
              oa::SimdTargetName().c_str(), bench::TorchCapability().c_str(),
#if OPENACLNN_BENCH_WITH_DNNL
              "2.6 (OpenMP)",
#else
              "not built in",
#endif
              s.reps, s.min_time);
  std::printf("%-36s %3s %9s %9s %9s %8s %8s %6s %8s %8s\n", "case", "thr", "ours", "torch", "oneDNN", "GB/s",
              "triad", "roof%", "torch/us", "dnnl/us");
  for (const bench::ShapeLine& line : bench::ReadShapeFile(s.shapes)) {
    const std::vector<int64_t> shape = bench::ParseInts(line.tokens.at(0));
    for (size_t l = 1; l < line.tokens.size(); ++l) {
      const bool channels_last = line.tokens[l] == "nhwc";
      for (aclDataType dt : {ACL_FLOAT, ACL_BF16}) {
        Buffers buffers(shape, channels_last, dt);
        for (bool training : {true, false}) {
          std::string name = line.tokens[0] + " " + line.tokens[l] + (dt == ACL_FLOAT ? " f32 " : " bf16 ") +
                             (training ? "train" : "infer");
          if (!s.filter.empty() && name.find(s.filter) == std::string::npos) continue;
          for (int threads : thread_counts) {
            SetLibraryThreads(threads);
            Ours ours(buffers, training, threads, stream);
            const double t_ours = TimeCall([&] { ours.Run(); }, s);
            double t_torch = NAN, t_dnnl = NAN;
#if OPENACLNN_BENCH_WITH_TORCH
            if (!s.only_ours) {
              const oracle::DType odt = dt == ACL_FLOAT ? oracle::DType::kFloat32 : oracle::DType::kBFloat16;
              oracle::View x{buffers.x.get(), odt, shape, buffers.strides};
              oracle::View dy{buffers.dy.get(), odt, shape, buffers.strides};
              const std::vector<int64_t> c{buffers.channels};
              oracle::View w{buffers.weight.get(), oracle::DType::kFloat32, c, {}};
              oracle::View mean{buffers.mean.get(), oracle::DType::kFloat32, c, {}};
              oracle::View spread{(training ? buffers.invstd : buffers.var).get(), oracle::DType::kFloat32, c, {}};
              oracle::View none_out{nullptr, odt, shape, {}};
              oracle::View none_vec{nullptr, oracle::DType::kFloat32, c, {}};
              t_torch = TimeCall(
                  [&] {
                    oracle::NativeBatchNormBackward(dy, x, w, mean, spread, mean, spread, training, 1e-5,
                                                    {true, true, true}, none_out, none_vec, none_vec);
                  },
                  s);
            }
#endif
#if OPENACLNN_BENCH_WITH_DNNL
            if (!s.only_ours) try {
              OneDnn dnnl_case(buffers, training, channels_last);
              t_dnnl = TimeCall([&] { dnnl_case.Run(); }, s);
            } catch (const std::exception& e) {
              std::fprintf(stderr, "  (oneDNN skipped: %s)\n", e.what());
            }
#endif
            const size_t triad_n = static_cast<size_t>(buffers.numel) * buffers.element_bytes / 4;
            const double triad = s.only_ours ? NAN : bench::ProbeTriad(bench::As<float>(buffers.triad_a), bench::As<float>(buffers.triad_b),
                                                   bench::As<float>(buffers.triad_c), std::max<size_t>(triad_n, 16),
                                                   threads, s.reps);
            const double gbs = buffers.TrafficBytes() / t_ours / 1e9;
            std::printf("%-36s %3d %9s %9s %9s %8.1f %8.1f %5.0f%% %8s %8s\n", name.c_str(), threads,
                        Ms(t_ours).c_str(), Ms(t_torch).c_str(), Ms(t_dnnl).c_str(), gbs, triad, 100.0 * gbs / triad,
                        Ratio(t_torch, t_ours).c_str(), Ratio(t_dnnl, t_ours).c_str());
            bench::AppendCsvRow({program_invocation_short_name, name, threads, buffers.TrafficBytes(), t_ours, t_torch,
                                 t_dnnl, triad, "triad"});
            std::fflush(stdout);
          }
        }
      }
    }
  }
  aclrtDestroyStream(stream);
  aclFinalize();
  return 0;
}
