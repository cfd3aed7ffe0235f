// Kernels of the interpolating upsample backwards, per SIMD target (see upsample_interp_plan.h).
// A task owns a block of gradInput rows (d, h) of one W chunk of one (n, c) plane (or,
// channels-last, one (n, channel chunk)). For each row it accumulates, in float64 and from
// +0 as PyTorch's zero-filled gradient does, the gradOut rows (od, oh) that read it, each
// times its D and H weights (od ascending, then oh), over the gradOut pixels the chunk's
// inputs receive, a piece at a time; each gradInput element then adds its W contributions
// from those pieces (ow ascending) and is rounded once. The order is fixed by the plan's
// maps alone, so the bits depend on neither the thread count nor the target.
#if defined(OA_OPS_UPSAMPLE_INTERP_BACKWARD_KERNELS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef OA_OPS_UPSAMPLE_INTERP_BACKWARD_KERNELS_INL_H_
#undef OA_OPS_UPSAMPLE_INTERP_BACKWARD_KERNELS_INL_H_
#else
#define OA_OPS_UPSAMPLE_INTERP_BACKWARD_KERNELS_INL_H_
#endif

#include <hwy/highway.h>

#include <algorithm>
#include <cstdint>

#include "core/kernel_inline.h"
#include "ops/upsample/upsample_interp_common-inl.h"

HWY_BEFORE_NAMESPACE();
namespace oa {
namespace HWY_NAMESPACE {
namespace interp {
namespace hn = hwy::HWY_NAMESPACE;

// Lanes of float64 from elements of T.
template <class T>
HWY_INLINE hn::Vec<DA<double>> LoadWideOf(DA<double> d, const T* HWY_RESTRICT p) {
  if constexpr (std::is_same<T, double>::value) {
    return hn::LoadU(d, p);
  } else {
    return LoadWide(d, p);
  }
}

// dst[0, count) += w * src[0, count) in float64, src of T at unit stride.
template <class T>
HWY_INLINE void AddWeighted(double* HWY_RESTRICT dst, const T* HWY_RESTRICT src, double w, int64_t count) {
  const DA<double> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto vw = hn::Set(d, w);
  int64_t i = 0;
  for (; i + lanes <= count; i += lanes) {
    hn::StoreU(hn::Add(hn::LoadU(d, dst + i), hn::Mul(vw, LoadWideOf(d, src + i))), d, dst + i);
  }
  for (; i < count; ++i) dst[i] = dst[i] + w * static_cast<double>(ToStaged(src[i]));
}

template <class T>
struct BackwardTask {
  const UpsampleInterpBackwardPlan& plan;
  const T* grad_out;
  T* grad_input;
  int64_t n = 0, c0 = 0, cn = 1;
  int64_t iw0 = 0, iwn = 0;       // the W chunk of gradInput
  int64_t row0 = 0, rows = 0;     // gradInput rows (d * H + h) of the task
  int64_t ow_lo = 0, ow_end = 0;  // gradOut pixels the chunk's inputs receive: [ow_lo, ow_end)
  double* acc = nullptr;          // span_w * cn: the weighted gradOut rows of one piece
  double* sums = nullptr;         // chunk_w * cn: the gradInput row being summed
  int64_t* cursor = nullptr;      // chunk_w: each input's next W contribution

  BackwardTask(const UpsampleInterpBackwardPlan& p, unsigned char* scratch, int64_t task)
      : plan(p), grad_out(static_cast<const T*>(p.grad_out)), grad_input(static_cast<T*>(p.grad_input)) {
    const int64_t outer = task / (plan.row_blocks * plan.w_chunks);
    const int64_t block = (task / plan.w_chunks) % plan.row_blocks;
    const int64_t chunk = task % plan.w_chunks;
    if (plan.channels_last) {
      const int64_t chunks = (plan.channels + plan.channel_chunk - 1) / plan.channel_chunk;
      n = outer / chunks;
      c0 = (outer % chunks) * plan.channel_chunk;
      cn = std::min(plan.channel_chunk, plan.channels - c0);
    } else {
      n = outer / plan.channels;
      c0 = outer % plan.channels;
    }
    const int64_t total_rows = plan.in_size[0] * plan.in_size[1];
    row0 = block * plan.rows_per_task;
    rows = std::min(plan.rows_per_task, total_rows - row0);
    iw0 = chunk * plan.chunk_w;
    iwn = std::min(plan.chunk_w, plan.in_size[2] - iw0);
    const InterpAxisInverse& inverse_w = plan.inverse[2];
    ow_lo = plan.out_size[2];
    ow_end = 0;
    for (int64_t iw = iw0; iw < iw0 + iwn; ++iw) {
      if (inverse_w.Begin(iw) == inverse_w.End(iw)) continue;
      ow_lo = std::min<int64_t>(ow_lo, inverse_w.FirstOutput(iw));
      ow_end = std::max<int64_t>(ow_end, inverse_w.LastOutput(iw) + 1);
    }
    acc = reinterpret_cast<double*>(scratch);
    sums = acc + InterpPadded(plan.span_w * plan.channel_chunk);
    cursor = reinterpret_cast<int64_t*>(sums + InterpPadded(plan.chunk_w * plan.channel_chunk));
  }

