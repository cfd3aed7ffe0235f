// aclnnUpsampleNearestExact3dBackward side by side with PyTorch's CPU kernel and the copy
// probe, for the cases of cases.txt, in fp32 and bf16. Both phases run on every call.
//
//   openaclnn_bench_upsample_nearest_exact3d_backward [--threads=N] [--cases=SUBSTRING]
//       [--cases_file=PATH] [--dtypes=fp32,bf16]
//
// Without --threads it runs twice: first at 1 thread (a child process, since the harness
// runs its registry once), then at all threads.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d_backward.h"
#include "bench_common.h"
#include "core/half.h"
#include "torch_oracle.h"

namespace {

struct UpsampleCase {
  std::string name;
  aclDataType dtype = ACL_FLOAT;
  bool channels_last = false;
  std::vector<int64_t> in;   // N, C, D, H, W
  std::vector<int64_t> out;  // d, h, w
  int64_t in_elements = 0, out_elements = 0;
  bench::Buffer grad_out, grad_input, torch_grad_input;
  aclTensor* grad_out_tensor = nullptr;
  aclTensor* grad_input_tensor = nullptr;
  aclIntArray* output_size = nullptr;
  aclIntArray* input_size = nullptr;

  size_t ElementSize() const { return dtype == ACL_FLOAT ? 4 : 2; }
  double Bytes() const { return static_cast<double>((in_elements + out_elements) * ElementSize()); }

  // Logical N, C, D, H, W strides of a contiguous tensor in this case's layout.
  std::vector<int64_t> LogicalStrides(const std::vector<int64_t>& dims) const {
    const int64_t n = dims[0], c = dims[1], d = dims[2], h = dims[3], w = dims[4];
    (void)n;
    if (channels_last) return {d * h * w * c, 1, h * w * c, w * c, c};
    return {c * d * h * w, d * h * w, h * w, w, 1};
  }

  aclTensor* MakeTensor(const std::vector<int64_t>& logical, void* data) const {
    const std::vector<int64_t> strides = LogicalStrides(logical);
    if (channels_last) {
      const int64_t view[5] = {logical[0], logical[2], logical[3], logical[4], logical[1]};
      const int64_t view_strides[5] = {strides[0], strides[2], strides[3], strides[4], strides[1]};
      return aclCreateTensor(view, 5, dtype, view_strides, 0, ACL_FORMAT_NDHWC, nullptr, 0, data);
    }
    return aclCreateTensor(logical.data(), 5, dtype, strides.data(), 0, ACL_FORMAT_NCDHW, nullptr, 0, data);
  }

  void Setup() {
    const std::vector<int64_t> out_dims = {in[0], in[1], out[0], out[1], out[2]};
    in_elements = in[0] * in[1] * in[2] * in[3] * in[4];
    out_elements = in[0] * in[1] * out[0] * out[1] * out[2];
    grad_out = bench::AllocateTouched(out_elements * ElementSize());
    grad_input = bench::AllocateTouched(in_elements * ElementSize());
    torch_grad_input = bench::AllocateTouched(in_elements * ElementSize());
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (int64_t k = 0; k < out_elements; ++k) {
      const float value = uniform(rng);
      if (dtype == ACL_FLOAT) {
        bench::As<float>(grad_out)[k] = value;
      } else {
        bench::As<uint16_t>(grad_out)[k] = oa::FloatToBf16(value);
      }
    }
    grad_out_tensor = MakeTensor(out_dims, grad_out.get());
    grad_input_tensor = MakeTensor(in, grad_input.get());
    output_size = aclCreateIntArray(out.data(), 3);
    input_size = aclCreateIntArray(in.data(), 5);
    if (grad_out_tensor == nullptr || grad_input_tensor == nullptr) {
      std::fprintf(stderr, "%s: %s\n", name.c_str(), aclGetRecentErrMsg());
      std::exit(1);
    }
  }

