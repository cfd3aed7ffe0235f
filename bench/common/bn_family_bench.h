// The harness shared by the batch-norm family benchmarks (bench/batch_norm,
// bench/batch_norm_stats, bench/batch_norm_elemt, bench/batch_norm_reduce_backward,
// bench/batch_norm_elemt_backward): each main() fills in an OpBench (how to plan our operator,
// the PyTorch reference, the oneDNN primitive where oneDNN has the operation, the traffic
// floor) and calls RunFamilyBench.
//
//   openaclnn_bench_<op> [--shapes=FILE] [--cases=SUBSTRING] [--threads=N (default: 1 and all)]
//       [--reps=R] [--min_time_s=S] [--only_ours] [--checksum]
//
// For every shape of the shape file (the BN shapes of bench/fast_batch_norm_backward), each
// layout on its line (nchw, nhwc = channels-last), fp32 and bf16 activations (per-channel
// vectors fp32, as SyncBN passes them), every mode of the operator and 1 and all threads, one
// row: ours, torch and oneDNN on the same pre-faulted buffers, back to back in one process,
// then the triad probe (and for the reductions the read probe) on buffers of |x| bytes each at
// the same thread count. Times are the minimum over R repetitions of the mean of a timed loop
// lasting >= S seconds.
//
// Header-only on purpose: the OPENACLNN_BENCH_WITH_DNNL / _TORCH switches are per executable.
#pragma once

#include <malloc.h>

#include <algorithm>
#include <cerrno>  // program_invocation_short_name
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "acl/acl.h"
#include "bench_common.h"
#include "core/half.h"
#include "core/simd.h"
#include "core/thread_pool.h"

#if OPENACLNN_BENCH_WITH_TORCH
#include "bn_torch_ops.h"
#include "torch_oracle.h"
#endif
#if OPENACLNN_BENCH_WITH_DNNL
#include <oneapi/dnnl/dnnl.hpp>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

namespace bnbench {

using Clock = std::chrono::steady_clock;

struct Settings {
  std::string shapes = OPENACLNN_BN_SHAPES;
  std::string filter;
  int threads = 0;  // 0: run 1 and all
  int reps = 5;
  double min_time = 0.05;
  bool only_ours = false;  // --only_ours: skip torch, oneDNN and the probes (quick tuning runs)
  // --checksum: after timing ours, print a hash of its outputs (y and the per-channel outputs;
  // not the running statistics, which depend on the call count), to check that a kernel
  // change keeps the bits.
  bool checksum = false;
};

inline bool Flag(const char* arg, const char* name, std::string* value) {
  const size_t n = std::strlen(name);
  if (std::strncmp(arg, name, n) != 0 || arg[n] != '=') return false;
  *value = arg + n + 1;
  return true;
}

inline Settings ParseSettings(int argc, char** argv) {
  Settings s;
  for (int i = 1; i < argc; ++i) {
    std::string value;
    if (Flag(argv[i], "--shapes", &value)) s.shapes = value;
    else if (Flag(argv[i], "--cases", &value)) s.filter = value;
    else if (Flag(argv[i], "--threads", &value)) s.threads = std::atoi(value.c_str());
    else if (Flag(argv[i], "--reps", &value)) s.reps = std::max(1, std::atoi(value.c_str()));
    else if (Flag(argv[i], "--min_time_s", &value)) s.min_time = std::atof(value.c_str());
    else if (std::strcmp(argv[i], "--only_ours") == 0) s.only_ours = true;
    else if (std::strcmp(argv[i], "--checksum") == 0) s.checksum = true;
    else std::fprintf(stderr, "ignoring unknown argument %s\n", argv[i]);
  }
  return s;
}

// Minimum over reps of the mean time per call (seconds); NAN if fn throws.
inline double TimeCall(const std::function<void()>& fn, const Settings& s) {
  try {
    fn();  // warm-up (and plan caches)
    int64_t iterations = 1;
    double best = INFINITY;
    for (int rep = 0; rep < s.reps; ++rep) {
      for (;;) {
        const auto start = Clock::now();
        for (int64_t i = 0; i < iterations; ++i) fn();
        const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
        if (elapsed < s.min_time && iterations < (int64_t{1} << 24)) {
          iterations *= 2;
          continue;
        }
        best = std::min(best, elapsed / static_cast<double>(iterations));
        break;
      }
    }
    return best;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "  (skipped: %s)\n", e.what());
    return NAN;
  }
}