  // acc[pixels p0 .. p1) = sum over the row's (od, oh) contributions of wd * wh * gradOut,
  // from +0, in (od, oh) order. With unit-stride runs and up to kMaxRows contributions, each
  // vector of acc is summed in a register over all of them (one store); else one pass each.
  static constexpr int kMaxRows = 32;
  OA_KERNEL_HELPER void AccumulatePiece(int64_t id, int64_t ih, int64_t p0, int64_t p1) {
    const int64_t pixels = p1 - p0;
    const auto& s = plan.grad_out_strides;
    const InterpAxisInverse& inverse_d = plan.inverse[0];
    const InterpAxisInverse& inverse_h = plan.inverse[1];
    const T* base = grad_out + n * s[0] + c0 * s[1] + p0 * s[4];
    const T* rows_of[kMaxRows];
    double weights[kMaxRows];
    int count = 0;
    bool fits = true;
    for (int64_t kd = inverse_d.Begin(id); kd < inverse_d.End(id) && fits; ++kd) {
      for (int64_t kh = inverse_h.Begin(ih); kh < inverse_h.End(ih); ++kh) {
        if (count == kMaxRows) {
          fits = false;
          break;
        }
        weights[count] = inverse_d.Weight(kd) * inverse_h.Weight(kh);
        rows_of[count++] = base + inverse_d.Output(kd) * s[2] + inverse_h.Output(kh) * s[3];
      }
    }
    const bool runs = plan.channels_last ? s[1] == 1 && s[4] == cn : s[4] == 1 || pixels == 1;
    if (fits && runs) return SumRows(rows_of, weights, count, pixels * cn);
    std::fill_n(acc, pixels * cn, 0.0);
    for (int64_t kd = inverse_d.Begin(id); kd < inverse_d.End(id); ++kd) {
      for (int64_t kh = inverse_h.Begin(ih); kh < inverse_h.End(ih); ++kh) {
        const double w = inverse_d.Weight(kd) * inverse_h.Weight(kh);
        const T* row = base + inverse_d.Output(kd) * s[2] + inverse_h.Output(kh) * s[3];
        if (!plan.channels_last) {
          if (runs) {
            AddWeighted(acc, row, w, pixels);
          } else {
            for (int64_t p = 0; p < pixels; ++p) acc[p] = acc[p] + w * static_cast<double>(ToStaged(row[p * s[4]]));
          }
        } else if (runs) {
          AddWeighted(acc, row, w, pixels * cn);
        } else {
          for (int64_t p = 0; p < pixels; ++p) {
            const T* pixel = row + p * s[4];
            double* dst = acc + p * cn;
            if (s[1] == 1 || cn == 1) {
              AddWeighted(dst, pixel, w, cn);
            } else {
              for (int64_t c = 0; c < cn; ++c) dst[c] = dst[c] + w * static_cast<double>(ToStaged(pixel[c * s[1]]));
            }
          }
        }
      }
    }
  }

  // acc[0, count) = 0 + w[0] * rows[0][i] + w[1] * rows[1][i] + ... (contiguous rows).
  OA_KERNEL_HELPER void SumRows(const T* const* rows_of, const double* weights, int rows, int64_t count) {
    const DA<double> d;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    int64_t i = 0;
    // Four vectors at a time: four independent add chains (one would wait on each add).
    for (; i + 4 * lanes <= count; i += 4 * lanes) {
      auto s0 = hn::Zero(d), s1 = hn::Zero(d), s2 = hn::Zero(d), s3 = hn::Zero(d);
      for (int r = 0; r < rows; ++r) {
        const auto w = hn::Set(d, weights[r]);
        const T* row = rows_of[r] + i;
        s0 = hn::Add(s0, hn::Mul(w, LoadWideOf(d, row)));
        s1 = hn::Add(s1, hn::Mul(w, LoadWideOf(d, row + lanes)));
        s2 = hn::Add(s2, hn::Mul(w, LoadWideOf(d, row + 2 * lanes)));
        s3 = hn::Add(s3, hn::Mul(w, LoadWideOf(d, row + 3 * lanes)));
      }
      hn::StoreU(s0, d, acc + i);
      hn::StoreU(s1, d, acc + i + lanes);
      hn::StoreU(s2, d, acc + i + 2 * lanes);
      hn::StoreU(s3, d, acc + i + 3 * lanes);
    }
    for (; i + lanes <= count; i += lanes) {
      auto sum = hn::Zero(d);
      for (int r = 0; r < rows; ++r) sum = hn::Add(sum, hn::Mul(hn::Set(d, weights[r]), LoadWideOf(d, rows_of[r] + i)));
      hn::StoreU(sum, d, acc + i);
    }
    for (; i < count; ++i) {
      double sum = 0.0;
      for (int r = 0; r < rows; ++r) sum = sum + weights[r] * static_cast<double>(ToStaged(rows_of[r][i]));
      acc[i] = sum;
    }
  }

