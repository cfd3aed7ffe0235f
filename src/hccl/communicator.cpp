// Communicators: the handle table, the root info, and the communicator management entry
// points (HcclGetRootInfo, HcclCommInitRootInfo(Config), HcclCreateSubCommConfig,
// HcclGetRankSize/Id, HcclGetCommAsyncError, HcclCommDestroy).
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <set>
#include <vector>

#include "hccl_internal.h"
#include "runtime/handle_table.h"

namespace oa {
namespace hccl {
namespace {

std::mutex g_communicators_mutex;
HandleTable<Communicator>& Communicators() {
  static auto* communicators = new HandleTable<Communicator>;
  return *communicators;
}

// Root info: the 4108 opaque bytes.

constexpr char kRootInfoMagic[16] = "openaclnn-hccl1";

struct RootInfoContents {
  char magic[16];
  uint64_t id[2];   // random; each HcclGetRootInfo call yields a new one
  char job[256];    // the MPI job of the root process (informational)
};
static_assert(sizeof(RootInfoContents) <= sizeof(HcclRootInfo), "root info contents fit the 4108 bytes");

std::string JobName() {
  if (const char* name = std::getenv("PMIX_NAMESPACE")) return std::string("mpi job ") + name;
  if (const char* name = std::getenv("OMPI_MCA_ess_base_jobid")) return std::string("mpi job ") + name;
  char host[128] = "?";
  gethostname(host, sizeof host - 1);
  return "process " + std::to_string(getpid()) + " on " + host;
}

}  // namespace

std::shared_ptr<Communicator> FindCommunicator(HcclComm handle) {
  std::lock_guard<std::mutex> lock(g_communicators_mutex);
  return Communicators().Find(handle);
}

std::shared_ptr<Communicator> FindAndCountPending(HcclComm handle) {
  std::lock_guard<std::mutex> lock(g_communicators_mutex);
  std::shared_ptr<Communicator> found = Communicators().Find(handle);
  if (found) found->pending.fetch_add(1);
  return found;
}

void Communicator::SetAsyncError(HcclResult code, const std::string& sentence) const {
  std::lock_guard<std::mutex> lock(async_error_mutex);
  if (async_error != HCCL_SUCCESS) return;  // the first one stays
  async_error = code;
  async_error_sentence = sentence;
}

HcclResult Communicator::AsyncError(std::string* sentence) const {
  std::lock_guard<std::mutex> lock(async_error_mutex);
  if (sentence != nullptr) *sentence = async_error_sentence;
  return async_error;
}

HcclComm Register(std::shared_ptr<Communicator> created) {
  std::lock_guard<std::mutex> lock(g_communicators_mutex);
  return Communicators().Insert(std::move(created));
}

std::string ReadConfig(const HcclCommConfig* config, CommSettings* settings) {
  settings->exec_timeout_s = ExecTimeoutFromEnvironment();
  settings->deterministic = HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET;
  if (config == nullptr) return "";
  struct Info {  // HcclCommConfigInit's header in the reserved bytes
    size_t size;
    uint32_t magic_word;
    uint32_t version;
  } info;
  std::memcpy(&info, config->reserved, sizeof info);
  if (info.magic_word != HCCL_COMM_CONFIG_MAGIC_WORD) {
    return "config was not initialized by HcclCommConfigInit (its magic word is missing)";
  }
  // An older caller's smaller struct: read only the fields it has.
  const auto has = [&](size_t end) { return info.size >= end; };
  if (!has(offsetof(HcclCommConfig, hcclDeterministic) + sizeof(uint32_t))) {
    return "config's size " + std::to_string(info.size) + " is smaller than its first fields";
  }
  const uint32_t deterministic = config->hcclDeterministic;
  if (deterministic != HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET) {
    if (deterministic > 2) {
      return "config's hcclDeterministic " + std::to_string(deterministic) + " is not 0 (off), 1 (on) or 2 (strict)";
    }
    settings->deterministic = deterministic;
  }
  if (has(offsetof(HcclCommConfig, hcclExecTimeOut) + sizeof(int32_t)) &&
      config->hcclExecTimeOut != HCCL_COMM_EXECTIMEOUT_CONFIG_NOT_SET) {
    if (config->hcclExecTimeOut < 0) {
      return "config's hcclExecTimeOut " + std::to_string(config->hcclExecTimeOut) +
             " is negative (seconds, 0 for never; -1 leaves HCCL_EXEC_TIMEOUT in force)";
    }
    settings->exec_timeout_s = static_cast<uint32_t>(config->hcclExecTimeOut);
  }
  return "";
}

HcclResult NotACommunicator(const char* api, HcclComm comm) {
  return Fail(HCCL_E_PARA, "%s: comm %p is not a live communicator (destroyed, or never made by HcclCommInitRootInfo)",
              api, comm);
}

}  // namespace hccl
}  // namespace oa