inline std::vector<int64_t> StridesFor(const std::vector<int64_t>& shape, bool channels_last) {
  std::vector<int64_t> order;  // innermost first
  if (channels_last) {
    order.push_back(1);
    for (size_t d = shape.size(); d-- > 2;) order.push_back(static_cast<int64_t>(d));
    order.push_back(0);
  } else {
    for (size_t d = shape.size(); d-- > 0;) order.push_back(static_cast<int64_t>(d));
  }
  std::vector<int64_t> strides(shape.size());
  int64_t step = 1;
  for (int64_t d : order) {
    strides[d] = step;
    step *= shape[d];
  }
  return strides;
}

// Deterministic fill in [-1, 1) (values do not matter for timing, but keep them finite).
inline void FillRandom(uint8_t* data, int64_t n, aclDataType dt, uint64_t seed) {
  uint64_t state = seed;
  for (int64_t i = 0; i < n; ++i) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    const float v = static_cast<float>(static_cast<double>(z >> 11) * 0x1.0p-53 * 2.0 - 1.0);
    if (dt == ACL_FLOAT) {
      reinterpret_cast<float*>(data)[i] = v;
    } else {
      reinterpret_cast<uint16_t*>(data)[i] = oa::FloatToBf16(v);
    }
  }
}

// Everything one (shape, layout, dtype) needs, allocated and touched once. The per-channel
// vectors are fp32.
struct Problem {
  std::vector<int64_t> shape, strides;
  bool channels_last = false;
  aclDataType dtype;
  int64_t numel = 0, channels = 0, reduce_size = 0;
  size_t element_bytes = 4;
  bench::Buffer x, dy, y, dnnl_y;
  // weight, bias, mean, invstd, var (inference variance), running_mean, running_var, four
  // per-channel outputs (ours), and oneDNN's statistics outputs / scratch.
  bench::Buffer weight, bias, mean, invstd, var, running_mean, running_var, out0, out1, out2, out3, dnnl_mean,
      dnnl_var;
  bench::Buffer counter;  // int32 [2, 1]: two "ranks" of reduce_size elements each
  bench::Buffer triad_a, triad_b, triad_c;

  Problem(const std::vector<int64_t>& s, bool cl, aclDataType dt)
      : shape(s), strides(StridesFor(s, cl)), channels_last(cl), dtype(dt) {
    numel = 1;
    for (int64_t d : shape) numel *= d;
    channels = shape[1];
    reduce_size = numel / channels;
    element_bytes = dt == ACL_FLOAT ? 4 : 2;
    const size_t bytes = static_cast<size_t>(numel) * element_bytes;
    x = bench::AllocateTouched(bytes);
    dy = bench::AllocateTouched(bytes);
    y = bench::AllocateTouched(bytes);
    dnnl_y = bench::AllocateTouched(bytes);
    FillRandom(x.get(), numel, dt, 1);
    FillRandom(dy.get(), numel, dt, 2);
    const size_t cbytes = static_cast<size_t>(channels) * 4;
    for (bench::Buffer* b : {&weight, &bias, &mean, &invstd, &var, &running_mean, &running_var, &out0, &out1, &out2,
                             &out3, &dnnl_mean, &dnnl_var}) {
      *b = bench::AllocateTouched(cbytes);
    }
    for (int64_t c = 0; c < channels; ++c) {
      bench::As<float>(weight)[c] = 1.0f + 0.01f * static_cast<float>(c % 7);
      bench::As<float>(bias)[c] = 0.01f * static_cast<float>(c % 5);
      bench::As<float>(mean)[c] = 0.1f;
      bench::As<float>(invstd)[c] = 1.5f;
      bench::As<float>(var)[c] = 0.4f;
      bench::As<float>(running_mean)[c] = 0.0f;
      bench::As<float>(running_var)[c] = 1.0f;
      bench::As<float>(out0)[c] = 0.3f;  // ElemtBackward reads out0/out1 as sumDy/sumDyXmu
      bench::As<float>(out1)[c] = 0.2f;
    }
    counter = bench::AllocateTouched(2 * sizeof(int32_t));
    bench::As<int32_t>(counter)[0] = static_cast<int32_t>(std::min<int64_t>(reduce_size, INT32_MAX));
    bench::As<int32_t>(counter)[1] = static_cast<int32_t>(std::min<int64_t>(reduce_size, INT32_MAX));
    // Probes over the footprint of x (each array |x| bytes).
    const size_t floats = std::max<size_t>(bytes / 4, 16);
    triad_a = bench::AllocateTouched(floats * 4, 0x3C);
    triad_b = bench::AllocateTouched(floats * 4, 0x3D);
    triad_c = bench::AllocateTouched(floats * 4);
  }
  double Bytes() const { return static_cast<double>(numel) * static_cast<double>(element_bytes); }
  size_t ProbeFloats() const { return std::max<size_t>(static_cast<size_t>(Bytes()) / 4, 16); }

#if OPENACLNN_BENCH_WITH_TORCH
  bench::TorchView View(const bench::Buffer& b) const {
    return bench::TorchView{b.get(), dtype != ACL_FLOAT, shape, strides};
  }
#endif
};

