// Upstream CANN's own ATK test tables as a conformance tier. The tables (tests/conformance/
// atk/*.atk_cases.json, derived by scripts/derive-atk-cases.py from hicann/ops-nn and
// ops-cv) give each case's shapes, dtypes, value ranges and attributes; this runner draws
// the inputs, calls the API as upstream's executor maps the case, computes the reference
// in float64 from the values actually passed, rounds it once to each output's dtype (the
// golden), and applies ATK's single_bm standard: relative error |actual - golden| /
// (|golden| + 1e-7) per element, its mean (MERE) below T and its maximum (MARE) below
// 10 T, T = 2^-13 for FLOAT, 2^-10 FLOAT16, 2^-7 BF16.
//
// The reference is the API's contract under the SoC profile in force (OPENACLNN_SOC_VERSION),
// not the executor's golden where that golden is wrong (docs/conformance.md lists each such
// class). A case whose dtype the profile's chip does not support must be refused with
// ACLNN_ERR_PARAM_INVALID and a message naming the chip; an operator the chip has no kernel
// for, with ACLNN_ERR_INNER_FIND_KERNEL_ERROR.
//
// Default: a sample of each table (the default test tier); `--all`: every case (large tier).
// Each table ends with one line "atk-matrix | <api> | <soc> | <cases> | <pass> | <documented>
// | <refused> | <fail>" (docs/conformance.md's pass matrix is built from these lines), and
// each case in a documented class prints an "atk-documented" line saying why.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <new>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <sched.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_batch_norm.h"
#include "aclnnop/aclnn_batch_norm_backward.h"
#include "aclnnop/aclnn_batch_norm_backward_reduce.h"
#include "aclnnop/aclnn_batch_norm_elemt.h"
#include "aclnnop/aclnn_batch_norm_elemt_backward.h"
#include "aclnnop/aclnn_batch_norm_gather_stats_with_counts.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d_backward.h"
#include "support/conformance_cases.h"
#include "support/float_coding.h"
#include "support/json.h"
#include "support/random_fill.h"
#include "upsample_interp/interp_apis.h"
#include "upsample_nearest/nearest_apis.h"

namespace {

using support::Json;

bool g_all_cases = false;  // --all

// ---------------------------------------------------------------------------------------
// The chip's rules, read from the name aclrtGetSocName() reports (upstream's names; the
// tables below are upstream's, docs/soc-profiles.md), independently of the library's table.

struct ChipRules {
  std::string soc;
  bool batch_norm_bf16 = true;  // 910 and 310P: no BFLOAT16 in the batch-norm family
  bool upsample_bf16 = true;    // 310P: upsample FLOAT32 / FLOAT16 only
  bool saves_variance = false;  // every chip but the 950: saveInvstd holds the batch variance
  bool upsample_forward = true, upsample_backward = true;  // no kernel: 910 / 910 and 310P
  bool is_910 = false, is_310p = false, is_950 = false, is_chip = false;
};

bool StartsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

ChipRules RulesOfThisProcess() {
  ChipRules rules;
  const char* name = aclrtGetSocName();
  rules.soc = name ? name : "";
  const bool is_910 = StartsWith(rules.soc, "Ascend910") && !StartsWith(rules.soc, "Ascend910B") &&
                      !StartsWith(rules.soc, "Ascend910_");
  const bool is_310p = StartsWith(rules.soc, "Ascend310P");
  const bool is_chip = StartsWith(rules.soc, "Ascend");
  rules.batch_norm_bf16 = !is_910 && !is_310p;
  rules.upsample_bf16 = !is_310p;
  rules.saves_variance = is_chip && !StartsWith(rules.soc, "Ascend950");
  rules.upsample_forward = !is_910;
  rules.upsample_backward = !is_910 && !is_310p;
  rules.is_910 = is_910;
  rules.is_310p = is_310p;
  rules.is_950 = StartsWith(rules.soc, "Ascend950");
  rules.is_chip = is_chip;
  return rules;
}

const ChipRules& Rules() {
  static const ChipRules rules = RulesOfThisProcess();
  return rules;
}

// ---------------------------------------------------------------------------------------
// Work on every element, in one contiguous piece per CPU of the process's affinity mask: the
// large tier's tensors reach billions of elements, and every element's draw and check is
// independent of the others.

int RunnerThreads() {
  cpu_set_t cpus;
  return sched_getaffinity(0, sizeof(cpus), &cpus) == 0 ? std::max(1, CPU_COUNT(&cpus)) : 1;
}

// body(piece, begin, end) for pieces of [0, count) of at least `smallest_piece` items; returns
// the number of pieces (at most RunnerThreads()).
int ForEachPiece(int64_t count, const std::function<void(int, int64_t, int64_t)>& body,
                 int64_t smallest_piece = int64_t{1} << 14) {
  static const int threads = RunnerThreads();
  const int pieces = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, count / smallest_piece)));
  std::vector<std::thread> workers;
  for (int t = 1; t < pieces; ++t) workers.emplace_back(body, t, count * t / pieces, count * (t + 1) / pieces);
  body(0, 0, count / pieces);
  for (std::thread& worker : workers) worker.join();
  return pieces;
}

// ---------------------------------------------------------------------------------------
// Tensors: contiguous, in their own storage, element k read and written as double.

aclDataType DtypeOf(const std::string& atk_name) {
  static const std::map<std::string, aclDataType> names = {
      {"fp32", ACL_FLOAT}, {"fp16", ACL_FLOAT16}, {"bf16", ACL_BF16},
      {"int32", ACL_INT32}, {"fp64", ACL_DOUBLE},   {"uint8", ACL_UINT8}};
  return names.at(atk_name);
}

const char* DtypeName(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT: return "FLOAT";
    case ACL_FLOAT16: return "FLOAT16";
    case ACL_BF16: return "BF16";
    case ACL_INT32: return "INT32";
    case ACL_DOUBLE: return "DOUBLE";
    case ACL_UINT8: return "UINT8";
    default: return "?";
  }
}

class HostTensor {
 public:
  HostTensor(std::vector<int64_t> shape, aclDataType dtype, aclFormat format = ACL_FORMAT_ND)
      : shape_(std::move(shape)), dtype_(dtype) {
    count_ = 1;
    for (int64_t d : shape_) count_ *= d;
    // calloc: the zero pages of a case the chip refuses are never committed (a table's
    // tensors reach 3 GB each).
    storage_.reset(static_cast<unsigned char*>(
        std::calloc(static_cast<size_t>(std::max<int64_t>(count_, 1)), support::StorageElementSize(dtype_))));
    if (storage_ == nullptr) throw std::bad_alloc();
    handle_ = support::MakeTensor(shape_, dtype_, storage_.get(), format);
  }
  ~HostTensor() { aclDestroyTensor(handle_); }
  HostTensor(const HostTensor&) = delete;
  HostTensor& operator=(const HostTensor&) = delete;

  aclTensor* get() const { return handle_; }
  aclDataType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int64_t count() const { return count_; }
  int64_t dim(size_t i) const { return shape_.at(i); }

  double Get(int64_t k) const {
    const unsigned char* p = storage_.get() + k * support::StorageElementSize(dtype_);
    if (dtype_ == ACL_INT32) {
      int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    if (dtype_ == ACL_UINT8) return *p;
    if (dtype_ == ACL_DOUBLE) {
      double v;
      std::memcpy(&v, p, 8);
      return v;
    }
    return DecodeValue(p, dtype_);
  }
  // value rounded once to the dtype (truncated for INT32); NaN stays NaN.
  void Set(int64_t k, double value) {
    unsigned char* p = storage_.get() + k * support::StorageElementSize(dtype_);
    if (dtype_ == ACL_INT32) {
      const int32_t v = static_cast<int32_t>(value);
      std::memcpy(p, &v, 4);
    } else if (dtype_ == ACL_UINT8) {  // truncated into 0..255 (NaN: 0)
      *p = static_cast<unsigned char>(value >= 0 && value <= 255 ? value : value > 255 ? 255 : 0);
    } else if (dtype_ == ACL_DOUBLE) {
      std::memcpy(p, &value, 8);
    } else if (std::isnan(value)) {
      if (dtype_ == ACL_FLOAT) {
        const float nan = std::numeric_limits<float>::quiet_NaN();
        std::memcpy(p, &nan, 4);
      } else {
        const uint16_t bits = DoubleToSixteenBits(value, dtype_);
        std::memcpy(p, &bits, 2);
      }
    } else {
      EncodeValue(value, dtype_, p);
    }
  }
  void FillNan() {
    if (dtype_ == ACL_INT32 || dtype_ == ACL_UINT8) return;
    SetEach([](int64_t) { return NAN; });
  }
  // Element k = value(k), for every k (value must be safe to call from several threads).
  void SetEach(const std::function<double(int64_t)>& value) {
    ForEachPiece(count_, [&](int, int64_t begin, int64_t end) {
      for (int64_t k = begin; k < end; ++k) Set(k, value(k));
    });
  }
  std::vector<double> Values() const {
    std::vector<double> values(static_cast<size_t>(count_));
    for (int64_t k = 0; k < count_; ++k) values[k] = Get(k);
    return values;
  }

 private:
  std::vector<int64_t> shape_;
  aclDataType dtype_;
  int64_t count_ = 0;
  struct Free {
    void operator()(unsigned char* p) const { std::free(p); }
  };
  std::unique_ptr<unsigned char[], Free> storage_;
  aclTensor* handle_ = nullptr;
};

// ---------------------------------------------------------------------------------------
// Drawing a case's values: every element from its own counter-based draw, so a tensor of a
// billion elements needs no state and a case draws the same values on every run (uniform
// draws on every machine; normal ones go through libm's log and cos).

uint64_t Fnv1a(const std::string& text) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char ch : text) hash = (hash ^ ch) * 0x100000001b3ull;
  return hash;
}

class CaseDraw {
 public:
  CaseDraw(const std::string& api, const Json& c) : case_(c), api_(api), id_(c.at("id").get<int>()) {}
  CaseDraw(const CaseDraw&) = delete;
  CaseDraw& operator=(const CaseDraw&) = delete;

  int id() const { return id_; }
  Json tensors() const { return case_.at("tensors"); }
  Json attrs() const { return case_.at("attrs"); }
  aclDataType Dtype(const std::string& name) const {
    return DtypeOf(tensors().at(name).at("dtype").get<std::string>());
  }
  std::vector<int64_t> Shape(const std::string& name) const {
    return tensors().at(name).at("shape").get<std::vector<int64_t>>();
  }

  // A case the chip must refuse needs shapes and dtypes only: no value is drawn, and no
  // output is poisoned, so its storage is never touched.
  void MustBeRefused(bool refused) { values_ = !refused; }
  bool must_be_refused() const { return !values_; }

