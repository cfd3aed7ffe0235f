// The collectives that move data without reducing it: HcclAllGather, HcclAllGatherV,
// HcclBroadcast, HcclScatter, HcclAlltoAll and HcclAlltoAllV.
#include <algorithm>
#include <climits>
#include <cstring>
#include <vector>

#include "core/dtype.h"

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

// The root's sendBuf holds W blocks of recvCount elements; rank r receives block r. The
// root's recvBuf may be its own block inside sendBuf (MPI's in-place form).
std::string RunScatter(const Communicator& comm, const Collective& op) {
  const size_t element = ElementSize(op.type);
  const uint64_t block_bytes = op.count * element;
  const bool at_root = comm.rank == op.root;
  const bool in_place = at_root && op.recv == op.send + op.root * block_bytes;
  const int root = static_cast<int>(op.root);
  const uint64_t chunk = ChunkElements(element);
  for (uint64_t offset = 0; offset < op.count; offset += chunk) {
    const int bytes = static_cast<int>(std::min(chunk, op.count - offset) * element);
    // Chunk c of every block leaves the root in one call: one chunk spaced a block apart.
    const SpacedBytes blocks(bytes, block_bytes);
    const int status = MPI_Scatter(at_root ? op.send + offset * element : nullptr, 1, blocks.type(),
                                   in_place ? MPI_IN_PLACE : op.recv + offset * element, bytes, MPI_BYTE, root,
                                   comm.mpi);
    if (status != MPI_SUCCESS) return "MPI_Scatter failed: " + MpiErrorText(status);
  }
  return "";
}

// What rank r sends rank j must be what rank j expects from rank r. Every rank gathers
// every rank's counts and reports the same first mismatch.
std::string CheckCountsPairUp(const Communicator& comm, const Collective& op) {
  const size_t ranks = comm.size;
  std::vector<uint64_t> mine(op.send_counts);
  mine.insert(mine.end(), op.recv_counts.begin(), op.recv_counts.end());
  std::vector<uint64_t> all(mine);
  if (comm.use_mpi) {
    all.resize(ranks * mine.size());
    const int words = static_cast<int>(mine.size());
    const int status = MPI_Allgather(mine.data(), words, MPI_UINT64_T, all.data(), words, MPI_UINT64_T, comm.mpi);
    if (status != MPI_SUCCESS) return "exchanging the counts failed: " + MpiErrorText(status);
  }
  const auto sends = [&](size_t from, size_t to) { return all[from * 2 * ranks + to]; };
  const auto expects = [&](size_t at, size_t from) { return all[at * 2 * ranks + ranks + from]; };
  for (size_t from = 0; from < ranks; ++from) {
    for (size_t to = 0; to < ranks; ++to) {
      if (sends(from, to) == expects(to, from)) continue;
      return "the ranks' send and receive counts do not pair up: rank " + std::to_string(from) + " sends rank " +
             std::to_string(to) + " " + std::to_string(sends(from, to)) + " element(s) but rank " + std::to_string(to) +
             " expects " + std::to_string(expects(to, from)) + " from rank " + std::to_string(from) +
             "; no data were exchanged";
    }
  }
  return "";
}

std::string ExchangeBlocks(const Communicator& comm, const Collective& op) {
  const size_t element = ElementSize(op.type);
  const uint64_t chunk = ChunkElements(element);
  uint64_t longest = 0;
  for (uint32_t r = 0; r < comm.size; ++r) longest = std::max({longest, op.send_counts[r], op.recv_counts[r]});
  std::vector<MPI_Request> requests;
  for (uint64_t offset = 0; offset < longest; offset += chunk) {
    requests.clear();
    for (uint32_t peer = 0; peer < comm.size; ++peer) {
      const auto part = [&](uint64_t count) { return count > offset ? std::min(chunk, count - offset) : 0; };
      const uint64_t sending = part(op.send_counts[peer]), receiving = part(op.recv_counts[peer]);
      // Addresses of the blocks that move only: a buffer may be null where its counts are 0.
      const unsigned char* from = sending != 0 ? op.send + (op.send_displs[peer] + offset) * element : nullptr;
      unsigned char* to = receiving != 0 ? op.recv + (op.recv_displs[peer] + offset) * element : nullptr;
      if (peer == comm.rank) {
        if (sending != 0) std::memmove(to, from, sending * element);  // the counts pair up (checked)
        continue;
      }
      if (receiving != 0) {
        requests.emplace_back();
        MPI_Irecv(to, static_cast<int>(receiving * element), MPI_BYTE, static_cast<int>(peer), kBlocksTag, comm.mpi,
                  &requests.back());
      }
      if (sending != 0) {
        requests.emplace_back();
        MPI_Isend(from, static_cast<int>(sending * element), MPI_BYTE, static_cast<int>(peer), kBlocksTag, comm.mpi,
                  &requests.back());
      }
    }
    if (requests.empty()) continue;  // a single rank without MPI has only its own block
    const int status = MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
    if (status != MPI_SUCCESS) return "exchanging the blocks failed: " + MpiErrorText(status);
  }
  return "";
}

