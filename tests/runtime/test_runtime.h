// Shared by the runtime tests: each test starts from an initialised runtime and finalises it.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "acl/acl.h"

class RuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS) << aclGetRecentErrMsg();
    aclGetRecentErrMsg();  // start each test with no pending message
  }
  void TearDown() override {
    aclGetRecentErrMsg();
    EXPECT_EQ(aclFinalize(), ACL_SUCCESS) << aclGetRecentErrMsg();
  }
};

// The pending message of this thread (and clears it, as aclGetRecentErrMsg does).
inline std::string LastError() { return aclGetRecentErrMsg(); }
