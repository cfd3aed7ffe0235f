// The reducing collectives: HcclAllReduce, HcclReduceScatter, HcclReduce and
// HcclReduceScatterV, with the deterministic (rank-ordered) path.
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

// The deterministic combination: operand r of element i lies at operands + r * stride +
// i * element; they are combined in rank order 0, 1, ..., W-1 (fp16/bf16 accumulated in
// fp32 and rounded once, fp32 in fp32, fp64 in fp64), so the bits depend neither on the MPI
// algorithm nor on the run.
void CombineInRankOrder(const unsigned char* operands, size_t stride, uint32_t ranks, uint64_t length,
                        HcclDataType type, HcclReduceOp op, unsigned char* target) {
  const size_t element = ElementSize(type);
  const bool sum = op == HCCL_REDUCE_SUM;
  for (uint64_t i = 0; i < length; ++i) {
    const unsigned char* first = operands + i * element;
    if (type == HCCL_DATA_TYPE_FP64) {
      double accumulator = AsDouble<double>(first);
      for (uint32_t r = 1; r < ranks; ++r) {
        const double value = AsDouble<double>(first + r * stride);
        accumulator = sum ? accumulator + value : accumulator * value;
      }
      std::memcpy(target + i * element, &accumulator, element);
    } else if (type == HCCL_DATA_TYPE_FP32) {
      float accumulator = static_cast<float>(AsDouble<float>(first));
      for (uint32_t r = 1; r < ranks; ++r) {
        const float value = static_cast<float>(AsDouble<float>(first + r * stride));
        accumulator = sum ? accumulator + value : accumulator * value;
      }
      std::memcpy(target + i * element, &accumulator, element);
    } else {
      const bool bf16 = type == HCCL_DATA_TYPE_BFP16;
      uint16_t bits;
      std::memcpy(&bits, first, 2);
      float accumulator = HalfValue(bits, bf16);
      for (uint32_t r = 1; r < ranks; ++r) {
        std::memcpy(&bits, first + r * stride, 2);
        const float value = HalfValue(bits, bf16);
        accumulator = sum ? accumulator + value : accumulator * value;
      }
      bits = HalfBits(accumulator, bf16);
      std::memcpy(target + i * element, &bits, 2);
    }
  }
}

// Floating SUM and PROD in deterministic mode take the ordered path; integers, MAX and MIN
// are exact in any order.
bool Ordered(const Collective& op) {
  return op.deterministic && FloatingType(op.type) && (op.op == HCCL_REDUCE_SUM || op.op == HCCL_REDUCE_PROD);
}

// The ordered path gathers W operands per element: smaller chunks bound that buffer
// (W x 4 MiB for fp32) without costing SyncBN's short vectors anything.
constexpr uint64_t kOrderedChunkElements = uint64_t{1} << 20;

uint64_t ReductionChunk(const Collective& op) {
  const uint64_t chunk = ChunkElements(ElementSize(op.type));
  return Ordered(op) ? std::min(chunk, kOrderedChunkElements) : chunk;
}

// Combines the W operands of `length` elements (operand r at operands + r * stride) into
// target in rank order: the deterministic combination when the mode asks for it, else MPI's
// operation applied locally, rank after rank.
std::string CombineOperands(uint32_t ranks, const Collective& op, const unsigned char* operands, size_t stride,
                            uint64_t length, unsigned char* target) {
  if (Ordered(op)) {
    CombineInRankOrder(operands, stride, ranks, length, op.type, op.op, target);
    return "";
  }
  std::memcpy(target, operands, length * ElementSize(op.type));
  if (ranks == 1) return "";  // a single rank may run without MPI
  MPI_Datatype mpi_type;
  MPI_Op mpi_op;
  MpiTypeAndOp(op.type, op.op, &mpi_type, &mpi_op);
  for (uint32_t r = 1; r < ranks; ++r) {
    const int status = MPI_Reduce_local(operands + r * stride, target, static_cast<int>(length), mpi_type, mpi_op);
    if (status != MPI_SUCCESS) return "MPI_Reduce_local failed: " + MpiErrorText(status);
  }
  return "";
}

}  // namespace

