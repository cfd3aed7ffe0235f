// HCCL under mpirun (tests/hccl/CMakeLists.txt runs it for W = 1..4). One program, one
// scenario per first argument; every rank checks its own results and the job agrees on
// the verdict, so mpirun's exit status is the test's.
//
//   collectives           CANN-style bootstrap (MPI_Init, rank 0 HcclGetRootInfo, MPI_Bcast of
//                         the 4108 bytes, HcclCommInitRootInfo), then AllReduce,
//                         ReduceScatter(V) and Reduce for every type and op, AllGather(V),
//                         Broadcast and Scatter from every root, Barrier,
//                         a Send/Recv ring (also inside a group), sub-communicators
//                         (pairs running different collectives; bad rank lists), BatchSendRecv, AlltoAll, AlltoAllV with uneven
//                         blocks, stream
//                         order with operator work before and after,
//                         the default and deterministic floating sums
//   no-mpi-calls DIR      the program never calls MPI: libhccl initializes (and aclFinalize
//                         finalizes) it; the root info travels through a file in DIR
//   bootstrap CASE        disagreeing HcclCommInitRootInfo calls: every rank gets HCCL_E_PARA
//   mismatch              different count / dataType / collective on two ranks: every rank's
//                         aclrtSynchronizeStream reports the failure, later collectives work;
//                         Reduce to different roots, AlltoAllV counts that do not pair up; a Send and a Recv that
//                         disagree (alone or in a batch) fail on both sides, moving nothing
//   pending-destroy       HcclCommDestroy with a collective pending: HCCL_E_AGAIN
//   deterministic-digest  prints a digest of deterministic sums (two runs must agree)
//   refused-retry         a collective refused on rank 0 (destroyed stream) leaves the communicator
//                         usable: the next ones succeed on every rank
//   two-streams           #0 on stream 1, #1 on stream 2, one rank's stream 1 busy: issue order holds
//                         (AllReduce; then ReduceScatter and a Send/Recv pair against AlltoAll)
//   nan-max-min           MAX/MIN of every float type propagate a NaN from any rank (AllReduce,
//                         ReduceScatter, Reduce, ReduceScatterV)
//   fault exit|abort      the last rank dies before a collective; mpirun must end the job
//   exec-timeout          HCCL_EXEC_TIMEOUT=1: a Recv whose Send never comes (on a sub-communicator
//                         whose config sets hcclExecTimeOut=1 over HCCL_EXEC_TIMEOUT=0) and a
//                         collective the last rank skips fail on the waiting ranks within the
//                         timeout and a margin; HcclGetCommAsyncError before and after; later
//                         calls fail
#include <mpi.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_batch_norm_stats.h"
#include "core/half.h"
#include "hccl/hccl.h"

