// The program that owns the test programs' precompiled header (cmake/OpenaclnnTesting.cmake):
// CMake compiles the header with this program's flags, and every test program reuses it.
#include <gtest/gtest.h>

TEST(PrecompiledTestHeader, Builds) { SUCCEED(); }
