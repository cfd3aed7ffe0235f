// openaclnn-info: prints how the installed library runs here (openaclnnGetSystemReport),
// through the public shared library, so it reports exactly what applications get.
#include <cstdio>
#include <cstring>

#include "openaclnn/openaclnn_info.h"

namespace {

const char kUsage[] =
    "usage: openaclnn-info [--help]\n"
    "Prints how the openaclnn library this program loads runs on this machine, one \"key: value\"\n"
    "per line: version, SIMD targets (available, dispatched), the thread count and where it came\n"
    "from, the CPU caches, and every environment variable the libraries read with its value\n"
    "(docs/environment.md). Paste it into a bug report.\n";

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) {
    const bool help = std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0;
    std::fputs(kUsage, help ? stdout : stderr);
    return help ? 0 : 2;
  }
  const char* report = openaclnnGetSystemReport();
  if (report == nullptr) {
    std::fprintf(stderr, "openaclnn-info: no report (out of memory)\n");
    return 1;
  }
  std::fputs(report, stdout);
  return 0;
}
