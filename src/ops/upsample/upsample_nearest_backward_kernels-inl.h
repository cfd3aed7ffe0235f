// Kernels of aclnnUpsampleNearestExact3dBackward, per SIMD target. Each gradInput element is
// a gather: it sums, in float32 and in increasing (od, oh, ow) order starting from 0, the
// gradOut elements of its three [begin, end) ranges, which reproduces PyTorch's scatter
// order bit for bit without a zero-fill pass. One kernel per memory layout, chosen in phase 1.
//
// Included (per target, Highway's pattern) by one translation unit per dtype
// (upsample_nearest_backward_{f32,f16,bf16}.cpp): each compiles UpsampleTaskT for
// its dtype only, so the three compile in parallel (under the sanitizers this code is the
// slowest of the build by far).
#if defined(OA_OPS_UPSAMPLE_BACKWARD_KERNELS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef OA_OPS_UPSAMPLE_BACKWARD_KERNELS_INL_H_
#undef OA_OPS_UPSAMPLE_BACKWARD_KERNELS_INL_H_
#else
#define OA_OPS_UPSAMPLE_BACKWARD_KERNELS_INL_H_
#endif

#include <hwy/highway.h>

#include <cstdint>
#include <optional>

#include "core/kernel_inline.h"
#include "core/simd_convert-inl.h"
#include "ops/upsample/upsample_nearest_backward_plan.h"

HWY_BEFORE_NAMESPACE();
namespace oa {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using Plan = UpsampleNearestBackwardPlan;

// Gathers row[index[lane]] as float32 lanes.
template <class DF, class VI>
HWY_INLINE hn::Vec<DF> GatherAsFloat(DF df, const float* HWY_RESTRICT row, VI index) {
  return hn::GatherIndex(df, row, index);
}
// No 16-bit gather in Highway: read the lanes one by one (only row tails and rows
// narrower than a vector of half types take this path).
template <class DF, class VI, typename T>
HWY_INLINE hn::Vec<DF> GatherAsFloat(DF df, const T* HWY_RESTRICT row, VI index) {
  const hn::RebindToSigned<DF> di;
  HWY_ALIGN int32_t lanes_index[hn::MaxLanes(di)];
  HWY_ALIGN float lanes_value[hn::MaxLanes(df)];
  hn::Store(index, di, lanes_index);
  for (size_t lane = 0; lane < hn::Lanes(df); ++lane) lanes_value[lane] = ToFloat(row[lanes_index[lane]]);
  return hn::Load(df, lanes_value);
}

// 16-bit rows read by per-element code (gathers, scalar chains) are first converted to
// float32 in vectors, a span at a time, into a buffer of this many floats on the stack: a
// scalar 16-bit read costs three more operations per element than a float32 one (bf16 at
// x50 and x2.4 was slower than fp32 for that). Longer spans are read as they are.
constexpr int64_t kSpanFloats = 2048;

// out[0, count) = src[0, count) as float32.
template <class DF, typename T>
HWY_INLINE void ConvertSpan(DF df, const T* HWY_RESTRICT src, int64_t count, float* HWY_RESTRICT out) {
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  int64_t i = 0;
  for (; i + lanes <= count; i += lanes) hn::StoreU(LoadAsFloat(df, src + i), df, out + i);
  for (; i < count; ++i) out[i] = ToFloat(src[i]);
}

// Splits 2L consecutive elements (lo, hi) into the even-indexed and odd-indexed ones.
template <class DF>
HWY_INLINE void SplitEvenOdd(DF df, hn::Vec<DF> lo, hn::Vec<DF> hi, hn::Vec<DF>* even, hn::Vec<DF>* odd) {
#if HWY_TARGET == HWY_SCALAR
  (void)df;
  *even = lo;
  *odd = hi;
#else
  *even = hn::ConcatEven(df, hi, lo);
  *odd = hn::ConcatOdd(df, hi, lo);
#endif
}

// Loads 2L consecutive elements from src as float32: even-indexed ones and odd-indexed ones.
template <class DF, typename T>
HWY_INLINE void LoadEvenOdd(DF df, const T* HWY_RESTRICT src, hn::Vec<DF>* even, hn::Vec<DF>* odd) {
  SplitEvenOdd(df, LoadAsFloat(df, src), LoadAsFloat(df, src + hn::Lanes(df)), even, odd);
}
// bf16 pairs share a 32-bit word (little-endian: the even element in the low half), and a
// bf16 is the top half of its float32: one load and two bit operations.
template <class DF>
HWY_INLINE void LoadEvenOdd(DF df, const BFloat16* HWY_RESTRICT src, hn::Vec<DF>* even, hn::Vec<DF>* odd) {
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "bf16 pair layout assumes little-endian words");
  const hn::RebindToUnsigned<DF> du;
  const auto words = hn::LoadU(du, reinterpret_cast<const uint32_t*>(src));
  *even = hn::BitCast(df, hn::ShiftLeft<16>(words));
  *odd = hn::BitCast(df, hn::And(words, hn::Set(du, 0xFFFF0000u)));
}

// Stores the first `count` lanes of acc (a row's last, partial chunk).
template <class DF, typename T>
HWY_INLINE void StorePartial(DF df, hn::Vec<DF> acc, size_t count, T* HWY_RESTRICT out) {
  HWY_ALIGN float lanes[hn::MaxLanes(df)];
  hn::Store(acc, df, lanes);
  for (size_t lane = 0; lane < count; ++lane) FromFloat(lanes[lane], out + lane);
}

// Position of a row (n, c, i, j) of the kRowsAlongW / kStrided kernels, advanced by one
// row at a time without divisions.
struct RowCursor {
  int64_t n, c, i, j;
  RowCursor(const Plan& plan, int64_t row) {
    j = row % plan.in_size[1];
    i = (row / plan.in_size[1]) % plan.in_size[0];
    const int64_t nc = row / (plan.in_size[1] * plan.in_size[0]);
    c = nc % plan.channels;
    n = nc / plan.channels;
  }
  void Next(const Plan& plan) {
    if (++j < plan.in_size[1]) return;
    j = 0;
    if (++i < plan.in_size[0]) return;
    i = 0;
    if (++c < plan.channels) return;
    c = 0;
    ++n;
  }
};