  void RunOurs() const {
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    aclnnStatus status = aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(
        grad_out_tensor, output_size, input_size, 0, 0, 0, grad_input_tensor, &workspace_size, &executor);
    if (status == ACLNN_SUCCESS) status = aclnnUpsampleNearestExact3dBackward(nullptr, 0, executor, nullptr);
    if (status != ACLNN_SUCCESS || aclrtSynchronizeStream(nullptr) != ACL_SUCCESS) {
      std::fprintf(stderr, "%s: %s\n", name.c_str(), aclGetRecentErrMsg());
      std::exit(1);
    }
  }

  void RunTorch() const {
    oracle::View out_view, in_view;
    const oracle::DType dt = dtype == ACL_FLOAT ? oracle::DType::kFloat32 : oracle::DType::kBFloat16;
    out_view.data = grad_out.get();
    out_view.dtype = dt;
    out_view.shape = {in[0], in[1], out[0], out[1], out[2]};
    out_view.strides = LogicalStrides(out_view.shape);
    in_view.dtype = dt;
    in_view.shape = in;
    if (channels_last) {
      in_view.data = nullptr;  // torch's functional call allocates its channels-last result
    } else {
      in_view.data = torch_grad_input.get();  // written by torch's out= kernel
    }
    oracle::UpsampleNearestExact3dBackward(out_view, {out[0], out[1], out[2]}, {in[0], in[1], in[2], in[3], in[4]}, 0,
                                           0, 0, in_view);
  }
};

}  // namespace

int main(int argc, char** argv) {
  bool threads_given = false;
  for (int i = 1; i < argc; ++i) threads_given = threads_given || std::strncmp(argv[i], "--threads=", 10) == 0;
  if (!threads_given) {
    std::string command = "'" + std::string(argv[0]) + "' --threads=1";
    for (int i = 1; i < argc; ++i) command += " '" + std::string(argv[i]) + "'";
    std::printf("=== 1 thread\n");
    std::fflush(stdout);
    if (std::system(command.c_str()) != 0) return 1;
    std::printf("\n=== all threads\n");
    std::fflush(stdout);
  }
  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
    std::fprintf(stderr, "runtime setup failed: %s\n", aclGetRecentErrMsg());
    return 1;
  }
  const std::string cases_file = bench::TakeFlag(&argc, argv, "--cases_file", UPSAMPLE_BENCH_CASES);
  const std::string dtypes = bench::TakeFlag(&argc, argv, "--dtypes", "fp32,bf16");
  const bench::Options options = bench::ParseOptions(&argc, argv);
  std::vector<std::shared_ptr<UpsampleCase>> cases;
  for (const bench::ShapeLine& line : bench::ReadShapeFile(cases_file)) {
    if (line.tokens.size() != 4) {
      std::fprintf(stderr, "%s:%d: want 'name NxCxDxHxW dxhxw layouts'\n", cases_file.c_str(), line.line_number);
      return 1;
    }
    for (const char* dtype_name : {"fp32", "bf16"}) {
      if (dtypes.find(dtype_name) == std::string::npos) continue;
      for (const char* layout : {"ncdhw", "ndhwc"}) {
        if (line.tokens[3].find(layout) == std::string::npos) continue;
        auto c = std::make_shared<UpsampleCase>();
        c->dtype = std::strcmp(dtype_name, "fp32") == 0 ? ACL_FLOAT : ACL_BF16;
        c->channels_last = std::strcmp(layout, "ndhwc") == 0;
        c->in = bench::ParseInts(line.tokens[1]);
        c->out = bench::ParseInts(line.tokens[2]);
        c->name = line.tokens[0] + " " + dtype_name + " " + layout + " [" + line.tokens[1] + "]<-" + line.tokens[2];
        if (!options.filter.empty() && c->name.find(options.filter) == std::string::npos) continue;
        c->Setup();
        cases.push_back(c);
        bench::RegisterCase({c->name, c->Bytes(), [c] { c->RunOurs(); }, [c] { c->RunTorch(); }, nullptr});
      }
    }
  }
  const int status = bench::RunRegisteredCases(options, argc, argv);
  cases.clear();
  aclrtResetDevice(0);
  aclFinalize();
  return status;
}
