// The arithmetic of `trit bench`, apart from timing: mean and standard
// deviation of repeated measurements, the weight bytes one decode step reads,
// and decode speed as a fraction of the memory-read roofline.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "formats/gguf/reader.h"

namespace trit::perf {

struct MeanSd {
  double mean = 0.0;
  double sd = 0.0;  // sample standard deviation (divides by n - 1); 0 for one value
};

// Of `values` (at least one; checked).
MeanSd ComputeMeanSd(std::span<const double> values);

// The middle value (the mean of the two middle ones for an even count);
// 0 for none.
double Median(std::span<const double> values);

// Bytes of weights a decode step (one token) reads: every tensor once, except
// the token embedding, of which only the token's row is read, unless the
// model has no separate output matrix ("output.weight"): then the embedding
// is also the LM head (tied) and the logits matmul reads all of it; and of
// Gemma 4's per-layer embedding (per_layer_token_embd) one row too; and of
// a mixture of experts' 3-D expert tensors (blk.N.ffn_*_exps, n_expert
// slices) the n_expert_used slices a token is routed to.
uint64_t WeightBytesPerToken(std::span<const gguf::TensorInfo> tensors, int64_t n_expert_used = 0);

// The type holding most elements among matrices (tensors of 2+ dims): what
// a "q4_0 model" means when norms are f32 and one matrix may differ.
// Empty when there is no matrix.
std::string PredominantWeightType(std::span<const gguf::TensorInfo> tensors);

// Decode tokens/s over the roofline's tokens/s (bandwidth / bytes per token).
// 0 when any input is not positive.
double RooflineFraction(double decode_tokens_per_second, uint64_t bytes_per_token, double bandwidth_bytes_per_second);

// The bandwidth probed around each repetition's generation, summarised.
struct BandwidthSummary {
  std::vector<double> probes;      // bytes/s: every "before", then every "after"
  double min = 0.0;                // of probes; 0 when there are none
  double max = 0.0;
  double median = 0.0;
  double roofline_fraction = 0.0;  // median over repetitions of RooflineFraction(tg, bytes, mean of its two probes)
};

// tg_tokens_per_second, before and after: one value per repetition
// (repetitions without both probes are left out of the fraction).
BandwidthSummary SummarizeBandwidth(std::span<const double> tg_tokens_per_second, std::span<const double> before,
                                    std::span<const double> after, uint64_t bytes_per_token);

}  // namespace trit::perf
