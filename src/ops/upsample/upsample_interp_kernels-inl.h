// Kernels of the interpolating upsample forwards, per SIMD target (see upsample_interp_plan.h
// for the arithmetic). A task owns a block of output rows of one W chunk of one (n, c) plane
// (or, channels-last, one (n, channel chunk)): it W-passes input rows into a ring, H-passes
// them into output rows (2-D) or into a ring of H blocks (3-D) that the D pass combines, and
// stores each row rounded to the output type. Every product and sum is a separate IEEE
// operation in the accumulation type, in PyTorch's order, on every target and in every
// path (vector or scalar), so the bits depend on neither.
//
// Included (per target, Highway's pattern) by one translation unit per dtype
// (upsample_interp_{f32,f16,bf16,f64}.cpp).
#if defined(OA_OPS_UPSAMPLE_INTERP_KERNELS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef OA_OPS_UPSAMPLE_INTERP_KERNELS_INL_H_
#undef OA_OPS_UPSAMPLE_INTERP_KERNELS_INL_H_
#else
#define OA_OPS_UPSAMPLE_INTERP_KERNELS_INL_H_
#endif

#include <hwy/cache_control.h>  // FlushStream
#include <hwy/highway.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "core/kernel_inline.h"
#include "ops/upsample/upsample_interp_common-inl.h"

HWY_BEFORE_NAMESPACE();
namespace oa {
namespace HWY_NAMESPACE {
namespace interp {
namespace hn = hwy::HWY_NAMESPACE;

// acc[0, n) = row[0, n) * w, and acc[0, n) = acc + row * w: one tap of an H or D pass.
template <class A>
HWY_INLINE void ScaleRow(A* HWY_RESTRICT acc, const A* HWY_RESTRICT row, A w, int64_t n) {
  const DA<A> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto vw = hn::Set(d, w);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) hn::StoreU(hn::Mul(hn::LoadU(d, row + i), vw), d, acc + i);
  for (; i < n; ++i) acc[i] = row[i] * w;
}
template <class A>
HWY_INLINE void AddScaledRow(A* HWY_RESTRICT acc, const A* HWY_RESTRICT row, A w, int64_t n) {
  const DA<A> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto vw = hn::Set(d, w);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    hn::StoreU(hn::Add(hn::LoadU(d, acc + i), hn::Mul(hn::LoadU(d, row + i), vw)), d, acc + i);
  }
  for (; i < n; ++i) acc[i] = acc[i] + row[i] * w;
}

// One pass of a whole H or D tap sum: acc[i] = rows[0][i] * w[0] + rows[1][i] * w[1] + ...,
// left to right, for up to kMaxFusedTaps rows that are all resident; CombineStore writes the
// sums rounded to T instead (a contiguous output row).
constexpr int kMaxFusedTaps = 8;
template <class A>
HWY_INLINE hn::Vec<DA<A>> CombineVector(const A* const* rows, const A* w, int taps, int64_t i) {
  const DA<A> d;
  auto sum = hn::Mul(hn::LoadU(d, rows[0] + i), hn::Set(d, w[0]));
  for (int j = 1; j < taps; ++j) sum = hn::Add(sum, hn::Mul(hn::LoadU(d, rows[j] + i), hn::Set(d, w[j])));
  return sum;
}
template <class A>
HWY_INLINE A CombineScalar(const A* const* rows, const A* w, int taps, int64_t i) {
  A sum = rows[0][i] * w[0];
  for (int j = 1; j < taps; ++j) sum = sum + rows[j][i] * w[j];
  return sum;
}
template <class A>
HWY_INLINE void CombineRows(const A* const* rows, const A* w, int taps, int64_t n, A* HWY_RESTRICT acc) {
  const DA<A> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) hn::StoreU(CombineVector(rows, w, taps, i), d, acc + i);
  for (; i < n; ++i) acc[i] = CombineScalar(rows, w, taps, i);
}
template <class T, class A>
HWY_INLINE void CombineStore(const A* const* rows, const A* w, int taps, int64_t n, T* HWY_RESTRICT dst,
                             bool stream) {
  const DA<A> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  if constexpr (std::is_same<A, T>::value && HWY_TARGET != HWY_SCALAR) {
    if (stream) {  // plain stores up to the first vector-aligned element, then non-temporal ones
      const uintptr_t vector_bytes = static_cast<uintptr_t>(lanes) * sizeof(T);
      const uintptr_t misalignment = reinterpret_cast<uintptr_t>(dst) % vector_bytes;
      const int64_t head =
          misalignment == 0 ? 0 : std::min<int64_t>(n, static_cast<int64_t>((vector_bytes - misalignment) / sizeof(T)));
      for (; i < head; ++i) StoreScalar(CombineScalar(rows, w, taps, i), dst + i);
      for (; i + lanes <= n; i += lanes) hn::Stream(CombineVector(rows, w, taps, i), d, dst + i);
    }
  }
  for (; i + lanes <= n; i += lanes) {
    if constexpr (std::is_same<A, T>::value) {
      hn::StoreU(CombineVector(rows, w, taps, i), d, dst + i);
    } else {
      StoreNarrow(CombineVector(rows, w, taps, i), d, dst + i);
    }
  }
  for (; i < n; ++i) StoreScalar(CombineScalar(rows, w, taps, i), dst + i);
}

