// The chip whose contract the process follows (docs/soc-profiles.md). CANN's contract
// differs per chip: which dtypes and formats an API takes, whether it exists, and a few
// semantic differences (all but the 950: aclnnBatchNorm's saveInvstd holds the batch
// variance). OPENACLNN_SOC_VERSION (a name as the real aclrtGetSocName() returns it, e.g.
// Ascend910B3) picks the chip once per process; unset, the default profile is the most
// capable contract (today's behaviour). Numerics stay ours under every profile.
#pragma once

#include <string>

#include "aclnn/aclnn_base.h"

namespace oa {

enum class Chip {
  kDefault,  // OPENACLNN_SOC_VERSION unset
  k910,      // Ascend910A ... (Atlas training series)
  k910B,     // Ascend910B1 ... (Atlas A2)
  k910_93,   // Ascend910_93xx (Atlas A3)
  k950,      // Ascend950PR_xxxx, Ascend950DT_xxxx
  k310P,     // Ascend310P1 ... (Atlas inference series)
  kUnknown,  // OPENACLNN_SOC_VERSION names no chip openaclnn models: every call is refused
};

struct SocProfile {
  Chip chip = Chip::kDefault;
  std::string soc_name;  // what aclrtGetSocName() returns
  // How messages name the chip: "Ascend910B3 (Atlas A2, OPENACLNN_SOC_VERSION)".
  std::string description;
  // The batch-norm family (the APIs under src/ops/batch_norm).
  bool batch_norm_bf16 = true;           // 910, 310P: FLOAT and FLOAT16 only
  bool batch_norm_channels_last = true;  // aclnnBatchNorm and its backward take NHWC / NDHWC (950 only)
  // aclnnBatchNorm training writes the biased batch variance into saveInvstd, and the
  // backward (aclnnBatchNormBackward, aclnnFastBatchNormBackward) reads the slot as a variance.
  bool save_invstd_is_variance = false;  // 910, 910B, 910_93, 310P
  // aclnnSyncBatchNormGatherStats takes BFLOAT16 on the 950's register-based arch only.
  bool sync_gather_stats_bf16 = true;
  // The normalization family (src/ops/norm): BFLOAT16 only where upstream's op_api lists it
  // (DAV_2201 and the 950's register-based arch; 910 and 310P take FLOAT and FLOAT16).
  bool norm_bf16 = true;
  // The upsample family's per-chip dtype lists live with its checks
  // (ops/upsample/upsample_nearest_checks.cpp).
};

// Chosen on first use from OPENACLNN_SOC_VERSION; the same for the rest of the process.
const SocProfile& CurrentSocProfile();

// Every operator's first check: ACLNN_ERR_PARAM_INVALID, with a message naming the variable
// and the chips openaclnn models, when OPENACLNN_SOC_VERSION names no chip we model.
aclnnStatus CheckSocProfileKnown(const char* api);

// An API the chip has no kernel for (upstream's page marks the product unsupported and its
// op definition registers no kernel configuration for it): ACLNN_ERR_INNER_FIND_KERNEL_ERROR,
// the status CANN returns when it finds no kernel, with a message naming the chip. `api` is
// the phase-1 entry point's name (aclnnXxxGetWorkspaceSize).
aclnnStatus CheckApiOnChip(const char* api);

}  // namespace oa
