// Kernels of the nearest upsample forwards: a gather that moves words of the element's
// width (8, 16, 32 or 64 bits: the elements' bits, never converted). An output row whose source row
// equals the previous output row's (or the row one plane back) is a copy of that output
// row, so each distinct source row is gathered about once; outputs larger than the
// streaming threshold (core/stream_stores.h) are streamed out instead (non-temporal
// stores, never read back). One kernel per memory layout, chosen in phase 1.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/upsample/upsample_nearest_kernels.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>

#include "ops/upsample/upsample_nearest_plan.h"

HWY_BEFORE_NAMESPACE();
namespace oa {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using Plan = UpsampleNearestPlan;

// The source index of an output index along one axis: tabulated, or computed.
struct AxisSources {
  const int32_t* table;
  const NearestAxis& axis;
  AxisSources(const Plan& plan, int axis_index)
      : table(plan.sources[axis_index].empty() ? nullptr : plan.sources[axis_index].data()),
        axis(plan.axes[axis_index]) {}
  int64_t operator()(int64_t o) const { return table != nullptr ? table[o] : axis.Source(o); }
};

// A window of one vector of source words, widened to 32-bit lanes, and back.
template <class DU>
HWY_INLINE hn::Vec<DU> LoadWindow(DU du, const uint32_t* HWY_RESTRICT src) {
  return hn::LoadU(du, src);
}
template <class DU, typename T>
HWY_INLINE hn::Vec<DU> LoadWindow(DU du, const T* HWY_RESTRICT src) {  // 8- or 16-bit words
  return hn::PromoteTo(du, hn::LoadU(hn::Rebind<T, DU>(), src));
}
template <class DU>
HWY_INLINE void StoreWords(DU du, hn::Vec<DU> words, uint32_t* HWY_RESTRICT dst) {
  hn::StoreU(words, du, dst);
}
template <class DU, typename T>
HWY_INLINE void StoreWords(DU /*du*/, hn::Vec<DU> words, T* HWY_RESTRICT dst) {  // 8- or 16-bit words
  const hn::Rebind<T, DU> dt;
  const hn::RebindToSigned<DU> di;
  // The words fit T, so the saturating narrowing keeps them exactly.
  hn::StoreU(hn::DemoteTo(dt, hn::BitCast(di, words)), dt, dst);
}

// dst[o] = src[sources[o]] for o < count, written to `copies` rows dst + j * copy_stride
// (consecutive output rows with the same source row), src and dst rows contiguous, src
// `src_words` long. Each vector of outputs whose sources lie within one vector-wide window
// of src takes one load and one lane permutation, its indices the sources minus the
// window start, computed on the fly (kMonotone: sources never decrease, as along W, so the
// chunk's first and last are its extremes; else, as for channels-last words, a reduction
// finds them). Other chunks (downsampling) copy word by word.
template <typename T>
HWY_INLINE void GatherRowScalar(const T* HWY_RESTRICT src, const int32_t* HWY_RESTRICT sources, int64_t count,
                                T* HWY_RESTRICT dst, int64_t copies, int64_t copy_stride) {
  for (int64_t o = 0; o < count; ++o) dst[o] = src[sources[o]];
  for (int64_t j = 1; j < copies; ++j) std::memcpy(dst + j * copy_stride, dst, static_cast<size_t>(count) * sizeof(T));
}

// How far ahead of a streamed gather's window its source row is prefetched.
constexpr int64_t kSourcePrefetchBytes = 8192;

// kStream (32-bit words, every row of dst vector-aligned and count a whole number of
// vectors, so that no chunk overlaps another): the permuted chunks go out with non-temporal
// stores; the word-by-word chunks of a downsampled stretch stay plain stores.
template <bool kMonotone, bool kStream = false, typename T>
HWY_INLINE void GatherRow(const T* HWY_RESTRICT src, int64_t src_words, const int32_t* HWY_RESTRICT sources,
                          int64_t count, T* HWY_RESTRICT dst, int64_t copies, int64_t copy_stride) {
  static_assert(!kStream || sizeof(T) == 4, "streamed gathers move 32-bit words");
  const hn::ScalableTag<uint32_t> du;
  const hn::RebindToSigned<decltype(du)> di;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(du));
  if (lanes == 1 || src_words < lanes || count < lanes) return GatherRowScalar(src, sources, count, dst, copies, copy_stride);
  for (int64_t o = 0; o < count; o += lanes) {
    const int64_t chunk = std::min(o, count - lanes);  // the last chunk overlaps the previous one
    const auto index = hn::LoadU(di, sources + chunk);
    int64_t low, high;
    if (kMonotone) {
      low = sources[chunk];
      high = sources[chunk + lanes - 1];
    } else {
      low = hn::GetLane(hn::MinOfLanes(di, index));
      high = hn::GetLane(hn::MaxOfLanes(di, index));
    }
    const int64_t base = std::min(low, src_words - lanes);
    if (high - base < lanes) {
      const auto lookup = hn::IndicesFromVec(du, hn::Sub(index, hn::Set(di, static_cast<int32_t>(base))));
      // Streamed rows: their source rows are often read once (1-D, or the first of a
      // row's copies), and with the stream of non-temporal stores beside them the hardware
      // prefetcher fell behind (measured: exact x1.5 1-D 0.75x the time with this).
      if (kStream) __builtin_prefetch(reinterpret_cast<const char*>(src + base) + kSourcePrefetchBytes);
      const auto words = hn::TableLookupLanes(LoadWindow(du, src + base), lookup);
      for (int64_t j = 0; j < copies; ++j) {
        if constexpr (kStream) {
          hn::Stream(words, du, reinterpret_cast<uint32_t*>(dst + j * copy_stride + chunk));
        } else {
          StoreWords(du, words, dst + j * copy_stride + chunk);
        }
      }
    } else {
      for (int64_t j = 0; j < copies; ++j) {
        for (int64_t q = chunk; q < chunk + lanes; ++q) dst[j * copy_stride + q] = src[sources[q]];
      }
    }
  }
}