  // The tensor `name` of the case, filled from its range.
  std::unique_ptr<HostTensor> Tensor(const std::string& name, aclFormat format = ACL_FORMAT_ND) const {
    auto tensor = std::make_unique<HostTensor>(Shape(name), Dtype(name), format);
    Fill(*tensor, name, tensors().at(name).at("range"));
    return tensor;
  }
  // An output: NaN everywhere first, so an element the operator does not write fails.
  void Poison(HostTensor& output) const {
    if (values_) output.FillNan();
  }
  // A tensor of the given shape and dtype filled from `name`'s range (the upsample backward's
  // gradOut, which the table describes through the forward input).
  void Fill(HostTensor& tensor, const std::string& name, const Json& range) const {
    if (!values_) return;
    const uint64_t seed = Seed(name);
    if (range.contains("constant")) {
      const std::string value = range.at("constant").get<std::string>();
      const double constant = value == "inf" ? INFINITY : value == "-inf" ? -INFINITY : std::stod(value);
      tensor.SetEach([constant](int64_t) { return constant; });
    } else if (range.contains("uniform")) {
      const std::vector<double> bounds = range.at("uniform").get<std::vector<double>>();
      const double lo = bounds.at(0), hi = bounds.at(1);
      if (tensor.dtype() == ACL_INT32 || tensor.dtype() == ACL_UINT8) {  // integers lo..hi, each equally likely
        tensor.SetEach([=](int64_t k) { return std::min(hi, lo + std::floor(Unit(seed, k) * (hi - lo + 1))); });
      } else {
        tensor.SetEach([=](int64_t k) { return lo + (hi - lo) * Unit(seed, k); });
      }
    } else {  // normal: a mean and a deviation drawn once per tensor, then the elements
      const std::vector<double> mean_range = range.at("normal").at("mean").get<std::vector<double>>();
      const std::vector<double> std_range = range.at("normal").at("std").get<std::vector<double>>();
      support::SplitMix64 rng(seed ^ 0x5bd1e995ull);
      const double mean = rng.NextIn(mean_range.at(0), mean_range.at(1));
      const double deviation = rng.NextIn(std_range.at(0), std_range.at(1));
      tensor.SetEach([=](int64_t k) {
        support::SplitMix64 element(seed + static_cast<uint64_t>(k) * 0x9E3779B97F4A7C15ull);
        const double u1 = 1.0 - element.NextUnit(), u2 = element.NextUnit();  // u1 in (0, 1]
        return mean + deviation * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
      });
    }
  }

  // A scalar attribute: its value, or a draw in [lo, hi] for a ranged double.
  double Attr(const std::string& name) const {
    const Json a = attrs().at(name);
    if (!a.contains("uniform")) return a.get<double>();
    const std::vector<double> bounds = a.at("uniform").get<std::vector<double>>();
    support::SplitMix64 rng(Seed("attr:" + name));
    return bounds.at(0) + (bounds.at(1) - bounds.at(0)) * rng.NextUnit();
  }
  // A double attribute the API casts to float (upstream's aclnnBatchNorm and
  // aclnnBatchNormGatherStatsWithCounts pass momentum and eps to their kernels as float).
  double FloatAttr(const std::string& name) const { return static_cast<float>(Attr(name)); }
  bool Flag(const std::string& name) const { return attrs().at(name).get<bool>(); }

 private:
  uint64_t Seed(const std::string& name) const { return Fnv1a(api_ + "/" + std::to_string(id_) + "/" + name); }
  static double Unit(uint64_t seed, int64_t k) {
    support::SplitMix64 element(seed + static_cast<uint64_t>(k) * 0x9E3779B97F4A7C15ull);
    return element.NextUnit();
  }

  const Json& case_;
  std::string api_;
  int id_;
  bool values_ = true;
};

// ---------------------------------------------------------------------------------------
// ATK's single_bm standard, per output.

double SingleBmThreshold(aclDataType dtype) {
  if (dtype == ACL_FLOAT16) return 0x1p-10;
  if (dtype == ACL_BF16) return 0x1p-7;
  return 0x1p-13;
}

class SingleBm {
 public:
  SingleBm(std::string name, aclDataType dtype)
      : name_(std::move(name)), dtype_(dtype), threshold_(SingleBmThreshold(dtype)) {}

  // The golden is the float64 reference rounded once to the output's dtype, as the
  // executors return theirs in that dtype (no FLOAT16 result can come closer to a float64
  // value in the subnormal range than its rounding). NaN against NaN and an infinity against
  // the same infinity are exact; any other disagreement in class is an infinite error.
  void Add(double actual, double reference, int64_t index) {
    const bool coded = dtype_ == ACL_FLOAT || dtype_ == ACL_FLOAT16 || dtype_ == ACL_BF16;
    const double golden = coded ? RoundToFormat(reference, dtype_) : reference;
    double error;
    if (std::isnan(golden) || std::isnan(actual)) {
      error = std::isnan(golden) && std::isnan(actual) ? 0.0 : INFINITY;
    } else if (std::isinf(golden) || std::isinf(actual)) {
      error = actual == golden ? 0.0 : INFINITY;
    } else {
      error = std::fabs(actual - golden) / (std::fabs(golden) + 1e-7);
    }
    sum_ += error;
    ++count_;
    if (error > max_ || worst_ < 0) {
      max_ = error;
      worst_ = index;
      worst_actual_ = actual;
      worst_golden_ = golden;
    }
  }
  // Every element of `actual` against golden(k).
  void AddAll(const HostTensor& actual, const std::function<double(int64_t)>& golden) {
    for (int64_t k = 0; k < actual.count(); ++k) Add(actual.Get(k), golden(k), k);
  }
  // Another part of the same output's elements, as if added here after this part's.
  void Merge(const SingleBm& other) {
    sum_ += other.sum_;
    count_ += other.count_;
    if (other.worst_ >= 0 && (worst_ < 0 || other.max_ > max_)) {
      max_ = other.max_;
      worst_ = other.worst_;
      worst_actual_ = other.worst_actual_;
      worst_golden_ = other.worst_golden_;
    }
  }
  bool Passes() const { return count_ == 0 || (sum_ / count_ < threshold_ && max_ < 10 * threshold_); }
  std::string Describe() const {
    std::ostringstream out;
    out << name_ << ": MERE " << (count_ ? sum_ / count_ : 0.0) << ", MARE " << max_ << " (T " << threshold_
        << ") worst element " << worst_ << ": " << worst_actual_ << " vs " << worst_golden_;
    return out.str();
  }

 private:
  std::string name_;
  aclDataType dtype_;
  double threshold_;
  double sum_ = 0, max_ = 0;
  int64_t count_ = 0, worst_ = -1;
  double worst_actual_ = 0, worst_golden_ = 0;
};

// ---------------------------------------------------------------------------------------
// The outcome of one case.

// kDocumented: single_bm fails against float64, but the result is exactly what the
// contract prescribes and upstream's own golden computes (docs/conformance.md lists each class).
enum class Verdict { kPass, kDocumented, kRefusedByChip, kFail };
struct Outcome {
  Verdict verdict = Verdict::kPass;
  std::string detail;
};

Outcome Fail(const std::string& detail) { return {Verdict::kFail, detail}; }

// Phase 1's status when the chip must refuse the case's dtype: ACLNN_ERR_PARAM_INVALID and a
// message naming the chip.
Outcome ExpectRefusedByChip(aclnnStatus status, aclDataType dtype) {
  const char* message = aclGetRecentErrMsg();
  const std::string text = message ? message : "";
  if (status != ACLNN_ERR_PARAM_INVALID) {
    return Fail(std::string("status ") + std::to_string(status) + " for " + DtypeName(dtype) + " on " +
                Rules().soc + ", expected ACLNN_ERR_PARAM_INVALID: " + text);
  }
  if (text.find(Rules().soc) == std::string::npos) return Fail("the refusal does not name the chip: " + text);
  return {Verdict::kRefusedByChip, ""};
}

// Phase 1's status for an operator the chip has no kernel for.
Outcome ExpectNoKernelOnChip(aclnnStatus status) {
  const char* message = aclGetRecentErrMsg();
  const std::string text = message ? message : "";
  if (status != ACLNN_ERR_INNER_FIND_KERNEL_ERROR || text.find(Rules().soc) == std::string::npos) {
    return Fail("status " + std::to_string(status) + " on " + Rules().soc +
                ", which has no kernel for the operator (expected 561003 naming the chip): " + text);
  }
  return {Verdict::kRefusedByChip, ""};
}

using RunFunction = aclnnStatus (*)(void*, uint64_t, aclOpExecutor*, aclrtStream);

// Phase 1's status, then phase 2 on its own stream.
Outcome Launch(aclnnStatus status, RunFunction run, uint64_t workspace_size, aclOpExecutor* executor) {
  if (status != ACLNN_SUCCESS) {
    const char* message = aclGetRecentErrMsg();
    return Fail("phase 1 returned " + std::to_string(status) + ": " + (message ? message : ""));
  }
  const ::testing::AssertionResult ran = support::RunOnStream(run, workspace_size, executor);
  if (!ran) return Fail(ran.message());
  return {};
}

Outcome Judge(const std::vector<SingleBm>& outputs) {
  Outcome outcome;
  for (const SingleBm& output : outputs) {
    if (!output.Passes()) {
      outcome.verdict = Verdict::kFail;
      outcome.detail += (outcome.detail.empty() ? "" : "; ") + output.Describe();
    }
  }
  return outcome;
}

// [N, C, inner...]: element k's channel.
struct ChannelGeometry {
  explicit ChannelGeometry(const std::vector<int64_t>& shape) {
    channels = shape.at(1);
    for (size_t i = 2; i < shape.size(); ++i) inner *= shape[i];
    per_channel = shape.at(0) * inner;
  }
  int64_t Channel(int64_t k) const { return (k / inner) % channels; }
  int64_t channels = 1, inner = 1, per_channel = 1;
};

aclFormat FormatForRank(size_t rank) {  // the executors' get_format for the activations
  switch (rank) {
    case 2: return ACL_FORMAT_NC;
    case 3: return ACL_FORMAT_NCL;
    case 4: return ACL_FORMAT_NCHW;
    case 5: return ACL_FORMAT_NCDHW;
    default: return ACL_FORMAT_ND;
  }
}

// Per-channel mean and biased variance of x in float64 (two passes).
void ChannelMoments(const HostTensor& x, const ChannelGeometry& g, std::vector<double>& mean,
                    std::vector<double>& variance) {
  mean.assign(g.channels, 0.0);
  variance.assign(g.channels, 0.0);
  for (int64_t k = 0; k < x.count(); ++k) mean[g.Channel(k)] += x.Get(k);
  for (double& m : mean) m /= static_cast<double>(g.per_channel);
  for (int64_t k = 0; k < x.count(); ++k) {
    const double d = x.Get(k) - mean[g.Channel(k)];
    variance[g.Channel(k)] += d * d;
  }
  for (double& v : variance) v /= static_cast<double>(g.per_channel);
}