// One gradInput row along W for the general mapping with per-lane gathers, from output l0
// to the row's end (also the partial last chunk of the other patterns).
template <typename T, class DF>
OA_KERNEL_HELPER void GatherChunks(DF df, const Plan& plan, const T* HWY_RESTRICT plane, int64_t od_begin, int64_t od_end,
                                   int64_t oh_begin, int64_t oh_end, int64_t l0, T* HWY_RESTRICT out_row) {
  const hn::RebindToSigned<DF> di;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  const int64_t in_w = plan.in_size[2];
  const auto& go = plan.grad_out_strides;
  const AxisMap& range_w = plan.ranges[2];
  HWY_ALIGN int32_t computed[hn::MaxLanes(di) + 1];
  for (; l0 < in_w; l0 += lanes) {
    // Boundaries l0 .. l0 + lanes: from the table (padded past the row's end), or computed.
    const int32_t* boundaries = computed;
    if (range_w.tabulated()) {
      boundaries = range_w.table() + l0;
    } else {
      for (int64_t q = 0; q <= lanes; ++q) computed[q] = static_cast<int32_t>(range_w.Begin(std::min(l0 + q, in_w)));
    }
    const auto begin = hn::LoadU(di, boundaries);
    const auto count = hn::Sub(hn::LoadU(di, boundaries + 1), begin);
    const int32_t max_count = hn::GetLane(hn::MaxOfLanes(di, count));
    // The lanes read elements [first, first + span) of each row (ranges are increasing).
    const int32_t first = boundaries[0];
    const int64_t span = boundaries[lanes] - first;
    const bool convert = sizeof(T) == 2 && span <= kSpanFloats;
    HWY_ALIGN float converted[sizeof(T) == 2 ? kSpanFloats : 1];
    converted[0] = 0.0f;  // read (and discarded) by inactive lanes when the span is empty
    auto acc = hn::Zero(df);
    for (int64_t od = od_begin; od < od_end; ++od) {
      for (int64_t oh = oh_begin; oh < oh_end; ++oh) {
        const T* HWY_RESTRICT src = plane + od * go[2] + oh * go[3];
        if (convert) ConvertSpan(df, src + first, span, converted);
        for (int32_t k = 0; k < max_count; ++k) {
          const auto active = hn::Lt(hn::Set(di, k), count);
          // Inactive lanes read element 0 (always inside the row) and add +0, which leaves
          // the sum unchanged: it starts at +0 and so is never -0.
          const auto element = hn::Add(begin, hn::Set(di, k));
          const auto value = convert ? GatherAsFloat(df, converted,
                                                     hn::IfThenElseZero(active, hn::Sub(element, hn::Set(di, first))))
                                     : GatherAsFloat(df, src, hn::IfThenElseZero(active, element));
          acc = hn::Add(acc, hn::IfThenElseZero(hn::RebindMask(df, active), value));
        }
      }
    }
    if (l0 + lanes <= in_w) {
      StoreFromFloat(acc, df, out_row + l0);
    } else {
      StorePartial(df, acc, static_cast<size_t>(in_w - l0), out_row + l0);
    }
  }
}

// Rows of gradInput ahead whose gradOut rows are prefetched: each gradInput row reads a
// few short gradOut rows from different planes, too little for the hardware prefetcher
// to run ahead on its own.
constexpr int64_t kPrefetchAhead = 8;

template <typename T>
HWY_INLINE void PrefetchRows(const T* HWY_RESTRICT plane, const std::array<int64_t, 5>& go, int64_t od_begin,
                             int64_t od_end, const AxisMap& range_h, int64_t j, int64_t out_w) {
  if (j >= range_h.in_size()) return;
  const int64_t row_bytes = out_w * static_cast<int64_t>(sizeof(T));
  for (int64_t od = od_begin; od < od_end; ++od) {
    for (int64_t oh = range_h.Begin(j), oh_end = range_h.End(j); oh < oh_end; ++oh) {
      const char* row = reinterpret_cast<const char*>(plane + od * go[2] + oh * go[3]);
      for (int64_t offset = 0; offset < row_bytes; offset += 64) __builtin_prefetch(row + offset);
    }
  }
}

// Integer ratios along W (out_w == K * in_w, output l reads K·l .. K·l + K - 1): K
// consecutive vectors of a gradOut row hold the sources of one vector of outputs, and
// splitting them into K vectors of every K-th element (part t lane q: element t + K·q) lets
// `Add` add element t of every output at once. Lanes move, values do not: each output adds
// the same values in the same order as element by element.
template <int K, class DF>
struct WidthMultiple;

template <class DF>
struct WidthMultiple<1, DF> {
  explicit WidthMultiple(DF /*df*/) {}
  template <typename T>
  HWY_INLINE hn::Vec<DF> Add(DF df, const T* HWY_RESTRICT src, hn::Vec<DF> acc) const {
    return hn::Add(acc, LoadAsFloat(df, src));
  }
};

template <class DF>
struct WidthMultiple<2, DF> {
  explicit WidthMultiple(DF /*df*/) {}
  template <typename T>
  HWY_INLINE hn::Vec<DF> Add(DF df, const T* HWY_RESTRICT src, hn::Vec<DF> acc) const {
    hn::Vec<DF> even, odd;
    LoadEvenOdd(df, src, &even, &odd);
    return hn::Add(hn::Add(acc, even), odd);
  }
};

// x3: element t + 3q lies in vector (t + 3q) / L at lane (t + 3q) mod L. AVX-512 gathers each
// part from the three vectors with two two-source permutations; other targets permute each
// vector and pick each lane's source vector with two selects.
template <class DF>
struct WidthMultiple<3, DF> {
  static constexpr size_t kMaxLanes = hn::MaxLanes(DF());
  HWY_ALIGN int32_t lane[3][kMaxLanes];       // (t + 3q) mod L
  HWY_ALIGN int32_t in_first[3][kMaxLanes];   // all ones where the element is in vector 0
  HWY_ALIGN int32_t in_second[3][kMaxLanes];  // all ones where it is in vector 1
  HWY_ALIGN int32_t pair[3][kMaxLanes];       // AVX-512: index into vectors 0 and 1
  HWY_ALIGN int32_t with_third[3][kMaxLanes];  // AVX-512: that result's lane, or 16 + lane of vector 2