// Gathers staged[index[lane]] as accumulators (16-bit data: float lanes, widened).
template <class DAcc, class VI>
HWY_INLINE hn::Vec<DAcc> GatherAccum(DAcc d, const float* HWY_RESTRICT staged, VI index) {
  if constexpr (std::is_same<hn::TFromD<DAcc>, float>::value) {
    return hn::GatherIndex(d, staged, index);
  } else {
    const hn::Rebind<float, DAcc> df;
    return hn::PromoteTo(d, hn::GatherIndex(df, staged, index));
  }
}
template <class DAcc, class VI>
HWY_INLINE hn::Vec<DAcc> GatherAccum(DAcc d, const double* HWY_RESTRICT staged, VI index) {
  const hn::RebindToSigned<DAcc> di64;
  return hn::GatherIndex(d, staged, hn::PromoteTo(di64, index));
}
template <class DAcc>
HWY_INLINE hn::Vec<DAcc> LoadWeights(DAcc d, const float* HWY_RESTRICT w) {
  if constexpr (std::is_same<hn::TFromD<DAcc>, float>::value) {
    return hn::LoadU(d, w);
  } else {
    return hn::PromoteTo(d, hn::LoadU(hn::Rebind<float, DAcc>(), w));
  }
}
template <class DAcc>
HWY_INLINE hn::Vec<DAcc> LoadWeights(DAcc d, const double* HWY_RESTRICT w) {
  return hn::LoadU(d, w);
}

// A vector of consecutive staged values as accumulators, and lanes of it picked by relative
// indices (each < the lane count): the W pass of a chunk whose taps all fall in one window.
template <class DAcc>
HWY_INLINE hn::Vec<DAcc> LoadWindow(DAcc d, const float* HWY_RESTRICT staged) {
  if constexpr (std::is_same<hn::TFromD<DAcc>, float>::value) {
    return hn::LoadU(d, staged);
  } else {
    return hn::PromoteTo(d, hn::LoadU(hn::Rebind<float, DAcc>(), staged));
  }
}
template <class DAcc>
HWY_INLINE hn::Vec<DAcc> LoadWindow(DAcc d, const double* HWY_RESTRICT staged) {
  return hn::LoadU(d, staged);
}
template <class DAcc, class VI>
HWY_INLINE hn::Vec<DAcc> PickLanes(DAcc d, hn::Vec<DAcc> window, VI relative) {
  if constexpr (sizeof(hn::TFromD<DAcc>) == 4) {
    return hn::TableLookupLanes(window, hn::IndicesFromVec(d, relative));
  } else {
    const hn::RebindToSigned<DAcc> di64;
    return hn::TableLookupLanes(window, hn::IndicesFromVec(d, hn::PromoteTo(di64, relative)));
  }
}

// A vector of accumulators stored rounded to T.
template <class DAcc, class T>
HWY_INLINE void StoreAccum(hn::Vec<DAcc> v, DAcc d, T* HWY_RESTRICT p) {
  if constexpr (std::is_same<hn::TFromD<DAcc>, T>::value) {
    hn::StoreU(v, d, p);
  } else {
    StoreNarrow(v, d, p);
  }
}

// StoreAccum, non-temporal where `stream` and p is vector-aligned (fp32 outputs only).
template <class DAcc, class T>
HWY_INLINE void StoreAccumMaybeStream(hn::Vec<DAcc> v, DAcc d, T* HWY_RESTRICT p, bool stream) {
  if constexpr (std::is_same<hn::TFromD<DAcc>, T>::value && HWY_TARGET != HWY_SCALAR) {
    if (stream && reinterpret_cast<uintptr_t>(p) % (hn::Lanes(d) * sizeof(T)) == 0) return hn::Stream(v, d, p);
  }
  StoreAccum(v, d, p);
}

// Lanes of accumulators from elements of U (staged values or the input's own type).
template <class DAcc, class U>
HWY_INLINE hn::Vec<DAcc> LoadAccum(DAcc d, const U* HWY_RESTRICT p) {
  using A = hn::TFromD<DAcc>;
  if constexpr (std::is_same<U, A>::value) {
    return hn::LoadU(d, p);
  } else {
    return hn::PromoteTo(d, LoadAsFloat(hn::Rebind<float, DAcc>(), p));
  }
}