// ---------------------------------------------------------------------------------------
// One replay per API, as upstream's executor maps the case.

// aclnnBatchNorm: the executor sets every tensor ND. Training: y, saveMean, saveInvstd and
// the running statistics updated in place are checked (the executor compares saveInvstd
// with the unbiased torch.var; the contract is the chip's: the biased batch variance on
// every chip but the 950, else 1 / sqrt(var + eps)). Inference: y only (saveMean and
// saveInvstd are not written, as the executor's zeroing says).
//
// A 5-D case: the executor's ND label is refused by upstream's own CheckFormat ("Format of
// input should be NCDHW, when input dim is 5", ACLNN_ERR_PARAM_INVALID) on every chip; the
// runner asserts that refusal, then replays the case labelled NCDHW.
Outcome RefusesFiveDimensionalNd(const CaseDraw& d) {
  auto x = d.Tensor("input");
  auto running_mean = d.Tensor("runningMean"), running_var = d.Tensor("runningVar");
  HostTensor y(x->shape(), x->dtype());
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status =
      aclnnBatchNormGetWorkspaceSize(x->get(), nullptr, nullptr, running_mean->get(), running_var->get(), false, 0.1,
                                     1e-5, y.get(), nullptr, nullptr, &workspace, &executor);
  const char* message = aclGetRecentErrMsg();
  const std::string text = message ? message : "";
  if (status == ACLNN_ERR_PARAM_INVALID && text.find("NCDHW") != std::string::npos) return {};
  if (status == ACLNN_SUCCESS) aclDestroyAclOpExecutor(executor);
  return Fail("a 5-D ND input gave status " + std::to_string(status) + " (" + text +
              "), upstream refuses it with 161002 asking for NCDHW");
}

// Every batch-norm API on a chip without BFLOAT16: a case whose activation is BF16.
bool BatchNormDtypeRefused(CaseDraw& d, const std::string& activation) {
  const bool refused = d.Dtype(activation) == ACL_BF16 && !Rules().batch_norm_bf16;
  d.MustBeRefused(refused);
  return refused;
}

Outcome ReplayBatchNorm(CaseDraw& d) {
  const bool five_dimensional = d.Shape("input").size() == 5;
  const bool refused = BatchNormDtypeRefused(d, "input");
  if (five_dimensional && !refused) {
    const Outcome refused = RefusesFiveDimensionalNd(d);
    if (refused.verdict != Verdict::kPass) return refused;
  }
  const aclFormat format = five_dimensional ? ACL_FORMAT_NCDHW : ACL_FORMAT_ND;
  auto x = d.Tensor("input", format), w = d.Tensor("weight"), b = d.Tensor("bias");
  auto running_mean = d.Tensor("runningMean"), running_var = d.Tensor("runningVar");
  const bool training = d.Flag("training");
  const double momentum = d.FloatAttr("momentum"), eps = d.FloatAttr("eps");
  const ChannelGeometry g(x->shape());
  HostTensor y(x->shape(), x->dtype(), format), save_mean({g.channels}, x->dtype()),
      save_invstd({g.channels}, x->dtype());
  d.Poison(y);
  d.Poison(save_mean);
  d.Poison(save_invstd);
  const std::vector<double> rm0 = running_mean->Values(), rv0 = running_var->Values();
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnBatchNormGetWorkspaceSize(
      x->get(), w->get(), b->get(), running_mean->get(), running_var->get(), training, momentum, eps, y.get(),
      save_mean.get(), save_invstd.get(), &workspace, &executor);
  if (refused) return ExpectRefusedByChip(status, x->dtype());
  Outcome launched = Launch(status, aclnnBatchNorm, workspace, executor);
  if (launched.verdict != Verdict::kPass) return launched;

  std::vector<double> mean = rm0, variance = rv0;
  if (training) ChannelMoments(*x, g, mean, variance);
  std::vector<SingleBm> outputs;
  outputs.emplace_back("output", y.dtype());
  outputs.back().AddAll(y, [&](int64_t k) {
    const int64_t c = g.Channel(k);
    return (x->Get(k) - mean[c]) / std::sqrt(variance[c] + eps) * w->Get(c) + b->Get(c);
  });
  if (training) {
    const double n = static_cast<double>(g.per_channel);
    outputs.emplace_back("saveMean", save_mean.dtype());
    outputs.back().AddAll(save_mean, [&](int64_t c) { return mean[c]; });
    outputs.emplace_back(Rules().saves_variance ? "saveInvstd (batch variance)" : "saveInvstd",
                         save_invstd.dtype());
    outputs.back().AddAll(save_invstd, [&](int64_t c) {
      return Rules().saves_variance ? variance[c] : 1.0 / std::sqrt(variance[c] + eps);
    });
    outputs.emplace_back("runningMean", running_mean->dtype());
    outputs.back().AddAll(*running_mean, [&](int64_t c) { return (1 - momentum) * rm0[c] + momentum * mean[c]; });
    outputs.emplace_back("runningVar", running_var->dtype());
    outputs.back().AddAll(*running_var, [&](int64_t c) {
      return (1 - momentum) * rv0[c] + momentum * variance[c] * n / (n - 1);
    });
  }
  return Judge(outputs);
}

// aclnnBatchNormBackward: input0..6 = gradOut, input, weight, runningMean, runningVar,
// saveMean, saveInvstd; the activations in NC / NCL / NCHW / NCDHW by rank. Upstream's
// table has inference cases only: the running statistics are used on every chip.
Outcome ReplayBatchNormBackward(CaseDraw& d) {
  const bool refused = BatchNormDtypeRefused(d, "input0");
  const aclFormat format = FormatForRank(d.Shape("input0").size());
  auto dy = d.Tensor("input0", format), x = d.Tensor("input1", format), w = d.Tensor("input2");
  auto running_mean = d.Tensor("input3"), running_var = d.Tensor("input4");
  auto save_mean = d.Tensor("input5"), save_invstd = d.Tensor("input6");
  const bool training = d.Flag("training");
  if (training) return Fail("the table has a training case; the runner has no reference for it");
  const double eps = d.Attr("eps");
  const std::vector<bool> mask_values = d.attrs().at("outputmask").get<std::vector<bool>>();
  bool mask[3];
  for (size_t i = 0; i < 3; ++i) mask[i] = mask_values.at(i);
  aclBoolArray* output_mask = aclCreateBoolArray(mask, 3);
  const ChannelGeometry g(x->shape());
  HostTensor dx(x->shape(), dy->dtype(), format), dw({g.channels}, w->dtype()), db({g.channels}, w->dtype());
  d.Poison(dx);
  d.Poison(dw);
  d.Poison(db);
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnBatchNormBackwardGetWorkspaceSize(
      dy->get(), x->get(), w->get(), running_mean->get(), running_var->get(), save_mean->get(), save_invstd->get(),
      training, eps, output_mask, dx.get(), dw.get(), db.get(), &workspace, &executor);
  aclDestroyBoolArray(output_mask);
  if (refused) return ExpectRefusedByChip(status, dy->dtype());
  Outcome launched = Launch(status, aclnnBatchNormBackward, workspace, executor);
  if (launched.verdict != Verdict::kPass) return launched;

  std::vector<double> invstd(g.channels), sum_dy(g.channels, 0.0), sum_dy_xhat(g.channels, 0.0);
  for (int64_t c = 0; c < g.channels; ++c) invstd[c] = 1.0 / std::sqrt(running_var->Get(c) + eps);
  for (int64_t k = 0; k < x->count(); ++k) {
    const int64_t c = g.Channel(k);
    sum_dy[c] += dy->Get(k);
    sum_dy_xhat[c] += dy->Get(k) * (x->Get(k) - running_mean->Get(c)) * invstd[c];
  }
  std::vector<SingleBm> outputs;
  if (mask[0]) {
    outputs.emplace_back("gradInput", dx.dtype());
    outputs.back().AddAll(dx, [&](int64_t k) {
      const int64_t c = g.Channel(k);
      return dy->Get(k) * w->Get(c) * invstd[c];
    });
  }
  if (mask[1]) {
    outputs.emplace_back("gradWeight", dw.dtype());
    outputs.back().AddAll(dw, [&](int64_t c) { return sum_dy_xhat[c]; });
  }
  if (mask[2]) {
    outputs.emplace_back("gradBias", db.dtype());
    outputs.back().AddAll(db, [&](int64_t c) { return sum_dy[c]; });
  }
  return Judge(outputs);
}

// aclnnBatchNormElemt: input in NC / NCL / NCHW / NCDHW by rank. The executor's golden
// hands invstd to torch's batch_norm as a running variance; the contract is upstream's
// kernel: y = (x - mean) * |invstd| * weight + bias (its variance round trip, 1/invstd^2 -
// eps, then 1/sqrt(var + eps), keeps invstd's magnitude).
Outcome ReplayBatchNormElemt(CaseDraw& d) {
  const bool refused = BatchNormDtypeRefused(d, "input");
  const aclFormat format = FormatForRank(d.Shape("input").size());
  auto x = d.Tensor("input", format), w = d.Tensor("weight"), b = d.Tensor("bias");
  auto mean = d.Tensor("mean"), invstd = d.Tensor("invstd");
  const double eps = d.Attr("eps");
  const ChannelGeometry g(x->shape());
  HostTensor y(x->shape(), x->dtype(), format);
  d.Poison(y);
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnBatchNormElemtGetWorkspaceSize(x->get(), w->get(), b->get(), mean->get(),
                                                                 invstd->get(), eps, y.get(), &workspace, &executor);
  if (refused) return ExpectRefusedByChip(status, x->dtype());
  Outcome launched = Launch(status, aclnnBatchNormElemt, workspace, executor);
  if (launched.verdict != Verdict::kPass) return launched;
  std::vector<SingleBm> outputs;
  outputs.emplace_back("output", y.dtype());
  outputs.back().AddAll(y, [&](int64_t k) {
    const int64_t c = g.Channel(k);
    return (x->Get(k) - mean->Get(c)) * std::fabs(invstd->Get(c)) * w->Get(c) + b->Get(c);
  });
  return Judge(outputs);
}

