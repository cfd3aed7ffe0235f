// openaclnn's operators as PyTorch's CPU kernels.
//
// enable() registers kernels for aten's operators at the CPU dispatch key, over PyTorch's
// own; disable() drops that registration, and the dispatcher goes back to PyTorch's
// kernels. Each kernel calls openaclnn through the public CANN API (aclCreateTensor, the
// two-phase calls, a stream per calling thread), like any CANN program. An input the
// operator does not take (phase 1 answers with an error status, or it is outside what the
// family's file maps: other dtypes, devices, layouts) runs PyTorch's own CPU kernel
// through at::cpu::, so enabling never raises an error stock PyTorch would not.
//
// This file: enabling, the pool, and the Python-facing ops. The kernels: one file per
// operator family (batch_norm_kernels.cpp, upsample_kernels.cpp, norm_kernels.cpp) over
// torch_bridge.h.
#include <ATen/Parallel.h>
#include <c10/util/Exception.h>
#include <torch/library.h>

#include <pthread.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "openaclnn/openaclnn_info.h"
#include "openaclnn/openaclnn_threads.h"
#include "torch_bridge.h"

namespace openaclnn_torch {
namespace {

// openaclnn's parallel regions on PyTorch's intra-op pool (openaclnnSetParallelFor): one set
// of threads, torch's, so no two pools spin against each other. A region from inside one of
// torch's own regions runs inline there, as at::parallel_for does. The plan fixes the tasks,
// so the bits are those of openaclnn's own pool.
std::atomic<int64_t> g_torch_pool_regions{0};  // regions run through at::parallel_for (tests)
std::atomic<int64_t> g_torch_pool_shared_regions{0};  // ... whose tasks more than one thread ran

void TorchParallelFor(void*, int64_t num_tasks, int32_t, openaclnnTask task, void* context) {
  g_torch_pool_regions.fetch_add(1);
  std::atomic<int> chunks{0};  // at::parallel_for calls the body once per thread it uses
  at::parallel_for(0, num_tasks, 1, [&](int64_t begin, int64_t end) {
    chunks.fetch_add(1, std::memory_order_relaxed);
    for (int64_t i = begin; i < end; ++i) task(context, i);
  });
  if (chunks.load() > 1) g_torch_pool_shared_regions.fetch_add(1);
}

// Which pool runs the regions while enabled: torch's (the default) or openaclnn's own (for
// tests and measurements: use_torch_pool(False)).
std::atomic<bool> g_use_torch_pool{true};

// A forked child (a DataLoader worker) keeps openaclnn's own pool: GNU libgomp's team does not
// survive fork, so an OpenMP region of more than one thread in a child whose parent ran one
// waits for ever (stock PyTorch's own kernels do, at torch.set_num_threads(2) in the child).
// The library's pool is rebuilt in the child by its fork handlers.
std::atomic<bool> g_forked_child{false};
[[maybe_unused]] const bool g_fork_handler = [] {
  pthread_atfork(nullptr, nullptr, [] { g_forked_child.store(true); });
  return true;
}();

void InstallPool() {
  if (g_use_torch_pool.load() && !g_forked_child.load()) {
    openaclnnSetParallelFor(TorchParallelFor, nullptr);
  } else {
    openaclnnSetParallelFor(nullptr, nullptr);
    // PyTorch's OpenMP workers spin between its parallel regions on the cores our helpers
    // use: ours sleep at once instead of spinning as well (openaclnnSetPoolSpin).
    openaclnnSetPoolSpin(0);
  }
}

// ---- enable / disable ----

// Registering over an existing kernel makes the dispatcher warn ("Overriding a previously
// registered kernel"); that is the point here, so the warning is not shown.
class SilentWarnings : public c10::WarningHandler {
 public:
  void process(const c10::SourceLocation&, const std::string&, const bool) override {}
};

std::mutex g_registration_mutex;
std::unique_ptr<torch::Library> g_registration;

void Enable() {
  std::lock_guard<std::mutex> lock(g_registration_mutex);
  if (g_registration) return;
  SilentWarnings silent;
  c10::Warning::WarningHandlerGuard guard(&silent);
  auto library = std::make_unique<torch::Library>(torch::Library::IMPL, "aten", c10::DispatchKey::CPU, __FILE__,
                                                  static_cast<uint32_t>(__LINE__));
  RegisterUpsample(library.get());
  RegisterBatchNorm(library.get());
  RegisterNorm(library.get());
  g_registration = std::move(library);
  InstallPool();
}

// Dropping the registration hands every operator back to PyTorch's own CPU kernel, and the
// regions of other openaclnn users in the process back to openaclnn's pool.
void Disable() {
  std::lock_guard<std::mutex> lock(g_registration_mutex);
  g_registration.reset();
  openaclnnSetParallelFor(nullptr, nullptr);
}

// use_torch_pool(False) runs the regions on openaclnn's own pool while enabled (tests and
// measurements compare the two); True, the default, on torch's.
void UseTorchPool(bool use) {
  std::lock_guard<std::mutex> lock(g_registration_mutex);
  g_use_torch_pool.store(use);
  if (g_registration) InstallPool();
}

bool IsEnabled() {
  std::lock_guard<std::mutex> lock(g_registration_mutex);
  return g_registration != nullptr;
}

std::vector<std::string> KernelNamesForPython() { return KernelNames(); }

// The thread count openaclnn's next plan uses (each call sets it to torch's first).
int64_t LibraryThreads() { return openaclnnGetNumThreads(); }

// The report's thread count is torch's current one, as every call through the extension sets it.
std::string SystemReport() {
  openaclnnSetNumThreads(at::get_num_threads());
  const char* report = openaclnnGetSystemReport();
  return report != nullptr ? report : "";
}

int64_t TorchPoolRegions() { return g_torch_pool_regions.load(); }
int64_t TorchPoolSharedRegions() { return g_torch_pool_shared_regions.load(); }

// One measured point of a route (RoutedToOpenaclnn); kernel is an index of kernel_names(),
// layout a RouteLayout (0 contiguous, 1 channels-last, 2 strided).
void SetRouteForPython(int64_t kernel, int64_t layout, int64_t threads, int64_t row_length, int64_t elements,
                       bool use_openaclnn) {
  TORCH_CHECK(layout >= 0 && layout <= 2 && threads >= 1 && threads <= (1 << 20), "openaclnn: bad route");
  SetRoute(static_cast<int>(kernel), static_cast<RouteLayout>(layout), static_cast<int>(threads), row_length,
           elements, use_openaclnn);
}

}  // namespace
}  // namespace openaclnn_torch