using oa::hccl::Fail;

HCCL_API HcclResult HcclGetRootInfo(HcclRootInfo* rootInfo) {
  using namespace oa::hccl;
  if (rootInfo == nullptr) return Fail(HCCL_E_PTR, "HcclGetRootInfo: rootInfo must not be null");
  RootInfoContents contents{};
  std::memcpy(contents.magic, kRootInfoMagic, sizeof contents.magic);
  // random_device for unpredictability; the per-process counter and pid make two calls
  // distinct even if the device repeats itself.
  static std::atomic<uint64_t> calls{0};
  std::random_device device;
  contents.id[0] = (static_cast<uint64_t>(device()) << 32) ^ device() ^ (static_cast<uint64_t>(getpid()) << 20);
  contents.id[1] = ((static_cast<uint64_t>(device()) << 32) ^ device()) + calls.fetch_add(1) * 0x9E3779B97F4A7C15ull;
  const std::string job = JobName();
  std::snprintf(contents.job, sizeof contents.job, "%s", job.c_str());
  std::memset(rootInfo, 0, sizeof *rootInfo);
  std::memcpy(rootInfo->internal, &contents, sizeof contents);
  return HCCL_SUCCESS;
}

namespace {

using oa::hccl::CommSettings;
using oa::hccl::Communicator;
using oa::hccl::Fail;
using oa::hccl::MpiErrorText;
using oa::hccl::Register;

// Enters a new communicator of nRanks whose rank is `rank` into the handle table; `mpi` is
// its own MPI communicator (split from the job's by the caller), unused without MPI.
HcclComm NewCommunicator(uint32_t rank, uint32_t nRanks, const CommSettings& settings, bool use_mpi, MPI_Comm mpi,
                         aclrtContext context) {
  auto created = std::make_shared<Communicator>();
  created->rank = rank;
  created->size = nRanks;
  created->use_mpi = use_mpi;
  created->mpi = mpi;
  created->context = context;
  created->sends_to.assign(nRanks, 0);
  created->receives_from.assign(nRanks, 0);
  created->exec_timeout_s = settings.exec_timeout_s;
  created->deterministic = settings.deterministic;
  // Failures inside a collective become a stream failure instead of aborting the job.
  if (use_mpi) MPI_Comm_set_errhandler(mpi, MPI_ERRORS_RETURN);
  return Register(std::move(created));
}

// A new communicator over the ranks of `parent`, ordered by their HCCL rank (which may differ
// from the rank in `parent`); the calling thread's context is its context.
HcclResult SplitAndCreate(const char* api, uint32_t rank, uint32_t nRanks, const CommSettings& settings, bool use_mpi,
                          MPI_Comm parent, HcclComm* comm) {
  MPI_Comm mpi = MPI_COMM_NULL;
  if (use_mpi) {
    const int status = MPI_Comm_split(parent, 0, static_cast<int>(rank), &mpi);
    if (status != MPI_SUCCESS) {
      return Fail(HCCL_E_INTERNAL, "%s: MPI_Comm_split failed: %s", api, MpiErrorText(status).c_str());
    }
  }
  aclrtContext context = nullptr;
  if (aclrtGetCurrentContext(&context) != ACL_SUCCESS) context = nullptr;
  *comm = NewCommunicator(rank, nRanks, settings, use_mpi, mpi, context);
  return HCCL_SUCCESS;
}

// HcclCommInitRootInfo(Config): config may be null (the plain call).
HcclResult InitRootInfo(const char* api, uint32_t nRanks, const HcclRootInfo* rootInfo, uint32_t rank,
                        const HcclCommConfig* config, HcclComm* comm) {
  using namespace oa::hccl;
  CommSettings settings;
  const std::string config_problem = ReadConfig(config, &settings);
  bool use_mpi = false;
  if (HcclResult status = EnsureTransport(api, &use_mpi)) return status;

  RootInfoContents contents;
  std::memcpy(&contents, rootInfo->internal, sizeof contents);
  // Argument problems are found here but reported only after the exchange, so that every
  // rank fails together instead of some waiting for ever for the one that returned early.
  enum Problem : uint64_t { kNone = 0, kZeroRanks, kRankOutOfRange, kNotARootInfo, kBadConfig };
  Problem problem = kNone;
  if (!config_problem.empty()) {
    problem = kBadConfig;
  } else if (nRanks == 0) {
    problem = kZeroRanks;
  } else if (rank >= nRanks) {
    problem = kRankOutOfRange;
  } else if (std::memcmp(contents.magic, kRootInfoMagic, sizeof contents.magic) != 0) {
    problem = kNotARootInfo;
  }

  int world_size = 1, world_rank = 0;
  constexpr int kFields = 5;
  const uint64_t mine[kFields] = {problem, nRanks, rank, contents.id[0], contents.id[1]};
  std::vector<uint64_t> all(mine, mine + kFields);
  if (use_mpi) {
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    all.resize(static_cast<size_t>(world_size) * kFields);
    const int status = MPI_Allgather(mine, kFields, MPI_UINT64_T, all.data(), kFields, MPI_UINT64_T, MPI_COMM_WORLD);
    if (status != MPI_SUCCESS) {
      return Fail(HCCL_E_INTERNAL, "%s: exchanging (rank, nRanks, root id) over MPI_COMM_WORLD failed: %s", api,
                  MpiErrorText(status).c_str());
    }
  }
  // Every rank evaluates the same gathered table in the same order, so all report the same
  // mismatch.
  const auto field = [&](int process, int index) { return all[static_cast<size_t>(process) * kFields + index]; };
  char message[512];
  for (int p = 0; p < world_size; ++p) {
    const uint64_t their_problem = field(p, 0);
    if (their_problem == kNone) continue;
    if (their_problem == kBadConfig) {
      if (p == world_rank) return FailLoudly(HCCL_E_PARA, std::string(api) + ": " + config_problem);
      std::snprintf(message, sizeof message, "%s: process %d of the MPI job passed an invalid config", api, p);
      return FailLoudly(HCCL_E_PARA, message);
    }
    const char* what = their_problem == kZeroRanks       ? "nRanks is 0"
                       : their_problem == kRankOutOfRange ? "rank is not below nRanks"
                                                          : "rootInfo was not filled by HcclGetRootInfo";
    std::snprintf(message, sizeof message, "%s: process %d of the MPI job passed nRanks=%llu, rank=%llu: %s", api, p,
                  static_cast<unsigned long long>(field(p, 1)), static_cast<unsigned long long>(field(p, 2)), what);
    return FailLoudly(HCCL_E_PARA, message);
  }
  for (int p = 1; p < world_size; ++p) {
    if (field(p, 3) != field(0, 3) || field(p, 4) != field(0, 4)) {
      std::snprintf(message, sizeof message,
                    "%s: processes 0 and %d of the MPI job passed different root infos (every rank must use the one "
                    "HcclGetRootInfo made on the root)", api, p);
      return FailLoudly(HCCL_E_PARA, message);
    }
    if (field(p, 1) != field(0, 1)) {
      std::snprintf(message, sizeof message, "%s: processes 0 and %d of the MPI job disagree on nRanks (%llu vs %llu)",
                    api, p, static_cast<unsigned long long>(field(0, 1)), static_cast<unsigned long long>(field(p, 1)));
      return FailLoudly(HCCL_E_PARA, message);
    }
  }
  if (field(0, 1) != static_cast<uint64_t>(world_size)) {
    std::snprintf(message, sizeof message,
                  "%s: nRanks is %llu but the MPI job has %d process(es); every process of the job is one rank%s", api,
                  static_cast<unsigned long long>(field(0, 1)), world_size,
                  use_mpi ? "" : " (this process was not started by mpirun, so it is a singleton)");
    return FailLoudly(HCCL_E_PARA, message);
  }
  for (int p = 0; p < world_size; ++p) {
    for (int q = p + 1; q < world_size; ++q) {
      if (field(p, 2) == field(q, 2)) {
        std::snprintf(message, sizeof message, "%s: processes %d and %d of the MPI job both passed rank %llu", api, p, q,
                      static_cast<unsigned long long>(field(p, 2)));
        return FailLoudly(HCCL_E_PARA, message);
      }
    }
  }

  return SplitAndCreate(api, rank, nRanks, settings, use_mpi, MPI_COMM_WORLD, comm);
}

}  // namespace