  // Each gradInput element of the chunk adds its W contributions that lie in [p0, p1).
  OA_KERNEL_HELPER void AddWContributions(int64_t p0, int64_t p1) {
    const InterpAxisInverse& inverse_w = plan.inverse[2];
    const DA<double> d;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    for (int64_t i = 0; i < iwn; ++i) {
      const int64_t end = inverse_w.End(iw0 + i);
      int64_t k = cursor[i];
      double* dst = sums + i * cn;
      if (cn == 1) {  // one channel: a register sum (through memory, each add would wait on the last store)
        const int32_t* outputs = inverse_w.outputs();
        const double* weights = inverse_w.weights();
        double sum = dst[0];
        for (; k < end && outputs[k] < p1; ++k) sum = sum + weights[k] * acc[outputs[k] - p0];
        dst[0] = sum;
        cursor[i] = k;
        continue;
      }
      int64_t stop = k;  // this input's contributions in [p0, p1): [k, stop)
      while (stop < end && inverse_w.Output(stop) < p1) ++stop;
      if (stop == k) continue;
      int64_t c = 0;
      for (; c + 4 * lanes <= cn; c += 4 * lanes) {  // four vectors: four independent chains
        auto s0 = hn::LoadU(d, dst + c), s1 = hn::LoadU(d, dst + c + lanes);
        auto s2 = hn::LoadU(d, dst + c + 2 * lanes), s3 = hn::LoadU(d, dst + c + 3 * lanes);
        for (int64_t j = k; j < stop; ++j) {
          const auto w = hn::Set(d, inverse_w.Weight(j));
          const double* src = acc + (inverse_w.Output(j) - p0) * cn + c;
          s0 = hn::Add(s0, hn::Mul(w, hn::LoadU(d, src)));
          s1 = hn::Add(s1, hn::Mul(w, hn::LoadU(d, src + lanes)));
          s2 = hn::Add(s2, hn::Mul(w, hn::LoadU(d, src + 2 * lanes)));
          s3 = hn::Add(s3, hn::Mul(w, hn::LoadU(d, src + 3 * lanes)));
        }
        hn::StoreU(s0, d, dst + c);
        hn::StoreU(s1, d, dst + c + lanes);
        hn::StoreU(s2, d, dst + c + 2 * lanes);
        hn::StoreU(s3, d, dst + c + 3 * lanes);
      }
      for (; c + lanes <= cn; c += lanes) {  // each vector summed in a register over the contributions
        auto sum = hn::LoadU(d, dst + c);
        for (int64_t j = k; j < stop; ++j) {
          sum = hn::Add(
              sum, hn::Mul(hn::Set(d, inverse_w.Weight(j)), hn::LoadU(d, acc + (inverse_w.Output(j) - p0) * cn + c)));
        }
        hn::StoreU(sum, d, dst + c);
      }
      for (; c < cn; ++c) {
        double sum = dst[c];
        for (int64_t j = k; j < stop; ++j) sum = sum + inverse_w.Weight(j) * acc[(inverse_w.Output(j) - p0) * cn + c];
        dst[c] = sum;
      }
      k = stop;
      cursor[i] = k;
    }
  }

  OA_KERNEL_HELPER void StoreSums(int64_t id, int64_t ih) const {
    const auto& s = plan.grad_input_strides;
    T* dst = grad_input + n * s[0] + c0 * s[1] + id * s[2] + ih * s[3] + iw0 * s[4];
    if (!plan.channels_last) {
      if (s[4] == 1 || iwn == 1) return StoreContiguous(sums, iwn, dst);
      for (int64_t i = 0; i < iwn; ++i) StoreScalar(sums[i], dst + i * s[4]);
      return;
    }
    if (s[1] == 1 && s[4] == cn) return StoreContiguous(sums, iwn * cn, dst);
    for (int64_t i = 0; i < iwn; ++i) {
      T* pixel = dst + i * s[4];
      if (s[1] == 1 || cn == 1) {
        StoreContiguous(sums + i * cn, cn, pixel);
      } else {
        for (int64_t c = 0; c < cn; ++c) StoreScalar(sums[i * cn + c], pixel + c * s[1]);
      }
    }
  }

