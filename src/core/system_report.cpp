// aclrtGetVersion and openaclnnGetSystemReport: what a user pastes into a bug report.
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <list>
#include <mutex>
#include <string>

#include "acl/acl.h"
#include "core/simd.h"
#include "core/stream_stores.h"
#include "core/thread_pool.h"
#include "openaclnn/openaclnn_info.h"
#include "runtime/error.h"

namespace oa {
namespace {

// The environment variables the libraries read (docs/environment.md).
const char* const kEnvironmentVariables[] = {"OPENACLNN_SIMD",        "OPENACLNN_NUM_THREADS",  "OMP_NUM_THREADS",
                                             "OPENACLNN_VERBOSE",     "OPENACLNN_VERBOSE_FILE", "OPENACLNN_SOC_VERSION",
                                             "HCCL_DETERMINISTIC",    "OPENACLNN_HCCL_CHUNK_ELEMENTS",
                                             "OPENACLNN_POOL_SPIN_US"};

std::string ReadFirstLine(const std::string& path) {
  std::ifstream file(path);
  std::string line;
  std::getline(file, line);
  return line;
}

// One line per cache of CPU 0 from sysfs ("cache.L1d: 48K"); sysconf where sysfs is absent.
std::string CacheLines() {
  std::string lines;
  for (int index = 0;; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    const std::string level = ReadFirstLine(dir + "level");
    if (level.empty()) break;
    const std::string type = ReadFirstLine(dir + "type");
    const char* suffix = type == "Data" ? "d" : type == "Instruction" ? "i" : "";
    lines += "cache.L" + level + suffix + ": " + ReadFirstLine(dir + "size") + "\n";
  }
  if (!lines.empty()) return lines;
  const struct {
    const char* name;
    int key;
  } kSysconfCaches[] = {{"L1d", _SC_LEVEL1_DCACHE_SIZE}, {"L2", _SC_LEVEL2_CACHE_SIZE}, {"L3", _SC_LEVEL3_CACHE_SIZE}};
  for (const auto& cache : kSysconfCaches) {
    const long bytes = sysconf(cache.key);
    lines += std::string("cache.") + cache.name + ": " + (bytes > 0 ? std::to_string(bytes / 1024) + "K" : "unknown") +
             "\n";
  }
  return lines;
}

std::string BuildSystemReport() {
  std::string report = "version: " OPENACLNN_VERSION_STRING "\n";
  report += "simd.available:";
  for (const std::string& target : SimdAvailableTargets()) report += " " + target;
  report += "\nsimd.dispatched: " + ActiveSimdTarget() + "\n";
  report += "threads: " + std::to_string(NumThreads()) + " (from " + ThreadCountSource() + ")\n";
  report += CacheLines();
  // The size past which kernels stream their outputs: the last-level cache instance, which
  // the cache.L3 line (sysconf's, where sysfs is absent) may overstate.
  report += "stream_stores.above: " + std::to_string(StreamStoresAboveBytes() / 1024) + "K (" +
            StreamStoresAboveSource() + ")\n";
  for (const char* name : kEnvironmentVariables) {
    const char* value = std::getenv(name);
    report += std::string("env.") + name + ": " + (value != nullptr ? value : "(unset)") + "\n";
  }
  return report;
}

}  // namespace
}  // namespace oa

extern "C" aclError aclrtGetVersion(int32_t* majorVersion, int32_t* minorVersion, int32_t* patchVersion) {
  if (majorVersion == nullptr || minorVersion == nullptr || patchVersion == nullptr) {
    return oa::Fail(ACL_ERROR_INVALID_PARAM,
                    "aclrtGetVersion: majorVersion, minorVersion and patchVersion must not be null");
  }
  *majorVersion = OPENACLNN_VERSION_MAJOR;
  *minorVersion = OPENACLNN_VERSION_MINOR;
  *patchVersion = OPENACLNN_VERSION_PATCH;
  return ACL_SUCCESS;
}

extern "C" const char* openaclnnGetSystemReport(void) {
  try {
    // Built at each call (the thread count may have changed since); every distinct report
    // is kept for the life of the process, so a returned pointer never dangles.
    static std::mutex mutex;
    static std::list<std::string> reports;
    const std::string report = oa::BuildSystemReport();
    std::lock_guard<std::mutex> lock(mutex);
    for (const std::string& kept : reports) {
      if (kept == report) return kept.c_str();
    }
    reports.push_back(report);
    return reports.back().c_str();
  } catch (...) {  // out of memory: no C++ exception crosses the C boundary
    return oa::Fail<const char*>(nullptr, "openaclnnGetSystemReport: out of host memory");
  }
}