// Lanes whose output has more than j taps (AA maps: the counts vary).
template <class DAcc>
HWY_INLINE hn::Mask<DAcc> TapLive(DAcc d, const int32_t* HWY_RESTRICT count, int j) {
  const hn::Rebind<int32_t, DAcc> di32;
  if constexpr (sizeof(hn::TFromD<DAcc>) == 4) {
    return hn::RebindMask(d, hn::Gt(hn::LoadU(di32, count), hn::Set(di32, j)));
  } else {
    const hn::RebindToSigned<DAcc> di64;
    return hn::RebindMask(d, hn::Gt(hn::PromoteTo(di64, hn::LoadU(di32, count)), hn::Set(di64, int64_t{j})));
  }
}

template <class T>
struct ForwardTask {
  using A = Accum<T>;
  using S = Staged<T>;
  using W = WeightT<T>;

  const UpsampleInterpPlan& plan;
  const T* input;
  T* output;
  const W* w_weight;
  int64_t n = 0, c0 = 0, cn = 1;  // batch index, first channel, channels of the rows
  int64_t ow0 = 0, own = 0;       // the W chunk
  int64_t oh0 = 0, ohn = 0;       // the H block
  int64_t lo = 0, span = 0;       // the input pixels the chunk reads: [lo, lo + span)
  int64_t row_elems = 0;          // accumulators in a row: own * cn
  int64_t slot_elems = 0;         // a ring slot's stride (padded for full-vector stores)
  S* stage = nullptr;
  A* rows = nullptr;    // ring of W-passed rows
  A* blocks = nullptr;  // ring of H-passed blocks (3-D)
  A* out_row = nullptr;
  int64_t row_tags[kInterpMaxRingSlots];
  int64_t block_tags[kInterpMaxRingSlots];

  ForwardTask(const UpsampleInterpPlan& p, unsigned char* scratch, int64_t task)
      : plan(p), input(static_cast<const T*>(p.input)), output(static_cast<T*>(p.output)), w_weight(WeightTable(p)) {
    const int64_t per_outer = plan.h_blocks * plan.w_chunks;
    const int64_t outer = task / per_outer;
    const int64_t hb = (task / plan.w_chunks) % plan.h_blocks;
    const int64_t wc = task % plan.w_chunks;
    if (plan.channels_last) {
      const int64_t chunks = (plan.channels + plan.channel_chunk - 1) / plan.channel_chunk;
      n = outer / chunks;
      c0 = (outer % chunks) * plan.channel_chunk;
      cn = std::min(plan.channel_chunk, plan.channels - c0);
    } else {
      n = outer / plan.channels;
      c0 = outer % plan.channels;
      cn = 1;
    }
    ow0 = wc * plan.chunk_w;
    own = std::min(plan.chunk_w, plan.out_size[2] - ow0);
    oh0 = hb * plan.block_rows;
    ohn = std::min(plan.block_rows, plan.out_size[1] - oh0);
    const InterpAxisMap& axis_w = plan.axes[2];
    lo = axis_w.First(ow0);
    span = axis_w.Last(ow0 + own - 1) - lo + 1;
    row_elems = own * cn;
    const InterpScratchLayout layout = ForwardScratchLayout(plan, sizeof(A), sizeof(S));
    slot_elems = layout.slot_elements;
    stage = reinterpret_cast<S*>(scratch);
    rows = reinterpret_cast<A*>(scratch + layout.rows);
    blocks = reinterpret_cast<A*>(scratch + layout.blocks);
    out_row = reinterpret_cast<A*>(scratch + layout.out_row);
    std::fill_n(row_tags, kInterpMaxRingSlots, int64_t{-1});
    std::fill_n(block_tags, kInterpMaxRingSlots, int64_t{-1});
  }

  static const W* WeightTable(const UpsampleInterpPlan& p) {
    if constexpr (std::is_same<W, double>::value) {
      return p.w_weight64.data();
    } else {
      return p.w_weight.data();
    }
  }

  // The input row (id, ih) of this task's channels, pixels [lo, lo + span).
  const T* InputRow(int64_t id, int64_t ih) const {
    const auto& s = plan.in_strides;
    return input + n * s[0] + c0 * s[1] + id * s[2] + ih * s[3] + lo * s[4];
  }

  // Copies the input row into the dense staging buffer: [pixel][channel].
  OA_KERNEL_HELPER void StageRow(const T* HWY_RESTRICT src) {
    const auto& s = plan.in_strides;
    if (!plan.channels_last) {
      if (s[4] == 1 || span == 1) return StageContiguous(src, span, stage);
      for (int64_t i = 0; i < span; ++i) stage[i] = ToStaged(src[i * s[4]]);
      return;
    }
    for (int64_t p = 0; p < span; ++p) {
      const T* pixel = src + p * s[4];
      S* dst = stage + p * cn;
      if (s[1] == 1 || cn == 1) {
        StageContiguous(pixel, cn, dst);
      } else {
        for (int64_t c = 0; c < cn; ++c) dst[c] = ToStaged(pixel[c * s[1]]);
      }
    }
  }

