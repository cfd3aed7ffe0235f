// OPENACLNN_VERBOSE: registered with OPENACLNN_VERBOSE=2 and OPENACLNN_VERBOSE_FILE set (see
// CMakeLists.txt), so the environment path is the one under test. Each test reads back the
// lines its own calls appended to the file and checks them against those calls; the last
// one proves the log never changes results.
#include <gmock/gmock.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "aclnnop/aclnn_fast_batch_norm_backward.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d_backward.h"
#include "core/simd.h"
#include "core/verbose.h"
#include "support/random_fill.h"
#include "test_runtime.h"

using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace {

std::vector<std::string> Split(const std::string& line, char separator, size_t max_fields) {
  std::vector<std::string> fields;
  size_t start = 0;
  while (fields.size() + 1 < max_fields) {
    const size_t end = line.find(separator, start);
    if (end == std::string::npos) break;
    fields.push_back(line.substr(start, end - start));
    start = end + 1;
  }
  fields.push_back(line.substr(start));
  return fields;
}

// One line of the log, split into its fields (a reject line's message may hold commas: it
// is the last field).
struct LogLine {
  std::vector<std::string> fields;
  const std::string& kind() const { return fields.at(1); }
  const std::string& api() const { return fields.at(2); }
};

std::vector<float> Random(size_t count, unsigned seed) {
  std::vector<float> values(count);
  support::FillUniform(values.data(), static_cast<int64_t>(count), seed);
  return values;
}

class VerboseTest : public RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    oa::SetVerboseLevelForTesting(2);
    const char* path = std::getenv("OPENACLNN_VERBOSE_FILE");
    ASSERT_NE(path, nullptr) << "run through ctest: it sets OPENACLNN_VERBOSE_FILE";
    path_ = path;
    std::ifstream file(path_, std::ios::ate);
    start_ = file ? static_cast<std::streamoff>(file.tellg()) : 0;
  }

  // The lines appended since SetUp (after the stream has drained).
  std::vector<LogLine> NewLines() {
    EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
    std::ifstream file(path_);
    file.seekg(start_);
    std::vector<LogLine> lines;
    for (std::string text; std::getline(file, text);) {
      EXPECT_THAT(text, StartsWith("openaclnn_verbose,"));
      const size_t columns = text.rfind("openaclnn_verbose,reject,", 0) == 0 ? 5 : 9;
      lines.push_back({Split(text, ',', columns)});
      EXPECT_EQ(lines.back().fields.size(), columns) << text;
    }
    return lines;
  }

  static std::vector<LogLine> OfKind(const std::vector<LogLine>& lines, const std::string& kind) {
    std::vector<LogLine> selected;
    for (const LogLine& line : lines) {
      if (line.kind() == kind) selected.push_back(line);
    }
    return selected;
  }

  // gradOut [1, C, 2D, 2H, 2W] -> gradInput [1, C, D, H, W], NCDHW; returns gradInput's bytes.
  std::vector<float> RunUpsample(int64_t c, int64_t d, int64_t h, int64_t w, unsigned seed) {
    std::vector<int64_t> out_dims = {1, c, 2 * d, 2 * h, 2 * w}, in_dims = {1, c, d, h, w};
    std::vector<float> grad_out = Random(static_cast<size_t>(c * 8 * d * h * w), seed);
    std::vector<float> grad_input(static_cast<size_t>(c * d * h * w), 0.0f);
    aclTensor* go = aclCreateTensor(out_dims.data(), 5, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCDHW, out_dims.data(), 5,
                                    grad_out.data());
    aclTensor* gi = aclCreateTensor(in_dims.data(), 5, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCDHW, in_dims.data(), 5,
                                    grad_input.data());
    aclIntArray* output_size = aclCreateIntArray(out_dims.data() + 2, 3);
    aclIntArray* input_size = aclCreateIntArray(in_dims.data(), 5);
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    EXPECT_EQ(aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(go, output_size, input_size, 0.0, 0.0, 0.0, gi,
                                                                   &workspace_size, &executor),
              ACLNN_SUCCESS)
        << LastError();
    EXPECT_EQ(aclnnUpsampleNearestExact3dBackward(nullptr, 0, executor, nullptr), ACLNN_SUCCESS) << LastError();
    EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
    aclDestroyTensor(go);
    aclDestroyTensor(gi);
    aclDestroyIntArray(output_size);
    aclDestroyIntArray(input_size);
    return grad_input;
  }

  // Training batch norm backward on [n, c, hw] (NCL); returns gradInput, gradWeight, gradBias.
  std::vector<float> RunBatchNorm(int64_t n, int64_t c, int64_t hw, unsigned seed) {
    std::vector<int64_t> dims = {n, c, hw}, channel = {c};
    const size_t count = static_cast<size_t>(n * c * hw), channels = static_cast<size_t>(c);
    std::vector<float> dy = Random(count, seed), x = Random(count, seed + 1), weight = Random(channels, seed + 2);
    std::vector<float> mean = Random(channels, seed + 3), invstd = Random(channels, seed + 4);
    for (float& v : invstd) v = 1.0f + v * v;
    std::vector<float> results(count + 2 * channels, 0.0f);  // dx, dw, db
    auto big = [&](float* data) {
      return aclCreateTensor(dims.data(), 3, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCL, dims.data(), 3, data);
    };
    auto small = [&](float* data) {
      return aclCreateTensor(channel.data(), 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, channel.data(), 1, data);
    };
    aclTensor* t[8] = {big(dy.data()),      big(x.data()),       small(weight.data()),
                       small(mean.data()),  small(invstd.data()), big(results.data()),
                       small(results.data() + count), small(results.data() + count + channels)};
    const bool mask_values[3] = {true, true, true};
    aclBoolArray* mask = aclCreateBoolArray(mask_values, 3);
    uint64_t workspace_size = 0;
    aclOpExecutor* executor = nullptr;
    EXPECT_EQ(aclnnFastBatchNormBackwardGetWorkspaceSize(t[0], t[1], t[2], nullptr, nullptr, t[3], t[4], true, 1e-5,
                                                         mask, 0, t[5], t[6], t[7], &workspace_size, &executor),
              ACLNN_SUCCESS)
        << LastError();
    void* workspace = nullptr;
    if (workspace_size > 0) {
      EXPECT_EQ(aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    }
    EXPECT_EQ(aclnnFastBatchNormBackward(workspace, workspace_size, executor, nullptr), ACLNN_SUCCESS) << LastError();
    EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
    if (workspace != nullptr) aclrtFree(workspace);
    for (aclTensor* tensor : t) aclDestroyTensor(tensor);
    aclDestroyBoolArray(mask);
    return results;
  }

  std::string path_;
  std::streamoff start_ = 0;
};