// AlltoAll, AlltoAllV and AllGatherV: the blocks the entry point laid out, exchanged once
// the variable counts are known to pair up.
std::string RunAlltoAll(const Communicator& comm, const Collective& op) {
  if (VariableCounts(op.kind)) {
    std::string failure = CheckCountsPairUp(comm, op);
    if (!failure.empty()) return failure;
  }
  return ExchangeBlocks(comm, op);
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

HCCL_API HcclResult HcclScatter(void* sendBuf, void* recvBuf, uint64_t recvCount, HcclDataType dataType, uint32_t root,
                                HcclComm comm, aclrtStream stream) {
  using namespace oa::hccl;
  static const char* const api = "HcclScatter";
  if (recvCount == 0) return HCCL_SUCCESS;
  if (HcclResult status = CheckPointer(api, "comm", comm)) return status;
  if (HcclResult status = CheckPointer(api, "recvBuf", recvBuf)) return status;
  if (HcclResult status = CheckStream(api, stream)) return status;  // ours: after the buffer, as in Broadcast
  std::shared_ptr<Communicator> found;
  if (HcclResult status = CheckCommunicator(api, comm, &found)) return status;
  // Only the root's sendBuf is read: other ranks may pass null.
  if (found->rank == root) {
    if (HcclResult status = CheckPointer(api, "sendBuf (on the root)", sendBuf)) return status;
  }
  if (HcclResult status = CheckRoot(api, root, found->size)) return status;
  if (HcclResult status = CheckCount(api, "recvCount", recvCount)) return status;
  if (HcclResult status = CheckMovableType(api, dataType)) return status;
  Collective collective{Kind::kScatter, static_cast<unsigned char*>(sendBuf), static_cast<unsigned char*>(recvBuf),
                        recvCount, dataType, HCCL_REDUCE_SUM, root, false, 0};
  return Enqueue(api, comm, stream, collective);
}

HCCL_API HcclResult HcclAllGatherV(void* sendBuf, uint64_t sendCount, void* recvBuf, const void* recvCounts,
                                   const void* recvDispls, HcclDataType dataType, HcclComm comm, aclrtStream stream) {
  using namespace oa::hccl;
  static const char* const api = "HcclAllGatherV";
  if (HcclResult status = CheckPointer(api, "comm", comm)) return status;
  if (HcclResult status = CheckPointer(api, "recvCounts", recvCounts)) return status;
  if (HcclResult status = CheckPointer(api, "recvDispls", recvDispls)) return status;
  if (HcclResult status = CheckStream(api, stream)) return status;
  if (sendCount > 0) {
    if (HcclResult status = CheckPointer(api, "sendBuf", sendBuf)) return status;
  }
  std::shared_ptr<Communicator> found;
  if (HcclResult status = CheckCommunicator(api, comm, &found)) return status;
  const auto* counts = static_cast<const uint64_t*>(recvCounts);
  const auto* displs = static_cast<const uint64_t*>(recvDispls);
  // Upstream: nothing to receive is success at once, nothing queued.
  if (std::all_of(counts, counts + found->size, [](uint64_t count) { return count == 0; })) return HCCL_SUCCESS;
  if (HcclResult status = CheckPointer(api, "recvBuf", recvBuf)) return status;
  if (HcclResult status = CheckCount(api, "sendCount", sendCount)) return status;
  if (HcclResult status = CheckMovableType(api, dataType)) return status;
  Collective collective{Kind::kAllGatherV, static_cast<unsigned char*>(sendBuf), static_cast<unsigned char*>(recvBuf),
                        sendCount, dataType, HCCL_REDUCE_SUM, 0, false, 0};
  collective.send_counts.assign(found->size, sendCount);  // the same block to every rank
  collective.send_displs.assign(found->size, 0);
  collective.recv_counts.assign(counts, counts + found->size);
  collective.recv_displs.assign(displs, displs + found->size);
  return Enqueue(api, comm, stream, collective);
}

namespace {

const char* TypeNameOrUndefined(HcclDataType type) {
  const char* name = oa::hccl::DataTypeName(static_cast<uint64_t>(oa::EnumBits(type)));
  return name != nullptr ? name : "undefined";
}

// Ours (upstream's AlltoAllV uses recvType for both): the blocks travel unconverted.
HcclResult CheckSameTypes(const char* api, HcclDataType sendType, HcclDataType recvType) {
  if (oa::EnumBits(sendType) == oa::EnumBits(recvType)) return HCCL_SUCCESS;
  return oa::hccl::Fail(HCCL_E_PARA, "%s: sendType %s (%d) and recvType %s (%d) must be equal", api,
                        TypeNameOrUndefined(sendType), oa::EnumBits(sendType), TypeNameOrUndefined(recvType),
                        oa::EnumBits(recvType));
}

}  // namespace

HCCL_API HcclResult HcclAlltoAll(const void* sendBuf, uint64_t sendCount, HcclDataType sendType, const void* recvBuf,
                                 uint64_t recvCount, HcclDataType recvType, HcclComm comm, aclrtStream stream) {
  using namespace oa::hccl;
  static const char* const api = "HcclAlltoAll";
  if (sendCount == 0 && recvCount == 0) return HCCL_SUCCESS;
  if (HcclResult status = CheckPointer(api, "comm", comm)) return status;
  if (HcclResult status = CheckPointer(api, "sendBuf", sendBuf)) return status;
  if (HcclResult status = CheckPointer(api, "recvBuf", recvBuf)) return status;
  if (sendCount != recvCount) {
    return Fail(HCCL_E_PARA, "%s: sendCount %llu and recvCount %llu must be equal", api,
                static_cast<unsigned long long>(sendCount), static_cast<unsigned long long>(recvCount));
  }
  if (HcclResult status = CheckSameTypes(api, sendType, recvType)) return status;
  if (HcclResult status = CheckStream(api, stream)) return status;
  if (sendBuf == recvBuf) return Fail(HCCL_E_PARA, "%s: sendBuf and recvBuf must differ (not in place)", api);
  std::shared_ptr<Communicator> found;
  if (HcclResult status = CheckCommunicator(api, comm, &found)) return status;
  if (HcclResult status = CheckCount(api, "recvCount", recvCount)) return status;
  if (HcclResult status = CheckMovableType(api, recvType)) return status;
  Collective collective{Kind::kAlltoAll, static_cast<unsigned char*>(const_cast<void*>(sendBuf)),
                        static_cast<unsigned char*>(const_cast<void*>(recvBuf)), recvCount, recvType, HCCL_REDUCE_SUM,
                        0, false, 0};
  collective.send_counts.assign(found->size, recvCount);
  collective.send_displs.resize(found->size);
  for (uint32_t r = 0; r < found->size; ++r) collective.send_displs[r] = r * recvCount;
  collective.recv_counts = collective.send_counts;
  collective.recv_displs = collective.send_displs;
  return Enqueue(api, comm, stream, collective);
}

HCCL_API HcclResult HcclAlltoAllV(const void* sendBuf, const void* sendCounts, const void* sdispls,
                                  HcclDataType sendType, const void* recvBuf, const void* recvCounts,
                                  const void* rdispls, HcclDataType recvType, HcclComm comm, aclrtStream stream) {
  using namespace oa::hccl;
  static const char* const api = "HcclAlltoAllV";
  if (HcclResult status = CheckPointer(api, "comm", comm)) return status;
  if (HcclResult status = CheckPointer(api, "sendCounts", sendCounts)) return status;
  if (HcclResult status = CheckPointer(api, "sdispls", sdispls)) return status;
  if (HcclResult status = CheckPointer(api, "recvCounts", recvCounts)) return status;
  if (HcclResult status = CheckPointer(api, "rdispls", rdispls)) return status;
  if (HcclResult status = CheckStream(api, stream)) return status;
  if (sendBuf != nullptr && sendBuf == recvBuf) {
    return Fail(HCCL_E_PARA, "%s: sendBuf and recvBuf must differ (not in place)", api);
  }
  std::shared_ptr<Communicator> found;
  if (HcclResult status = CheckCommunicator(api, comm, &found)) return status;
  Collective collective{Kind::kAlltoAllV, static_cast<unsigned char*>(const_cast<void*>(sendBuf)),
                        static_cast<unsigned char*>(const_cast<void*>(recvBuf)), 0, recvType, HCCL_REDUCE_SUM, 0,
                        false, 0};
  const auto copy = [&](const void* array) {
    const auto* values = static_cast<const uint64_t*>(array);
    return std::vector<uint64_t>(values, values + found->size);
  };
  collective.send_counts = copy(sendCounts);
  collective.send_displs = copy(sdispls);
  collective.recv_counts = copy(recvCounts);
  collective.recv_displs = copy(rdispls);
  const auto any_nonzero = [](const std::vector<uint64_t>& counts) {
    return std::any_of(counts.begin(), counts.end(), [](uint64_t count) { return count != 0; });
  };
  // A buffer may be null only where nothing is sent or received.
  if (any_nonzero(collective.send_counts) && sendBuf == nullptr) {
    return Fail(HCCL_E_PTR, "%s: sendBuf must not be null (sendCounts has a non-zero entry)", api);
  }
  if (any_nonzero(collective.recv_counts) && recvBuf == nullptr) {
    return Fail(HCCL_E_PTR, "%s: recvBuf must not be null (recvCounts has a non-zero entry)", api);
  }
  uint64_t largest = 0;
  for (uint32_t r = 0; r < found->size; ++r) {
    largest = std::max({largest, collective.send_counts[r], collective.recv_counts[r]});
  }
  if (HcclResult status = CheckCount(api, "the largest of sendCounts and recvCounts", largest)) return status;
  if (HcclResult status = CheckMovableType(api, recvType)) return status;
  if (HcclResult status = CheckSameTypes(api, sendType, recvType)) return status;
  return Enqueue(api, comm, stream, collective);
}