// aclnnBatchNormElemtBackward: every tensor ND (the executor sets no format). The golden is
// the executor's formula: with total = sum(counter),
// dx = (dy - sumDy / total - (x - mean) * invstd^2 * sumDyXmu / total) * invstd * weight.
Outcome ReplayBatchNormElemtBackward(CaseDraw& d) {
  const bool refused = BatchNormDtypeRefused(d, "gradOut");
  auto dy = d.Tensor("gradOut"), x = d.Tensor("input"), mean = d.Tensor("mean"), invstd = d.Tensor("invstd");
  auto w = d.Tensor("weight"), sum_dy = d.Tensor("sumDy"), sum_dy_xmu = d.Tensor("sumDyXmu");
  auto counter = d.Tensor("counter");
  const ChannelGeometry g(x->shape());
  HostTensor dx(x->shape(), dy->dtype());
  d.Poison(dx);
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnBatchNormElemtBackwardGetWorkspaceSize(
      dy->get(), x->get(), mean->get(), invstd->get(), w->get(), sum_dy->get(), sum_dy_xmu->get(), counter->get(),
      dx.get(), &workspace, &executor);
  if (refused) return ExpectRefusedByChip(status, dy->dtype());
  Outcome launched = Launch(status, aclnnBatchNormElemtBackward, workspace, executor);
  if (launched.verdict != Verdict::kPass) return launched;
  double total = 0;
  for (int64_t i = 0; i < counter->count(); ++i) total += counter->Get(i);
  std::vector<SingleBm> outputs;
  outputs.emplace_back("gradInput", dx.dtype());
  outputs.back().AddAll(dx, [&](int64_t k) {
    const int64_t c = g.Channel(k);
    const double s = invstd->Get(c);
    return (dy->Get(k) - sum_dy->Get(c) / total - (x->Get(k) - mean->Get(c)) * s * s * sum_dy_xmu->Get(c) / total) *
           s * w->Get(c);
  });
  return Judge(outputs);
}

// aclnnBatchNormReduceBackward: gradOut and input in NC / NCL / NCHW / NCDHW by rank; the
// four outputs in the input's dtype, as the executor returns them.
Outcome ReplayBatchNormReduceBackward(CaseDraw& d) {
  const bool refused = BatchNormDtypeRefused(d, "gradOut");
  const aclFormat format = FormatForRank(d.Shape("gradOut").size());
  auto dy = d.Tensor("gradOut", format), x = d.Tensor("input", format), mean = d.Tensor("mean");
  auto invstd = d.Tensor("invstd"), w = d.Tensor("weight");
  const bool input_g = d.Flag("inputG"), weight_g = d.Flag("weightG"), bias_g = d.Flag("biasG");
  const ChannelGeometry g(x->shape());
  const aclDataType dtype = x->dtype();
  HostTensor sum_dy({g.channels}, dtype), sum_dy_xmu({g.channels}, dtype), dw({g.channels}, dtype),
      db({g.channels}, dtype);
  for (HostTensor* t : {&sum_dy, &sum_dy_xmu, &dw, &db}) d.Poison(*t);
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnBatchNormReduceBackwardGetWorkspaceSize(
      dy->get(), x->get(), mean->get(), invstd->get(), w->get(), input_g, weight_g, bias_g, sum_dy.get(),
      sum_dy_xmu.get(), dw.get(), db.get(), &workspace, &executor);
  if (refused) return ExpectRefusedByChip(status, dtype);
  Outcome launched = Launch(status, aclnnBatchNormReduceBackward, workspace, executor);
  if (launched.verdict != Verdict::kPass) return launched;
  std::vector<double> s_dy(g.channels, 0.0), s_dy_xmu(g.channels, 0.0);
  for (int64_t k = 0; k < x->count(); ++k) {
    const int64_t c = g.Channel(k);
    s_dy[c] += dy->Get(k);
    s_dy_xmu[c] += dy->Get(k) * (x->Get(k) - mean->Get(c));
  }
  std::vector<SingleBm> outputs;
  if (input_g) {
    outputs.emplace_back("sumDy", dtype);
    outputs.back().AddAll(sum_dy, [&](int64_t c) { return s_dy[c]; });
    outputs.emplace_back("sumDyXmu", dtype);
    outputs.back().AddAll(sum_dy_xmu, [&](int64_t c) { return s_dy_xmu[c]; });
  }
  if (weight_g) {
    outputs.emplace_back("gradWeight", dtype);
    outputs.back().AddAll(dw, [&](int64_t c) { return s_dy_xmu[c] * invstd->Get(c); });
  }
  if (bias_g) {
    outputs.emplace_back("gradBias", dtype);
    outputs.back().AddAll(db, [&](int64_t c) { return s_dy[c]; });
  }
  return Judge(outputs);
}

// aclnnBatchNormGatherStatsWithCounts: every tensor ND; meanAll and invstdAll in the input's
// dtype. The golden is upstream's formula over every row (negative counts included):
// total = sum(count), meanAll = sum(mean * count) / total,
// var = sum((1/invstd^2 - eps + (mean - meanAll)^2) * count) / total,
// invstdAll = 1 / sqrt(var + eps); the running statistics (updated in place, which the
// executor does not check) move by momentum towards meanAll and var * total / (total - 1).
Outcome ReplayBatchNormGatherStatsWithCounts(CaseDraw& d) {
  const bool refused = BatchNormDtypeRefused(d, "input");
  auto x = d.Tensor("input"), mean = d.Tensor("mean"), invstd = d.Tensor("invstd");
  auto running_mean = d.Tensor("runningMean"), running_var = d.Tensor("runningVar"), counts = d.Tensor("counts");
  const double momentum = d.FloatAttr("momentum"), eps = d.FloatAttr("eps");
  const int64_t rows = mean->dim(0), channels = mean->dim(1);
  const aclDataType dtype = x->dtype();
  HostTensor mean_all({channels}, dtype), invstd_all({channels}, dtype);
  d.Poison(mean_all);
  d.Poison(invstd_all);
  const std::vector<double> rm0 = running_mean->Values(), rv0 = running_var->Values();
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnBatchNormGatherStatsWithCountsGetWorkspaceSize(
      x->get(), mean->get(), invstd->get(), running_mean->get(), running_var->get(), momentum, eps, counts->get(),
      mean_all.get(), invstd_all.get(), &workspace, &executor);
  if (refused) return ExpectRefusedByChip(status, dtype);
  Outcome launched = Launch(status, aclnnBatchNormGatherStatsWithCounts, workspace, executor);
  if (launched.verdict != Verdict::kPass) return launched;
  double total = 0;
  for (int64_t r = 0; r < rows; ++r) total += counts->Get(r);
  std::vector<double> golden_mean(channels, 0.0), golden_var(channels, 0.0);
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t r = 0; r < rows; ++r) golden_mean[c] += mean->Get(r * channels + c) * counts->Get(r) / total;
    for (int64_t r = 0; r < rows; ++r) {
      const double s = invstd->Get(r * channels + c), m = mean->Get(r * channels + c) - golden_mean[c];
      golden_var[c] += (1.0 / (s * s) - eps + m * m) * counts->Get(r);
    }
    golden_var[c] /= total;
  }
  std::vector<SingleBm> outputs;
  outputs.emplace_back("meanAll", dtype);
  outputs.back().AddAll(mean_all, [&](int64_t c) { return golden_mean[c]; });
  outputs.emplace_back("invstdAll", dtype);
  outputs.back().AddAll(invstd_all, [&](int64_t c) { return 1.0 / std::sqrt(golden_var[c] + eps); });
  outputs.emplace_back("runningMean", running_mean->dtype());
  outputs.back().AddAll(*running_mean, [&](int64_t c) {
    return (1 - momentum) * rm0[c] + momentum * golden_mean[c];
  });
  outputs.emplace_back("runningVar", running_var->dtype());
  outputs.back().AddAll(*running_var, [&](int64_t c) {
    return (1 - momentum) * rv0[c] + momentum * golden_var[c] * total / (total - 1);
  });
  return Judge(outputs);
}

// Nearest-exact source index, in PyTorch's float arithmetic (scale = in / out when no scale
// is given, as the executor's pyaclnn path passes scales of 0 with the `size` attribute).
int64_t NearestExactSource(int64_t out_index, int64_t in_size, int64_t out_size) {
  const float scale = static_cast<float>(in_size) / static_cast<float>(out_size);
  const int64_t source = static_cast<int64_t>(std::floor((static_cast<float>(out_index) + 0.5f) * scale));
  return std::min(source, in_size - 1);
}

// The index into an [N, C, D, H, W] input of output element k of [N, C, d, h, w].
struct NearestExactMap {
  NearestExactMap(const std::vector<int64_t>& in, const std::vector<int64_t>& out) : in_(in), out_(out) {}
  int64_t Source(int64_t k) const {
    const int64_t w = k % out_[4], h = (k / out_[4]) % out_[3], dd = (k / (out_[4] * out_[3])) % out_[2];
    const int64_t plane = k / (out_[4] * out_[3] * out_[2]);
    return ((plane * in_[2] + NearestExactSource(dd, in_[2], out_[2])) * in_[3] +
            NearestExactSource(h, in_[3], out_[3])) * in_[4] + NearestExactSource(w, in_[4], out_[4]);
  }
  std::vector<int64_t> in_, out_;
};

// The output shape: the input's N and C, then the `size` attribute.
std::vector<int64_t> UpsampledShape(const CaseDraw& d) {
  const std::vector<int64_t> in = d.Shape("input");
  const std::vector<int64_t> size = d.attrs().at("size").get<std::vector<int64_t>>();
  return {in.at(0), in.at(1), size.at(0), size.at(1), size.at(2)};
}

// aclnnUpsampleNearestExact3d: outputSize = `size`, scales 0 (the executor's pyaclnn path).
Outcome ReplayUpsampleNearestExact3d(CaseDraw& d) {
  const bool dtype_refused = d.Dtype("input") == ACL_BF16 && !Rules().upsample_bf16;
  d.MustBeRefused(!Rules().upsample_forward || dtype_refused);
  auto x = d.Tensor("input");
  const std::vector<int64_t> out_shape = UpsampledShape(d);
  HostTensor y(out_shape, x->dtype());
  d.Poison(y);
  const std::vector<int64_t> size(out_shape.begin() + 2, out_shape.end());
  aclIntArray* output_size = aclCreateIntArray(size.data(), size.size());
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status =
      aclnnUpsampleNearestExact3dGetWorkspaceSize(x->get(), output_size, 0.0, 0.0, 0.0, y.get(), &workspace, &executor);
  aclDestroyIntArray(output_size);
  if (!Rules().upsample_forward) return ExpectNoKernelOnChip(status);
  if (dtype_refused) return ExpectRefusedByChip(status, x->dtype());
  Outcome launched = Launch(status, aclnnUpsampleNearestExact3d, workspace, executor);
  if (launched.verdict != Verdict::kPass) return launched;
  const NearestExactMap map(x->shape(), out_shape);
  std::vector<SingleBm> outputs;
  outputs.emplace_back("out", y.dtype());
  outputs.back().AddAll(y, [&](int64_t k) { return x->Get(map.Source(k)); });
  return Judge(outputs);
}

