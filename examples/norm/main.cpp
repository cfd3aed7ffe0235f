/* The normalization family, CANN sample style: six operators on one stream, as a transformer
 * block's pre-norm and a U-Net block's group norm and their gradients use them.
 *   1. aclnnLayerNorm: float32 [2, 4] rows normalized over the last dim with a weight and a
 *      bias; also the per-row mean and rstd ([2, 1]);
 *   2. aclnnLayerNormBackward: the gradients for a gradient dy, from step 1's mean and rstd
 *      (gradInput, gradWeight, gradBias);
 *   3. aclnnRmsNorm: the same rows scaled by 1 / sqrt(mean(x^2) + eps) and gamma;
 *   4. aclnnRmsNormGrad: its gradients from step 3's rstd (dx, dgamma);
 *   5. aclnnGroupNorm: the same 8 values as [N = 1, C = 4, 2] in 2 groups of 2 channels, with
 *      per-channel gamma and beta (the weight and bias above); also mean and rstd ([1, 2]);
 *   6. aclnnGroupNormBackward: its gradients for dy from step 5's statistics;
 *   7. aclnnAddRmsNorm: a residual block's add and norm, s = x + dy (written to xOut) and
 *      RmsNorm(s) with gamma = the weight;
 *   8. aclnnAddLayerNorm: the same add with LayerNorm(s) (weight, bias), mean and rstd;
 *   9. aclnnAddLayerNormGrad: its gradients for dy from step 8's statistics, plus the
 *      residual branch's gradient dsum = dy.
 * Each result is printed and checked against its formula evaluated here in double (to 1e-5);
 * the program exits 1 on any mismatch. Public headers only; every call's status is checked. */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_add_layer_norm.h"
#include "aclnnop/aclnn_add_layer_norm_grad.h"
#include "aclnnop/aclnn_add_rms_norm.h"
#include "aclnnop/aclnn_group_norm.h"
#include "aclnnop/aclnn_group_norm_backward.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnnop/aclnn_rms_norm.h"
#include "aclnnop/aclnn_rms_norm_grad.h"

#define CHECK_RET(cond, ...) \
  do {                       \
    if (!(cond)) {           \
      printf(__VA_ARGS__);   \
      return 1;              \
    }                        \
  } while (0)

/* Device memory holding host data, described as a contiguous tensor. */
template <typename T>
static int CreateTensor(const std::vector<T>& host, const std::vector<int64_t>& shape, aclDataType dtype,
                        aclFormat format, void** device, aclTensor** tensor) {
  const size_t bytes = host.size() * sizeof(T);
  aclError ret = aclrtMalloc(device, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtMalloc failed: %d %s\n", ret, aclGetRecentErrMsg());
  ret = aclrtMemcpy(*device, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtMemcpy failed: %d %s\n", ret, aclGetRecentErrMsg());
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i) strides[i] = shape[i + 1] * strides[i + 1];
  *tensor = aclCreateTensor(shape.data(), shape.size(), dtype, strides.data(), 0, format, shape.data(), shape.size(),
                            *device);
  CHECK_RET(*tensor != nullptr, "aclCreateTensor failed: %s\n", aclGetRecentErrMsg());
  return 0;
}

/* Runs phase 2 with the workspace phase 1 asked for, then waits. */
static int Launch(aclnnStatus (*phase2)(void*, uint64_t, aclOpExecutor*, aclrtStream), uint64_t workspaceSize,
                  aclOpExecutor* executor, aclrtStream stream) {
  void* workspace = nullptr;
  if (workspaceSize > 0) {
    aclError ret = aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, "workspace aclrtMalloc failed: %d\n", ret);
  }
  aclnnStatus status = phase2(workspace, workspaceSize, executor, stream);
  CHECK_RET(status == ACLNN_SUCCESS, "phase 2 failed: %d %s\n", status, aclGetRecentErrMsg());
  aclError ret = aclrtSynchronizeStream(stream);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtSynchronizeStream failed: %d %s\n", ret, aclGetRecentErrMsg());
  if (workspace != nullptr) aclrtFree(workspace);
  return 0;
}

