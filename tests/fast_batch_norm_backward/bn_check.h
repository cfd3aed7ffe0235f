// Runs one case and checks every output against the float64 reference rounded once (binary128
// where that reference is too coarse to decide), the guard bytes around and between output
// elements, and that unrequested outputs are untouched.
#pragma once

#include "bn_test_common.h"

namespace bntest {

inline ::testing::AssertionResult ViewStillFilled(const HostTensor& t, uint8_t byte) {
  const char* base = static_cast<const char*>(t.buffer->data());
  for (int64_t offset : t.buffer->offsets()) {
    for (size_t b = 0; b < ElementSize(t.dtype); ++b) {
      if (static_cast<uint8_t>(base[offset * ElementSize(t.dtype) + b]) != byte) {
        return ::testing::AssertionFailure() << "an unrequested output was written at element offset " << offset;
      }
    }
  }
  return ::testing::AssertionSuccess();
}

// Checks the outputs of a problem that has run.
inline void CheckOutputs(const Problem& p, RoundedOnceStat* stat = nullptr) {
  const Reference ref = ComputeReference(p);
  QuadReference exact(p);
  const HostTensor* outputs[3] = {&p.dx, &p.channel[5], &p.channel[6]};
  const char* names[3] = {"gradInput", "gradWeight", "gradBias"};
  const std::vector<double>* values[3] = {&ref.dx, &ref.dw, &ref.db};
  const std::vector<double>* scales[3] = {&ref.dx_scale, &ref.dw_scale, &ref.db_scale};
  for (int k = 0; k < 3; ++k) {
    EXPECT_TRUE(outputs[k]->buffer->GuardsIntact()) << names[k] << " of " << p.c.Describe();
    if (p.c.mask[k]) {
      if (p.x.count() == 0) continue;  // empty problems are checked by their own test
      EXPECT_TRUE(EqualsRoundedOnce(names[k], *outputs[k], *values[k], *scales[k], stat,
                                    [&exact, k](int64_t i) { return exact.Value(k, i); }))
          << p.c.Describe();
    } else {
      EXPECT_TRUE(ViewStillFilled(*outputs[k], 0xA5)) << names[k] << " of " << p.c.Describe();
    }
  }
}

inline void RunAndCheck(const Case& c, RoundedOnceStat* stat = nullptr) {
  Problem p(c);
  ASSERT_EQ(p.Run(), ACLNN_SUCCESS) << c.Describe() << ": " << aclGetRecentErrMsg();
  CheckOutputs(p, stat);
}

}  // namespace bntest