// A nearest backward's result against the float64 sums of gradOut over each element's
// window (single_bm). FLOAT: the contract is PyTorch's fp32 sum in output order, which is
// also what the executors' golden (torch on CPU) computes; a window whose fp32 sum cancels
// can miss single_bm against float64, so such a case is documented only if every element
// is that fp32 sum bit for bit. `map.Source(k)`: the element gradOut[k] adds into.
template <class Map>
Outcome JudgeNearestBackward(const char* name, const HostTensor& grad_out, const HostTensor& result, const Map& map) {
  std::vector<double> golden(static_cast<size_t>(result.count()), 0.0);
  for (int64_t k = 0; k < grad_out.count(); ++k) golden[map.Source(k)] += grad_out.Get(k);
  std::vector<SingleBm> outputs;
  outputs.emplace_back(name, result.dtype());
  outputs.back().AddAll(result, [&](int64_t k) { return golden[k]; });
  Outcome judged = Judge(outputs);
  if (judged.verdict != Verdict::kFail || result.dtype() != ACL_FLOAT) return judged;
  std::vector<float> torch_order(static_cast<size_t>(result.count()), 0.0f);
  for (int64_t k = 0; k < grad_out.count(); ++k) torch_order[map.Source(k)] += static_cast<float>(grad_out.Get(k));
  for (int64_t k = 0; k < result.count(); ++k) {
    const double expected = torch_order[k];
    if (!(result.Get(k) == expected || (std::isnan(result.Get(k)) && std::isnan(expected)))) return judged;
  }
  return {Verdict::kDocumented, "fp32 window sums cancel; every element is PyTorch's fp32 sum bit for bit (" +
                                    judged.detail + ")"};
}

// aclnnUpsampleNearestExact3dBackward: inputSize = the table's input shape, outputSize =
// `size`, scales 0. The executor's golden back-propagates a gradient of ones; here gradOut
// is drawn from the table's range for the input (a stricter check: every sum differs).
Outcome ReplayUpsampleNearestExact3dBackward(CaseDraw& d) {
  d.MustBeRefused(!Rules().upsample_backward);
  const std::vector<int64_t> in_shape = d.Shape("input"), out_shape = UpsampledShape(d);
  HostTensor dy(out_shape, d.Dtype("input"));
  d.Fill(dy, "gradOut", d.tensors().at("input").at("range"));
  HostTensor dx(in_shape, dy.dtype());
  d.Poison(dx);
  const std::vector<int64_t> size(out_shape.begin() + 2, out_shape.end());
  aclIntArray* output_size = aclCreateIntArray(size.data(), size.size());
  aclIntArray* input_size = aclCreateIntArray(in_shape.data(), in_shape.size());
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(
      dy.get(), output_size, input_size, 0.0, 0.0, 0.0, dx.get(), &workspace, &executor);
  aclDestroyIntArray(output_size);
  aclDestroyIntArray(input_size);
  if (!Rules().upsample_backward) return ExpectNoKernelOnChip(status);
  Outcome launched = Launch(status, aclnnUpsampleNearestExact3dBackward, workspace, executor);
  if (launched.verdict != Verdict::kPass) return launched;
  return JudgeNearestBackward("gradInput", dy, dx, NearestExactMap(in_shape, out_shape));
}

// A table's `size` attribute: a list, or a number in the 1-D tables.
std::vector<int64_t> SizesOf(const Json& size) {
  return size.dump().front() == '[' ? size.get<std::vector<int64_t>>() : std::vector<int64_t>{size.get<int64_t>()};
}

// ---------------------------------------------------------------------------------------
// The rest of the nearest family: one replay for all twelve tables, the API called through
// the family's table (tests/upsample_nearest/nearest_apis.h).

// The family's contract per chip (upstream's op_api dtype lists and kernel registrations,
// docs/soc-profiles.md), written here independently of the library's tables.
bool NearestNoKernel(const std::string& api) {
  if (api == "aclnnUpsampleNearestExact1d" || api == "aclnnUpsampleNearestExact2d") return Rules().is_910;
  if (api == "aclnnUpsampleNearestExact1dBackward" || api == "aclnnUpsampleNearestExact2dBackward") {
    return Rules().is_910 || Rules().is_310p;
  }
  return false;
}

bool NearestDtypeRefused(const std::string& api, aclDataType dtype) {
  const ChipRules& r = Rules();
  const bool bf16_chip = !r.is_910 && !r.is_310p;
  if (api == "aclnnUpsampleNearest1d" || api == "aclnnUpsampleNearest2d" || api == "aclnnUpsampleNearest1dV2" ||
      api == "aclnnUpsampleNearest2dV2" || api == "aclnnUpsampleNearest2dBackward") {
    return dtype == ACL_BF16 && !bf16_chip;
  }
  if (api == "aclnnUpsampleNearest3d") {
    if (r.is_310p) return dtype != ACL_FLOAT && dtype != ACL_FLOAT16;
    return dtype == ACL_UINT8 && r.is_chip && !r.is_950;
  }
  if (api == "aclnnUpsampleNearestExact1d" || api == "aclnnUpsampleNearestExact2d") {
    return dtype == ACL_UINT8 && r.is_950;
  }
  return false;
}

// The source index along one axis, from the definitions in PyTorch's arithmetic: nearest
// (floor of o * ratio in float; the backwards' nearest_idx also maps 1:1 and 1:2 directly)
// or nearest-exact (floor of (o + 0.5) * ratio, the product in double); ratio = 1 / scale
// for a given scale, else in / out.
int64_t FamilySource(bool exact, bool shortcuts, int64_t o, int64_t in, int64_t out, double scale) {
  if (shortcuts && out == in) return o;
  if (shortcuts && out == 2 * in) return o >> 1;
  const float ratio = scale > 0 ? static_cast<float>(1.0 / scale) : static_cast<float>(in) / static_cast<float>(out);
  const float position = exact ? std::floor(static_cast<float>((static_cast<double>(o) + 0.5) * ratio))
                               : std::floor(static_cast<float>(o) * ratio);
  return std::min(static_cast<int64_t>(position), in - 1);
}

// Element k of the large side ([N, C, size...], row-major in its view order, channels last
// or not) and the index of its source in the small side.
struct FamilyMap {
  std::vector<int64_t> small, large;  // logical [N, C, spatial...]
  std::vector<double> scales;         // per spatial axis, <= 0: not given
  bool exact = false, shortcuts = false, channels_last = false;
  int64_t Source(int64_t k) const {
    const size_t rank = large.size();
    std::vector<int64_t> at(rank);
    std::vector<int64_t> view = ViewOrder(large);
    for (size_t d = rank; d-- > 0;) {
      at[d] = k % view[d];
      k /= view[d];
    }
    std::vector<int64_t> logical = Logical(at);
    for (size_t axis = 2; axis < rank; ++axis) {
      logical[axis] = FamilySource(exact, shortcuts, logical[axis], small[axis], large[axis], scales[axis - 2]);
    }
    const std::vector<int64_t> from = ViewOrder(logical), dims = ViewOrder(small);
    int64_t index = 0;
    for (size_t d = 0; d < rank; ++d) index = index * dims[d] + from[d];
    return index;
  }
  std::vector<int64_t> ViewOrder(const std::vector<int64_t>& logical) const {
    if (!channels_last) return logical;
    std::vector<int64_t> view = {logical[0]};
    view.insert(view.end(), logical.begin() + 2, logical.end());
    view.push_back(logical[1]);
    return view;
  }
  std::vector<int64_t> Logical(const std::vector<int64_t>& view) const {
    if (!channels_last) return view;
    std::vector<int64_t> logical = {view[0], view.back()};
    logical.insert(logical.end(), view.begin() + 1, view.end() - 1);
    return logical;
  }
};

aclFormat AtkFormat(const std::string& name) {
  if (name == "NCL") return ACL_FORMAT_NCL;
  if (name == "NCHW") return ACL_FORMAT_NCHW;
  if (name == "NHWC") return ACL_FORMAT_NHWC;
  if (name == "NCDHW") return ACL_FORMAT_NCDHW;
  return ACL_FORMAT_ND;
}

// How upstream's executors call the API (their tests/st/<api>/executor_*.py): outputSize is
// the `size` attribute and every scale 0; the V2 forwards draw their scales and size the
// output floor(scale * in); NearestExact2dBackward takes its fixed `scale_factor` as the
// scales and int(in * factor) as the size. A backward's gradOut is [N, C, size...], drawn
// here from the input's range (upstream back-propagates ones: every window sum is then a
// count), and inputSize is the table's input shape.
Outcome ReplayNearestFamily(CaseDraw& d, const std::string& api_name) {
  const nearest_test::NearestApi& api = nearest_test::ApiNamed(api_name);
  const aclDataType dtype = d.Dtype("input");
  const bool no_kernel = NearestNoKernel(api_name), refused = NearestDtypeRefused(api_name, dtype);
  d.MustBeRefused(no_kernel || refused);
  const Json attrs = d.attrs();
  const std::string format_name = attrs.contains("format") ? attrs.at("format").get<std::string>() : "ND";
  const aclFormat format = AtkFormat(format_name);
  FamilyMap map;
  map.channels_last = format == ACL_FORMAT_NHWC;
  map.exact = api.exact;
  map.shortcuts = api.backward && !api.exact;
  map.small = map.Logical(d.Shape("input"));
  const int spatial = api.spatial;
  std::vector<int64_t> size(spatial);
  map.scales.assign(spatial, 0.0);
  if (api_name == "aclnnUpsampleNearest1dV2" || api_name == "aclnnUpsampleNearest2dV2") {
    static const char* const kNames[2][2] = {{"scalesL", ""}, {"scalesH", "scalesW"}};
    for (int axis = 0; axis < spatial; ++axis) {
      map.scales[axis] = d.FloatAttr(kNames[spatial - 1][axis]);  // the API takes float scales
      size[axis] = static_cast<int64_t>(std::floor(map.scales[axis] * static_cast<double>(map.small[2 + axis])));
    }
  } else if (api_name == "aclnnUpsampleNearestExact2dBackward") {
    const std::vector<double> factors = attrs.at("scale_factor").get<std::vector<double>>();
    for (int axis = 0; axis < spatial; ++axis) {
      map.scales[axis] = factors.at(axis);
      size[axis] = static_cast<int64_t>(static_cast<double>(map.small[2 + axis]) * factors.at(axis));
    }
  } else {
    size = SizesOf(attrs.at("size"));
  }
  map.large = {map.small[0], map.small[1]};
  map.large.insert(map.large.end(), size.begin(), size.end());
  std::vector<double> scale_args = map.scales;
  scale_args.resize(3, 0.0);
  aclIntArray* output_size = aclCreateIntArray(size.data(), size.size());
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status;
  std::unique_ptr<HostTensor> input, output;
  if (api.backward) {
    input = std::make_unique<HostTensor>(map.ViewOrder(map.large), dtype, format);
    d.Fill(*input, "gradOut", d.tensors().at("input").at("range"));
    output = std::make_unique<HostTensor>(d.Shape("input"), dtype, format);
    d.Poison(*output);
    const std::vector<int64_t> input_sizes = d.Shape("input");
    aclIntArray* input_size = aclCreateIntArray(input_sizes.data(), input_sizes.size());
    status = api.backward_phase1(input->get(), output_size, input_size, scale_args.data(), output->get(), &workspace,
                                 &executor);
    aclDestroyIntArray(input_size);
  } else {
    input = d.Tensor("input", format);
    output = std::make_unique<HostTensor>(map.ViewOrder(map.large), dtype, format);
    d.Poison(*output);
    status = api.forward(input->get(), output_size, scale_args.data(), output->get(), &workspace, &executor);
  }
  aclDestroyIntArray(output_size);
  if (no_kernel) return ExpectNoKernelOnChip(status);
  if (refused) return ExpectRefusedByChip(status, dtype);
  if (std::find(size.begin(), size.end(), 0) != size.end()) {  // an empty output size: refused
    if (status == ACLNN_ERR_PARAM_INVALID) return {};
    return Fail("an output size of 0 was not refused: status " + std::to_string(status));
  }
  Outcome launched = Launch(status, api.phase2, workspace, executor);
  if (launched.verdict != Verdict::kPass) return launched;
  std::vector<SingleBm> outputs;
  if (!api.backward) {
    outputs.emplace_back("out", dtype);
    outputs.back().AddAll(*output, [&](int64_t k) { return input->Get(map.Source(k)); });
    return Judge(outputs);
  }
  return JudgeNearestBackward(api.name.find("Exact") != std::string::npos ? "out" : "gradInput", *input, *output, map);
}