  // The W pass of a staged row into acc (row_elems accumulators).
  // direct: the output row itself (contiguous), written rounded instead of acc.
  OA_KERNEL_HELPER void WPassStaged(A* HWY_RESTRICT acc, T* HWY_RESTRICT direct = nullptr) const {
    const int64_t stride = plan.w_stride;
    const int32_t* index = plan.w_index.data() + ow0;
    const W* weight = w_weight + ow0;
    if (!plan.channels_last) {
      const DA<A> d;
      const hn::Rebind<int32_t, DA<A>> di;
      const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
      const auto base = hn::Set(di, static_cast<int32_t>(lo));
      const bool counted = !plan.w_count.empty();
      const InterpAxisMap& axis_w = plan.axes[2];
      const int64_t last_output = plan.out_size[2] - 1;
      for (int64_t o = 0; o < own; o += lanes) {  // the tables are padded past the row: full vectors
        // Upsampling: the chunk's taps read inside one vector of the staged row (which is
        // padded by a vector), so one load and a lane permutation per tap replace gathers.
        const int64_t first = axis_w.First(ow0 + o);
        const int64_t top = axis_w.Last(std::min(ow0 + o + lanes - 1, last_output));
        hn::Vec<DA<A>> sum;
        if (top - first < lanes) {
          const auto window = LoadWindow(d, stage + (first - lo));
          const auto origin = hn::Set(di, static_cast<int32_t>(first));
          const auto tap = [&](int j) {
            return hn::Mul(PickLanes(d, window, hn::Sub(hn::LoadU(di, index + j * stride + o), origin)),
                           LoadWeights(d, weight + j * stride + o));
          };
          sum = tap(0);
          for (int j = 1; j < plan.w_taps; ++j) {
            sum = counted ? hn::IfThenElse(TapLive(d, plan.w_count.data() + ow0 + o, j), hn::Add(sum, tap(j)), sum)
                          : hn::Add(sum, tap(j));
          }
        } else {
          const auto tap = [&](int j) {
            return hn::Mul(GatherAccum(d, stage, hn::Sub(hn::LoadU(di, index + j * stride + o), base)),
                           LoadWeights(d, weight + j * stride + o));
          };
          sum = tap(0);
          for (int j = 1; j < plan.w_taps; ++j) {
            sum = counted ? hn::IfThenElse(TapLive(d, plan.w_count.data() + ow0 + o, j), hn::Add(sum, tap(j)), sum)
                          : hn::Add(sum, tap(j));
          }
        }
        if (direct == nullptr) {
          hn::StoreU(sum, d, acc + o);
        } else if (o + lanes <= own) {
          StoreAccum(sum, d, direct + o);
        } else {  // the row's last, partial vector
          HWY_ALIGN A tail[hn::MaxLanes(d)];
          hn::Store(sum, d, tail);
          for (int64_t i = 0; i < own - o; ++i) StoreScalar(tail[i], direct + o + i);
        }
      }
      return;
    }
    WPassPixels(stage, cn, acc);
  }

  // The channels-last W pass: output pixel o sums its taps' runs of cn channels, the input
  // pixel of tap j at base + (index - lo) * pixel_stride (staged values or the input itself).
  template <class U>
  OA_KERNEL_HELPER void WPassPixels(const U* HWY_RESTRICT base, int64_t pixel_stride, A* HWY_RESTRICT acc) const {
    const DA<A> d;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    const int64_t stride = plan.w_stride;
    const int32_t* index = plan.w_index.data() + ow0;
    const W* weight = w_weight + ow0;
    for (int64_t o = 0; o < own; ++o) {
      const int taps = plan.w_count.empty() ? plan.w_taps : plan.w_count[ow0 + o];
      A* HWY_RESTRICT dst = acc + o * cn;
      if (taps <= kMaxFusedTaps) {
        const U* pixel[kMaxFusedTaps];
        A w[kMaxFusedTaps];
        for (int j = 0; j < taps; ++j) {
          pixel[j] = base + (index[j * stride + o] - lo) * pixel_stride;
          w[j] = static_cast<A>(weight[j * stride + o]);
        }
        int64_t c = 0;
        for (; c + lanes <= cn; c += lanes) {
          auto sum = hn::Mul(LoadAccum(d, pixel[0] + c), hn::Set(d, w[0]));
          for (int j = 1; j < taps; ++j) sum = hn::Add(sum, hn::Mul(LoadAccum(d, pixel[j] + c), hn::Set(d, w[j])));
          hn::StoreU(sum, d, dst + c);
        }
        for (; c < cn; ++c) {
          A sum = static_cast<A>(ToStaged(pixel[0][c])) * w[0];
          for (int j = 1; j < taps; ++j) sum = sum + static_cast<A>(ToStaged(pixel[j][c])) * w[j];
          dst[c] = sum;
        }
        continue;
      }
      ScaleStaged(dst, base + (index[o] - lo) * pixel_stride, static_cast<A>(weight[o]), cn, /*add=*/false);
      for (int j = 1; j < taps; ++j) {
        ScaleStaged(dst, base + (index[j * stride + o] - lo) * pixel_stride, static_cast<A>(weight[j * stride + o]), cn,
                    /*add=*/true);
      }
    }
  }