HCCL_API HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo* rootInfo, uint32_t rank,
                                         HcclComm* comm) {
  static const char* const api = "HcclCommInitRootInfo";
  if (rootInfo == nullptr) return Fail(HCCL_E_PTR, "%s: rootInfo must not be null", api);
  if (comm == nullptr) return Fail(HCCL_E_PTR, "%s: comm must not be null", api);
  return InitRootInfo(api, nRanks, rootInfo, rank, nullptr, comm);
}

HCCL_API HcclResult HcclCommInitRootInfoConfig(uint32_t nRanks, const HcclRootInfo* rootInfo, uint32_t rank,
                                               const HcclCommConfig* config, HcclComm* comm) {
  static const char* const api = "HcclCommInitRootInfoConfig";
  if (rootInfo == nullptr) return Fail(HCCL_E_PTR, "%s: rootInfo must not be null", api);
  if (config == nullptr) return Fail(HCCL_E_PTR, "%s: config must not be null", api);
  if (comm == nullptr) return Fail(HCCL_E_PTR, "%s: comm must not be null", api);
  return InitRootInfo(api, nRanks, rootInfo, rank, config, comm);
}

// Upstream's checks in its order (ndev, comms, devices, duplicates), then one rank per
// device: each device must exist, and this runtime has one per process, so the result is a
// communicator of one rank over MPI_COMM_SELF (the other processes of an MPI job are not in it).
HCCL_API HcclResult HcclCommInitAll(uint32_t ndev, int32_t* devices, HcclComm* comms) {
  using namespace oa::hccl;
  static const char* const api = "HcclCommInitAll";
  if (ndev == 0) return Fail(HCCL_E_PARA, "%s: ndev must be positive, got 0", api);
  if (comms == nullptr) return Fail(HCCL_E_PTR, "%s: comms must not be null", api);
  if (devices == nullptr) return Fail(HCCL_E_PTR, "%s: devices must not be null", api);
  const std::set<int32_t> distinct(devices, devices + ndev);
  if (distinct.size() != ndev) {
    return Fail(HCCL_E_PARA, "%s: devices names a device more than once (%u entries, %zu distinct ids)", api, ndev,
                distinct.size());
  }
  for (uint32_t i = 0; i < ndev; ++i) comms[i] = nullptr;
  uint32_t device_count = 0;
  if (aclrtGetDeviceCount(&device_count) != ACL_SUCCESS) {
    return Fail(HCCL_E_INTERNAL, "%s: could not count the devices (call aclInit first): %s", api,
                aclGetRecentErrMsg());
  }
  for (uint32_t i = 0; i < ndev; ++i) {
    if (devices[i] < 0 || static_cast<uint32_t>(devices[i]) >= device_count) {
      return Fail(HCCL_E_INTERNAL, "%s: devices[%u] = %d does not exist: each process has %u device(s) (0), so it "
                  "holds one rank; run the other ranks as processes of an MPI job (HcclCommInitRootInfo)",
                  api, i, devices[i], device_count);
    }
  }
  CommSettings settings;
  ReadConfig(nullptr, &settings);  // the environment's settings; no config to refuse
  bool use_mpi = false;
  if (HcclResult status = EnsureTransport(api, &use_mpi)) return status;
  return SplitAndCreate(api, 0, 1, settings, use_mpi, MPI_COMM_SELF, &comms[0]);
}