// ---------------------------------------------------------------------------------------
// The interpolating family: one replay for its thirteen tables, the API called through the
// family's table (tests/upsample_interp/interp_apis.h).

// The family's contract per chip (upstream's op_api dtype lists and arch branches,
// image/<folder>/op_host/op_api/aclnn_upsample_*.cpp, and docs/soc-profiles.md), written here
// independently of the library's tables. No API of the family lacks a kernel on a chip;
// upstream's Linear1dBackward rejects the 310P whatever the dtype.
bool InterpDtypeRefused(const std::string& api, aclDataType dtype) {
  const ChipRules& r = Rules();
  const bool bf16_chip = !r.is_910 && !r.is_310p;  // the 910B, 910_93 and 950 (and the default)
  if (api == "aclnnUpsampleBicubic2d" || api == "aclnnUpsampleBilinear2dBackwardV2" ||
      api == "aclnnUpsampleBicubic2dBackward") {
    return dtype == ACL_BF16 && !bf16_chip;
  }
  if (api == "aclnnUpsampleBilinear2dBackward") return dtype == ACL_BF16 && r.is_chip && !r.is_950;
  if (api == "aclnnUpsampleTrilinear3d") {
    if (r.is_310p) return dtype != ACL_FLOAT && dtype != ACL_FLOAT16;
    return dtype == ACL_DOUBLE && r.is_950;
  }
  if (api == "aclnnUpsampleLinear1dBackward") return r.is_310p;
  return false;
}

// Which given scales the map uses, per the API's page (docs/aclnnUpsample*.md, "Formula"):
// each > 0 on its own axis; all of them when all are > 0, else none; all of them when each is
// > 0 and agrees with the sizes, (int64)(in * scale) == out, else none; never.
enum class ScaleRule { kEachPositive, kAllPositive, kAllAgreeing, kIgnored };

ScaleRule ScaleRuleOf(const std::string& api) {
  if (api == "aclnnUpsampleBilinear2d" || api == "aclnnUpsampleBilinear2dBackwardV2" ||
      api == "aclnnUpsampleLinear1dBackward") {
    return ScaleRule::kAllAgreeing;
  }
  if (api == "aclnnUpsampleTrilinear3d" || api == "aclnnUpsampleTrilinear3dBackward") return ScaleRule::kAllPositive;
  if (api == "aclnnUpsampleBilinear2dBackward") return ScaleRule::kIgnored;
  return ScaleRule::kEachPositive;  // Linear1d, Bicubic2d and its backward, the anti-aliased four
}

// The scale each spatial axis's map uses (0: none, the sizes set the step).
std::vector<double> CountedScales(ScaleRule rule, const std::vector<double>& given, const std::vector<int64_t>& in,
                                  const std::vector<int64_t>& out) {
  std::vector<double> counted(given.size(), 0.0);
  bool all_positive = true, all_agree = true;
  for (size_t k = 0; k < given.size(); ++k) {
    all_positive = all_positive && given[k] > 0;
    all_agree = all_agree && given[k] > 0 && static_cast<int64_t>(static_cast<double>(in[k]) * given[k]) == out[k];
    if (rule == ScaleRule::kEachPositive && given[k] > 0) counted[k] = given[k];
  }
  if ((rule == ScaleRule::kAllPositive && all_positive) || (rule == ScaleRule::kAllAgreeing && all_agree)) {
    counted = given;
  }
  return counted;
}

// One output's taps along an axis: (input index, weight), in PyTorch's order.
struct InterpTap {
  int64_t index;
  double weight;
};
using AxisTaps = std::vector<std::vector<InterpTap>>;  // per output index

enum class InterpFilter { kLinear, kCubic, kLinearAntialias, kCubicAntialias };

InterpFilter FilterOf(oracle::InterpKind kind) {
  switch (kind) {
    case oracle::InterpKind::kBicubic: return InterpFilter::kCubic;
    case oracle::InterpKind::kBilinearAA: return InterpFilter::kLinearAntialias;
    case oracle::InterpKind::kBicubicAA: return InterpFilter::kCubicAntialias;
    default: return InterpFilter::kLinear;
  }
}

// PyTorch 1.13's weights (aten/src/ATen/native/UpSample.h, cpu/UpSampleKernel.cpp) in the
// arithmetic of its float32 kernel, which the executors' golden runs (torch on the CPU,
// FLOAT16 and BF16 cast to float32): the step in float (area_pixel_compute_scale<float>), the
// source index in double (its acc_type), lambdas, cubic coefficients and the anti-aliasing
// filters in float. Exact zeros matter: a weight of 0 times an infinite input is NaN, as in
// PyTorch.
float AreaPixelScale(int64_t in, int64_t out, bool align_corners, double scale) {
  if (align_corners) return out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1) : 0.0f;
  return scale > 0 ? static_cast<float>(1.0 / scale) : static_cast<float>(in) / static_cast<float>(out);
}

double AreaPixelSourceIndex(float step, int64_t o, bool align_corners, bool cubic) {
  if (align_corners) return static_cast<double>(step) * static_cast<double>(o);
  const double source = static_cast<double>(step) * (static_cast<double>(o) + 0.5) - 0.5;
  return !cubic && source < 0 ? 0.0 : source;
}

// compute_source_index_and_lambda: two taps, (o, 1), (o, 0) when the size is unchanged.
std::vector<InterpTap> LinearTaps(float step, int64_t o, int64_t in, int64_t out, bool align_corners) {
  if (in == out) return {{o, 1.0}, {o, 0.0}};
  const double source = AreaPixelSourceIndex(step, o, align_corners, /*cubic=*/false);
  const int64_t i0 = static_cast<int64_t>(source);
  const float lambda1 = static_cast<float>(source - static_cast<double>(i0));
  const float lambda0 = 1.0f - lambda1;
  return {{i0, lambda0}, {i0 + (i0 < in - 1 ? 1 : 0), lambda1}};
}

// HelperInterpCubic::compute_indices_weights: get_cubic_upsample_coefficients (A = -0.75) and
// the four taps clamped to the axis.
std::vector<InterpTap> CubicTaps(float step, int64_t o, int64_t in, bool align_corners) {
  const float a = -0.75f;
  const auto convolution1 = [a](float x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };  // |x| <= 1
  const auto convolution2 = [a](float x) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; };  // 1 < |x| < 2
  const double source = AreaPixelSourceIndex(step, o, align_corners, /*cubic=*/true);
  const int64_t floor = static_cast<int64_t>(std::floor(static_cast<float>(source)));  // floorf
  const float t = static_cast<float>(source - static_cast<double>(floor));
  const float u = static_cast<float>(1.0 - static_cast<double>(t));
  const float weights[4] = {convolution2(static_cast<float>(t + 1.0)), convolution1(t), convolution1(u),
                           convolution2(static_cast<float>(u + 1.0))};
  std::vector<InterpTap> taps;
  for (int j = 0; j < 4; ++j) taps.push_back({std::min(std::max(floor - 1 + j, int64_t{0}), in - 1), weights[j]});
  return taps;
}

// HelperInterpBase::_compute_weights_aa: the filter (triangle, or cubic with a = -0.5) on the
// inputs under its support, which a down-scale widens by the step; weights divided by their sum.
std::vector<InterpTap> AntialiasTaps(float step, int64_t o, int64_t in, bool cubic) {
  const int interp_size = cubic ? 4 : 2;
  const float support = step >= 1.0f ? static_cast<float>(interp_size * 0.5 * step) : static_cast<float>(interp_size * 0.5);
  const float center = static_cast<float>(step * (static_cast<double>(o) + 0.5));
  const float invscale = step >= 1.0f ? static_cast<float>(1.0 / step) : 1.0f;
  const int64_t xmin = std::max(static_cast<int64_t>(static_cast<double>(center - support) + 0.5), int64_t{0});
  const int64_t xmax = std::min(static_cast<int64_t>(static_cast<double>(center + support) + 0.5), in);
  const auto filter = [cubic](float x) -> float {
    x = std::fabs(x);
    if (!cubic) return x < 1.0f ? static_cast<float>(1.0 - x) : 0.0f;
    const double a = -0.5;
    if (x < 1.0f) return static_cast<float>(((a + 2.0) * x - (a + 3.0)) * x * x + 1);
    if (x < 2.0f) return static_cast<float>((((x - 5) * x + 8) * x - 4) * a);
    return 0.0f;
  };
  std::vector<float> weights;
  float total = 0.0f;
  for (int64_t j = xmin; j < xmax; ++j) {
    const float x = static_cast<float>((static_cast<double>(static_cast<float>(j) - center) + 0.5) * invscale);
    weights.push_back(filter(x));
    total += weights.back();
  }
  std::vector<InterpTap> taps;
  for (int64_t j = xmin; j < xmax; ++j) {
    const float w = weights[j - xmin];
    taps.push_back({j, total != 0.0f ? w / total : w});
  }
  return taps;
}