// 64-bit words do not fit the 32-bit lanes: they are copied one by one.
template <bool kMonotone>
HWY_INLINE void GatherRow(const uint64_t* HWY_RESTRICT src, int64_t /*src_words*/, const int32_t* HWY_RESTRICT sources,
                          int64_t count, uint64_t* HWY_RESTRICT dst, int64_t copies, int64_t copy_stride) {
  GatherRowScalar(src, sources, count, dst, copies, copy_stride);
}

// The x2 mapping along W (output o reads o / 2): each source word, widened to a lane of
// twice its width and or-ed with itself shifted up, is the two equal output words.
template <typename T>
HWY_INLINE void DoubleRow(const T* HWY_RESTRICT src, int64_t in_w, T* HWY_RESTRICT dst, int64_t copies,
                          int64_t copy_stride) {
  using Pair = std::conditional_t<sizeof(T) == 1, uint16_t, std::conditional_t<sizeof(T) == 2, uint32_t, uint64_t>>;
  const hn::ScalableTag<Pair> dp;
  const hn::Rebind<T, decltype(dp)> dt;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(dp));
  int64_t i = 0;
  for (; i + lanes <= in_w; i += lanes) {
    const auto words = hn::PromoteTo(dp, hn::LoadU(dt, src + i));
    const auto pairs = hn::Or(words, hn::ShiftLeft<sizeof(T) * 8>(words));
    for (int64_t j = 0; j < copies; ++j) hn::StoreU(pairs, dp, reinterpret_cast<Pair*>(dst + j * copy_stride + 2 * i));
  }
  for (; i < in_w; ++i) {
    for (int64_t j = 0; j < copies; ++j) dst[j * copy_stride + 2 * i] = dst[j * copy_stride + 2 * i + 1] = src[i];
  }
}
// 64-bit words would pair into 128-bit lanes: one by one.
HWY_INLINE void DoubleRow(const uint64_t* HWY_RESTRICT src, int64_t in_w, uint64_t* HWY_RESTRICT dst, int64_t copies,
                          int64_t copy_stride) {
  for (int64_t i = 0; i < in_w; ++i) {
    for (int64_t j = 0; j < copies; ++j) dst[j * copy_stride + 2 * i] = dst[j * copy_stride + 2 * i + 1] = src[i];
  }
}