  explicit WidthMultiple(DF df) {
    const int32_t lanes = static_cast<int32_t>(hn::Lanes(df));
    for (int t = 0; t < 3; ++t) {
      for (int32_t q = 0; q < lanes; ++q) {
        const int32_t element = t + 3 * q, source = element / lanes;
        lane[t][q] = element % lanes;
        in_first[t][q] = source == 0 ? -1 : 0;
        in_second[t][q] = source == 1 ? -1 : 0;
        pair[t][q] = source < 2 ? element : 0;
        with_third[t][q] = source < 2 ? q : lanes + element - 2 * lanes;
      }
    }
  }

  HWY_INLINE hn::Vec<DF> Part(DF df, int t, hn::Vec<DF> v0, hn::Vec<DF> v1, hn::Vec<DF> v2) const {
#if OA_UPSAMPLE_TWO_VECTOR_PERMUTE
    (void)df;
    const __m512 first_two =
        _mm512_permutex2var_ps(v0.raw, _mm512_load_si512(reinterpret_cast<const void*>(pair[t])), v1.raw);
    return hn::Vec<DF>{_mm512_permutex2var_ps(
        first_two, _mm512_load_si512(reinterpret_cast<const void*>(with_third[t])), v2.raw)};
#else
    const hn::RebindToSigned<DF> di;
    const auto index = hn::IndicesFromVec(df, hn::Load(di, lane[t]));
    const auto first = hn::MaskFromVec(hn::BitCast(df, hn::Load(di, in_first[t])));
    const auto second = hn::MaskFromVec(hn::BitCast(df, hn::Load(di, in_second[t])));
    return hn::IfThenElse(first, hn::TableLookupLanes(v0, index),
                          hn::IfThenElse(second, hn::TableLookupLanes(v1, index), hn::TableLookupLanes(v2, index)));
#endif
  }

  template <typename T>
  HWY_INLINE hn::Vec<DF> Add(DF df, const T* HWY_RESTRICT src, hn::Vec<DF> acc) const {
    const size_t lanes = hn::Lanes(df);
    const auto v0 = LoadAsFloat(df, src), v1 = LoadAsFloat(df, src + lanes), v2 = LoadAsFloat(df, src + 2 * lanes);
    acc = hn::Add(acc, Part(df, 0, v0, v1, v2));
    acc = hn::Add(acc, Part(df, 1, v0, v1, v2));
    return hn::Add(acc, Part(df, 2, v0, v1, v2));
  }
};

// x4: two rounds of the even/odd split (every 2nd element of every 2nd element).
template <class DF>
struct WidthMultiple<4, DF> {
  explicit WidthMultiple(DF /*df*/) {}
  template <typename T>
  HWY_INLINE hn::Vec<DF> Add(DF df, const T* HWY_RESTRICT src, hn::Vec<DF> acc) const {
    const size_t lanes = hn::Lanes(df);
    hn::Vec<DF> even_low, odd_low, even_high, odd_high, element0, element1, element2, element3;
    LoadEvenOdd(df, src, &even_low, &odd_low);
    LoadEvenOdd(df, src + 2 * lanes, &even_high, &odd_high);
    SplitEvenOdd(df, even_low, even_high, &element0, &element2);
    SplitEvenOdd(df, odd_low, odd_high, &element1, &element3);
    return hn::Add(hn::Add(hn::Add(hn::Add(acc, element0), element1), element2), element3);
  }
};

// The kernels below keep G independent accumulators in flight: each sum is a chain of
// dependent adds in a fixed order, so interleaving G of them hides the add latency (the
// q loops are unrolled so the accumulators stay in registers).

// W mapping of ratio K (1: identity): G full vectors of outputs from l0.
template <int G, int K, typename T, class DF>
OA_KERNEL_HELPER void ContiguousChunks(DF df, const WidthMultiple<K, DF>& multiple, const T* HWY_RESTRICT plane,
                                       const std::array<int64_t, 5>& go, int64_t od_begin, int64_t od_end,
                                       int64_t oh_begin, int64_t oh_end, int64_t l0, T* HWY_RESTRICT out_row) {
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  OA_VEC_ARRAY(hn::Vec<DF>, acc, G);
  #pragma GCC unroll 4
  for (int q = 0; q < G; ++q) OA_VEC_AT(acc, q) = hn::Zero(df);
  for (int64_t od = od_begin; od < od_end; ++od) {
    for (int64_t oh = oh_begin; oh < oh_end; ++oh) {
      const T* HWY_RESTRICT src = plane + od * go[2] + oh * go[3];
      #pragma GCC unroll 4
      for (int q = 0; q < G; ++q) {
        OA_VEC_AT(acc, q) = multiple.Add(df, src + K * (l0 + q * lanes), OA_VEC_AT(acc, q));
      }
    }
  }
  #pragma GCC unroll 4
  for (int q = 0; q < G; ++q) StoreFromFloat(OA_VEC_AT(acc, q), df, out_row + l0 + q * lanes);
}

// The full vectors of a row of ratio K, up to full_end (the rest: GatherChunks).
template <int K, typename T, class DF>
OA_KERNEL_HELPER void ContiguousRow(DF df, const WidthMultiple<K, DF>& multiple, const T* HWY_RESTRICT plane,
                                    const std::array<int64_t, 5>& go, int64_t od_begin, int64_t od_end,
                                    int64_t oh_begin, int64_t oh_end, int64_t full_end, T* HWY_RESTRICT out_row) {
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  int64_t l0 = 0;
  for (; l0 + 4 * lanes <= full_end; l0 += 4 * lanes) {
    ContiguousChunks<4>(df, multiple, plane, go, od_begin, od_end, oh_begin, oh_end, l0, out_row);
  }
  if constexpr (K <= 2) {  // x3 and x4: fours, then ones (fewer variants to compile per target)
    for (; l0 + 2 * lanes <= full_end; l0 += 2 * lanes) {
      ContiguousChunks<2>(df, multiple, plane, go, od_begin, od_end, oh_begin, oh_end, l0, out_row);
    }
  }
  for (; l0 < full_end; l0 += lanes) {
    ContiguousChunks<1>(df, multiple, plane, go, od_begin, od_end, oh_begin, oh_end, l0, out_row);
  }
}

