// Compiled into every test binary that openaclnn_add_test registers. The tests allocate and
// free buffers of hundreds of kilobytes to megabytes many times over; glibc serves each with
// a fresh mmap() whose pages fault in again on every use (a quarter of
// batch_norm_backward_reference_test's time, and 10 % of the release tier's, was the kernel
// zeroing pages). Up to glibc's largest mmap threshold (32 MiB) they now come from the heap,
// which keeps freed memory for the next allocation. The library under test sees ordinary
// memory either way; the sanitizers' allocators ignore mallopt.
#include <cstdlib>  // defines __GLIBC__ with glibc

#if defined(__GLIBC__)
#include <malloc.h>

namespace {

const bool g_heap_reuse = [] {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  return true;
}();

}  // namespace
#endif