// Larger integer ratios along W (output o reads o / K, 3 <= K <= kMaxWidthMultiple): a vector
// of L source words gives K output vectors; word q of the j-th is source (j·L + q) / K, one
// lane permutation with index vector j, built once per task (a row can be only a few vectors).
struct MultipleIndices {
  static constexpr size_t kMaxLanes = hn::MaxLanes(hn::ScalableTag<int32_t>());
  int64_t ratio = 0;
  HWY_ALIGN int32_t index[kMaxWidthMultiple][kMaxLanes];
  explicit MultipleIndices(int64_t k) : ratio(k) {
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(hn::ScalableTag<int32_t>()));
    for (int64_t j = 0; j < ratio; ++j) {
      for (int64_t q = 0; q < lanes; ++q) index[j][q] = static_cast<int32_t>((j * lanes + q) / ratio);
    }
  }
};

// kStream: the K·L-word groups go out with non-temporal stores (dst rows vector-aligned).
template <bool kStream, typename T>
HWY_INLINE void MultipleRow(const T* HWY_RESTRICT src, int64_t in_w, const MultipleIndices& indices,
                            T* HWY_RESTRICT dst, int64_t copies, int64_t copy_stride) {
  static_assert(sizeof(T) == 4, "the permuted vectors move 32-bit words");
  const hn::ScalableTag<uint32_t> du;
  const hn::RebindToSigned<decltype(du)> di;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(du));
  const int64_t ratio = indices.ratio;
  int64_t i = 0;
  if (lanes > 1) {
    for (; i + lanes <= in_w; i += lanes) {
      const auto words = hn::LoadU(du, reinterpret_cast<const uint32_t*>(src + i));
      for (int64_t j = 0; j < ratio; ++j) {
        const auto out = hn::TableLookupLanes(words, hn::IndicesFromVec(du, hn::Load(di, indices.index[j])));
        for (int64_t c = 0; c < copies; ++c) {
          uint32_t* to = reinterpret_cast<uint32_t*>(dst + c * copy_stride + ratio * i + j * lanes);
          if constexpr (kStream) {
            hn::Stream(out, du, to);
          } else {
            hn::StoreU(out, du, to);
          }
        }
      }
    }
  }
  for (; i < in_w; ++i) {
    for (int64_t c = 0; c < copies; ++c) {
      for (int64_t k = 0; k < ratio; ++k) dst[c * copy_stride + ratio * i + k] = src[i];
    }
  }
}

// A run of channels: inline vector copies (a memcpy call per pixel would cost more than
// the copy of a few cache lines).
template <class D, typename T>
HWY_INLINE void CopyVectors(D d, T* HWY_RESTRICT dst, const T* HWY_RESTRICT src, int64_t count) {
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t k = 0;
  for (; k + lanes <= count; k += lanes) hn::StoreU(hn::LoadU(d, src + k), d, dst + k);
  // The last vector overlaps the previous one (count >= lanes).
  if (k < count) hn::StoreU(hn::LoadU(d, src + count - lanes), d, dst + count - lanes);
}
template <typename T>
HWY_INLINE void CopyRun(T* HWY_RESTRICT dst, const T* HWY_RESTRICT src, int64_t count) {
  const hn::ScalableTag<T> d;
  const hn::CappedTag<T, 16 / sizeof(T)> d128;  // runs shorter than a full vector
  if (count >= static_cast<int64_t>(hn::Lanes(d))) return CopyVectors(d, dst, src, count);
  if (count >= static_cast<int64_t>(hn::Lanes(d128))) return CopyVectors(d128, dst, src, count);
  for (int64_t k = 0; k < count; ++k) dst[k] = src[k];
}