// Two-vector windows exist on the targets where a two-source lane permutation is one
// instruction (the planner asks UpsampleKernelWindowVectors); only these compile them.
#if OA_UPSAMPLE_TWO_VECTOR_PERMUTE
constexpr bool kPairWindows = true;
// A kWindow step's lookup in a window of two vectors (low, high): lane q takes lane
// index[q] of the pair (index < 2L).
template <class DF>
HWY_INLINE hn::Vec<DF> PairLookup(DF /*df*/, hn::Vec<DF> low, hn::Vec<DF> high, hn::Vec<hn::RebindToSigned<DF>> index) {
  return hn::Vec<DF>{_mm512_permutex2var_ps(low.raw, index.raw, high.raw)};
}
#else
constexpr bool kPairWindows = false;
#endif

// Lane q of a kWindow step: lane index[q] of the window (kPair: of its two vectors).
template <bool kPair, class DF>
HWY_INLINE hn::Vec<DF> WindowLookup(DF df, hn::Vec<DF> window, hn::Vec<DF> high,
                                    hn::Vec<hn::RebindToSigned<DF>> index) {
  if constexpr (kPair) {
    return PairLookup(df, window, high, index);
  } else {
    (void)high;
    return hn::TableLookupLanes(window, hn::IndicesFromVec(df, index));
  }
}

// kWindow: G chunks from `chunks`; K > 0: every chunk has K steps (unrolled). kPair: the
// windows are two vectors wide.
template <int G, int K, bool kPair, typename T, class DF>
OA_KERNEL_HELPER void WindowChunks(DF df, const Plan& plan, const WidthChunk* chunks, const T* HWY_RESTRICT plane,
                                   int64_t od_begin, int64_t od_end, int64_t oh_begin, int64_t oh_end,
                                   T* HWY_RESTRICT out_row) {
  const hn::RebindToSigned<DF> di;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  const int64_t span = kPair ? 2 * lanes : lanes;  // the window's lanes
  const auto& go = plan.grad_out_strides;
  OA_VEC_ARRAY(hn::Vec<DF>, acc, G);
  OA_VEC_ARRAY(hn::Vec<DF>, cleared, G);
  OA_VEC_ARRAY(hn::Vec<DF>, cleared_high, G);  // kPair: the second vector's cleared lane
  const int32_t* tables[G];
  int64_t windows[G];
  int32_t steps[G];
#pragma GCC unroll 4
  for (int q = 0; q < G; ++q) {
    OA_VEC_AT(acc, q) = hn::Zero(df);
    tables[q] = plan.w_lookup.data() + chunks[q].table;
    OA_VEC_AT(cleared, q) = hn::BitCast(df, hn::LoadU(di, tables[q]));
    OA_VEC_AT(cleared_high, q) = kPair ? hn::BitCast(df, hn::LoadU(di, tables[q] + lanes)) : hn::Zero(df);
    windows[q] = chunks[q].window;
    steps[q] = chunks[q].max_count;
  }
  for (int64_t od = od_begin; od < od_end; ++od) {
    for (int64_t oh = oh_begin; oh < oh_end; ++oh) {
      const T* HWY_RESTRICT src = plane + od * go[2] + oh * go[3];
#pragma GCC unroll 4
      for (int q = 0; q < G; ++q) {
        const int32_t* HWY_RESTRICT table = tables[q] + span;
        // The unused lane becomes +0; lanes with nothing to add at step k read it, and
        // adding +0 leaves a sum that started at +0 unchanged.
        const auto window = hn::AndNot(OA_VEC_AT(cleared, q), LoadAsFloat(df, src + windows[q]));
        const auto high = kPair ? hn::AndNot(OA_VEC_AT(cleared_high, q), LoadAsFloat(df, src + windows[q] + lanes))
                                : window;
        const auto step = [&](int32_t k) {
          const auto value = WindowLookup<kPair>(df, window, high, hn::LoadU(di, table + k * lanes));
          OA_VEC_AT(acc, q) = hn::Add(OA_VEC_AT(acc, q), value);
        };
        if (K > 0) {
#pragma GCC unroll 8
          for (int32_t k = 0; k < K; ++k) step(k);
        } else {
          for (int32_t k = 0; k < steps[q]; ++k) step(k);
        }
      }
    }
  }
  for (int q = 0; q < G; ++q) {
    if (chunks[q].outputs == lanes) {
      StoreFromFloat(OA_VEC_AT(acc, q), df, out_row + chunks[q].first);
    } else {
      StorePartial(df, OA_VEC_AT(acc, q), static_cast<size_t>(chunks[q].outputs), out_row + chunks[q].first);
    }
  }
}

// G chunks from `chunk`, their steps unrolled where they share a common count (G = 4: one
// to four steps; G = 2: two or three, the counts of the ratios between 1.5 and 3). Each
// variant is compiled per target and dtype: the list is kept short for the build's sake.
template <int G, bool kPair, typename T, class DF>
HWY_INLINE void WindowGroup(DF df, const Plan& plan, const WidthChunk* chunk, const T* HWY_RESTRICT plane,
                            int64_t od_begin, int64_t od_end, int64_t oh_begin, int64_t oh_end, T* HWY_RESTRICT out_row) {
  const int32_t steps = chunk[0].max_count;
  bool same = true;
  for (int q = 1; q < G; ++q) same = same && chunk[q].max_count == steps;
  switch (same ? steps : 0) {
    case 1:
      if constexpr (G == 4) {
        return WindowChunks<G, 1, kPair>(df, plan, chunk, plane, od_begin, od_end, oh_begin, oh_end, out_row);
      }
      break;
    case 2:
      return WindowChunks<G, 2, kPair>(df, plan, chunk, plane, od_begin, od_end, oh_begin, oh_end, out_row);
    case 3:
      return WindowChunks<G, 3, kPair>(df, plan, chunk, plane, od_begin, od_end, oh_begin, oh_end, out_row);
    case 4:
      if constexpr (G == 4) {
        return WindowChunks<G, 4, kPair>(df, plan, chunk, plane, od_begin, od_end, oh_begin, oh_end, out_row);
      }
      break;
    default:
      break;
  }
  WindowChunks<G, 0, kPair>(df, plan, chunk, plane, od_begin, od_end, oh_begin, oh_end, out_row);
}