  // dst = src * w (add: dst + src * w) over cn staged values.
  template <class U>
  static HWY_INLINE void ScaleStaged(A* HWY_RESTRICT dst, const U* HWY_RESTRICT src, A w, int64_t count, bool add) {
    const DA<A> d;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    const auto vw = hn::Set(d, w);
    int64_t i = 0;
    for (; i + lanes <= count; i += lanes) {
      const auto term = hn::Mul(LoadAccum(d, src + i), vw);
      hn::StoreU(add ? hn::Add(hn::LoadU(d, dst + i), term) : term, d, dst + i);
    }
    for (; i < count; ++i) {
      const A term = static_cast<A>(ToStaged(src[i])) * w;
      dst[i] = add ? dst[i] + term : term;
    }
  }

  // The W pass reading the input in place (rows too long to stage), element by element.
  OA_KERNEL_HELPER void WPassInPlace(const T* HWY_RESTRICT src, A* HWY_RESTRICT acc) const {
    const auto& s = plan.in_strides;
    const int64_t stride = plan.w_stride;
    for (int64_t o = 0; o < own; ++o) {
      const int taps = plan.w_count.empty() ? plan.w_taps : plan.w_count[ow0 + o];
      for (int64_t c = 0; c < cn; ++c) {
        const T* channel = src + c * s[1];
        A sum =
            static_cast<A>(ToStaged(channel[(plan.w_index[ow0 + o] - lo) * s[4]])) * static_cast<A>(w_weight[ow0 + o]);
        for (int j = 1; j < taps; ++j) {
          const int64_t k = j * stride + ow0 + o;
          sum = sum + static_cast<A>(ToStaged(channel[(plan.w_index[k] - lo) * s[4]])) * static_cast<A>(w_weight[k]);
        }
        acc[o * cn + c] = sum;
      }
    }
  }

  // The W-passed input row (id, ih): from the ring, or computed into it.
  const A* Row(int64_t id, int64_t ih) {
    const int64_t key = id * plan.in_size[1] + ih;
    const int64_t slot = key % plan.ring_rows;
    A* row = rows + slot * slot_elems;
    if (row_tags[slot] == key) return row;
    const T* src = InputRow(id, ih);
    if (plan.channels_last && (plan.in_strides[1] == 1 || cn == 1)) {
      WPassPixels(src, plan.in_strides[4], row);  // the channels are contiguous runs in the input already
    } else if (plan.staged) {
      StageRow(src);
      WPassStaged(row);
    } else {
      WPassInPlace(src, row);
    }
    row_tags[slot] = key;
    return row;
  }

  // The rows (or blocks) of an output's taps, when all of them fit their ring at once (then
  // each tap's row stays put while the others are fetched) and there are few enough.
  template <class Fetch>
  bool Resident(const InterpAxisMap& axis, int64_t o, int64_t ring, Fetch fetch, const A** rows, A* weights) {
    const int taps = axis.Count(o);
    if (taps > kMaxFusedTaps || axis.MaxSpan() > ring) return false;
    const int32_t* index = axis.IndexRow(o);
    const double* weight = axis.WeightRow(o);
    for (int j = 0; j < taps; ++j) {
      rows[j] = fetch(index[j]);
      weights[j] = static_cast<A>(weight[j]);
    }
    return true;
  }

  // acc = the H pass of output row oh over W-passed rows of input depth id.
  void HPass(int64_t id, int64_t oh, A* HWY_RESTRICT acc) {
    const InterpAxisMap& axis_h = plan.axes[1];
    const A* tap_rows[kMaxFusedTaps];
    A tap_weights[kMaxFusedTaps];
    if (Resident(
            axis_h, oh, plan.ring_rows, [&](int64_t ih) { return Row(id, ih); }, tap_rows, tap_weights)) {
      return CombineRows(tap_rows, tap_weights, axis_h.Count(oh), row_elems, acc);
    }
    const int taps = axis_h.Count(oh);  // more taps than the ring holds: one pass per tap
    const int32_t* index = axis_h.IndexRow(oh);
    const double* weight = axis_h.WeightRow(oh);
    ScaleRow(acc, Row(id, index[0]), static_cast<A>(weight[0]), row_elems);
    for (int j = 1; j < taps; ++j) AddScaledRow(acc, Row(id, index[j]), static_cast<A>(weight[j]), row_elems);
  }

