// openaclnn-info: prints how the installed library runs here (openaclnnGetSystemReport),
// through the public shared library, so it reports exactly what applications get.
#include <cstdio>

#include "openaclnn/openaclnn_info.h"

int main() {
  const char* report = openaclnnGetSystemReport();
  if (report == nullptr) {
    std::fprintf(stderr, "openaclnn-info: no report (out of memory)\n");
    return 1;
  }
  std::fputs(report, stdout);
  return 0;
}
