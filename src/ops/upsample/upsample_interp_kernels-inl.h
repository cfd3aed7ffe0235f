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
  OA_KERNEL_HELPER void WPassStaged(A* HWY_RESTRICT acc) const {
    const int64_t stride = plan.w_stride;
    const int32_t* index = plan.w_index.data() + ow0;
    const W* weight = w_weight + ow0;
    if (!plan.channels_last) {
      const DA<A> d;
      const hn::Rebind<int32_t, DA<A>> di;
      const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
      const auto base = hn::Set(di, static_cast<int32_t>(lo));
      const bool counted = !plan.w_count.empty();
      for (int64_t o = 0; o < own; o += lanes) {  // the tables are padded past the row: full vectors
        auto sum = hn::Mul(GatherAccum(d, stage, hn::Sub(hn::LoadU(di, index + o), base)), LoadWeights(d, weight + o));
        if (counted) {
          const int32_t* count = plan.w_count.data() + ow0 + o;
          for (int j = 1; j < plan.w_taps; ++j) {
            const auto term = hn::Mul(GatherAccum(d, stage, hn::Sub(hn::LoadU(di, index + j * stride + o), base)),
                                      LoadWeights(d, weight + j * stride + o));
            sum = hn::IfThenElse(TapLive(d, count, j), hn::Add(sum, term), sum);
          }
        } else {
          for (int j = 1; j < plan.w_taps; ++j) {
            sum = hn::Add(sum, hn::Mul(GatherAccum(d, stage, hn::Sub(hn::LoadU(di, index + j * stride + o), base)),
                                       LoadWeights(d, weight + j * stride + o)));
          }
        }
        hn::StoreU(sum, d, acc + o);
      }
      return;
    }
    // Channels-last: each tap is a contiguous run of cn staged channels.
    for (int64_t o = 0; o < own; ++o) {
      const int taps = plan.w_count.empty() ? plan.w_taps : plan.w_count[ow0 + o];
      A* HWY_RESTRICT dst = acc + o * cn;
      ScaleStaged(dst, stage + (index[o] - lo) * cn, static_cast<A>(weight[o]), cn, /*add=*/false);
      for (int j = 1; j < taps; ++j) {
        ScaleStaged(dst, stage + (index[j * stride + o] - lo) * cn, static_cast<A>(weight[j * stride + o]), cn,
                    /*add=*/true);
      }
    }
  }

  // dst = src * w (add: dst + src * w) over cn staged values.
  static HWY_INLINE void ScaleStaged(A* HWY_RESTRICT dst, const S* HWY_RESTRICT src, A w, int64_t count, bool add) {
    const DA<A> d;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    const auto vw = hn::Set(d, w);
    int64_t i = 0;
    for (; i + lanes <= count; i += lanes) {
      hn::Vec<DA<A>> value;
      if constexpr (std::is_same<A, S>::value) {
        value = hn::LoadU(d, src + i);
      } else {
        value = hn::PromoteTo(d, hn::LoadU(hn::Rebind<float, DA<A>>(), src + i));
      }
      const auto term = hn::Mul(value, vw);
      hn::StoreU(add ? hn::Add(hn::LoadU(d, dst + i), term) : term, d, dst + i);
    }
    for (; i < count; ++i) {
      const A term = static_cast<A>(src[i]) * w;
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
    if (plan.staged) {
      StageRow(src);
      WPassStaged(row);
    } else {
      WPassInPlace(src, row);
    }
    row_tags[slot] = key;
    return row;
  }

  // acc = the H pass of output row oh over W-passed rows of input depth id.
  void HPass(int64_t id, int64_t oh, A* HWY_RESTRICT acc) {
    const InterpAxisMap& axis_h = plan.axes[1];
    const int taps = axis_h.Count(oh);
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

  // Stores out_row to output row (od, oh).
  OA_KERNEL_HELPER void StoreRow(int64_t od, int64_t oh, const A* HWY_RESTRICT row) const {
    const auto& s = plan.out_strides;
    T* dst = output + n * s[0] + c0 * s[1] + od * s[2] + oh * s[3] + ow0 * s[4];
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

  void Run() {
    if (plan.levels == 1) {
      StoreRow(0, 0, Row(0, 0));
      return;
    }
    if (plan.levels == 2) {
      for (int64_t r = 0; r < ohn; ++r) {
        HPass(0, oh0 + r, out_row);
        StoreRow(0, oh0 + r, out_row);
      }
      return;
    }
    const InterpAxisMap& axis_d = plan.axes[0];
    for (int64_t od = 0; od < plan.out_size[0]; ++od) {
      const int taps = axis_d.Count(od);
      const int32_t* index = axis_d.IndexRow(od);
      const double* weight = axis_d.WeightRow(od);
      for (int64_t r = 0; r < ohn; ++r) {
        // Each tap's block is fetched per row: a later tap may evict an earlier one (more
        // taps than ring slots), which is then recomputed, the same values.
        ScaleRow(out_row, Block(index[0]) + r * slot_elems, static_cast<A>(weight[0]), row_elems);
        for (int j = 1; j < taps; ++j) {
          AddScaledRow(out_row, Block(index[j]) + r * slot_elems, static_cast<A>(weight[j]), row_elems);
        }
        StoreRow(od, oh0 + r, out_row);
      }
    }
  }
};

template <class T>
HWY_NOINLINE void InterpForwardTaskT(const UpsampleInterpPlan& plan, int64_t task) {
  alignas(64) unsigned char scratch[kInterpScratchBytes];
  ForwardTask<T> work(plan, scratch, task);
  work.Run();
}

}  // namespace interp
}  // namespace HWY_NAMESPACE
}  // namespace oa
HWY_AFTER_NAMESPACE();

#endif  // include guard