// Copies count words with non-temporal stores from the first vector-aligned word of dst
// on (plain stores before it and after the last full vector: out's rows are contiguous,
// so only the line shared by two rows is read for ownership).
template <typename T>
HWY_INLINE void StreamCopy(T* HWY_RESTRICT dst, const T* HWY_RESTRICT src, int64_t count) {
  const hn::ScalableTag<T> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const uintptr_t vector_bytes = static_cast<uintptr_t>(lanes) * sizeof(T);
  int64_t k = 0;
  const uintptr_t misalignment = reinterpret_cast<uintptr_t>(dst) % vector_bytes;
  if (misalignment != 0) {
    k = std::min<int64_t>(count, static_cast<int64_t>((vector_bytes - misalignment) / sizeof(T)));
    std::memcpy(dst, src, static_cast<size_t>(k) * sizeof(T));
  }
  for (; k + lanes <= count; k += lanes) hn::Stream(hn::LoadU(d, src + k), d, dst + k);
  if (k < count) std::memcpy(dst + k, src + k, static_cast<size_t>(count - k) * sizeof(T));
}

// Whether every row (dst, dst + stride, ... in words) starts on a vector boundary and
// holds whole vectors of `count` words: then rows and pixel runs stream with no plain store
// sharing a line with a non-temporal one.
template <typename T>
HWY_INLINE bool WholeAlignedVectors(const T* dst, int64_t stride, int64_t count) {
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(hn::ScalableTag<T>()));
  const uintptr_t vector_bytes = static_cast<uintptr_t>(lanes) * sizeof(T);
  return reinterpret_cast<uintptr_t>(dst) % vector_bytes == 0 && stride % lanes == 0 && count % lanes == 0;
}

// The row buffer of the streamed kernels: the words of one output row, kept while the
// following rows read the same source row.
template <typename T>
struct RowBuffer {
  static constexpr int64_t kWords = kUpsampleRowBufferBytes / static_cast<int64_t>(sizeof(T));
  HWY_ALIGN T words[kWords];
  const T* source = nullptr;  // the source row the words came from
};

// Position (n, c, od, oh) of an output row (c stays 0 for channels-last rows), advanced
// one row at a time without divisions.
struct RowCursor {
  int64_t n, c, od, oh;
  RowCursor(const Plan& plan, int64_t row, bool with_channels) {
    const int64_t out_d = plan.out_size[0], out_h = plan.out_size[1];
    oh = row % out_h;
    od = (row / out_h) % out_d;
    const int64_t nc = row / (out_h * out_d);
    c = with_channels ? nc % plan.channels : 0;
    n = with_channels ? nc / plan.channels : nc;
  }
  void Next(const Plan& plan, bool with_channels) {
    if (++oh < plan.out_size[1]) return;
    oh = 0;
    if (++od < plan.out_size[0]) return;
    od = 0;
    if (with_channels && ++c < plan.channels) return;
    c = 0;
    ++n;
  }
};

// Which earlier output row of this task (if any) holds exactly what row `row` needs.
enum class Reuse { kNone, kRowAbove, kPlaneBefore };

HWY_INLINE Reuse FindReuse(const RowCursor& at, int64_t row, int64_t first_row, int64_t out_h,
                           const AxisSources& src_d, const AxisSources& src_h) {
  if (at.oh > 0 && row > first_row && src_h(at.oh) == src_h(at.oh - 1)) return Reuse::kRowAbove;
  if (at.od > 0 && row - out_h >= first_row && src_d(at.od) == src_d(at.od - 1)) return Reuse::kPlaneBefore;
  return Reuse::kNone;
}

// Rows after `oh` (up to `limit` in all) whose source row along H equals oh's.
HWY_INLINE int64_t SameSourceRows(const AxisSources& src_h, int64_t oh, int64_t out_h, int64_t limit) {
  int64_t rows = 1;
  const int64_t source = src_h(oh);
  while (rows < limit && oh + rows < out_h && src_h(oh + rows) == source) ++rows;
  return rows;
}

