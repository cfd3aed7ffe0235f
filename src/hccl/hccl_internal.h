// libhccl's internals, shared by its translation units (the HCCL subset on Open MPI,
// docs/hccl.md): messages, dtype tables, the MPI transport, communicators, the argument
// checks every entry point shares, and the execution of queued collectives.
#pragma once

#include <mpi.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

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

// ---------------------------------------------------------------------------------------
// Communicators (communicator.cpp).

enum class Kind : uint64_t { kAllReduce = 1, kAllGather = 2, kBroadcast = 3 };
const char* KindName(uint64_t kind);

struct Collective {
  Kind kind;
  unsigned char* send;
  unsigned char* recv;  // Broadcast: the buffer
  uint64_t count;
  HcclDataType type;
  HcclReduceOp op;   // AllReduce only (else SUM, so that descriptors compare)
  uint32_t root;     // Broadcast only (else 0)
  bool deterministic;
  uint64_t sequence;  // position among this communicator's collectives, in issue order
};

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
};

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
// Execution (execution.cpp) and the collectives (reduce.cpp, gather.cpp), run on the
// stream's worker thread; each returns "" or the failure's sentence.

// Queues the collective on the stream behind every collective issued before it on the
// communicator.
HcclResult Enqueue(const char* api, HcclComm handle, aclrtStream stream, Collective op);
std::string RunAllReduce(const Communicator& comm, const Collective& op);
std::string RunAllGather(const Communicator& comm, const Collective& op);
std::string RunBroadcast(const Communicator& comm, const Collective& op);

}  // namespace hccl
}  // namespace oa
