// HCCL's single-process contract: values and sizes, every function's error paths in the
// spec's check order, and the singleton communicator (no mpirun: collectives are local).
// Links the shared libraries only (libhccl and libopenaclnn), as a client does.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "hccl/hccl.h"

namespace {

std::string LastMessage() {
  const char* message = aclGetRecentErrMsg();
  return message != nullptr ? message : "";
}

class HcclApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS);
    HcclRootInfo root;
    ASSERT_EQ(HcclGetRootInfo(&root), HCCL_SUCCESS);
    ASSERT_EQ(HcclCommInitRootInfo(1, &root, 0, &comm_), HCCL_SUCCESS);
  }
  void TearDown() override {
    if (comm_ != nullptr) {
      EXPECT_EQ(HcclCommDestroy(comm_), HCCL_SUCCESS);
    }
    EXPECT_EQ(aclrtDestroyStream(stream_), ACL_SUCCESS);
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  }
  // A communicator that was destroyed: its handle must be refused, never dereferenced.
  HcclComm DestroyedComm() {
    HcclRootInfo root;
    HcclComm comm = nullptr;
    EXPECT_EQ(HcclGetRootInfo(&root), HCCL_SUCCESS);
    EXPECT_EQ(HcclCommInitRootInfo(1, &root, 0, &comm), HCCL_SUCCESS);
    EXPECT_EQ(HcclCommDestroy(comm), HCCL_SUCCESS);
    return comm;
  }
  aclrtStream stream_ = nullptr;
  HcclComm comm_ = nullptr;
};

TEST(HcclTypes, ValuesAndSizesMatchUpstream) {
  EXPECT_EQ(sizeof(HcclRootInfo), 4108u);
  EXPECT_EQ(HCCL_ROOT_INFO_BYTES, 4108);
  EXPECT_EQ(HCCL_E_AGAIN, 20);
  EXPECT_EQ(HCCL_E_OOM, 24);
  EXPECT_EQ(HCCL_E_IN_STATUS, 1041);
  EXPECT_EQ(HCCL_E_RESERVED, 1042);
  EXPECT_EQ(HCCL_REDUCE_MIN, 3);
  EXPECT_EQ(HCCL_REDUCE_RESERVED, 255);
  EXPECT_EQ(HCCL_DATA_TYPE_BFP16, 11);
  EXPECT_EQ(HCCL_DATA_TYPE_INT128, 12);
  EXPECT_EQ(HCCL_DATA_TYPE_HIF8, 14);
  EXPECT_EQ(HCCL_DATA_TYPE_FP8E8M0, 17);
  EXPECT_EQ(HCCL_DATA_TYPE_RESERVED, 255);
  EXPECT_EQ(HCCL_SEND, 0);
  EXPECT_EQ(HCCL_RECV, 1);
  EXPECT_EQ(HCCL_SEND_RECV_RESERVED, 2);
  EXPECT_EQ(sizeof(HcclSendRecvItem), 32u);
  EXPECT_EQ(offsetof(HcclSendRecvItem, buf), 8u);
  EXPECT_EQ(offsetof(HcclSendRecvItem, count), 16u);
  EXPECT_EQ(offsetof(HcclSendRecvItem, dataType), 24u);
  EXPECT_EQ(offsetof(HcclSendRecvItem, remoteRank), 28u);
}

TEST(HcclErrorString, NamesEveryCode) {
  EXPECT_STREQ(HcclGetErrorString(HCCL_SUCCESS), "HCCL_SUCCESS");
  EXPECT_STREQ(HcclGetErrorString(HCCL_E_PARA), "HCCL_E_PARA");
  EXPECT_STREQ(HcclGetErrorString(HCCL_E_AGAIN), "HCCL_E_AGAIN");
  EXPECT_STREQ(HcclGetErrorString(HCCL_E_IN_STATUS), "HCCL_E_IN_STATUS");
  EXPECT_STREQ(HcclGetErrorString(static_cast<HcclResult>(999)), "unknown HcclResult");
}

TEST(HcclRootInfo, NullIsRefusedAndEachCallIsDistinct) {
  EXPECT_EQ(HcclGetRootInfo(nullptr), HCCL_E_PTR);
  HcclRootInfo first, second;
  ASSERT_EQ(HcclGetRootInfo(&first), HCCL_SUCCESS);
  ASSERT_EQ(HcclGetRootInfo(&second), HCCL_SUCCESS);
  EXPECT_NE(std::memcmp(&first, &second, sizeof first), 0);
}

TEST(HcclCommInitRootInfo, ChecksPointersThenRanks) {
  HcclRootInfo root;
  ASSERT_EQ(HcclGetRootInfo(&root), HCCL_SUCCESS);
  HcclComm comm = nullptr;
  EXPECT_EQ(HcclCommInitRootInfo(1, nullptr, 0, &comm), HCCL_E_PTR);
  EXPECT_EQ(HcclCommInitRootInfo(1, &root, 0, nullptr), HCCL_E_PTR);
  // Null pointers come first, even with bad ranks.
  EXPECT_EQ(HcclCommInitRootInfo(0, nullptr, 5, &comm), HCCL_E_PTR);
  EXPECT_EQ(HcclCommInitRootInfo(0, &root, 0, &comm), HCCL_E_PARA);
  EXPECT_EQ(HcclCommInitRootInfo(1, &root, 1, &comm), HCCL_E_PARA);
  EXPECT_EQ(HcclCommInitRootInfo(2, &root, 1, &comm), HCCL_E_PARA);
  // A singleton process is a job of one: two ranks cannot be.
  EXPECT_EQ(HcclCommInitRootInfo(2, &root, 0, &comm), HCCL_E_PARA);
  EXPECT_NE(LastMessage().find("nRanks is 2"), std::string::npos) << LastMessage();
  HcclRootInfo garbage;
  std::memset(&garbage, 0x5A, sizeof garbage);
  EXPECT_EQ(HcclCommInitRootInfo(1, &garbage, 0, &comm), HCCL_E_PARA);
  EXPECT_NE(LastMessage().find("HcclGetRootInfo"), std::string::npos) << LastMessage();
  EXPECT_EQ(comm, nullptr);
}

TEST(HcclCommInitRootInfo, SingletonWithoutMpirunOrAclInit) {
  HcclRootInfo root;
  ASSERT_EQ(HcclGetRootInfo(&root), HCCL_SUCCESS);
  HcclComm comm = nullptr;
  ASSERT_EQ(HcclCommInitRootInfo(1, &root, 0, &comm), HCCL_SUCCESS);
  uint32_t size = 0, rank = 7;
  EXPECT_EQ(HcclGetRankSize(comm, &size), HCCL_SUCCESS);
  EXPECT_EQ(HcclGetRankId(comm, &rank), HCCL_SUCCESS);
  EXPECT_EQ(size, 1u);
  EXPECT_EQ(rank, 0u);
  EXPECT_EQ(HcclCommDestroy(comm), HCCL_SUCCESS);
}

TEST(HcclCommInitClusterInfo, PointersThenNotSupported) {
  HcclComm comm = nullptr;
  EXPECT_EQ(HcclCommInitClusterInfo(nullptr, 0, &comm), HCCL_E_PTR);
  EXPECT_EQ(HcclCommInitClusterInfo("/tmp/rank_table.json", 0, nullptr), HCCL_E_PTR);
  EXPECT_EQ(HcclCommInitClusterInfo("/tmp/rank_table.json", 0, &comm), HCCL_E_NOT_SUPPORT);
}