namespace {

int g_rank = 0;
int g_size = 1;
int g_failures = 0;

void Failure(const char* format, ...) __attribute__((format(printf, 1, 2)));
void Failure(const char* format, ...) {
  va_list args;
  va_start(args, format);
  std::fprintf(stderr, "rank %d: FAILED: ", g_rank);
  std::vfprintf(stderr, format, args);
  std::fprintf(stderr, "\n");
  va_end(args);
  ++g_failures;
}

#define EXPECT(cond, ...)          \
  do {                             \
    if (!(cond)) Failure(__VA_ARGS__); \
  } while (0)

#define REQUIRE_HCCL(call)                                                                        \
  do {                                                                                            \
    HcclResult status_ = (call);                                                                  \
    if (status_ != HCCL_SUCCESS) {                                                                \
      Failure("%s returned %s: %s", #call, HcclGetErrorString(status_), aclGetRecentErrMsg());    \
      return;                                                                                     \
    }                                                                                             \
  } while (0)

#define REQUIRE_ACL(call)                                                                         \
  do {                                                                                            \
    aclError status_ = (call);                                                                    \
    if (status_ != ACL_SUCCESS) {                                                                 \
      Failure("%s returned %d: %s", #call, static_cast<int>(status_), aclGetRecentErrMsg());      \
      return;                                                                                     \
    }                                                                                             \
  } while (0)

// ---------------------------------------------------------------------------------------
// Typed storage: every rank can compute every rank's input, hence the expected result.

template <typename T>
struct Plain {
  using Storage = T;
  static Storage From(double value) { return static_cast<T>(value); }
  static double To(Storage bits) { return static_cast<double>(bits); }
};
struct Fp16 {
  using Storage = uint16_t;
  static Storage From(double value) { return oa::FloatToHalf(static_cast<float>(value)); }
  static double To(Storage bits) { return oa::HalfToFloat(bits); }
};
struct Bf16 {
  using Storage = uint16_t;
  static Storage From(double value) { return oa::FloatToBf16(static_cast<float>(value)); }
  static double To(Storage bits) { return oa::Bf16ToFloat(bits); }
};

// Inputs chosen so that every result is exact in every type and any summation order:
// small multiples of 1/4 for sums, max and min (unsigned: non-negative), and ±1, 2, 1/2 for
// products (integers: ±1, 2).
double ExactInput(HcclReduceOp op, bool is_unsigned, bool is_integer, int rank, uint64_t i) {
  const uint64_t h = (static_cast<uint64_t>(rank) * 2654435761u + i * 40503u + 17u) % 97u;
  if (op == HCCL_REDUCE_PROD) {
    static const double factors[] = {1.0, -1.0, 2.0, 0.5};
    double factor = factors[h % 4];
    if (is_integer && factor == 0.5) factor = 1.0;
    if (is_unsigned && factor < 0) factor = 2.0;
    return factor;
  }
  double value = static_cast<double>(h % 32) - (is_unsigned ? 0.0 : 16.0);
  if (!is_integer) value /= 4.0;
  return value;
}

double Reduce(HcclReduceOp op, double a, double b) {
  switch (op) {
    case HCCL_REDUCE_SUM: return a + b;
    case HCCL_REDUCE_PROD: return a * b;
    case HCCL_REDUCE_MAX: return a > b ? a : b;
    default: return a < b ? a : b;
  }
}

// The reduction over all ranks of their exact input number i.
double ExpectedReduction(HcclReduceOp op, bool is_unsigned, bool is_integer, uint64_t i) {
  double expected = ExactInput(op, is_unsigned, is_integer, 0, i);
  for (int r = 1; r < g_size; ++r) expected = Reduce(op, expected, ExactInput(op, is_unsigned, is_integer, r, i));
  return expected;
}

template <typename Type>
void CheckAllReduce(HcclComm comm, aclrtStream stream, HcclDataType type, HcclReduceOp op, bool is_integer,
                    bool is_unsigned, uint64_t count, bool in_place) {
  using Storage = typename Type::Storage;
  std::vector<Storage> send(count), recv(count);
  for (uint64_t i = 0; i < count; ++i) send[i] = Type::From(ExactInput(op, is_unsigned, is_integer, g_rank, i));
  Storage* target = in_place ? send.data() : recv.data();
  REQUIRE_HCCL(HcclAllReduce(send.data(), target, count, type, op, comm, stream));
  REQUIRE_ACL(aclrtSynchronizeStream(stream));
  for (uint64_t i = 0; i < count; ++i) {
    const double expected = ExpectedReduction(op, is_unsigned, is_integer, i);
    const Storage want = Type::From(expected);
    if (std::memcmp(&target[i], &want, sizeof want) != 0) {
      Failure("AllReduce type %d op %d count %llu%s: element %llu is %g, expected %g", type, op,
              static_cast<unsigned long long>(count), in_place ? " in place" : "", static_cast<unsigned long long>(i),
              Type::To(target[i]), expected);
      return;
    }
  }
}

// Every rank's sendBuf holds W blocks of count elements, element j of it exact input j;
// this rank receives the reduction of block g_rank, i.e. of inputs g_rank * count + i.
template <typename Type>
void CheckReduceScatter(HcclComm comm, aclrtStream stream, HcclDataType type, HcclReduceOp op, bool is_integer,
                        bool is_unsigned, uint64_t count, bool in_place) {
  using Storage = typename Type::Storage;
  std::vector<Storage> send(count * g_size), recv(count);
  for (uint64_t j = 0; j < send.size(); ++j) send[j] = Type::From(ExactInput(op, is_unsigned, is_integer, g_rank, j));
  Storage* target = in_place ? send.data() : recv.data();
  REQUIRE_HCCL(HcclReduceScatter(send.data(), target, count, type, op, comm, stream));
  REQUIRE_ACL(aclrtSynchronizeStream(stream));
  for (uint64_t i = 0; i < count; ++i) {
    const double expected = ExpectedReduction(op, is_unsigned, is_integer, g_rank * count + i);
    const Storage want = Type::From(expected);
    if (std::memcmp(&target[i], &want, sizeof want) != 0) {
      Failure("ReduceScatter type %d op %d recvCount %llu%s: element %llu is %g, expected %g", type, op,
              static_cast<unsigned long long>(count), in_place ? " in place" : "", static_cast<unsigned long long>(i),
              Type::To(target[i]), expected);
      return;
    }
  }
  if (!in_place) {
    // The input is left alone.
    EXPECT(send[count * g_size - 1] == Type::From(ExactInput(op, is_unsigned, is_integer, g_rank, count * g_size - 1)),
           "ReduceScatter type %d op %d wrote into sendBuf", type, op);
  }
}

// Only the root's recvBuf receives the reduction; the others' keep their fill.
template <typename Type>
void CheckReduce(HcclComm comm, aclrtStream stream, HcclDataType type, HcclReduceOp op, bool is_integer,
                 bool is_unsigned, uint64_t count, bool in_place, int root) {
  using Storage = typename Type::Storage;
  const Storage fill = Type::From(3.0);
  std::vector<Storage> send(count), recv(count, fill);
  for (uint64_t i = 0; i < count; ++i) send[i] = Type::From(ExactInput(op, is_unsigned, is_integer, g_rank, i));
  Storage* target = in_place ? send.data() : recv.data();
  REQUIRE_HCCL(HcclReduce(send.data(), target, count, type, op, static_cast<uint32_t>(root), comm, stream));
  REQUIRE_ACL(aclrtSynchronizeStream(stream));
  for (uint64_t i = 0; i < count; ++i) {
    const double expected = g_rank == root ? ExpectedReduction(op, is_unsigned, is_integer, i)
                                           : in_place ? ExactInput(op, is_unsigned, is_integer, g_rank, i) : 3.0;
    const Storage want = Type::From(expected);
    if (std::memcmp(&target[i], &want, sizeof want) != 0) {
      Failure("Reduce to root %d type %d op %d count %llu%s: element %llu is %g, expected %g", root, type, op,
              static_cast<unsigned long long>(count), in_place ? " in place" : "", static_cast<unsigned long long>(i),
              Type::To(target[i]), expected);
      return;
    }
  }
}

// Uneven V blocks: rank j's block has VCount(j) elements (an empty one, one the chunked run
// splits). Block j lies in the buffers in reverse rank order with a gap of `gap` elements
// after each; VOffsets gives each block's displacement and the total.
uint64_t VCount(int rank) {
  static const uint64_t counts[] = {2, 0, 1100, 5};
  return counts[rank % 4];
}

std::vector<uint64_t> VOffsets(uint64_t gap, uint64_t* total) {
  std::vector<uint64_t> displs(g_size);
  *total = 0;
  for (int r = g_size - 1; r >= 0; --r) {
    displs[r] = *total;
    *total += VCount(r) + gap;
  }
  return displs;
}

// Element i of block j has the global number VFirst(j) + i (blocks in rank order).
uint64_t VFirst(int rank) {
  uint64_t first = 0;
  for (int r = 0; r < rank; ++r) first += VCount(r);
  return first;
}

// Rank j receives the reduction of every rank's block j; in place, the result lands at the
// start of the buffer.
template <typename Type>
void CheckReduceScatterV(HcclComm comm, aclrtStream stream, HcclDataType type, HcclReduceOp op, bool is_integer,
                         bool is_unsigned, bool in_place) {
  using Storage = typename Type::Storage;
  uint64_t total = 0;
  const std::vector<uint64_t> displs = VOffsets(1, &total);
  std::vector<uint64_t> counts(g_size);
  for (int j = 0; j < g_size; ++j) counts[j] = VCount(j);
  std::vector<Storage> send(std::max(total, VCount(g_rank))), recv(VCount(g_rank));
  for (int j = 0; j < g_size; ++j) {
    for (uint64_t i = 0; i < counts[j]; ++i) {
      send[displs[j] + i] = Type::From(ExactInput(op, is_unsigned, is_integer, g_rank, VFirst(j) + i));
    }
  }
  Storage* target = in_place ? send.data() : recv.data();
  REQUIRE_HCCL(HcclReduceScatterV(send.data(), counts.data(), displs.data(), target, VCount(g_rank), type, op, comm,
                                  stream));
  REQUIRE_ACL(aclrtSynchronizeStream(stream));
  for (uint64_t i = 0; i < VCount(g_rank); ++i) {
    const double expected = ExpectedReduction(op, is_unsigned, is_integer, VFirst(g_rank) + i);
    const Storage want = Type::From(expected);
    if (std::memcmp(&target[i], &want, sizeof want) != 0) {
      Failure("ReduceScatterV type %d op %d%s: element %llu is %g, expected %g", type, op, in_place ? " in place" : "",
              static_cast<unsigned long long>(i), Type::To(target[i]), expected);
      return;
    }
  }
}

template <typename Type>
void CheckAllReduceOps(HcclComm comm, aclrtStream stream, HcclDataType type, bool is_integer, bool is_unsigned,
                       bool prod) {
  for (HcclReduceOp op : {HCCL_REDUCE_SUM, HCCL_REDUCE_PROD, HCCL_REDUCE_MAX, HCCL_REDUCE_MIN}) {
    if (op == HCCL_REDUCE_PROD && !prod) continue;
    for (uint64_t count : {uint64_t{1}, uint64_t{7}, uint64_t{1000}}) {
      CheckAllReduce<Type>(comm, stream, type, op, is_integer, is_unsigned, count, false);
      CheckAllReduce<Type>(comm, stream, type, op, is_integer, is_unsigned, count, true);
    }
    CheckReduceScatterV<Type>(comm, stream, type, op, is_integer, is_unsigned, op == HCCL_REDUCE_MAX);
    // 1001: the chunked run (1000-element chunks) splits it.
    for (uint64_t count : {uint64_t{1}, uint64_t{7}, uint64_t{1001}}) {
      CheckReduceScatter<Type>(comm, stream, type, op, is_integer, is_unsigned, count, false);
      CheckReduceScatter<Type>(comm, stream, type, op, is_integer, is_unsigned, count, true);
      const int root = static_cast<int>((count + static_cast<uint64_t>(op)) % static_cast<uint64_t>(g_size));
      CheckReduce<Type>(comm, stream, type, op, is_integer, is_unsigned, count, false, root);
      CheckReduce<Type>(comm, stream, type, op, is_integer, is_unsigned, count, true, g_size - 1 - root);
    }
  }
}

void CheckAllReduceAllTypes(HcclComm comm, aclrtStream stream) {
  CheckAllReduceOps<Plain<int8_t>>(comm, stream, HCCL_DATA_TYPE_INT8, true, false, true);
  CheckAllReduceOps<Plain<int16_t>>(comm, stream, HCCL_DATA_TYPE_INT16, true, false, false);
  CheckAllReduceOps<Plain<int32_t>>(comm, stream, HCCL_DATA_TYPE_INT32, true, false, true);
  CheckAllReduceOps<Plain<int64_t>>(comm, stream, HCCL_DATA_TYPE_INT64, true, false, true);
  CheckAllReduceOps<Plain<uint64_t>>(comm, stream, HCCL_DATA_TYPE_UINT64, true, true, true);
  CheckAllReduceOps<Plain<float>>(comm, stream, HCCL_DATA_TYPE_FP32, false, false, true);
  CheckAllReduceOps<Plain<double>>(comm, stream, HCCL_DATA_TYPE_FP64, false, false, true);
  CheckAllReduceOps<Fp16>(comm, stream, HCCL_DATA_TYPE_FP16, false, false, true);
  CheckAllReduceOps<Bf16>(comm, stream, HCCL_DATA_TYPE_BFP16, false, false, false);
}

// Irregular values whose sums do round: the default mode must give every rank the same
// bits; the deterministic mode must give exactly the rank-ordered sum (fp16/bf16
// accumulated in fp32 and rounded once).
float RandomInput(int rank, uint64_t i) {
  uint64_t state = (static_cast<uint64_t>(rank) + 1) * 0x9E3779B97F4A7C15ull ^ (i + 1) * 0xBF58476D1CE4E5B9ull;
  state ^= state >> 31;
  state *= 0x94D049BB133111EBull;
  state ^= state >> 29;
  return static_cast<float>(static_cast<double>(state >> 11) / 9007199254740992.0 * 2.0 - 1.0) *
         (1.0f + static_cast<float>(i % 5) * 100.0f);
}

template <typename Type>
std::vector<typename Type::Storage> RandomSum(HcclComm comm, aclrtStream stream, HcclDataType type, uint64_t count) {
  using Storage = typename Type::Storage;
  std::vector<Storage> data(count);
  for (uint64_t i = 0; i < count; ++i) data[i] = Type::From(RandomInput(g_rank, i));
  if (HcclAllReduce(data.data(), data.data(), count, type, HCCL_REDUCE_SUM, comm, stream) != HCCL_SUCCESS ||
      aclrtSynchronizeStream(stream) != ACL_SUCCESS) {
    Failure("random AllReduce of type %d failed: %s", type, aclGetRecentErrMsg());
  }
  return data;
}

// Element j of every rank's sendBuf is RandomInput(rank, j); this rank's result is the sum
// of inputs g_rank * count + i.
template <typename Type>
std::vector<typename Type::Storage> RandomReduceScatter(HcclComm comm, aclrtStream stream, HcclDataType type,
                                                        uint64_t count) {
  using Storage = typename Type::Storage;
  std::vector<Storage> data(count * g_size);
  for (uint64_t j = 0; j < data.size(); ++j) data[j] = Type::From(RandomInput(g_rank, j));
  if (HcclReduceScatter(data.data(), data.data(), count, type, HCCL_REDUCE_SUM, comm, stream) != HCCL_SUCCESS ||
      aclrtSynchronizeStream(stream) != ACL_SUCCESS) {
    Failure("random ReduceScatter of type %d failed: %s", type, aclGetRecentErrMsg());
  }
  data.resize(count);
  return data;
}

// The reduction of RandomInput(rank, i) at the root; other ranks return their input.
template <typename Type>
std::vector<typename Type::Storage> RandomReduce(HcclComm comm, aclrtStream stream, HcclDataType type, uint64_t count,
                                                 int root) {
  using Storage = typename Type::Storage;
  std::vector<Storage> data(count);
  for (uint64_t i = 0; i < count; ++i) data[i] = Type::From(RandomInput(g_rank, i));
  if (HcclReduce(data.data(), data.data(), count, type, HCCL_REDUCE_SUM, static_cast<uint32_t>(root), comm, stream) !=
          HCCL_SUCCESS ||
      aclrtSynchronizeStream(stream) != ACL_SUCCESS) {
    Failure("random Reduce of type %d failed: %s", type, aclGetRecentErrMsg());
  }
  return data;
}

template <typename Type>
void CheckSameBitsEverywhere(const std::vector<typename Type::Storage>& result, const char* what) {
  const int bytes = static_cast<int>(result.size() * sizeof(result[0]));
  std::vector<unsigned char> all(static_cast<size_t>(bytes) * g_size);
  MPI_Allgather(result.data(), bytes, MPI_BYTE, all.data(), bytes, MPI_BYTE, MPI_COMM_WORLD);
  for (int r = 1; r < g_size; ++r) {
    EXPECT(std::memcmp(all.data(), &all[static_cast<size_t>(r) * bytes], bytes) == 0,
           "%s: rank %d's result differs from rank 0's", what, r);
  }
}

// result[i] must be the rank-ordered sum of inputs first + i.
template <typename Type>
void CheckOrderedSum(const std::vector<typename Type::Storage>& result, const char* what, uint64_t first = 0) {
  for (uint64_t i = 0; i < result.size(); ++i) {
    // The inputs as the ranks stored them, summed in rank order in fp32.
    float sum = static_cast<float>(Type::To(Type::From(RandomInput(0, first + i))));
    for (int r = 1; r < g_size; ++r) sum += static_cast<float>(Type::To(Type::From(RandomInput(r, first + i))));
    const typename Type::Storage want = Type::From(sum);
    if (std::memcmp(&result[i], &want, sizeof want) != 0) {
      Failure("%s: element %llu is %.9g, the rank-ordered sum is %.9g", what, static_cast<unsigned long long>(i),
              Type::To(result[i]), Type::To(want));
      return;
    }
  }
}

void CheckFloatingSums(HcclComm comm, aclrtStream stream) {
  const uint64_t count = 4099;
  // Default mode: MPI's algorithm; the same bits on every rank, close to the exact sum.
  unsetenv("HCCL_DETERMINISTIC");
  std::vector<float> fp32 = RandomSum<Plain<float>>(comm, stream, HCCL_DATA_TYPE_FP32, count);
  CheckSameBitsEverywhere<Plain<float>>(fp32, "default fp32 sum");
  for (uint64_t i = 0; i < count; ++i) {
    double exact = 0;
    for (int r = 0; r < g_size; ++r) exact += RandomInput(r, i);
    EXPECT(std::fabs(fp32[i] - exact) <= 1e-6 * g_size * 500, "default fp32 sum element %llu: %g vs %g",
           static_cast<unsigned long long>(i), fp32[i], exact);
  }
  CheckSameBitsEverywhere<Fp16>(RandomSum<Fp16>(comm, stream, HCCL_DATA_TYPE_FP16, count), "default fp16 sum");
  CheckSameBitsEverywhere<Bf16>(RandomSum<Bf16>(comm, stream, HCCL_DATA_TYPE_BFP16, count), "default bf16 sum");

  // Deterministic through the environment variable...
  setenv("HCCL_DETERMINISTIC", "true", 1);
  CheckOrderedSum<Plain<float>>(RandomSum<Plain<float>>(comm, stream, HCCL_DATA_TYPE_FP32, count), "deterministic fp32");
  CheckOrderedSum<Fp16>(RandomSum<Fp16>(comm, stream, HCCL_DATA_TYPE_FP16, count), "deterministic fp16");
  CheckOrderedSum<Bf16>(RandomSum<Bf16>(comm, stream, HCCL_DATA_TYPE_BFP16, count), "deterministic bf16");
  const uint64_t mine = g_rank * count;  // this rank's block of the reduce-scatter inputs
  CheckOrderedSum<Plain<float>>(RandomReduceScatter<Plain<float>>(comm, stream, HCCL_DATA_TYPE_FP32, count),
                                "deterministic fp32 ReduceScatter", mine);
  CheckOrderedSum<Fp16>(RandomReduceScatter<Fp16>(comm, stream, HCCL_DATA_TYPE_FP16, count),
                        "deterministic fp16 ReduceScatter", mine);
  CheckOrderedSum<Bf16>(RandomReduceScatter<Bf16>(comm, stream, HCCL_DATA_TYPE_BFP16, count),
                        "deterministic bf16 ReduceScatter", mine);
  {
    uint64_t total = 0;
    const std::vector<uint64_t> displs = VOffsets(0, &total);
    std::vector<uint64_t> counts(g_size);
    for (int j = 0; j < g_size; ++j) counts[j] = VCount(j);
    std::vector<float> blocks(total), result(VCount(g_rank));
    std::vector<uint16_t> blocks_bf16(total), result_bf16(VCount(g_rank));
    for (int j = 0; j < g_size; ++j) {
      for (uint64_t i = 0; i < counts[j]; ++i) {
        blocks[displs[j] + i] = RandomInput(g_rank, VFirst(j) + i);
        blocks_bf16[displs[j] + i] = Bf16::From(RandomInput(g_rank, VFirst(j) + i));
      }
    }
    if (HcclReduceScatterV(blocks.data(), counts.data(), displs.data(), result.data(), VCount(g_rank),
                           HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream) != HCCL_SUCCESS ||
        HcclReduceScatterV(blocks_bf16.data(), counts.data(), displs.data(), result_bf16.data(), VCount(g_rank),
                           HCCL_DATA_TYPE_BFP16, HCCL_REDUCE_SUM, comm, stream) != HCCL_SUCCESS ||
        aclrtSynchronizeStream(stream) != ACL_SUCCESS) {
      Failure("deterministic ReduceScatterV: %s", aclGetRecentErrMsg());
    }
    CheckOrderedSum<Plain<float>>(result, "deterministic fp32 ReduceScatterV", VFirst(g_rank));
    CheckOrderedSum<Bf16>(result_bf16, "deterministic bf16 ReduceScatterV", VFirst(g_rank));
  }
  const int root = g_size - 1;
  const std::vector<float> reduced = RandomReduce<Plain<float>>(comm, stream, HCCL_DATA_TYPE_FP32, count, root);
  const std::vector<uint16_t> reduced_fp16 = RandomReduce<Fp16>(comm, stream, HCCL_DATA_TYPE_FP16, count, root);
  if (g_rank == root) {
    CheckOrderedSum<Plain<float>>(reduced, "deterministic fp32 Reduce");
    CheckOrderedSum<Fp16>(reduced_fp16, "deterministic fp16 Reduce");
  }
  unsetenv("HCCL_DETERMINISTIC");
  // ...and through the context option.
  REQUIRE_ACL(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1));
  CheckOrderedSum<Bf16>(RandomSum<Bf16>(comm, stream, HCCL_DATA_TYPE_BFP16, count), "ACL_OPT_DETERMINISTIC bf16");
  CheckOrderedSum<Plain<float>>(RandomSum<Plain<float>>(comm, stream, HCCL_DATA_TYPE_FP32, count),
                                "ACL_OPT_DETERMINISTIC fp32");
  CheckOrderedSum<Bf16>(RandomReduceScatter<Bf16>(comm, stream, HCCL_DATA_TYPE_BFP16, count),
                        "ACL_OPT_DETERMINISTIC bf16 ReduceScatter", mine);
  REQUIRE_ACL(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 0));
}

template <typename T>
void CheckAllGather(HcclComm comm, aclrtStream stream, HcclDataType type, uint64_t count, bool in_place) {
  std::vector<T> recv(count * g_size, T{});
  std::vector<T> send(count);
  for (uint64_t i = 0; i < count; ++i) send[i] = static_cast<T>(g_rank * 31 + i % 29);
  T* source = send.data();
  if (in_place) {
    std::copy(send.begin(), send.end(), recv.begin() + static_cast<ptrdiff_t>(g_rank * count));
    source = recv.data() + g_rank * count;
  }
  REQUIRE_HCCL(HcclAllGather(source, recv.data(), count, type, comm, stream));
  REQUIRE_ACL(aclrtSynchronizeStream(stream));
  for (int r = 0; r < g_size; ++r) {
    for (uint64_t i = 0; i < count; ++i) {
      const T want = static_cast<T>(r * 31 + i % 29);
      if (recv[r * count + i] != want) {
        Failure("AllGather type %d count %llu%s: block %d element %llu wrong", type,
                static_cast<unsigned long long>(count), in_place ? " in place" : "", r,
                static_cast<unsigned long long>(i));
        return;
      }
    }
  }
}

void CheckBroadcast(HcclComm comm, aclrtStream stream) {
  for (int root = 0; root < g_size; ++root) {
    std::vector<int64_t> data(1001);
    for (size_t i = 0; i < data.size(); ++i) data[i] = g_rank == root ? static_cast<int64_t>(i * 7 + root) : -1;
    REQUIRE_HCCL(HcclBroadcast(data.data(), data.size(), HCCL_DATA_TYPE_INT64, static_cast<uint32_t>(root), comm, stream));
    std::vector<float> small(3, g_rank == root ? 2.5f : 0.0f);
    REQUIRE_HCCL(HcclBroadcast(small.data(), 3, HCCL_DATA_TYPE_FP32, static_cast<uint32_t>(root), comm, stream));
    REQUIRE_ACL(aclrtSynchronizeStream(stream));
    for (size_t i = 0; i < data.size(); ++i) {
      if (data[i] != static_cast<int64_t>(i * 7 + root)) {
        Failure("Broadcast from root %d: element %zu is %lld", root, i, static_cast<long long>(data[i]));
        break;
      }
    }
    EXPECT(small[0] == 2.5f && small[2] == 2.5f, "fp32 Broadcast from root %d", root);
  }
}

// The last rank reaches its Barrier late: the others' Barrier must not complete before it.
void CheckBarrier(HcclComm comm, aclrtStream stream) {
  const auto late = std::chrono::milliseconds(200);
  MPI_Barrier(MPI_COMM_WORLD);
  const auto start = std::chrono::steady_clock::now();
  if (g_rank == g_size - 1) std::this_thread::sleep_for(late);
  REQUIRE_HCCL(HcclBarrier(comm, stream));
  REQUIRE_ACL(aclrtSynchronizeStream(stream));
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT(waited >= late - std::chrono::milliseconds(20), "HcclBarrier returned after %lld ms, before the last rank came",
         static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(waited).count()));
}