// The kWindow row: the plan's chunks, four at a time where they can (two-vector windows,
// whose rows hold fewer chunks: then two at a time), so that several independent chains are
// in flight; the rest one by one.
template <bool kPair, typename T, class DF>
OA_KERNEL_HELPER void WindowRow(DF df, const Plan& plan, const T* HWY_RESTRICT plane, int64_t od_begin, int64_t od_end,
                                int64_t oh_begin, int64_t oh_end, T* HWY_RESTRICT out_row) {
  const WidthChunk* chunk = plan.w_chunks.data();
  const WidthChunk* const chunks_end = chunk + plan.w_chunks.size();
  for (; chunks_end - chunk >= 4; chunk += 4) {
    WindowGroup<4, kPair>(df, plan, chunk, plane, od_begin, od_end, oh_begin, oh_end, out_row);
  }
  if constexpr (kPair) {
    if (chunks_end - chunk >= 2) {
      WindowGroup<2, kPair>(df, plan, chunk, plane, od_begin, od_end, oh_begin, oh_end, out_row);
      chunk += 2;
    }
  }
  for (; chunk < chunks_end; ++chunk) {
    WindowChunks<1, 0, kPair>(df, plan, chunk, plane, od_begin, od_end, oh_begin, oh_end, out_row);
  }
}

// Adds the W segments of outputs l0 .. l0 + G - 1 in one gradOut row (src; segment q at
// src[begin[q]], count[q] elements) to their sums.
template <int G, typename S>
HWY_INLINE void AddSegments(const S* HWY_RESTRICT src, const int64_t* begin, const int64_t* count, int64_t common,
                            float* sum) {
  for (int64_t k = 0; k < common; ++k) {
#pragma GCC unroll 4
    for (int q = 0; q < G; ++q) sum[q] += ToFloat(src[begin[q] + k]);
  }
#pragma GCC unroll 4
  for (int q = 0; q < G; ++q) {
    for (int64_t k = common; k < count[q]; ++k) sum[q] += ToFloat(src[begin[q] + k]);
  }
}

// AddSegments for two rows at once: 2G chains in flight.
template <int G, typename S>
HWY_INLINE void AddSegmentsPair(const S* HWY_RESTRICT src0, const S* HWY_RESTRICT src1, const int64_t* begin,
                                const int64_t* count, int64_t common, float* sum0, float* sum1) {
  for (int64_t k = 0; k < common; ++k) {
#pragma GCC unroll 4
    for (int q = 0; q < G; ++q) {
      sum0[q] += ToFloat(src0[begin[q] + k]);
      sum1[q] += ToFloat(src1[begin[q] + k]);
    }
  }
#pragma GCC unroll 4
  for (int q = 0; q < G; ++q) {
    for (int64_t k = common; k < count[q]; ++k) {
      sum0[q] += ToFloat(src0[begin[q] + k]);
      sum1[q] += ToFloat(src1[begin[q] + k]);
    }
  }
}

// The W segments of outputs l0 .. l0 + G - 1: where each starts in a gradOut row (begin),
// and in the row's span [begin[0], begin[0] + span) converted to float32 (in_span).
template <int G>
struct Segments {
  int64_t begin[G], in_span[G], count[G];
  int64_t common = INT64_MAX;  // the shortest count
  int64_t span = 0;
  Segments(const AxisMap& range_w, int64_t l0) {
#pragma GCC unroll 4
    for (int q = 0; q < G; ++q) {
      begin[q] = range_w.Begin(l0 + q);
      count[q] = range_w.End(l0 + q) - begin[q];
      in_span[q] = begin[q] - range_w.Begin(l0);
      common = count[q] < common ? count[q] : common;
    }
    span = begin[G - 1] + count[G - 1] - begin[0];
  }
};

// A row's segments added to sums, from the row itself or (16-bit, short span) from its span
// converted to float32 first.
template <int G, typename T>
HWY_INLINE void AddRowSegments(const T* HWY_RESTRICT src, const Segments<G>& segments, float* converted, float* sum) {
  if (sizeof(T) == 2 && segments.span <= kSpanFloats) {
    ConvertSpan(hn::ScalableTag<float>(), src + segments.begin[0], segments.span, converted);
    return AddSegments<G>(static_cast<const float*>(converted), segments.in_span, segments.count, segments.common, sum);
  }
  AddSegments<G>(src, segments.begin, segments.count, segments.common, sum);
}

// kSegments: outputs l0 .. l0 + G - 1 as scalar running sums, G chains interleaved.
template <int G, typename T>
OA_KERNEL_HELPER void SegmentOutputs(const T* HWY_RESTRICT plane, const std::array<int64_t, 5>& go, const AxisMap& range_w,
                                     int64_t od_begin, int64_t od_end, int64_t oh_begin, int64_t oh_end, int64_t l0,
                                     T* HWY_RESTRICT out_row) {
  const Segments<G> segments(range_w, l0);
  HWY_ALIGN float converted[sizeof(T) == 2 ? kSpanFloats : 1];
  float sum[G];
#pragma GCC unroll 4
  for (int q = 0; q < G; ++q) sum[q] = 0.0f;
  for (int64_t od = od_begin; od < od_end; ++od) {
    for (int64_t oh = oh_begin; oh < oh_end; ++oh) {
      AddRowSegments<G>(plane + od * go[2] + oh * go[3], segments, converted, sum);
    }
  }
#pragma GCC unroll 4
  for (int q = 0; q < G; ++q) FromFloat(sum[q], out_row + l0 + q);
}