// Rows after `oh` (up to `limit` in all) whose source rows along H follow oh's one by one.
HWY_INLINE int64_t ConsecutiveSourceRows(const AxisSources& src_h, int64_t oh, int64_t out_h, int64_t limit) {
  int64_t rows = 1;
  const int64_t source = src_h(oh);
  while (rows < limit && oh + rows < out_h && src_h(oh + rows) == source + rows) ++rows;
  return rows;
}

// NCDHW-like views (W has unit stride in both tensors): one output row (n, c, od, oh) at
// a time; a gathered row is stored at once into the following rows with the same source.
template <typename T>
void RowsAlongW(const Plan& plan, int64_t first_row, int64_t last_row) {
  const T* HWY_RESTRICT self = static_cast<const T*>(plan.self);
  T* HWY_RESTRICT out = static_cast<T*>(plan.out);
  const auto& ss = plan.self_strides;
  const auto& os = plan.out_strides;
  const int64_t in_w = plan.in_size[2], out_h = plan.out_size[1], out_w = plan.out_size[2];
  const size_t row_bytes = static_cast<size_t>(out_w) * sizeof(T);
  const AxisSources src_d(plan, 0), src_h(plan, 1), src_w(plan, 2);
  std::optional<MultipleIndices> multiple;  // index vectors of the x3..x8 W path, when used
  if (plan.w_multiple > 0) multiple.emplace(plan.w_multiple);
  // A whole plane copied at once when out's planes are contiguous.
  const bool planes_contiguous = (out_h == 1 || os[3] == out_w) && (out_w == 1 || os[4] == 1);
  // Rows of W words back to back in both tensors (out's unit W stride is given here).
  const bool rows_contiguous = os[3] == out_w && ss[3] == plan.in_size[2];

  RowCursor at(plan, first_row, true);
  for (int64_t row = first_row; row < last_row; ++row, at.Next(plan, true)) {
    T* HWY_RESTRICT dst = out + at.n * os[0] + at.c * os[1] + at.od * os[2] + at.oh * os[3];
    switch (FindReuse(at, row, first_row, out_h, src_d, src_h)) {
      case Reuse::kRowAbove:
        std::memcpy(dst, dst - os[3], row_bytes);
        continue;
      case Reuse::kPlaneBefore:
        if (at.oh == 0 && planes_contiguous && row + out_h <= last_row) {
          std::memcpy(dst, dst - os[2], row_bytes * static_cast<size_t>(out_h));
          for (int64_t k = 1; k < out_h; ++k) at.Next(plan, true);
          row += out_h - 1;
        } else {
          std::memcpy(dst, dst - os[2], row_bytes);
        }
        continue;
      case Reuse::kNone:
        break;
    }
    const T* HWY_RESTRICT src = self + at.n * ss[0] + at.c * ss[1] + src_d(at.od) * ss[2] + src_h(at.oh) * ss[3];
    const int64_t run =
        plan.w_identity && rows_contiguous ? ConsecutiveSourceRows(src_h, at.oh, out_h, last_row - row) : 1;
    if (run > 1) {  // identity along W and H: one copy of several rows
      std::memcpy(dst, src, row_bytes * static_cast<size_t>(run));
      for (int64_t j = 1; j < run; ++j) at.Next(plan, true);
      row += run - 1;
      continue;
    }
    const int64_t copies = SameSourceRows(src_h, at.oh, out_h, last_row - row);
    if (plan.w_identity) {
      for (int64_t j = 0; j < copies; ++j) std::memcpy(dst + j * os[3], src, row_bytes);
    } else if (plan.w_double) {
      DoubleRow(src, in_w, dst, copies, os[3]);
    } else if (sizeof(T) == 4 && plan.w_multiple > 0) {
      if constexpr (sizeof(T) == 4) MultipleRow<false>(src, in_w, *multiple, dst, copies, os[3]);
    } else if (src_w.table != nullptr) {
      GatherRow<true>(src, in_w, src_w.table, out_w, dst, copies, os[3]);
    } else {
      for (int64_t ow = 0; ow < out_w; ++ow) dst[ow] = src[src_w(ow)];
      for (int64_t j = 1; j < copies; ++j) std::memcpy(dst + j * os[3], dst, row_bytes);
    }
    for (int64_t j = 1; j < copies; ++j) at.Next(plan, true);
    row += copies - 1;
  }
}