// Element i of what rank `from` sends to rank `to`: distinct for every pair.
template <typename T>
T PairValue(int from, int to, uint64_t i) {
  return static_cast<T>(from * 4 + to + static_cast<int>(i % 7) * 32);  // below 256 for W <= 4
}

// A ring: each rank sends to the next and receives from the previous, even ranks sending
// first, so no rank waits on a peer that waits on it. Queued without synchronising in
// between; then rank 0 and rank 1 exchange once more while the others do not, and a
// collective follows: point-to-point operations must not shift the collectives' positions.
template <typename T>
void CheckSendRecvRing(HcclComm comm, aclrtStream stream, HcclDataType type, uint64_t count) {
  if (g_size < 2) return;
  const int next = (g_rank + 1) % g_size, previous = (g_rank + g_size - 1) % g_size;
  std::vector<T> out(count), in(count, T{});
  for (uint64_t i = 0; i < count; ++i) out[i] = PairValue<T>(g_rank, next, i);
  if (g_rank % 2 == 0) {
    REQUIRE_HCCL(HcclSend(out.data(), count, type, static_cast<uint32_t>(next), comm, stream));
    REQUIRE_HCCL(HcclRecv(in.data(), count, type, static_cast<uint32_t>(previous), comm, stream));
  } else {
    REQUIRE_HCCL(HcclRecv(in.data(), count, type, static_cast<uint32_t>(previous), comm, stream));
    REQUIRE_HCCL(HcclSend(out.data(), count, type, static_cast<uint32_t>(next), comm, stream));
  }
  std::vector<T> extra(3, T{});
  if (g_rank == 0) {
    std::vector<T> from_zero = {T(1), T(2), T(3)};
    REQUIRE_HCCL(HcclSend(from_zero.data(), 3, type, 1, comm, stream));
    REQUIRE_ACL(aclrtSynchronizeStream(stream));  // from_zero lives in this block
  } else if (g_rank == 1) {
    REQUIRE_HCCL(HcclRecv(extra.data(), 3, type, 0, comm, stream));
  }
  std::vector<int32_t> ones(2, 1);
  REQUIRE_HCCL(HcclAllReduce(ones.data(), ones.data(), 2, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, comm, stream));
  REQUIRE_ACL(aclrtSynchronizeStream(stream));
  for (uint64_t i = 0; i < count; ++i) {
    if (in[i] != PairValue<T>(previous, g_rank, i)) {
      Failure("Send/Recv ring type %d count %llu: element %llu from rank %d is wrong", type,
              static_cast<unsigned long long>(count), static_cast<unsigned long long>(i), previous);
      break;
    }
  }
  EXPECT(g_rank != 1 || (extra[0] == T(1) && extra[2] == T(3)), "the extra Recv from rank 0");
  EXPECT(ones[1] == g_size, "AllReduce after point-to-point operations: %d", ones[1]);
}

// The same ring inside a group, every rank sending first (outside a group each Send would
// wait for a Recv queued behind its neighbour's Send), and an AllReduce in the group too;
// the group is nested once (only the outer HcclGroupEnd issues it).
template <typename T>
void CheckGroupRing(HcclComm comm, aclrtStream stream, HcclDataType type, uint64_t count) {
  const int next = (g_rank + 1) % g_size, previous = (g_rank + g_size - 1) % g_size;
  std::vector<T> out(count), in(count, T{});
  for (uint64_t i = 0; i < count; ++i) out[i] = PairValue<T>(g_rank, next, i);
  std::vector<int32_t> ones(2, 1);
  REQUIRE_HCCL(HcclGroupStart());
  REQUIRE_HCCL(HcclAllReduce(ones.data(), ones.data(), 2, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, comm, stream));
  REQUIRE_HCCL(HcclGroupStart());
  if (g_size > 1) {
    REQUIRE_HCCL(HcclSend(out.data(), count, type, static_cast<uint32_t>(next), comm, stream));
    REQUIRE_HCCL(HcclRecv(in.data(), count, type, static_cast<uint32_t>(previous), comm, stream));
  }
  REQUIRE_HCCL(HcclGroupEnd());
  EXPECT(ones[1] == 1, "a grouped AllReduce ran before HcclGroupEnd");
  REQUIRE_HCCL(HcclGroupEnd());
  EXPECT(ones[1] == g_size, "grouped AllReduce (HcclGroupEnd waits for it): %d", ones[1]);
  REQUIRE_ACL(aclrtSynchronizeStream(stream));
  for (uint64_t i = 0; g_size > 1 && i < count; ++i) {
    if (in[i] != PairValue<T>(previous, g_rank, i)) {
      Failure("grouped ring type %d count %llu: element %llu from rank %d is wrong", type,
              static_cast<unsigned long long>(count), static_cast<unsigned long long>(i), previous);
      break;
    }
  }
}

