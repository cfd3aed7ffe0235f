// Execution: queueing a collective on its stream in issue order, and, on the stream's
// worker, waiting for its turn, checking that every rank issued the same one, running it.
#include <strings.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/environment.h"
#include "hccl_internal.h"
#include "runtime/error.h"
#include "runtime/runtime.h"

namespace oa {
namespace hccl {

const char* KindName(uint64_t kind) {
  switch (static_cast<Kind>(kind)) {
    case Kind::kAllReduce: return "HcclAllReduce";
    case Kind::kAllGather: return "HcclAllGather";
    case Kind::kBroadcast: return "HcclBroadcast";
    case Kind::kReduceScatter: return "HcclReduceScatter";
    case Kind::kBarrier: return "HcclBarrier";
    case Kind::kSend: return "HcclSend";
    case Kind::kRecv: return "HcclRecv";
    case Kind::kAlltoAll: return "HcclAlltoAll";
    case Kind::kAlltoAllV: return "HcclAlltoAllV";
    case Kind::kReduce: return "HcclReduce";
    case Kind::kScatter: return "HcclScatter";
    case Kind::kAllGatherV: return "HcclAllGatherV";
    case Kind::kReduceScatterV: return "HcclReduceScatterV";
    case Kind::kBatchSendRecv: return "HcclBatchSendRecv";
    case Kind::kCreateSubComm: return "HcclCreateSubCommConfig";
  }
  return "an unknown collective";
}

bool Reduces(Kind kind) {
  return kind == Kind::kAllReduce || kind == Kind::kReduceScatter || kind == Kind::kReduce ||
         kind == Kind::kReduceScatterV;
}

bool VariableCounts(Kind kind) {
  return kind == Kind::kAlltoAllV || kind == Kind::kAllGatherV || kind == Kind::kReduceScatterV;
}

bool Rooted(Kind kind) { return kind == Kind::kBroadcast || kind == Kind::kReduce || kind == Kind::kScatter; }

bool PointToPoint(Kind kind) {
  return kind == Kind::kSend || kind == Kind::kRecv || kind == Kind::kBatchSendRecv;
}

namespace {

std::string DescribeDescriptor(const uint64_t* d) {
  const Kind kind = static_cast<Kind>(d[2]);
  if (kind == Kind::kBarrier || kind == Kind::kCreateSubComm) return std::string(KindName(d[2])) + "()";
  // The V variants' counts differ from rank to rank by design; they are compared apart.
  std::string text = std::string(KindName(d[2])) + "(";
  if (!VariableCounts(static_cast<Kind>(d[2]))) text += "count=" + std::to_string(d[3]) + ", ";
  text += "dataType=";
  const char* type = DataTypeName(d[4]);
  text += type != nullptr ? type : std::to_string(d[4]);
  if (Reduces(static_cast<Kind>(d[2]))) text += std::string(", op=") + ReduceOpName(d[5]);
  if (Rooted(static_cast<Kind>(d[2]))) text += ", root=" + std::to_string(d[6]);
  if (d[7] != 0) text += ", deterministic";
  return text + ")";
}

// Every rank contributes a descriptor of the collective it is about to run; a rank that
// differs makes all ranks skip the data exchange and report the same failure, instead of
// MPI corrupting memory (count mismatch) or hanging (different collective).
std::string CheckAgreement(const Communicator& comm, const Collective& op) {
  constexpr int kFields = 8;
  const uint64_t count = VariableCounts(op.kind) ? 0 : op.count;  // compared by CheckCountsPairUp
  const uint64_t mine[kFields] = {0x6863636c64657363ull, comm.collectives_run, static_cast<uint64_t>(op.kind), count,
                                  static_cast<uint64_t>(op.type), static_cast<uint64_t>(op.op), op.root,
                                  op.deterministic ? 1u : 0u};
  // Non-blocking, so that a rank that never comes is a timeout (WaitForPeers), not a hang;
  // the buffers are shared with WaitForPeers, which keeps them alive if it gives up.
  struct Descriptors {
    uint64_t mine[kFields];
    std::vector<uint64_t> all;
  };
  auto descriptors = std::make_shared<Descriptors>();
  std::memcpy(descriptors->mine, mine, sizeof mine);
  descriptors->all.resize(static_cast<size_t>(comm.size) * kFields);
  std::vector<MPI_Request> request(1);
  const int status = MPI_Iallgather(descriptors->mine, kFields, MPI_UINT64_T, descriptors->all.data(), kFields,
                                    MPI_UINT64_T, comm.mpi, request.data());
  if (status != MPI_SUCCESS) return "exchanging the collective's descriptor failed: " + MpiErrorText(status);
  const std::string waiting_for = std::string("every rank to issue ") + KindName(static_cast<uint64_t>(op.kind)) +
                                  " (collective #" + std::to_string(comm.collectives_run) + " of the communicator)";
  std::string failure = WaitForPeers(comm, &request, waiting_for.c_str(), Requests::kCollective, descriptors);
  if (!failure.empty()) return failure;
  const std::vector<uint64_t>& all = descriptors->all;
  for (uint32_t r = 1; r < comm.size; ++r) {
    const uint64_t* theirs = &all[static_cast<size_t>(r) * kFields];
    if (std::memcmp(theirs, all.data(), sizeof mine) != 0) {
      return "the ranks issued different collectives (each rank must issue the same collectives in the same order "
             "with the same count, dataType, op and root): at collective #" + std::to_string(all[1]) +
             " of the communicator rank 0 issued " + DescribeDescriptor(all.data()) + " but rank " +
             std::to_string(r) + " issued collective #" + std::to_string(theirs[1]) + ", " +
             DescribeDescriptor(theirs) + "; no data were exchanged";
    }
  }
  return "";
}

// A single-rank communicator without MPI: the result is the rank's own data.
std::string RunLocally(Communicator& comm, const Collective& op) {
  switch (op.kind) {
    case Kind::kAlltoAll:
    case Kind::kAlltoAllV:
    case Kind::kAllGatherV:
      return RunAlltoAll(comm, op);
    case Kind::kReduceScatterV:
      return RunReduceScatterV(comm, op);
    case Kind::kBroadcast:
    case Kind::kBarrier:
      return "";
    case Kind::kSend:
    case Kind::kRecv:
    case Kind::kBatchSendRecv:
      return RunPointToPoint(comm, op);  // only transfers to itself (a batch's) make no MPI call
    default:
      if (op.send != op.recv) std::memmove(op.recv, op.send, op.count * ElementSize(op.type));
      return "";
  }
}

std::string ExecuteInTurn(Communicator& comm, const Collective& op) {
  std::string broken;
  if (comm.AsyncError(&broken) != HCCL_SUCCESS) {
    return std::string(KindName(static_cast<uint64_t>(op.kind))) + " did not run: the communicator is broken by an "
           "earlier error: " + broken;
  }
  if (!comm.use_mpi) return RunLocally(comm, op);
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return "MPI is already finalized";
  if (PointToPoint(op.kind)) return RunPointToPoint(comm, op);
  std::string failure = CheckAgreement(comm, op);
  ++comm.collectives_run;  // on every rank, agreeing or not, so the positions stay aligned
  if (!failure.empty()) return failure;
  switch (op.kind) {
    case Kind::kAllReduce: return RunAllReduce(comm, op);
    case Kind::kAllGather: return RunAllGather(comm, op);
    case Kind::kBroadcast: return RunBroadcast(comm, op);
    case Kind::kReduceScatter: return RunReduceScatter(comm, op);
    case Kind::kReduce: return RunReduce(comm, op);
    case Kind::kScatter: return RunScatter(comm, op);
    // The agreement check's all-gather has already made every rank wait for the others.
    case Kind::kBarrier: return "";
    case Kind::kAlltoAll:
    case Kind::kAlltoAllV:
    case Kind::kAllGatherV: return RunAlltoAll(comm, op);
    case Kind::kReduceScatterV: return RunReduceScatterV(comm, op);
    case Kind::kSend:
    case Kind::kRecv:
    case Kind::kBatchSendRecv:
    case Kind::kCreateSubComm: break;
  }
  return "unknown collective";
}

// Runs on a stream's worker: waits until every collective issued before this one on the
// communicator has run (on whatever stream), runs it, passes the turn on.
std::string Execute(Communicator& comm, const Collective& op) {
  {
    std::unique_lock<std::mutex> lock(comm.turn_mutex);
    comm.turn_cv.wait(lock, [&] { return comm.next_turn == op.sequence; });
  }
  std::string result = ExecuteInTurn(comm, op);
  {
    std::lock_guard<std::mutex> lock(comm.turn_mutex);
    ++comm.next_turn;
  }
  comm.turn_cv.notify_all();
  return result;
}

// HCCL_DETERMINISTIC=true in the environment, or ACL_OPT_DETERMINISTIC on the calling
// thread's context (or process-wide), read when the collective is issued.
bool DeterministicRequested() {
  const char* text = std::getenv("HCCL_DETERMINISTIC");
  if (text != nullptr && strcasecmp(text, "true") == 0) return true;
  if (text != nullptr && *text != '\0' && strcasecmp(text, "false") != 0) {
    static std::atomic<bool> warned{false};
    if (!warned.exchange(true)) oa::WarnAboutVariable("HCCL_DETERMINISTIC", text, "true or false", "false");
  }
  int64_t value = 0;
  return aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value) == ACL_SUCCESS && value != 0;
}

}  // namespace

std::string RunOnCallerInTurn(Communicator& comm, const Collective& op, const std::function<std::string()>& body) {
  Collective numbered = op;
  {
    std::lock_guard<std::mutex> issue(comm.issue_mutex);
    numbered.sequence = comm.next_sequence++;
  }
  std::string failure;
  {
    std::unique_lock<std::mutex> lock(comm.turn_mutex);
    comm.turn_cv.wait(lock, [&] { return comm.next_turn == numbered.sequence; });
  }
  std::string broken;
  if (comm.AsyncError(&broken) != HCCL_SUCCESS) {
    failure = "the communicator is broken by an earlier error: " + broken;
  } else if (comm.use_mpi) {
    failure = CheckAgreement(comm, numbered);
    ++comm.collectives_run;  // on every rank, as for a collective
  }
  if (failure.empty()) failure = body();
  {
    std::lock_guard<std::mutex> lock(comm.turn_mutex);
    ++comm.next_turn;
  }
  comm.turn_cv.notify_all();
  return failure;
}

HcclResult Enqueue(const char* api, HcclComm handle, aclrtStream stream, Collective op) {
  std::shared_ptr<Communicator> comm = FindAndCountPending(handle);
  if (!comm) return NotACommunicator(api, handle);
  std::string broken;
  if (const HcclResult error = comm->AsyncError(&broken)) {
    comm->pending.fetch_sub(1);
    return Fail(error, "%s: the communicator is broken by an earlier error (HcclGetCommAsyncError returns it): %s", api,
                broken.c_str());
  }
  if (Rooted(op.kind) && op.root >= comm->size) {
    comm->pending.fetch_sub(1);
    return CheckRoot(api, op.root, comm->size);
  }
  if (DeferToGroup(api, handle, stream, op)) {  // checked now, issued at HcclGroupEnd
    comm->pending.fetch_sub(1);
    return HCCL_SUCCESS;
  }
  // Only reductions depend on the mode; for the others it stays out of the agreement check.
  op.deterministic = Reduces(op.kind) && (comm->deterministic == HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET
                                               ? DeterministicRequested()
                                               : comm->deterministic != 0);
  aclError status;
  {
    // The number and the queueing are one step: a refused collective takes no number.
    std::lock_guard<std::mutex> issue(comm->issue_mutex);
    op.sequence = comm->next_sequence;
    status = EnqueueOnStream(stream, api, [comm, op]() -> std::string {
      struct PendingGuard {
        Communicator& comm;
        ~PendingGuard() { comm.pending.fetch_sub(1); }
      } guard{*comm};
      return Execute(*comm, op);
    });
    if (status == ACL_SUCCESS) ++comm->next_sequence;
  }
  if (status != ACL_SUCCESS) {
    comm->pending.fetch_sub(1);
    return Fail(HCCL_E_RUNTIME, "%s: the runtime refused to queue the collective on stream %p (aclError %d)", api,
                stream, static_cast<int>(status));
  }
  return HCCL_SUCCESS;
}

}  // namespace hccl
}  // namespace oa