// kSegments, rows j and j + 1 of one plane and one D range together: 2G chains in flight
// instead of G (rows narrower than 8 outputs, as at x50, have too few chains alone to
// keep both add pipes busy). Each output still adds its sources in (od, oh, ow) order.
template <int G, typename T>
OA_KERNEL_HELPER void SegmentOutputsRowPair(const T* HWY_RESTRICT plane, const std::array<int64_t, 5>& go,
                                            const AxisMap& range_w, int64_t od_begin, int64_t od_end,
                                            const int64_t* oh_begin, const int64_t* oh_end, int64_t l0,
                                            T* HWY_RESTRICT out_row0, T* HWY_RESTRICT out_row1) {
  const Segments<G> segments(range_w, l0);
  const bool convert = sizeof(T) == 2 && segments.span <= kSpanFloats;
  HWY_ALIGN float converted0[sizeof(T) == 2 ? kSpanFloats : 1];
  HWY_ALIGN float converted1[sizeof(T) == 2 ? kSpanFloats : 1];
  float sum0[G], sum1[G];
#pragma GCC unroll 4
  for (int q = 0; q < G; ++q) sum0[q] = sum1[q] = 0.0f;
  const int64_t rows0 = oh_end[0] - oh_begin[0], rows1 = oh_end[1] - oh_begin[1];
  const int64_t both = rows0 < rows1 ? rows0 : rows1;
  for (int64_t od = od_begin; od < od_end; ++od) {
    const T* HWY_RESTRICT src0 = plane + od * go[2] + oh_begin[0] * go[3];
    const T* HWY_RESTRICT src1 = plane + od * go[2] + oh_begin[1] * go[3];
    int64_t t = 0;
    for (; t < both; ++t, src0 += go[3], src1 += go[3]) {
      if (convert) {
        const hn::ScalableTag<float> df;
        ConvertSpan(df, src0 + segments.begin[0], segments.span, converted0);
        ConvertSpan(df, src1 + segments.begin[0], segments.span, converted1);
        AddSegmentsPair<G>(static_cast<const float*>(converted0), static_cast<const float*>(converted1),
                           segments.in_span, segments.count, segments.common, sum0, sum1);
      } else {
        AddSegmentsPair<G>(src0, src1, segments.begin, segments.count, segments.common, sum0, sum1);
      }
    }
    for (int64_t t0 = t; t0 < rows0; ++t0, src0 += go[3]) AddRowSegments<G>(src0, segments, converted0, sum0);
    for (int64_t t1 = t; t1 < rows1; ++t1, src1 += go[3]) AddRowSegments<G>(src1, segments, converted1, sum1);
  }
#pragma GCC unroll 4
  for (int q = 0; q < G; ++q) {
    FromFloat(sum0[q], out_row0 + l0 + q);
    FromFloat(sum1[q], out_row1 + l0 + q);
  }
}

// NCDHW-like views (W has unit stride in both tensors): one row (n, c, i, j) of gradInput
// at a time, vectorised along W with the plan's WidthPattern.
template <typename T>
void RowsAlongW(const Plan& plan, int64_t first_row, int64_t last_row) {
  const hn::ScalableTag<float> df;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  const T* HWY_RESTRICT grad_out = static_cast<const T*>(plan.grad_out);
  T* HWY_RESTRICT grad_input = static_cast<T*>(plan.grad_input);
  const auto& go = plan.grad_out_strides;
  const auto& gi = plan.grad_input_strides;
  const int64_t in_w = plan.in_size[2];
  const AxisMap& range_d = plan.ranges[0];
  const AxisMap& range_h = plan.ranges[1];
  const AxisMap& range_w = plan.ranges[2];
  WidthPattern pattern = plan.width_pattern;
  // Window tables are built for one vector width (and window width); another target gathers.
  if ((pattern == WidthPattern::kWindow && (plan.w_lanes != lanes || (plan.w_window_vectors == 2 && !kPairWindows))) ||
      (pattern == WidthPattern::kMultiple && lanes == 1)) {
    pattern = WidthPattern::kGather;
  }
  const int64_t full_end = in_w / lanes * lanes;  // identity / multiples: full chunks, then gather
  using DF = hn::ScalableTag<float>;
  const WidthMultiple<1, DF> identity(df);
  const WidthMultiple<2, DF> twice(df);
  const WidthMultiple<4, DF> four_times(df);
  std::optional<WidthMultiple<3, DF>> thrice;  // its lane tables are built only when used
  if (pattern == WidthPattern::kMultiple && plan.w_ratio == 3) thrice.emplace(df);

  RowCursor at(plan, first_row);
  for (int64_t row = first_row; row < last_row; ++row, at.Next(plan)) {
    const int64_t od_begin = range_d.Begin(at.i), od_end = range_d.End(at.i);
    const int64_t oh_begin = range_h.Begin(at.j), oh_end = range_h.End(at.j);
    const T* HWY_RESTRICT plane = grad_out + at.n * go[0] + at.c * go[1];
    T* HWY_RESTRICT out_row = grad_input + at.n * gi[0] + at.c * gi[1] + at.i * gi[2] + at.j * gi[3];
    PrefetchRows(plane, go, od_begin, od_end, range_h, at.j + kPrefetchAhead, plan.out_size[2]);

    switch (pattern) {
      case WidthPattern::kIdentity:
        ContiguousRow(df, identity, plane, go, od_begin, od_end, oh_begin, oh_end, full_end, out_row);
        GatherChunks(df, plan, plane, od_begin, od_end, oh_begin, oh_end, full_end, out_row);
        break;
      case WidthPattern::kMultiple:
        if (plan.w_ratio == 2) {
          ContiguousRow(df, twice, plane, go, od_begin, od_end, oh_begin, oh_end, full_end, out_row);
        } else if (plan.w_ratio == 3) {
          ContiguousRow(df, *thrice, plane, go, od_begin, od_end, oh_begin, oh_end, full_end, out_row);
        } else {
          ContiguousRow(df, four_times, plane, go, od_begin, od_end, oh_begin, oh_end, full_end, out_row);
        }
        GatherChunks(df, plan, plane, od_begin, od_end, oh_begin, oh_end, full_end, out_row);
        break;
      case WidthPattern::kWindow:
        if constexpr (kPairWindows) {
          if (plan.w_window_vectors == 2) {
            WindowRow<true>(df, plan, plane, od_begin, od_end, oh_begin, oh_end, out_row);
            break;
          }
        }
        WindowRow<false>(df, plan, plane, od_begin, od_end, oh_begin, oh_end, out_row);
        break;
      case WidthPattern::kSegments: {
        if (in_w < 8 && row + 1 < last_row && at.j + 1 < plan.in_size[1]) {
          // Pair this row with the next one of the same plane (same D range).
          const int64_t oh_begin_pair[2] = {oh_begin, range_h.Begin(at.j + 1)};
          const int64_t oh_end_pair[2] = {oh_end, range_h.End(at.j + 1)};
          T* HWY_RESTRICT next_row = out_row + gi[3];
          int64_t l0 = 0;
          for (; l0 + 4 <= in_w; l0 += 4) {
            SegmentOutputsRowPair<4>(plane, go, range_w, od_begin, od_end, oh_begin_pair, oh_end_pair, l0, out_row,
                                     next_row);
          }
          for (; l0 < in_w; ++l0) {
            SegmentOutputsRowPair<1>(plane, go, range_w, od_begin, od_end, oh_begin_pair, oh_end_pair, l0, out_row,
                                     next_row);
          }
          ++row;
          at.Next(plan);
          break;
        }
        int64_t l0 = 0;
        for (; l0 + 4 <= in_w; l0 += 4) {
          SegmentOutputs<4>(plane, go, range_w, od_begin, od_end, oh_begin, oh_end, l0, out_row);
        }
        for (; l0 < in_w; ++l0) {
          SegmentOutputs<1>(plane, go, range_w, od_begin, od_end, oh_begin, oh_end, l0, out_row);
        }
        break;
      }
      case WidthPattern::kGather:
        GatherChunks(df, plan, plane, od_begin, od_end, oh_begin, oh_end, 0, out_row);
        break;
    }
  }
}