  // The H-passed block (rows oh0 .. oh0 + ohn) of input depth id: from the ring, or computed.
  const A* Block(int64_t id) {
    const int64_t slot = id % plan.ring_blocks;
    A* block = blocks + slot * plan.block_rows * slot_elems;
    if (block_tags[slot] == id) return block;
    for (int64_t r = 0; r < ohn; ++r) HPass(id, oh0 + r, block + r * slot_elems);
    block_tags[slot] = id;
    return block;
  }

  // Output row (od, oh) of this task, and whether it is one contiguous run.
  T* OutputRow(int64_t od, int64_t oh) const {
    const auto& s = plan.out_strides;
    return output + n * s[0] + c0 * s[1] + od * s[2] + oh * s[3] + ow0 * s[4];
  }
  bool ContiguousRows() const {
    const auto& s = plan.out_strides;
    return plan.channels_last ? (s[1] == 1 || cn == 1) && (s[4] == cn || own == 1) : (s[4] == 1 || own == 1);
  }

  // The final tap sum of output row (od, oh), written to it: in one pass when its taps are
  // resident and the row is contiguous, else through out_row.
  template <class Fetch>
  void FinalRow(const InterpAxisMap& axis, int64_t o, int64_t ring, int64_t od, int64_t oh, Fetch fetch) {
    const A* tap_rows[kMaxFusedTaps];
    A tap_weights[kMaxFusedTaps];
    if (ContiguousRows() && Resident(axis, o, ring, fetch, tap_rows, tap_weights)) {
      return CombineStore(tap_rows, tap_weights, axis.Count(o), row_elems, OutputRow(od, oh), plan.stream_stores);
    }
    const int taps = axis.Count(o);
    const int32_t* index = axis.IndexRow(o);
    const double* weight = axis.WeightRow(o);
    ScaleRow(out_row, fetch(index[0]), static_cast<A>(weight[0]), row_elems);
    for (int j = 1; j < taps; ++j) AddScaledRow(out_row, fetch(index[j]), static_cast<A>(weight[j]), row_elems);
    StoreRow(od, oh, out_row);
  }

  // Stores out_row to output row (od, oh).
  OA_KERNEL_HELPER void StoreRow(int64_t od, int64_t oh, const A* HWY_RESTRICT row) const {
    const auto& s = plan.out_strides;
    T* dst = OutputRow(od, oh);
    if (!plan.channels_last) {
      if (s[4] == 1 || own == 1) return StoreContiguous(row, own, dst);
      for (int64_t o = 0; o < own; ++o) StoreScalar(row[o], dst + o * s[4]);
      return;
    }
    if (s[1] == 1 && s[4] == cn) return StoreContiguous(row, row_elems, dst);
    for (int64_t o = 0; o < own; ++o) {
      T* pixel = dst + o * s[4];
      if (s[1] == 1 || cn == 1) {
        StoreContiguous(row + o * cn, cn, pixel);
      } else {
        for (int64_t c = 0; c < cn; ++c) StoreScalar(row[o * cn + c], pixel + c * s[1]);
      }
    }
  }