// A group whose Recv is issued on stream A and whose Send on stream B: the batch runs on A,
// yet B's order holds both ways. The Send's payload is written by B's earlier work, queued
// behind a 64 MiB copy so that it is still pending when the group ends; B's later copy of
// the received data must see it. Without the cross-stream ordering the batch sends the
// unwritten payload and B copies before anything arrived.
void CheckGroupAcrossStreams(HcclComm comm) {
  if (g_size == 1) return;  // a rank cannot send to itself
  const int next = (g_rank + 1) % g_size, previous = (g_rank + g_size - 1) % g_size;
  const uint64_t count = 4096;
  aclrtStream a = nullptr, b = nullptr;
  REQUIRE_ACL(aclrtCreateStream(&a));
  REQUIRE_ACL(aclrtCreateStream(&b));
  std::vector<int32_t> payload(count), out(count, -1), in(count, -1), copy(count, -1);
  for (uint64_t i = 0; i < count; ++i) payload[i] = PairValue<int32_t>(g_rank, next, i);
  std::vector<unsigned char> big_from(64 << 20, 1), big_to(64 << 20);
  REQUIRE_ACL(aclrtMemcpyAsync(big_to.data(), big_to.size(), big_from.data(), big_from.size(),
                               ACL_MEMCPY_HOST_TO_DEVICE, b));
  REQUIRE_ACL(aclrtMemcpyAsync(out.data(), count * 4, payload.data(), count * 4, ACL_MEMCPY_HOST_TO_DEVICE, b));
  REQUIRE_HCCL(HcclGroupStart());
  REQUIRE_HCCL(HcclRecv(in.data(), count, HCCL_DATA_TYPE_INT32, static_cast<uint32_t>(previous), comm, a));
  REQUIRE_HCCL(HcclSend(out.data(), count, HCCL_DATA_TYPE_INT32, static_cast<uint32_t>(next), comm, b));
  REQUIRE_HCCL(HcclGroupEnd());
  REQUIRE_ACL(aclrtMemcpyAsync(copy.data(), count * 4, in.data(), count * 4, ACL_MEMCPY_DEVICE_TO_DEVICE, b));
  REQUIRE_ACL(aclrtSynchronizeStream(b));  // B alone: its copy must already hold the data
  for (uint64_t i = 0; i < count; ++i) {
    if (copy[i] != PairValue<int32_t>(previous, g_rank, i)) {
      Failure("group across streams: element %llu copied on the Send's stream is %d, expected %d (from rank %d)",
              static_cast<unsigned long long>(i), copy[i], PairValue<int32_t>(previous, g_rank, i), previous);
      break;
    }
  }
  REQUIRE_ACL(aclrtSynchronizeStream(a));
  REQUIRE_ACL(aclrtDestroyStream(a));
  REQUIRE_ACL(aclrtDestroyStream(b));
}

// HcclCommInitAll(1, {0}) inside an MPI job: a communicator of this process alone (over
// MPI_COMM_SELF), so an AllReduce on it returns this rank's own values at any W.
void CheckCommInitAll(aclrtStream stream) {
  int32_t device = 0;
  HcclComm own = nullptr;
  REQUIRE_HCCL(HcclCommInitAll(1, &device, &own));
  uint32_t size = 0;
  REQUIRE_HCCL(HcclGetRankSize(own, &size));
  EXPECT(size == 1, "HcclCommInitAll: rank size %u", size);
  std::vector<int32_t> mine = {g_rank + 1, -g_rank, 7}, result(3, -1);
  REQUIRE_HCCL(HcclAllReduce(mine.data(), result.data(), 3, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, own, stream));
  REQUIRE_ACL(aclrtSynchronizeStream(stream));
  EXPECT(result == mine, "HcclCommInitAll: an AllReduce over this process alone gave %d %d %d", result[0], result[1],
         result[2]);
  REQUIRE_HCCL(HcclCommDestroy(own));
}

// HcclCreateSubCommConfig: pairs {0,1}, {2,3} (an odd last rank joins none) made at once;
// pair 0 runs an AllReduce and a Send/Recv, pair 1 an AllGather, concurrently. Then a
// duplicate in rank 0's list and an out-of-range rank in the last rank's list: every rank
// of the parent gets HCCL_E_PARA, and the parent still works.
void CheckSubCommunicators(HcclComm comm, aclrtStream stream) {
  HcclCommConfig config;
  HcclCommConfigInit(&config);
  config.hcclDeterministic = 1;
  const uint32_t pair = static_cast<uint32_t>(g_rank / 2);
  const bool joins = 2 * pair + 1 < static_cast<uint32_t>(g_size) || g_size == 1;
  uint32_t ids[2] = {2 * pair, 2 * pair + 1};
  const uint32_t members = g_size == 1 ? 1 : 2;
  HcclComm sub = nullptr;
  REQUIRE_HCCL(HcclCreateSubCommConfig(&comm, members, joins ? ids : nullptr, joins ? pair : 0xFFFFFFFF,
                                       static_cast<uint32_t>(g_rank) % 2, &config, &sub));
  EXPECT(joins == (sub != nullptr), "rank %d: sub-communicator %p", g_rank, sub);
  if (sub != nullptr) {
    uint32_t size = 0, rank = 9;
    EXPECT(HcclGetRankSize(sub, &size) == HCCL_SUCCESS && size == members, "sub rank size %u", size);
    EXPECT(HcclGetRankId(sub, &rank) == HCCL_SUCCESS && rank == static_cast<uint32_t>(g_rank) % 2, "sub rank %u",
           rank);
    std::vector<int32_t> mine(3, g_rank + 1), gathered(6, -1), received(3, -1);
    if (pair == 0) {
      REQUIRE_HCCL(HcclAllReduce(mine.data(), mine.data(), 3, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, sub, stream));
      if (members == 2 && rank == 0) REQUIRE_HCCL(HcclSend(mine.data(), 3, HCCL_DATA_TYPE_INT32, 1, sub, stream));
      if (members == 2 && rank == 1) REQUIRE_HCCL(HcclRecv(received.data(), 3, HCCL_DATA_TYPE_INT32, 0, sub, stream));
    } else {
      REQUIRE_HCCL(HcclAllGather(mine.data(), gathered.data(), 3, HCCL_DATA_TYPE_INT32, sub, stream));
    }
    REQUIRE_ACL(aclrtSynchronizeStream(stream));
    if (pair == 0) {
      const int32_t sum = members == 2 ? 3 : 1;
      EXPECT(mine[2] == sum, "pair 0 AllReduce: %d, expected %d", mine[2], sum);
      EXPECT(members == 1 || rank == 0 || received[0] == 3, "pair 0 Send/Recv: %d", received[0]);
    } else {
      EXPECT(gathered[0] == 3 && gathered[5] == 4, "pair 1 AllGather: %d %d", gathered[0], gathered[5]);
    }
    EXPECT(HcclCommDestroy(sub) == HCCL_SUCCESS, "HcclCommDestroy(sub)");
  }
  if (g_size > 1) {
    const uint32_t all_but_last = static_cast<uint32_t>(g_size) - 1;
    std::vector<uint32_t> list(static_cast<size_t>(g_size));
    for (uint32_t r = 0; r < static_cast<uint32_t>(g_size); ++r) list[r] = r;
    for (int bad = 0; bad < 2; ++bad) {
      std::vector<uint32_t> theirs = list;
      if (bad == 0 && g_rank == 0) theirs[1] = 0;                           // a duplicate
      if (bad == 1 && g_rank == g_size - 1) theirs[0] = all_but_last + 5;  // out of range
      const HcclResult status = HcclCreateSubCommConfig(&comm, static_cast<uint32_t>(g_size), theirs.data(), 9,
                                                        static_cast<uint32_t>(g_rank), &config, &sub);
      EXPECT(status == HCCL_E_PARA, "bad list %d: every rank must get HCCL_E_PARA, got %d (%s)", bad, status,
             aclGetRecentErrMsg());
    }
    // The config's hcclDeterministic is honoured: on rank 0 only, an FP32 AllReduce is a
    // mismatch that every rank reports.
    config.hcclDeterministic = g_rank == 0 ? 1 : 0;
    REQUIRE_HCCL(HcclCreateSubCommConfig(&comm, static_cast<uint32_t>(g_size), list.data(), 10,
                                         static_cast<uint32_t>(g_rank), &config, &sub));
    std::vector<float> halves(2, 0.5f);
    REQUIRE_HCCL(HcclAllReduce(halves.data(), halves.data(), 2, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, sub, stream));
    EXPECT(aclrtSynchronizeStream(stream) == ACL_ERROR_RT_FAILURE &&
               std::strstr(aclGetRecentErrMsg(), "deterministic") != nullptr,
           "hcclDeterministic 1 on rank 0 only must be a mismatch: %s", aclGetRecentErrMsg());
    EXPECT(HcclCommDestroy(sub) == HCCL_SUCCESS, "HcclCommDestroy(sub)");
  }
  std::vector<int32_t> ones(2, 1);
  REQUIRE_HCCL(HcclAllReduce(ones.data(), ones.data(), 2, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, comm, stream));
  REQUIRE_ACL(aclrtSynchronizeStream(stream));
  EXPECT(ones[1] == g_size, "the parent after sub-communicators: %d", ones[1]);
}

// From every root: block r of the root's sendBuf (PairValue(root, r, i)) lands in rank r's
// recvBuf; other ranks pass a null sendBuf. In place: the root's recvBuf is its own block.
template <typename T>
void CheckScatter(HcclComm comm, aclrtStream stream, HcclDataType type, uint64_t count, bool in_place) {
  for (int root = 0; root < g_size; ++root) {
    std::vector<T> send(g_rank == root ? count * g_size : 0), recv(count, T{});
    for (size_t j = 0; j < send.size(); ++j) send[j] = PairValue<T>(root, static_cast<int>(j / count), j % count);
    const bool own_block = in_place && g_rank == root;
    T* target = own_block ? send.data() + root * count : recv.data();
    REQUIRE_HCCL(HcclScatter(g_rank == root ? send.data() : nullptr, target, count, type, static_cast<uint32_t>(root),
                             comm, stream));
    REQUIRE_ACL(aclrtSynchronizeStream(stream));
    for (uint64_t i = 0; i < count; ++i) {
      if (target[i] != PairValue<T>(root, g_rank, i)) {
        Failure("Scatter from root %d type %d count %llu%s: element %llu wrong", root, type,
                static_cast<unsigned long long>(count), own_block ? " in place" : "", static_cast<unsigned long long>(i));
        return;
      }
    }
  }
}

// Rank r contributes VCount(r) elements PairValue(r, 0, i); every rank's recvBuf gets them
// at its displacements (reverse rank order, gaps of 2 that keep their sentinel). In place:
// sendBuf is the rank's own block inside recvBuf.
template <typename T>
void CheckAllGatherV(HcclComm comm, aclrtStream stream, HcclDataType type, bool in_place) {
  const T sentinel = T(99);
  uint64_t total = 0;
  const std::vector<uint64_t> displs = VOffsets(2, &total);
  std::vector<uint64_t> counts(g_size);
  for (int r = 0; r < g_size; ++r) counts[r] = VCount(r);
  std::vector<T> send(VCount(g_rank)), recv(total, sentinel);
  for (uint64_t i = 0; i < send.size(); ++i) send[i] = PairValue<T>(g_rank, 0, i);
  T* source = send.data();
  if (in_place) {
    std::copy(send.begin(), send.end(), recv.begin() + static_cast<ptrdiff_t>(displs[g_rank]));
    source = recv.data() + displs[g_rank];
  }
  REQUIRE_HCCL(HcclAllGatherV(source, VCount(g_rank), recv.data(), counts.data(), displs.data(), type, comm, stream));
  REQUIRE_ACL(aclrtSynchronizeStream(stream));
  for (int r = 0; r < g_size; ++r) {
    for (uint64_t i = 0; i < counts[r]; ++i) {
      if (recv[displs[r] + i] != PairValue<T>(r, 0, i)) {
        Failure("AllGatherV type %d%s: block %d element %llu wrong", type, in_place ? " in place" : "", r,
                static_cast<unsigned long long>(i));
        return;
      }
    }
    EXPECT(recv[displs[r] + counts[r]] == sentinel, "AllGatherV: the gap after block %d was written", r);
  }
}