// Sums one element's ranges in (od, oh, ow) order; `base` is gradOut at [n, c, 0, 0, 0].
template <typename T>
OA_KERNEL_HELPER float SumRanges(const T* HWY_RESTRICT base, const std::array<int64_t, 5>& go, int64_t od_begin,
                                 int64_t od_end, int64_t oh_begin, int64_t oh_end, int64_t ow_begin, int64_t ow_end) {
  float sum = 0.0f;
  for (int64_t od = od_begin; od < od_end; ++od) {
    for (int64_t oh = oh_begin; oh < oh_end; ++oh) {
      const T* HWY_RESTRICT src = base + od * go[2] + oh * go[3];
      for (int64_t ow = ow_begin; ow < ow_end; ++ow) sum += ToFloat(src[ow * go[4]]);
    }
  }
  return sum;
}

// Channels-last: G consecutive outputs l0.. of one vector of channels from c0.
template <int G, typename T, class DF>
OA_KERNEL_HELPER void ChannelsLastOutputs(DF df, const T* HWY_RESTRICT batch, const std::array<int64_t, 5>& go,
                                          int64_t out_pixel_stride, const AxisMap& range_w, int64_t od_begin,
                                          int64_t od_end, int64_t oh_begin, int64_t oh_end, int64_t l0, int64_t c0,
                                          T* HWY_RESTRICT out_row) {
  OA_VEC_ARRAY(hn::Vec<DF>, acc, G);
  int64_t ow_begin[G], ow_end[G];
#pragma GCC unroll 4
  for (int q = 0; q < G; ++q) {
    OA_VEC_AT(acc, q) = hn::Zero(df);
    ow_begin[q] = range_w.Begin(l0 + q);
    ow_end[q] = range_w.End(l0 + q);
  }
  for (int64_t od = od_begin; od < od_end; ++od) {
    for (int64_t oh = oh_begin; oh < oh_end; ++oh) {
      const T* HWY_RESTRICT src = batch + od * go[2] + oh * go[3] + c0;
#pragma GCC unroll 4
      for (int q = 0; q < G; ++q) {
        for (int64_t ow = ow_begin[q]; ow < ow_end[q]; ++ow) {
          OA_VEC_AT(acc, q) = hn::Add(OA_VEC_AT(acc, q), LoadAsFloat(df, src + ow * go[4]));
        }
      }
    }
  }
#pragma GCC unroll 4
  for (int q = 0; q < G; ++q) StoreFromFloat(OA_VEC_AT(acc, q), df, out_row + (l0 + q) * out_pixel_stride + c0);
}

// Channels-last with many channels: one gradInput pixel l, G consecutive vectors of
// channels from c0 in flight, so each gradOut pixel of the window is read as one contiguous
// run (G vectors) instead of G pixels' strided pieces; the same sums in the same order.
template <int G, typename T, class DF>
OA_KERNEL_HELPER void PixelChannels(DF df, const T* HWY_RESTRICT batch, const std::array<int64_t, 5>& go,
                                    int64_t out_pixel_stride, const AxisMap& range_w, int64_t od_begin, int64_t od_end,
                                    int64_t oh_begin, int64_t oh_end, int64_t l, int64_t c0, T* HWY_RESTRICT out_row) {
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  OA_VEC_ARRAY(hn::Vec<DF>, acc, G);
#pragma GCC unroll 4
  for (int q = 0; q < G; ++q) OA_VEC_AT(acc, q) = hn::Zero(df);
  const int64_t ow_begin = range_w.Begin(l), ow_end = range_w.End(l);
  for (int64_t od = od_begin; od < od_end; ++od) {
    for (int64_t oh = oh_begin; oh < oh_end; ++oh) {
      const T* HWY_RESTRICT src = batch + od * go[2] + oh * go[3] + c0;
      for (int64_t ow = ow_begin; ow < ow_end; ++ow) {
#pragma GCC unroll 4
        for (int q = 0; q < G; ++q) {
          OA_VEC_AT(acc, q) = hn::Add(OA_VEC_AT(acc, q), LoadAsFloat(df, src + ow * go[4] + q * lanes));
        }
      }
    }
  }
#pragma GCC unroll 4
  for (int q = 0; q < G; ++q) StoreFromFloat(OA_VEC_AT(acc, q), df, out_row + l * out_pixel_stride + c0 + q * lanes);
}