AxisTaps PyTorchAxisTaps(InterpFilter filter, int64_t in, int64_t out, bool align_corners, double scale) {
  const float step = AreaPixelScale(in, out, align_corners, scale);
  AxisTaps taps(out);
  for (int64_t o = 0; o < out; ++o) {
    switch (filter) {
      case InterpFilter::kLinear: taps[o] = LinearTaps(step, o, in, out, align_corners); break;
      case InterpFilter::kCubic: taps[o] = CubicTaps(step, o, in, align_corners); break;
      case InterpFilter::kLinearAntialias: taps[o] = AntialiasTaps(step, o, in, /*cubic=*/false); break;
      case InterpFilter::kCubicAntialias: taps[o] = AntialiasTaps(step, o, in, /*cubic=*/true); break;
    }
  }
  return taps;
}

// One plane ([spatial...] row-major over `dims`) interpolated along spatial axis `axis` in
// Acc: each output its first tap's product, then each further one added (forward), or each
// output's value added into its taps' inputs (transpose: the backward). dims[axis] becomes
// the new size. In float, the forward passes W, then H, then D give PyTorch's fp32 kernel's
// nested sums exactly (the same products and additions, each rounded to float).
template <class Acc>
std::vector<Acc> AlongAxis(const std::vector<Acc>& plane, std::vector<int64_t>& dims, size_t axis,
                           const AxisTaps& taps, int64_t in_size, bool transpose) {
  int64_t outer = 1, inner = 1;
  for (size_t k = 0; k < axis; ++k) outer *= dims[k];
  for (size_t k = axis + 1; k < dims.size(); ++k) inner *= dims[k];
  const int64_t outputs = static_cast<int64_t>(taps.size());
  const int64_t from = transpose ? outputs : in_size, to = transpose ? in_size : outputs;
  std::vector<Acc> result(static_cast<size_t>(outer * to * inner), Acc{0});
  for (int64_t a = 0; a < outer; ++a) {
    for (int64_t o = 0; o < outputs; ++o) {
      for (size_t j = 0; j < taps[o].size(); ++j) {
        const InterpTap& tap = taps[o][j];
        const Acc weight = static_cast<Acc>(tap.weight);
        const int64_t source = transpose ? o : tap.index, target = transpose ? tap.index : o;
        const Acc* src = &plane[static_cast<size_t>((a * from + source) * inner)];
        Acc* dst = &result[static_cast<size_t>((a * to + target) * inner)];
        const bool add = transpose || j > 0;
        for (int64_t b = 0; b < inner; ++b) dst[b] = add ? dst[b] + src[b] * weight : src[b] * weight;
      }
    }
  }
  dims[axis] = to;
  return result;
}

// Plane p of `source` (from_dims elements each) through every axis's taps, W first (PyTorch's
// innermost sum), in Acc.
template <class Acc>
std::vector<Acc> InterpolatedPlane(const HostTensor& source, int64_t p, const std::vector<int64_t>& from_dims,
                                   const std::vector<AxisTaps>& taps, const std::vector<int64_t>& in, bool transpose,
                                   bool copies) {
  int64_t from_count = 1;
  for (int64_t dim : from_dims) from_count *= dim;
  std::vector<Acc> plane(static_cast<size_t>(from_count));
  for (int64_t k = 0; k < from_count; ++k) plane[k] = static_cast<Acc>(source.Get(p * from_count + k));
  if (copies) return plane;
  std::vector<int64_t> dims = from_dims;
  for (size_t axis = in.size(); axis-- > 0;) plane = AlongAxis(plane, dims, axis, taps[axis], in[axis], transpose);
  return plane;
}

// The upsampled side's spatial sizes, as the executors derive them: the `size` attribute, or
// int(in * scale_factor) per axis.
std::vector<int64_t> ExecutorOutputSize(const Json& attrs, const std::vector<int64_t>& input_shape) {
  if (attrs.contains("size")) return SizesOf(attrs.at("size"));
  const std::vector<double> factors = attrs.at("scale_factor").get<std::vector<double>>();
  std::vector<int64_t> size;
  for (size_t k = 0; k < factors.size(); ++k) {
    size.push_back(static_cast<int64_t>(static_cast<double>(input_shape.at(2 + k)) * factors[k]));
  }
  return size;
}

// How upstream's executors call the API (their tests/st/<api>/executor_*.py): outputSize is
// the `size` attribute, the scales Linear1d's -1 and everyone else's 0 (sizes only); the
// anti-aliased bilinear backward's table gives `scale_factor` instead, passed as the scales
// with outputSize int(in * factor). A backward's inputSize is the table's input shape and
// its gradOut [N, C, outputSize...], drawn here from the input's range (upstream
// back-propagates ones). The table's format label is the one the executors' get_format sets.
// The golden: per plane and axis the PyTorch weights of the scales the API's rule keeps
// (the scale rule), summed in float64 along W, then H, then D (PyTorch's nesting), or the
// transpose for a backward; rounded once to the output's dtype by single_bm.
Outcome ReplayInterpFamily(CaseDraw& d, const std::string& api_name) {
  const interp_test::InterpApi& api = interp_test::ApiNamed(api_name);
  const aclDataType dtype = d.Dtype("input");
  const bool refused = InterpDtypeRefused(api_name, dtype);
  d.MustBeRefused(refused);
  const Json attrs = d.attrs();
  const std::string format_name = attrs.at("format").get<std::string>();
  if (format_name == "NHWC" || format_name == "NDHWC") return Fail("a channels-last case; the runner has no mapping for it");
  const aclFormat format = AtkFormat(format_name);
  const bool align_corners = d.Flag("align_corners");
  const std::vector<int64_t> small = d.Shape("input");  // the forward's input, the backward's gradInput
  const std::vector<int64_t> in(small.begin() + 2, small.end());
  const std::vector<int64_t> size = ExecutorOutputSize(attrs, small);
  std::vector<double> scales(api.spatial, api_name == "aclnnUpsampleLinear1d" ? -1.0 : 0.0);
  if (attrs.contains("scale_factor")) scales = attrs.at("scale_factor").get<std::vector<double>>();
  std::vector<int64_t> large = {small[0], small[1]};
  large.insert(large.end(), size.begin(), size.end());
  std::vector<double> scale_args = scales;
  scale_args.resize(3, 0.0);
  aclIntArray* output_size = aclCreateIntArray(size.data(), size.size());
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status;
  std::unique_ptr<HostTensor> source, result;
  if (api.backward) {
    source = std::make_unique<HostTensor>(large, dtype, format);
    d.Fill(*source, "gradOut", d.tensors().at("input").at("range"));
    result = std::make_unique<HostTensor>(small, dtype, format);
    d.Poison(*result);
    aclIntArray* input_size = aclCreateIntArray(small.data(), small.size());
    status = api.backward_phase1(source->get(), output_size, input_size, align_corners, scale_args.data(),
                                 result->get(), &workspace, &executor);
    aclDestroyIntArray(input_size);
  } else {
    source = d.Tensor("input", format);
    result = std::make_unique<HostTensor>(large, dtype, format);
    d.Poison(*result);
    status = api.forward(source->get(), output_size, align_corners, scale_args.data(), result->get(), &workspace,
                         &executor);
  }
  aclDestroyIntArray(output_size);
  if (refused) return ExpectRefusedByChip(status, dtype);
  Outcome launched = Launch(status, api.phase2, workspace, executor);
  if (launched.verdict != Verdict::kPass) return launched;

  const std::vector<double> counted = CountedScales(ScaleRuleOf(api_name), scales, in, size);
  std::vector<AxisTaps> taps;
  for (size_t k = 0; k < in.size(); ++k) {
    taps.push_back(PyTorchAxisTaps(FilterOf(api.kind), in[k], size[k], align_corners, counted[k]));
  }
  // PyTorch's bicubic backward copies gradOut when no size changes (UpSampleBicubic2d.cpp).
  const bool copies = api.backward && api.kind == oracle::InterpKind::kBicubic && in == size;
  const std::vector<int64_t>& from_dims = api.backward ? size : in;
  int64_t from_count = 1, to_count = 1;
  for (size_t k = 0; k < in.size(); ++k) {
    from_count *= from_dims[k];
    to_count *= api.backward ? in[k] : size[k];
  }
  // The planes in parallel pieces, each judged on its own, then merged in order.
  std::vector<SingleBm> pieces(RunnerThreads(), SingleBm(api.backward ? "gradInput" : "out", dtype));
  const int64_t planes = small[0] * small[1];
  const int64_t smallest_piece = std::max<int64_t>(1, (int64_t{1} << 14) / std::max(from_count, to_count));
  const int used = ForEachPiece(
      planes,
      [&](int piece, int64_t begin, int64_t end) {
        for (int64_t p = begin; p < end; ++p) {
          const std::vector<double> golden =
              InterpolatedPlane<double>(*source, p, from_dims, taps, in, api.backward, copies);
          for (int64_t k = 0; k < to_count; ++k) pieces[piece].Add(result->Get(p * to_count + k), golden[k], p * to_count + k);
        }
      },
      smallest_piece);
  for (int piece = 1; piece < used; ++piece) pieces[0].Merge(pieces[piece]);
  const Outcome judged = Judge({pieces[0]});
  if (judged.verdict != Verdict::kFail || api.backward || dtype != ACL_FLOAT) return judged;
  // A FLOAT forward's contract is PyTorch's fp32 kernel bit for bit, whose sums can cancel
  // far beyond single_bm's bound against float64: then every element must be that sum.
  std::vector<int64_t> mismatches(RunnerThreads(), 0);
  ForEachPiece(
      planes,
      [&](int piece, int64_t begin, int64_t end) {
        for (int64_t p = begin; p < end; ++p) {
          const std::vector<float> torch_fp32 = InterpolatedPlane<float>(*source, p, from_dims, taps, in, false, false);
          for (int64_t k = 0; k < to_count; ++k) {
            const double ours = result->Get(p * to_count + k), expected = torch_fp32[k];
            if (!(ours == expected || (std::isnan(ours) && std::isnan(expected)))) ++mismatches[piece];
          }
        }
      },
      smallest_piece);
  for (int64_t count : mismatches) {
    if (count > 0) return judged;
  }
  return {Verdict::kDocumented,
          "fp32 tap sums cancel; every element is PyTorch's fp32 kernel's sum bit for bit (" + judged.detail + ")"};
}

// ---------------------------------------------------------------------------------------
// A table: its cases (all, or the default tier's sample), their outcomes and the matrix line.

// Elements a case touches: its tensors, plus the upsampled tensor.
int64_t CaseElements(const Json& c) {
  int64_t elements = 0;
  for (const char* name : {"input", "input0", "input1", "gradOut"}) {
    if (!c.at("tensors").contains(name)) continue;
    int64_t n = 1;
    for (int64_t dim : c.at("tensors").at(name).at("shape").get<std::vector<int64_t>>()) n *= dim;
    elements += n;
  }
  if (c.at("attrs").contains("size") || c.at("attrs").contains("scale_factor")) {
    const std::vector<int64_t> in = c.at("tensors").at("input").at("shape").get<std::vector<int64_t>>();
    int64_t n = in.at(0) * in.at(1);
    for (int64_t s : ExecutorOutputSize(c.at("attrs"), in)) n *= s;
    elements += n;
  }
  return elements;
}

