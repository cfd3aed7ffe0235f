// libhccl's internals, shared by its translation units (the HCCL subset on Open MPI,
// docs/hccl.md): messages, dtype tables, the MPI transport and the execution timeout,
// communicators, the argument checks every entry point shares, the execution of queued
// collectives and point-to-point operations, and group calls.
#pragma once

#include <mpi.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "hccl/hccl.h"

// Entry points are the library's only exported symbols (it builds with -fvisibility=hidden).
#define HCCL_API extern "C" __attribute__((visibility("default")))

namespace oa {
namespace hccl {

// SYS_MAX_COUNT of upstream's src/common/hccl_common.h.
constexpr uint64_t kMaxCount = 0x7FFFFFFFFull;

// ---------------------------------------------------------------------------------------
// Messages (messages.cpp): every failure leaves a sentence for aclGetRecentErrMsg.

HcclResult Fail(HcclResult code, const char* format, ...) __attribute__((format(printf, 2, 3)));
// Job-level failures also go to stderr, where a user reading mpirun's output looks.
HcclResult FailLoudly(HcclResult code, const std::string& message);
// nullptr for a value HcclDataType does not define.
const char* DataTypeName(uint64_t type);
const char* ReduceOpName(uint64_t op);
std::string MpiErrorText(int code);

// ---------------------------------------------------------------------------------------
// Data types (dtypes.cpp).

// Bytes per element of a defined type; 0 for a value HcclDataType does not define.
size_t ElementSize(int type);
bool Reducible(int type);
bool ProductAllowed(int type);
bool FloatingType(HcclDataType type);
float HalfValue(uint16_t bits, bool bf16);
uint16_t HalfBits(float value, bool bf16);
// Creates the user-defined MPI operations; once, after MPI_Init (EnsureTransport).
void CreateCustomOps();
void MpiTypeAndOp(HcclDataType type, HcclReduceOp op, MPI_Datatype* mpi_type, MPI_Op* mpi_op);

// ---------------------------------------------------------------------------------------
// Transport (transport.cpp).

extern std::mutex g_mpi_mutex;
// Decides the transport for a new communicator: *use_mpi is true when MPI is (or has just
// been) initialized, false for a singleton outside any MPI job.
HcclResult EnsureTransport(const char* api, bool* use_mpi);
// Elements per MPI call (MPI counts are int).
uint64_t ChunkElements(size_t element_size);

// A committed MPI type of `bytes` bytes whose extent is `stride` bytes: one chunk of every
// block of a strided layout (block r at r * stride), in one collective call.
class SpacedBytes {
 public:
  SpacedBytes(int bytes, uint64_t stride);
  ~SpacedBytes();
  SpacedBytes(const SpacedBytes&) = delete;
  SpacedBytes& operator=(const SpacedBytes&) = delete;
  MPI_Datatype type() const { return spaced_; }