// Channels-last views (C has unit stride in both tensors): one row (n, i, j) of W*C
// gradInput elements at a time, vectorised along C with plain loads, four outputs along W
// in flight.
template <typename T>
void RowsChannelsLast(const Plan& plan, int64_t first_row, int64_t last_row) {
  const hn::ScalableTag<float> df;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  const T* HWY_RESTRICT grad_out = static_cast<const T*>(plan.grad_out);
  T* HWY_RESTRICT grad_input = static_cast<T*>(plan.grad_input);
  const auto& go = plan.grad_out_strides;
  const auto& gi = plan.grad_input_strides;
  const int64_t in_d = plan.in_size[0], in_h = plan.in_size[1], in_w = plan.in_size[2];
  const int64_t channels = plan.channels;
  const int64_t vector_channels = channels / lanes * lanes;
  const AxisMap& range_d = plan.ranges[0];
  const AxisMap& range_h = plan.ranges[1];
  const AxisMap& range_w = plan.ranges[2];

  for (int64_t row = first_row; row < last_row; ++row) {
    const int64_t j = row % in_h;
    const int64_t i = (row / in_h) % in_d;
    const int64_t n = row / (in_h * in_d);
    const int64_t od_begin = range_d.Begin(i), od_end = range_d.End(i);
    const int64_t oh_begin = range_h.Begin(j), oh_end = range_h.End(j);
    const T* HWY_RESTRICT batch = grad_out + n * go[0];
    T* HWY_RESTRICT out_row = grad_input + n * gi[0] + i * gi[2] + j * gi[3];
    // A gradOut row here is W * C elements, already long: one row ahead is enough.
    PrefetchRows(batch, go, od_begin, od_end, range_h, j + 1, plan.out_size[2] * go[4]);
    if (vector_channels >= 4 * lanes) {  // wide pixels: one at a time, four channel vectors in flight
      for (int64_t l = 0; l < in_w; ++l) {
        int64_t c0 = 0;
        for (; c0 + 4 * lanes <= vector_channels; c0 += 4 * lanes) {
          PixelChannels<4>(df, batch, go, gi[4], range_w, od_begin, od_end, oh_begin, oh_end, l, c0, out_row);
        }
        for (; c0 < vector_channels; c0 += lanes) {
          PixelChannels<1>(df, batch, go, gi[4], range_w, od_begin, od_end, oh_begin, oh_end, l, c0, out_row);
        }
      }
    } else {
      int64_t l0 = 0;
      for (; l0 + 4 <= in_w; l0 += 4) {
        for (int64_t c0 = 0; c0 < vector_channels; c0 += lanes) {
          ChannelsLastOutputs<4>(df, batch, go, gi[4], range_w, od_begin, od_end, oh_begin, oh_end, l0, c0, out_row);
        }
      }
      for (; l0 < in_w; ++l0) {
        for (int64_t c0 = 0; c0 < vector_channels; c0 += lanes) {
          ChannelsLastOutputs<1>(df, batch, go, gi[4], range_w, od_begin, od_end, oh_begin, oh_end, l0, c0, out_row);
        }
      }
    }
    for (int64_t l = 0; l < in_w; ++l) {
      const int64_t ow_begin = range_w.Begin(l), ow_end = range_w.End(l);
      T* HWY_RESTRICT out = out_row + l * gi[4];
      for (int64_t c = vector_channels; c < channels; ++c) {
        FromFloat(SumRanges(batch + c, go, od_begin, od_end, oh_begin, oh_end, ow_begin, ow_end), out + c);
      }
    }
  }
}

// Any other views: every element gathered with full 64-bit strides.
template <typename T>
void RowsStrided(const Plan& plan, int64_t first_row, int64_t last_row) {
  const T* HWY_RESTRICT grad_out = static_cast<const T*>(plan.grad_out);
  T* HWY_RESTRICT grad_input = static_cast<T*>(plan.grad_input);
  const auto& go = plan.grad_out_strides;
  const auto& gi = plan.grad_input_strides;
  const int64_t in_w = plan.in_size[2];
  const AxisMap& range_d = plan.ranges[0];
  const AxisMap& range_h = plan.ranges[1];
  const AxisMap& range_w = plan.ranges[2];
  RowCursor at(plan, first_row);
  for (int64_t row = first_row; row < last_row; ++row, at.Next(plan)) {
    const int64_t n = at.n, c = at.c, i = at.i, j = at.j;
    const T* HWY_RESTRICT plane = grad_out + n * go[0] + c * go[1];
    T* HWY_RESTRICT out_row = grad_input + n * gi[0] + c * gi[1] + i * gi[2] + j * gi[3];
    for (int64_t l = 0; l < in_w; ++l) {
      const float sum = SumRanges(plane, go, range_d.Begin(i), range_d.End(i), range_h.Begin(j), range_h.End(j),
                                  range_w.Begin(l), range_w.End(l));
      FromFloat(sum, out_row + l * gi[4]);
    }
  }
}

template <typename T>
void RunRows(const Plan& plan, int64_t first_row, int64_t last_row) {
  switch (plan.kernel) {
    case UpsampleKernel::kRowsAlongW:
      return RowsAlongW<T>(plan, first_row, last_row);
    case UpsampleKernel::kChannelsLast:
      return RowsChannelsLast<T>(plan, first_row, last_row);
    case UpsampleKernel::kStrided:
      return RowsStrided<T>(plan, first_row, last_row);
    case UpsampleKernel::kNothing:
      return;
  }
}

// One task of the plan's partition for gradInput elements of type T.
template <typename T>
void UpsampleTaskT(const Plan& plan, int64_t task) {
  // Balanced contiguous blocks: the first rows % num_tasks tasks get one extra row.
  const int64_t base = plan.rows / plan.num_tasks, extra = plan.rows % plan.num_tasks;
  const int64_t first_row = task * base + (task < extra ? task : extra);
  const int64_t last_row = first_row + base + (task < extra ? 1 : 0);
  RunRows<T>(plan, first_row, last_row);
}

}  // namespace HWY_NAMESPACE
}  // namespace oa
HWY_AFTER_NAMESPACE();

#endif  // include guard toggled per target
