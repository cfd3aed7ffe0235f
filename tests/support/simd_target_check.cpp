// Compiled into every test binary that openaclnn_add_test registers (as a source of the
// executable, not through an archive the linker could drop): before the first test it
// applies OPENACLNN_SIMD, prints the target dispatch uses, and ends the binary with a
// failure unless that is exactly the target the registration asked for. A target this CPU
// lacks, or an environment that is silently ignored, fails loudly instead of falling back.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/simd.h"

namespace {

class SimdTargetCheck : public ::testing::Environment {
 public:
  void SetUp() override {
    const char* requested = std::getenv("OPENACLNN_SIMD");
    const std::string asked = requested != nullptr ? requested : "";
    const std::string active = oa::ActiveSimdTarget();
    std::printf("openaclnn SIMD target: %s (OPENACLNN_SIMD=%s)\n", active.c_str(), asked.c_str());
    if (asked.empty()) return;
    const std::string expected = oa::ResolveSimdTarget(asked);
    if (expected.empty() || expected != active) {
      std::string available;
      for (const std::string& name : oa::SimdAvailableTargets()) available += " " + name;
      std::fprintf(stderr,
                   "FATAL: OPENACLNN_SIMD=%s asks for %s, but dispatch uses %s (this CPU runs:%s). "
                   "The per-target tests must run the target they name.\n",
                   asked.c_str(), expected.empty() ? "a target this CPU does not run" : expected.c_str(),
                   active.c_str(), available.c_str());
      std::fflush(stdout);
      std::exit(3);
    }
  }
};

const ::testing::Environment* const g_simd_target_check =
    ::testing::AddGlobalTestEnvironment(new SimdTargetCheck);

}  // namespace