  // Channels-last with contiguous channels in both tensors, linear taps in 1-D or 2-D: each
  // output pixel's nested sum straight from the input pixels (vectors over the channels, the
  // tap counts compile-time constants), no rings. A pixel's W and H sums are recomputed for
  // each output that reads them, the same operations in the same order as the ring path: the
  // same bits.
  template <int kTaps>
  struct Taps {
    int64_t offset[kTaps];
    A weight[kTaps];
    void Of(const InterpAxisMap& axis, int64_t o, int64_t stride) {
      for (int j = 0; j < kTaps; ++j) {
        offset[j] = axis.Index(o, j) * stride;
        weight[j] = static_cast<A>(axis.Weight(o, j));
      }
    }
  };
  // The nested sum over the last kLevels axes of taps[0] (D), taps[1] (H), taps[2] (W).
  template <int kLevels, int kTaps>
  static HWY_INLINE hn::Vec<DA<A>> Nested(const T* HWY_RESTRICT at, const Taps<kTaps>* taps, int64_t c) {
    const DA<A> d;
    const Taps<kTaps>& axis = taps[3 - kLevels];
    if constexpr (kLevels == 1) {
      auto sum = hn::Mul(LoadAccum(d, at + axis.offset[0] + c), hn::Set(d, axis.weight[0]));
      for (int j = 1; j < kTaps; ++j)
        sum = hn::Add(sum, hn::Mul(LoadAccum(d, at + axis.offset[j] + c), hn::Set(d, axis.weight[j])));
      return sum;
    } else {
      auto sum = hn::Mul(Nested<kLevels - 1>(at + axis.offset[0], taps, c), hn::Set(d, axis.weight[0]));
      for (int j = 1; j < kTaps; ++j)
        sum = hn::Add(sum, hn::Mul(Nested<kLevels - 1>(at + axis.offset[j], taps, c), hn::Set(d, axis.weight[j])));
      return sum;
    }
  }
  template <int kLevels, int kTaps>
  static HWY_INLINE A NestedScalar(const T* at, const Taps<kTaps>* taps, int64_t c) {
    const Taps<kTaps>& axis = taps[3 - kLevels];
    A sum;
    if constexpr (kLevels == 1) {
      sum = static_cast<A>(ToStaged(at[axis.offset[0] + c])) * axis.weight[0];
      for (int j = 1; j < kTaps; ++j) sum = sum + static_cast<A>(ToStaged(at[axis.offset[j] + c])) * axis.weight[j];
    } else {
      sum = NestedScalar<kLevels - 1>(at + axis.offset[0], taps, c) * axis.weight[0];
      for (int j = 1; j < kTaps; ++j)
        sum = sum + NestedScalar<kLevels - 1>(at + axis.offset[j], taps, c) * axis.weight[j];
    }
    return sum;
  }

  // Whether the direct kernel applies. With four taps or a third level, the ring's W-passed
  // rows (each computed once for every output row that reads it) cost less than recomputing
  // them per output: fp32 x2 channels-last, 1 thread, the ring took 2.7 against 5.1 ms
  // (bicubic [8,32,96,96]) and 4.4 against 6.6 ms (trilinear [2,16,40,40,40]).
  bool DirectApplies() const {
    return plan.channels_last && plan.in_strides[1] == 1 && plan.out_strides[1] == 1 && plan.levels <= 2 &&
           plan.axes[2].spec().kind == InterpKind::kLinear;
  }

  template <int kLevels, int kTaps>
  void RunDirect() {
    const DA<A> d;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    const auto& si = plan.in_strides;
    const T* batch = input + n * si[0] + c0 * si[1];
    Taps<kTaps> taps[3] = {};
    for (int64_t od = 0; od < plan.out_size[0]; ++od) {
      if (kLevels == 3) taps[0].Of(plan.axes[0], od, si[2]);
      for (int64_t oh = oh0; oh < oh0 + ohn; ++oh) {
        if (kLevels >= 2) taps[1].Of(plan.axes[1], oh, si[3]);
        T* row = OutputRow(od, oh);
        for (int64_t o = 0; o < own; ++o) {
          taps[2].Of(plan.axes[2], ow0 + o, si[4]);
          T* pixel = row + o * plan.out_strides[4];
          int64_t c = 0;
          for (; c + lanes <= cn; c += lanes) StoreAccum(Nested<kLevels, kTaps>(batch, taps, c), d, pixel + c);
          for (; c < cn; ++c) StoreScalar(NestedScalar<kLevels, kTaps>(batch, taps, c), pixel + c);
        }
      }
    }
  }

