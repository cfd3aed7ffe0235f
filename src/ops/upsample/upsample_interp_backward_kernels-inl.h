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

// dst[0, count) += w * src[0, count) in float64, src of T at unit stride.
template <class T>
HWY_INLINE void AddWeighted(double* HWY_RESTRICT dst, const T* HWY_RESTRICT src, double w, int64_t count) {
  const DA<double> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto vw = hn::Set(d, w);
  int64_t i = 0;
  for (; i + lanes <= count; i += lanes) {
    hn::Vec<DA<double>> value;
    if constexpr (std::is_same<T, double>::value) {
      value = hn::LoadU(d, src + i);
    } else {
      value = LoadWide(d, src + i);
    }
    hn::StoreU(hn::Add(hn::LoadU(d, dst + i), hn::Mul(vw, value)), d, dst + i);
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

  // acc[pixels p0 .. p1) = sum over the row's (od, oh) contributions of wd * wh * gradOut.
  OA_KERNEL_HELPER void AccumulatePiece(int64_t id, int64_t ih, int64_t p0, int64_t p1) {
    const int64_t pixels = p1 - p0;
    std::fill_n(acc, pixels * cn, 0.0);
    const auto& s = plan.grad_out_strides;
    const InterpAxisInverse& inverse_d = plan.inverse[0];
    const InterpAxisInverse& inverse_h = plan.inverse[1];
    const T* base = grad_out + n * s[0] + c0 * s[1] + p0 * s[4];
    for (int64_t kd = inverse_d.Begin(id); kd < inverse_d.End(id); ++kd) {
      for (int64_t kh = inverse_h.Begin(ih); kh < inverse_h.End(ih); ++kh) {
        const double w = inverse_d.Weight(kd) * inverse_h.Weight(kh);
        const T* row = base + inverse_d.Output(kd) * s[2] + inverse_h.Output(kh) * s[3];
        if (!plan.channels_last) {
          if (s[4] == 1 || pixels == 1) {
            AddWeighted(acc, row, w, pixels);
          } else {
            for (int64_t p = 0; p < pixels; ++p) acc[p] = acc[p] + w * static_cast<double>(ToStaged(row[p * s[4]]));
          }
        } else if (s[1] == 1 && s[4] == cn) {
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

  // Each gradInput element of the chunk adds its W contributions that lie in [p0, p1).
  OA_KERNEL_HELPER void AddWContributions(int64_t p0, int64_t p1) {
    const InterpAxisInverse& inverse_w = plan.inverse[2];
    const DA<double> d;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
    for (int64_t i = 0; i < iwn; ++i) {
      const int64_t end = inverse_w.End(iw0 + i);
      int64_t k = cursor[i];
      double* dst = sums + i * cn;
      for (; k < end && inverse_w.Output(k) < p1; ++k) {
        const double w = inverse_w.Weight(k);
        const double* src = acc + (inverse_w.Output(k) - p0) * cn;
        if (cn == 1) {
          dst[0] = dst[0] + w * src[0];
          continue;
        }
        const auto vw = hn::Set(d, w);
        int64_t c = 0;
        for (; c + lanes <= cn; c += lanes) {
          hn::StoreU(hn::Add(hn::LoadU(d, dst + c), hn::Mul(vw, hn::LoadU(d, src + c))), d, dst + c);
        }
        for (; c < cn; ++c) dst[c] = dst[c] + w * src[c];
      }
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

  void Run() {
    const InterpAxisInverse& inverse_w = plan.inverse[2];
    for (int64_t r = row0; r < row0 + rows; ++r) {
      const int64_t id = r / plan.in_size[1], ih = r % plan.in_size[1];
      if (plan.copy) {
        CopyRow(id, ih);
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
