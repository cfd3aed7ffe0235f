// Transport: MPI when the process belongs to an MPI job, else a local singleton that
// needs no MPI at all.
#include <algorithm>
#include <climits>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "core/environment.h"
#include "hccl_internal.h"
#include "runtime/runtime.h"

namespace oa {
namespace hccl {

std::mutex g_mpi_mutex;

namespace {

bool g_mpi_initialized_here = false;  // guarded by g_mpi_mutex
bool g_custom_ops_created = false;    // guarded by g_mpi_mutex
bool g_finalize_hook_added = false;   // guarded by g_mpi_mutex

// Open MPI's launcher (and PMIx-based launchers generally) exports these to every process.
bool LaunchedByMpiLauncher() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && *value != '\0') return true;
  }
  return false;
}

// aclFinalize's hook: MPI is finalized only if this library initialized it; a program that
// initialized MPI itself finalizes it itself (CANN samples call MPI_Finalize last).
void FinalizeMpiIfInitializedHere() {
  std::lock_guard<std::mutex> lock(g_mpi_mutex);
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (g_mpi_initialized_here && !finalized) MPI_Finalize();
}

}  // namespace

// Decides the transport for a new communicator: *use_mpi is true when MPI is (or has just
// been) initialized. A process that is neither in an MPI job nor has initialized MPI is a
// singleton that needs no MPI at all: nRanks == 1 collectives are local copies. That keeps
// single-process programs (and the sanitizer-built unit tests) free of Open MPI's
// runtime; with `mpirun -np 1` MPI is used as for any W.
HcclResult EnsureTransport(const char* api, bool* use_mpi) {
  std::lock_guard<std::mutex> lock(g_mpi_mutex);
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (finalized) {
    return Fail(HCCL_E_UNAVAIL, "%s: MPI is already finalized (by MPI_Finalize or aclFinalize); it cannot be restarted",
                api);
  }
  if (!initialized) {
    if (!LaunchedByMpiLauncher()) {
      *use_mpi = false;
      return HCCL_SUCCESS;
    }
    // Collectives run on stream worker threads while the program's threads may call MPI too.
    int provided = 0;
    const int status = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
    if (status != MPI_SUCCESS) {
      return Fail(HCCL_E_INTERNAL, "%s: MPI_Init_thread failed: %s", api, MpiErrorText(status).c_str());
    }
    g_mpi_initialized_here = true;
    if (!g_finalize_hook_added) {
      AddFinalizeHook(&FinalizeMpiIfInitializedHere);
      g_finalize_hook_added = true;
    }
  }
  if (!g_custom_ops_created) {
    CreateCustomOps();
    g_custom_ops_created = true;
  }
  *use_mpi = true;
  return HCCL_SUCCESS;
}

// The chunk limit: MPI counts are int. OPENACLNN_HCCL_CHUNK_ELEMENTS lowers it so the tests
// exercise the chunked paths with small buffers.
uint64_t ChunkElements(size_t element_size) {
  static const uint64_t override_elements = static_cast<uint64_t>(
      oa::IntegerVariable("OPENACLNN_HCCL_CHUNK_ELEMENTS", 1, INT_MAX, 0, "MPI's count limit"));
  const uint64_t limit = static_cast<uint64_t>(INT_MAX) / element_size;
  return override_elements > 0 && override_elements < limit ? override_elements : limit;
}

uint32_t ExecTimeoutFromEnvironment() {
  return static_cast<uint32_t>(oa::IntegerVariable("HCCL_EXEC_TIMEOUT", 0, kMaxExecTimeoutSeconds,
                                                   kDefaultExecTimeoutSeconds, "the default 1836 s"));
}

namespace {

// Requests given up on after a timeout, with the buffers they may still write into: MPI
// offers no way to withdraw a collective request, so both live until the process ends.
struct Abandoned {
  std::vector<MPI_Request> requests;
  std::shared_ptr<void> buffers;
};
std::mutex g_abandoned_mutex;
std::vector<Abandoned>& AbandonedRequests() {
  static auto* abandoned = new std::vector<Abandoned>;  // never destroyed: MPI may still use them
  return *abandoned;
}

}  // namespace

std::string WaitForPeers(const Communicator& comm, std::vector<MPI_Request>* requests, const char* waiting_for,
                         Requests kind, std::shared_ptr<void> buffers) {
  if (requests->empty()) return "";
  const auto failed = [&](int status) {
    requests->clear();
    return status == MPI_SUCCESS ? std::string() : std::string(waiting_for) + " failed: " + MpiErrorText(status);
  };
  const int count = static_cast<int>(requests->size());
  if (comm.exec_timeout_s == 0) return failed(MPI_Waitall(count, requests->data(), MPI_STATUSES_IGNORE));
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  const Clock::time_point deadline = start + std::chrono::seconds(comm.exec_timeout_s);
  // Poll as MPI_Waitall would for the first millisecond (most waits end there; MPI's
  // progress yields when idle if mpi_yield_when_idle is set), reading the clock only every
  // 64 tests (after every test it cost a small AllReduce 2 us on the CI VM); then sleep in
  // steps growing to 200 us: a correct program loses at most that much per long wait, and
  // a rank waiting for a late peer does not keep a core busy.
  std::chrono::microseconds pause(0);
  for (unsigned tests = 1;; ++tests) {
    int done = 0;
    const int status = MPI_Testall(count, requests->data(), &done, MPI_STATUSES_IGNORE);
    if (status != MPI_SUCCESS || done) return failed(status);
    if (pause.count() == 0 && tests % 64 != 0) continue;
    const Clock::time_point now = Clock::now();
    if (now >= deadline) break;
    if (pause.count() == 0 && now - start < std::chrono::milliseconds(1)) continue;
    pause = std::min(std::max(pause * 2, std::chrono::microseconds(10)), std::chrono::microseconds(200));
    std::this_thread::sleep_for(pause);
  }
  if (kind == Requests::kPointToPoint) {
    // Freed point-to-point requests complete (or not) on their own; collective ones may not be freed.
    for (MPI_Request& request : *requests) {
      if (request != MPI_REQUEST_NULL) MPI_Request_free(&request);
    }
  }
  {
    std::lock_guard<std::mutex> lock(g_abandoned_mutex);
    AbandonedRequests().push_back({std::move(*requests), std::move(buffers)});
  }
  requests->clear();
  const std::string sentence =
      "waited HCCL_EXEC_TIMEOUT=" + std::to_string(comm.exec_timeout_s) + " s for " + waiting_for + " on rank " +
      std::to_string(comm.rank) + ": a peer never arrived (it skipped the operation, issued fewer, or is stuck); the "
      "communicator is broken: every later operation on it fails with this error (HcclCommDestroy still works)";
  comm.SetAsyncError(HCCL_E_TIMEOUT, sentence);
  return sentence;
}

SpacedBytes::SpacedBytes(int bytes, uint64_t stride) {
  MPI_Type_contiguous(bytes, MPI_BYTE, &piece_);
  MPI_Type_create_resized(piece_, 0, static_cast<MPI_Aint>(stride), &spaced_);
  MPI_Type_commit(&spaced_);
}

SpacedBytes::~SpacedBytes() {
  MPI_Type_free(&spaced_);
  MPI_Type_free(&piece_);
}

}  // namespace hccl
}  // namespace oa