  // 2-D: consecutive output rows whose H taps read the same two input rows (most of them
  // when upsampling) go in pairs, the W sums of those input rows computed once for both
  // outputs; each output is still Nested<2, 2>'s operations in its order: the same bits.
  void RunDirectRowPairs() {
    const auto& si = plan.in_strides;
    const T* batch = input + n * si[0] + c0 * si[1];
    Taps<2> taps[3] = {};
    for (int64_t oh = oh0; oh < oh0 + ohn; ++oh) {
      taps[1].Of(plan.axes[1], oh, si[3]);
      Taps<2> next = {};
      if (oh + 1 < oh0 + ohn) next.Of(plan.axes[1], oh + 1, si[3]);
      if (oh + 1 < oh0 + ohn && next.offset[0] == taps[1].offset[0] && next.offset[1] == taps[1].offset[1]) {
        RowPair(batch, taps[1], next, OutputRow(0, oh), OutputRow(0, oh + 1));
        ++oh;
        continue;
      }
      const DA<A> d;
      const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
      T* row = OutputRow(0, oh);
      for (int64_t o = 0; o < own; ++o) {
        taps[2].Of(plan.axes[2], ow0 + o, si[4]);
        T* pixel = row + o * plan.out_strides[4];
        int64_t c = 0;
        for (; c + lanes <= cn; c += lanes) {
          StoreAccumMaybeStream(Nested<2, 2>(batch, taps, c), d, pixel + c, plan.stream_stores);
        }
        for (; c < cn; ++c) StoreScalar(NestedScalar<2, 2>(batch, taps, c), pixel + c);
      }
    }
  }
  // Output rows a and b, whose H taps (h_a, h_b) read the same input rows.
  OA_KERNEL_HELPER void RowPair(const T* HWY_RESTRICT batch, const Taps<2>& h_a, const Taps<2>& h_b,
                                T* HWY_RESTRICT row_a, T* HWY_RESTRICT row_b) const {
    const DA<A> d;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    const T* top = batch + h_a.offset[0];
    const T* bottom = batch + h_a.offset[1];
    const auto ha0 = hn::Set(d, h_a.weight[0]), ha1 = hn::Set(d, h_a.weight[1]);
    const auto hb0 = hn::Set(d, h_b.weight[0]), hb1 = hn::Set(d, h_b.weight[1]);
    const bool stream = plan.stream_stores;
    Taps<2> w;
    for (int64_t o = 0; o < own; ++o) {
      w.Of(plan.axes[2], ow0 + o, plan.in_strides[4]);
      const auto w0 = hn::Set(d, w.weight[0]), w1 = hn::Set(d, w.weight[1]);
      T* pixel_a = row_a + o * plan.out_strides[4];
      T* pixel_b = row_b + o * plan.out_strides[4];
      int64_t c = 0;
      for (; c + lanes <= cn; c += lanes) {
        const auto upper = hn::Add(hn::Mul(LoadAccum(d, top + w.offset[0] + c), w0),
                                   hn::Mul(LoadAccum(d, top + w.offset[1] + c), w1));
        const auto lower = hn::Add(hn::Mul(LoadAccum(d, bottom + w.offset[0] + c), w0),
                                   hn::Mul(LoadAccum(d, bottom + w.offset[1] + c), w1));
        StoreAccumMaybeStream(hn::Add(hn::Mul(upper, ha0), hn::Mul(lower, ha1)), d, pixel_a + c, stream);
        StoreAccumMaybeStream(hn::Add(hn::Mul(upper, hb0), hn::Mul(lower, hb1)), d, pixel_b + c, stream);
      }
      for (; c < cn; ++c) {
        const A upper = static_cast<A>(ToStaged(top[w.offset[0] + c])) * w.weight[0] +
                        static_cast<A>(ToStaged(top[w.offset[1] + c])) * w.weight[1];
        const A lower = static_cast<A>(ToStaged(bottom[w.offset[0] + c])) * w.weight[0] +
                        static_cast<A>(ToStaged(bottom[w.offset[1] + c])) * w.weight[1];
        StoreScalar(upper * h_a.weight[0] + lower * h_a.weight[1], pixel_a + c);
        StoreScalar(upper * h_b.weight[0] + lower * h_b.weight[1], pixel_b + c);
      }
    }
  }

  bool TryDirect() {
    if (!DirectApplies()) return false;
    if (plan.levels == 1) {
      RunDirect<1, 2>();
    } else {
      RunDirectRowPairs();
    }
    return true;
  }

  void Run() {
    if (TryDirect()) return;
    if (plan.levels == 1) {
      if (plan.staged && !plan.channels_last && ContiguousRows()) {
        StageRow(InputRow(0, 0));
        WPassStaged(out_row, OutputRow(0, 0));  // straight into the output row
      } else {
        StoreRow(0, 0, Row(0, 0));
      }
      return;
    }
    if (plan.levels == 2) {
      for (int64_t r = 0; r < ohn; ++r) {
        FinalRow(plan.axes[1], oh0 + r, plan.ring_rows, 0, oh0 + r, [&](int64_t ih) { return Row(0, ih); });
      }
      return;
    }
    for (int64_t od = 0; od < plan.out_size[0]; ++od) {
      for (int64_t r = 0; r < ohn; ++r) {
        // Each tap's block is fetched per row: with more taps than ring slots a later tap may
        // evict an earlier one, which is then recomputed, the same values.
        FinalRow(plan.axes[0], od, plan.ring_blocks, od, oh0 + r,
                 [&](int64_t id) { return Block(id) + r * slot_elems; });
      }
    }
  }
};

template <class T>
HWY_NOINLINE void InterpForwardTaskT(const UpsampleInterpPlan& plan, int64_t task) {
  alignas(64) unsigned char scratch[kInterpScratchBytes];
  ForwardTask<T> work(plan, scratch, task);
  work.Run();
  if (plan.stream_stores) hwy::FlushStream();  // the task's non-temporal stores are visible when it ends
}

}  // namespace interp
}  // namespace HWY_NAMESPACE
}  // namespace oa
HWY_AFTER_NAMESPACE();

#endif  // include guard