TORCH_LIBRARY(openaclnn, m) {
  using namespace openaclnn_torch;
  m.def("enable() -> ()", &Enable);
  m.def("disable() -> ()", &Disable);
  m.def("is_enabled() -> bool", &IsEnabled);
  // The registered kernels' names (ATen overloads without a leading underscore), in the
  // order of call_counts: openaclnn's runs per kernel, then PyTorch's.
  m.def("kernel_names() -> str[]", &KernelNamesForPython);
  m.def("call_counts() -> int[]", &CallCounts);
  m.def("reset_call_counts() -> ()", &ResetCallCounts);
  m.def("library_threads() -> int", &LibraryThreads);
  m.def("system_report() -> str", &SystemReport);
  m.def("use_torch_pool(bool use) -> ()", &UseTorchPool);
  m.def("torch_pool_regions() -> int", &TorchPoolRegions);
  m.def("torch_pool_shared_regions() -> int", &TorchPoolSharedRegions);
  m.def("set_route(int kernel, int layout, int threads, int row_length, int elements, bool use_openaclnn) -> ()",
        &SetRouteForPython);
  m.def("clear_routes() -> ()", &ClearRoutes);
  m.def("set_routing(bool on) -> ()", &SetRouting);
  m.def("routing() -> bool", &Routing);
}