// RowsAlongW for outputs above the streaming threshold: out is never read back (its
// lines are gone by then); each row is built in the row buffer (kept while the rows below
// read the same source row, else gathered again from self, whose rows stay cached) and
// streamed out with non-temporal stores.
template <typename T>
void RowsAlongWStreamed(const Plan& plan, int64_t first_row, int64_t last_row) {
  const T* HWY_RESTRICT self = static_cast<const T*>(plan.self);
  T* HWY_RESTRICT out = static_cast<T*>(plan.out);
  const auto& ss = plan.self_strides;
  const auto& os = plan.out_strides;
  const int64_t in_w = plan.in_size[2], out_w = plan.out_size[2];
  const int64_t out_h = plan.out_size[1];
  const AxisSources src_d(plan, 0), src_h(plan, 1), src_w(plan, 2);
  // Rows of W words back to back in both tensors (out's unit W stride is given here).
  const bool rows_contiguous = os[3] == out_w && ss[3] == in_w;
  std::optional<MultipleIndices> multiple;  // index vectors of the x3..x8 W path, when used
  if (plan.w_multiple > 0) multiple.emplace(plan.w_multiple);
  RowBuffer<T> buffer;
  RowCursor at(plan, first_row, true);
  for (int64_t row = first_row; row < last_row; ++row, at.Next(plan, true)) {
    T* HWY_RESTRICT dst = out + at.n * os[0] + at.c * os[1] + at.od * os[2] + at.oh * os[3];
    const T* HWY_RESTRICT src = self + at.n * ss[0] + at.c * ss[1] + src_d(at.od) * ss[2] + src_h(at.oh) * ss[3];
    if (plan.w_identity) {  // rows with consecutive sources in one stream
      const int64_t run = rows_contiguous ? ConsecutiveSourceRows(src_h, at.oh, out_h, last_row - row) : 1;
      StreamCopy(dst, src, out_w * run);
      for (int64_t j = 1; j < run; ++j) at.Next(plan, true);
      row += run - 1;
      continue;
    }
    if constexpr (sizeof(T) == 4) {
      // A gathered row goes straight out, into every row below with the same source: no
      // second pass through the row buffer.
      if (!plan.w_double && WholeAlignedVectors(dst, os[3], out_w)) {
        const int64_t copies = SameSourceRows(src_h, at.oh, out_h, last_row - row);
        if (plan.w_multiple > 0) {
          MultipleRow<true>(src, in_w, *multiple, dst, copies, os[3]);
        } else {
          GatherRow<true, true>(src, in_w, src_w.table, out_w, dst, copies, os[3]);
        }
        for (int64_t j = 1; j < copies; ++j) at.Next(plan, true);
        row += copies - 1;
        continue;
      }
    }
    if (src != buffer.source) {
      if (plan.w_double) {
        DoubleRow(src, in_w, buffer.words, 1, 0);
      } else {
        GatherRow<true>(src, in_w, src_w.table, out_w, buffer.words, 1, 0);
      }
      buffer.source = src;
    }
    StreamCopy(dst, buffer.words, out_w);
  }
  hwy::FlushStream();
}