std::string RunAllReduce(const Communicator& comm, const Collective& op) {
  const size_t element = ElementSize(op.type);
  const uint64_t chunk = ReductionChunk(op);
  MPI_Datatype mpi_type;
  MPI_Op mpi_op;
  MpiTypeAndOp(op.type, op.op, &mpi_type, &mpi_op);
  std::vector<unsigned char> operands;
  for (uint64_t offset = 0; offset < op.count; offset += chunk) {
    const uint64_t length = std::min(chunk, op.count - offset);
    if (Ordered(op)) {
      // Every rank's operands, then the same ordered combination on every rank.
      const int bytes = static_cast<int>(length * element);
      operands.resize(static_cast<size_t>(bytes) * comm.size);
      const int status = MPI_Allgather(op.send + offset * element, bytes, MPI_BYTE, operands.data(), bytes, MPI_BYTE,
                                       comm.mpi);
      if (status != MPI_SUCCESS) return "MPI_Allgather failed: " + MpiErrorText(status);
      CombineInRankOrder(operands.data(), bytes, comm.size, length, op.type, op.op, op.recv + offset * element);
      continue;
    }
    const void* source = op.send == op.recv ? MPI_IN_PLACE : op.send + offset * element;
    const int status =
        MPI_Allreduce(source, op.recv + offset * element, static_cast<int>(length), mpi_type, mpi_op, comm.mpi);
    if (status != MPI_SUCCESS) return "MPI_Allreduce failed: " + MpiErrorText(status);
  }
  return "";
}

// sendBuf holds W blocks of recvCount elements; this rank receives the reduction of every
// rank's block `rank`. In place (sendBuf == recvBuf), as MPI's: the result replaces the
// first recvCount elements.
std::string RunReduceScatter(const Communicator& comm, const Collective& op) {
  const size_t element = ElementSize(op.type);
  const uint64_t block_bytes = op.count * element;
  const uint64_t chunk = ReductionChunk(op);
  MPI_Datatype mpi_type;
  MPI_Op mpi_op;
  MpiTypeAndOp(op.type, op.op, &mpi_type, &mpi_op);
  if (!Ordered(op) && op.count <= chunk) {
    const int status = MPI_Reduce_scatter_block(op.send == op.recv ? MPI_IN_PLACE : op.send, op.recv,
                                                static_cast<int>(op.count), mpi_type, mpi_op, comm.mpi);
    return status == MPI_SUCCESS ? "" : "MPI_Reduce_scatter_block failed: " + MpiErrorText(status);
  }
  // In chunks: chunk c of every block at once. In place, the result of chunk c lands in
  // block 0's chunk c, which this step has already read and no later step reads.
  std::vector<unsigned char> operands;
  for (uint64_t offset = 0; offset < op.count; offset += chunk) {
    const uint64_t length = std::min(chunk, op.count - offset);
    const int bytes = static_cast<int>(length * element);
    operands.resize(static_cast<size_t>(bytes) * comm.size);
    unsigned char* target = op.recv + offset * element;
    if (Ordered(op)) {
      // Rank r's chunk of this rank's block arrives as operand r: an all-to-all of the chunks.
      const SpacedBytes blocks(bytes, block_bytes);
      const int status =
          MPI_Alltoall(op.send + offset * element, 1, blocks.type(), operands.data(), bytes, MPI_BYTE, comm.mpi);
      if (status != MPI_SUCCESS) return "MPI_Alltoall failed: " + MpiErrorText(status);
      CombineInRankOrder(operands.data(), bytes, comm.size, length, op.type, op.op, target);
      continue;
    }
    // Packed: MPI reduces contiguous elements of a predefined type only.
    for (uint32_t r = 0; r < comm.size; ++r) {
      std::memcpy(&operands[static_cast<size_t>(r) * bytes], op.send + r * block_bytes + offset * element, bytes);
    }
    const int status =
        MPI_Reduce_scatter_block(operands.data(), target, static_cast<int>(length), mpi_type, mpi_op, comm.mpi);
    if (status != MPI_SUCCESS) return "MPI_Reduce_scatter_block failed: " + MpiErrorText(status);
  }
  return "";
}