 private:
  MPI_Datatype piece_, spaced_;
};

// ---------------------------------------------------------------------------------------
// Waiting for peers (transport.cpp): the execution timeout.

// Upstream's HCCL_EXEC_TIMEOUT default and largest value (seconds; 0 never times out).
constexpr uint32_t kDefaultExecTimeoutSeconds = 1836;
constexpr uint32_t kMaxExecTimeoutSeconds = 2147483647;
// HCCL_EXEC_TIMEOUT; a value outside [0, kMaxExecTimeoutSeconds] warns and gives the default.
uint32_t ExecTimeoutFromEnvironment();

struct Communicator;
// What the requests are: collective ones cannot be freed or cancelled once abandoned.
enum class Requests { kPointToPoint, kCollective };
// Completes the requests within the communicator's timeout, polling cheaply (a blocking MPI
// wait could not be interrupted). "" when they completed; the MPI failure; or, past the
// timeout, the sentence naming HCCL_EXEC_TIMEOUT, also stored as the communicator's
// asynchronous error. Abandoned requests may still write into `buffers` (the ones they
// point into, owned by the caller): they are kept alive for the rest of the process.
std::string WaitForPeers(const Communicator& comm, std::vector<MPI_Request>* requests, const char* waiting_for,
                         Requests kind, std::shared_ptr<void> buffers);

// ---------------------------------------------------------------------------------------
// Communicators (communicator.cpp).

enum class Kind : uint64_t {
  kAllReduce = 1, kAllGather = 2, kBroadcast = 3, kReduceScatter = 4, kBarrier = 5, kSend = 6, kRecv = 7,
  kAlltoAll = 8, kAlltoAllV = 9, kReduce = 10, kScatter = 11, kAllGatherV = 12, kReduceScatterV = 13,
  kBatchSendRecv = 14, kCreateSubComm = 15
};
// The API's name ("HcclReduceScatter").
const char* KindName(uint64_t kind);
// Those that reduce: they take an op and honour the deterministic mode.
bool Reduces(Kind kind);
// Broadcast, Reduce, Scatter.
bool Rooted(Kind kind);
// The V variants: their counts differ from rank to rank by design, so the agreement check
// leaves them out and CheckCountsPairUp compares them.
bool VariableCounts(Kind kind);
// Send, Recv, BatchSendRecv: pairs of ranks take part, not the whole communicator.
bool PointToPoint(Kind kind);

struct Collective {
  Kind kind;
  unsigned char* send;
  unsigned char* recv;  // Broadcast: the buffer
  uint64_t count;       // AllGather(V): sendCount; ReduceScatter(V), Scatter: recvCount
  HcclDataType type;
  HcclReduceOp op;   // the reducing kinds only (else SUM, so that descriptors compare)
  uint32_t root;     // the rooted kinds only (else 0)
  bool deterministic;
  uint64_t sequence;  // position among this communicator's operations, in issue order
  // Send, Recv, BatchSendRecv: the transfers, copied from the caller when the call is made.
  std::vector<HcclSendRecvItem> transfers{};
  // The blocks exchanged with each rank, in elements (AlltoAll(V), AllGatherV,
  // ReduceScatterV), copied from the caller's arrays when the call is made.
  std::vector<uint64_t> send_counts{}, send_displs{}, recv_counts{}, recv_displs{};
};

// Tags of the messages libhccl sends itself on a communicator (MPI's collectives use a
// context of their own): a Send/Recv pair's header, answer and payload, and the blocks of an
// all-to-all.
enum MessageTag : int { kPairHeaderTag = 0x4843, kPairAnswerTag, kPairPayloadTag, kBlocksTag };

// Collectives of one communicator run in the order they were issued, whatever streams
// they were queued on (MPI matches collectives by order, and every rank issues the same
// ones in the same order): each waits for its turn. A call that returns an error took no
// turn, so the communicator is exactly as it was.
struct Communicator {
  uint32_t rank = 0;
  uint32_t size = 1;
  bool use_mpi = false;
  MPI_Comm mpi = MPI_COMM_NULL;
  aclrtContext context = nullptr;  // the context current at init (bound, per the spec)
  std::atomic<uint64_t> pending{0};
  // Issue: a sequence number is taken only when the collective is queued.
  std::mutex issue_mutex;
  uint64_t next_sequence = 0;  // guarded by issue_mutex
  // Execution: the turn of the collective that runs next.
  std::mutex turn_mutex;
  std::condition_variable turn_cv;
  uint64_t next_turn = 0;  // guarded by turn_mutex
  // Touched only by the operation whose turn it is. The agreement check compares the
  // position among the collectives alone: a Send or Recv involves two ranks, so the others
  // do not count it.
  uint64_t collectives_run = 0;
  std::vector<uint64_t> sends_to, receives_from;  // point-to-point operations per peer (size entries)
  // HCCL_EXEC_TIMEOUT, read at init: seconds a wait for peers may last; 0 waits for ever.
  uint32_t exec_timeout_s = kDefaultExecTimeoutSeconds;
  // hcclDeterministic of the config (0 off, 1 or 2 on); NOT_SET: HCCL_DETERMINISTIC decides.
  uint32_t deterministic = HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET;
  // The first asynchronous error (a timeout), set on a stream worker and read by
  // HcclGetCommAsyncError and by every later operation, which fails at once with it: after
  // a timeout the MPI communicator holds operations that never completed, so it cannot
  // match anything any more.
  mutable std::mutex async_error_mutex;
  mutable HcclResult async_error = HCCL_SUCCESS;  // guarded by async_error_mutex
  mutable std::string async_error_sentence;        // guarded by async_error_mutex
  void SetAsyncError(HcclResult code, const std::string& sentence) const;
  // HCCL_SUCCESS, or the first asynchronous error and its sentence.
  HcclResult AsyncError(std::string* sentence = nullptr) const;
};

// A new communicator's settings: HCCL_EXEC_TIMEOUT and the deterministic mode, where a
// config made by HcclCommConfigInit overrides them (hcclExecTimeOut, hcclDeterministic).
struct CommSettings {
  uint32_t exec_timeout_s = kDefaultExecTimeoutSeconds;
  uint32_t deterministic = HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET;
};
// "" or why config (null: none, the environment alone) is refused.
std::string ReadConfig(const HcclCommConfig* config, CommSettings* settings);
// Enters a new communicator into the handle table.
HcclComm Register(std::shared_ptr<Communicator> created);
std::shared_ptr<Communicator> FindCommunicator(HcclComm handle);
// Also counts one more pending collective on it, under the table's lock, so that
// HcclCommDestroy either sees it pending or has already removed it.
std::shared_ptr<Communicator> FindAndCountPending(HcclComm handle);
HcclResult NotACommunicator(const char* api, HcclComm comm);

// ---------------------------------------------------------------------------------------
// Argument checks (arguments.cpp), shared by the entry points. Each returns HCCL_SUCCESS
// or the failure, with its sentence naming the API and the parameter.

HcclResult CheckStream(const char* api, aclrtStream stream);
HcclResult CheckPointer(const char* api, const char* parameter, const void* pointer);
// HCCL_E_PARA above kMaxCount.
HcclResult CheckCount(const char* api, const char* parameter, uint64_t count);
// The communicator (looked up for the root or rank checks that follow): HCCL_E_PARA for a
// stale handle.
HcclResult CheckCommunicator(const char* api, HcclComm comm, std::shared_ptr<Communicator>* found = nullptr);
// Every type HCCL moves without reducing: all defined ones but INT128.
HcclResult CheckMovableType(const char* api, HcclDataType type);
// A reducible type, PROD only for the types upstream allows it for, op within SUM..MIN.
HcclResult CheckReduction(const char* api, HcclDataType type, HcclReduceOp op);
HcclResult CheckRoot(const char* api, uint32_t root, uint32_t size);

// ---------------------------------------------------------------------------------------
// Execution (execution.cpp), the collectives (reduce.cpp: the reducing ones; gather.cpp: the
// moving ones; barrier.cpp) and the point-to-point operations (point_to_point.cpp), run on
// the stream's worker thread; each returns "" or the failure's sentence.

// Queues the collective on the stream behind every collective issued before it on the
// communicator; inside a group (group.cpp), records it for HcclGroupEnd instead.
HcclResult Enqueue(const char* api, HcclComm handle, aclrtStream stream, Collective op);
// Runs `body` on the calling thread as one of the communicator's operations (HcclCreateSubCommConfig):
// it takes the next position in issue order, waits for its turn, lets the agreement check
// confirm that every rank issued the same operation, runs body, passes the turn on. "" or
// the failure (the communicator's stored error, the agreement check's, or body's).
std::string RunOnCallerInTurn(Communicator& comm, const Collective& op, const std::function<std::string()>& body);
// Group calls (group.cpp): true when a group is open and the checked operation was recorded
// to be issued at the outermost HcclGroupEnd.
bool DeferToGroup(const char* api, HcclComm comm, aclrtStream stream, const Collective& op);
std::string RunAllReduce(const Communicator& comm, const Collective& op);
std::string RunAllGather(const Communicator& comm, const Collective& op);
std::string RunBroadcast(const Communicator& comm, const Collective& op);
std::string RunReduceScatter(const Communicator& comm, const Collective& op);
std::string RunReduce(const Communicator& comm, const Collective& op);
std::string RunScatter(const Communicator& comm, const Collective& op);
std::string RunPointToPoint(Communicator& comm, const Collective& op);
// What rank r sends rank j (send_counts[j] on r) must be what j expects from r
// (recv_counts[r] on j); "" or the failure, the same on every rank.
std::string CheckCountsPairUp(const Communicator& comm, const Collective& op);
// Block j of send (send_counts[j] elements at send_displs[j]) goes to rank j; rank r's block
// lands at recv_displs[r]. Pair by pair with non-blocking messages, in rounds of one chunk
// per pair (MPI counts are int); this rank's own block is a copy, so a single rank without
// MPI makes no MPI call.
std::string ExchangeBlocks(const Communicator& comm, const Collective& op);
// AlltoAll, AlltoAllV, AllGatherV (also on a single rank without MPI).
std::string RunAlltoAll(const Communicator& comm, const Collective& op);
// Also on a single rank without MPI.
std::string RunReduceScatterV(const Communicator& comm, const Collective& op);

}  // namespace hccl
}  // namespace oa
