/* HCCL collectives in the style of CANN's HCCL samples. Every process is one rank with one
 * device: rank 0 creates the root info, MPI_Bcast ships its 4108 bytes to every rank, each
 * rank joins the communicator, then the collectives run on the rank's stream:
 *   AllReduce (sum, in place), AllGather of one value per rank, Broadcast from rank 0.
 * Run: mpirun -np 4 ./example_hccl_all_reduce   (or without mpirun: one rank; --help: usage).
 * Exits non-zero unless every result equals its closed form. Public headers only. */
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "hccl/hccl.h"

#define CHECK_ACL(call)                                                                    \
  do {                                                                                     \
    aclError ret_ = (call);                                                                \
    if (ret_ != ACL_SUCCESS) {                                                             \
      std::printf("%s failed: %d %s\n", #call, static_cast<int>(ret_), aclGetRecentErrMsg()); \
      return 1;                                                                            \
    }                                                                                      \
  } while (0)

#define CHECK_HCCL(call)                                                                   \
  do {                                                                                     \
    HcclResult ret_ = (call);                                                              \
    if (ret_ != HCCL_SUCCESS) {                                                            \
      std::printf("%s failed: %s %s\n", #call, HcclGetErrorString(ret_), aclGetRecentErrMsg()); \
      return 1;                                                                            \
    }                                                                                      \
  } while (0)

static int Run(int rank, int size) {
  CHECK_ACL(aclInit(nullptr));
  CHECK_ACL(aclrtSetDevice(0));  // one device per process
  aclrtStream stream = nullptr;
  CHECK_ACL(aclrtCreateStream(&stream));

  HcclRootInfo rootInfo;
  if (rank == 0) CHECK_HCCL(HcclGetRootInfo(&rootInfo));
  MPI_Bcast(&rootInfo, HCCL_ROOT_INFO_BYTES, MPI_CHAR, 0, MPI_COMM_WORLD);
  HcclComm comm = nullptr;
  CHECK_HCCL(HcclCommInitRootInfo(static_cast<uint32_t>(size), &rootInfo, static_cast<uint32_t>(rank), &comm));

  const uint64_t count = 8;
  void* values = nullptr;
  void* gathered = nullptr;
  void* broadcast = nullptr;
  CHECK_ACL(aclrtMalloc(&values, count * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMalloc(&gathered, size * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMalloc(&broadcast, count * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
  std::vector<float> host(count);
  for (uint64_t i = 0; i < count; ++i) host[i] = static_cast<float>((rank + 1) * (i + 1));
  CHECK_ACL(aclrtMemcpy(values, count * sizeof(float), host.data(), count * sizeof(float), ACL_MEMCPY_HOST_TO_DEVICE));
  CHECK_ACL(aclrtMemcpy(broadcast, count * sizeof(float), host.data(), count * sizeof(float), ACL_MEMCPY_HOST_TO_DEVICE));

  // Queued in order on one stream; one synchronisation at the end.
  float mine = static_cast<float>(rank * rank);
  CHECK_HCCL(HcclAllReduce(values, values, count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream));
  CHECK_HCCL(HcclAllGather(&mine, gathered, 1, HCCL_DATA_TYPE_FP32, comm, stream));
  CHECK_HCCL(HcclBroadcast(broadcast, count, HCCL_DATA_TYPE_FP32, 0, comm, stream));
  CHECK_ACL(aclrtSynchronizeStream(stream));

  std::vector<float> sums(count), squares(size), fromRoot(count);
  CHECK_ACL(aclrtMemcpy(sums.data(), count * sizeof(float), values, count * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST));
  CHECK_ACL(aclrtMemcpy(squares.data(), size * sizeof(float), gathered, size * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST));
  CHECK_ACL(aclrtMemcpy(fromRoot.data(), count * sizeof(float), broadcast, count * sizeof(float),
                        ACL_MEMCPY_DEVICE_TO_HOST));
  int wrong = 0;
  const float rankSum = size * (size + 1) / 2.0f;
  for (uint64_t i = 0; i < count; ++i) {
    wrong += sums[i] != rankSum * (i + 1);
    wrong += fromRoot[i] != static_cast<float>(i + 1);
  }
  for (int r = 0; r < size; ++r) wrong += squares[r] != static_cast<float>(r * r);
  if (rank == 0) {
    std::printf("%d rank(s): AllReduce sum of (rank+1)*(i+1) = [", size);
    for (uint64_t i = 0; i < count; ++i) std::printf("%s%g", i ? ", " : "", sums[i]);
    std::printf("]\nAllGather of rank^2 = [");
    for (int r = 0; r < size; ++r) std::printf("%s%g", r ? ", " : "", squares[r]);
    std::printf("]\nBroadcast from rank 0 = [");
    for (uint64_t i = 0; i < count; ++i) std::printf("%s%g", i ? ", " : "", fromRoot[i]);
    std::printf("]\n");
  }
  if (wrong != 0) std::printf("rank %d: %d wrong value(s)\n", rank, wrong);

  CHECK_HCCL(HcclCommDestroy(comm));
  CHECK_ACL(aclrtFree(values));
  CHECK_ACL(aclrtFree(gathered));
  CHECK_ACL(aclrtFree(broadcast));
  CHECK_ACL(aclrtDestroyStream(stream));
  CHECK_ACL(aclrtResetDevice(0));
  CHECK_ACL(aclFinalize());
  return wrong == 0 ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc > 1) {  // no options: --help (or anything else) prints the usage
    std::printf(
        "usage: [mpirun --oversubscribe -np W] example_hccl_all_reduce\n"
        "AllReduce (sum, in place), AllGather and Broadcast across the MPI ranks, each checked\n"
        "against its closed form; exits non-zero on a mismatch. Takes no options.\n");
    return std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h" ? 0 : 2;
  }
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int failed = Run(rank, size);
  int anyFailed = 0;
  MPI_Allreduce(&failed, &anyFailed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return anyFailed;
}