// Channels-last views (C has unit stride in both tensors): one output row (n, od, oh) of
// w pixels at a time, each pixel a run of C words from its source pixel; with few
// channels, the row's words are gathered through the plan's word table instead.
template <typename T>
void RowsChannelsLast(const Plan& plan, int64_t first_row, int64_t last_row) {
  const T* HWY_RESTRICT self = static_cast<const T*>(plan.self);
  T* HWY_RESTRICT out = static_cast<T*>(plan.out);
  const auto& ss = plan.self_strides;
  const auto& os = plan.out_strides;
  const int64_t channels = plan.channels;
  const int64_t in_w = plan.in_size[2], out_h = plan.out_size[1], out_w = plan.out_size[2];
  const AxisSources src_d(plan, 0), src_h(plan, 1), src_w(plan, 2);
  // Rows whose w * C words are contiguous copy as one block.
  const bool out_row_contiguous = out_w == 1 || os[4] == channels;
  const bool whole_row_copy = plan.w_identity && out_row_contiguous && (in_w == 1 || ss[4] == channels);
  const int64_t row_words = out_w * channels;
  const size_t row_bytes = static_cast<size_t>(row_words) * sizeof(T);
  const int64_t src_row_words = (in_w - 1) * ss[4] + channels;

  RowCursor at(plan, first_row, false);
  for (int64_t row = first_row; row < last_row; ++row, at.Next(plan, false)) {
    T* HWY_RESTRICT dst = out + at.n * os[0] + at.od * os[2] + at.oh * os[3];
    const Reuse reuse = FindReuse(at, row, first_row, out_h, src_d, src_h);
    if (reuse != Reuse::kNone) {
      const T* HWY_RESTRICT from = dst - (reuse == Reuse::kRowAbove ? os[3] : os[2]);
      if (out_row_contiguous) {
        std::memcpy(dst, from, row_bytes);
      } else {
        for (int64_t ow = 0; ow < out_w; ++ow) CopyRun(dst + ow * os[4], from + ow * os[4], channels);
      }
      continue;
    }
    const T* HWY_RESTRICT src = self + at.n * ss[0] + src_d(at.od) * ss[2] + src_h(at.oh) * ss[3];
    if (whole_row_copy) {
      std::memcpy(dst, src, row_bytes);
    } else if (!plan.channels_last_words.empty()) {
      const int64_t copies = SameSourceRows(src_h, at.oh, out_h, last_row - row);
      GatherRow<false>(src, src_row_words, plan.channels_last_words.data(), row_words, dst, copies, os[3]);
      for (int64_t j = 1; j < copies; ++j) at.Next(plan, false);
      row += copies - 1;
    } else {
      for (int64_t ow = 0; ow < out_w; ++ow) CopyRun(dst + ow * os[4], src + src_w(ow) * ss[4], channels);
    }
  }
}

// RowsChannelsLast for outputs above the streaming threshold (out rows contiguous):
// as RowsAlongWStreamed, with rows of w * C words.
template <typename T>
void RowsChannelsLastStreamed(const Plan& plan, int64_t first_row, int64_t last_row) {
  const T* HWY_RESTRICT self = static_cast<const T*>(plan.self);
  T* HWY_RESTRICT out = static_cast<T*>(plan.out);
  const auto& ss = plan.self_strides;
  const auto& os = plan.out_strides;
  const int64_t channels = plan.channels;
  const int64_t in_w = plan.in_size[2], out_w = plan.out_size[2];
  const int64_t row_words = out_w * channels;
  const int64_t src_row_words = (in_w - 1) * ss[4] + channels;
  const bool whole_row_copy = plan.w_identity && (in_w == 1 || ss[4] == channels);
  const AxisSources src_d(plan, 0), src_h(plan, 1), src_w(plan, 2);
  RowBuffer<T> buffer;
  RowCursor at(plan, first_row, false);
  for (int64_t row = first_row; row < last_row; ++row, at.Next(plan, false)) {
    T* HWY_RESTRICT dst = out + at.n * os[0] + at.od * os[2] + at.oh * os[3];
    const T* HWY_RESTRICT src = self + at.n * ss[0] + src_d(at.od) * ss[2] + src_h(at.oh) * ss[3];
    if (whole_row_copy) {
      StreamCopy(dst, src, row_words);
      continue;
    }
    if (plan.channels_last_words.empty() && WholeAlignedVectors(dst, channels, channels)) {
      // Pixels of whole vectors go straight out from their source pixels (the source row
      // stays cached for the rows below that read it).
      for (int64_t ow = 0; ow < out_w; ++ow) StreamCopy(dst + ow * channels, src + src_w(ow) * ss[4], channels);
      continue;
    }
    if (src != buffer.source) {
      if (!plan.channels_last_words.empty()) {
        GatherRow<false>(src, src_row_words, plan.channels_last_words.data(), row_words, buffer.words, 1, 0);
      } else {
        for (int64_t ow = 0; ow < out_w; ++ow) CopyRun(buffer.words + ow * channels, src + src_w(ow) * ss[4], channels);
      }
      buffer.source = src;
    }
    StreamCopy(dst, buffer.words, row_words);
  }
  hwy::FlushStream();
}

