// The collectives that move data without reducing it: HcclAllGather and HcclBroadcast.
#include <algorithm>
#include <climits>

#include "hccl_internal.h"

namespace oa {
namespace hccl {

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
    const SpacedBytes blocks(bytes, block_bytes);
    const int status = MPI_Allgather(in_place ? MPI_IN_PLACE : op.send + offset * element, bytes, MPI_BYTE,
                                     op.recv + offset * element, 1, blocks.type(), comm.mpi);
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

}  // namespace hccl
}  // namespace oa

HCCL_API HcclResult HcclAllGather(void* sendBuf, void* recvBuf, uint64_t sendCount, HcclDataType dataType,
                                  HcclComm comm, aclrtStream stream) {
  using namespace oa::hccl;
  static const char* const api = "HcclAllGather";
  if (sendCount == 0) return HCCL_SUCCESS;
  if (HcclResult status = CheckStream(api, stream)) return status;
  if (HcclResult status = CheckPointer(api, "comm", comm)) return status;
  if (HcclResult status = CheckPointer(api, "sendBuf", sendBuf)) return status;
  if (HcclResult status = CheckPointer(api, "recvBuf", recvBuf)) return status;
  if (HcclResult status = CheckCount(api, "sendCount", sendCount)) return status;
  if (HcclResult status = CheckCommunicator(api, comm)) return status;
  if (HcclResult status = CheckMovableType(api, dataType)) return status;
  Collective collective{Kind::kAllGather, static_cast<unsigned char*>(sendBuf), static_cast<unsigned char*>(recvBuf),
                        sendCount, dataType, HCCL_REDUCE_SUM, 0, false, 0};
  return Enqueue(api, comm, stream, collective);
}

HCCL_API HcclResult HcclBroadcast(void* buf, uint64_t count, HcclDataType dataType, uint32_t root, HcclComm comm,
                                  aclrtStream stream) {
  using namespace oa::hccl;
  static const char* const api = "HcclBroadcast";
  if (count == 0) return HCCL_SUCCESS;
  if (HcclResult status = CheckPointer(api, "comm", comm)) return status;
  if (HcclResult status = CheckPointer(api, "buf", buf)) return status;
  if (HcclResult status = CheckStream(api, stream)) return status;
  if (HcclResult status = CheckCount(api, "count", count)) return status;
  // Upstream checks root against the rank size before the type.
  std::shared_ptr<Communicator> found;
  if (HcclResult status = CheckCommunicator(api, comm, &found)) return status;
  if (HcclResult status = CheckRoot(api, root, found->size)) return status;
  if (HcclResult status = CheckMovableType(api, dataType)) return status;
  Collective collective{Kind::kBroadcast, nullptr, static_cast<unsigned char*>(buf), count, dataType, HCCL_REDUCE_SUM,
                        root, false, 0};
  return Enqueue(api, comm, stream, collective);
}