HCCL_API HcclResult HcclCommInitClusterInfo(const char* clusterInfo, uint32_t rank, HcclComm* comm) {
  if (clusterInfo == nullptr) return Fail(HCCL_E_PTR, "HcclCommInitClusterInfo: clusterInfo must not be null");
  if (comm == nullptr) return Fail(HCCL_E_PTR, "HcclCommInitClusterInfo: comm must not be null");
  return Fail(HCCL_E_NOT_SUPPORT,
              "HcclCommInitClusterInfo: rank tables are not supported (rank %u, file '%.200s'); use HcclGetRootInfo "
              "and HcclCommInitRootInfo under mpirun", rank, clusterInfo);
}

namespace oa {
namespace hccl {
namespace {

// The queries' checks in upstream's order: comm, then the output (both HCCL_E_PTR); a stale
// handle: HCCL_E_PARA. On success *found is the communicator.
HcclResult CheckQuery(const char* api, HcclComm comm, const char* output, const void* pointer,
                      std::shared_ptr<Communicator>* found) {
  if (HcclResult status = CheckPointer(api, "comm", comm)) return status;
  if (HcclResult status = CheckPointer(api, output, pointer)) return status;
  return CheckCommunicator(api, comm, found);
}

}  // namespace
}  // namespace hccl
}  // namespace oa

