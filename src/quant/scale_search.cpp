#include "quant/scale_search.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace trit::quant {

float MakeQxQuants(int n, int nmax, const float* x, int8_t* L, const float* weights) {
  float max = 0;
  float amax = 0;
  for (int i = 0; i < n; ++i) {
    const float ax = std::fabs(x[i]);
    if (ax > amax) {
      amax = ax;
      max = x[i];
    }
  }
  if (amax < kGroupMaxEps) {
    std::memset(L, 0, static_cast<size_t>(n));
    return 0.0f;
  }
  const auto quantize = [&](float iscale, float* sumlx, float* suml2, bool store) {
    *sumlx = 0;
    *suml2 = 0;
    for (int i = 0; i < n; ++i) {
      const int l = std::max(-nmax, std::min(nmax - 1, NearestInt(iscale * x[i])));
      if (store) L[i] = static_cast<int8_t>(l + nmax);
      const float w = weights != nullptr ? weights[i] : x[i] * x[i];
      *sumlx += w * x[i] * static_cast<float>(l);
      *suml2 += w * static_cast<float>(l) * static_cast<float>(l);
    }
  };
  float sumlx;
  float suml2;
  quantize(static_cast<float>(-nmax) / max, &sumlx, &suml2, /*store=*/true);
  float scale = suml2 != 0.0f ? sumlx / suml2 : 0.0f;
  float best = scale * sumlx;
  for (int is = -9; is <= 9; ++is) {
    if (is == 0) continue;
    const float iscale = -(static_cast<float>(nmax) + 0.1f * static_cast<float>(is)) / max;
    quantize(iscale, &sumlx, &suml2, /*store=*/false);
    if (suml2 > 0 && sumlx * sumlx > best * suml2) {
      quantize(iscale, &sumlx, &suml2, /*store=*/true);
      scale = sumlx / suml2;
      best = scale * sumlx;
    }
  }
  return scale;
}

float MakeQkxQuants(int n, int nmax, const float* x, const float* weights, uint8_t* L, float* the_min,
                    uint8_t* Laux, float rmin, float rdelta, int nstep) {
  float min = x[0];
  float max = x[0];
  float sum_w = weights[0];
  float sum_x = sum_w * x[0];
  for (int i = 1; i < n; ++i) {
    if (x[i] < min) min = x[i];
    if (x[i] > max) max = x[i];
    const float w = weights[i];
    sum_w += w;
    sum_x += w * x[i];
  }
  if (min > 0) min = 0;
  if (max == min) {
    std::memset(L, 0, static_cast<size_t>(n));
    *the_min = -min;
    return 0.0f;
  }
  float iscale = static_cast<float>(nmax) / (max - min);
  float scale = 1 / iscale;
  float best_error = 0;
  for (int i = 0; i < n; ++i) {
    const int l = NearestInt(iscale * (x[i] - min));
    L[i] = static_cast<uint8_t>(std::max(0, std::min(nmax, l)));
    const float diff = scale * static_cast<float>(L[i]) + min - x[i];
    best_error += weights[i] * (diff * diff);
  }
  for (int is = 0; is <= nstep; ++is) {
    iscale = (rmin + rdelta * static_cast<float>(is) + static_cast<float>(nmax)) / (max - min);
    float sum_l = 0;
    float sum_l2 = 0;
    float sum_xl = 0;
    for (int i = 0; i < n; ++i) {
      const int l = std::max(0, std::min(nmax, NearestInt(iscale * (x[i] - min))));
      Laux[i] = static_cast<uint8_t>(l);
      const float w = weights[i];
      const float lf = static_cast<float>(l);
      sum_l += w * lf;
      sum_l2 += w * lf * lf;
      sum_xl += w * lf * x[i];
    }
    const float D = sum_w * sum_l2 - sum_l * sum_l;
    if (D > 0) {
      float this_scale = (sum_w * sum_xl - sum_x * sum_l) / D;
      float this_min = (sum_l2 * sum_x - sum_l * sum_xl) / D;
      if (this_min > 0) {
        this_min = 0;
        this_scale = sum_xl / sum_l2;
      }
      float cur_error = 0;
      for (int i = 0; i < n; ++i) {
        const float diff = this_scale * static_cast<float>(Laux[i]) + this_min - x[i];
        cur_error += weights[i] * (diff * diff);
      }
      if (cur_error < best_error) {
        std::memcpy(L, Laux, static_cast<size_t>(n));
        best_error = cur_error;
        scale = this_scale;
        min = this_min;
      }
    }
  }
  *the_min = -min;
  return scale;
}

float MakeQpQuants(int n, int nmax, const float* x, uint8_t* L, const float* weights) {
  float max = 0;
  for (int i = 0; i < n; ++i) max = std::max(max, x[i]);
  if (max < kGroupMaxEps) {
    std::memset(L, 0, static_cast<size_t>(n));
    return 0.0f;
  }
  const float fmax = static_cast<float>(nmax);
  // The weighted squared error of the levels that inverse scale `iscale`
  // picks (clamped to nmax), against its plain inverse 1 / iscale.
  const auto error_of = [&](float iscale) {
    const float scale = 1 / iscale;
    float err = 0;
    for (int i = 0; i < n; ++i) {
      const int l = std::min(nmax, NearestInt(iscale * x[i]));
      const float diff = x[i] - scale * static_cast<float>(l);
      err += weights[i] * diff * diff;
    }
    return err;
  };
  // The first candidate, nmax / max, with its levels as stored bytes (never
  // above nmax for x <= max; a negative x wraps, as in ggml).
  float iscale = fmax / max;
  float best = 0;
  {
    const float scale = 1 / iscale;
    for (int i = 0; i < n; ++i) {
      L[i] = static_cast<uint8_t>(NearestInt(iscale * x[i]));
      const float diff = x[i] - scale * static_cast<float>(L[i]);
      best += weights[i] * diff * diff;
    }
  }
  for (int is = -4; is <= 4; ++is) {
    if (is == 0) continue;
    const float candidate = (0.1f * static_cast<float>(is) + fmax) / max;
    const float err = error_of(candidate);
    if (err < best) {
      best = err;
      iscale = candidate;
    }
  }
  float sumlx = 0;
  float suml2 = 0;
  for (int i = 0; i < n; ++i) {
    const int l = std::min(nmax, NearestInt(iscale * x[i]));
    L[i] = static_cast<uint8_t>(l);
    const float lf = static_cast<float>(l);
    sumlx += weights[i] * x[i] * lf;
    suml2 += weights[i] * lf * lf;
  }
  // Coordinate descent: move one level to its own least-squares value when
  // that raises the fit's gain sumlx^2 / suml2 (compared cross-multiplied).
  for (int pass = 0; pass < 5; ++pass) {
    int changed = 0;
    for (int i = 0; i < n; ++i) {
      const float w = weights[i];
      const float li = static_cast<float>(L[i]);
      float slx = sumlx - w * x[i] * li;
      float sl2 = suml2 - w * li * li;
      if (slx > 0 && sl2 > 0) {
        const int new_l = std::min(nmax, NearestInt(x[i] * sl2 / slx));
        if (new_l != L[i]) {
          const float nl = static_cast<float>(new_l);
          slx += w * x[i] * nl;
          sl2 += w * nl * nl;
          if (slx * slx * suml2 > sumlx * sumlx * sl2) {
            L[i] = static_cast<uint8_t>(new_l);
            sumlx = slx;
            suml2 = sl2;
            ++changed;
          }
        }
      }
    }
    if (changed == 0) break;
  }
  return suml2 > 0.0f ? sumlx / suml2 : 0.0f;
}

}  // namespace trit::quant