// Our operator through the public API: tensors created here, a repeatable executor planned
// for `threads`, then run + aclrtSynchronizeStream per call.
using RunFn = aclnnStatus (*)(void*, uint64_t, aclOpExecutor*, aclrtStream);

class Ours {
 public:
  Ours(Problem& p, aclrtStream stream) : p_(p), stream_(stream) {}
  Ours(const Ours&) = delete;
  Ours& operator=(const Ours&) = delete;
  ~Ours() {
    if (executor_ != nullptr) aclDestroyAclOpExecutor(executor_);
    for (aclTensor* t : tensors_) aclDestroyTensor(t);
  }
  // A big tensor over `buffer` with the problem's shape, strides and dtype, labelled NC, NCL,
  // NCHW or NCDHW by rank (aclnnBatchNorm requires a 5-D input to carry NCDHW or NDHWC;
  // channels-last memory keeps the NCHW-family label, as PyTorch's adapter passes it).
  aclTensor* Big(bench::Buffer& buffer) {
    const int64_t storage[] = {p_.numel};
    aclFormat format = ACL_FORMAT_ND;
    switch (p_.shape.size()) {
      case 2: format = ACL_FORMAT_NC; break;
      case 3: format = ACL_FORMAT_NCL; break;
      case 4: format = ACL_FORMAT_NCHW; break;
      case 5: format = ACL_FORMAT_NCDHW; break;
      default: break;
    }
    tensors_.push_back(aclCreateTensor(p_.shape.data(), p_.shape.size(), p_.dtype, p_.strides.data(), 0, format,
                                       storage, 1, buffer.get()));
    return tensors_.back();
  }
  // A fp32 [C] tensor over `buffer`.
  aclTensor* Vec(bench::Buffer& buffer) {
    const int64_t c[] = {p_.channels};
    tensors_.push_back(aclCreateTensor(c, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, buffer.get()));
    return tensors_.back();
  }
  // Any tensor (contiguous) over `buffer`.
  aclTensor* Other(bench::Buffer& buffer, std::vector<int64_t> shape, aclDataType dtype) {
    tensors_.push_back(aclCreateTensor(shape.data(), shape.size(), dtype, nullptr, 0, ACL_FORMAT_ND, nullptr, 0,
                                       buffer.get()));
    return tensors_.back();
  }
  // Calls GetWorkspaceSize (through `plan`, which gets &workspace_size and &executor) with
  // openaclnn limited to `threads`, marks the executor repeatable, allocates the workspace.
  void Plan(int threads, const std::function<aclnnStatus(uint64_t*, aclOpExecutor**)>& plan, RunFn run) {
    run_ = run;
    oa::SetNumThreads(threads);
    const aclnnStatus status = plan(&workspace_size_, &executor_);
    oa::SetNumThreads(0);
    if (status != ACLNN_SUCCESS) {
      std::fprintf(stderr, "GetWorkspaceSize failed (%d): %s\n", static_cast<int>(status), aclGetRecentErrMsg());
      std::exit(1);
    }
    aclSetAclOpExecutorRepeatable(executor_);
    workspace_ = bench::AllocateTouched(std::max<uint64_t>(workspace_size_, 64));
  }
  void Run() {
    if (run_(workspace_.get(), workspace_size_, executor_, stream_) != ACLNN_SUCCESS ||
        aclrtSynchronizeStream(stream_) != ACL_SUCCESS) {
      std::fprintf(stderr, "run failed: %s\n", aclGetRecentErrMsg());
      std::exit(1);
    }
  }

 private:
  Problem& p_;
  aclrtStream stream_;
  std::vector<aclTensor*> tensors_;
  aclOpExecutor* executor_ = nullptr;
  uint64_t workspace_size_ = 0;
  bench::Buffer workspace_;
  RunFn run_ = nullptr;
};

