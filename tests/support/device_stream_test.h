// A test fixture with the runtime initialised, device 0 set and one stream, released after
// the test in the reverse order.
#pragma once

#include <gtest/gtest.h>

#include "acl/acl.h"

namespace support {

class DeviceStreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS);
  }
  void TearDown() override {
    EXPECT_EQ(aclrtDestroyStream(stream_), ACL_SUCCESS);
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  }
  aclrtStream stream_ = nullptr;
};

}  // namespace support