// One HcclBatchSendRecv per rank: receive from the previous rank (listed first: a plain
// Recv-then-Send on every rank would wait for ever), send to the next, a copy to itself and
// an empty transfer; W = 1 has only the copy to itself.
template <typename T>
void CheckBatchSendRecv(HcclComm comm, aclrtStream stream, HcclDataType type, uint64_t count) {
  const int next = (g_rank + 1) % g_size, previous = (g_rank + g_size - 1) % g_size;
  std::vector<T> out(count), in(count, T{}), own(count, T{});
  for (uint64_t i = 0; i < count; ++i) out[i] = PairValue<T>(g_rank, next, i);
  std::vector<HcclSendRecvItem> items;
  if (g_size > 1) {
    items.push_back({HCCL_RECV, in.data(), count, type, static_cast<uint32_t>(previous)});
    items.push_back({HCCL_SEND, out.data(), count, type, static_cast<uint32_t>(next)});
    items.push_back({HCCL_SEND, nullptr, 0, type, static_cast<uint32_t>(next)});
    items.push_back({HCCL_RECV, nullptr, 0, type, static_cast<uint32_t>(previous)});
  }
  items.push_back({HCCL_RECV, own.data(), count, type, static_cast<uint32_t>(g_rank)});
  items.push_back({HCCL_SEND, out.data(), count, type, static_cast<uint32_t>(g_rank)});
  REQUIRE_HCCL(HcclBatchSendRecv(items.data(), static_cast<uint32_t>(items.size()), comm, stream));
  items.clear();  // copied when the call was made
  REQUIRE_ACL(aclrtSynchronizeStream(stream));
  for (uint64_t i = 0; i < count; ++i) {
    if ((g_size > 1 && in[i] != PairValue<T>(previous, g_rank, i)) || own[i] != out[i]) {
      Failure("BatchSendRecv type %d count %llu: element %llu wrong", type, static_cast<unsigned long long>(count),
              static_cast<unsigned long long>(i));
      return;
    }
  }
}

// Block j of every rank's sendBuf is PairValue(rank, j, i); block r of recvBuf must be
// PairValue(r, g_rank, i).
template <typename T>
void CheckAlltoAll(HcclComm comm, aclrtStream stream, HcclDataType type, uint64_t count) {
  std::vector<T> send(count * g_size), recv(count * g_size, T{});
  for (int j = 0; j < g_size; ++j) {
    for (uint64_t i = 0; i < count; ++i) send[j * count + i] = PairValue<T>(g_rank, j, i);
  }
  REQUIRE_HCCL(HcclAlltoAll(send.data(), count, type, recv.data(), count, type, comm, stream));
  REQUIRE_ACL(aclrtSynchronizeStream(stream));
  for (int r = 0; r < g_size; ++r) {
    for (uint64_t i = 0; i < count; ++i) {
      if (recv[r * count + i] != PairValue<T>(r, g_rank, i)) {
        Failure("AlltoAll type %d count %llu: block %d element %llu wrong", type, static_cast<unsigned long long>(count),
                r, static_cast<unsigned long long>(i));
        return;
      }
    }
  }
}

// Uneven blocks: rank `from` sends rank `to` AlltoAllVCount(from, to) elements (0 to 1200:
// empty blocks, and blocks the chunked run splits). sendBuf's blocks are in rank order with
// a gap of 2 elements after each; recvBuf's are in reverse rank order, with a gap of 1; the
// gaps must keep their sentinel.
uint64_t AlltoAllVCount(int from, int to) { return static_cast<uint64_t>((from * 3 + to * 5) % 4) * 400; }

void CheckAlltoAllV(HcclComm comm, aclrtStream stream) {
  using T = int32_t;
  const T sentinel = -99;
  std::vector<uint64_t> send_counts(g_size), send_displs(g_size), recv_counts(g_size), recv_displs(g_size);
  uint64_t send_total = 0, recv_total = 0;
  for (int j = 0; j < g_size; ++j) {
    send_counts[j] = AlltoAllVCount(g_rank, j);
    send_displs[j] = send_total;
    send_total += send_counts[j] + 2;
  }
  for (int r = g_size - 1; r >= 0; --r) {
    recv_counts[r] = AlltoAllVCount(r, g_rank);
    recv_displs[r] = recv_total;
    recv_total += recv_counts[r] + 1;
  }
  std::vector<T> send(send_total, sentinel), recv(recv_total, sentinel);
  for (int j = 0; j < g_size; ++j) {
    for (uint64_t i = 0; i < send_counts[j]; ++i) send[send_displs[j] + i] = PairValue<T>(g_rank, j, i) + T(i);
  }
  REQUIRE_HCCL(HcclAlltoAllV(send.data(), send_counts.data(), send_displs.data(), HCCL_DATA_TYPE_INT32, recv.data(),
                             recv_counts.data(), recv_displs.data(), HCCL_DATA_TYPE_INT32, comm, stream));
  // The arrays are read when the call is made: changing them now must not matter.
  std::fill(recv_counts.begin(), recv_counts.end(), 0);
  REQUIRE_ACL(aclrtSynchronizeStream(stream));
  for (int r = 0; r < g_size; ++r) {
    const uint64_t count = AlltoAllVCount(r, g_rank);
    for (uint64_t i = 0; i < count; ++i) {
      if (recv[recv_displs[r] + i] != PairValue<T>(r, g_rank, i) + T(i)) {
        Failure("AlltoAllV: block from rank %d element %llu wrong", r, static_cast<unsigned long long>(i));
        return;
      }
    }
    EXPECT(recv[recv_displs[r] + count] == sentinel, "AlltoAllV: the gap after the block from rank %d was written", r);
  }
}

// aclnnBatchNormStats before the collective writes its input, another after it reads its
// output; one synchronisation at the end. A collective that ran early would see the NaN
// fill, one that ran late would leave the second operator reading garbage.
void CheckStreamOrderWithOperators(HcclComm comm, aclrtStream stream) {
  const int64_t channels = 5;
  std::vector<float> x(2 * channels);
  for (int64_t c = 0; c < channels; ++c) {
    x[c] = static_cast<float>(g_rank + c) - 1.0f;  // mean of the two rows: g_rank + c
    x[channels + c] = static_cast<float>(g_rank + c) + 1.0f;
  }
  std::vector<float> stats(2 * channels, NAN), reduced(channels, NAN), after(2 * channels, NAN);
  const int64_t x_shape[] = {2, channels}, vector_shape[] = {channels}, row_shape[] = {1, channels};
  aclTensor* x_tensor = aclCreateTensor(x_shape, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, x_shape, 2, x.data());
  aclTensor* mean = aclCreateTensor(vector_shape, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, vector_shape, 1, stats.data());
  aclTensor* invstd =
      aclCreateTensor(vector_shape, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, vector_shape, 1, stats.data() + channels);
  aclTensor* reduced_row = aclCreateTensor(row_shape, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, row_shape, 2, reduced.data());
  aclTensor* after_mean =
      aclCreateTensor(vector_shape, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, vector_shape, 1, after.data());
  aclTensor* after_invstd =
      aclCreateTensor(vector_shape, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, vector_shape, 1, after.data() + channels);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  std::vector<unsigned char> workspace_before, workspace_after;  // freed after the synchronisation
  if (aclnnBatchNormStatsGetWorkspaceSize(x_tensor, 1e-5, mean, invstd, &workspace_size, &executor) != 0 ||
      (workspace_before.resize(workspace_size),
       aclnnBatchNormStats(workspace_before.data(), workspace_size, executor, stream) != 0)) {
    Failure("aclnnBatchNormStats before the collective: %s", aclGetRecentErrMsg());
  }
  EXPECT(HcclAllReduce(stats.data(), reduced.data(), channels, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream) ==
             HCCL_SUCCESS, "HcclAllReduce between operators: %s", aclGetRecentErrMsg());
  if (aclnnBatchNormStatsGetWorkspaceSize(reduced_row, 1e-5, after_mean, after_invstd, &workspace_size, &executor) != 0 ||
      (workspace_after.resize(workspace_size),
       aclnnBatchNormStats(workspace_after.data(), workspace_size, executor, stream) != 0)) {
    Failure("aclnnBatchNormStats after the collective: %s", aclGetRecentErrMsg());
  }
  EXPECT(aclrtSynchronizeStream(stream) == ACL_SUCCESS, "synchronize: %s", aclGetRecentErrMsg());
  for (int64_t c = 0; c < channels; ++c) {
    const double expected = g_size * static_cast<double>(c) + g_size * (g_size - 1) / 2.0;
    EXPECT(after[c] == expected, "operator after the collective saw %g in channel %lld, expected %g", after[c],
           static_cast<long long>(c), expected);
  }
  for (aclTensor* tensor : {x_tensor, mean, invstd, reduced_row, after_mean, after_invstd}) aclDestroyTensor(tensor);
}

// Collectives of one communicator on two streams of a rank, each stream ordered on its own.
void CheckTwoStreams(HcclComm comm, aclrtStream stream) {
  aclrtStream second = nullptr;
  REQUIRE_ACL(aclrtCreateStream(&second));
  std::vector<int32_t> a(100, g_rank + 1), b(100, 2 * (g_rank + 1));
  REQUIRE_HCCL(HcclAllReduce(a.data(), a.data(), a.size(), HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, comm, stream));
  REQUIRE_ACL(aclrtSynchronizeStream(stream));
  REQUIRE_HCCL(HcclAllReduce(b.data(), b.data(), b.size(), HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, comm, second));
  REQUIRE_ACL(aclrtSynchronizeStream(second));
  const int32_t sum = g_size * (g_size + 1) / 2;
  EXPECT(a[99] == sum && b[0] == 2 * sum, "two streams: %d %d, expected %d %d", a[99], b[0], sum, 2 * sum);
  REQUIRE_ACL(aclrtDestroyStream(second));
}

// CANN's sample bootstrap: rank 0 makes the root info, MPI_Bcast ships the 4108 bytes.
HcclComm CannStyleInit() {
  HcclRootInfo root;
  if (g_rank == 0 && HcclGetRootInfo(&root) != HCCL_SUCCESS) Failure("HcclGetRootInfo");
  MPI_Bcast(&root, HCCL_ROOT_INFO_BYTES, MPI_CHAR, 0, MPI_COMM_WORLD);
  HcclComm comm = nullptr;
  const HcclResult status = HcclCommInitRootInfo(static_cast<uint32_t>(g_size), &root, static_cast<uint32_t>(g_rank), &comm);
  if (status != HCCL_SUCCESS) {
    Failure("HcclCommInitRootInfo: %s %s", HcclGetErrorString(status), aclGetRecentErrMsg());
    return nullptr;
  }
  uint32_t size = 0, rank = 0;
  EXPECT(HcclGetRankSize(comm, &size) == HCCL_SUCCESS && size == static_cast<uint32_t>(g_size), "HcclGetRankSize");
  EXPECT(HcclGetRankId(comm, &rank) == HCCL_SUCCESS && rank == static_cast<uint32_t>(g_rank), "HcclGetRankId");
  return comm;
}

struct Device {
  aclrtStream stream = nullptr;
  bool Open() {
    return aclInit(nullptr) == ACL_SUCCESS && aclrtSetDevice(0) == ACL_SUCCESS && aclrtCreateStream(&stream) == ACL_SUCCESS;
  }
  void Close() {
    EXPECT(aclrtDestroyStream(stream) == ACL_SUCCESS, "aclrtDestroyStream");
    EXPECT(aclrtResetDevice(0) == ACL_SUCCESS, "aclrtResetDevice");
    EXPECT(aclFinalize() == ACL_SUCCESS, "aclFinalize");
  }
};