HCCL_API HcclResult HcclGetRankSize(HcclComm comm, uint32_t* rankSize) {
  std::shared_ptr<oa::hccl::Communicator> found;
  if (HcclResult status = oa::hccl::CheckQuery("HcclGetRankSize", comm, "rankSize", rankSize, &found)) return status;
  *rankSize = found->size;
  return HCCL_SUCCESS;
}

HCCL_API HcclResult HcclGetRankId(HcclComm comm, uint32_t* rank) {
  std::shared_ptr<oa::hccl::Communicator> found;
  if (HcclResult status = oa::hccl::CheckQuery("HcclGetRankId", comm, "rank", rank, &found)) return status;
  *rank = found->rank;
  return HCCL_SUCCESS;
}

HCCL_API HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult* asyncError) {
  std::shared_ptr<oa::hccl::Communicator> found;
  if (HcclResult status = oa::hccl::CheckQuery("HcclGetCommAsyncError", comm, "asyncError", asyncError, &found)) {
    return status;
  }
  *asyncError = found->AsyncError();
  return HCCL_SUCCESS;
}

HCCL_API HcclResult HcclCommDestroy(HcclComm comm) {
  using namespace oa::hccl;
  if (comm == nullptr) return Fail(HCCL_E_PTR, "HcclCommDestroy: comm must not be null");
  std::shared_ptr<Communicator> removed;
  {
    std::lock_guard<std::mutex> lock(g_communicators_mutex);
    std::shared_ptr<Communicator> found = Communicators().Find(comm);
    if (!found) return NotACommunicator("HcclCommDestroy", comm);
    const uint64_t pending = found->pending.load();
    if (pending != 0) {
      return Fail(HCCL_E_AGAIN,
                  "HcclCommDestroy: %llu collective(s) on comm %p are still pending; synchronize their streams first "
                  "(the communicator stays valid)", static_cast<unsigned long long>(pending), comm);
    }
    removed = Communicators().Remove(comm);
  }
  if (removed->use_mpi) {
    std::lock_guard<std::mutex> lock(g_mpi_mutex);
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free(&removed->mpi);
  }
  return HCCL_SUCCESS;
}