// Read before main, so before any fixture switches levels: what OPENACLNN_VERBOSE=2 gave.
const int g_level_from_environment = oa::VerboseLevel();

TEST_F(VerboseTest, EnvironmentSetsTheLevel) { EXPECT_EQ(g_level_from_environment, 2); }

TEST_F(VerboseTest, OneExecLinePerCallWithItsFields) {
  RunUpsample(2, 2, 2, 2, 1);
  RunUpsample(3, 1, 2, 4, 2);
  RunBatchNorm(2, 3, 5, 3);
  const std::vector<LogLine> lines = NewLines();
  const std::vector<LogLine> exec = OfKind(lines, "exec");
  ASSERT_EQ(exec.size(), 3u);
  EXPECT_EQ(exec[0].api(), "aclnnUpsampleNearestExact3dBackward");
  EXPECT_EQ(exec[1].api(), "aclnnUpsampleNearestExact3dBackward");
  EXPECT_EQ(exec[2].api(), "aclnnFastBatchNormBackward");
  for (const LogLine& line : exec) {
    EXPECT_EQ(line.fields[3], oa::ActiveSimdTarget());
    EXPECT_GE(std::stoi(line.fields[4]), 1);                // threads
    EXPECT_FALSE(line.fields[5].empty());                  // kernel
    EXPECT_NO_THROW((void)std::stoull(line.fields[7]));    // workspace bytes
    EXPECT_GE(std::stod(line.fields[8]), 0.0);             // microseconds
  }
  EXPECT_EQ(exec[0].fields[6], "gradOut:float32:NCDHW:1x2x4x4x4:128x64x16x4x1 "
                               "gradInput:float32:NCDHW:1x2x2x2x2:16x8x4x2x1");
  EXPECT_EQ(exec[0].fields[7], "0");
  EXPECT_THAT(exec[0].fields[5], StartsWith("rows_along_w/"));
  EXPECT_EQ(exec[1].fields[6], "gradOut:float32:NCDHW:1x3x2x4x8:192x64x32x8x1 "
                               "gradInput:float32:NCDHW:1x3x1x2x4:24x8x8x4x1");
  EXPECT_EQ(exec[2].fields[6], "gradOut:float32:NCL:2x3x5:15x5x1 input:float32:NCL:2x3x5:15x5x1 "
                               "weight:float32:ND:3:1 saveMean:float32:ND:3:1 saveInvstd:float32:ND:3:1 "
                               "gradInput:float32:NCL:2x3x5:15x5x1 gradWeight:float32:ND:3:1 gradBias:float32:ND:3:1");

  // Level 2: each phase 1 leaves a plan line with the same decisions.
  const std::vector<LogLine> plan = OfKind(lines, "plan");
  ASSERT_EQ(plan.size(), 3u);
  EXPECT_EQ(plan[0].api(), "aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize");
  EXPECT_EQ(plan[2].api(), "aclnnFastBatchNormBackwardGetWorkspaceSize");
  for (size_t i = 0; i < plan.size(); ++i) {
    for (size_t field = 3; field <= 7; ++field) EXPECT_EQ(plan[i].fields[field], exec[i].fields[field]);
  }
  EXPECT_EQ(lines.size(), 6u);
}