void RunCollectives() {
  Device device;
  if (!device.Open()) return Failure("runtime setup: %s", aclGetRecentErrMsg());
  HcclComm comm = CannStyleInit();
  if (comm == nullptr) return;
  CheckAllReduceAllTypes(comm, device.stream);
  CheckFloatingSums(comm, device.stream);
  for (uint64_t count : {uint64_t{1}, uint64_t{13}, uint64_t{2049}}) {
    CheckAllGather<int32_t>(comm, device.stream, HCCL_DATA_TYPE_INT32, count, false);
    CheckAllGather<int32_t>(comm, device.stream, HCCL_DATA_TYPE_INT32, count, true);
    CheckAllGather<uint8_t>(comm, device.stream, HCCL_DATA_TYPE_UINT8, count, false);
    CheckAllGather<uint16_t>(comm, device.stream, HCCL_DATA_TYPE_FP16, count, true);
    CheckAllGather<double>(comm, device.stream, HCCL_DATA_TYPE_FP64, count, false);
  }
  CheckBroadcast(comm, device.stream);
  CheckBarrier(comm, device.stream);
  // 2049: the chunked run splits it.
  CheckSendRecvRing<int32_t>(comm, device.stream, HCCL_DATA_TYPE_INT32, 2049);
  CheckSendRecvRing<uint8_t>(comm, device.stream, HCCL_DATA_TYPE_UINT8, 5);
  CheckSendRecvRing<double>(comm, device.stream, HCCL_DATA_TYPE_FP64, 17);
  CheckGroupRing<int32_t>(comm, device.stream, HCCL_DATA_TYPE_INT32, 2049);  // chunked in the chunked run
  CheckGroupAcrossStreams(comm);
  CheckCommInitAll(device.stream);
  CheckSubCommunicators(comm, device.stream);
  CheckAlltoAll<int32_t>(comm, device.stream, HCCL_DATA_TYPE_INT32, 1);
  CheckAlltoAll<int32_t>(comm, device.stream, HCCL_DATA_TYPE_INT32, 1001);  // chunked in the chunked run
  CheckAlltoAll<uint16_t>(comm, device.stream, HCCL_DATA_TYPE_BFP16, 3);
  CheckAlltoAll<int8_t>(comm, device.stream, HCCL_DATA_TYPE_INT8, 5);
  CheckAlltoAllV(comm, device.stream);
  CheckAllGatherV<int32_t>(comm, device.stream, HCCL_DATA_TYPE_INT32, false);
  CheckBatchSendRecv<int32_t>(comm, device.stream, HCCL_DATA_TYPE_INT32, 1001);  // chunked in the chunked run
  CheckBatchSendRecv<uint16_t>(comm, device.stream, HCCL_DATA_TYPE_BFP16, 7);
  CheckAllGatherV<uint8_t>(comm, device.stream, HCCL_DATA_TYPE_UINT8, true);
  CheckScatter<int32_t>(comm, device.stream, HCCL_DATA_TYPE_INT32, 1001, false);  // chunked in the chunked run
  CheckScatter<uint16_t>(comm, device.stream, HCCL_DATA_TYPE_FP16, 3, true);
  CheckScatter<uint8_t>(comm, device.stream, HCCL_DATA_TYPE_FP8E4M3, 2, false);
  CheckStreamOrderWithOperators(comm, device.stream);
  CheckTwoStreams(comm, device.stream);
  EXPECT(HcclCommDestroy(comm) == HCCL_SUCCESS, "HcclCommDestroy");
  EXPECT(HcclCommDestroy(comm) == HCCL_E_PARA, "second HcclCommDestroy");
  device.Close();
}