#if OPENACLNN_BENCH_WITH_DNNL
// oneDNN 2.6 batch_normalization_forward on the same layout (nchw/nhwc tags) with scale and
// shift: training computes the statistics (into its own mean/variance buffers) and
// normalises; inference uses the given mean and variance (use_global_stats). The output goes
// to a separate pre-faulted buffer.
struct OneDnnForward {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::batch_normalization_forward primitive;
  std::unordered_map<int, dnnl::memory> args;

  OneDnnForward(Problem& p, bool training) {
    using tag = dnnl::memory::format_tag;
    const size_t rank = p.shape.size();
    tag layout = tag::nc;
    if (rank == 3) layout = p.channels_last ? tag::nwc : tag::ncw;
    if (rank == 4) layout = p.channels_last ? tag::nhwc : tag::nchw;
    if (rank == 5) layout = p.channels_last ? tag::ndhwc : tag::ncdhw;
    const auto dt = p.dtype == ACL_FLOAT ? dnnl::memory::data_type::f32 : dnnl::memory::data_type::bf16;
    const dnnl::memory::dims dims(p.shape.begin(), p.shape.end());
    const dnnl::memory::desc data(dims, dt, layout);
    auto flags = dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;
    if (!training) flags = flags | dnnl::normalization_flags::use_global_stats;
    const dnnl::batch_normalization_forward::primitive_desc pd(
        {training ? dnnl::prop_kind::forward_training : dnnl::prop_kind::forward_inference, data, 1e-5f, flags},
        engine);
    primitive = dnnl::batch_normalization_forward(pd);
    const dnnl::memory::desc vec({p.channels}, dnnl::memory::data_type::f32, tag::a);
    args[DNNL_ARG_SRC] = dnnl::memory(data, engine, p.x.get());
    args[DNNL_ARG_DST] = dnnl::memory(data, engine, p.dnnl_y.get());
    args[DNNL_ARG_MEAN] = dnnl::memory(vec, engine, training ? p.dnnl_mean.get() : p.mean.get());
    args[DNNL_ARG_VARIANCE] = dnnl::memory(vec, engine, training ? p.dnnl_var.get() : p.var.get());
    args[DNNL_ARG_SCALE] = dnnl::memory(vec, engine, p.weight.get());
    args[DNNL_ARG_SHIFT] = dnnl::memory(vec, engine, p.bias.get());
  }
  void Run() {
    primitive.execute(stream, args);
    stream.wait();
  }
};
#endif

// One operator's benchmark.
struct OpBench {
  std::string title;               // "aclnnBatchNorm"
  std::string notes;               // printed under the title: references, floor
  std::vector<std::string> modes;  // e.g. {"train", "infer"}; {""} for a single mode
  // Bytes an ideal kernel moves per call in `mode`, as a multiple of |x|.
  std::function<double(const std::string& mode)> traffic_factor;
  bool read_probe = false;  // reductions: also report the read probe (they read, never write |x|)
  // Creates our tensors (ours.Big / ours.Vec over the problem's buffers) and calls ours.Plan.
  std::function<void(Ours& ours, Problem& p, const std::string& mode, int threads)> plan;
  // PyTorch reference (empty: "-").
  std::function<void(Problem& p, const std::string& mode)> torch;
  // oneDNN: returns a runner for (problem, mode), or an empty function where oneDNN has no
  // such operation.
  std::function<std::function<void()>(Problem& p, const std::string& mode)> dnnl;
};

inline void SetLibraryThreads(int threads) {
#if OPENACLNN_BENCH_WITH_TORCH
  oracle::SetTorchThreads(threads);
#endif
#ifdef _OPENMP
  omp_set_num_threads(threads);
#endif
}

inline std::string Ms(double seconds) {
  if (std::isnan(seconds)) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", seconds * 1e3);
  return text;
}
inline std::string Ratio(double theirs, double ours) {
  if (std::isnan(theirs) || std::isnan(ours)) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.2fx", theirs / ours);
  return text;
}
// FNV-1a over the bytes of a buffer.
inline uint64_t Fnv1a(const bench::Buffer& b, size_t bytes, uint64_t hash = 0xcbf29ce484222325ull) {
  for (size_t i = 0; i < bytes; ++i) hash = (hash ^ b.get()[i]) * 0x100000001b3ull;
  return hash;
}

inline std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string line;
  std::getline(in, line);
  return line.empty() ? "unknown" : line;
}