// Only the root receives: recvBuf[i] = op over ranks of sendBuf_r[i]; other ranks' recvBuf
// is not written. In place at the root (sendBuf == recvBuf) is MPI's in-place form.
std::string RunReduce(const Communicator& comm, const Collective& op) {
  const size_t element = ElementSize(op.type);
  const uint64_t chunk = ReductionChunk(op);
  const bool at_root = comm.rank == op.root;
  const int root = static_cast<int>(op.root);
  MPI_Datatype mpi_type;
  MPI_Op mpi_op;
  MpiTypeAndOp(op.type, op.op, &mpi_type, &mpi_op);
  std::vector<unsigned char> operands;
  for (uint64_t offset = 0; offset < op.count; offset += chunk) {
    const uint64_t length = std::min(chunk, op.count - offset);
    if (Ordered(op)) {
      // Every rank's operands at the root, combined there in rank order.
      const int bytes = static_cast<int>(length * element);
      if (at_root) operands.resize(static_cast<size_t>(bytes) * comm.size);
      const int status = MPI_Gather(op.send + offset * element, bytes, MPI_BYTE, operands.data(), bytes, MPI_BYTE,
                                    root, comm.mpi);
      if (status != MPI_SUCCESS) return "MPI_Gather failed: " + MpiErrorText(status);
      if (at_root) CombineInRankOrder(operands.data(), bytes, comm.size, length, op.type, op.op, op.recv + offset * element);
      continue;
    }
    const void* source = at_root && op.send == op.recv ? MPI_IN_PLACE : op.send + offset * element;
    const int status = MPI_Reduce(source, at_root ? op.recv + offset * element : nullptr, static_cast<int>(length),
                                  mpi_type, mpi_op, root, comm.mpi);
    if (status != MPI_SUCCESS) return "MPI_Reduce failed: " + MpiErrorText(status);
  }
  return "";
}

