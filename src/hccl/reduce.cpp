// The reducing collectives: HcclAllReduce, with the deterministic (rank-ordered) path.
#include <algorithm>
#include <cstring>
#include <vector>

#include "hccl_internal.h"

namespace oa {
namespace hccl {
namespace {

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

}  // namespace

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

}  // namespace hccl
}  // namespace oa

HCCL_API HcclResult HcclAllReduce(void* sendBuf, void* recvBuf, uint64_t count, HcclDataType dataType,
                                  HcclReduceOp op, HcclComm comm, aclrtStream stream) {
  using namespace oa::hccl;
  static const char* const api = "HcclAllReduce";
  if (count == 0) return HCCL_SUCCESS;  // upstream: before any other check
  if (HcclResult status = CheckStream(api, stream)) return status;
  if (HcclResult status = CheckPointer(api, "comm", comm)) return status;
  if (HcclResult status = CheckPointer(api, "sendBuf", sendBuf)) return status;
  if (HcclResult status = CheckPointer(api, "recvBuf", recvBuf)) return status;
  if (HcclResult status = CheckCount(api, "count", count)) return status;
  // A stale handle is reported at the same point in every collective (some need the
  // communicator for a root check); Enqueue checks again under its lock.
  if (HcclResult status = CheckCommunicator(api, comm)) return status;
  if (HcclResult status = CheckReduction(api, dataType, op)) return status;
  Collective collective{Kind::kAllReduce, static_cast<unsigned char*>(sendBuf), static_cast<unsigned char*>(recvBuf),
                        count, dataType, op, 0, false, 0};
  return Enqueue(api, comm, stream, collective);
}