inline int RunFamilyBench(const OpBench& op, int argc, char** argv) {
  const Settings s = ParseSettings(argc, argv);
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

  std::printf("%s benchmark: SIMD %s, torch %s, oneDNN %s; buffers pre-faulted; min of %d reps (>= %.2f s each); "
              "times in ms\n",
              op.title.c_str(), oa::SimdTargetName().c_str(), bench::TorchCapability().c_str(),
#if OPENACLNN_BENCH_WITH_DNNL
              "2.6 (OpenMP)",
#else
              "not built in",
#endif
              s.reps, s.min_time);
  if (!op.notes.empty()) std::printf("%s\n", op.notes.c_str());
  std::printf("loadavg at start: %s\n", LoadAverage().c_str());
  std::printf("%-36s %3s %9s %9s %9s %7s %7s %5s", "case", "thr", "ours", "torch", "oneDNN", "GB/s", "triad", "roof%");
  if (op.read_probe) std::printf(" %7s %5s", "read", "rd%");
  std::printf(" %8s %8s\n", "torch/us", "dnnl/us");
  for (const bench::ShapeLine& line : bench::ReadShapeFile(s.shapes)) {
    const std::vector<int64_t> shape = bench::ParseInts(line.tokens.at(0));
    for (size_t l = 1; l < line.tokens.size(); ++l) {
      const bool channels_last = line.tokens[l] == "nhwc";
      for (aclDataType dt : {ACL_FLOAT, ACL_BF16}) {
        std::unique_ptr<Problem> problem;  // allocated only if some case of it runs
        for (const std::string& mode : op.modes) {
          const std::string name = line.tokens[0] + " " + line.tokens[l] + (dt == ACL_FLOAT ? " f32" : " bf16") +
                                   (mode.empty() ? "" : " " + mode);
          if (!s.filter.empty() && name.find(s.filter) == std::string::npos) continue;
          if (!problem) problem = std::make_unique<Problem>(shape, channels_last, dt);
          Problem& p = *problem;
          for (int threads : thread_counts) {
            SetLibraryThreads(threads);
            double t_ours = NAN, t_torch = NAN, t_dnnl = NAN;
            {
              Ours ours(p, stream);
              op.plan(ours, p, mode, threads);
              t_ours = TimeCall([&] { ours.Run(); }, s);
            }
            if (s.checksum) {
              uint64_t hash = Fnv1a(p.y, static_cast<size_t>(p.Bytes()));
              for (const bench::Buffer* b : {&p.out0, &p.out1, &p.out2, &p.out3}) {
                hash = Fnv1a(*b, static_cast<size_t>(p.channels) * 4, hash);
              }
              std::printf("checksum %s thr %d: %016llx\n", name.c_str(), threads, static_cast<unsigned long long>(hash));
            }
#if OPENACLNN_BENCH_WITH_TORCH
            if (!s.only_ours && op.torch) t_torch = TimeCall([&] { op.torch(p, mode); }, s);
#endif
            if (!s.only_ours && op.dnnl) try {
                const std::function<void()> runner = op.dnnl(p, mode);
                if (runner) t_dnnl = TimeCall(runner, s);
              } catch (const std::exception& e) {
                std::fprintf(stderr, "  (oneDNN skipped: %s)\n", e.what());
              }
            const double triad = s.only_ours ? NAN
                                             : bench::ProbeTriad(bench::As<float>(p.triad_a), bench::As<float>(p.triad_b),
                                                                 bench::As<float>(p.triad_c), p.ProbeFloats(), threads,
                                                                 s.reps);
            const double gbs = op.traffic_factor(mode) * p.Bytes() / t_ours / 1e9;
            std::printf("%-36s %3d %9s %9s %9s %7.1f %7.1f %4.0f%%", name.c_str(), threads, Ms(t_ours).c_str(),
                        Ms(t_torch).c_str(), Ms(t_dnnl).c_str(), gbs, triad, 100.0 * gbs / triad);
            if (op.read_probe) {
              const double read =
                  s.only_ours ? NAN : bench::ProbeRead(bench::As<float>(p.triad_a), p.ProbeFloats(), threads, s.reps);
              std::printf(" %7.1f %4.0f%%", read, 100.0 * gbs / read);
            }
            std::printf(" %8s %8s\n", Ratio(t_torch, t_ours).c_str(), Ratio(t_dnnl, t_ours).c_str());
            bench::AppendCsvRow({program_invocation_short_name, name, threads, op.traffic_factor(mode) * p.Bytes(),
                                 t_ours, t_torch, t_dnnl, triad, "triad"});
            std::fflush(stdout);
          }
        }
      }
    }
  }
  std::printf("loadavg at end: %s\n", LoadAverage().c_str());
  aclrtDestroyStream(stream);
  aclFinalize();
  return 0;
}

}  // namespace bnbench
