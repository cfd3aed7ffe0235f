#include "torch_bridge.h"

#include <ATen/Parallel.h>
#include <c10/util/Exception.h>

#include <atomic>
#include <map>
#include <mutex>
#include <tuple>

#include "openaclnn/openaclnn_threads.h"

namespace openaclnn_torch {

// ---- kernels and their counters ----

namespace {

constexpr int kMaxKernels = 64;

std::vector<std::string>& MutableKernelNames() {
  static std::vector<std::string> names;
  return names;
}

// [kernel]: openaclnn's runs, [kMaxKernels + kernel]: PyTorch's.
std::array<std::atomic<int64_t>, 2 * kMaxKernels> g_counts{};

}  // namespace

int AddKernel(const std::string& name) {
  std::vector<std::string>& names = MutableKernelNames();
  TORCH_CHECK(names.size() < kMaxKernels, "openaclnn: more than ", kMaxKernels, " kernels");
  names.push_back(name);
  return static_cast<int>(names.size()) - 1;
}

const std::vector<std::string>& KernelNames() { return MutableKernelNames(); }

void CountCall(int kernel, bool ours) { g_counts[(ours ? 0 : kMaxKernels) + kernel].fetch_add(1); }

std::vector<int64_t> CallCounts() {
  const size_t kernels = KernelNames().size();
  std::vector<int64_t> counts;
  for (size_t k = 0; k < kernels; ++k) counts.push_back(g_counts[k].load());
  for (size_t k = 0; k < kernels; ++k) counts.push_back(g_counts[kMaxKernels + k].load());
  return counts;
}

void ResetCallCounts() {
  for (auto& count : g_counts) count.store(0);
}

// ---- routes ----

// Routes from the measured table (openaclnn/routing.csv, which bench/pytorch/routing_sweep.py
// writes; openaclnn.torch loads it at import): for a kernel, a layout (RouteLayout) and a thread
// count, the row lengths measured (the norms' rows: a group's or a layer's elements; 0 for the
// kernels without rows) and, for each, the sizes measured (elements of the largest input) with
// whether openaclnn's kernel was at least as fast as stock. A call takes the row class of the
// longest measured row not above its own (the shortest's below them all), then the verdict of
// the largest measured size not above its own (likewise). A thread count without rows uses the
// largest measured below it; no rows, or routing switched off (tests of exactness): openaclnn's.
namespace {

struct RouteKey {
  int kernel;
  RouteLayout layout;
  int threads;
  bool operator<(const RouteKey& o) const {
    return std::tie(kernel, layout, threads) < std::tie(o.kernel, o.layout, o.threads);
  }
};
using RoutePoints = std::map<int64_t, bool>;  // elements -> use openaclnn
std::mutex g_routes_mutex;
std::map<RouteKey, std::map<int64_t, RoutePoints>> g_routes;  // by row length; guarded by g_routes_mutex
std::atomic<bool> g_routing{true};

// The entry of the largest key not above `key`, else the smallest one (a non-empty map).
template <class Map>
typename Map::const_iterator AtOrBelow(const Map& map, int64_t key) {
  auto at = map.upper_bound(key);
  if (at != map.begin()) --at;
  return at;
}

}  // namespace

RouteLayout RouteLayoutOf(const at::Tensor& t) {
  if (t.is_contiguous()) return RouteLayout::kContiguous;
  return ChannelsLast(t) ? RouteLayout::kChannelsLast : RouteLayout::kStrided;
}

bool RoutedToOpenaclnn(int route_kernel, const at::Tensor& work, int64_t row_length) {
  if (!g_routing.load(std::memory_order_relaxed)) return true;
  const RouteKey key{route_kernel, RouteLayoutOf(work), at::get_num_threads()};
  std::lock_guard<std::mutex> lock(g_routes_mutex);
  auto row = g_routes.upper_bound(key);  // the largest measured thread count not above the caller's
  if (row == g_routes.begin()) return true;
  --row;
  if (row->first.kernel != key.kernel || row->first.layout != key.layout || row->second.empty()) return true;
  const RoutePoints& sizes = AtOrBelow(row->second, row_length)->second;
  return sizes.empty() || AtOrBelow(sizes, work.numel())->second;
}

void SetRoute(int kernel, RouteLayout layout, int threads, int64_t row_length, int64_t elements,
              bool use_openaclnn) {
  TORCH_CHECK(kernel >= 0 && kernel < static_cast<int>(KernelNames().size()) && threads >= 1 && row_length >= 0 &&
                  elements >= 0,
              "openaclnn: bad route");
  std::lock_guard<std::mutex> lock(g_routes_mutex);
  g_routes[RouteKey{kernel, layout, threads}][row_length][elements] = use_openaclnn;
}

void ClearRoutes() {
  std::lock_guard<std::mutex> lock(g_routes_mutex);
  g_routes.clear();
}

void SetRouting(bool on) { g_routing.store(on); }

bool Routing() { return g_routing.load(); }

// ---- torch tensors as aclTensors ----

bool AclDataType(at::ScalarType type, aclDataType* out) {
  switch (type) {
    case at::kFloat: *out = ACL_FLOAT; return true;
    case at::kBFloat16: *out = ACL_BF16; return true;
    default: return false;
  }
}

bool Acceleratable(const at::Tensor& t) {
  aclDataType type;
  return t.defined() && t.device().is_cpu() && t.layout() == at::kStrided && AclDataType(t.scalar_type(), &type);
}

bool Acceleratable(const c10::optional<at::Tensor>& t) { return t.has_value() && Acceleratable(*t); }

bool Defined(const c10::optional<at::Tensor>& t) { return t.has_value() && t->defined(); }

bool ChannelsLast(const at::Tensor& t) {
  return (t.dim() == 4 && t.is_contiguous(at::MemoryFormat::ChannelsLast) && !t.is_contiguous()) ||
         (t.dim() == 5 && t.is_contiguous(at::MemoryFormat::ChannelsLast3d) && !t.is_contiguous());
}

bool ValidSizes(at::IntArrayRef values, size_t length) {
  if (values.size() != length) return false;
  for (int64_t v : values)
    if (v < 0) return false;
  return true;
}

aclFormat DefaultFormat(int64_t dim) {
  return dim == 4 ? ACL_FORMAT_NCHW : dim == 5 ? ACL_FORMAT_NCDHW : ACL_FORMAT_ND;
}

AclTensorView::AclTensorView(const at::Tensor& t, aclFormat format) {
  if (!t.defined()) return;
  aclDataType type;
  if (!AclDataType(t.scalar_type(), &type)) return;
  int64_t extent = t.numel() > 0 ? 1 : 0;
  for (int64_t d = 0; d < t.dim() && extent > 0; ++d) extent += (t.size(d) - 1) * t.stride(d);
  handle_ =
      aclCreateTensor(t.sizes().data(), t.dim(), type, t.strides().data(), 0, format, &extent, 1, t.data_ptr());
}

AclTensorView::~AclTensorView() {
  if (handle_ != nullptr) aclDestroyTensor(handle_);
}

AclIntArrayView::AclIntArrayView(at::IntArrayRef values) : handle_(aclCreateIntArray(values.data(), values.size())) {}

AclIntArrayView::~AclIntArrayView() {
  if (handle_ != nullptr) aclDestroyIntArray(handle_);
}

AclBoolArrayView::AclBoolArrayView(std::array<bool, 3> values) : handle_(aclCreateBoolArray(values.data(), 3)) {}

AclBoolArrayView::~AclBoolArrayView() {
  if (handle_ != nullptr) aclDestroyBoolArray(handle_);
}

// ---- the two phases ----

namespace {

// One stream per calling thread (aclInit once per process; the device is the host CPU).
aclrtStream CallerStream() {
  static const bool initialised = [] {
    const aclError status = aclInit(nullptr);
    return status == ACL_SUCCESS || status == ACL_ERROR_REPEAT_INITIALIZE;
  }();
  struct ThreadStream {
    aclrtStream stream = nullptr;
    ThreadStream() {
      if (aclrtSetDevice(0) == ACL_SUCCESS && aclrtCreateStream(&stream) != ACL_SUCCESS) stream = nullptr;
    }
    ~ThreadStream() {
      if (stream != nullptr) aclrtDestroyStream(stream);
    }
  };
  if (!initialised) return nullptr;
  thread_local ThreadStream thread_stream;
  return thread_stream.stream;
}

}  // namespace

bool RunOperator(const char* name, const Phase1& plan, Phase2 run) {
  aclrtStream stream = CallerStream();
  if (stream == nullptr) return false;
  openaclnnSetNumThreads(at::get_num_threads());
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  if (plan(&workspace_size, &executor) != ACLNN_SUCCESS) return false;
  at::Tensor workspace;
  void* workspace_data = nullptr;
  if (workspace_size > 0) {
    workspace = at::empty({static_cast<int64_t>(workspace_size)}, at::kByte);
    workspace_data = workspace.data_ptr();
  }
  const aclnnStatus status = run(workspace_data, workspace_size, executor, stream);
  TORCH_CHECK(status == ACLNN_SUCCESS, "openaclnn: ", name, " failed after planning: ", aclGetRecentErrMsg());
  TORCH_CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS, "openaclnn: ", name,
              " failed on its stream: ", aclGetRecentErrMsg());
  return true;
}

}  // namespace openaclnn_torch
