// Cross-architecture checksums: a fixed set of problems run through the public API (inputs
// from an integer hash, so every platform builds the same bytes), the output bytes hashed
// with FNV-1a 64 and compared with tests/cross_arch/checksums.txt, generated on x86-64.
// The test runs on every SIMD target of every architecture the suite runs on (x86: AVX3,
// AVX2, SSE4, SCALAR; AArch64 under qemu: NEON, SVE, SVE2, SVE_256, SVE2_128), and each
// problem at 1, 2 and 3 threads.
//
// Every problem must give the same bits on every target, every architecture and every
// thread count, as the operator pages promise: upsample copies element bits or sums in a
// fixed float32 order; batch norm sums in float64 with the same partial sums in the same
// order on every target and never fuses a multiply-add (second review, item 4). So each
// checksum is compared with the golden file everywhere, and across 1, 2 and 3 threads.
// The "cancel" batch-norm problems sum inputs holding cancelling +-2^60, so their float64
// sums depend on the order of the additions: any other summation order changes the bits.
//
// Regenerate the golden file (on x86-64, after a deliberate change of results):
//   build/release/tests/cross_arch/cross_arch_checksum_test --regenerate
// writes tests/cross_arch/checksums.txt in the source tree (--golden=PATH elsewhere).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_add_layer_norm.h"
#include "aclnnop/aclnn_add_layer_norm_grad.h"
#include "aclnnop/aclnn_add_rms_norm.h"
#include "aclnnop/aclnn_batch_norm.h"
#include "aclnnop/aclnn_batch_norm_reduce.h"
#include "aclnnop/aclnn_batch_norm_backward_reduce.h"
#include "aclnnop/aclnn_batch_norm_elemt.h"
#include "aclnnop/aclnn_batch_norm_stats.h"
#include "aclnnop/aclnn_fast_batch_norm_backward.h"
#include "aclnnop/aclnn_group_norm.h"
#include "aclnnop/aclnn_group_norm_backward.h"
#include "aclnnop/aclnn_instance_norm.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnnop/aclnn_rms_norm.h"
#include "aclnnop/aclnn_rms_norm_grad.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d_backward.h"
#include "core/simd.h"
#include "core/thread_pool.h"
#include "upsample_interp/interp_apis.h"
#include "support/device_stream_test.h"

