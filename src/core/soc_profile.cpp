#include "core/soc_profile.h"

#include <cstdlib>
#include <cstring>

#include "runtime/error.h"

namespace oa {
namespace {

constexpr const char* kVariable = "OPENACLNN_SOC_VERSION";
constexpr const char* kDefaultSocName = "openaclnn-cpu";

// SoC names by family, as upstream spells them (its build targets and tests; docs/soc-profiles.md).
struct Family {
  Chip chip;
  const char* product;
  const char* names[10];
};
constexpr Family kFamilies[] = {
    {Chip::k910, "Ascend 910, Atlas training series",
     {"Ascend910A", "Ascend910ProA", "Ascend910PremiumA", "Ascend910ProB"}},
    {Chip::k910B, "Ascend 910B, Atlas A2",
     {"Ascend910B1", "Ascend910B2", "Ascend910B3", "Ascend910B4", "Ascend910B4-1"}},
    {Chip::k910_93, "Ascend 910_93, Atlas A3",
     {"Ascend910_9391", "Ascend910_9372", "Ascend910_9382"}},
    {Chip::k950, "Ascend 950", {"Ascend950PR_9599", "Ascend950PR_9589", "Ascend950PR_9598", "Ascend950DT_9582"}},
    {Chip::k310P, "Ascend 310P, Atlas inference series", {"Ascend310P3", "Ascend310P1"}},
};

std::string KnownNames() {
  std::string text;
  for (const Family& family : kFamilies) {
    for (const char* name : family.names) {
      if (name == nullptr) break;
      if (!text.empty()) text += ", ";
      text += name;
    }
  }
  return text;
}

SocProfile Load() {
  SocProfile profile;
  const char* requested = std::getenv(kVariable);
  if (requested == nullptr || *requested == '\0') {
    profile.soc_name = kDefaultSocName;
    profile.description = "the default profile";
    return profile;
  }
  profile.soc_name = requested;
  profile.chip = Chip::kUnknown;
  profile.description = std::string(requested) + " (" + kVariable + ")";
  for (const Family& family : kFamilies) {
    for (const char* name : family.names) {
      if (name != nullptr && std::strcmp(name, requested) == 0) {
        profile.chip = family.chip;
        profile.description = std::string(requested) + " (" + family.product + ", " + kVariable + ")";
      }
    }
  }
  const Chip chip = profile.chip;
  profile.batch_norm_bf16 = chip != Chip::k910 && chip != Chip::k310P;
  profile.norm_bf16 = chip != Chip::k910 && chip != Chip::k310P;
  profile.batch_norm_channels_last = chip == Chip::k950;  // the register-based kernels only
  profile.save_invstd_is_variance = chip != Chip::k950;  // every chip with upstream's TBE / BatchNormV3 path
  profile.sync_gather_stats_bf16 = chip == Chip::k950;
  return profile;
}

}  // namespace

const SocProfile& CurrentSocProfile() {
  static const SocProfile profile = Load();
  return profile;
}

namespace {

// The phase-1 entry points a chip has no kernel for. Only where both upstream's page says
// unsupported and its op definition registers no AICore configuration for the chip
// (ops-cv image/<op>/op_host/<op>_def.cpp and op_host/config/<chip>/); the batch-norm
// family's pages mark some products unsupported too, but upstream's op_api code runs a
// path for every chip, so those stay accepted (docs/soc-profiles.md).
struct MissingKernel {
  const char* api;
  Chip chip;
};
constexpr MissingKernel kMissingKernels[] = {
    {"aclnnUpsampleNearestExact3dGetWorkspaceSize", Chip::k910},
    {"aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize", Chip::k910},
    {"aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize", Chip::k310P},
    {"aclnnUpsampleNearestExact1dGetWorkspaceSize", Chip::k910},
    {"aclnnUpsampleNearestExact2dGetWorkspaceSize", Chip::k910},
    {"aclnnUpsampleNearestExact1dBackwardGetWorkspaceSize", Chip::k910},
    {"aclnnUpsampleNearestExact1dBackwardGetWorkspaceSize", Chip::k310P},
    {"aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize", Chip::k910},
    {"aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize", Chip::k310P},
    // ops-nn norm/group_norm_grad: its page marks the inference series unsupported and its
    // op definition registers 910b, 910_93 and 950 only.
    {"aclnnGroupNormBackwardGetWorkspaceSize", Chip::k310P},
    // ops-nn norm/add_rms_norm, add_layer_norm, add_layer_norm_grad: their pages list the 950,
    // Atlas A2/A3 and the inference series, not the training series.
    {"aclnnAddRmsNormGetWorkspaceSize", Chip::k910},
    {"aclnnAddLayerNormGetWorkspaceSize", Chip::k910},
    {"aclnnAddLayerNormGradGetWorkspaceSize", Chip::k910},
    // ops-nn norm/bn_training_reduce and sync_batch_norm_gather_stats: their pages list the
    // 950 and Atlas A2/A3 only, and their op definitions register the 950's kernels only.
    {"aclnnBatchNormReduceGetWorkspaceSize", Chip::k910},
    {"aclnnBatchNormReduceGetWorkspaceSize", Chip::k310P},
    {"aclnnSyncBatchNormGatherStatsGetWorkspaceSize", Chip::k910},
    {"aclnnSyncBatchNormGatherStatsGetWorkspaceSize", Chip::k310P},
};

}  // namespace

aclnnStatus CheckApiOnChip(const char* api) {
  const SocProfile& profile = CurrentSocProfile();
  for (const MissingKernel& missing : kMissingKernels) {
    if (missing.chip == profile.chip && std::strcmp(missing.api, api) == 0) {
      return Fail(ACLNN_ERR_INNER_FIND_KERNEL_ERROR,
                  "%s: this operator has no kernel on %s (upstream supports it on other products only)", api,
                  profile.description.c_str());
    }
  }
  return ACLNN_SUCCESS;
}

aclnnStatus CheckSocProfileKnown(const char* api) {
  const SocProfile& profile = CurrentSocProfile();
  if (profile.chip != Chip::kUnknown) return ACLNN_SUCCESS;
  return Fail(ACLNN_ERR_PARAM_INVALID, "%s: %s=%s names no chip openaclnn models; use one of %s, or unset it", api,
              kVariable, profile.soc_name.c_str(), KnownNames().c_str());
}

}  // namespace oa
