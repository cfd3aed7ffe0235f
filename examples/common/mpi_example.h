/* Shared by the MPI example programs (fsdp_step, pipeline_stages, sync_batch_norm) and
 * bench/hccl: every process is one rank with one device and one stream; device buffers,
 * row-major fp32 tensors, the two-phase aclnn call, and the communicator's set-up and
 * tear-down. Public headers only. */
#pragma once

#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "hccl/hccl.h"

inline int g_rank = 0, g_size = 1;

#define CHECK(cond, ...)                            \
  do {                                              \
    if (!(cond)) {                                  \
      std::printf("rank %d: ", g_rank);             \
      std::printf(__VA_ARGS__);                     \
      std::printf(" (%s)\n", aclGetRecentErrMsg()); \
      return 1;                                     \
    }                                               \
  } while (0)

// A float buffer in device memory.
struct Buffer {
  void* data = nullptr;
  int64_t size = 0;
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() { aclrtFree(data); }
  int Create(int64_t n, const std::vector<float>& init = {}) {
    size = n;
    CHECK(aclrtMalloc(&data, n * 4, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS, "aclrtMalloc");
    const std::vector<float> host = init.empty() ? std::vector<float>(n, 0.0f) : init;
    CHECK(aclrtMemcpy(data, n * 4, host.data(), n * 4, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS, "upload");
    return 0;
  }
  float* At(int64_t offset) const { return static_cast<float*>(data) + offset; }
  int Download(std::vector<float>* host) const {
    host->assign(size, 0.0f);
    CHECK(aclrtMemcpy(host->data(), size * 4, data, size * 4, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS, "download");
    return 0;
  }
};

// Runs on one stream: phase 2 of each aclnn call with the workspace its phase 1 asked for;
// the workspaces and the tensors it keeps are released once the stream is synchronized.
struct Launcher {
  aclrtStream stream = nullptr;
  std::vector<void*> workspaces;
  std::vector<aclTensor*> tensors;
  uint64_t size = 0;  // phase 1 writes the workspace size and executor here
  aclOpExecutor* executor = nullptr;

  // A row-major fp32 tensor of `shape` at `data`, destroyed at the next Synchronize.
  aclTensor* Tensor(float* data, std::vector<int64_t> shape) {
    std::vector<int64_t> strides(shape.size(), 1);
    for (size_t d = shape.size() - 1; d > 0; --d) strides[d - 1] = strides[d] * shape[d];
    tensors.push_back(aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND,
                                      shape.data(), shape.size(), data));
    return tensors.back();
  }
  // `planned` is the GetWorkspaceSize call's status (it has filled size and executor).
  int operator()(aclnnStatus planned, aclnnStatus (*run)(void*, uint64_t, aclOpExecutor*, aclrtStream),
                 const char* name) {
    CHECK(planned == ACLNN_SUCCESS, "%sGetWorkspaceSize failed: %d", name, planned);
    void* workspace = nullptr;
    if (size > 0) {
      CHECK(aclrtMalloc(&workspace, size, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS, "workspace");
      workspaces.push_back(workspace);
    }
    CHECK(run(workspace, size, executor, stream) == ACLNN_SUCCESS, "%s failed", name);
    return 0;
  }
  int Synchronize() {
    CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS, "aclrtSynchronizeStream");
    for (void* w : workspaces) aclrtFree(w);
    for (aclTensor* t : tensors) aclDestroyTensor(t);
    workspaces.clear();
    tensors.clear();
    return 0;
  }
};

// The rank's device and stream, and the communicator over every MPI process (rank 0's root
// info reaches the others through MPI_Bcast).
inline int Join(Launcher* launch, HcclComm* comm) {
  CHECK(aclInit(nullptr) == ACL_SUCCESS, "aclInit");
  CHECK(aclrtSetDevice(0) == ACL_SUCCESS, "aclrtSetDevice");
  CHECK(aclrtCreateStream(&launch->stream) == ACL_SUCCESS, "aclrtCreateStream");
  HcclRootInfo root_info;
  if (g_rank == 0) CHECK(HcclGetRootInfo(&root_info) == HCCL_SUCCESS, "HcclGetRootInfo");
  MPI_Bcast(&root_info, HCCL_ROOT_INFO_BYTES, MPI_CHAR, 0, MPI_COMM_WORLD);
  CHECK(HcclCommInitRootInfo(g_size, &root_info, g_rank, comm) == HCCL_SUCCESS, "HcclCommInitRootInfo");
  return 0;
}

inline int Leave(Launcher* launch, HcclComm comm) {
  CHECK(HcclCommDestroy(comm) == HCCL_SUCCESS, "HcclCommDestroy");
  CHECK(aclrtDestroyStream(launch->stream) == ACL_SUCCESS, "aclrtDestroyStream");
  CHECK(aclrtResetDevice(0) == ACL_SUCCESS, "aclrtResetDevice");
  CHECK(aclFinalize() == ACL_SUCCESS, "aclFinalize");
  return 0;
}

// main's body: MPI around `run`; the exit status is non-zero if any rank failed, and rank 0
// prints `passed` or FAILED.
inline int RunOnEveryRank(int argc, char** argv, int (*run)(), const char* passed) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  const int failed = run();
  int any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (g_rank == 0) std::printf("%s\n", any_failed ? "FAILED" : passed);
  MPI_Finalize();
  return any_failed;
}