// Rank j receives op over all ranks of their block j (sendCounts[j] elements at
// sendDispls[j]; every rank's block j has rank j's recvCount elements). In rounds of one
// chunk: the chunk of every rank's block j travels to rank j (ExchangeBlocks), which
// combines them in rank order.
std::string RunReduceScatterV(const Communicator& comm, const Collective& op) {
  std::string failure = CheckCountsPairUp(comm, op);
  if (!failure.empty()) return failure;
  const size_t element = ElementSize(op.type);
  const uint64_t chunk = ReductionChunk(op);
  // In place, blocks still to be sent may lie where the result goes: it is assembled apart.
  const bool in_place = op.send == op.recv;
  std::vector<unsigned char> assembled(in_place ? op.count * element : 0);
  unsigned char* result = in_place ? assembled.data() : op.recv;
  uint64_t longest = op.count;
  for (uint64_t count : op.send_counts) longest = std::max(longest, count);
  const auto part = [&](uint64_t count, uint64_t offset) { return count > offset ? std::min(chunk, count - offset) : 0; };
  std::vector<unsigned char> operands;
  Collective round = op;
  for (uint64_t offset = 0; offset < longest; offset += chunk) {
    const uint64_t length = part(op.count, offset);
    operands.resize(static_cast<size_t>(length * element) * comm.size);
    round.recv = operands.data();
    for (uint32_t r = 0; r < comm.size; ++r) {
      round.send_counts[r] = part(op.send_counts[r], offset);
      round.send_displs[r] = op.send_displs[r] + offset;
      round.recv_counts[r] = length;
      round.recv_displs[r] = r * length;
    }
    failure = ExchangeBlocks(comm, round);
    if (failure.empty() && length != 0) {
      failure = CombineOperands(comm.size, op, operands.data(), length * element, length, result + offset * element);
    }
    if (!failure.empty()) return failure;
  }
  if (!assembled.empty()) std::memcpy(op.recv, assembled.data(), assembled.size());
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

HCCL_API HcclResult HcclReduceScatter(void* sendBuf, void* recvBuf, uint64_t recvCount, HcclDataType dataType,
                                      HcclReduceOp op, HcclComm comm, aclrtStream stream) {
  using namespace oa::hccl;
  static const char* const api = "HcclReduceScatter";
  if (recvCount == 0) return HCCL_SUCCESS;  // upstream: before any other check
  if (HcclResult status = CheckStream(api, stream)) return status;
  if (HcclResult status = CheckPointer(api, "comm", comm)) return status;
  if (HcclResult status = CheckPointer(api, "sendBuf", sendBuf)) return status;
  if (HcclResult status = CheckPointer(api, "recvBuf", recvBuf)) return status;
  // Upstream asks for the rank size before checking the count.
  if (HcclResult status = CheckCommunicator(api, comm)) return status;
  if (HcclResult status = CheckCount(api, "recvCount", recvCount)) return status;
  if (HcclResult status = CheckReduction(api, dataType, op)) return status;
  Collective collective{Kind::kReduceScatter, static_cast<unsigned char*>(sendBuf),
                        static_cast<unsigned char*>(recvBuf), recvCount, dataType, op, 0, false, 0};
  return Enqueue(api, comm, stream, collective);
}

HCCL_API HcclResult HcclReduce(void* sendBuf, void* recvBuf, uint64_t count, HcclDataType dataType, HcclReduceOp op,
                               uint32_t root, HcclComm comm, aclrtStream stream) {
  using namespace oa::hccl;
  static const char* const api = "HcclReduce";
  if (count == 0) return HCCL_SUCCESS;  // upstream: before any other check
  if (HcclResult status = CheckPointer(api, "comm", comm)) return status;
  if (HcclResult status = CheckPointer(api, "sendBuf", sendBuf)) return status;
  if (HcclResult status = CheckPointer(api, "recvBuf", recvBuf)) return status;  // on every rank, as upstream
  if (HcclResult status = CheckStream(api, stream)) return status;
  if (HcclResult status = CheckCount(api, "count", count)) return status;
  // Upstream checks the type and op before it asks for the rank size.
  if (HcclResult status = CheckReduction(api, dataType, op)) return status;
  std::shared_ptr<Communicator> found;
  if (HcclResult status = CheckCommunicator(api, comm, &found)) return status;
  if (HcclResult status = CheckRoot(api, root, found->size)) return status;
  Collective collective{Kind::kReduce, static_cast<unsigned char*>(sendBuf), static_cast<unsigned char*>(recvBuf), count,
                        dataType, op, root, false, 0};
  return Enqueue(api, comm, stream, collective);
}

HCCL_API HcclResult HcclReduceScatterV(void* sendBuf, const void* sendCounts, const void* sendDispls, void* recvBuf,
                                       uint64_t recvCount, HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                                       aclrtStream stream) {
  using namespace oa::hccl;
  static const char* const api = "HcclReduceScatterV";
  if (HcclResult status = CheckStream(api, stream)) return status;
  if (HcclResult status = CheckPointer(api, "comm", comm)) return status;
  if (HcclResult status = CheckPointer(api, "sendCounts", sendCounts)) return status;
  if (HcclResult status = CheckPointer(api, "sendDispls", sendDispls)) return status;
  if (recvCount > 0) {
    if (HcclResult status = CheckPointer(api, "recvBuf", recvBuf)) return status;
  }
  std::shared_ptr<Communicator> found;
  if (HcclResult status = CheckCommunicator(api, comm, &found)) return status;
  const auto* counts = static_cast<const uint64_t*>(sendCounts);
  const auto* displs = static_cast<const uint64_t*>(sendDispls);
  // Upstream: nothing to send is success at once, nothing queued.
  if (std::all_of(counts, counts + found->size, [](uint64_t count) { return count == 0; })) return HCCL_SUCCESS;
  // Ours (upstream does not check it): sendBuf is read.
  if (HcclResult status = CheckPointer(api, "sendBuf", sendBuf)) return status;
  if (HcclResult status = CheckCount(api, "recvCount", recvCount)) return status;
  if (HcclResult status = CheckReduction(api, dataType, op)) return status;
  Collective collective{Kind::kReduceScatterV, static_cast<unsigned char*>(sendBuf),
                        static_cast<unsigned char*>(recvBuf), recvCount, dataType, op, 0, false, 0};
  collective.send_counts.assign(counts, counts + found->size);
  collective.send_displs.assign(displs, displs + found->size);
  collective.recv_counts.assign(found->size, recvCount);  // what every rank's block for this one holds
  collective.recv_displs.assign(found->size, 0);
  return Enqueue(api, comm, stream, collective);
}
