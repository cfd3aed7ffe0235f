// Exact memory-overlap tests for strided views. An element of a view lives at
// data + (offset + sum(index[i] * stride[i])) * element_size; whether two views (or two
// elements of one view) can share a byte is a bounded linear integer equation, which
// OverlapSolver answers by a pruned depth-first search. Only a search that exceeds its work
// limit (contrived views with many long, interlocking axes) answers kUnknown, which callers
// treat conservatively.
#pragma once

#include "core/handles.h"

namespace oa {

enum class Overlap { kNo, kYes, kUnknown };

// Do the two views share at least one byte?
Overlap ViewsOverlap(const aclTensor& a, const aclTensor& b);

// Do two different elements of the view share an address (it would write one location twice)?
Overlap ViewOverlapsItself(const aclTensor& tensor);

}  // namespace oa