namespace {

std::string g_golden_path = OPENACLNN_CROSS_ARCH_GOLDEN;
bool g_regenerate = false;

// ------------------------------------------------------------------ deterministic inputs

uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// A finite float with a full random mantissa, magnitude in [2^(lo-127), 2^(hi-126)).
uint32_t FloatBits(uint64_t h, uint32_t lo_exponent, uint32_t hi_exponent) {
  const uint32_t sign = static_cast<uint32_t>(h >> 63) << 31;
  const uint32_t exponent = lo_exponent + static_cast<uint32_t>((h >> 32) % (hi_exponent - lo_exponent + 1));
  return sign | (exponent << 23) | static_cast<uint32_t>(h & 0x7FFFFF);
}

enum class Type { kF32, kF16, kBF16 };

const char* TypeName(Type type) { return type == Type::kF32 ? "fp32" : type == Type::kF16 ? "fp16" : "bf16"; }
aclDataType AclType(Type type) { return type == Type::kF32 ? ACL_FLOAT : type == Type::kF16 ? ACL_FLOAT16 : ACL_BF16; }
size_t TypeBytes(Type type) { return type == Type::kF32 ? 4 : 2; }

// count elements of `type` from stream `seed`; `positive` keeps the sign bit clear.
std::vector<uint8_t> Fill(Type type, int64_t count, uint64_t seed, bool positive = false) {
  std::vector<uint8_t> bytes(static_cast<size_t>(count) * TypeBytes(type));
  for (int64_t i = 0; i < count; ++i) {
    uint64_t h = SplitMix64(seed * 0x100000001B3ull + static_cast<uint64_t>(i));
    if (positive) h &= ~(uint64_t{1} << 63);
    if (type == Type::kF32) {
      const uint32_t bits = FloatBits(h, 120, 134);  // about 2^-7 .. 2^8
      std::memcpy(bytes.data() + 4 * i, &bits, 4);
    } else if (type == Type::kBF16) {
      const uint16_t bits = static_cast<uint16_t>(FloatBits(h, 120, 134) >> 16);
      std::memcpy(bytes.data() + 2 * i, &bits, 2);
    } else {
      const uint16_t sign = static_cast<uint16_t>((h >> 63) << 15);
      const uint16_t exponent = static_cast<uint16_t>(8 + (h >> 32) % 15);  // about 2^-7 .. 2^8
      const uint16_t bits = static_cast<uint16_t>(sign | (exponent << 10) | (h & 0x3FF));
      std::memcpy(bytes.data() + 2 * i, &bits, 2);
    }
  }
  return bytes;
}

// Cancelling pairs in an [N, C, *] tensor's memory (`stride`: the distance between two
// neighbours of one channel, 1 planar, C channels-last): about one element in 16 becomes
// +2^60 (fp16: +2^15) and its neighbour in the channel the same negated. A channel's exact
// sum is then its ordinary values' sum, but its float64 running sum climbs to multiples of
// 2^60 and falls back, so which ordinary values survive depends on the summation order.
void AddCancellingPairs(std::vector<uint8_t>& bytes, Type type, const std::vector<int64_t>& dims, int64_t stride,
                        uint64_t seed) {
  const int64_t count = static_cast<int64_t>(bytes.size() / TypeBytes(type));
  int64_t run = 1;  // elements of one channel next to each other (planar), or rows (channels-last)
  for (size_t d = 2; d < dims.size(); ++d) run *= dims[d];
  const auto set = [&](int64_t i, bool negative) {
    if (type == Type::kF32) {
      const uint32_t bits = (negative ? 0x80000000u : 0u) | (187u << 23);  // 2^60
      std::memcpy(bytes.data() + 4 * i, &bits, 4);
    } else {
      const uint16_t bits = type == Type::kBF16 ? static_cast<uint16_t>((negative ? 0x8000u : 0u) | (187u << 7))
                                                : static_cast<uint16_t>((negative ? 0x8000u : 0u) | (30u << 10));
      std::memcpy(bytes.data() + 2 * i, &bits, 2);
    }
  };
  for (int64_t i = 0; i + stride < count; ++i) {
    const int64_t position = stride == 1 ? i % run : (i / dims[1]) % run;  // of i within its channel's run
    if (position + 1 >= run || SplitMix64(seed * 0x9E37ull + static_cast<uint64_t>(i)) % 16 != 0) continue;
    set(i, false);
    set(i + stride, true);
  }
}

uint64_t Fnv1a(const std::vector<uint8_t>& bytes, uint64_t hash = 0xCBF29CE484222325ull) {
  for (uint8_t byte : bytes) {
    hash ^= byte;
    hash *= 0x100000001B3ull;
  }
  return hash;
}

// ------------------------------------------------------------------ device tensors

// Device memory holding `bytes`, viewed as one tensor.
class DeviceTensor {
 public:
  DeviceTensor(const std::vector<uint8_t>& bytes, const std::vector<int64_t>& dims, const std::vector<int64_t>& strides,
               aclDataType type, aclFormat format)
      : bytes_(bytes.size()) {
    EXPECT_EQ(aclrtMalloc(&data_, bytes_, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemcpy(data_, bytes_, bytes.data(), bytes_, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    const int64_t storage = static_cast<int64_t>(bytes_) / static_cast<int64_t>(type == ACL_FLOAT ? 4 : 2);
    tensor_ = aclCreateTensor(dims.data(), dims.size(), type, strides.data(), 0, format, &storage, 1, data_);
    EXPECT_NE(tensor_, nullptr) << aclGetRecentErrMsg();
  }
  DeviceTensor(const DeviceTensor&) = delete;
  DeviceTensor& operator=(const DeviceTensor&) = delete;
  ~DeviceTensor() {
    aclDestroyTensor(tensor_);
    aclrtFree(data_);
  }
  aclTensor* get() const { return tensor_; }
  std::vector<uint8_t> Read() const {
    std::vector<uint8_t> host(bytes_);
    EXPECT_EQ(aclrtMemcpy(host.data(), bytes_, data_, bytes_, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    return host;
  }

 private:
  size_t bytes_;
  void* data_ = nullptr;
  aclTensor* tensor_ = nullptr;
};

std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t i = dims.size() - 1; i-- > 0;) strides[i] = strides[i + 1] * dims[i + 1];
  return strides;
}

int64_t Count(const std::vector<int64_t>& dims) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  return count;
}

// [N, C, *] viewed over channels-last memory (C innermost), as the batch-norm pages allow.
std::vector<int64_t> ChannelsLastStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> order = {0};  // N, spatial dims, then C
  for (size_t i = 2; i < dims.size(); ++i) order.push_back(static_cast<int64_t>(i));
  order.push_back(1);
  std::vector<int64_t> strides(dims.size());
  int64_t stride = 1;
  for (size_t k = order.size(); k-- > 0;) {
    strides[order[k]] = stride;
    stride *= dims[order[k]];
  }
  return strides;
}

// `cancel`: with cancelling pairs (AddCancellingPairs).
std::unique_ptr<DeviceTensor> Make(Type type, const std::vector<int64_t>& dims, uint64_t seed,
                                   aclFormat format = ACL_FORMAT_ND, bool channels_last = false,
                                   bool positive = false, bool cancel = false) {
  std::vector<uint8_t> bytes = Fill(type, Count(dims), seed, positive);
  if (cancel) AddCancellingPairs(bytes, type, dims, channels_last ? dims[1] : 1, seed);
  return std::make_unique<DeviceTensor>(bytes, dims, channels_last ? ChannelsLastStrides(dims) : ContiguousStrides(dims),
                                        AclType(type), format);
}

// Outputs start as a fixed byte pattern, so an element left unwritten changes nothing between
// platforms but is still part of the checksum.
std::unique_ptr<DeviceTensor> MakeOutput(Type type, const std::vector<int64_t>& dims, aclFormat format = ACL_FORMAT_ND,
                                         bool channels_last = false) {
  std::vector<uint8_t> pattern(static_cast<size_t>(Count(dims)) * TypeBytes(type), 0xA5);
  return std::make_unique<DeviceTensor>(pattern, dims,
                                        channels_last ? ChannelsLastStrides(dims) : ContiguousStrides(dims),
                                        AclType(type), format);
}

// Phase 2 on the stream, then wait; false (with a test failure) on any error.
bool RunPlanned(aclnnStatus planned, uint64_t workspace_size, aclOpExecutor* executor,
                aclnnStatus (*run)(void*, uint64_t, aclOpExecutor*, aclrtStream), aclrtStream stream) {
  EXPECT_EQ(planned, ACLNN_SUCCESS) << aclGetRecentErrMsg();
  if (planned != ACLNN_SUCCESS) return false;
  void* workspace = nullptr;
  if (workspace_size > 0) {
    EXPECT_EQ(aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  }
  const aclnnStatus status = run(workspace, workspace_size, executor, stream);
  EXPECT_EQ(status, ACLNN_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS) << aclGetRecentErrMsg();
  if (workspace != nullptr) aclrtFree(workspace);
  return status == ACLNN_SUCCESS;
}

uint64_t HashOutputs(const std::vector<const DeviceTensor*>& outputs) {
  uint64_t hash = 0xCBF29CE484222325ull;
  for (const DeviceTensor* output : outputs) hash = Fnv1a(output->Read(), hash);
  return hash;
}

// ------------------------------------------------------------------ the problems

struct Problem {
  std::string name;
  std::function<uint64_t(aclrtStream)> run;
};

std::vector<Problem> Problems() {
  std::vector<Problem> problems;
  const Type types[] = {Type::kF32, Type::kF16, Type::kBF16};

  // Upsample forward: sizes only (non-integer ratios), exact x2, scales that refine the
  // ratio, a downsample, and channels-last (NDHWC) with odd channel counts.
  struct Forward {
    const char* name;
    std::vector<int64_t> in;  // view dims: [N, C, D, H, W], or [N, D, H, W, C] for NDHWC
    std::vector<int64_t> out_size;
    double scale;  // > 0: given for all three dims
    bool ndhwc;
  };
  const Forward forwards[] = {
      {"ratio_7_9_11", {2, 3, 4, 5, 6}, {7, 9, 11}, 0.0, false},
      {"twice", {1, 4, 3, 4, 37}, {6, 8, 74}, 0.0, false},
      {"scales_2.9", {1, 2, 3, 3, 3}, {8, 8, 8}, 2.9, false},
      {"down_5_3_17", {2, 3, 9, 7, 40}, {5, 3, 17}, 0.0, false},
      {"ndhwc_c19", {2, 3, 4, 5, 19}, {5, 7, 9}, 0.0, true},
      // Big enough for 3 threads and tasks (outputs of 1.5 MiB and more).
      {"threads_33_41_81", {2, 4, 16, 20, 40}, {33, 41, 81}, 0.0, false},
  };
  for (const Forward& f : forwards) {
    for (Type type : types) {
      problems.push_back({std::string("upsample_forward.") + f.name + "." + TypeName(type),
                          [f, type](aclrtStream stream) -> uint64_t {
                            const aclFormat format = f.ndhwc ? ACL_FORMAT_NDHWC : ACL_FORMAT_NCDHW;
                            std::vector<int64_t> out = f.in;
                            const int first_spatial = f.ndhwc ? 1 : 2;
                            for (int k = 0; k < 3; ++k) out[first_spatial + k] = f.out_size[k];
                            auto self = Make(type, f.in, 11, format);
                            auto result = MakeOutput(type, out, format);
                            aclIntArray* size = aclCreateIntArray(f.out_size.data(), 3);
                            uint64_t workspace = 0;
                            aclOpExecutor* executor = nullptr;
                            const aclnnStatus planned = aclnnUpsampleNearestExact3dGetWorkspaceSize(
                                self->get(), size, f.scale, f.scale, f.scale, result->get(), &workspace, &executor);
                            aclDestroyIntArray(size);
                            if (!RunPlanned(planned, workspace, executor, aclnnUpsampleNearestExact3d, stream)) return 0;
                            return HashOutputs({result.get()});
                          }});
    }
  }

  // Upsample backward: every width pattern the planner picks (identity, x2 to x4, windows and
  // lookups for non-integer ratios, wide W), a downsample (gaps), channels-last.
  struct Backward {
    const char* name;
    std::vector<int64_t> grad_out;  // [N, C, d, h, w] or [N, d, h, w, C]
    std::vector<int64_t> input;     // [N, C, D, H, W] (inputSize), same order as grad_out's view
    bool ndhwc;
  };
  const Backward backwards[] = {
      {"ratio_7_9_11", {2, 3, 7, 9, 11}, {2, 3, 4, 5, 6}, false},
      {"identity_w", {1, 3, 5, 4, 40}, {1, 3, 2, 4, 40}, false},
      {"twice_w", {1, 4, 6, 8, 74}, {1, 4, 3, 4, 37}, false},
      {"thrice_w", {1, 3, 4, 6, 111}, {1, 3, 2, 3, 37}, false},
      {"four_times_w", {1, 2, 3, 4, 180}, {1, 2, 3, 2, 45}, false},
      {"window_67_29", {1, 2, 3, 4, 67}, {1, 2, 2, 3, 29}, false},
      {"wide_300_7", {1, 2, 2, 3, 300}, {1, 2, 1, 2, 7}, false},
      {"down_3_4_9", {2, 2, 3, 4, 9}, {2, 2, 5, 7, 20}, false},
      {"ndhwc_c19", {2, 6, 9, 12, 19}, {2, 3, 4, 5, 19}, true},
      {"threads_17_25_61", {2, 4, 17, 25, 61}, {2, 4, 8, 16, 40}, false},  // big enough for 3 threads
  };
  for (const Backward& b : backwards) {
    for (Type type : types) {
      problems.push_back(
          {std::string("upsample_backward.") + b.name + "." + TypeName(type),
           [b, type](aclrtStream stream) -> uint64_t {
             const aclFormat format = b.ndhwc ? ACL_FORMAT_NDHWC : ACL_FORMAT_NCDHW;
             const int first_spatial = b.ndhwc ? 1 : 2;
             const std::vector<int64_t> output_size = {b.grad_out[first_spatial], b.grad_out[first_spatial + 1],
                                                       b.grad_out[first_spatial + 2]};
             // inputSize is always [N, C, D, H, W].
             const std::vector<int64_t> input_size =
                 b.ndhwc ? std::vector<int64_t>{b.input[0], b.input[4], b.input[1], b.input[2], b.input[3]} : b.input;
             auto grad_out = Make(type, b.grad_out, 23, format);
             auto grad_input = MakeOutput(type, b.input, format);
             aclIntArray* out_array = aclCreateIntArray(output_size.data(), 3);
             aclIntArray* in_array = aclCreateIntArray(input_size.data(), 5);
             uint64_t workspace = 0;
             aclOpExecutor* executor = nullptr;
             const aclnnStatus planned = aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(
                 grad_out->get(), out_array, in_array, 0.0, 0.0, 0.0, grad_input->get(), &workspace, &executor);
             aclDestroyIntArray(out_array);
             aclDestroyIntArray(in_array);
             if (!RunPlanned(planned, workspace, executor, aclnnUpsampleNearestExact3dBackward, stream)) return 0;
             return HashOutputs({grad_input.get()});
           }});
    }
  }

  // The interpolating upsample family, every API: a planar problem (up 1.6-2x, down 2x for
  // the anti-aliased kinds, big enough for 3 threads) and a channels-last one with 19
  // channels (vector tails) and align_corners, in each 16/32-bit dtype the API takes.
  for (const interp_test::InterpApi& api : interp_test::InterpApis()) {
    const bool aa = api.kind == oracle::InterpKind::kBilinearAA || api.kind == oracle::InterpKind::kBicubicAA;
    for (const bool channels_last : {false, true}) {
      std::vector<int64_t> small = {2, channels_last ? 19 : 4}, large = small;  // logical [N, C, spatial...]
      const int64_t ins[3] = {5, 24, 40}, outs[3] = {9, 41, 67};
      for (int k = 3 - api.spatial; k < 3; ++k) {
        small.push_back(aa ? outs[k] : ins[k]);
        large.push_back(aa ? ins[k] * 2 : outs[k]);
      }
      if (aa && !api.backward) std::swap(small, large);  // the AA forwards shrink
      if (aa && api.backward) {
        for (size_t k = 2; k < small.size(); ++k) std::swap(small[k], large[k]);  // the forward shrank
      }
      for (Type type : types) {
        const aclDataType acl_type = AclType(type);
        bool accepted = false;
        for (aclDataType t : api.dtypes) accepted = accepted || t == acl_type;
        if (!accepted) continue;
        problems.push_back(
            {api.name.substr(5) + (channels_last ? ".channels_last." : ".planar.") + TypeName(type),
             [&api, small, large, channels_last, type](aclrtStream stream) -> uint64_t {
               // Channels-last memory under the API's channels-first label ([N, C, spatial...] view).
               const std::vector<int64_t>& in_dims = api.backward ? large : small;
               const std::vector<int64_t>& out_dims = api.backward ? small : large;
               auto in = Make(type, in_dims, 37, api.format, channels_last);
               auto out = MakeOutput(type, out_dims, api.format, channels_last);
               const std::vector<int64_t> output_size(large.begin() + 2, large.end());
               aclIntArray* size = aclCreateIntArray(output_size.data(), output_size.size());
               aclIntArray* input_size = aclCreateIntArray(small.data(), small.size());
               const double scales[3] = {api.absent_scale, api.absent_scale, api.absent_scale};
               uint64_t workspace = 0;
               aclOpExecutor* executor = nullptr;
               const aclnnStatus planned =
                   api.backward ? api.backward_phase1(in->get(), size, input_size, channels_last, scales, out->get(),
                                                      &workspace, &executor)
                                : api.forward(in->get(), size, channels_last, scales, out->get(), &workspace, &executor);
               aclDestroyIntArray(size);
               aclDestroyIntArray(input_size);
               if (!RunPlanned(planned, workspace, executor, api.phase2, stream)) return 0;
               return HashOutputs({out.get()});
             }});
      }
    }
  }

  // Batch norm: planar (several blocks per channel), channels-last rows (several row
  // blocks), each in fp32, fp16 and bf16; per-channel tensors in fp32. Both are above the
  // planner's one-thread limit (65536 elements), so 2 and 3 threads really split them.
  // The "cancel" shapes: the summed input holds cancelling +-2^60 (AddCancellingPairs), runs that are
  // not multiples of the 16 partial sums (tails), short runs (several runs per block), rows
  // with a lane tail. The forward operators sum x, the backward ones dy (x stays ordinary, so
  // gradWeight = invstd * sum(dy * (x - mean)) stays finite).
  struct BnShape {
    const char* name;
    std::vector<int64_t> dims;
    bool channels_last;
    bool cancel;
  };
  const BnShape bn_shapes[] = {
      {"planar_2x3x160x130", {2, 3, 160, 130}, false, false},
      {"rows_4x8x48x48", {4, 8, 48, 48}, true, false},
      {"cancel_planar_3x5x37", {3, 5, 37}, false, true},
      {"cancel_planar_2x3x7x9", {2, 3, 7, 9}, false, true},
      {"cancel_planar_2x2x300x230", {2, 2, 300, 230}, false, true},  // several blocks, 2-3 threads
      {"cancel_rows_3x19x5x5", {3, 19, 5, 5}, true, true},
  };
  for (const BnShape& shape : bn_shapes) {
    const int64_t channels = shape.dims[1];
    const std::vector<int64_t> per_channel = {channels};
    const aclFormat format = shape.channels_last ? ACL_FORMAT_NHWC : ACL_FORMAT_NCHW;
    for (Type type : types) {
      const std::string suffix = std::string(shape.name) + "." + TypeName(type);
      problems.push_back({"batch_norm_training." + suffix, [=](aclrtStream stream) -> uint64_t {
                            auto input = Make(type, shape.dims, 31, format, shape.channels_last, false, shape.cancel);
                            auto weight = Make(Type::kF32, per_channel, 32);
                            auto bias = Make(Type::kF32, per_channel, 33);
                            auto running_mean = Make(Type::kF32, per_channel, 34);
                            auto running_var = Make(Type::kF32, per_channel, 35, ACL_FORMAT_ND, false, true);
                            auto output = MakeOutput(type, shape.dims, format, shape.channels_last);
                            auto save_mean = MakeOutput(Type::kF32, per_channel);
                            auto save_invstd = MakeOutput(Type::kF32, per_channel);
                            uint64_t workspace = 0;
                            aclOpExecutor* executor = nullptr;
                            const aclnnStatus planned = aclnnBatchNormGetWorkspaceSize(
                                input->get(), weight->get(), bias->get(), running_mean->get(), running_var->get(),
                                true, 0.1, 1e-5, output->get(), save_mean->get(), save_invstd->get(), &workspace,
                                &executor);
                            if (!RunPlanned(planned, workspace, executor, aclnnBatchNorm, stream)) return 0;
                            return HashOutputs({output.get(), save_mean.get(), save_invstd.get(), running_mean.get(),
                                                running_var.get()});
                          }});
      problems.push_back({"batch_norm_backward_training." + suffix, [=](aclrtStream stream) -> uint64_t {
                            auto grad_out = Make(type, shape.dims, 41, format, shape.channels_last, false, shape.cancel);
                            auto input = Make(type, shape.dims, 42, format, shape.channels_last);
                            auto weight = Make(Type::kF32, per_channel, 43);
                            auto save_mean = Make(Type::kF32, per_channel, 44);
                            auto save_invstd = Make(Type::kF32, per_channel, 45, ACL_FORMAT_ND, false, true);
                            auto grad_input = MakeOutput(type, shape.dims, format, shape.channels_last);
                            auto grad_weight = MakeOutput(Type::kF32, per_channel);
                            auto grad_bias = MakeOutput(Type::kF32, per_channel);
                            const bool mask[3] = {true, true, true};
                            aclBoolArray* output_mask = aclCreateBoolArray(mask, 3);
                            uint64_t workspace = 0;
                            aclOpExecutor* executor = nullptr;
                            const aclnnStatus planned = aclnnFastBatchNormBackwardGetWorkspaceSize(
                                grad_out->get(), input->get(), weight->get(), nullptr, nullptr, save_mean->get(),
                                save_invstd->get(), true, 1e-5, output_mask, 0, grad_input->get(), grad_weight->get(),
                                grad_bias->get(), &workspace, &executor);
                            aclDestroyBoolArray(output_mask);
                            if (!RunPlanned(planned, workspace, executor, aclnnFastBatchNormBackward, stream)) return 0;
                            return HashOutputs({grad_input.get(), grad_weight.get(), grad_bias.get()});
                          }});
      problems.push_back({"batch_norm_stats." + suffix, [=](aclrtStream stream) -> uint64_t {
                            auto input = Make(type, shape.dims, 51, format, shape.channels_last, false, shape.cancel);
                            auto mean = MakeOutput(Type::kF32, per_channel);
                            auto invstd = MakeOutput(Type::kF32, per_channel);
                            uint64_t workspace = 0;
                            aclOpExecutor* executor = nullptr;
                            const aclnnStatus planned = aclnnBatchNormStatsGetWorkspaceSize(
                                input->get(), 1e-5, mean->get(), invstd->get(), &workspace, &executor);
                            if (!RunPlanned(planned, workspace, executor, aclnnBatchNormStats, stream)) return 0;
                            return HashOutputs({mean.get(), invstd.get()});
                          }});
      problems.push_back({"batch_norm_elemt." + suffix, [=](aclrtStream stream) -> uint64_t {
                            auto input = Make(type, shape.dims, 61, format, shape.channels_last, false, shape.cancel);
                            auto weight = Make(Type::kF32, per_channel, 62);
                            auto bias = Make(Type::kF32, per_channel, 63);
                            auto mean = Make(Type::kF32, per_channel, 64);
                            auto invstd = Make(Type::kF32, per_channel, 65, ACL_FORMAT_ND, false, true);
                            auto output = MakeOutput(type, shape.dims, format, shape.channels_last);
                            uint64_t workspace = 0;
                            aclOpExecutor* executor = nullptr;
                            const aclnnStatus planned = aclnnBatchNormElemtGetWorkspaceSize(
                                input->get(), weight->get(), bias->get(), mean->get(), invstd->get(), 1e-5,
                                output->get(), &workspace, &executor);
                            if (!RunPlanned(planned, workspace, executor, aclnnBatchNormElemt, stream)) return 0;
                            return HashOutputs({output.get()});
                          }});
      if (!shape.cancel) continue;
      // Inference backward with every output (gradInput and the sums in one pass), and
      // SyncBN's reduce backward.
      problems.push_back({"batch_norm_backward_inference." + suffix, [=](aclrtStream stream) -> uint64_t {
                            auto grad_out = Make(type, shape.dims, 71, format, shape.channels_last, false, true);
                            auto input = Make(type, shape.dims, 72, format, shape.channels_last);
                            auto weight = Make(Type::kF32, per_channel, 73);
                            auto running_mean = Make(Type::kF32, per_channel, 74);
                            auto running_var = Make(Type::kF32, per_channel, 75, ACL_FORMAT_ND, false, true);
                            auto grad_input = MakeOutput(type, shape.dims, format, shape.channels_last);
                            auto grad_weight = MakeOutput(Type::kF32, per_channel);
                            auto grad_bias = MakeOutput(Type::kF32, per_channel);
                            const bool mask[3] = {true, true, true};
                            aclBoolArray* output_mask = aclCreateBoolArray(mask, 3);
                            uint64_t workspace = 0;
                            aclOpExecutor* executor = nullptr;
                            const aclnnStatus planned = aclnnFastBatchNormBackwardGetWorkspaceSize(
                                grad_out->get(), input->get(), weight->get(), running_mean->get(), running_var->get(),
                                nullptr, nullptr, false, 1e-5, output_mask, 0, grad_input->get(), grad_weight->get(),
                                grad_bias->get(), &workspace, &executor);
                            aclDestroyBoolArray(output_mask);
                            if (!RunPlanned(planned, workspace, executor, aclnnFastBatchNormBackward, stream)) return 0;
                            return HashOutputs({grad_input.get(), grad_weight.get(), grad_bias.get()});
                          }});
      problems.push_back({"batch_norm_reduce_backward." + suffix, [=](aclrtStream stream) -> uint64_t {
                            auto grad_out = Make(type, shape.dims, 81, format, shape.channels_last, false, true);
                            auto input = Make(type, shape.dims, 82, format, shape.channels_last);
                            auto mean = Make(Type::kF32, per_channel, 83);
                            auto invstd = Make(Type::kF32, per_channel, 84, ACL_FORMAT_ND, false, true);
                            auto sum_dy = MakeOutput(Type::kF32, per_channel);
                            auto sum_dy_xmu = MakeOutput(Type::kF32, per_channel);
                            auto grad_weight = MakeOutput(Type::kF32, per_channel);
                            auto grad_bias = MakeOutput(Type::kF32, per_channel);
                            uint64_t workspace = 0;
                            aclOpExecutor* executor = nullptr;
                            const aclnnStatus planned = aclnnBatchNormReduceBackwardGetWorkspaceSize(
                                grad_out->get(), input->get(), mean->get(), invstd->get(), nullptr, true, true, true,
                                sum_dy->get(), sum_dy_xmu->get(), grad_weight->get(), grad_bias->get(), &workspace,
                                &executor);
                            if (!RunPlanned(planned, workspace, executor, aclnnBatchNormReduceBackward, stream)) {
                              return 0;
                            }
                            return HashOutputs({sum_dy.get(), sum_dy_xmu.get(), grad_weight.get(), grad_bias.get()});
                          }});
    }
  }
  // The review's reproducer: one channel [1, 1, 32] holding 2^60, fifteen 1s, -2^60,
  // fifteen 1s (exact sum 30); each summation order gives another float64 sum.
  problems.push_back({"batch_norm_reduce_backward.cancel_1x1x32_2p60.fp32", [](aclrtStream stream) -> uint64_t {
                        std::vector<float> values(32, 1.0f);
                        values[0] = 0x1p60f;
                        values[16] = -0x1p60f;
                        std::vector<uint8_t> bytes(values.size() * 4);
                        std::memcpy(bytes.data(), values.data(), bytes.size());
                        const std::vector<int64_t> dims = {1, 1, 32}, one = {1};
                        DeviceTensor grad_out(bytes, dims, ContiguousStrides(dims), ACL_FLOAT, ACL_FORMAT_NCL);
                        DeviceTensor input(std::vector<uint8_t>(bytes.size(), 0), dims, ContiguousStrides(dims), ACL_FLOAT,
                                           ACL_FORMAT_NCL);
                        const std::vector<uint8_t> zero(4, 0);
                        DeviceTensor mean(zero, one, one, ACL_FLOAT, ACL_FORMAT_ND);
                        DeviceTensor invstd(zero, one, one, ACL_FLOAT, ACL_FORMAT_ND);
                        auto sum_dy = MakeOutput(Type::kF32, one);
                        auto sum_dy_xmu = MakeOutput(Type::kF32, one);
                        uint64_t workspace = 0;
                        aclOpExecutor* executor = nullptr;
                        const aclnnStatus planned = aclnnBatchNormReduceBackwardGetWorkspaceSize(
                            grad_out.get(), input.get(), mean.get(), invstd.get(), nullptr, true, false, false,
                            sum_dy->get(), sum_dy_xmu->get(), nullptr, nullptr, &workspace, &executor);
                        if (!RunPlanned(planned, workspace, executor, aclnnBatchNormReduceBackward, stream)) return 0;
                        return HashOutputs({sum_dy.get(), sum_dy_xmu.get()});
                      }});
  // The row normalizations (LayerNorm, RmsNorm and their backwards) over the last dim: a
  // short row, rows of 1037 with cancelling pairs (the row sums' order), 300 rows of 257
  // (three blocks on two threads: the column sums' block order), and rows of at most four
  // sum groups (the backward's rows held in registers), whole and with a tail.
  struct NormShape {
    const char* name;
    std::vector<int64_t> dims;
    bool cancel;
  };
  const NormShape norm_shapes[] = {
      {"rows_7x300", {7, 300}, false},
      {"cancel_3x2x1037", {3, 2, 1037}, true},
      {"blocks_300x257", {300, 257}, false},
      {"short_300x32", {300, 32}, true},
      {"short_3x41x9", {3, 41, 9}, false},
      {"short_129x23", {129, 23}, false},
      {"short_70x64", {70, 64}, true},
      {"short_65x50", {65, 50}, false},
  };
  for (const NormShape& shape : norm_shapes) {
    const int64_t cols = shape.dims.back();
    const std::vector<int64_t> lanes = {cols};
    std::vector<int64_t> stat = shape.dims;
    stat.back() = 1;
    for (Type type : types) {
      const std::string suffix = std::string(shape.name) + "." + TypeName(type);
      problems.push_back({"layer_norm." + suffix, [=](aclrtStream stream) -> uint64_t {
                            auto input = Make(type, shape.dims, 81, ACL_FORMAT_ND, false, false, shape.cancel);
                            auto weight = Make(Type::kF32, lanes, 82);
                            auto bias = Make(Type::kF32, lanes, 83);
                            auto output = MakeOutput(type, shape.dims);
                            auto mean = MakeOutput(Type::kF32, stat);
                            auto rstd = MakeOutput(Type::kF32, stat);
                            aclIntArray* norm = aclCreateIntArray(&cols, 1);
                            uint64_t workspace = 0;
                            aclOpExecutor* executor = nullptr;
                            const aclnnStatus planned = aclnnLayerNormGetWorkspaceSize(
                                input->get(), norm, weight->get(), bias->get(), 1e-5, output->get(), mean->get(),
                                rstd->get(), &workspace, &executor);
                            aclDestroyIntArray(norm);
                            if (!RunPlanned(planned, workspace, executor, aclnnLayerNorm, stream)) return 0;
                            return HashOutputs({output.get(), mean.get(), rstd.get()});
                          }});
      problems.push_back({"layer_norm_backward." + suffix, [=](aclrtStream stream) -> uint64_t {
                            auto grad_out = Make(type, shape.dims, 84, ACL_FORMAT_ND, false, false, shape.cancel);
                            auto input = Make(type, shape.dims, 85);
                            auto mean = Make(Type::kF32, stat, 86);
                            auto rstd = Make(Type::kF32, stat, 87, ACL_FORMAT_ND, false, true);
                            auto weight = Make(Type::kF32, lanes, 88);
                            auto grad_input = MakeOutput(type, shape.dims);
                            auto grad_weight = MakeOutput(Type::kF32, lanes);
                            auto grad_bias = MakeOutput(Type::kF32, lanes);
                            aclIntArray* norm = aclCreateIntArray(&cols, 1);
                            const bool mask[3] = {true, true, true};
                            aclBoolArray* output_mask = aclCreateBoolArray(mask, 3);
                            uint64_t workspace = 0;
                            aclOpExecutor* executor = nullptr;
                            const aclnnStatus planned = aclnnLayerNormBackwardGetWorkspaceSize(
                                grad_out->get(), input->get(), norm, mean->get(), rstd->get(), weight->get(), nullptr,
                                output_mask, grad_input->get(), grad_weight->get(), grad_bias->get(), &workspace,
                                &executor);
                            aclDestroyIntArray(norm);
                            aclDestroyBoolArray(output_mask);
                            if (!RunPlanned(planned, workspace, executor, aclnnLayerNormBackward, stream)) return 0;
                            return HashOutputs({grad_input.get(), grad_weight.get(), grad_bias.get()});
                          }});
      problems.push_back({"rms_norm." + suffix, [=](aclrtStream stream) -> uint64_t {
                            auto input = Make(type, shape.dims, 91, ACL_FORMAT_ND, false, false, shape.cancel);
                            auto gamma = Make(Type::kF32, lanes, 92);
                            auto output = MakeOutput(type, shape.dims);
                            auto rstd = MakeOutput(Type::kF32, stat);
                            uint64_t workspace = 0;
                            aclOpExecutor* executor = nullptr;
                            const aclnnStatus planned = aclnnRmsNormGetWorkspaceSize(
                                input->get(), gamma->get(), 1e-6, output->get(), rstd->get(), &workspace, &executor);
                            if (!RunPlanned(planned, workspace, executor, aclnnRmsNorm, stream)) return 0;
                            return HashOutputs({output.get(), rstd.get()});
                          }});
      problems.push_back({"rms_norm_grad." + suffix, [=](aclrtStream stream) -> uint64_t {
                            auto grad_out = Make(type, shape.dims, 94, ACL_FORMAT_ND, false, false, shape.cancel);
                            auto input = Make(type, shape.dims, 95);
                            auto rstd = Make(Type::kF32, stat, 96, ACL_FORMAT_ND, false, true);
                            auto gamma = Make(Type::kF32, lanes, 97);
                            auto grad_input = MakeOutput(type, shape.dims);
                            auto grad_gamma = MakeOutput(Type::kF32, lanes);
                            uint64_t workspace = 0;
                            aclOpExecutor* executor = nullptr;
                            const aclnnStatus planned = aclnnRmsNormGradGetWorkspaceSize(
                                grad_out->get(), input->get(), rstd->get(), gamma->get(), grad_input->get(),
                                grad_gamma->get(), &workspace, &executor);
                            if (!RunPlanned(planned, workspace, executor, aclnnRmsNormGrad, stream)) return 0;
                            return HashOutputs({grad_input.get(), grad_gamma.get()});
                          }});
    }
  }
  // The residual forms over rows of 1037 with cancelling pairs in x1 (the sum's and the row
  // sums' order): AddRmsNorm, AddLayerNorm with a per-lane bias, AddLayerNormGrad with dsum.
  {
    const std::vector<int64_t> dims = {3, 2, 1037}, lanes = {1037}, stat = {3, 2, 1};
    for (Type type : types) {
      const std::string suffix = std::string("cancel_3x2x1037.") + TypeName(type);
      problems.push_back({"add_rms_norm." + suffix, [=](aclrtStream stream) -> uint64_t {
                            auto x1 = Make(type, dims, 111, ACL_FORMAT_ND, false, false, true);
                            auto x2 = Make(type, dims, 112);
                            auto gamma = Make(type, lanes, 113);
                            auto y = MakeOutput(type, dims);
                            auto rstd = MakeOutput(Type::kF32, stat);
                            auto x = MakeOutput(type, dims);
                            uint64_t workspace = 0;
                            aclOpExecutor* executor = nullptr;
                            const aclnnStatus planned =
                                aclnnAddRmsNormGetWorkspaceSize(x1->get(), x2->get(), gamma->get(), 1e-6, y->get(),
                                                                rstd->get(), x->get(), &workspace, &executor);
                            if (!RunPlanned(planned, workspace, executor, aclnnAddRmsNorm, stream)) return 0;
                            return HashOutputs({y.get(), rstd.get(), x.get()});
                          }});
      problems.push_back({"add_layer_norm." + suffix, [=](aclrtStream stream) -> uint64_t {
                            auto x1 = Make(type, dims, 114, ACL_FORMAT_ND, false, false, true);
                            auto x2 = Make(type, dims, 115);
                            auto gamma = Make(Type::kF32, lanes, 116);
                            auto beta = Make(Type::kF32, lanes, 117);
                            auto bias = Make(type, lanes, 118);
                            auto y = MakeOutput(type, dims);
                            auto mean = MakeOutput(Type::kF32, stat);
                            auto rstd = MakeOutput(Type::kF32, stat);
                            auto x = MakeOutput(type, dims);
                            uint64_t workspace = 0;
                            aclOpExecutor* executor = nullptr;
                            const aclnnStatus planned = aclnnAddLayerNormGetWorkspaceSize(
                                x1->get(), x2->get(), gamma->get(), beta->get(),
                                bias->get(), 1e-5, true, y->get(), mean->get(), rstd->get(), x->get(), &workspace,
                                &executor);
                            if (!RunPlanned(planned, workspace, executor, aclnnAddLayerNorm, stream)) return 0;
                            return HashOutputs({y.get(), mean.get(), rstd.get(), x.get()});
                          }});
      problems.push_back({"add_layer_norm_grad." + suffix, [=](aclrtStream stream) -> uint64_t {
                            auto dy = Make(type, dims, 119, ACL_FORMAT_ND, false, false, true);
                            auto x1 = Make(type, dims, 120);
                            auto x2 = Make(type, dims, 121);
                            auto rstd = Make(Type::kF32, stat, 122, ACL_FORMAT_ND, false, true);
                            auto mean = Make(Type::kF32, stat, 123);
                            auto gamma = Make(type, lanes, 124);
                            auto dsum = Make(type, dims, 125);
                            auto dx = MakeOutput(type, dims);
                            auto dgamma = MakeOutput(Type::kF32, lanes);
                            auto dbeta = MakeOutput(Type::kF32, lanes);
                            uint64_t workspace = 0;
                            aclOpExecutor* executor = nullptr;
                            const aclnnStatus planned = aclnnAddLayerNormGradGetWorkspaceSize(
                                dy->get(), x1->get(), x2->get(), rstd->get(), mean->get(), gamma->get(), dsum->get(),
                                dx->get(), dgamma->get(), dbeta->get(), &workspace, &executor);
                            if (!RunPlanned(planned, workspace, executor, aclnnAddLayerNormGrad, stream)) return 0;
                            return HashOutputs({dx.get(), dgamma.get(), dbeta.get()});
                          }});
    }
  }
  // InstanceNorm ([2, 5, 17, 19], NCHW and NHWC) and BatchNormReduce (NCHW and NHWC labels)
  // with cancelling pairs along each instance or channel.
  for (bool nhwc : {false, true}) {
    const std::vector<int64_t> dims = nhwc ? std::vector<int64_t>{2, 17, 19, 5} : std::vector<int64_t>{2, 5, 17, 19};
    const std::vector<int64_t> channels = {5}, stat = nhwc ? std::vector<int64_t>{2, 1, 1, 5}
                                                            : std::vector<int64_t>{2, 5, 1, 1};
    for (Type type : types) {
      const std::string suffix = std::string(nhwc ? "nhwc" : "nchw") + "_2x5x17x19." + TypeName(type);
      if (type != Type::kBF16) {  // float32 and float16 only
        problems.push_back({"instance_norm." + suffix, [=](aclrtStream stream) -> uint64_t {
                              auto x = Make(type, dims, 131, ACL_FORMAT_ND, false, false, !nhwc);
                              auto gamma = Make(type, channels, 132);
                              auto beta = Make(type, channels, 133);
                              auto y = MakeOutput(type, dims);
                              auto mean = MakeOutput(type, stat);
                              auto variance = MakeOutput(type, stat);
                              uint64_t workspace = 0;
                              aclOpExecutor* executor = nullptr;
                              const aclnnStatus planned = aclnnInstanceNormGetWorkspaceSize(
                                  x->get(), gamma->get(), beta->get(), nhwc ? "NHWC" : "NCHW", 1e-5, y->get(),
                                  mean->get(), variance->get(), &workspace, &executor);
                              if (!RunPlanned(planned, workspace, executor, aclnnInstanceNorm, stream)) return 0;
                              return HashOutputs({y.get(), mean.get(), variance.get()});
                            }});
      }
      problems.push_back({"batch_norm_reduce." + suffix, [=](aclrtStream stream) -> uint64_t {
                            auto x = Make(type, dims, 134, nhwc ? ACL_FORMAT_NHWC : ACL_FORMAT_NCHW, false, false,
                                          !nhwc);
                            auto sum = MakeOutput(Type::kF32, channels);
                            auto square_sum = MakeOutput(Type::kF32, channels);
                            uint64_t workspace = 0;
                            aclOpExecutor* executor = nullptr;
                            const aclnnStatus planned = aclnnBatchNormReduceGetWorkspaceSize(
                                x->get(), sum->get(), square_sum->get(), &workspace, &executor);
                            if (!RunPlanned(planned, workspace, executor, aclnnBatchNormReduce, stream)) return 0;
                            return HashOutputs({sum.get(), square_sum.get()});
                          }});
    }
  }
  // GroupNorm and its backward: [3, 6, 17, 19] in 3 groups (channel runs of 323), planar and
  // channels-last (per-channel sums over rows), with cancelling pairs along each channel's
  // run or rows; and channels-last [2, 16, 9, 37] in 4 groups, [1, 48, 6, 7] in 12 and
  // [2, 64, 5, 13] in 32, whose channels are whole vectors on some targets (channels in
  // registers: up to 4 vectors on AVX2, 8 on AVX-512) and not on others (NEON, SVE, scalar).
  struct GroupShape {
    int64_t n, c, h, w, groups;
    bool channels_last;
  };
  const GroupShape group_shapes[] = {
      {3, 6, 17, 19, 3, false}, {3, 6, 17, 19, 3, true}, {2, 16, 9, 37, 4, true},
      {1, 48, 6, 7, 12, true},  {2, 64, 5, 13, 32, true}};
  for (const GroupShape& shape : group_shapes) {
    const bool channels_last = shape.channels_last;
    const int64_t n = shape.n, c = shape.c, hxw = shape.h * shape.w, groups = shape.groups;
    const std::vector<int64_t> dims = {n, c, shape.h, shape.w}, channels = {c}, stat = {n, groups};
    for (Type type : types) {
      const std::string suffix = std::string(channels_last ? "last" : "planar") + "_" + std::to_string(n) + "x" +
                                 std::to_string(c) + "x" + std::to_string(shape.h) + "x" + std::to_string(shape.w) +
                                 "." + TypeName(type);
      problems.push_back({"group_norm." + suffix, [=](aclrtStream stream) -> uint64_t {
                            auto self = Make(type, dims, 101, ACL_FORMAT_ND, channels_last, false, true);
                            auto gamma = Make(type, channels, 102);
                            auto beta = Make(type, channels, 103);
                            auto out = MakeOutput(type, dims, ACL_FORMAT_ND, channels_last);
                            auto mean = MakeOutput(type, stat);
                            auto rstd = MakeOutput(type, stat);
                            uint64_t workspace = 0;
                            aclOpExecutor* executor = nullptr;
                            const aclnnStatus planned = aclnnGroupNormGetWorkspaceSize(
                                self->get(), gamma->get(), beta->get(), n, c, hxw, groups, 1e-5, out->get(), mean->get(),
                                rstd->get(), &workspace, &executor);
                            if (!RunPlanned(planned, workspace, executor, aclnnGroupNorm, stream)) return 0;
                            return HashOutputs({out.get(), mean.get(), rstd.get()});
                          }});
      problems.push_back({"group_norm_backward." + suffix, [=](aclrtStream stream) -> uint64_t {
                            auto grad_out = Make(type, dims, 104, ACL_FORMAT_ND, channels_last, false, true);
                            auto input = Make(type, dims, 105, ACL_FORMAT_ND, channels_last);
                            auto mean = Make(Type::kF32, stat, 106);
                            auto rstd = Make(Type::kF32, stat, 107, ACL_FORMAT_ND, false, true);
                            auto gamma = Make(Type::kF32, channels, 108);
                            auto grad_input = MakeOutput(type, dims, ACL_FORMAT_ND, channels_last);
                            auto grad_gamma = MakeOutput(Type::kF32, channels);
                            auto grad_beta = MakeOutput(Type::kF32, channels);
                            const bool mask[3] = {true, true, true};
                            aclBoolArray* output_mask = aclCreateBoolArray(mask, 3);
                            uint64_t workspace = 0;
                            aclOpExecutor* executor = nullptr;
                            const aclnnStatus planned = aclnnGroupNormBackwardGetWorkspaceSize(
                                grad_out->get(), input->get(), mean->get(), rstd->get(), gamma->get(), n, c, hxw,
                                groups, output_mask, grad_input->get(), grad_gamma->get(), grad_beta->get(), &workspace,
                                &executor);
                            aclDestroyBoolArray(output_mask);
                            if (!RunPlanned(planned, workspace, executor, aclnnGroupNormBackward, stream)) return 0;
                            return HashOutputs({grad_input.get(), grad_gamma.get(), grad_beta.get()});
                          }});
    }
  }
  return problems;
}

// ------------------------------------------------------------------ golden file

std::map<std::string, uint64_t> ReadGolden(const std::string& path) {
  std::map<std::string, uint64_t> golden;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string name, hex;
    if (fields >> name >> hex) golden[name] = std::stoull(hex, nullptr, 16);
  }
  return golden;
}

std::string Hex(uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(value));
  return text;
}

class CrossArchChecksum : public support::DeviceStreamTest {
 protected:
  void TearDown() override {
    oa::SetNumThreads(0);
    DeviceStreamTest::TearDown();
  }
};

TEST_F(CrossArchChecksum, SameBitsAsTheGoldenFileOnEveryTargetAndThreadCount) {
  const std::string target = oa::ActiveSimdTarget();
  const std::map<std::string, uint64_t> golden = ReadGolden(g_golden_path);
  if (!g_regenerate) {
    ASSERT_FALSE(golden.empty()) << "no checksums in " << g_golden_path;
  }
  std::ostringstream regenerated;
  for (const Problem& problem : Problems()) {
    SCOPED_TRACE(problem.name);
    uint64_t at_one = 0;
    for (int threads : {1, 2, 3}) {
      oa::SetNumThreads(threads);
      const uint64_t checksum = problem.run(stream_);
      if (threads == 1) {
        at_one = checksum;
      } else {
        EXPECT_EQ(Hex(checksum), Hex(at_one)) << problem.name << " at " << threads << " threads vs 1 thread";
      }
    }
    regenerated << problem.name << " " << Hex(at_one) << "\n";
    if (g_regenerate) continue;
    const auto expected = golden.find(problem.name);
    if (expected == golden.end()) {
      ADD_FAILURE() << problem.name << " is not in " << g_golden_path << " (regenerate it: --regenerate)";
      continue;
    }
    EXPECT_EQ(Hex(at_one), Hex(expected->second)) << problem.name << " on " << target;
  }
  std::printf("cross-arch checksums on %s: %zu problems\n", target.c_str(), Problems().size());
  if (g_regenerate) {
    std::ofstream out(g_golden_path);
    out << "# FNV-1a 64 of each problem's output bytes (tests/cross_arch/cross_arch_checksum_test.cpp),\n"
        << "# generated on x86-64 (" << target << ") by cross_arch_checksum_test --regenerate.\n"
        << regenerated.str();
    ASSERT_TRUE(out.good()) << "cannot write " << g_golden_path;
    std::printf("wrote %s\n", g_golden_path.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--regenerate") {
      g_regenerate = true;
    } else if (arg.rfind("--golden=", 0) == 0) {
      g_golden_path = arg.substr(9);
    } else {
      std::fprintf(stderr, "usage: %s [gtest flags] [--regenerate] [--golden=PATH]\n", argv[0]);
      return 2;
    }
  }
  return RUN_ALL_TESTS();
}