// The default tier's sample: up to 12 cases of at most 2^16 elements, spread evenly over the
// table (the table's order mixes dtypes and shapes), so the default run stays in seconds.
std::vector<Json> Selected(const std::vector<Json>& cases) {
  if (g_all_cases) return cases;
  std::vector<Json> small;
  for (const Json& c : cases) {
    if (CaseElements(c) <= (int64_t{1} << 16)) small.push_back(c);
  }
  const size_t wanted = std::min<size_t>(12, small.size());
  std::vector<Json> sample;
  for (size_t i = 0; i < wanted; ++i) sample.push_back(small[i * small.size() / wanted]);
  return sample;
}

void ReplayTable(const std::string& file, const std::function<Outcome(CaseDraw&)>& replay) {
  std::ifstream stream(std::string(OPENACLNN_CONFORMANCE_DIR) + "/atk/" + file);
  ASSERT_TRUE(stream.good()) << "cannot open tests/conformance/atk/" << file;
  const Json table = Json::parse(stream);
  const std::string api = table.at("api").get<std::string>();
  const std::vector<Json> all = table.at("cases").get<std::vector<Json>>();
  ASSERT_EQ(static_cast<int>(all.size()), table.at("case_count").get<int>()) << file;
  const std::vector<Json> cases = Selected(all);
  ASSERT_FALSE(cases.empty()) << file;
  int passed = 0, documented = 0, refused = 0, failed = 0;
  for (const Json& c : cases) {
    CaseDraw draw(api, c);
    const Outcome outcome = replay(draw);
    switch (outcome.verdict) {
      case Verdict::kPass: ++passed; break;
      case Verdict::kDocumented:
        ++documented;
        std::printf("atk-documented | %s | case %d | %s\n", api.c_str(), draw.id(), outcome.detail.c_str());
        break;
      case Verdict::kRefusedByChip: ++refused; break;
      case Verdict::kFail:
        ++failed;
        ADD_FAILURE() << api << " case " << draw.id() << " (" << table.at("table").get<std::string>()
                      << ") on " << Rules().soc << ": " << outcome.detail;
        break;
    }
  }
  std::printf("atk-matrix | %s | %s | %zu | %d | %d | %d | %d\n", api.c_str(), Rules().soc.c_str(), cases.size(),
              passed, documented, refused, failed);
}

TEST(AtkReplay, BatchNorm) { ReplayTable("batch_norm.atk_cases.json", ReplayBatchNorm); }
TEST(AtkReplay, BatchNormBackward) { ReplayTable("batch_norm_backward.atk_cases.json", ReplayBatchNormBackward); }
TEST(AtkReplay, BatchNormElemt) { ReplayTable("batch_norm_elemt.atk_cases.json", ReplayBatchNormElemt); }
TEST(AtkReplay, BatchNormElemtBackward) {
  ReplayTable("batch_norm_elemt_backward.atk_cases.json", ReplayBatchNormElemtBackward);
}
TEST(AtkReplay, BatchNormReduceBackward) {
  ReplayTable("batch_norm_reduce_backward.atk_cases.json", ReplayBatchNormReduceBackward);
}
TEST(AtkReplay, BatchNormGatherStatsWithCounts) {
  ReplayTable("batch_norm_gather_stats_with_counts.atk_cases.json", ReplayBatchNormGatherStatsWithCounts);
}
TEST(AtkReplay, UpsampleNearestExact3d) {
  ReplayTable("upsample_nearest_exact3d.atk_cases.json", ReplayUpsampleNearestExact3d);
}
TEST(AtkReplay, UpsampleNearestExact3dBackward) {
  ReplayTable("upsample_nearest_exact3d_backward.atk_cases.json", ReplayUpsampleNearestExact3dBackward);
}
TEST(AtkReplay, UpsampleNearest1d) {
  ReplayTable("upsample_nearest_1d.atk_cases.json", [](CaseDraw& d) { return ReplayNearestFamily(d, "aclnnUpsampleNearest1d"); });
}
TEST(AtkReplay, UpsampleNearest2d) {
  ReplayTable("upsample_nearest_2d.atk_cases.json", [](CaseDraw& d) { return ReplayNearestFamily(d, "aclnnUpsampleNearest2d"); });
}
TEST(AtkReplay, UpsampleNearest1dV2) {
  ReplayTable("upsample_nearest_1d_v2.atk_cases.json", [](CaseDraw& d) { return ReplayNearestFamily(d, "aclnnUpsampleNearest1dV2"); });
}
TEST(AtkReplay, UpsampleNearest2dV2) {
  ReplayTable("upsample_nearest_2d_v2.atk_cases.json", [](CaseDraw& d) { return ReplayNearestFamily(d, "aclnnUpsampleNearest2dV2"); });
}
TEST(AtkReplay, UpsampleNearest3d) {
  ReplayTable("upsample_nearest_3d.atk_cases.json", [](CaseDraw& d) { return ReplayNearestFamily(d, "aclnnUpsampleNearest3d"); });
}
TEST(AtkReplay, UpsampleNearest1dBackward) {
  ReplayTable("upsample_nearest_1d_backward.atk_cases.json", [](CaseDraw& d) { return ReplayNearestFamily(d, "aclnnUpsampleNearest1dBackward"); });
}
TEST(AtkReplay, UpsampleNearest2dBackward) {
  ReplayTable("upsample_nearest_2d_backward.atk_cases.json", [](CaseDraw& d) { return ReplayNearestFamily(d, "aclnnUpsampleNearest2dBackward"); });
}
TEST(AtkReplay, UpsampleNearest3dBackward) {
  ReplayTable("upsample_nearest_3d_backward.atk_cases.json", [](CaseDraw& d) { return ReplayNearestFamily(d, "aclnnUpsampleNearest3dBackward"); });
}
TEST(AtkReplay, UpsampleNearestExact1d) {
  ReplayTable("upsample_nearest_exact1d.atk_cases.json", [](CaseDraw& d) { return ReplayNearestFamily(d, "aclnnUpsampleNearestExact1d"); });
}
TEST(AtkReplay, UpsampleNearestExact2d) {
  ReplayTable("upsample_nearest_exact2d.atk_cases.json", [](CaseDraw& d) { return ReplayNearestFamily(d, "aclnnUpsampleNearestExact2d"); });
}
TEST(AtkReplay, UpsampleNearestExact1dBackward) {
  ReplayTable("upsample_nearest_exact1d_backward.atk_cases.json", [](CaseDraw& d) { return ReplayNearestFamily(d, "aclnnUpsampleNearestExact1dBackward"); });
}
TEST(AtkReplay, UpsampleNearestExact2dBackward) {
  ReplayTable("upsample_nearest_exact2d_backward.atk_cases.json", [](CaseDraw& d) { return ReplayNearestFamily(d, "aclnnUpsampleNearestExact2dBackward"); });
}

TEST(AtkReplay, UpsampleLinear1d) {
  ReplayTable("upsample_linear_1d.atk_cases.json", [](CaseDraw& d) { return ReplayInterpFamily(d, "aclnnUpsampleLinear1d"); });
}
TEST(AtkReplay, UpsampleBilinear2d) {
  ReplayTable("upsample_bilinear_2d.atk_cases.json", [](CaseDraw& d) { return ReplayInterpFamily(d, "aclnnUpsampleBilinear2d"); });
}
TEST(AtkReplay, UpsampleBicubic2d) {
  ReplayTable("upsample_bicubic_2d.atk_cases.json", [](CaseDraw& d) { return ReplayInterpFamily(d, "aclnnUpsampleBicubic2d"); });
}
TEST(AtkReplay, UpsampleTrilinear3d) {
  ReplayTable("upsample_trilinear_3d.atk_cases.json", [](CaseDraw& d) { return ReplayInterpFamily(d, "aclnnUpsampleTrilinear3d"); });
}
TEST(AtkReplay, UpsampleBilinear2dAA) {
  ReplayTable("upsample_bilinear2d_aa.atk_cases.json", [](CaseDraw& d) { return ReplayInterpFamily(d, "aclnnUpsampleBilinear2dAA"); });
}
TEST(AtkReplay, UpsampleBicubic2dAA) {
  ReplayTable("upsample_bicubic2d_aa.atk_cases.json", [](CaseDraw& d) { return ReplayInterpFamily(d, "aclnnUpsampleBicubic2dAA"); });
}
TEST(AtkReplay, UpsampleLinear1dBackward) {
  ReplayTable("upsample_linear_1d_backward.atk_cases.json", [](CaseDraw& d) { return ReplayInterpFamily(d, "aclnnUpsampleLinear1dBackward"); });
}
TEST(AtkReplay, UpsampleBilinear2dBackward) {
  ReplayTable("upsample_bilinear_2d_backward.atk_cases.json", [](CaseDraw& d) { return ReplayInterpFamily(d, "aclnnUpsampleBilinear2dBackward"); });
}
TEST(AtkReplay, UpsampleBilinear2dBackwardV2) {
  ReplayTable("upsample_bilinear_2d_backward_v2.atk_cases.json", [](CaseDraw& d) { return ReplayInterpFamily(d, "aclnnUpsampleBilinear2dBackwardV2"); });
}
TEST(AtkReplay, UpsampleBicubic2dBackward) {
  ReplayTable("upsample_bicubic_2d_backward.atk_cases.json", [](CaseDraw& d) { return ReplayInterpFamily(d, "aclnnUpsampleBicubic2dBackward"); });
}
TEST(AtkReplay, UpsampleTrilinear3dBackward) {
  ReplayTable("upsample_trilinear_3d_backward.atk_cases.json", [](CaseDraw& d) { return ReplayInterpFamily(d, "aclnnUpsampleTrilinear3dBackward"); });
}
TEST(AtkReplay, UpsampleBilinear2dAABackward) {
  ReplayTable("upsample_bilinear2d_aa_backward.atk_cases.json", [](CaseDraw& d) { return ReplayInterpFamily(d, "aclnnUpsampleBilinear2dAABackward"); });
}
TEST(AtkReplay, UpsampleBicubic2dAAGrad) {
  ReplayTable("upsample_bicubic2d_aa_grad.atk_cases.json", [](CaseDraw& d) { return ReplayInterpFamily(d, "aclnnUpsampleBicubic2dAAGrad"); });
}
}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) g_all_cases = g_all_cases || std::string(argv[i]) == "--all";
  ::testing::AddGlobalTestEnvironment(new support::AclEnvironment);
  return RUN_ALL_TESTS();
}