// Upstream's order (ndev, comms, devices, duplicates), then the devices themselves: one
// device per process, so ndev = 1 with device 0 is the one list that makes a communicator.
TEST_F(HcclApiTest, CommInitAllChecksThenMakesOneRank) {
  int32_t devices[3] = {0, 0, 1};
  HcclComm comms[3] = {nullptr, nullptr, nullptr};
  EXPECT_EQ(HcclCommInitAll(0, devices, comms), HCCL_E_PARA);
  EXPECT_NE(LastMessage().find("ndev"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclCommInitAll(1, devices, nullptr), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("comms"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclCommInitAll(1, nullptr, comms), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("devices"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclCommInitAll(2, devices, comms), HCCL_E_PARA);
  EXPECT_NE(LastMessage().find("more than once"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclCommInitAll(2, devices + 1, comms), HCCL_E_INTERNAL);
  EXPECT_NE(LastMessage().find("devices[1] = 1 does not exist"), std::string::npos) << LastMessage();
  EXPECT_EQ(comms[0], nullptr);
  EXPECT_EQ(comms[1], nullptr);

  ASSERT_EQ(HcclCommInitAll(1, devices, comms), HCCL_SUCCESS);
  uint32_t size = 0, rank = 7;
  EXPECT_EQ(HcclGetRankSize(comms[0], &size), HCCL_SUCCESS);
  EXPECT_EQ(HcclGetRankId(comms[0], &rank), HCCL_SUCCESS);
  EXPECT_EQ(size, 1u);
  EXPECT_EQ(rank, 0u);
  float values[3] = {1.5f, -2.0f, 4.0f}, sums[3] = {};
  ASSERT_EQ(HcclAllReduce(values, sums, 3, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comms[0], stream_), HCCL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(sums[0], 1.5f);
  EXPECT_EQ(sums[1], -2.0f);
  EXPECT_EQ(sums[2], 4.0f);
  EXPECT_EQ(HcclCommDestroy(comms[0]), HCCL_SUCCESS);
}

TEST_F(HcclApiTest, QueriesRefuseNullAndDestroyedCommunicators) {
  uint32_t value = 0;
  EXPECT_EQ(HcclGetRankSize(nullptr, &value), HCCL_E_PTR);
  EXPECT_EQ(HcclGetRankSize(comm_, nullptr), HCCL_E_PTR);
  EXPECT_EQ(HcclGetRankId(nullptr, &value), HCCL_E_PTR);
  EXPECT_EQ(HcclGetRankId(comm_, nullptr), HCCL_E_PTR);
  HcclComm destroyed = DestroyedComm();
  EXPECT_EQ(HcclGetRankSize(destroyed, &value), HCCL_E_PARA);
  EXPECT_NE(LastMessage().find("not a live communicator"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclGetRankId(destroyed, &value), HCCL_E_PARA);
  // A handle that never was a communicator.
  EXPECT_EQ(HcclGetRankId(reinterpret_cast<HcclComm>(&value), &value), HCCL_E_PARA);
}

TEST_F(HcclApiTest, GetCommAsyncErrorCheckOrder) {
  HcclResult error = HCCL_E_INTERNAL;
  EXPECT_EQ(HcclGetCommAsyncError(nullptr, nullptr), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclGetCommAsyncError: comm"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclGetCommAsyncError(comm_, nullptr), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("asyncError"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclGetCommAsyncError(DestroyedComm(), &error), HCCL_E_PARA);
  EXPECT_EQ(error, HCCL_E_INTERNAL);
  EXPECT_EQ(HcclGetCommAsyncError(comm_, &error), HCCL_SUCCESS);
  EXPECT_EQ(error, HCCL_SUCCESS);
}

// Upstream's range is [0, 2147483647] seconds; anything else warns and keeps the default.
TEST(HcclExecTimeout, BadValueWarnsAndUsesTheDefault) {
  for (const char* bad : {"-1", "2147483648", "1.5", "soon"}) {
    setenv("HCCL_EXEC_TIMEOUT", bad, 1);
    HcclRootInfo root;
    HcclComm comm = nullptr;
    ASSERT_EQ(HcclGetRootInfo(&root), HCCL_SUCCESS);
    testing::internal::CaptureStderr();
    ASSERT_EQ(HcclCommInitRootInfo(1, &root, 0, &comm), HCCL_SUCCESS);
    const std::string warning = testing::internal::GetCapturedStderr();
    EXPECT_NE(warning.find(std::string("HCCL_EXEC_TIMEOUT=") + bad), std::string::npos) << warning;
    EXPECT_NE(warning.find("default 1836 s"), std::string::npos) << warning;
    EXPECT_EQ(HcclCommDestroy(comm), HCCL_SUCCESS);
  }
  setenv("HCCL_EXEC_TIMEOUT", "0", 1);  // 0: never time out, accepted silently
  HcclRootInfo root;
  HcclComm comm = nullptr;
  ASSERT_EQ(HcclGetRootInfo(&root), HCCL_SUCCESS);
  testing::internal::CaptureStderr();
  ASSERT_EQ(HcclCommInitRootInfo(1, &root, 0, &comm), HCCL_SUCCESS);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(HcclCommDestroy(comm), HCCL_SUCCESS);
  unsetenv("HCCL_EXEC_TIMEOUT");
}

TEST(HcclCommConfig, LayoutAndInitMatchUpstream) {
  EXPECT_EQ(offsetof(HcclCommConfig, hcclBufferSize), 24u);
  EXPECT_EQ(offsetof(HcclCommConfig, hcclCommName), 32u);
  EXPECT_EQ(offsetof(HcclCommConfig, hcclUdi), 160u);
  EXPECT_EQ(offsetof(HcclCommConfig, hcclOpExpansionMode), 288u);
  EXPECT_EQ(offsetof(HcclCommConfig, hcclJobID), 304u);
  EXPECT_EQ(offsetof(HcclCommConfig, aclGraphZeroCopyEnable), 312u);
  EXPECT_EQ(offsetof(HcclCommConfig, hcclExecTimeOut), 316u);
  EXPECT_EQ(offsetof(HcclCommConfig, hcclAlgo), 320u);
  EXPECT_EQ(offsetof(HcclCommConfig, hcclBufferName), 2098u);
  EXPECT_EQ(offsetof(HcclCommConfig, hcclQos), 2228u);
  EXPECT_EQ(offsetof(HcclCommConfig, hcclSymWinMaxMemSizePerRank), 2232u);
  EXPECT_EQ(sizeof(HcclCommConfig), 2240u);
  HcclCommConfig config;
  std::memset(&config, 0x5A, sizeof config);
  HcclCommConfigInit(&config);
  HcclCommConfigInit(nullptr);  // ignored, as upstream's
  size_t size = 0;
  uint32_t magic = 0, version = 0;
  std::memcpy(&size, config.reserved, sizeof size);
  std::memcpy(&magic, config.reserved + 8, sizeof magic);
  std::memcpy(&version, config.reserved + 12, sizeof version);
  EXPECT_EQ(size, sizeof(HcclCommConfig));
  EXPECT_EQ(magic, 0xf0f0f0f0u);
  EXPECT_EQ(version, 10u);
  EXPECT_EQ(config.hcclBufferSize, 0xffffffffu);
  EXPECT_EQ(config.hcclDeterministic, 0xffffffffu);
  EXPECT_EQ(config.hcclExecTimeOut, -1);
  EXPECT_EQ(config.hcclCommName[0], '\0');
  EXPECT_EQ(config.hcclSymWinMaxMemSizePerRank, 16u);
}

// The singleton: HcclCommInitRootInfoConfig, then sub-communicators of its one rank.
TEST(HcclCommConfig, InitRootInfoConfigAndSubCommunicatorChecks) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  HcclRootInfo root;
  ASSERT_EQ(HcclGetRootInfo(&root), HCCL_SUCCESS);
  HcclCommConfig config;
  HcclCommConfigInit(&config);
  HcclComm comm = nullptr;
  EXPECT_EQ(HcclCommInitRootInfoConfig(1, nullptr, 0, &config, &comm), HCCL_E_PTR);
  EXPECT_EQ(HcclCommInitRootInfoConfig(1, &root, 0, nullptr, &comm), HCCL_E_PTR);
  EXPECT_EQ(HcclCommInitRootInfoConfig(1, &root, 0, &config, nullptr), HCCL_E_PTR);
  HcclCommConfig garbage;
  std::memset(&garbage, 0, sizeof garbage);
  EXPECT_EQ(HcclCommInitRootInfoConfig(1, &root, 0, &garbage, &comm), HCCL_E_PARA);
  EXPECT_NE(LastMessage().find("HcclCommConfigInit"), std::string::npos) << LastMessage();
  config.hcclDeterministic = 3;
  EXPECT_EQ(HcclCommInitRootInfoConfig(1, &root, 0, &config, &comm), HCCL_E_PARA);
  EXPECT_NE(LastMessage().find("hcclDeterministic"), std::string::npos) << LastMessage();
  config.hcclDeterministic = 1;
  config.hcclExecTimeOut = -2;
  EXPECT_EQ(HcclCommInitRootInfoConfig(1, &root, 0, &config, &comm), HCCL_E_PARA);
  EXPECT_NE(LastMessage().find("hcclExecTimeOut"), std::string::npos) << LastMessage();
  config.hcclExecTimeOut = 5;
  config.hcclBufferSize = 50;  // accepted and ignored
  ASSERT_EQ(HcclCommInitRootInfoConfig(1, &root, 0, &config, &comm), HCCL_SUCCESS);

  uint32_t ids[2] = {0, 0};
  HcclComm sub = nullptr;
  EXPECT_EQ(HcclCreateSubCommConfig(nullptr, 1, ids, 1, 0, &config, &sub), HCCL_E_PTR);
  HcclComm null_comm = nullptr;
  EXPECT_EQ(HcclCreateSubCommConfig(&null_comm, 1, ids, 1, 0, &config, &sub), HCCL_E_PTR);
  EXPECT_EQ(HcclCreateSubCommConfig(&comm, 1, ids, 1, 0, nullptr, &sub), HCCL_E_PTR);
  EXPECT_EQ(HcclCreateSubCommConfig(&comm, 1, ids, 1, 0, &config, nullptr), HCCL_E_PTR);
  EXPECT_EQ(HcclCreateSubCommConfig(&comm, 2, ids, 1, 0, &config, &sub), HCCL_E_PARA);  // duplicates, > size
  EXPECT_NE(LastMessage().find("rankNum 2"), std::string::npos) << LastMessage();
  ids[0] = 1;
  EXPECT_EQ(HcclCreateSubCommConfig(&comm, 1, ids, 1, 0, &config, &sub), HCCL_E_PARA);  // out of range
  EXPECT_NE(LastMessage().find("rankIds[0] = 1"), std::string::npos) << LastMessage();
  ids[0] = 0;
  EXPECT_EQ(HcclCreateSubCommConfig(&comm, 1, ids, 1, 1, &config, &sub), HCCL_E_PARA);
  EXPECT_NE(LastMessage().find("subCommRankId 1"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclCreateSubCommConfig(&comm, 1, nullptr, 1, 0, &config, &sub), HCCL_E_PARA);
  // Joining none: a null handle.
  sub = reinterpret_cast<HcclComm>(&ids);
  EXPECT_EQ(HcclCreateSubCommConfig(&comm, 0, nullptr, 0xFFFFFFFF, 0, &config, &sub), HCCL_SUCCESS);
  EXPECT_EQ(sub, nullptr);
  ASSERT_EQ(HcclCreateSubCommConfig(&comm, 1, ids, 7, 0, &config, &sub), HCCL_SUCCESS) << LastMessage();
  uint32_t value = 9;
  EXPECT_EQ(HcclGetRankSize(sub, &value), HCCL_SUCCESS);
  EXPECT_EQ(value, 1u);
  std::vector<float> data = {1.0f, 2.0f}, out(2, 0.0f);
  ASSERT_EQ(HcclAllReduce(data.data(), out.data(), 2, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, sub, stream), HCCL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  EXPECT_EQ(out, data);
  EXPECT_EQ(HcclCommDestroy(sub), HCCL_SUCCESS);
  EXPECT_EQ(HcclCommDestroy(comm), HCCL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST_F(HcclApiTest, DestroyRefusesNullAndDestroyed) {
  EXPECT_EQ(HcclCommDestroy(nullptr), HCCL_E_PTR);
  HcclComm destroyed = DestroyedComm();
  EXPECT_EQ(HcclCommDestroy(destroyed), HCCL_E_PARA);
}

TEST_F(HcclApiTest, AllReduceCheckOrder) {
  float data[4] = {1, 2, 3, 4};
  float out[4] = {};
  // count == 0 succeeds before any other check, even with null everything.
  EXPECT_EQ(HcclAllReduce(nullptr, nullptr, 0, HCCL_DATA_TYPE_RESERVED, HCCL_REDUCE_RESERVED, nullptr, nullptr),
            HCCL_SUCCESS);
  EXPECT_EQ(HcclAllReduce(nullptr, nullptr, 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, nullptr, nullptr), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("stream"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclAllReduce(nullptr, nullptr, 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, nullptr, stream_), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("comm"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclAllReduce(nullptr, nullptr, 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm_, stream_), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("sendBuf"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclAllReduce(data, nullptr, 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm_, stream_), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("recvBuf"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclAllReduce(data, out, 0x800000000ull, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm_, stream_), HCCL_E_PARA);
  // The count limit comes before the type check.
  EXPECT_EQ(HcclAllReduce(data, out, 0x800000000ull, HCCL_DATA_TYPE_UINT8, HCCL_REDUCE_SUM, comm_, stream_), HCCL_E_PARA);
  for (HcclDataType type : {HCCL_DATA_TYPE_UINT8, HCCL_DATA_TYPE_UINT16, HCCL_DATA_TYPE_UINT32, HCCL_DATA_TYPE_INT128,
                            HCCL_DATA_TYPE_HIF8, HCCL_DATA_TYPE_FP8E4M3, HCCL_DATA_TYPE_FP8E5M2, HCCL_DATA_TYPE_FP8E8M0,
                            static_cast<HcclDataType>(13), HCCL_DATA_TYPE_RESERVED}) {
    EXPECT_EQ(HcclAllReduce(data, out, 4, type, HCCL_REDUCE_SUM, comm_, stream_), HCCL_E_NOT_SUPPORT) << type;
  }
  for (HcclDataType type : {HCCL_DATA_TYPE_INT16, HCCL_DATA_TYPE_BFP16}) {
    EXPECT_EQ(HcclAllReduce(data, out, 4, type, HCCL_REDUCE_PROD, comm_, stream_), HCCL_E_NOT_SUPPORT) << type;
  }
  // The type check comes before the op check.
  EXPECT_EQ(HcclAllReduce(data, out, 4, HCCL_DATA_TYPE_UINT8, HCCL_REDUCE_RESERVED, comm_, stream_),
            HCCL_E_NOT_SUPPORT);
  EXPECT_EQ(HcclAllReduce(data, out, 4, HCCL_DATA_TYPE_FP32, static_cast<HcclReduceOp>(4), comm_, stream_),
            HCCL_E_PARA);
  EXPECT_EQ(HcclAllReduce(data, out, 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_RESERVED, comm_, stream_), HCCL_E_PARA);
  EXPECT_EQ(HcclAllReduce(data, out, 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, DestroyedComm(), stream_), HCCL_E_PARA);
  // A stale communicator is found before the type and op checks (as in Broadcast).
  EXPECT_EQ(HcclAllReduce(data, out, 4, HCCL_DATA_TYPE_UINT8, HCCL_REDUCE_RESERVED, DestroyedComm(), stream_),
            HCCL_E_PARA);
  EXPECT_NE(LastMessage().find("not a live communicator"), std::string::npos) << LastMessage();
  // A stream handle the runtime does not know.
  EXPECT_EQ(HcclAllReduce(data, out, 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm_, reinterpret_cast<aclrtStream>(8)),
            HCCL_E_RUNTIME);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  for (float value : out) EXPECT_EQ(value, 0.0f);  // nothing ran
}

TEST_F(HcclApiTest, AllGatherCheckOrder) {
  int32_t data[3] = {1, 2, 3};
  int32_t out[3] = {};
  EXPECT_EQ(HcclAllGather(nullptr, nullptr, 0, HCCL_DATA_TYPE_RESERVED, nullptr, nullptr), HCCL_SUCCESS);
  EXPECT_EQ(HcclAllGather(nullptr, nullptr, 3, HCCL_DATA_TYPE_INT32, nullptr, nullptr), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("stream"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclAllGather(nullptr, nullptr, 3, HCCL_DATA_TYPE_INT32, nullptr, stream_), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("comm"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclAllGather(nullptr, out, 3, HCCL_DATA_TYPE_INT32, comm_, stream_), HCCL_E_PTR);
  EXPECT_EQ(HcclAllGather(data, nullptr, 3, HCCL_DATA_TYPE_INT32, comm_, stream_), HCCL_E_PTR);
  EXPECT_EQ(HcclAllGather(data, out, 0x800000000ull, HCCL_DATA_TYPE_INT32, comm_, stream_), HCCL_E_PARA);
  EXPECT_EQ(HcclAllGather(data, out, 3, HCCL_DATA_TYPE_INT128, comm_, stream_), HCCL_E_NOT_SUPPORT);
  EXPECT_EQ(HcclAllGather(data, out, 3, static_cast<HcclDataType>(13), comm_, stream_), HCCL_E_NOT_SUPPORT);
  EXPECT_EQ(HcclAllGather(data, out, 3, HCCL_DATA_TYPE_RESERVED, comm_, stream_), HCCL_E_NOT_SUPPORT);
  EXPECT_EQ(HcclAllGather(data, out, 3, HCCL_DATA_TYPE_INT32, DestroyedComm(), stream_), HCCL_E_PARA);
  EXPECT_EQ(HcclAllGather(data, out, 3, HCCL_DATA_TYPE_INT128, DestroyedComm(), stream_), HCCL_E_PARA);
  EXPECT_EQ(HcclAllGather(data, out, 3, HCCL_DATA_TYPE_INT32, comm_, reinterpret_cast<aclrtStream>(8)), HCCL_E_RUNTIME);
}

TEST_F(HcclApiTest, BroadcastCheckOrder) {
  float data[2] = {1, 2};
  EXPECT_EQ(HcclBroadcast(nullptr, 0, HCCL_DATA_TYPE_RESERVED, 9, nullptr, nullptr), HCCL_SUCCESS);
  // Broadcast tests comm, buf, stream in that order.
  EXPECT_EQ(HcclBroadcast(nullptr, 2, HCCL_DATA_TYPE_FP32, 0, nullptr, nullptr), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("comm"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclBroadcast(nullptr, 2, HCCL_DATA_TYPE_FP32, 0, comm_, nullptr), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("buf"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclBroadcast(data, 2, HCCL_DATA_TYPE_FP32, 0, comm_, nullptr), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("stream"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclBroadcast(data, 0x800000000ull, HCCL_DATA_TYPE_FP32, 0, comm_, stream_), HCCL_E_PARA);
  // root before the type.
  EXPECT_EQ(HcclBroadcast(data, 2, HCCL_DATA_TYPE_INT128, 1, comm_, stream_), HCCL_E_PARA);
  EXPECT_EQ(HcclBroadcast(data, 2, HCCL_DATA_TYPE_INT128, 0, comm_, stream_), HCCL_E_NOT_SUPPORT);
  EXPECT_EQ(HcclBroadcast(data, 2, static_cast<HcclDataType>(42), 0, comm_, stream_), HCCL_E_NOT_SUPPORT);
  EXPECT_EQ(HcclBroadcast(data, 2, HCCL_DATA_TYPE_FP32, 0, DestroyedComm(), stream_), HCCL_E_PARA);
  EXPECT_EQ(HcclBroadcast(data, 2, HCCL_DATA_TYPE_FP32, 0, comm_, reinterpret_cast<aclrtStream>(8)), HCCL_E_RUNTIME);
}

TEST_F(HcclApiTest, ReduceScatterCheckOrder) {
  float data[4] = {1, 2, 3, 4};
  float out[4] = {};
  EXPECT_EQ(HcclReduceScatter(nullptr, nullptr, 0, HCCL_DATA_TYPE_RESERVED, HCCL_REDUCE_RESERVED, nullptr, nullptr),
            HCCL_SUCCESS);
  EXPECT_EQ(HcclReduceScatter(nullptr, nullptr, 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, nullptr, nullptr), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclReduceScatter: stream"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclReduceScatter(nullptr, nullptr, 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, nullptr, stream_), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclReduceScatter: comm"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclReduceScatter(nullptr, out, 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm_, stream_), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclReduceScatter: sendBuf"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclReduceScatter(data, nullptr, 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm_, stream_), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclReduceScatter: recvBuf"), std::string::npos) << LastMessage();
  // Upstream looks the communicator up (for the rank size) before the count check.
  EXPECT_EQ(HcclReduceScatter(data, out, 0x800000000ull, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, DestroyedComm(), stream_),
            HCCL_E_PARA);
  EXPECT_NE(LastMessage().find("not a live communicator"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclReduceScatter(data, out, 0x800000000ull, HCCL_DATA_TYPE_UINT8, HCCL_REDUCE_SUM, comm_, stream_),
            HCCL_E_PARA);
  EXPECT_NE(LastMessage().find("HcclReduceScatter: recvCount"), std::string::npos) << LastMessage();
  for (HcclDataType type : {HCCL_DATA_TYPE_UINT8, HCCL_DATA_TYPE_UINT16, HCCL_DATA_TYPE_UINT32, HCCL_DATA_TYPE_INT128,
                            HCCL_DATA_TYPE_HIF8, HCCL_DATA_TYPE_FP8E8M0, static_cast<HcclDataType>(13),
                            HCCL_DATA_TYPE_RESERVED}) {
    EXPECT_EQ(HcclReduceScatter(data, out, 4, type, HCCL_REDUCE_SUM, comm_, stream_), HCCL_E_NOT_SUPPORT) << type;
  }
  EXPECT_NE(LastMessage().find("cannot be reduced"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclReduceScatter(data, out, 4, HCCL_DATA_TYPE_BFP16, HCCL_REDUCE_PROD, comm_, stream_), HCCL_E_NOT_SUPPORT);
  EXPECT_NE(LastMessage().find("op PROD"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclReduceScatter(data, out, 4, HCCL_DATA_TYPE_UINT8, HCCL_REDUCE_RESERVED, comm_, stream_),
            HCCL_E_NOT_SUPPORT);
  EXPECT_EQ(HcclReduceScatter(data, out, 4, HCCL_DATA_TYPE_FP32, static_cast<HcclReduceOp>(4), comm_, stream_),
            HCCL_E_PARA);
  EXPECT_NE(LastMessage().find("HcclReduceScatter: op 4"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclReduceScatter(data, out, 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm_, reinterpret_cast<aclrtStream>(8)),
            HCCL_E_RUNTIME);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  for (float value : out) EXPECT_EQ(value, 0.0f);  // nothing ran
}

TEST_F(HcclApiTest, BarrierCheckOrder) {
  EXPECT_EQ(HcclBarrier(nullptr, nullptr), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclBarrier: stream"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclBarrier(nullptr, stream_), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclBarrier: comm"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclBarrier(DestroyedComm(), stream_), HCCL_E_PARA);
  EXPECT_EQ(HcclBarrier(comm_, reinterpret_cast<aclrtStream>(8)), HCCL_E_RUNTIME);
  EXPECT_EQ(HcclBarrier(comm_, stream_), HCCL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
}

// Send and Recv share one check order: count 0, comm, buffer, stream, count, dataType, the
// communicator, then the peer (itself, or beyond the rank size).
TEST_F(HcclApiTest, SendRecvCheckOrder) {
  int32_t data[3] = {1, 2, 3};
  using PointToPoint = HcclResult (*)(void*, uint64_t, HcclDataType, uint32_t, HcclComm, aclrtStream);
  const struct {
    PointToPoint call;
    const char* api;
    const char* buffer;
    const char* peer;
  } apis[] = {{&HcclSend, "HcclSend", "sendBuf", "destRank"}, {&HcclRecv, "HcclRecv", "recvBuf", "srcRank"}};
  for (const auto& api : apis) {
    const std::string name = api.api;
    EXPECT_EQ(api.call(nullptr, 0, HCCL_DATA_TYPE_RESERVED, 0, nullptr, nullptr), HCCL_SUCCESS) << name;
    EXPECT_EQ(api.call(nullptr, 3, HCCL_DATA_TYPE_INT32, 1, nullptr, nullptr), HCCL_E_PTR) << name;
    EXPECT_NE(LastMessage().find(name + ": comm"), std::string::npos) << LastMessage();
    EXPECT_EQ(api.call(nullptr, 3, HCCL_DATA_TYPE_INT32, 1, comm_, nullptr), HCCL_E_PTR) << name;
    EXPECT_NE(LastMessage().find(name + ": " + api.buffer), std::string::npos) << LastMessage();
    EXPECT_EQ(api.call(data, 3, HCCL_DATA_TYPE_INT32, 1, comm_, nullptr), HCCL_E_PTR) << name;
    EXPECT_NE(LastMessage().find(name + ": stream"), std::string::npos) << LastMessage();
    EXPECT_EQ(api.call(data, 0x800000000ull, HCCL_DATA_TYPE_INT128, 0, comm_, stream_), HCCL_E_PARA) << name;
    EXPECT_NE(LastMessage().find(name + ": count"), std::string::npos) << LastMessage();
    // The type comes before the communicator and the peer.
    EXPECT_EQ(api.call(data, 3, HCCL_DATA_TYPE_INT128, 0, DestroyedComm(), stream_), HCCL_E_NOT_SUPPORT) << name;
    EXPECT_EQ(api.call(data, 3, static_cast<HcclDataType>(13), 0, comm_, stream_), HCCL_E_NOT_SUPPORT) << name;
    EXPECT_EQ(api.call(data, 3, HCCL_DATA_TYPE_INT32, 0, DestroyedComm(), stream_), HCCL_E_PARA) << name;
    EXPECT_NE(LastMessage().find("not a live communicator"), std::string::npos) << LastMessage();
    // Rank 0 of a one-rank communicator: itself, then beyond the size.
    EXPECT_EQ(api.call(data, 3, HCCL_DATA_TYPE_INT32, 0, comm_, stream_), HCCL_E_NOT_SUPPORT) << name;
    EXPECT_NE(LastMessage().find(std::string(api.peer) + " 0 is this rank itself"), std::string::npos) << LastMessage();
    EXPECT_EQ(api.call(data, 3, HCCL_DATA_TYPE_INT32, 1, comm_, stream_), HCCL_E_PARA) << name;
    EXPECT_NE(LastMessage().find(std::string(api.peer) + " 1 must be below the rank size 1"), std::string::npos)
        << LastMessage();
  }
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
}

TEST_F(HcclApiTest, AlltoAllCheckOrder) {
  int32_t data[3] = {1, 2, 3};
  int32_t out[3] = {};
  const HcclDataType i32 = HCCL_DATA_TYPE_INT32;
  EXPECT_EQ(HcclAlltoAll(nullptr, 0, HCCL_DATA_TYPE_RESERVED, nullptr, 0, i32, nullptr, nullptr), HCCL_SUCCESS);
  EXPECT_EQ(HcclAlltoAll(nullptr, 3, i32, nullptr, 3, i32, nullptr, nullptr), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclAlltoAll: comm"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclAlltoAll(nullptr, 3, i32, nullptr, 3, i32, comm_, nullptr), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclAlltoAll: sendBuf"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclAlltoAll(data, 3, i32, nullptr, 3, i32, comm_, nullptr), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclAlltoAll: recvBuf"), std::string::npos) << LastMessage();
  // Only one of the counts 0 is no shortcut: the counts differ.
  EXPECT_EQ(HcclAlltoAll(data, 0, i32, out, 3, i32, comm_, nullptr), HCCL_E_PARA);
  EXPECT_NE(LastMessage().find("sendCount 0 and recvCount 3 must be equal"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclAlltoAll(data, 3, HCCL_DATA_TYPE_FP32, out, 3, i32, comm_, nullptr), HCCL_E_PARA);
  EXPECT_NE(LastMessage().find("sendType FP32 (4) and recvType INT32 (2) must be equal"), std::string::npos)
      << LastMessage();
  EXPECT_EQ(HcclAlltoAll(data, 3, i32, out, 3, i32, comm_, nullptr), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclAlltoAll: stream"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclAlltoAll(data, 3, i32, data, 3, i32, comm_, stream_), HCCL_E_PARA);
  EXPECT_NE(LastMessage().find("must differ"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclAlltoAll(data, 0x800000000ull, i32, out, 0x800000000ull, i32, DestroyedComm(), stream_), HCCL_E_PARA);
  EXPECT_NE(LastMessage().find("not a live communicator"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclAlltoAll(data, 0x800000000ull, HCCL_DATA_TYPE_INT128, out, 0x800000000ull, HCCL_DATA_TYPE_INT128, comm_,
                         stream_), HCCL_E_PARA);
  EXPECT_EQ(HcclAlltoAll(data, 3, HCCL_DATA_TYPE_INT128, out, 3, HCCL_DATA_TYPE_INT128, comm_, stream_),
            HCCL_E_NOT_SUPPORT);
  EXPECT_EQ(HcclAlltoAll(data, 3, i32, out, 3, i32, comm_, reinterpret_cast<aclrtStream>(8)), HCCL_E_RUNTIME);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  for (int32_t value : out) EXPECT_EQ(value, 0);  // nothing ran
}

TEST_F(HcclApiTest, AlltoAllVCheckOrder) {
  int32_t data[3] = {1, 2, 3};
  int32_t out[3] = {};
  uint64_t counts[1] = {3}, zero[1] = {0}, displs[1] = {0}, huge[1] = {0x800000000ull};
  const HcclDataType i32 = HCCL_DATA_TYPE_INT32;
  EXPECT_EQ(HcclAlltoAllV(data, counts, displs, i32, out, counts, displs, i32, nullptr, nullptr), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclAlltoAllV: comm"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclAlltoAllV(data, nullptr, displs, i32, out, counts, displs, i32, comm_, nullptr), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclAlltoAllV: sendCounts"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclAlltoAllV(data, counts, nullptr, i32, out, counts, displs, i32, comm_, nullptr), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclAlltoAllV: sdispls"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclAlltoAllV(data, counts, displs, i32, out, nullptr, displs, i32, comm_, nullptr), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclAlltoAllV: recvCounts"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclAlltoAllV(data, counts, displs, i32, out, counts, nullptr, i32, comm_, nullptr), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclAlltoAllV: rdispls"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclAlltoAllV(data, counts, displs, i32, out, counts, displs, i32, comm_, nullptr), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclAlltoAllV: stream"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclAlltoAllV(data, counts, displs, i32, data, counts, displs, i32, comm_, stream_), HCCL_E_PARA);
  EXPECT_NE(LastMessage().find("must differ"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclAlltoAllV(nullptr, counts, displs, i32, out, counts, displs, i32, DestroyedComm(), stream_),
            HCCL_E_PARA);
  // A null buffer is an error only where its counts are not all zero.
  EXPECT_EQ(HcclAlltoAllV(nullptr, counts, displs, i32, out, counts, displs, i32, comm_, stream_), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclAlltoAllV: sendBuf"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclAlltoAllV(data, counts, displs, i32, nullptr, counts, displs, i32, comm_, stream_), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclAlltoAllV: recvBuf"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclAlltoAllV(data, huge, displs, HCCL_DATA_TYPE_INT128, out, counts, displs, i32, comm_, stream_),
            HCCL_E_PARA);
  EXPECT_NE(LastMessage().find("the largest of sendCounts and recvCounts"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclAlltoAllV(data, counts, displs, i32, out, counts, displs, HCCL_DATA_TYPE_INT128, comm_, stream_),
            HCCL_E_NOT_SUPPORT);
  EXPECT_EQ(HcclAlltoAllV(data, counts, displs, HCCL_DATA_TYPE_FP32, out, counts, displs, i32, comm_, stream_),
            HCCL_E_PARA);
  EXPECT_NE(LastMessage().find("sendType FP32 (4) and recvType INT32 (2) must be equal"), std::string::npos)
      << LastMessage();
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  for (int32_t value : out) EXPECT_EQ(value, 0);  // nothing ran
  // Nothing to move on either side: null buffers are fine, and the call succeeds.
  EXPECT_EQ(HcclAlltoAllV(nullptr, zero, displs, i32, nullptr, zero, displs, i32, comm_, stream_), HCCL_SUCCESS);
  // A single rank whose own counts disagree fails on the stream.
  EXPECT_EQ(HcclAlltoAllV(data, counts, displs, i32, out, zero, displs, i32, comm_, stream_), HCCL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_ERROR_RT_FAILURE);
  EXPECT_NE(LastMessage().find("do not pair up"), std::string::npos) << LastMessage();
}

TEST_F(HcclApiTest, ReduceCheckOrder) {
  float data[4] = {1, 2, 3, 4};
  float out[4] = {};
  const HcclReduceOp sum = HCCL_REDUCE_SUM;
  EXPECT_EQ(HcclReduce(nullptr, nullptr, 0, HCCL_DATA_TYPE_RESERVED, HCCL_REDUCE_RESERVED, 9, nullptr, nullptr),
            HCCL_SUCCESS);
  EXPECT_EQ(HcclReduce(nullptr, nullptr, 4, HCCL_DATA_TYPE_FP32, sum, 0, nullptr, nullptr), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclReduce: comm"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclReduce(nullptr, nullptr, 4, HCCL_DATA_TYPE_FP32, sum, 0, comm_, nullptr), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclReduce: sendBuf"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclReduce(data, nullptr, 4, HCCL_DATA_TYPE_FP32, sum, 0, comm_, nullptr), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclReduce: recvBuf"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclReduce(data, out, 4, HCCL_DATA_TYPE_FP32, sum, 0, comm_, nullptr), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclReduce: stream"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclReduce(data, out, 0x800000000ull, HCCL_DATA_TYPE_UINT8, sum, 5, DestroyedComm(), stream_), HCCL_E_PARA);
  EXPECT_NE(LastMessage().find("HcclReduce: count"), std::string::npos) << LastMessage();
  // The type and op come before the communicator and the root.
  EXPECT_EQ(HcclReduce(data, out, 4, HCCL_DATA_TYPE_UINT8, sum, 5, DestroyedComm(), stream_), HCCL_E_NOT_SUPPORT);
  EXPECT_EQ(HcclReduce(data, out, 4, HCCL_DATA_TYPE_INT16, HCCL_REDUCE_PROD, 5, comm_, stream_), HCCL_E_NOT_SUPPORT);
  EXPECT_EQ(HcclReduce(data, out, 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_RESERVED, 5, comm_, stream_), HCCL_E_PARA);
  EXPECT_NE(LastMessage().find("HcclReduce: op 255"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclReduce(data, out, 4, HCCL_DATA_TYPE_FP32, sum, 5, DestroyedComm(), stream_), HCCL_E_PARA);
  EXPECT_NE(LastMessage().find("not a live communicator"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclReduce(data, out, 4, HCCL_DATA_TYPE_FP32, sum, 1, comm_, stream_), HCCL_E_PARA);
  EXPECT_NE(LastMessage().find("HcclReduce: root 1 must be below the rank size 1"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclReduce(data, out, 4, HCCL_DATA_TYPE_FP32, sum, 0, comm_, reinterpret_cast<aclrtStream>(8)),
            HCCL_E_RUNTIME);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  for (float value : out) EXPECT_EQ(value, 0.0f);  // nothing ran
}

TEST_F(HcclApiTest, ScatterCheckOrder) {
  int32_t data[3] = {1, 2, 3};
  int32_t out[3] = {};
  const HcclDataType i32 = HCCL_DATA_TYPE_INT32;
  EXPECT_EQ(HcclScatter(nullptr, nullptr, 0, HCCL_DATA_TYPE_RESERVED, 9, nullptr, nullptr), HCCL_SUCCESS);
  EXPECT_EQ(HcclScatter(data, nullptr, 3, i32, 0, nullptr, nullptr), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclScatter: comm"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclScatter(data, nullptr, 3, i32, 0, comm_, nullptr), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclScatter: recvBuf"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclScatter(data, out, 3, i32, 0, comm_, nullptr), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclScatter: stream"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclScatter(nullptr, out, 3, i32, 0, DestroyedComm(), stream_), HCCL_E_PARA);
  EXPECT_NE(LastMessage().find("not a live communicator"), std::string::npos) << LastMessage();
  // The root's sendBuf is checked (rank 0 is the root here), then the root's range.
  EXPECT_EQ(HcclScatter(nullptr, out, 3, i32, 0, comm_, stream_), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclScatter: sendBuf"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclScatter(nullptr, out, 0x800000000ull, HCCL_DATA_TYPE_INT128, 1, comm_, stream_), HCCL_E_PARA);
  EXPECT_NE(LastMessage().find("HcclScatter: root 1"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclScatter(data, out, 0x800000000ull, HCCL_DATA_TYPE_INT128, 0, comm_, stream_), HCCL_E_PARA);
  EXPECT_NE(LastMessage().find("HcclScatter: recvCount"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclScatter(data, out, 3, HCCL_DATA_TYPE_INT128, 0, comm_, stream_), HCCL_E_NOT_SUPPORT);
  EXPECT_EQ(HcclScatter(data, out, 3, i32, 0, comm_, reinterpret_cast<aclrtStream>(8)), HCCL_E_RUNTIME);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  for (int32_t value : out) EXPECT_EQ(value, 0);  // nothing ran
}

TEST_F(HcclApiTest, AllGatherVCheckOrder) {
  int32_t data[3] = {1, 2, 3};
  int32_t out[3] = {};
  uint64_t counts[1] = {3}, zero[1] = {0}, displs[1] = {0};
  const HcclDataType i32 = HCCL_DATA_TYPE_INT32;
  EXPECT_EQ(HcclAllGatherV(data, 3, out, counts, displs, i32, nullptr, nullptr), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclAllGatherV: comm"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclAllGatherV(data, 3, out, nullptr, displs, i32, comm_, nullptr), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclAllGatherV: recvCounts"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclAllGatherV(data, 3, out, counts, nullptr, i32, comm_, nullptr), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclAllGatherV: recvDispls"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclAllGatherV(data, 3, out, counts, displs, i32, comm_, nullptr), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclAllGatherV: stream"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclAllGatherV(nullptr, 3, out, counts, displs, i32, comm_, stream_), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclAllGatherV: sendBuf"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclAllGatherV(nullptr, 0, nullptr, counts, displs, i32, DestroyedComm(), stream_), HCCL_E_PARA);
  // Nothing to receive anywhere: success before the remaining checks, nothing queued.
  EXPECT_EQ(HcclAllGatherV(nullptr, 0, nullptr, zero, displs, HCCL_DATA_TYPE_RESERVED, comm_, stream_), HCCL_SUCCESS);
  EXPECT_EQ(HcclAllGatherV(data, 3, nullptr, counts, displs, i32, comm_, stream_), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclAllGatherV: recvBuf"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclAllGatherV(data, 0x800000000ull, out, counts, displs, HCCL_DATA_TYPE_INT128, comm_, stream_),
            HCCL_E_PARA);
  EXPECT_NE(LastMessage().find("HcclAllGatherV: sendCount"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclAllGatherV(data, 3, out, counts, displs, HCCL_DATA_TYPE_INT128, comm_, stream_), HCCL_E_NOT_SUPPORT);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  for (int32_t value : out) EXPECT_EQ(value, 0);  // nothing ran
  // A sendCount that differs from the rank's own recvCounts entry fails on the stream.
  EXPECT_EQ(HcclAllGatherV(data, 2, out, counts, displs, i32, comm_, stream_), HCCL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_ERROR_RT_FAILURE);
  EXPECT_NE(LastMessage().find("do not pair up"), std::string::npos) << LastMessage();
}

TEST_F(HcclApiTest, ReduceScatterVCheckOrder) {
  float data[4] = {1, 2, 3, 4};
  float out[4] = {};
  uint64_t counts[1] = {4}, zero[1] = {0}, displs[1] = {0};
  const HcclDataType f32 = HCCL_DATA_TYPE_FP32;
  const HcclReduceOp sum = HCCL_REDUCE_SUM;
  EXPECT_EQ(HcclReduceScatterV(data, counts, displs, out, 4, f32, sum, nullptr, nullptr), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclReduceScatterV: stream"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclReduceScatterV(data, counts, displs, out, 4, f32, sum, nullptr, stream_), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclReduceScatterV: comm"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclReduceScatterV(data, nullptr, displs, out, 4, f32, sum, comm_, stream_), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclReduceScatterV: sendCounts"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclReduceScatterV(data, counts, nullptr, out, 4, f32, sum, comm_, stream_), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclReduceScatterV: sendDispls"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclReduceScatterV(data, counts, displs, nullptr, 4, f32, sum, comm_, stream_), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclReduceScatterV: recvBuf"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclReduceScatterV(data, counts, displs, nullptr, 0, f32, sum, DestroyedComm(), stream_), HCCL_E_PARA);
  // Nothing to send: success before the remaining checks, nothing queued.
  EXPECT_EQ(HcclReduceScatterV(nullptr, zero, displs, nullptr, 0, HCCL_DATA_TYPE_RESERVED, HCCL_REDUCE_RESERVED, comm_,
                               stream_), HCCL_SUCCESS);
  EXPECT_EQ(HcclReduceScatterV(nullptr, counts, displs, out, 4, f32, sum, comm_, stream_), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclReduceScatterV: sendBuf"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclReduceScatterV(data, counts, displs, out, 0x800000000ull, HCCL_DATA_TYPE_UINT8, sum, comm_, stream_),
            HCCL_E_PARA);
  EXPECT_NE(LastMessage().find("HcclReduceScatterV: recvCount"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclReduceScatterV(data, counts, displs, out, 4, HCCL_DATA_TYPE_UINT8, sum, comm_, stream_),
            HCCL_E_NOT_SUPPORT);
  EXPECT_EQ(HcclReduceScatterV(data, counts, displs, out, 4, HCCL_DATA_TYPE_BFP16, HCCL_REDUCE_PROD, comm_, stream_),
            HCCL_E_NOT_SUPPORT);
  EXPECT_EQ(HcclReduceScatterV(data, counts, displs, out, 4, f32, static_cast<HcclReduceOp>(7), comm_, stream_),
            HCCL_E_PARA);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  for (float value : out) EXPECT_EQ(value, 0.0f);  // nothing ran
}

TEST_F(HcclApiTest, BatchSendRecvCheckOrder) {
  int32_t data[3] = {1, 2, 3};
  int32_t out[3] = {};
  HcclSendRecvItem items[2] = {{HCCL_SEND, data, 3, HCCL_DATA_TYPE_INT32, 0}, {HCCL_RECV, out, 3, HCCL_DATA_TYPE_INT32, 0}};
  EXPECT_EQ(HcclBatchSendRecv(nullptr, 0, nullptr, nullptr), HCCL_SUCCESS);
  EXPECT_EQ(HcclBatchSendRecv(nullptr, 2, nullptr, nullptr), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclBatchSendRecv: stream"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclBatchSendRecv(nullptr, 2, nullptr, stream_), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclBatchSendRecv: comm"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclBatchSendRecv(nullptr, 2, comm_, stream_), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("HcclBatchSendRecv: sendRecvInfo"), std::string::npos) << LastMessage();
  // Each item's count and type before the communicator and the ranks.
  HcclSendRecvItem bad = items[1];
  bad.count = 0x800000000ull;
  bad.remoteRank = 7;
  HcclSendRecvItem with_bad[2] = {items[0], bad};
  EXPECT_EQ(HcclBatchSendRecv(with_bad, 2, DestroyedComm(), stream_), HCCL_E_PARA);
  EXPECT_NE(LastMessage().find("sendRecvInfo[1].count"), std::string::npos) << LastMessage();
  with_bad[1].count = 3;
  with_bad[1].dataType = HCCL_DATA_TYPE_INT128;
  EXPECT_EQ(HcclBatchSendRecv(with_bad, 2, DestroyedComm(), stream_), HCCL_E_NOT_SUPPORT);
  with_bad[1].dataType = HCCL_DATA_TYPE_INT32;
  EXPECT_EQ(HcclBatchSendRecv(with_bad, 2, DestroyedComm(), stream_), HCCL_E_PARA);
  EXPECT_NE(LastMessage().find("not a live communicator"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclBatchSendRecv(with_bad, 2, comm_, stream_), HCCL_E_PARA);
  EXPECT_NE(LastMessage().find("sendRecvInfo[1].remoteRank 7 must be below the rank size 1"), std::string::npos)
      << LastMessage();
  with_bad[1].remoteRank = 0;
  with_bad[1].sendRecvType = HCCL_SEND_RECV_RESERVED;
  EXPECT_EQ(HcclBatchSendRecv(with_bad, 2, comm_, stream_), HCCL_E_PARA);
  EXPECT_NE(LastMessage().find("neither HCCL_SEND nor HCCL_RECV"), std::string::npos) << LastMessage();
  with_bad[1].sendRecvType = HCCL_RECV;
  with_bad[1].buf = nullptr;
  EXPECT_EQ(HcclBatchSendRecv(with_bad, 2, comm_, stream_), HCCL_E_PTR);
  EXPECT_NE(LastMessage().find("sendRecvInfo[1].buf"), std::string::npos) << LastMessage();
  EXPECT_EQ(HcclBatchSendRecv(items, 2, comm_, reinterpret_cast<aclrtStream>(8)), HCCL_E_RUNTIME);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  for (int32_t value : out) EXPECT_EQ(value, 0);  // nothing ran
  // One rank: transfers to itself pair up in order; one without a counterpart fails.
  ASSERT_EQ(HcclBatchSendRecv(items, 2, comm_, stream_), HCCL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(out[2], 3);
  ASSERT_EQ(HcclBatchSendRecv(items, 1, comm_, stream_), HCCL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_ERROR_RT_FAILURE);
  EXPECT_NE(LastMessage().find("has no counterpart"), std::string::npos) << LastMessage();
  // A disagreeing pair to itself moves nothing.
  int32_t short_out[2] = {-1, -1};
  HcclSendRecvItem mismatched[2] = {{HCCL_SEND, data, 3, HCCL_DATA_TYPE_INT32, 0},
                                    {HCCL_RECV, short_out, 2, HCCL_DATA_TYPE_INT32, 0}};
  ASSERT_EQ(HcclBatchSendRecv(mismatched, 2, comm_, stream_), HCCL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_ERROR_RT_FAILURE);
  EXPECT_NE(LastMessage().find("point-to-point pair disagrees"), std::string::npos) << LastMessage();
  EXPECT_EQ(short_out[0], -1);
  // Failed transfers to itself leave nothing behind: the next pair works.
  out[2] = 0;
  ASSERT_EQ(HcclBatchSendRecv(items, 2, comm_, stream_), HCCL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS) << LastMessage();
  EXPECT_EQ(out[2], 3);
}

TEST_F(HcclApiTest, GroupEndWithoutStartAndNesting) {
  EXPECT_EQ(HcclGroupEnd(), HCCL_E_NOT_SUPPORT);
  EXPECT_NE(LastMessage().find("HcclGroupEnd: no group is open"), std::string::npos) << LastMessage();
  std::vector<float> data = {1.0f, 2.0f}, out(2, -1.0f);
  ASSERT_EQ(HcclGroupStart(), HCCL_SUCCESS);
  ASSERT_EQ(HcclGroupStart(), HCCL_SUCCESS);
  // Checked at the call, inside the group too; a refused call records nothing.
  EXPECT_EQ(HcclAllReduce(data.data(), out.data(), 2, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm_, nullptr),
            HCCL_E_PTR);
  ASSERT_EQ(HcclAllReduce(data.data(), out.data(), 2, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm_, stream_),
            HCCL_SUCCESS);
  EXPECT_EQ(HcclGroupEnd(), HCCL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(out[1], -1.0f) << "issued before the outermost HcclGroupEnd";
  EXPECT_EQ(HcclGroupEnd(), HCCL_SUCCESS);
  EXPECT_EQ(out[1], 2.0f) << "HcclGroupEnd waits for the grouped collectives";
  EXPECT_EQ(HcclGroupEnd(), HCCL_E_NOT_SUPPORT);
}

TEST_F(HcclApiTest, SingletonCollectivesRunInStreamOrder) {
  std::vector<float> send = {1.5f, -2.0f, 3.25f};
  std::vector<float> staged(3, 0.0f), reduced(3, -1.0f), gathered(3, -1.0f), scattered(3, -1.0f), copied(3, -1.0f);
  // Work before the collective (a copy into its input) and after it (a copy of its output)
  // on the same stream, without host synchronisation in between.
  ASSERT_EQ(aclrtMemcpyAsync(staged.data(), 12, send.data(), 12, ACL_MEMCPY_HOST_TO_DEVICE, stream_), ACL_SUCCESS);
  ASSERT_EQ(HcclAllReduce(staged.data(), reduced.data(), 3, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_MAX, comm_, stream_),
            HCCL_SUCCESS);
  ASSERT_EQ(HcclAllGather(reduced.data(), gathered.data(), 3, HCCL_DATA_TYPE_FP32, comm_, stream_), HCCL_SUCCESS);
  ASSERT_EQ(HcclBroadcast(gathered.data(), 3, HCCL_DATA_TYPE_FP32, 0, comm_, stream_), HCCL_SUCCESS);
  ASSERT_EQ(HcclBarrier(comm_, stream_), HCCL_SUCCESS);
  ASSERT_EQ(HcclReduceScatter(gathered.data(), scattered.data(), 3, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm_, stream_),
            HCCL_SUCCESS);
  ASSERT_EQ(aclrtMemcpyAsync(copied.data(), 12, scattered.data(), 12, ACL_MEMCPY_DEVICE_TO_HOST, stream_), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(copied, send);
  // In place.
  ASSERT_EQ(HcclAllReduce(copied.data(), copied.data(), 3, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm_, stream_),
            HCCL_SUCCESS);
  ASSERT_EQ(HcclReduceScatter(copied.data(), copied.data(), 3, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_PROD, comm_, stream_),
            HCCL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(copied, send);
  // AlltoAll and AlltoAllV with one rank: the rank's own block, at its displacements.
  std::vector<float> exchanged(3, -1.0f), shifted(5, -1.0f);
  ASSERT_EQ(HcclAlltoAll(copied.data(), 3, HCCL_DATA_TYPE_FP32, exchanged.data(), 3, HCCL_DATA_TYPE_FP32, comm_,
                         stream_), HCCL_SUCCESS);
  const uint64_t two[1] = {2}, from[1] = {1}, to[1] = {3};
  ASSERT_EQ(HcclAlltoAllV(copied.data(), two, from, HCCL_DATA_TYPE_FP32, shifted.data(), two, to, HCCL_DATA_TYPE_FP32,
                          comm_, stream_), HCCL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(exchanged, send);
  // Reduce and Scatter with one rank: the rank's own data.
  std::vector<float> reduced_at_root(3, -1.0f), scattered_block(3, -1.0f);
  ASSERT_EQ(HcclReduce(exchanged.data(), reduced_at_root.data(), 3, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_MIN, 0, comm_,
                       stream_), HCCL_SUCCESS);
  ASSERT_EQ(HcclScatter(reduced_at_root.data(), scattered_block.data(), 3, HCCL_DATA_TYPE_FP32, 0, comm_, stream_),
            HCCL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(scattered_block, send);
  // AllGatherV and ReduceScatterV with one rank: the rank's own block, at its displacements.
  std::vector<float> gathered_v(4, -1.0f), reduced_v(2, -1.0f);
  const uint64_t one_count[1] = {3}, at_one[1] = {1}, two_count[1] = {2}, at_zero[1] = {0};
  ASSERT_EQ(HcclAllGatherV(send.data(), 3, gathered_v.data(), one_count, at_one, HCCL_DATA_TYPE_FP32, comm_, stream_),
            HCCL_SUCCESS);
  ASSERT_EQ(HcclReduceScatterV(gathered_v.data(), two_count, at_zero, reduced_v.data(), 2, HCCL_DATA_TYPE_FP32,
                               HCCL_REDUCE_MAX, comm_, stream_), HCCL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(gathered_v, (std::vector<float>{-1.0f, send[0], send[1], send[2]}));
  EXPECT_EQ(reduced_v, (std::vector<float>{-1.0f, send[0]}));
  EXPECT_EQ(shifted, (std::vector<float>{-1.0f, -1.0f, -1.0f, send[1], send[2]}));
  EXPECT_EQ(HcclCommDestroy(comm_), HCCL_SUCCESS);
  comm_ = nullptr;
}

TEST(HcclCollectives, BeforeAclInitTheRuntimeRefuses) {
  HcclRootInfo root;
  HcclComm comm = nullptr;
  ASSERT_EQ(HcclGetRootInfo(&root), HCCL_SUCCESS);
  ASSERT_EQ(HcclCommInitRootInfo(1, &root, 0, &comm), HCCL_SUCCESS);
  float value = 1.0f;
  EXPECT_EQ(HcclAllReduce(&value, &value, 1, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm,
                          reinterpret_cast<aclrtStream>(0x1000)),
            HCCL_E_RUNTIME);
  EXPECT_EQ(HcclCommDestroy(comm), HCCL_SUCCESS);  // the refused call left nothing pending
}

}  // namespace