// The program never calls MPI: libhccl initializes it on first use and aclFinalize
// finalizes it (mpirun fails the job if a process exits without MPI_Finalize).
void RunWithoutMpiCalls(const char* directory) {
  const char* rank_text = std::getenv("OMPI_COMM_WORLD_RANK");
  const char* size_text = std::getenv("OMPI_COMM_WORLD_SIZE");
  g_rank = rank_text != nullptr && *rank_text != '\0' ? std::atoi(rank_text) : 0;
  g_size = size_text != nullptr && *size_text != '\0' ? std::atoi(size_text) : 1;
  Device device;
  if (!device.Open()) return Failure("runtime setup: %s", aclGetRecentErrMsg());
  HcclRootInfo root;
  // Named after the MPI job, so a file left by an earlier run is never mistaken for ours.
  const char* job = std::getenv("OMPI_MCA_ess_base_jobid");
  mkdir(directory, 0755);
  const std::string path = std::string(directory) + "/root_info." + (job != nullptr ? job : "singleton");
  if (g_rank == 0) {
    if (HcclGetRootInfo(&root) != HCCL_SUCCESS) return Failure("HcclGetRootInfo");
    const std::string scratch = path + ".tmp";
    std::ofstream(scratch, std::ios::binary).write(root.internal, HCCL_ROOT_INFO_BYTES);
    std::rename(scratch.c_str(), path.c_str());  // readers see all 4108 bytes or nothing
  } else {
    for (int attempt = 0;; ++attempt) {
      std::ifstream file(path, std::ios::binary);
      if (file && file.read(root.internal, HCCL_ROOT_INFO_BYTES)) break;
      if (attempt > 3000) return Failure("no root info at %s", path.c_str());
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  HcclComm comm = nullptr;
  REQUIRE_HCCL(HcclCommInitRootInfo(static_cast<uint32_t>(g_size), &root, static_cast<uint32_t>(g_rank), &comm));
  // Every rank has read the file once the (collective) initialization returned.
  if (g_rank == 0) std::remove(path.c_str());
  std::vector<float> data(10, static_cast<float>(g_rank + 1));
  REQUIRE_HCCL(HcclAllReduce(data.data(), data.data(), data.size(), HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm,
                             device.stream));
  REQUIRE_ACL(aclrtSynchronizeStream(device.stream));
  EXPECT(data[9] == g_size * (g_size + 1) / 2.0f, "sum %g", data[9]);
  EXPECT(HcclCommDestroy(comm) == HCCL_SUCCESS, "HcclCommDestroy");
  device.Close();
  if (g_failures == 0) std::printf("rank %d: PASS (no MPI calls in the program)\n", g_rank);
}

// Every rank calls HcclCommInitRootInfo with a disagreement; every rank must be told.
void RunBootstrap(const std::string& which) {
  HcclRootInfo root;
  if (g_rank == 0) HcclGetRootInfo(&root);
  MPI_Bcast(&root, HCCL_ROOT_INFO_BYTES, MPI_CHAR, 0, MPI_COMM_WORLD);
  uint32_t n_ranks = static_cast<uint32_t>(g_size);
  uint32_t rank = static_cast<uint32_t>(g_rank);
  if (which == "nranks-not-job-size") {
    n_ranks = static_cast<uint32_t>(g_size + 1);
  } else if (which == "duplicate-rank") {
    rank = g_rank == g_size - 1 ? 0 : rank;
  } else if (which == "different-root") {
    HcclGetRootInfo(&root);  // each rank its own
  } else if (which == "nranks-disagree") {
    if (g_rank == g_size - 1) n_ranks = static_cast<uint32_t>(g_size + 1);
  } else if (which == "rank-out-of-range") {
    if (g_rank == g_size - 1) rank = n_ranks;
  } else {
    return Failure("unknown bootstrap case %s", which.c_str());
  }
  HcclComm comm = nullptr;
  const HcclResult status = HcclCommInitRootInfo(n_ranks, &root, rank, &comm);
  // W = 1: a duplicate or a different root cannot happen with one rank.
  const bool can_disagree = g_size > 1 || which == "nranks-not-job-size" || which == "nranks-disagree" ||
                            which == "rank-out-of-range";
  if (can_disagree) {
    EXPECT(status == HCCL_E_PARA, "bootstrap %s: got %s, expected HCCL_E_PARA", which.c_str(), HcclGetErrorString(status));
  } else {
    EXPECT(status == HCCL_SUCCESS, "bootstrap %s with one rank: %s", which.c_str(), HcclGetErrorString(status));
    if (status == HCCL_SUCCESS) HcclCommDestroy(comm);
  }
}

void RunMismatch() {
  Device device;
  if (!device.Open()) return Failure("runtime setup: %s", aclGetRecentErrMsg());
  HcclComm comm = CannStyleInit();
  if (comm == nullptr) return;
  const bool odd = g_rank == g_size - 1 && g_size > 1;
  std::vector<float> data(8, 1.0f);
  // A different count on the last rank.
  REQUIRE_HCCL(HcclAllReduce(data.data(), data.data(), odd ? 5 : 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm,
                             device.stream));
  aclError status = aclrtSynchronizeStream(device.stream);
  if (g_size > 1) {
    EXPECT(status == ACL_ERROR_RT_FAILURE, "count mismatch: aclrtSynchronizeStream returned %d", status);
    EXPECT(std::strstr(aclGetRecentErrMsg(), "different collectives") != nullptr, "message: %s", aclGetRecentErrMsg());
    EXPECT(data[0] == 1.0f, "a mismatched collective must not touch the data");
  }
  // A different dataType, then a different collective.
  REQUIRE_HCCL(HcclAllReduce(data.data(), data.data(), 4, odd ? HCCL_DATA_TYPE_INT32 : HCCL_DATA_TYPE_FP32,
                             HCCL_REDUCE_SUM, comm, device.stream));
  status = aclrtSynchronizeStream(device.stream);
  EXPECT(g_size == 1 || status == ACL_ERROR_RT_FAILURE, "dataType mismatch: %d", status);
  std::vector<float> gathered(8 * g_size);
  if (odd) {
    REQUIRE_HCCL(HcclAllGather(data.data(), gathered.data(), 4, HCCL_DATA_TYPE_FP32, comm, device.stream));
  } else {
    REQUIRE_HCCL(HcclAllReduce(data.data(), data.data(), 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, device.stream));
  }
  status = aclrtSynchronizeStream(device.stream);
  EXPECT(g_size == 1 || status == ACL_ERROR_RT_FAILURE, "collective mismatch: %d", status);
  // ReduceScatter on the last rank, AllReduce elsewhere (same count and type).
  std::vector<float> blocks(4 * g_size, 1.0f);
  if (odd) {
    REQUIRE_HCCL(HcclReduceScatter(blocks.data(), data.data(), 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm,
                                   device.stream));
  } else {
    REQUIRE_HCCL(HcclAllReduce(data.data(), data.data(), 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, device.stream));
  }
  status = aclrtSynchronizeStream(device.stream);
  if (g_size > 1) {
    EXPECT(status == ACL_ERROR_RT_FAILURE, "ReduceScatter / AllReduce mismatch: %d", status);
    EXPECT(std::strstr(aclGetRecentErrMsg(), "HcclReduceScatter") != nullptr, "message: %s", aclGetRecentErrMsg());
  }
  // Reduce to different roots.
  if (g_size > 1) {
    REQUIRE_HCCL(HcclReduce(data.data(), data.data(), 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, odd ? 1 : 0, comm,
                            device.stream));
    status = aclrtSynchronizeStream(device.stream);
    EXPECT(status == ACL_ERROR_RT_FAILURE, "Reduce to different roots: %d", status);
    EXPECT(std::strstr(aclGetRecentErrMsg(), "root=1") != nullptr, "message: %s", aclGetRecentErrMsg());
  }
  // AlltoAllV whose counts do not pair up: the last rank expects one element more from
  // rank 0 than rank 0 sends it.
  {
    std::vector<uint64_t> counts(g_size, 1), displs(g_size), recv_counts(g_size, 1);
    for (int r = 0; r < g_size; ++r) displs[r] = static_cast<uint64_t>(r) * 2;
    if (odd) recv_counts[0] = 2;
    std::vector<float> out(2 * g_size, -5.0f), in(2 * g_size, 3.0f);
    REQUIRE_HCCL(HcclAlltoAllV(in.data(), counts.data(), displs.data(), HCCL_DATA_TYPE_FP32, out.data(),
                               recv_counts.data(), displs.data(), HCCL_DATA_TYPE_FP32, comm, device.stream));
    status = aclrtSynchronizeStream(device.stream);
    if (g_size > 1) {
      EXPECT(status == ACL_ERROR_RT_FAILURE, "AlltoAllV counts that do not pair up: %d", status);
      EXPECT(std::strstr(aclGetRecentErrMsg(), "do not pair up") != nullptr, "message: %s", aclGetRecentErrMsg());
      EXPECT(out[0] == -5.0f, "AlltoAllV counts that do not pair up must move no data");
    }
  }
  // A Send and a Recv that disagree on the count, then on the dataType: both sides fail and
  // the receiver's buffer is untouched; an agreeing pair then works.
  if (g_size > 1 && g_rank < 2) {
    std::vector<int32_t> payload(5, 42), landing(5, -7);
    const bool sender = g_rank == 0;
    const auto pair = [&](uint64_t count, HcclDataType receive_type) {
      return sender ? HcclSend(payload.data(), count, HCCL_DATA_TYPE_INT32, 1, comm, device.stream)
                    : HcclRecv(landing.data(), 4, receive_type, 0, comm, device.stream);
    };
    REQUIRE_HCCL(pair(5, HCCL_DATA_TYPE_INT32));
    status = aclrtSynchronizeStream(device.stream);
    EXPECT(status == ACL_ERROR_RT_FAILURE, "Send count 5 / Recv count 4: %d", status);
    EXPECT(std::strstr(aclGetRecentErrMsg(), "point-to-point pair disagrees") != nullptr, "message: %s",
           aclGetRecentErrMsg());
    REQUIRE_HCCL(pair(4, HCCL_DATA_TYPE_FP32));
    status = aclrtSynchronizeStream(device.stream);
    EXPECT(status == ACL_ERROR_RT_FAILURE, "Send INT32 / Recv FP32: %d", status);
    EXPECT(landing[0] == -7 && landing[4] == -7, "a disagreeing pair must not touch the receiver's buffer");
    REQUIRE_HCCL(pair(4, HCCL_DATA_TYPE_INT32));
    EXPECT(aclrtSynchronizeStream(device.stream) == ACL_SUCCESS, "agreeing pair after mismatches: %s",
           aclGetRecentErrMsg());
    EXPECT(sender || (landing[3] == 42 && landing[4] == -7), "agreeing pair: %d %d", landing[3], landing[4]);
    // A batch with one disagreeing transfer (count 3 against 2) and one agreeing one: both
    // ranks fail, the agreeing transfer still arrives, the disagreeing one moves nothing.
    std::vector<int32_t> bad(3, -7), good(2, -7);
    std::vector<HcclSendRecvItem> items = {
        {sender ? HCCL_SEND : HCCL_RECV, sender ? payload.data() : bad.data(), sender ? 3u : 2u,
         HCCL_DATA_TYPE_INT32, sender ? 1u : 0u},
        {sender ? HCCL_SEND : HCCL_RECV, sender ? payload.data() : good.data(), 2, HCCL_DATA_TYPE_INT32,
         sender ? 1u : 0u}};
    REQUIRE_HCCL(HcclBatchSendRecv(items.data(), 2, comm, device.stream));
    status = aclrtSynchronizeStream(device.stream);
    EXPECT(status == ACL_ERROR_RT_FAILURE, "batch with a disagreeing transfer: %d", status);
    EXPECT(std::strstr(aclGetRecentErrMsg(), "point-to-point pair disagrees") != nullptr, "message: %s",
           aclGetRecentErrMsg());
    EXPECT(sender || (bad[0] == -7 && good[0] == 42 && good[1] == 42), "batch: bad %d, good %d %d", bad[0], good[0],
           good[1]);
  }
  // The communicator still works once the ranks agree again.
  std::vector<float> fresh(4, 1.0f);
  REQUIRE_HCCL(HcclAllReduce(fresh.data(), fresh.data(), 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, device.stream));
  EXPECT(aclrtSynchronizeStream(device.stream) == ACL_SUCCESS, "agreeing collective after mismatches: %s",
         aclGetRecentErrMsg());
  EXPECT(fresh[3] == static_cast<float>(g_size), "sum after mismatches: %g", fresh[3]);
  EXPECT(HcclCommDestroy(comm) == HCCL_SUCCESS, "HcclCommDestroy");
  device.Close();
}

void RunPendingDestroy() {
  Device device;
  if (!device.Open()) return Failure("runtime setup: %s", aclGetRecentErrMsg());
  HcclComm comm = CannStyleInit();
  if (comm == nullptr) return;
  std::vector<float> data(4, 1.0f);
  // The last rank joins late, so rank 0's collective is certainly still pending.
  if (g_rank == g_size - 1 && g_size > 1) std::this_thread::sleep_for(std::chrono::milliseconds(500));
  REQUIRE_HCCL(HcclAllReduce(data.data(), data.data(), 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, device.stream));
  if (g_rank == 0 && g_size > 1) {
    EXPECT(HcclCommDestroy(comm) == HCCL_E_AGAIN, "HcclCommDestroy with a pending collective must say HCCL_E_AGAIN");
    uint32_t size = 0;
    EXPECT(HcclGetRankSize(comm, &size) == HCCL_SUCCESS, "the communicator must stay valid after HCCL_E_AGAIN");
  }
  REQUIRE_ACL(aclrtSynchronizeStream(device.stream));
  EXPECT(data[0] == static_cast<float>(g_size), "sum %g", data[0]);
  EXPECT(HcclCommDestroy(comm) == HCCL_SUCCESS, "HcclCommDestroy after synchronizing: %s", aclGetRecentErrMsg());
  device.Close();
}

void RunDeterministicDigest() {
  Device device;
  if (!device.Open()) return Failure("runtime setup: %s", aclGetRecentErrMsg());
  HcclComm comm = CannStyleInit();
  if (comm == nullptr) return;
  setenv("HCCL_DETERMINISTIC", "true", 1);
  uint64_t digest = 1469598103934665603ull;  // FNV-1a over the result bytes
  const auto mix = [&](const void* data, size_t bytes) {
    for (size_t i = 0; i < bytes; ++i) digest = (digest ^ static_cast<const unsigned char*>(data)[i]) * 1099511628211ull;
  };
  const std::vector<float> fp32 = RandomSum<Plain<float>>(comm, device.stream, HCCL_DATA_TYPE_FP32, 100003);
  const std::vector<uint16_t> fp16 = RandomSum<Fp16>(comm, device.stream, HCCL_DATA_TYPE_FP16, 100003);
  const std::vector<uint16_t> bf16 = RandomSum<Bf16>(comm, device.stream, HCCL_DATA_TYPE_BFP16, 100003);
  mix(fp32.data(), fp32.size() * 4);
  mix(fp16.data(), fp16.size() * 2);
  mix(bf16.data(), bf16.size() * 2);
  CheckOrderedSum<Plain<float>>(fp32, "deterministic fp32 (digest run)");
  CheckSameBitsEverywhere<Plain<float>>(fp32, "deterministic fp32 (digest run)");
  if (g_rank == 0) std::printf("digest %016llx\n", static_cast<unsigned long long>(digest));
  EXPECT(HcclCommDestroy(comm) == HCCL_SUCCESS, "HcclCommDestroy");
  device.Close();
}

// The last rank dies instead of joining the collective; the others block in it until
// mpirun, seeing a process end abnormally, terminates the job.
void RunFault(const std::string& how) {
  Device device;
  if (!device.Open()) return Failure("runtime setup: %s", aclGetRecentErrMsg());
  HcclComm comm = CannStyleInit();
  if (comm == nullptr) return;
  std::vector<float> data(1024, 1.0f);
  REQUIRE_HCCL(HcclAllReduce(data.data(), data.data(), data.size(), HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm,
                             device.stream));
  REQUIRE_ACL(aclrtSynchronizeStream(device.stream));  // one good step first
  if (g_rank == g_size - 1) {
    std::fprintf(stderr, "rank %d: dying on purpose (%s) mid-step\n", g_rank, how.c_str());
    if (how == "abort") std::abort();
    std::_Exit(3);
  }
  REQUIRE_HCCL(HcclAllReduce(data.data(), data.data(), data.size(), HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm,
                             device.stream));
  aclrtSynchronizeStream(device.stream);  // never returns normally: the peer is gone
  Failure("the collective with a dead peer returned");
}


// HCCL_EXEC_TIMEOUT=1 (tests/hccl/CMakeLists.txt). Waiting ranks must fail within the
// timeout plus a margin, name HCCL_EXEC_TIMEOUT, and leave the communicator broken.
void ExpectTimedOut(HcclComm comm, aclrtStream stream, const char* what) {
  const auto start = std::chrono::steady_clock::now();
  const aclError status = aclrtSynchronizeStream(stream);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT(status == ACL_ERROR_RT_FAILURE, "%s: aclrtSynchronizeStream returned %d", what, status);
  EXPECT(std::strstr(aclGetRecentErrMsg(), "HCCL_EXEC_TIMEOUT=1 s") != nullptr, "%s: message: %s", what,
         aclGetRecentErrMsg());
  EXPECT(seconds > 0.9 && seconds < 4.0, "%s: failed after %.2f s, expected about 1 s", what, seconds);
  HcclResult async_error = HCCL_SUCCESS;
  EXPECT(HcclGetCommAsyncError(comm, &async_error) == HCCL_SUCCESS && async_error == HCCL_E_TIMEOUT,
         "%s: HcclGetCommAsyncError gave %d", what, async_error);
  // Broken: the next operation is refused at once with the stored error.
  std::vector<float> data(4, 1.0f);
  EXPECT(HcclAllReduce(data.data(), data.data(), 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream) ==
             HCCL_E_TIMEOUT, "%s: an AllReduce on the broken communicator was accepted", what);
  EXPECT(std::strstr(aclGetRecentErrMsg(), "broken") != nullptr, "%s: message: %s", what, aclGetRecentErrMsg());
}

void RunExecTimeout() {
  Device device;
  if (!device.Open()) return Failure("runtime setup: %s", aclGetRecentErrMsg());
  HcclComm everyone = CannStyleInit();
  if (everyone == nullptr) return;
  // `pairs`: a sub-communicator of every rank whose config's hcclExecTimeOut (1 s) must win
  // over HCCL_EXEC_TIMEOUT=0 (for ever) in the environment.
  setenv("HCCL_EXEC_TIMEOUT", "0", 1);
  HcclCommConfig config;
  HcclCommConfigInit(&config);
  config.hcclExecTimeOut = 1;
  std::vector<uint32_t> ranks(static_cast<size_t>(g_size));
  for (int r = 0; r < g_size; ++r) ranks[r] = static_cast<uint32_t>(r);
  HcclComm pairs = nullptr;
  const HcclResult made = HcclCreateSubCommConfig(&everyone, static_cast<uint32_t>(g_size), ranks.data(), 1,
                                                  static_cast<uint32_t>(g_rank), &config, &pairs);
  setenv("HCCL_EXEC_TIMEOUT", "1", 1);
  REQUIRE_HCCL(made);
  HcclResult async_error = HCCL_E_INTERNAL;
  EXPECT(HcclGetCommAsyncError(everyone, &async_error) == HCCL_SUCCESS && async_error == HCCL_SUCCESS,
         "HcclGetCommAsyncError before any error gave %d", async_error);
  // A correct collective is not slowed down by the polling.
  std::vector<float> data(4, 1.0f);
  REQUIRE_HCCL(HcclAllReduce(data.data(), data.data(), 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, everyone,
                             device.stream));
  REQUIRE_ACL(aclrtSynchronizeStream(device.stream));
  EXPECT(data[0] == static_cast<float>(g_size), "AllReduce before the timeouts: %g", data[0]);
  // Rank 1 receives from rank 0, which never sends.
  if (g_rank == 1) {
    std::vector<int32_t> landing(3, -7);
    REQUIRE_HCCL(HcclRecv(landing.data(), 3, HCCL_DATA_TYPE_INT32, 0, pairs, device.stream));
    ExpectTimedOut(pairs, device.stream, "Recv without a Send");
    EXPECT(landing[0] == -7, "a timed-out Recv wrote its buffer");
  }
  // The last rank skips the collective the others issue.
  if (g_rank != g_size - 1) {
    REQUIRE_HCCL(HcclAllReduce(data.data(), data.data(), 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, everyone,
                               device.stream));
    ExpectTimedOut(everyone, device.stream, "AllReduce the last rank skipped");
  } else {
    EXPECT(HcclGetCommAsyncError(everyone, &async_error) == HCCL_SUCCESS && async_error == HCCL_SUCCESS,
           "the rank that skipped: HcclGetCommAsyncError gave %d", async_error);
  }
  EXPECT(HcclCommDestroy(pairs) == HCCL_SUCCESS, "HcclCommDestroy (pairs): %s", aclGetRecentErrMsg());
  EXPECT(HcclCommDestroy(everyone) == HCCL_SUCCESS, "HcclCommDestroy (everyone): %s", aclGetRecentErrMsg());
  device.Close();
}

// Review item 6: a collective the runtime refuses (a destroyed stream) returns an error and
// leaves the communicator as it was: the next collectives work on every rank.
void RunRefusedRetry() {
  Device device;
  if (!device.Open()) return Failure("runtime setup: %s", aclGetRecentErrMsg());
  HcclComm comm = CannStyleInit();
  if (comm == nullptr) return;
  std::vector<float> data(4, 1.0f), out(4, 0.0f);
  if (g_rank == 0) {
    aclrtStream dead = nullptr;
    REQUIRE_ACL(aclrtCreateStream(&dead));
    REQUIRE_ACL(aclrtDestroyStream(dead));
    const HcclResult refused =
        HcclAllReduce(data.data(), out.data(), 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, dead);
    EXPECT(refused != HCCL_SUCCESS, "AllReduce on a destroyed stream was accepted");
  }
  for (int round = 0; round < 3; ++round) {
    std::fill(out.begin(), out.end(), 0.0f);
    REQUIRE_HCCL(HcclAllReduce(data.data(), out.data(), 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, device.stream));
    const aclError status = aclrtSynchronizeStream(device.stream);
    EXPECT(status == ACL_SUCCESS, "round %d after a refused collective: %s", round, aclGetRecentErrMsg());
    EXPECT(out[0] == static_cast<float>(g_size), "round %d: out[0] = %g, expected %d", round, out[0], g_size);
  }
  EXPECT(HcclCommDestroy(comm) == HCCL_SUCCESS, "HcclCommDestroy");
  device.Close();
}

// Review item 7: one communicator on two streams. Every rank issues #0 on stream 1 and #1
// on stream 2; one rank's stream 1 is busy first (a large memset), so its stream 2 reaches
// its collective first. Collectives run in issue order: both succeed with the right sums.
void RunTwoStreamsInIssueOrder() {
  Device device;
  if (!device.Open()) return Failure("runtime setup: %s", aclGetRecentErrMsg());
  HcclComm comm = CannStyleInit();
  if (comm == nullptr) return;
  aclrtStream second = nullptr;
  REQUIRE_ACL(aclrtCreateStream(&second));
  const size_t busy_bytes = size_t{64} << 20;
  void* busy = nullptr;
  REQUIRE_ACL(aclrtMalloc(&busy, busy_bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  for (int slow_rank = 0; slow_rank < g_size; ++slow_rank) {
    if (g_rank == slow_rank) REQUIRE_ACL(aclrtMemsetAsync(busy, busy_bytes, 1, busy_bytes, device.stream));
    std::vector<float> a(4, 1.0f), b(4, 2.0f);
    REQUIRE_HCCL(HcclAllReduce(a.data(), a.data(), 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, device.stream));
    REQUIRE_HCCL(HcclAllReduce(b.data(), b.data(), 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, second));
    const aclError first_status = aclrtSynchronizeStream(device.stream);
    EXPECT(first_status == ACL_SUCCESS, "slow rank %d: stream 1: %s", slow_rank, aclGetRecentErrMsg());
    const aclError second_status = aclrtSynchronizeStream(second);
    EXPECT(second_status == ACL_SUCCESS, "slow rank %d: stream 2: %s", slow_rank, aclGetRecentErrMsg());
    EXPECT(a[0] == static_cast<float>(g_size) && b[0] == 2.0f * g_size, "slow rank %d: a = %g, b = %g", slow_rank,
           a[0], b[0]);
  }
  // The same with the other kinds of operation: a ReduceScatter and a Send/Recv pair (ranks
  // 0 and 1) on stream 1, an AlltoAll on stream 2.
  for (int slow_rank = 0; slow_rank < g_size; ++slow_rank) {
    if (g_rank == slow_rank) REQUIRE_ACL(aclrtMemsetAsync(busy, busy_bytes, 1, busy_bytes, device.stream));
    std::vector<int32_t> blocks(2 * g_size, 1), scattered(2, 0), pair(3, g_rank == 0 ? 7 : 0);
    std::vector<int32_t> to_all(g_size, g_rank), from_all(g_size, -1);
    REQUIRE_HCCL(HcclReduceScatter(blocks.data(), scattered.data(), 2, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, comm,
                                   device.stream));
    if (g_size > 1 && g_rank == 0) REQUIRE_HCCL(HcclSend(pair.data(), 3, HCCL_DATA_TYPE_INT32, 1, comm, device.stream));
    if (g_size > 1 && g_rank == 1) REQUIRE_HCCL(HcclRecv(pair.data(), 3, HCCL_DATA_TYPE_INT32, 0, comm, device.stream));
    REQUIRE_HCCL(HcclAlltoAll(to_all.data(), 1, HCCL_DATA_TYPE_INT32, from_all.data(), 1, HCCL_DATA_TYPE_INT32, comm,
                              second));
    const aclError first_status = aclrtSynchronizeStream(device.stream);
    EXPECT(first_status == ACL_SUCCESS, "slow rank %d: stream 1: %s", slow_rank, aclGetRecentErrMsg());
    const aclError second_status = aclrtSynchronizeStream(second);
    EXPECT(second_status == ACL_SUCCESS, "slow rank %d: stream 2: %s", slow_rank, aclGetRecentErrMsg());
    EXPECT(scattered[1] == g_size && (g_size == 1 || g_rank > 1 || pair[2] == 7) && from_all[g_size - 1] == g_size - 1,
           "slow rank %d: scattered %d, pair %d, from_all %d", slow_rank, scattered[1], pair[2], from_all[g_size - 1]);
  }
  REQUIRE_ACL(aclrtFree(busy));
  REQUIRE_ACL(aclrtDestroyStream(second));
  EXPECT(HcclCommDestroy(comm) == HCCL_SUCCESS, "HcclCommDestroy");
  device.Close();
}

// Review item 8: MAX and MIN of every float type propagate a NaN whatever rank holds it.
// Element k is NaN on rank k and 1 (MAX) / -1 (MIN) elsewhere, so every element of the
// result must be NaN on every rank.
// ReduceScatter: every one of the W blocks is laid out so, and each rank's block must come
// back all NaN (ReduceScatterV: the same blocks through its counts and displacements).
// Reduce: the root's result (root W-1).
enum class Reduction { kAllReduce, kReduceScatter, kReduce, kReduceScatterV };

template <class Type>
void CheckNanPropagates(HcclComm comm, aclrtStream stream, HcclDataType type, HcclReduceOp op, const char* what,
                        Reduction reduction) {
  using Storage = typename Type::Storage;
  const bool reduce_scatter = reduction == Reduction::kReduceScatter || reduction == Reduction::kReduceScatterV;
  const size_t blocks = reduce_scatter ? static_cast<size_t>(g_size) : 1;
  std::vector<Storage> data(static_cast<size_t>(g_size) * blocks), out(static_cast<size_t>(g_size));
  for (size_t j = 0; j < data.size(); ++j) {
    data[j] = Type::From(static_cast<int>(j % g_size) == g_rank ? NAN : (op == HCCL_REDUCE_MAX ? 1.0 : -1.0));
  }
  const int root = g_size - 1;
  if (reduction == Reduction::kReduceScatterV) {
    std::vector<uint64_t> counts(g_size, out.size()), displs(g_size);
    for (int j = 0; j < g_size; ++j) displs[j] = static_cast<uint64_t>(j) * out.size();
    REQUIRE_HCCL(HcclReduceScatterV(data.data(), counts.data(), displs.data(), out.data(), out.size(), type, op, comm,
                                    stream));
  } else if (reduce_scatter) {
    REQUIRE_HCCL(HcclReduceScatter(data.data(), out.data(), out.size(), type, op, comm, stream));
  } else if (reduction == Reduction::kReduce) {
    REQUIRE_HCCL(HcclReduce(data.data(), out.data(), out.size(), type, op, static_cast<uint32_t>(root), comm, stream));
  } else {
    REQUIRE_HCCL(HcclAllReduce(data.data(), out.data(), out.size(), type, op, comm, stream));
  }
  REQUIRE_ACL(aclrtSynchronizeStream(stream));
  if (reduction == Reduction::kReduce && g_rank != root) return;
  static const char* const names[] = {"AllReduce", "ReduceScatter", "Reduce", "ReduceScatterV"};
  for (int k = 0; k < g_size; ++k) {
    EXPECT(std::isnan(Type::To(out[k])), "%s %s %s: element %d (NaN on rank %d) came back %g",
           names[static_cast<int>(reduction)], what, op == HCCL_REDUCE_MAX ? "MAX" : "MIN", k, k, Type::To(out[k]));
  }
}

void RunNanMaxMin() {
  Device device;
  if (!device.Open()) return Failure("runtime setup: %s", aclGetRecentErrMsg());
  HcclComm comm = CannStyleInit();
  if (comm == nullptr) return;
  for (HcclReduceOp op : {HCCL_REDUCE_MAX, HCCL_REDUCE_MIN}) {
    for (Reduction reduction :
         {Reduction::kAllReduce, Reduction::kReduceScatter, Reduction::kReduce, Reduction::kReduceScatterV}) {
      CheckNanPropagates<Plain<float>>(comm, device.stream, HCCL_DATA_TYPE_FP32, op, "fp32", reduction);
      CheckNanPropagates<Plain<double>>(comm, device.stream, HCCL_DATA_TYPE_FP64, op, "fp64", reduction);
      CheckNanPropagates<Fp16>(comm, device.stream, HCCL_DATA_TYPE_FP16, op, "fp16", reduction);
      CheckNanPropagates<Bf16>(comm, device.stream, HCCL_DATA_TYPE_BFP16, op, "bf16", reduction);
    }
  }
  EXPECT(HcclCommDestroy(comm) == HCCL_SUCCESS, "HcclCommDestroy");
  device.Close();
}

}  // namespace

int main(int argc, char** argv) {
  // A rank that hangs (a collective that never gets its turn, a peer that never comes) dies
  // of SIGALRM well inside ctest's timeout, so mpirun fails the test at once.
  alarm(150);
  const std::string scenario = argc > 1 ? argv[1] : "collectives";
  if (scenario == "no-mpi-calls") {
    RunWithoutMpiCalls(argc > 2 ? argv[2] : "/tmp");
    return g_failures == 0 ? 0 : 1;
  }
  MPI_Init(&argc, &argv);  // as CANN's samples do: plain MPI_Init, before aclInit
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  if (scenario == "collectives") {
    RunCollectives();
  } else if (scenario == "bootstrap" && argc > 2) {
    RunBootstrap(argv[2]);
  } else if (scenario == "mismatch") {
    RunMismatch();
  } else if (scenario == "pending-destroy") {
    RunPendingDestroy();
  } else if (scenario == "deterministic-digest") {
    RunDeterministicDigest();
  } else if (scenario == "refused-retry") {
    RunRefusedRetry();
  } else if (scenario == "two-streams") {
    RunTwoStreamsInIssueOrder();
  } else if (scenario == "nan-max-min") {
    RunNanMaxMin();
  } else if (scenario == "exec-timeout") {
    RunExecTimeout();
  } else if (scenario == "fault" && argc > 2) {
    RunFault(argv[2]);
  } else {
    Failure("unknown scenario %s", scenario.c_str());
  }
  int failures = 0;
  MPI_Allreduce(&g_failures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) std::printf("%s on %d rank(s): %s\n", scenario.c_str(), g_size, failures == 0 ? "PASS" : "FAIL");
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