TEST_F(VerboseTest, RejectedCallsLeaveTheirStatusAndMessage) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  EXPECT_EQ(aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(nullptr, nullptr, nullptr, 0.0, 0.0, 0.0, nullptr,
                                                                 &workspace_size, &executor),
            ACLNN_ERR_PARAM_NULLPTR);
  // The log leaves the message to the caller.
  EXPECT_THAT(LastError(), HasSubstr("gradOut must not be null"));
  EXPECT_EQ(aclnnFastBatchNormBackward(nullptr, 0, nullptr, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  LastError();
  const std::vector<LogLine> lines = NewLines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].kind(), "reject");
  EXPECT_EQ(lines[0].api(), "aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize");
  EXPECT_EQ(lines[0].fields[3], std::to_string(ACLNN_ERR_PARAM_NULLPTR));
  EXPECT_EQ(lines[0].fields[4], "aclnnUpsampleNearestExact3dBackward: gradOut must not be null");
  EXPECT_EQ(lines[1].kind(), "reject");
  EXPECT_EQ(lines[1].api(), "aclnnFastBatchNormBackward");
  EXPECT_EQ(lines[1].fields[3], std::to_string(ACLNN_ERR_PARAM_NULLPTR));
  EXPECT_EQ(lines[1].fields[4], "aclnnFastBatchNormBackward: executor must not be null");
}

TEST_F(VerboseTest, LevelOneLogsExecutionsOnly) {
  oa::SetVerboseLevelForTesting(1);
  RunUpsample(2, 2, 2, 2, 4);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  EXPECT_NE(aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(nullptr, nullptr, nullptr, 0.0, 0.0, 0.0, nullptr,
                                                                 &workspace_size, &executor),
            ACLNN_SUCCESS);
  LastError();
  const std::vector<LogLine> lines = NewLines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].kind(), "exec");
}

TEST_F(VerboseTest, LevelZeroWritesNothing) {
  oa::SetVerboseLevelForTesting(0);
  RunUpsample(2, 2, 2, 2, 5);
  RunBatchNorm(2, 3, 5, 6);
  EXPECT_TRUE(NewLines().empty());
}

// docs/reliability.md: the log never changes results. Shapes large enough for several
// threads and tasks, each run with the log off and on.
TEST_F(VerboseTest, SameBitsWithTheLogOnAndOff) {
  oa::SetVerboseLevelForTesting(0);
  const std::vector<float> upsample_off = RunUpsample(16, 8, 16, 16, 7);
  const std::vector<float> batch_norm_off = RunBatchNorm(4, 16, 4096, 8);
  oa::SetVerboseLevelForTesting(2);
  const std::vector<float> upsample_on = RunUpsample(16, 8, 16, 16, 7);
  const std::vector<float> batch_norm_on = RunBatchNorm(4, 16, 4096, 8);
  ASSERT_EQ(upsample_off.size(), upsample_on.size());
  EXPECT_EQ(std::memcmp(upsample_off.data(), upsample_on.data(), upsample_off.size() * sizeof(float)), 0);
  ASSERT_EQ(batch_norm_off.size(), batch_norm_on.size());
  EXPECT_EQ(std::memcmp(batch_norm_off.data(), batch_norm_on.data(), batch_norm_off.size() * sizeof(float)), 0);
  EXPECT_EQ(OfKind(NewLines(), "exec").size(), 2u);
}

}  // namespace
