// The HCCL subset on Open MPI (docs/hccl.md, spec: hccl.md): communicators are MPI
// communicators split from MPI_COMM_WORLD, and each collective is a task queued on the
// caller's aclrtStream that runs MPI on the stream's worker thread, in stream order.
#include <mpi.h>
#include <strings.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <condition_variable>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/environment.h"
#include "core/half.h"
#include "hccl/hccl.h"
#include "runtime/error.h"
#include "runtime/handle_table.h"
#include "runtime/runtime.h"

#define HCCL_API extern "C" __attribute__((visibility("default")))

namespace oa {
namespace hccl {
namespace {

// SYS_MAX_COUNT of upstream's src/common/hccl_common.h.
constexpr uint64_t kMaxCount = 0x7FFFFFFFFull;

// ---------------------------------------------------------------------------------------
// Messages: every failure leaves a sentence for aclGetRecentErrMsg.

std::string VFormat(const char* format, va_list args) {
  char buffer[1024];
  std::vsnprintf(buffer, sizeof buffer, format, args);
  return buffer;
}

HcclResult Fail(HcclResult code, const char* format, ...) __attribute__((format(printf, 2, 3)));
HcclResult Fail(HcclResult code, const char* format, ...) {
  va_list args;
  va_start(args, format);
  const std::string message = VFormat(format, args);
  va_end(args);
  PushErrorMessage("%s", message.c_str());
  return code;
}

// Job-level failures (a bootstrap disagreement) also go to stderr: every rank prints the
// same line, which is what a user reading mpirun's output needs to see.
HcclResult FailLoudly(HcclResult code, const std::string& message) {
  std::fprintf(stderr, "HCCL: %s\n", message.c_str());
  PushErrorMessage("%s", message.c_str());
  return code;
}

const char* DataTypeName(uint64_t type) {
  switch (type) {
    case HCCL_DATA_TYPE_INT8: return "INT8";
    case HCCL_DATA_TYPE_INT16: return "INT16";
    case HCCL_DATA_TYPE_INT32: return "INT32";
    case HCCL_DATA_TYPE_FP16: return "FP16";
    case HCCL_DATA_TYPE_FP32: return "FP32";
    case HCCL_DATA_TYPE_INT64: return "INT64";
    case HCCL_DATA_TYPE_UINT64: return "UINT64";
    case HCCL_DATA_TYPE_UINT8: return "UINT8";
    case HCCL_DATA_TYPE_UINT16: return "UINT16";
    case HCCL_DATA_TYPE_UINT32: return "UINT32";
    case HCCL_DATA_TYPE_FP64: return "FP64";
    case HCCL_DATA_TYPE_BFP16: return "BFP16";
    case HCCL_DATA_TYPE_INT128: return "INT128";
    case HCCL_DATA_TYPE_HIF8: return "HIF8";
    case HCCL_DATA_TYPE_FP8E4M3: return "FP8E4M3";
    case HCCL_DATA_TYPE_FP8E5M2: return "FP8E5M2";
    case HCCL_DATA_TYPE_FP8E8M0: return "FP8E8M0";
    default: return nullptr;
  }
}

const char* ReduceOpName(uint64_t op) {
  static const char* const names[] = {"SUM", "PROD", "MAX", "MIN"};
  return op < 4 ? names[op] : "?";
}

// Bytes per element of a defined type; 0 for a value HcclDataType does not define.
size_t ElementSize(int type) {
  switch (type) {
    case HCCL_DATA_TYPE_INT8: case HCCL_DATA_TYPE_UINT8: case HCCL_DATA_TYPE_HIF8:
    case HCCL_DATA_TYPE_FP8E4M3: case HCCL_DATA_TYPE_FP8E5M2: case HCCL_DATA_TYPE_FP8E8M0:
      return 1;
    case HCCL_DATA_TYPE_INT16: case HCCL_DATA_TYPE_UINT16: case HCCL_DATA_TYPE_FP16: case HCCL_DATA_TYPE_BFP16:
      return 2;
    case HCCL_DATA_TYPE_INT32: case HCCL_DATA_TYPE_UINT32: case HCCL_DATA_TYPE_FP32:
      return 4;
    case HCCL_DATA_TYPE_INT64: case HCCL_DATA_TYPE_UINT64: case HCCL_DATA_TYPE_FP64:
      return 8;
    case HCCL_DATA_TYPE_INT128:
      return 16;
    default:
      return 0;
  }
}

bool Reducible(int type) {
  switch (type) {
    case HCCL_DATA_TYPE_INT8: case HCCL_DATA_TYPE_INT16: case HCCL_DATA_TYPE_INT32: case HCCL_DATA_TYPE_INT64:
    case HCCL_DATA_TYPE_UINT64: case HCCL_DATA_TYPE_FP16: case HCCL_DATA_TYPE_FP32: case HCCL_DATA_TYPE_FP64:
    case HCCL_DATA_TYPE_BFP16:
      return true;
    default:
      return false;
  }
}

bool ProductAllowed(int type) {
  switch (type) {
    case HCCL_DATA_TYPE_INT8: case HCCL_DATA_TYPE_INT32: case HCCL_DATA_TYPE_INT64: case HCCL_DATA_TYPE_UINT64:
    case HCCL_DATA_TYPE_FP16: case HCCL_DATA_TYPE_FP32: case HCCL_DATA_TYPE_FP64:
      return true;
    default:
      return false;
  }
}

bool FloatingType(HcclDataType type) {
  return type == HCCL_DATA_TYPE_FP16 || type == HCCL_DATA_TYPE_BFP16 || type == HCCL_DATA_TYPE_FP32 ||
         type == HCCL_DATA_TYPE_FP64;
}

std::string MpiErrorText(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) return "MPI error " + std::to_string(code);
  return std::string(text, static_cast<size_t>(length));
}

// ---------------------------------------------------------------------------------------
// User-defined reductions (commutative MPI operations):
// - fp16 / bf16: MPI has no half types, so they travel as MPI_UINT16_T and compute in fp32,
//   rounding every partial result;
// - MAX / MIN of every float type: MPI's built-in MAX / MIN of float and double drop a NaN
//   depending on which operand holds it (so on which rank), these propagate it always.

float HalfValue(uint16_t bits, bool bf16) { return bf16 ? Bf16ToFloat(bits) : HalfToFloat(bits); }
uint16_t HalfBits(float value, bool bf16) { return bf16 ? FloatToBf16(value) : FloatToHalf(value); }

template <typename T>
T Combine(HcclReduceOp op, T a, T b) {
  switch (op) {
    case HCCL_REDUCE_SUM: return a + b;
    case HCCL_REDUCE_PROD: return a * b;
    // NaN propagates from either operand, as in torch's max/min.
    case HCCL_REDUCE_MAX: return (a != a || a > b) ? a : b;
    default: return (a != a || a < b) ? a : b;
  }
}

template <HcclReduceOp kOp, bool kBf16>
void HalfReduce(void* in, void* inout, int* length, MPI_Datatype*) {
  const auto* source = static_cast<const uint16_t*>(in);
  auto* target = static_cast<uint16_t*>(inout);
  for (int i = 0; i < *length; ++i) {
    target[i] = HalfBits(Combine(kOp, HalfValue(source[i], kBf16), HalfValue(target[i], kBf16)), kBf16);
  }
}

template <HcclReduceOp kOp, typename T>
void FloatReduce(void* in, void* inout, int* length, MPI_Datatype*) {
  const auto* source = static_cast<const T*>(in);
  auto* target = static_cast<T*>(inout);
  for (int i = 0; i < *length; ++i) target[i] = Combine(kOp, source[i], target[i]);
}

// Index: [fp16, bf16, fp32, fp64][op]; fp32 and fp64 only for MAX and MIN.
enum CustomType { kFp16 = 0, kBf16 = 1, kFp32 = 2, kFp64 = 3 };
MPI_Op g_custom_ops[4][4];

template <HcclReduceOp kOp>
void CreateCustomOps() {
  MPI_Op_create(&HalfReduce<kOp, false>, 1, &g_custom_ops[kFp16][kOp]);
  MPI_Op_create(&HalfReduce<kOp, true>, 1, &g_custom_ops[kBf16][kOp]);
  if (kOp == HCCL_REDUCE_MAX || kOp == HCCL_REDUCE_MIN) {
    MPI_Op_create(&FloatReduce<kOp, float>, 1, &g_custom_ops[kFp32][kOp]);
    MPI_Op_create(&FloatReduce<kOp, double>, 1, &g_custom_ops[kFp64][kOp]);
  }
}

void CreateCustomOps() {
  CreateCustomOps<HCCL_REDUCE_SUM>();
  CreateCustomOps<HCCL_REDUCE_PROD>();
  CreateCustomOps<HCCL_REDUCE_MAX>();
  CreateCustomOps<HCCL_REDUCE_MIN>();
}

void MpiTypeAndOp(HcclDataType type, HcclReduceOp op, MPI_Datatype* mpi_type, MPI_Op* mpi_op) {
  static const MPI_Op builtin[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN};
  *mpi_op = builtin[op];
  const bool max_or_min = op == HCCL_REDUCE_MAX || op == HCCL_REDUCE_MIN;
  switch (type) {
    case HCCL_DATA_TYPE_INT8: *mpi_type = MPI_INT8_T; break;
    case HCCL_DATA_TYPE_INT16: *mpi_type = MPI_INT16_T; break;
    case HCCL_DATA_TYPE_INT32: *mpi_type = MPI_INT32_T; break;
    case HCCL_DATA_TYPE_INT64: *mpi_type = MPI_INT64_T; break;
    case HCCL_DATA_TYPE_UINT64: *mpi_type = MPI_UINT64_T; break;
    case HCCL_DATA_TYPE_FP32:
      *mpi_type = MPI_FLOAT;
      if (max_or_min) *mpi_op = g_custom_ops[kFp32][op];
      break;
    case HCCL_DATA_TYPE_FP64:
      *mpi_type = MPI_DOUBLE;
      if (max_or_min) *mpi_op = g_custom_ops[kFp64][op];
      break;
    default:  // FP16, BFP16
      *mpi_type = MPI_UINT16_T;
      *mpi_op = g_custom_ops[type == HCCL_DATA_TYPE_BFP16 ? kBf16 : kFp16][op];
      break;
  }
}

// ---------------------------------------------------------------------------------------
// Transport: MPI when the process belongs to an MPI job, else a local singleton.

std::mutex g_mpi_mutex;
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

// ---------------------------------------------------------------------------------------
// Communicators.

enum class Kind : uint64_t { kAllReduce = 1, kAllGather = 2, kBroadcast = 3 };

const char* KindName(uint64_t kind) {
  switch (static_cast<Kind>(kind)) {
    case Kind::kAllReduce: return "HcclAllReduce";
    case Kind::kAllGather: return "HcclAllGather";
    case Kind::kBroadcast: return "HcclBroadcast";
  }
  return "an unknown collective";
}

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

std::mutex g_communicators_mutex;
HandleTable<Communicator>& Communicators() {
  static auto* communicators = new HandleTable<Communicator>;
  return *communicators;
}

std::shared_ptr<Communicator> FindCommunicator(HcclComm handle) {
  std::lock_guard<std::mutex> lock(g_communicators_mutex);
  return Communicators().Find(handle);
}

HcclResult NotACommunicator(const char* api, HcclComm comm) {
  return Fail(HCCL_E_PARA, "%s: comm %p is not a live communicator (destroyed, or never made by HcclCommInitRootInfo)",
              api, comm);
}

// ---------------------------------------------------------------------------------------
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

// ---------------------------------------------------------------------------------------
// Execution, on the stream's worker thread.

std::string DescribeDescriptor(const uint64_t* d) {
  std::string text = std::string(KindName(d[2])) + "(count=" + std::to_string(d[3]) + ", dataType=";
  const char* type = DataTypeName(d[4]);
  text += type != nullptr ? type : std::to_string(d[4]);
  if (static_cast<Kind>(d[2]) == Kind::kAllReduce) text += std::string(", op=") + ReduceOpName(d[5]);
  if (static_cast<Kind>(d[2]) == Kind::kBroadcast) text += ", root=" + std::to_string(d[6]);
  if (d[7] != 0) text += ", deterministic";
  return text + ")";
}

// Every rank contributes a descriptor of the collective it is about to run; a rank that
// differs makes all ranks skip the data exchange and report the same failure, instead of
// MPI corrupting memory (count mismatch) or hanging (different collective).
std::string CheckAgreement(const Communicator& comm, const Collective& op) {
  constexpr int kFields = 8;
  const uint64_t mine[kFields] = {0x6863636c64657363ull, op.sequence, static_cast<uint64_t>(op.kind), op.count,
                                  static_cast<uint64_t>(op.type), static_cast<uint64_t>(op.op), op.root,
                                  op.deterministic ? 1u : 0u};
  std::vector<uint64_t> all(static_cast<size_t>(comm.size) * kFields);
  const int status = MPI_Allgather(mine, kFields, MPI_UINT64_T, all.data(), kFields, MPI_UINT64_T, comm.mpi);
  if (status != MPI_SUCCESS) return "exchanging the collective's descriptor failed: " + MpiErrorText(status);
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

template <typename T>
double AsDouble(const unsigned char* p) {
  T value;
  std::memcpy(&value, p, sizeof value);
  return static_cast<double>(value);
}

// Deterministic floating sum or product: every rank's operand is gathered, then combined
// in rank order 0, 1, ..., W-1 (fp16/bf16 accumulated in fp32 and rounded once, fp32 in
// fp32, fp64 in fp64), so the bits depend neither on the MPI algorithm nor on the run.
std::string OrderedReduce(const Communicator& comm, const Collective& op, uint64_t offset, uint64_t length) {
  const size_t element = ElementSize(op.type);
  const size_t block = static_cast<size_t>(length) * element;
  std::vector<unsigned char> gathered(block * comm.size);
  const unsigned char* source = (op.send == op.recv ? op.recv : op.send) + offset * element;
  const int status =
      MPI_Allgather(source, static_cast<int>(block), MPI_BYTE, gathered.data(), static_cast<int>(block), MPI_BYTE, comm.mpi);
  if (status != MPI_SUCCESS) return "MPI_Allgather failed: " + MpiErrorText(status);
  unsigned char* target = op.recv + offset * element;
  const bool sum = op.op == HCCL_REDUCE_SUM;
  for (uint64_t i = 0; i < length; ++i) {
    const unsigned char* first = &gathered[i * element];
    if (op.type == HCCL_DATA_TYPE_FP64) {
      double accumulator = AsDouble<double>(first);
      for (uint32_t r = 1; r < comm.size; ++r) {
        const double value = AsDouble<double>(first + r * block);
        accumulator = sum ? accumulator + value : accumulator * value;
      }
      std::memcpy(target + i * element, &accumulator, element);
    } else if (op.type == HCCL_DATA_TYPE_FP32) {
      float accumulator = static_cast<float>(AsDouble<float>(first));
      for (uint32_t r = 1; r < comm.size; ++r) {
        const float value = static_cast<float>(AsDouble<float>(first + r * block));
        accumulator = sum ? accumulator + value : accumulator * value;
      }
      std::memcpy(target + i * element, &accumulator, element);
    } else {
      const bool bf16 = op.type == HCCL_DATA_TYPE_BFP16;
      uint16_t bits;
      std::memcpy(&bits, first, 2);
      float accumulator = HalfValue(bits, bf16);
      for (uint32_t r = 1; r < comm.size; ++r) {
        std::memcpy(&bits, first + r * block, 2);
        const float value = HalfValue(bits, bf16);
        accumulator = sum ? accumulator + value : accumulator * value;
      }
      bits = HalfBits(accumulator, bf16);
      std::memcpy(target + i * element, &bits, 2);
    }
  }
  return "";
}

// The ordered path gathers W operands per element: smaller chunks bound that buffer
// (W x 4 MiB for fp32) without costing SyncBN's short vectors anything.
constexpr uint64_t kOrderedChunkElements = uint64_t{1} << 20;

std::string RunAllReduce(const Communicator& comm, const Collective& op) {
  const size_t element = ElementSize(op.type);
  const bool ordered = op.deterministic && FloatingType(op.type) &&
                       (op.op == HCCL_REDUCE_SUM || op.op == HCCL_REDUCE_PROD);
  const uint64_t chunk = ordered ? std::min(ChunkElements(element), kOrderedChunkElements) : ChunkElements(element);
  MPI_Datatype mpi_type;
  MPI_Op mpi_op;
  MpiTypeAndOp(op.type, op.op, &mpi_type, &mpi_op);
  for (uint64_t offset = 0; offset < op.count; offset += chunk) {
    const uint64_t length = std::min(chunk, op.count - offset);
    if (ordered) {
      std::string failure = OrderedReduce(comm, op, offset, length);
      if (!failure.empty()) return failure;
      continue;
    }
    const void* source = op.send == op.recv ? MPI_IN_PLACE : op.send + offset * element;
    const int status =
        MPI_Allreduce(source, op.recv + offset * element, static_cast<int>(length), mpi_type, mpi_op, comm.mpi);
    if (status != MPI_SUCCESS) return "MPI_Allreduce failed: " + MpiErrorText(status);
  }
  return "";
}

std::string RunAllGather(const Communicator& comm, const Collective& op) {
  const size_t element = ElementSize(op.type);
  const uint64_t block_bytes = op.count * element;
  // The caller may pass its own block inside recvBuf as sendBuf: MPI's in-place form.
  const bool in_place = op.send == op.recv + comm.rank * block_bytes;
  if (block_bytes <= static_cast<uint64_t>(INT_MAX) && ChunkElements(element) >= op.count) {
    const int bytes = static_cast<int>(block_bytes);
    const int status = MPI_Allgather(in_place ? MPI_IN_PLACE : op.send, bytes, MPI_BYTE, op.recv, bytes, MPI_BYTE, comm.mpi);
    return status == MPI_SUCCESS ? "" : "MPI_Allgather failed: " + MpiErrorText(status);
  }
  // Large blocks go in chunks: chunk c of every rank lands at r * block + c's offset, which
  // a receive type of one chunk resized to the whole block's extent expresses.
  const uint64_t chunk = ChunkElements(element);
  for (uint64_t offset = 0; offset < op.count; offset += chunk) {
    const uint64_t length = std::min(chunk, op.count - offset);
    const int bytes = static_cast<int>(length * element);
    MPI_Datatype piece, spaced;
    MPI_Type_contiguous(bytes, MPI_BYTE, &piece);
    MPI_Type_create_resized(piece, 0, static_cast<MPI_Aint>(block_bytes), &spaced);
    MPI_Type_commit(&spaced);
    const int status = MPI_Allgather(in_place ? MPI_IN_PLACE : op.send + offset * element, bytes, MPI_BYTE,
                                     op.recv + offset * element, 1, spaced, comm.mpi);
    MPI_Type_free(&spaced);
    MPI_Type_free(&piece);
    if (status != MPI_SUCCESS) return "MPI_Allgather failed: " + MpiErrorText(status);
  }
  return "";
}

std::string RunBroadcast(const Communicator& comm, const Collective& op) {
  const size_t element = ElementSize(op.type);
  const uint64_t chunk = ChunkElements(element);
  for (uint64_t offset = 0; offset < op.count; offset += chunk) {
    const uint64_t length = std::min(chunk, op.count - offset);
    const int status = MPI_Bcast(op.recv + offset * element, static_cast<int>(length * element), MPI_BYTE,
                                 static_cast<int>(op.root), comm.mpi);
    if (status != MPI_SUCCESS) return "MPI_Bcast failed: " + MpiErrorText(status);
  }
  return "";
}

// A single-rank communicator without MPI: the result is the rank's own data.
std::string RunLocally(const Collective& op) {
  if (op.kind != Kind::kBroadcast && op.send != op.recv) {
    std::memmove(op.recv, op.send, op.count * ElementSize(op.type));
  }
  return "";
}

std::string ExecuteInTurn(const Communicator& comm, const Collective& op) {
  if (!comm.use_mpi) return RunLocally(op);
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return "MPI is already finalized";
  std::string failure = CheckAgreement(comm, op);
  if (!failure.empty()) return failure;
  switch (op.kind) {
    case Kind::kAllReduce: return RunAllReduce(comm, op);
    case Kind::kAllGather: return RunAllGather(comm, op);
    case Kind::kBroadcast: return RunBroadcast(comm, op);
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

HcclResult Enqueue(const char* api, HcclComm handle, aclrtStream stream, Collective op) {
  std::shared_ptr<Communicator> comm;
  {
    // Counted as pending under the table's lock, so HcclCommDestroy either sees it pending
    // or has already removed the communicator.
    std::lock_guard<std::mutex> lock(g_communicators_mutex);
    comm = Communicators().Find(handle);
    if (!comm) return NotACommunicator(api, handle);
    if (op.kind == Kind::kBroadcast && op.root >= comm->size) {
      return Fail(HCCL_E_PARA, "%s: root %u must be below the rank size %u", api, op.root, comm->size);
    }
    comm->pending.fetch_add(1);
  }
  // Only reductions depend on the mode; for the others it stays out of the agreement check.
  op.deterministic = op.kind == Kind::kAllReduce && DeterministicRequested();
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

}  // namespace
}  // namespace hccl
}  // namespace oa

using oa::hccl::Fail;

HCCL_API const char* HcclGetErrorString(HcclResult code) {
  switch (code) {
    case HCCL_SUCCESS: return "HCCL_SUCCESS";
    case HCCL_E_PARA: return "HCCL_E_PARA";
    case HCCL_E_PTR: return "HCCL_E_PTR";
    case HCCL_E_MEMORY: return "HCCL_E_MEMORY";
    case HCCL_E_INTERNAL: return "HCCL_E_INTERNAL";
    case HCCL_E_NOT_SUPPORT: return "HCCL_E_NOT_SUPPORT";
    case HCCL_E_NOT_FOUND: return "HCCL_E_NOT_FOUND";
    case HCCL_E_UNAVAIL: return "HCCL_E_UNAVAIL";
    case HCCL_E_SYSCALL: return "HCCL_E_SYSCALL";
    case HCCL_E_TIMEOUT: return "HCCL_E_TIMEOUT";
    case HCCL_E_OPEN_FILE_FAILURE: return "HCCL_E_OPEN_FILE_FAILURE";
    case HCCL_E_TCP_CONNECT: return "HCCL_E_TCP_CONNECT";
    case HCCL_E_ROCE_CONNECT: return "HCCL_E_ROCE_CONNECT";
    case HCCL_E_TCP_TRANSFER: return "HCCL_E_TCP_TRANSFER";
    case HCCL_E_ROCE_TRANSFER: return "HCCL_E_ROCE_TRANSFER";
    case HCCL_E_RUNTIME: return "HCCL_E_RUNTIME";
    case HCCL_E_DRV: return "HCCL_E_DRV";
    case HCCL_E_PROFILING: return "HCCL_E_PROFILING";
    case HCCL_E_CCE: return "HCCL_E_CCE";
    case HCCL_E_NETWORK: return "HCCL_E_NETWORK";
    case HCCL_E_AGAIN: return "HCCL_E_AGAIN";
    case HCCL_E_REMOTE: return "HCCL_E_REMOTE";
    case HCCL_E_SUSPENDING: return "HCCL_E_SUSPENDING";
    case HCCL_E_OPRETRY_FAIL: return "HCCL_E_OPRETRY_FAIL";
    case HCCL_E_OOM: return "HCCL_E_OOM";
    case HCCL_E_IN_STATUS: return "HCCL_E_IN_STATUS";
    case HCCL_E_RESERVED: return "HCCL_E_RESERVED";
  }
  return "unknown HcclResult";
}

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

HCCL_API HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo* rootInfo, uint32_t rank,
                                         HcclComm* comm) {
  using namespace oa::hccl;
  static const char* const api = "HcclCommInitRootInfo";
  if (rootInfo == nullptr) return Fail(HCCL_E_PTR, "%s: rootInfo must not be null", api);
  if (comm == nullptr) return Fail(HCCL_E_PTR, "%s: comm must not be null", api);
  bool use_mpi = false;
  if (HcclResult status = EnsureTransport(api, &use_mpi)) return status;

  RootInfoContents contents;
  std::memcpy(&contents, rootInfo->internal, sizeof contents);
  // Argument problems are found here but reported only after the exchange, so that every
  // rank fails together instead of some waiting for ever for the one that returned early.
  enum Problem : uint64_t { kNone = 0, kZeroRanks, kRankOutOfRange, kNotARootInfo };
  Problem problem = kNone;
  if (nRanks == 0) {
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

  auto created = std::make_shared<Communicator>();
  created->rank = rank;
  created->size = nRanks;
  created->use_mpi = use_mpi;
  aclrtContext context = nullptr;
  if (aclrtGetCurrentContext(&context) == ACL_SUCCESS) created->context = context;
  if (use_mpi) {
    // Ordered by the HCCL rank, which may differ from the world rank.
    int status = MPI_Comm_split(MPI_COMM_WORLD, 0, static_cast<int>(rank), &created->mpi);
    if (status != MPI_SUCCESS) {
      return Fail(HCCL_E_INTERNAL, "%s: MPI_Comm_split failed: %s", api, MpiErrorText(status).c_str());
    }
    // Failures inside a collective become a stream failure instead of aborting the job.
    MPI_Comm_set_errhandler(created->mpi, MPI_ERRORS_RETURN);
  }
  std::lock_guard<std::mutex> lock(g_communicators_mutex);
  *comm = Communicators().Insert(std::move(created));
  return HCCL_SUCCESS;
}

HCCL_API HcclResult HcclCommInitClusterInfo(const char* clusterInfo, uint32_t rank, HcclComm* comm) {
  if (clusterInfo == nullptr) return Fail(HCCL_E_PTR, "HcclCommInitClusterInfo: clusterInfo must not be null");
  if (comm == nullptr) return Fail(HCCL_E_PTR, "HcclCommInitClusterInfo: comm must not be null");
  return Fail(HCCL_E_NOT_SUPPORT,
              "HcclCommInitClusterInfo: rank tables are not supported (rank %u, file '%.200s'); use HcclGetRootInfo "
              "and HcclCommInitRootInfo under mpirun", rank, clusterInfo);
}

HCCL_API HcclResult HcclGetRankSize(HcclComm comm, uint32_t* rankSize) {
  using namespace oa::hccl;
  if (comm == nullptr) return Fail(HCCL_E_PTR, "HcclGetRankSize: comm must not be null");
  if (rankSize == nullptr) return Fail(HCCL_E_PTR, "HcclGetRankSize: rankSize must not be null");
  std::shared_ptr<Communicator> found = FindCommunicator(comm);
  if (!found) return NotACommunicator("HcclGetRankSize", comm);
  *rankSize = found->size;
  return HCCL_SUCCESS;
}

HCCL_API HcclResult HcclGetRankId(HcclComm comm, uint32_t* rank) {
  using namespace oa::hccl;
  if (comm == nullptr) return Fail(HCCL_E_PTR, "HcclGetRankId: comm must not be null");
  if (rank == nullptr) return Fail(HCCL_E_PTR, "HcclGetRankId: rank must not be null");
  std::shared_ptr<Communicator> found = FindCommunicator(comm);
  if (!found) return NotACommunicator("HcclGetRankId", comm);
  *rank = found->rank;
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

HCCL_API HcclResult HcclAllReduce(void* sendBuf, void* recvBuf, uint64_t count, HcclDataType dataType,
                                  HcclReduceOp op, HcclComm comm, aclrtStream stream) {
  using namespace oa::hccl;
  static const char* const api = "HcclAllReduce";
  if (count == 0) return HCCL_SUCCESS;  // upstream: before any other check
  if (stream == nullptr) return Fail(HCCL_E_PTR, "%s: stream must not be null (HCCL has no default stream)", api);
  if (comm == nullptr) return Fail(HCCL_E_PTR, "%s: comm must not be null", api);
  if (sendBuf == nullptr) return Fail(HCCL_E_PTR, "%s: sendBuf must not be null", api);
  if (recvBuf == nullptr) return Fail(HCCL_E_PTR, "%s: recvBuf must not be null", api);
  if (count > kMaxCount) {
    return Fail(HCCL_E_PARA, "%s: count %llu exceeds the maximum 0x7FFFFFFFF", api, static_cast<unsigned long long>(count));
  }
  // A stale handle is reported at the same point in all three collectives (Broadcast needs
  // the communicator for its root check); Enqueue checks again under its lock.
  if (!FindCommunicator(comm)) return NotACommunicator(api, comm);
  // The enums' int bits until validated (oa::EnumBits: a caller may pass any int).
  const int type_bits = oa::EnumBits(dataType), op_bits = oa::EnumBits(op);
  if (!Reducible(type_bits)) {
    const char* name = DataTypeName(static_cast<uint64_t>(type_bits));
    return Fail(HCCL_E_NOT_SUPPORT, "%s: dataType %s (%d) cannot be reduced; use INT8, INT16, INT32, INT64, UINT64, "
                "FP16, FP32, FP64 or BFP16", api, name != nullptr ? name : "undefined", type_bits);
  }
  if (op_bits == HCCL_REDUCE_PROD && !ProductAllowed(type_bits)) {
    return Fail(HCCL_E_NOT_SUPPORT, "%s: op PROD is not supported for dataType %s", api, DataTypeName(dataType));
  }
  if (static_cast<uint32_t>(op_bits) > static_cast<uint32_t>(HCCL_REDUCE_MIN)) {
    return Fail(HCCL_E_PARA, "%s: op %d is not SUM, PROD, MAX or MIN", api, op_bits);
  }
  Collective collective{Kind::kAllReduce, static_cast<unsigned char*>(sendBuf), static_cast<unsigned char*>(recvBuf),
                        count, dataType, op, 0, false, 0};
  return Enqueue(api, comm, stream, collective);
}

HCCL_API HcclResult HcclAllGather(void* sendBuf, void* recvBuf, uint64_t sendCount, HcclDataType dataType,
                                  HcclComm comm, aclrtStream stream) {
  using namespace oa::hccl;
  static const char* const api = "HcclAllGather";
  if (sendCount == 0) return HCCL_SUCCESS;
  if (stream == nullptr) return Fail(HCCL_E_PTR, "%s: stream must not be null (HCCL has no default stream)", api);
  if (comm == nullptr) return Fail(HCCL_E_PTR, "%s: comm must not be null", api);
  if (sendBuf == nullptr) return Fail(HCCL_E_PTR, "%s: sendBuf must not be null", api);
  if (recvBuf == nullptr) return Fail(HCCL_E_PTR, "%s: recvBuf must not be null", api);
  if (sendCount > kMaxCount) {
    return Fail(HCCL_E_PARA, "%s: sendCount %llu exceeds the maximum 0x7FFFFFFFF", api,
                static_cast<unsigned long long>(sendCount));
  }
  if (!FindCommunicator(comm)) return NotACommunicator(api, comm);
  const int type_bits = oa::EnumBits(dataType);  // until validated (a caller may pass any int)
  if (ElementSize(type_bits) == 0 || type_bits == HCCL_DATA_TYPE_INT128) {
    const char* name = DataTypeName(static_cast<uint64_t>(type_bits));
    return Fail(HCCL_E_NOT_SUPPORT, "%s: dataType %s (%d) is not supported", api, name != nullptr ? name : "undefined",
                type_bits);
  }
  Collective collective{Kind::kAllGather, static_cast<unsigned char*>(sendBuf), static_cast<unsigned char*>(recvBuf),
                        sendCount, dataType, HCCL_REDUCE_SUM, 0, false, 0};
  return Enqueue(api, comm, stream, collective);
}

HCCL_API HcclResult HcclBroadcast(void* buf, uint64_t count, HcclDataType dataType, uint32_t root, HcclComm comm,
                                  aclrtStream stream) {
  using namespace oa::hccl;
  static const char* const api = "HcclBroadcast";
  if (count == 0) return HCCL_SUCCESS;
  if (comm == nullptr) return Fail(HCCL_E_PTR, "%s: comm must not be null", api);
  if (buf == nullptr) return Fail(HCCL_E_PTR, "%s: buf must not be null", api);
  if (stream == nullptr) return Fail(HCCL_E_PTR, "%s: stream must not be null (HCCL has no default stream)", api);
  if (count > kMaxCount) {
    return Fail(HCCL_E_PARA, "%s: count %llu exceeds the maximum 0x7FFFFFFFF", api, static_cast<unsigned long long>(count));
  }
  // Upstream checks root against the rank size before the type, so the communicator is
  // looked up here already (Enqueue looks again under the lock that counts the work).
  std::shared_ptr<Communicator> found = FindCommunicator(comm);
  if (!found) return NotACommunicator(api, comm);
  if (root >= found->size) return Fail(HCCL_E_PARA, "%s: root %u must be below the rank size %u", api, root, found->size);
  const int type_bits = oa::EnumBits(dataType);  // until validated (a caller may pass any int)
  if (ElementSize(type_bits) == 0 || type_bits == HCCL_DATA_TYPE_INT128) {
    const char* name = DataTypeName(static_cast<uint64_t>(type_bits));
    return Fail(HCCL_E_NOT_SUPPORT, "%s: dataType %s (%d) is not supported", api, name != nullptr ? name : "undefined",
                type_bits);
  }
  Collective collective{Kind::kBroadcast, nullptr, static_cast<unsigned char*>(buf), count, dataType, HCCL_REDUCE_SUM,
                        root, false, 0};
  return Enqueue(api, comm, stream, collective);
}