template <typename T>
static int CopyBack(void* device, std::vector<T>* host) {
  const size_t bytes = host->size() * sizeof(T);
  aclError ret = aclrtMemcpy(host->data(), bytes, device, bytes, ACL_MEMCPY_DEVICE_TO_HOST);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtMemcpy back failed: %d %s\n", ret, aclGetRecentErrMsg());
  return 0;
}

static bool Near(float value, double expected) {
  return std::fabs(value - expected) <= 1e-5 * (1 + std::fabs(expected));
}

static int Report(const char* what, const std::vector<float>& got, const std::vector<double>& expected) {
  int mismatches = 0;
  printf("%s:", what);
  for (size_t k = 0; k < got.size(); ++k) {
    printf(" %8.5f", got[k]);
    mismatches += !Near(got[k], expected[k]);
  }
  printf("\n");
  return mismatches;
}

constexpr int kRows = 2, kCols = 4;
constexpr double kEps = 1e-5;

int main(int argc, char** argv) {
  if (argc > 1) {
    printf("usage: %s\nRuns aclnnLayerNorm, aclnnLayerNormBackward, aclnnRmsNorm, aclnnRmsNormGrad, aclnnGroupNorm, "
           "aclnnGroupNormBackward, aclnnAddRmsNorm, aclnnAddLayerNorm and aclnnAddLayerNormGrad on small tensors "
           "and checks their results.\n", argv[0]);
    return 0;
  }
  aclError ret = aclInit(nullptr);
  CHECK_RET(ret == ACL_SUCCESS, "aclInit failed: %d\n", ret);
  ret = aclrtSetDevice(0);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtSetDevice failed: %d\n", ret);
  aclrtStream stream = nullptr;
  ret = aclrtCreateStream(&stream);
  CHECK_RET(ret == ACL_SUCCESS, "aclrtCreateStream failed: %d\n", ret);

  const std::vector<float> x = {1, 2, 3, 4, -1, 0, 1, 6}, w = {1, 2, 1, 2}, b = {0.5f, 0, -0.5f, 0};
  const std::vector<float> dy = {0.5f, -1, 0.25f, 1, 1, 1, -2, 0.5f};
  std::vector<float> y(8), mean(2), rstd(2), dx(8), dw(4), db(4), rms(8), rmsRstd(2), rmsDx(8), rmsDgamma(4);
  std::vector<float> gy(8), gMean(2), gRstd(2), gDx(8), gDgamma(4), gDbeta(4);
  std::vector<float> arY(8), arRstd(2), arX(8), alY(8), alMean(2), alRstd(2), alX(8), alDx(8), alDgamma(4), alDbeta(4);
  std::vector<void*> devices;
  std::vector<aclTensor*> tensors;
  const auto make = [&](std::vector<float>& host, const std::vector<int64_t>& shape) -> aclTensor* {
    void* device = nullptr;
    aclTensor* tensor = nullptr;
    if (CreateTensor(host, shape, ACL_FLOAT, ACL_FORMAT_ND, &device, &tensor) != 0) return nullptr;
    devices.push_back(device);
    tensors.push_back(tensor);
    return tensor;
  };
  std::vector<float> xs = x, ws = w, bs = b, dys = dy;
  aclTensor *tx = make(xs, {kRows, kCols}), *tw = make(ws, {kCols}), *tb = make(bs, {kCols});
  aclTensor *tdy = make(dys, {kRows, kCols}), *ty = make(y, {kRows, kCols});
  aclTensor *tmean = make(mean, {kRows, 1}), *trstd = make(rstd, {kRows, 1});
  aclTensor *tdx = make(dx, {kRows, kCols}), *tdw = make(dw, {kCols}), *tdb = make(db, {kCols});
  aclTensor *trms = make(rms, {kRows, kCols}), *trmsRstd = make(rmsRstd, {kRows, 1});
  aclTensor *trmsDx = make(rmsDx, {kRows, kCols}), *trmsDgamma = make(rmsDgamma, {kCols});
  aclTensor *tgx = make(xs, {1, 4, 2}), *tgdy = make(dys, {1, 4, 2}), *tgy = make(gy, {1, 4, 2});
  aclTensor *tgMean = make(gMean, {1, 2}), *tgRstd = make(gRstd, {1, 2});
  aclTensor *tgDx = make(gDx, {1, 4, 2}), *tgDgamma = make(gDgamma, {4}), *tgDbeta = make(gDbeta, {4});
  aclTensor *tarY = make(arY, {kRows, kCols}), *tarRstd = make(arRstd, {kRows, 1}), *tarX = make(arX, {kRows, kCols});
  aclTensor *talY = make(alY, {kRows, kCols}), *talMean = make(alMean, {kRows, 1}), *talRstd = make(alRstd, {kRows, 1});
  aclTensor *talX = make(alX, {kRows, kCols}), *talDx = make(alDx, {kRows, kCols});
  aclTensor *talDgamma = make(alDgamma, {kCols}), *talDbeta = make(alDbeta, {kCols});
  for (aclTensor* t : tensors) CHECK_RET(t != nullptr, "tensor creation failed\n");
  const int64_t normValues[1] = {kCols};
  aclIntArray* normalizedShape = aclCreateIntArray(normValues, 1);
  const bool maskValues[3] = {true, true, true};
  aclBoolArray* outputMask = aclCreateBoolArray(maskValues, 3);
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;

  /* 1. LayerNorm. */
  aclnnStatus status = aclnnLayerNormGetWorkspaceSize(tx, normalizedShape, tw, tb, kEps, ty, tmean, trstd,
                                                      &workspaceSize, &executor);
  CHECK_RET(status == ACLNN_SUCCESS, "aclnnLayerNormGetWorkspaceSize failed: %d %s\n", status, aclGetRecentErrMsg());
  if (Launch(aclnnLayerNorm, workspaceSize, executor, stream) != 0 || CopyBack(devices[4], &y) ||
      CopyBack(devices[5], &mean) || CopyBack(devices[6], &rstd)) {
    return 1;
  }
  /* 2. LayerNormBackward from step 1's statistics. */
  status = aclnnLayerNormBackwardGetWorkspaceSize(tdy, tx, normalizedShape, tmean, trstd, tw, tb, outputMask, tdx, tdw,
                                                  tdb, &workspaceSize, &executor);
  CHECK_RET(status == ACLNN_SUCCESS, "aclnnLayerNormBackwardGetWorkspaceSize failed: %d %s\n", status,
            aclGetRecentErrMsg());
  if (Launch(aclnnLayerNormBackward, workspaceSize, executor, stream) != 0 || CopyBack(devices[7], &dx) ||
      CopyBack(devices[8], &dw) || CopyBack(devices[9], &db)) {
    return 1;
  }
  /* 3. RmsNorm with the same weight as gamma. */
  status = aclnnRmsNormGetWorkspaceSize(tx, tw, kEps, trms, trmsRstd, &workspaceSize, &executor);
  CHECK_RET(status == ACLNN_SUCCESS, "aclnnRmsNormGetWorkspaceSize failed: %d %s\n", status, aclGetRecentErrMsg());
  if (Launch(aclnnRmsNorm, workspaceSize, executor, stream) != 0 || CopyBack(devices[10], &rms) ||
      CopyBack(devices[11], &rmsRstd)) {
    return 1;
  }
  /* 4. RmsNormGrad from step 3's rstd. */
  status = aclnnRmsNormGradGetWorkspaceSize(tdy, tx, trmsRstd, tw, trmsDx, trmsDgamma, &workspaceSize, &executor);
  CHECK_RET(status == ACLNN_SUCCESS, "aclnnRmsNormGradGetWorkspaceSize failed: %d %s\n", status, aclGetRecentErrMsg());
  if (Launch(aclnnRmsNormGrad, workspaceSize, executor, stream) != 0 || CopyBack(devices[12], &rmsDx) ||
      CopyBack(devices[13], &rmsDgamma)) {
    return 1;
  }

  /* 5. GroupNorm: [1, 4, 2] in 2 groups (channels 0-1: 1, 2, 3, 4; channels 2-3: -1, 0, 1, 6). */
  status = aclnnGroupNormGetWorkspaceSize(tgx, tw, tb, 1, 4, 2, 2, kEps, tgy, tgMean, tgRstd, &workspaceSize,
                                          &executor);
  CHECK_RET(status == ACLNN_SUCCESS, "aclnnGroupNormGetWorkspaceSize failed: %d %s\n", status, aclGetRecentErrMsg());
  if (Launch(aclnnGroupNorm, workspaceSize, executor, stream) != 0 || CopyBack(devices[16], &gy) ||
      CopyBack(devices[17], &gMean) || CopyBack(devices[18], &gRstd)) {
    return 1;
  }
  /* 6. GroupNormBackward from step 5's statistics. */
  status = aclnnGroupNormBackwardGetWorkspaceSize(tgdy, tgx, tgMean, tgRstd, tw, 1, 4, 2, 2, outputMask, tgDx, tgDgamma,
                                                  tgDbeta, &workspaceSize, &executor);
  CHECK_RET(status == ACLNN_SUCCESS, "aclnnGroupNormBackwardGetWorkspaceSize failed: %d %s\n", status,
            aclGetRecentErrMsg());
  if (Launch(aclnnGroupNormBackward, workspaceSize, executor, stream) != 0 || CopyBack(devices[19], &gDx) ||
      CopyBack(devices[20], &gDgamma) || CopyBack(devices[21], &gDbeta)) {
    return 1;
  }

  /* 7. AddRmsNorm: s = x + dy, then RmsNorm(s) with gamma = w. */
  status = aclnnAddRmsNormGetWorkspaceSize(tx, tdy, tw, kEps, tarY, tarRstd, tarX, &workspaceSize, &executor);
  CHECK_RET(status == ACLNN_SUCCESS, "aclnnAddRmsNormGetWorkspaceSize failed: %d %s\n", status, aclGetRecentErrMsg());
  if (Launch(aclnnAddRmsNorm, workspaceSize, executor, stream) != 0 || CopyBack(devices[22], &arY) ||
      CopyBack(devices[23], &arRstd) || CopyBack(devices[24], &arX)) {
    return 1;
  }
  /* 8. AddLayerNorm: the same sum, LayerNorm(s) with weight and bias (no biasOptional). */
  status = aclnnAddLayerNormGetWorkspaceSize(tx, tdy, tw, tb, nullptr, kEps, true, talY, talMean, talRstd, talX,
                                             &workspaceSize, &executor);
  CHECK_RET(status == ACLNN_SUCCESS, "aclnnAddLayerNormGetWorkspaceSize failed: %d %s\n", status,
            aclGetRecentErrMsg());
  if (Launch(aclnnAddLayerNorm, workspaceSize, executor, stream) != 0 || CopyBack(devices[25], &alY) ||
      CopyBack(devices[26], &alMean) || CopyBack(devices[27], &alRstd) || CopyBack(devices[28], &alX)) {
    return 1;
  }
  /* 9. AddLayerNormGrad from step 8's statistics (rstd before mean), dsum = dy. */
  status = aclnnAddLayerNormGradGetWorkspaceSize(tdy, tx, tdy, talRstd, talMean, tw, tdy, talDx, talDgamma, talDbeta,
                                                 &workspaceSize, &executor);
  CHECK_RET(status == ACLNN_SUCCESS, "aclnnAddLayerNormGradGetWorkspaceSize failed: %d %s\n", status,
            aclGetRecentErrMsg());
  if (Launch(aclnnAddLayerNormGrad, workspaceSize, executor, stream) != 0 || CopyBack(devices[29], &alDx) ||
      CopyBack(devices[30], &alDgamma) || CopyBack(devices[31], &alDbeta)) {
    return 1;
  }

  /* The formulas in double. */
  std::vector<double> eY(8), eMean(2), eRstd(2), eDx(8), eDw(4, 0.0), eDb(4, 0.0), eRms(8), eRmsRstd(2), eRmsDx(8),
      eRmsDgamma(4, 0.0);
  for (int r = 0; r < kRows; ++r) {
    const float* xr = &x[r * kCols];
    const float* gr = &dy[r * kCols];
    double sum = 0, squares = 0, meanSquare = 0;
    for (int j = 0; j < kCols; ++j) sum += xr[j];
    const double m = sum / kCols;
    for (int j = 0; j < kCols; ++j) squares += (xr[j] - m) * (xr[j] - m), meanSquare += double(xr[j]) * xr[j];
    const double rs = 1 / std::sqrt(squares / kCols + kEps), rr = 1 / std::sqrt(meanSquare / kCols + kEps);
    eMean[r] = m;
    eRstd[r] = rs;
    eRmsRstd[r] = rr;
    /* Backward: the row means of w*dy and w*dy*xhat (LayerNorm), of w*dy*x (RmsNorm). */
    double a = 0, c = 0, e = 0;
    for (int j = 0; j < kCols; ++j) {
      const double xhat = (xr[j] - m) * rs;
      eY[r * kCols + j] = xhat * w[j] + b[j];
      eRms[r * kCols + j] = xr[j] * rr * w[j];
      a += w[j] * gr[j] / kCols;
      c += w[j] * gr[j] * xhat / kCols;
      e += w[j] * gr[j] * xr[j] / kCols;
      eDw[j] += gr[j] * xhat;
      eDb[j] += gr[j];
      eRmsDgamma[j] += gr[j] * xr[j] * rr;
    }
    for (int j = 0; j < kCols; ++j) {
      const double xhat = (xr[j] - m) * rs;
      eDx[r * kCols + j] = rs * (w[j] * gr[j] - a - xhat * c);
      eRmsDx[r * kCols + j] = rr * (w[j] * gr[j] - xr[j] * rr * rr * e);
    }
  }
  /* GroupNorm: group g holds x's row g (channels 2g, 2g+1; two elements each), so its mean and
   * rstd are LayerNorm's for that row; channel c = j / 2 of the row takes w[c], b[c]. */
  std::vector<double> eGy(8), eGDx(8), eGDgamma(4, 0.0), eGDbeta(4, 0.0);
  for (int g = 0; g < 2; ++g) {
    const double m = eMean[g], rs = eRstd[g];
    double a = 0, cterm = 0;
    for (int j = 0; j < 4; ++j) {
      const int c = 2 * g + j / 2, i = g * 4 + j;
      const double xhat = (x[i] - m) * rs;
      eGy[i] = xhat * w[c] + b[c];
      a += w[c] * dy[i] / 4;
      cterm += w[c] * dy[i] * xhat / 4;
      eGDgamma[c] += dy[i] * xhat;
      eGDbeta[c] += dy[i];
    }
    for (int j = 0; j < 4; ++j) {
      const int c = 2 * g + j / 2, i = g * 4 + j;
      eGDx[i] = rs * (w[c] * dy[i] - a - (x[i] - m) * rs * cterm);
    }
  }
  /* The residual forms: the rows of s = x + dy (exact in float here), LayerNorm's and
   * RmsNorm's formulas on them; the grad's dx adds dsum = dy. */
  std::vector<double> eS(8), eArY(8), eArRstd(2), eAlY(8), eAlMean(2), eAlRstd(2), eAlDx(8), eAlDgamma(4, 0.0),
      eAlDbeta(4, 0.0);
  for (int r = 0; r < kRows; ++r) {
    double sum = 0, squares = 0, meanSquare = 0;
    for (int j = 0; j < kCols; ++j) eS[r * kCols + j] = double(x[r * kCols + j]) + dy[r * kCols + j];
    const double* sr = &eS[r * kCols];
    for (int j = 0; j < kCols; ++j) sum += sr[j];
    const double m = sum / kCols;
    for (int j = 0; j < kCols; ++j) squares += (sr[j] - m) * (sr[j] - m), meanSquare += sr[j] * sr[j];
    const double rs = 1 / std::sqrt(squares / kCols + kEps), rr = 1 / std::sqrt(meanSquare / kCols + kEps);
    eAlMean[r] = m;
    eAlRstd[r] = rs;
    eArRstd[r] = rr;
    double a = 0, c = 0;
    for (int j = 0; j < kCols; ++j) {
      const double xhat = (sr[j] - m) * rs, g = dy[r * kCols + j];
      eArY[r * kCols + j] = sr[j] * rr * w[j];
      eAlY[r * kCols + j] = xhat * w[j] + b[j];
      a += w[j] * g / kCols;
      c += w[j] * g * xhat / kCols;
      eAlDgamma[j] += g * xhat;
      eAlDbeta[j] += g;
    }
    for (int j = 0; j < kCols; ++j) {
      const double xhat = (sr[j] - m) * rs, g = dy[r * kCols + j];
      eAlDx[r * kCols + j] = rs * (w[j] * g - a - xhat * c) + g;
    }
  }
  int mismatches = 0;
  mismatches += Report("aclnnLayerNorm out", y, eY);
  mismatches += Report("aclnnLayerNorm meanOut", mean, eMean);
  mismatches += Report("aclnnLayerNorm rstdOut", rstd, eRstd);
  mismatches += Report("aclnnLayerNormBackward gradInput", dx, eDx);
  mismatches += Report("aclnnLayerNormBackward gradWeight", dw, eDw);
  mismatches += Report("aclnnLayerNormBackward gradBias", db, eDb);
  mismatches += Report("aclnnRmsNorm yOut", rms, eRms);
  mismatches += Report("aclnnRmsNorm rstdOut", rmsRstd, eRmsRstd);
  mismatches += Report("aclnnRmsNormGrad dxOut", rmsDx, eRmsDx);
  mismatches += Report("aclnnRmsNormGrad dgammaOut", rmsDgamma, eRmsDgamma);
  mismatches += Report("aclnnGroupNorm out", gy, eGy);
  mismatches += Report("aclnnGroupNorm meanOut", gMean, eMean);
  mismatches += Report("aclnnGroupNorm rstdOut", gRstd, eRstd);
  mismatches += Report("aclnnGroupNormBackward gradInput", gDx, eGDx);
  mismatches += Report("aclnnGroupNormBackward gradGammaOut", gDgamma, eGDgamma);
  mismatches += Report("aclnnGroupNormBackward gradBetaOut", gDbeta, eGDbeta);
  mismatches += Report("aclnnAddRmsNorm yOut", arY, eArY);
  mismatches += Report("aclnnAddRmsNorm rstdOut", arRstd, eArRstd);
  mismatches += Report("aclnnAddRmsNorm xOut", arX, eS);
  mismatches += Report("aclnnAddLayerNorm yOut", alY, eAlY);
  mismatches += Report("aclnnAddLayerNorm meanOut", alMean, eAlMean);
  mismatches += Report("aclnnAddLayerNorm rstdOut", alRstd, eAlRstd);
  mismatches += Report("aclnnAddLayerNorm xOut", alX, eS);
  mismatches += Report("aclnnAddLayerNormGrad dxOut", alDx, eAlDx);
  mismatches += Report("aclnnAddLayerNormGrad dgammaOut", alDgamma, eAlDgamma);
  mismatches += Report("aclnnAddLayerNormGrad dbetaOut", alDbeta, eAlDbeta);

  aclDestroyIntArray(normalizedShape);
  aclDestroyBoolArray(outputMask);
  for (aclTensor* t : tensors) aclDestroyTensor(t);
  for (void* d : devices) aclrtFree(d);
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  printf("%s\n", mismatches == 0 ? "all results match" : "MISMATCH");
  return mismatches == 0 ? 0 : 1;
}