  // gradInput = gradOut (same shape: PyTorch's bicubic backward copies).
  void CopyRow(int64_t id, int64_t ih) const {
    const auto& g = plan.grad_out_strides;
    const auto& s = plan.grad_input_strides;
    const T* src = grad_out + n * g[0] + c0 * g[1] + id * g[2] + ih * g[3] + iw0 * g[4];
    T* dst = grad_input + n * s[0] + c0 * s[1] + id * s[2] + ih * s[3] + iw0 * s[4];
    for (int64_t i = 0; i < iwn; ++i) {
      for (int64_t c = 0; c < cn; ++c) dst[i * s[4] + c * s[1]] = src[i * g[4] + c * g[1]];
    }
  }

  // One channel, the chunk's contributions in one piece: gradInput vectors gather their W
  // contributions from acc, contribution k of every lane at once (lanes with fewer masked),
  // each lane from +0 in the scalar path's order.
  OA_KERNEL_HELPER void AddWContributionsVector(int64_t p0) {
    const DA<double> d;
    const hn::Rebind<int32_t, DA<double>> di32;
    const hn::RebindToSigned<DA<double>> di64;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    const auto origin = hn::Set(di32, static_cast<int32_t>(p0));
    // Lanes past the chunk (padding, or the next chunk's inputs) read acc[0 .. span) clamped
    // and add nothing.
    const auto last = hn::Set(di32, static_cast<int32_t>(std::max<int64_t>(0, ow_end - p0 - 1)));
    for (int64_t i = 0; i < iwn; i += lanes) {  // the tables are padded: full vectors
      const int64_t w = iw0 + i;
      const auto inside = hn::FirstN(di64, static_cast<size_t>(iwn - i));
      const auto count = hn::IfThenElseZero(inside, hn::PromoteTo(di64, hn::LoadU(di32, plan.w_count.data() + w)));
      auto sum = hn::Zero(d);
      for (int k = 0; k < plan.w_taps; ++k) {
        const int64_t at = k * plan.w_stride + w;
        const auto relative =
            hn::Min(hn::Max(hn::Sub(hn::LoadU(di32, plan.w_output.data() + at), origin), hn::Zero(di32)), last);
        const auto term =
            hn::Mul(hn::LoadU(d, plan.w_weight.data() + at), hn::GatherIndex(d, acc, hn::PromoteTo(di64, relative)));
        sum = hn::IfThenElse(hn::RebindMask(d, hn::Gt(count, hn::Set(di64, int64_t{k}))), hn::Add(sum, term), sum);
      }
      hn::StoreU(sum, d, sums + i);
    }
  }

  void Run() {
    const InterpAxisInverse& inverse_w = plan.inverse[2];
    const bool vector_w = !plan.channels_last && plan.w_taps > 0 && ow_end - ow_lo <= plan.span_w;
    for (int64_t r = row0; r < row0 + rows; ++r) {
      const int64_t id = r / plan.in_size[1], ih = r % plan.in_size[1];
      if (plan.copy) {
        CopyRow(id, ih);
        continue;
      }
      if (plan.inverse[0].Begin(id) == plan.inverse[0].End(id) || plan.inverse[1].Begin(ih) == plan.inverse[1].End(ih)) {
        // No gradOut row reads this row: +0, as PyTorch's zero-filled gradient, which adds
        // nothing here. The W step would multiply the zeros by the W weights, and a weight
        // that is not finite (a given scale whose reciprocal overflows) would make NaN.
        std::fill_n(sums, iwn * cn, 0.0);
        StoreSums(id, ih);
        continue;
      }
      if (vector_w) {
        if (ow_end > ow_lo) AccumulatePiece(id, ih, ow_lo, ow_end);
        AddWContributionsVector(ow_lo);
        StoreSums(id, ih);
        continue;
      }
      std::fill_n(sums, iwn * cn, 0.0);
      for (int64_t i = 0; i < iwn; ++i) cursor[i] = inverse_w.Begin(iw0 + i);
      for (int64_t p0 = ow_lo; p0 < ow_end; p0 += plan.span_w) {
        const int64_t p1 = std::min(p0 + plan.span_w, ow_end);
        AccumulatePiece(id, ih, p0, p1);
        AddWContributions(p0, p1);
      }
      StoreSums(id, ih);
    }
  }
};

template <class T>
HWY_NOINLINE void InterpBackwardTaskT(const UpsampleInterpBackwardPlan& plan, int64_t task) {
  alignas(64) unsigned char scratch[kInterpScratchBytes];
  BackwardTask<T> work(plan, scratch, task);
  work.Run();
}

}  // namespace interp
}  // namespace HWY_NAMESPACE
}  // namespace oa
HWY_AFTER_NAMESPACE();

#endif  // include guard
