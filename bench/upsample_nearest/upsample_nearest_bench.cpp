// The nearest upsample family side by side with PyTorch's CPU kernels and the copy probe, for
// the cases of cases.txt (one per kind and rank), fp32, channels-first and channels-last.
// Both phases run on every call. The roof traffic is |input| read + |output| written; besides
// the copy probe, the read-write probe reads |input| and writes |output| (columns r+w).
//
//   openaclnn_bench_upsample_nearest [--threads=N] [--cases=SUBSTRING] [--cases_file=PATH]
//
// make bench runs it at 1 and 2 threads. torch writes through its out= kernels into a
// buffer of its own layout, so its column times its kernel alone.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "bench_common.h"
#include "torch_oracle.h"
#include "upsample_nearest/nearest_apis.h"

namespace {

using nearest_test::NearestApi;

struct NearestCase {
  std::string name;
  const NearestApi* api = nullptr;
  bool channels_last = false;
  std::vector<int64_t> small, large;  // logical [N, C, spatial...]
  bench::Buffer input, output, torch_output;
  aclTensor* input_tensor = nullptr;
  aclTensor* output_tensor = nullptr;
  aclIntArray* output_size = nullptr;
  aclIntArray* input_size = nullptr;

  static int64_t Count(const std::vector<int64_t>& dims) {
    int64_t count = 1;
    for (int64_t d : dims) count *= d;
    return count;
  }
  double Bytes() const { return static_cast<double>((Count(small) + Count(large)) * 4); }
  double ReadBytes() const { return static_cast<double>(Count(InputDims()) * 4); }
  const std::vector<int64_t>& InputDims() const { return api->backward ? large : small; }
  const std::vector<int64_t>& OutputDims() const { return api->backward ? small : large; }

  // Logical strides of a contiguous tensor in this case's layout (C innermost if channels-last).
  std::vector<int64_t> LogicalStrides(const std::vector<int64_t>& dims) const {
    return channels_last ? oracle::ChannelsLastStrides(dims) : std::vector<int64_t>{};
  }

  aclTensor* MakeTensor(const std::vector<int64_t>& logical, void* data) const {
    std::vector<int64_t> strides = LogicalStrides(logical);
    if (strides.empty()) {
      strides.assign(logical.size(), 1);
      for (size_t d = logical.size() - 1; d-- > 0;) strides[d] = strides[d + 1] * logical[d + 1];
    }
    std::vector<int64_t> view = logical, view_strides = strides;
    aclFormat format = api->format;
    if (channels_last) {  // the channels-last label: [N, spatial..., C]
      view.erase(view.begin() + 1);
      view.push_back(logical[1]);
      view_strides.erase(view_strides.begin() + 1);
      view_strides.push_back(strides[1]);
      format = logical.size() == 5 ? ACL_FORMAT_NDHWC : ACL_FORMAT_NHWC;
    }
    return aclCreateTensor(view.data(), view.size(), ACL_FLOAT, view_strides.data(), 0, format, nullptr, 0, data);
  }

  void Setup() {
    input = bench::AllocateTouched(Count(InputDims()) * 4);
    output = bench::AllocateTouched(Count(OutputDims()) * 4);
    torch_output = bench::AllocateTouched(Count(OutputDims()) * 4);
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (int64_t k = 0; k < Count(InputDims()); ++k) bench::As<float>(input)[k] = uniform(rng);
    input_tensor = MakeTensor(InputDims(), input.get());
    output_tensor = MakeTensor(OutputDims(), output.get());
    const std::vector<int64_t> spatial(large.begin() + 2, large.end());
    output_size = aclCreateIntArray(spatial.data(), spatial.size());
    std::vector<int64_t> sizes = small;  // NHWC's inputSize for Nearest2dBackward is [N, H, W, C]
    if (channels_last && api->input_size_in_format_order) sizes = {small[0], small[2], small[3], small[1]};
    input_size = aclCreateIntArray(sizes.data(), sizes.size());
    if (input_tensor == nullptr || output_tensor == nullptr) {
      std::fprintf(stderr, "%s: %s\n", name.c_str(), aclGetRecentErrMsg());
      std::exit(1);
    }
  }

  void RunOurs() const {
    static const double kNoScales[3] = {0, 0, 0};
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    aclnnStatus status = api->backward ? api->backward_phase1(input_tensor, output_size, input_size, kNoScales,
                                                              output_tensor, &workspace_size, &executor)
                                       : api->forward(input_tensor, output_size, kNoScales, output_tensor,
                                                      &workspace_size, &executor);
    if (status == ACLNN_SUCCESS) status = api->phase2(nullptr, 0, executor, nullptr);
    if (status != ACLNN_SUCCESS || aclrtSynchronizeStream(nullptr) != ACL_SUCCESS) {
      std::fprintf(stderr, "%s: %s\n", name.c_str(), aclGetRecentErrMsg());
      std::exit(1);
    }
  }

  void RunTorch() const {
    oracle::View in_view, out_view;
    in_view.data = input.get();
    in_view.shape = InputDims();
    in_view.strides = LogicalStrides(InputDims());
    out_view.data = torch_output.get();
    out_view.shape = OutputDims();
    out_view.strides = LogicalStrides(OutputDims());
    const oracle::NearestKind kind = api->exact ? oracle::NearestKind::kExact : oracle::NearestKind::kNearest;
    const std::vector<int64_t> spatial(large.begin() + 2, large.end());
    if (api->backward) {
      oracle::UpsampleNearestBackward(kind, in_view, spatial, small, {}, out_view);
    } else {
      oracle::UpsampleNearest(kind, in_view, spatial, {}, out_view);
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
    std::fprintf(stderr, "runtime setup failed: %s\n", aclGetRecentErrMsg());
    return 1;
  }
  const std::string cases_file = bench::TakeFlag(&argc, argv, "--cases_file", UPSAMPLE_NEAREST_BENCH_CASES);
  const bench::Options options = bench::ParseOptions(&argc, argv);
  std::vector<std::shared_ptr<NearestCase>> cases;
  for (const bench::ShapeLine& line : bench::ReadShapeFile(cases_file)) {
    if (line.tokens.size() != 5) {
      std::fprintf(stderr, "%s:%d: want 'name API NxCx... spatial layouts'\n", cases_file.c_str(), line.line_number);
      return 1;
    }
    for (const char* layout : {"first", "last"}) {
      if (line.tokens[4].find(layout) == std::string::npos) continue;
      auto c = std::make_shared<NearestCase>();
      c->api = &nearest_test::ApiNamed(line.tokens[1]);
      c->channels_last = std::strcmp(layout, "last") == 0;
      c->small = bench::ParseInts(line.tokens[2]);
      c->large = {c->small[0], c->small[1]};
      for (int64_t s : bench::ParseInts(line.tokens[3])) c->large.push_back(s);
      c->name = line.tokens[0] + " " + line.tokens[1].substr(5) + " fp32 " + layout + " [" + line.tokens[2] + "]" +
                (c->api->backward ? "<-" : "->") + line.tokens[3];
      if (!options.filter.empty() && c->name.find(options.filter) == std::string::npos) continue;
      c->Setup();
      cases.push_back(c);
      bench::Case registered{c->name, c->Bytes(), [c] { c->RunOurs(); }, [c] { c->RunTorch(); }, nullptr};
      registered.read_bytes = c->ReadBytes();
      bench::RegisterCase(std::move(registered));
    }
  }
  const int status = bench::RunRegisteredCases(options, argc, argv);
  cases.clear();
  aclrtResetDevice(0);
  aclFinalize();
  return status;
}