// Collective over every rank of the parent, in its issue order (RunOnCallerInTurn), like
// upstream's split: ranks that join none pass rankIds = NULL and subCommId = 0xFFFFFFFF.
// Pointer and handle problems return at once (as in HcclCommInitRootInfo); the rank list and
// the config are checked on every rank and reported after one exchange, so every rank of the
// parent returns the same HCCL_E_PARA instead of some waiting for the others.
HCCL_API HcclResult HcclCreateSubCommConfig(HcclComm* comm, uint32_t rankNum, uint32_t* rankIds, uint64_t subCommId,
                                            uint32_t subCommRankId, HcclCommConfig* config, HcclComm* subComm) {
  using namespace oa::hccl;
  static const char* const api = "HcclCreateSubCommConfig";
  if (HcclResult status = CheckPointer(api, "comm", comm)) return status;
  if (HcclResult status = CheckPointer(api, "*comm", *comm)) return status;
  if (HcclResult status = CheckPointer(api, "config", config)) return status;
  if (HcclResult status = CheckPointer(api, "subComm", subComm)) return status;
  std::shared_ptr<Communicator> parent;
  if (HcclResult status = CheckCommunicator(api, *comm, &parent)) return status;
  constexpr uint64_t kJoinsNone = 0xFFFFFFFFull;
  const bool joins = !(rankIds == nullptr && subCommId == kJoinsNone);
  const uint32_t size = parent->size;
  std::string problem;
  if (joins) {
    if (rankIds == nullptr) {
      problem = "rankIds is null although subCommId is " + std::to_string(subCommId) +
                " (a rank that joins no sub-communicator passes rankIds = NULL and subCommId = 0xFFFFFFFF)";
    } else if (rankNum == 0 || rankNum > size) {
      problem = "rankNum " + std::to_string(rankNum) + " is not in [1, " + std::to_string(size) +
                "] (the parent's rank size)";
    } else {
      for (uint32_t i = 0; i < rankNum && problem.empty(); ++i) {
        if (rankIds[i] >= size) {
          problem = "rankIds[" + std::to_string(i) + "] = " + std::to_string(rankIds[i]) +
                    " is not below the parent's rank size " + std::to_string(size);
        } else if (i > 0 && rankIds[i] <= rankIds[i - 1]) {
          problem = "rankIds must be ascending without duplicates, but rankIds[" + std::to_string(i - 1) + "] = " +
                    std::to_string(rankIds[i - 1]) + " and rankIds[" + std::to_string(i) + "] = " +
                    std::to_string(rankIds[i]);
        }
      }
      if (problem.empty() && (subCommRankId >= rankNum || rankIds[subCommRankId] != parent->rank)) {
        problem = "subCommRankId " + std::to_string(subCommRankId) + " is not the index of this rank (" +
                  std::to_string(parent->rank) + ") in rankIds";
      }
    }
  }
  CommSettings settings;
  if (problem.empty()) problem = ReadConfig(config, &settings);

  // One row per parent rank: joins, subCommId, rankNum, subCommRankId, has a problem, then
  // the rank list padded to the parent's size.
  const size_t words = 5 + static_cast<size_t>(size);
  std::vector<uint64_t> mine(words, UINT64_MAX);
  const bool listed = joins && problem.empty();
  mine[0] = joins ? 1 : 0;
  mine[1] = subCommId;
  mine[2] = listed ? rankNum : 0;
  mine[3] = subCommRankId;
  mine[4] = problem.empty() ? 0 : 1;
  for (uint32_t i = 0; listed && i < rankNum; ++i) mine[5 + i] = rankIds[i];
  std::vector<uint64_t> all = mine;
  MPI_Comm split = MPI_COMM_NULL;
  HcclResult result = HCCL_SUCCESS;
  Collective operation{Kind::kCreateSubComm, nullptr, nullptr, 0, HCCL_DATA_TYPE_INT8, HCCL_REDUCE_SUM, 0, false, 0};
  const std::string failure = RunOnCallerInTurn(*parent, operation, [&]() -> std::string {
    if (parent->use_mpi) {
      all.resize(words * size);
      const int status = MPI_Allgather(mine.data(), static_cast<int>(words), MPI_UINT64_T, all.data(),
                                       static_cast<int>(words), MPI_UINT64_T, parent->mpi);
      if (status != MPI_SUCCESS) return "exchanging the rank lists failed: " + MpiErrorText(status);
    }
    // Every rank evaluates the same table in the same order: the same verdict everywhere.
    const auto row = [&](uint32_t r) { return &all[static_cast<size_t>(r) * words]; };
    for (uint32_t p = 0; p < size; ++p) {
      if (row(p)[4] == 0) continue;
      result = HCCL_E_PARA;
      if (p == parent->rank) return problem;
      return "rank " + std::to_string(p) + " of the parent passed an invalid rank list or config";
    }
    for (uint32_t p = 0; p < size; ++p) {
      const uint64_t* theirs = row(p);
      for (uint64_t i = 0; theirs[0] == 1 && i < theirs[2]; ++i) {
        const uint32_t member = static_cast<uint32_t>(theirs[5 + i]);
        const uint64_t* its = row(member);
        if (its[0] != 1 || its[1] != theirs[1] || its[2] != theirs[2] || its[3] != i ||
            !std::equal(its + 5, its + words, theirs + 5)) {
          result = HCCL_E_PARA;
          return "ranks " + std::to_string(p) + " and " + std::to_string(member) + " of the parent disagree: rank " +
                 std::to_string(p) + " lists rank " + std::to_string(member) + " at index " + std::to_string(i) +
                 " of sub-communicator " + std::to_string(theirs[1]) + ", but rank " + std::to_string(member) +
                 (its[0] != 1 ? " joins none" : " passed another subCommId, rank list or subCommRankId") +
                 " (every member must pass the same rankNum, rankIds and subCommId, and its own index)";
        }
      }
    }
    if (!parent->use_mpi) return "";
    const int color = joins ? static_cast<int>(rankIds[0]) : MPI_UNDEFINED;
    const int status = MPI_Comm_split(parent->mpi, color, static_cast<int>(subCommRankId), &split);
    if (status != MPI_SUCCESS) return "MPI_Comm_split failed: " + MpiErrorText(status);
    return "";
  });
  if (!failure.empty()) {
    if (result == HCCL_SUCCESS) {
      const HcclResult broken = parent->AsyncError();
      result = broken != HCCL_SUCCESS ? broken : HCCL_E_PARA;
    }
    return Fail(result, "%s: %s", api, failure.c_str());
  }
  if (!joins) {
    *subComm = nullptr;
    return HCCL_SUCCESS;
  }
  *subComm = NewCommunicator(subCommRankId, rankNum, settings, parent->use_mpi, split, parent->context);
  return HCCL_SUCCESS;
}