// Any other views: every element with full 64-bit strides (no row copies: rows are not
// contiguous here).
template <typename T>
void RowsStrided(const Plan& plan, int64_t first_row, int64_t last_row) {
  const T* HWY_RESTRICT self = static_cast<const T*>(plan.self);
  T* HWY_RESTRICT out = static_cast<T*>(plan.out);
  const auto& ss = plan.self_strides;
  const auto& os = plan.out_strides;
  const int64_t out_w = plan.out_size[2];
  const AxisSources src_d(plan, 0), src_h(plan, 1), src_w(plan, 2);
  RowCursor at(plan, first_row, true);
  for (int64_t row = first_row; row < last_row; ++row, at.Next(plan, true)) {
    T* HWY_RESTRICT dst = out + at.n * os[0] + at.c * os[1] + at.od * os[2] + at.oh * os[3];
    const T* HWY_RESTRICT src = self + at.n * ss[0] + at.c * ss[1] + src_d(at.od) * ss[2] + src_h(at.oh) * ss[3];
    for (int64_t ow = 0; ow < out_w; ++ow) dst[ow * os[4]] = src[src_w(ow) * ss[4]];
  }
}

template <typename T>
void RunRows(const Plan& plan, int64_t first_row, int64_t last_row) {
  switch (plan.kernel) {
    case UpsampleForwardKernel::kRowsAlongW:
      if (plan.stream_stores) return RowsAlongWStreamed<T>(plan, first_row, last_row);
      return RowsAlongW<T>(plan, first_row, last_row);
    case UpsampleForwardKernel::kChannelsLast:
      if (plan.stream_stores) return RowsChannelsLastStreamed<T>(plan, first_row, last_row);
      return RowsChannelsLast<T>(plan, first_row, last_row);
    case UpsampleForwardKernel::kStrided:
      return RowsStrided<T>(plan, first_row, last_row);
    case UpsampleForwardKernel::kNothing:
      return;
  }
}

void UpsampleForwardTask(const Plan& plan, int64_t task) {
  // Balanced contiguous blocks: the first rows % num_tasks tasks get one extra row.
  const int64_t base = plan.rows / plan.num_tasks, extra = plan.rows % plan.num_tasks;
  const int64_t first_row = task * base + (task < extra ? task : extra);
  const int64_t last_row = first_row + base + (task < extra ? 1 : 0);
  switch (plan.element_bytes) {
    case 1: return RunRows<uint8_t>(plan, first_row, last_row);
    case 2: return RunRows<uint16_t>(plan, first_row, last_row);
    case 4: return RunRows<uint32_t>(plan, first_row, last_row);
    default: return RunRows<uint64_t>(plan, first_row, last_row);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace oa
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace oa {

HWY_EXPORT(UpsampleForwardTask);

void RunUpsampleNearestTask(const UpsampleNearestPlan& plan, int64_t task) {
  HWY_DYNAMIC_DISPATCH(UpsampleForwardTask)(plan, task);
}

}  // namespace oa
#endif  // HWY_ONCE
