// Time per HCCL collective on this machine, for docs/distributed.md: every collective of
// libhccl at a few message sizes, each timed as one call queued on the rank's stream and
// synchronized, as the slowest rank sees it (the maximum over ranks of each repetition),
// median over the repetitions. Run under mpirun; `make bench` runs W = 1, 2 and 4.
//   mpirun --oversubscribe -np 4 build/release/bench/hccl/openaclnn_hccl_timing [--reps N] [--csv FILE]
// "bytes" is each rank's block: what a rank contributes (AllReduce, Reduce, Broadcast: the
// whole buffer; AllGather(V): its send block; ReduceScatter(V), Scatter: its result block;
// AlltoAll(V): one block per peer; Send/Recv: one message).
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "../../examples/common/mpi_example.h"  // g_rank / g_size, Join and Leave

namespace {

#define REQUIRE(cond, what)                                                             \
  do {                                                                                  \
    if (!(cond)) {                                                                      \
      std::fprintf(stderr, "rank %d: %s failed: %s\n", g_rank, what, aclGetRecentErrMsg()); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                     \
    }                                                                                   \
  } while (0)

double Now() { return MPI_Wtime(); }

// Median over repetitions of the slowest rank's time of one queued-and-synchronized call.
double MedianSeconds(const std::function<void()>& queue, aclrtStream stream, int reps) {
  std::vector<double> times;
  for (int rep = -2; rep < reps; ++rep) {  // two warm-up calls
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = Now();
    queue();
    REQUIRE(aclrtSynchronizeStream(stream) == ACL_SUCCESS, "aclrtSynchronizeStream");
    double mine = Now() - start, slowest = 0.0;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rep >= 0) times.push_back(slowest);
  }
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  int reps = 20;
  const char* csv_path = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
    if (std::strcmp(argv[i], "--csv") == 0 && i + 1 < argc) csv_path = argv[++i];
  }
  Launcher launch;
  HcclComm comm = nullptr;
  REQUIRE(Join(&launch, &comm) == 0, "joining the communicator");
  const aclrtStream stream = launch.stream;

  const uint64_t kSizes[] = {4 << 10, 256 << 10, 4 << 20};  // bytes per rank's block
  const uint64_t largest = kSizes[2] / 4;                   // fp32 elements
  const uint64_t world = static_cast<uint64_t>(g_size);
  void *send = nullptr, *recv = nullptr;
  REQUIRE(aclrtMalloc(&send, largest * world * 4, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS, "aclrtMalloc");
  REQUIRE(aclrtMalloc(&recv, largest * world * 4, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS, "aclrtMalloc");
  REQUIRE(aclrtMemset(send, largest * world * 4, 0, largest * world * 4) == ACL_SUCCESS, "aclrtMemset");
  const uint32_t next = static_cast<uint32_t>((g_rank + 1) % g_size);
  const uint32_t previous = static_cast<uint32_t>((g_rank + g_size - 1) % g_size);
  const auto fp32 = HCCL_DATA_TYPE_FP32;

  FILE* csv = nullptr;
  if (g_rank == 0) {
    std::printf("%-22s %10s %3s %12s %10s\n", "collective", "bytes", "W", "median_us", "GB/s");
    if (csv_path != nullptr) {
      csv = std::fopen(csv_path, "w");
      if (csv != nullptr) std::fprintf(csv, "collective,bytes,ranks,median_us,gb_per_s\n");
    }
  }
  for (uint64_t bytes : kSizes) {
    const uint64_t n = bytes / 4;
    std::vector<uint64_t> counts(world, n), displs(world);
    for (uint64_t j = 0; j < world; ++j) displs[j] = j * n;
    // name, call, bytes a rank sends or receives (for the rate column)
    struct Case {
      const char* name;
      std::function<void()> queue;
      uint64_t moved;
    };
    const auto call = [&](HcclResult result, const char* name) { REQUIRE(result == HCCL_SUCCESS, name); };
    std::vector<Case> cases = {
        {"AllReduce", [&] { call(HcclAllReduce(send, recv, n, fp32, HCCL_REDUCE_SUM, comm, stream), "AllReduce"); },
         bytes},
        {"AllGather", [&] { call(HcclAllGather(send, recv, n, fp32, comm, stream), "AllGather"); }, bytes * world},
        {"AllGatherV",
         [&] {
           call(HcclAllGatherV(send, n, recv, counts.data(), displs.data(), fp32, comm, stream), "AllGatherV");
         },
         bytes * world},
        {"ReduceScatter",
         [&] { call(HcclReduceScatter(send, recv, n, fp32, HCCL_REDUCE_SUM, comm, stream), "ReduceScatter"); },
         bytes * world},
        {"ReduceScatterV",
         [&] {
           call(HcclReduceScatterV(send, counts.data(), displs.data(), recv, n, fp32, HCCL_REDUCE_SUM, comm, stream),
                "ReduceScatterV");
         },
         bytes * world},
        {"Broadcast", [&] { call(HcclBroadcast(send, n, fp32, 0, comm, stream), "Broadcast"); }, bytes},
        {"Reduce", [&] { call(HcclReduce(send, recv, n, fp32, HCCL_REDUCE_SUM, 0, comm, stream), "Reduce"); }, bytes},
        {"Scatter", [&] { call(HcclScatter(send, recv, n, fp32, 0, comm, stream), "Scatter"); }, bytes},
        {"AlltoAll", [&] { call(HcclAlltoAll(send, n, fp32, recv, n, fp32, comm, stream), "AlltoAll"); },
         bytes * world},
        {"AlltoAllV",
         [&] {
           call(HcclAlltoAllV(send, counts.data(), displs.data(), fp32, recv, counts.data(), displs.data(), fp32, comm,
                              stream),
                "AlltoAllV");
         },
         bytes * world},
    };
    if (g_size > 1) {
      // Ring shift: every rank sends to the next and receives from the previous in one batch.
      cases.push_back({"BatchSendRecv(ring)",
                       [&] {
                         HcclSendRecvItem items[2] = {{HCCL_SEND, send, n, fp32, next},
                                                      {HCCL_RECV, recv, n, fp32, previous}};
                         call(HcclBatchSendRecv(items, 2, comm, stream), "BatchSendRecv");
                       },
                       bytes});
      // Pairs: even ranks send to the odd rank after them (a last even rank sits out).
      cases.push_back({"Send/Recv(pairs)",
                       [&] {
                         if (g_rank % 2 == 0 && g_rank + 1 < g_size) {
                           call(HcclSend(send, n, fp32, g_rank + 1, comm, stream), "Send");
                         } else if (g_rank % 2 == 1) {
                           call(HcclRecv(recv, n, fp32, g_rank - 1, comm, stream), "Recv");
                         }
                       },
                       bytes});
    }
    if (bytes == kSizes[0]) {
      cases.push_back({"Barrier", [&] { call(HcclBarrier(comm, stream), "Barrier"); }, 0});
    }
    for (const Case& c : cases) {
      const double seconds = MedianSeconds(c.queue, stream, reps);
      if (g_rank == 0) {
        const uint64_t shown = c.moved == 0 ? 0 : bytes;
        const double rate = c.moved / seconds / 1e9;
        std::printf("%-22s %10llu %3d %12.1f %10.2f\n", c.name, static_cast<unsigned long long>(shown), g_size,
                    seconds * 1e6, rate);
        if (csv != nullptr) {
          std::fprintf(csv, "%s,%llu,%d,%.2f,%.3f\n", c.name, static_cast<unsigned long long>(shown), g_size,
                       seconds * 1e6, rate);
        }
      }
    }
  }
  if (csv != nullptr) std::fclose(csv);
  aclrtFree(send);
  aclrtFree(recv);
  REQUIRE(Leave(&launch, comm) == 0, "leaving the communicator");
  MPI_Finalize();
  return 0;
}
