#include "perf/bench_stats.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "base/check.h"

namespace trit::perf {

namespace {
constexpr const char* kTokenEmbedding = "token_embd.weight";
constexpr const char* kOutput = "output.weight";
// Gemma 4's per-layer embeddings: a lookup of the token's row, never an LM head.
constexpr const char* kPerLayerEmbedding = "per_layer_token_embd.weight";

// blk.N.ffn_{gate,up,down,gate_up}_exps.weight: one slice per expert along ne2.
bool IsExpertStack(const gguf::TensorInfo& t) {
  return t.shape.size() == 3 && t.name.find("_exps.") != std::string::npos;
}
}  // namespace

double Median(std::span<const double> values) {
  if (values.empty()) return 0.0;
  std::vector<double> v(values.begin(), values.end());
  std::sort(v.begin(), v.end());
  const size_t mid = v.size() / 2;
  return v.size() % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2.0;
}

MeanSd ComputeMeanSd(std::span<const double> values) {
  TRIT_CHECK(!values.empty());
  double sum = 0.0;
  for (double v : values) sum += v;
  MeanSd r;
  r.mean = sum / static_cast<double>(values.size());
  if (values.size() > 1) {
    double sq = 0.0;
    for (double v : values) sq += (v - r.mean) * (v - r.mean);
    r.sd = std::sqrt(sq / static_cast<double>(values.size() - 1));
  }
  return r;
}

uint64_t WeightBytesPerToken(std::span<const gguf::TensorInfo> tensors, int64_t n_expert_used) {
  bool has_output = false;
  for (const gguf::TensorInfo& t : tensors) has_output = has_output || t.name == kOutput;
  uint64_t total = 0;
  for (const gguf::TensorInfo& t : tensors) {
    const bool lookup = (t.name == kTokenEmbedding && has_output) || t.name == kPerLayerEmbedding;
    if (lookup && t.shape.size() >= 2) {
      // One row: the row length's bytes (n_bytes over the number of rows).
      const int64_t row_len = t.shape[0];
      const uint64_t rows = row_len > 0 ? static_cast<uint64_t>(t.n_elements / row_len) : 0;
      total += rows > 0 ? t.n_bytes / rows : 0;
    } else if (IsExpertStack(t) && n_expert_used > 0 && n_expert_used < t.shape[2]) {
      total += t.n_bytes / static_cast<uint64_t>(t.shape[2]) * static_cast<uint64_t>(n_expert_used);
    } else {
      total += t.n_bytes;
    }
  }
  return total;
}

std::string PredominantWeightType(std::span<const gguf::TensorInfo> tensors) {
  std::map<std::string, int64_t> elements;
  for (const gguf::TensorInfo& t : tensors) {
    if (t.shape.size() >= 2 && t.type != nullptr) elements[std::string(t.type->name)] += t.n_elements;
  }
  std::string best;
  int64_t most = -1;
  for (const auto& [name, n] : elements) {
    if (n > most) {
      most = n;
      best = name;
    }
  }
  return best;
}

double RooflineFraction(double decode_tokens_per_second, uint64_t bytes_per_token, double bandwidth_bytes_per_second) {
  if (decode_tokens_per_second <= 0.0 || bytes_per_token == 0 || bandwidth_bytes_per_second <= 0.0) return 0.0;
  return decode_tokens_per_second * static_cast<double>(bytes_per_token) / bandwidth_bytes_per_second;
}

BandwidthSummary SummarizeBandwidth(std::span<const double> tg_tokens_per_second, std::span<const double> before,
                                    std::span<const double> after, uint64_t bytes_per_token) {
  BandwidthSummary s;
  s.probes.assign(before.begin(), before.end());
  s.probes.insert(s.probes.end(), after.begin(), after.end());
  if (!s.probes.empty()) {
    s.min = *std::min_element(s.probes.begin(), s.probes.end());
    s.max = *std::max_element(s.probes.begin(), s.probes.end());
  }
  s.median = Median(s.probes);
  std::vector<double> fractions;
  const size_t n = std::min({tg_tokens_per_second.size(), before.size(), after.size()});
  for (size_t i = 0; i < n; ++i) {
    fractions.push_back(RooflineFraction(tg_tokens_per_second[i], bytes_per_token, (before[i] + after[i]) / 2.0));
  }
  s.roofline_fraction = Median(fractions);
  return s;
}

}  // namespace trit::perf
