// The mixture-of-experts feed-forward block shared by the MoE architectures
// (qwen3moe, ...), as llama.cpp's build_moe_ffn computes it:
//   logits = h Wrouter^T (+ router bias)       (n_expert)
//   p = softmax(logits)                        (the gating; kSoftmaxWeight: p = logits)
//   chosen = the n_used largest p, largest first (ties: the lower expert)
//   w = p[chosen] (kSoftmaxWeight: softmax of them), divided by their sum
//       when normalised (sum clamped >= 2^-14)
//   out = sum over slots s in that order of w_s * (down_e(act(gate_e h + bg_e, up_e h + bu_e)) + bd_e)
// with act silu(gate) * up, or gpt-oss's clamped swiglu_oai, and the expert
// biases b*_e only where the architecture has them (gpt-oss).
// The experts are the 3-D GGUF tensors ffn_{gate,up,down}_exps, each expert
// one 2-D slice viewed in place.
//
// A pass reads each expert once: the rows routed to an expert are gathered
// and run through its matrices together, so a prompt of n rows reads at most
// n_expert experts, not n x n_used. A matmul row's result does not depend on
// which rows it is computed with (matmul.h), and every row sums its slots in
// its own fixed order, so a row's output is the same bits whatever else is in
// the pass and whatever the thread count (docs/DESIGN.md contract 2).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "base/status.h"
#include "base/thread_pool.h"
#include "formats/gguf/reader.h"
#include "kernels/kernel_set.h"
#include "kernels/matmul.h"
#include "model/hparams.h"
#include "model/tensor_binder.h"

namespace trit::model {

// How the router's logits become the chosen experts' weights.
enum class MoeGating {
  kSoftmax,        // softmax over all experts, then the top n_used (qwen3moe)
  kSoftmaxWeight,  // the top n_used logits, then a softmax over them (gpt-oss)
};

// The experts' gated activation (kernels/activation.h).
enum class MoeActivation {
  kSilu,       // silu(gate) * up
  kSwiGluOai,  // gpt-oss's clamped form (SwiGluOai)
};

struct MoeOptions {
  MoeGating gating = MoeGating::kSoftmax;
  bool normalize_weights = false;  // the chosen weights divided by their sum
  MoeActivation activation = MoeActivation::kSilu;
  bool biases = false;  // ffn_gate_inp.bias and ffn_{gate,up,down}_exps.bias (gpt-oss)
};

struct MoeWeights {
  kernels::Matrix router;             // ffn_gate_inp: (n_embd) -> (n_expert)
  std::vector<kernels::Matrix> gate;  // (n_expert) each (n_embd) -> (n_ff_exp)
  std::vector<kernels::Matrix> up;    // (n_expert) each (n_embd) -> (n_ff_exp)
  std::vector<kernels::Matrix> down;  // (n_expert) each (n_ff_exp) -> (n_embd)
  // Optional biases (MoeOptions::biases), f32, row e for expert e.
  const float* router_bias = nullptr;  // (n_expert)
  const float* gate_bias = nullptr;    // (n_expert, n_ff_exp)
  const float* up_bias = nullptr;      // (n_expert, n_ff_exp)
  const float* down_bias = nullptr;    // (n_expert, n_embd)
};

// Reads {arch}.expert_count, expert_used_count and expert_feed_forward_length
// (default feed_forward_length / expert_used_count, as llama.cpp) into h.
// Errors name the key; an architecture with experts requires the first two.
Status ReadMoeHParams(const gguf::File& file, HParams& h);

// Binds blk.<il>.ffn_gate_inp and ffn_{gate,up,down}_exps (and their biases
// when options.biases).
MoeWeights BindMoeWeights(TensorBinder& b, const HParams& h, int64_t il, const MoeOptions& options);

// Every expert matrix of w, for the row-group repacking (repack_weights.h).
void AppendExpertMatrices(MoeWeights& w, std::vector<kernels::Matrix*>& out);

// Bytes of w's expert matrices.
uint64_t ExpertBytes(const MoeWeights& w);

// Whether the experts (expert_bytes in all) are copied into the row-group
// layout at load: only when the copy fits the memory available
// (`available_bytes`, /proc/meminfo's MemAvailable) with 1 GiB to spare.
// Otherwise they stay in the file's mapping, read in row layout (slower,
// the same results: matmul.h), so a model larger than memory still loads
// and its experts page in from disk as tokens choose them. Unknown
// available memory: copied (as every other matrix).
bool RepackExperts(uint64_t expert_bytes, std::optional<uint64_t> available_bytes);

// Buffers of one forward pass, kept across its layers (see
// DecoderModel::Scratch): sized for the pass's row count at first use.
struct MoeScratch {
  std::vector<float> logits;     // (n, n_expert)
  std::vector<int32_t> chosen;   // (n, n_used) the expert of each slot
  std::vector<float> weights;    // (n, n_used)
  std::vector<int32_t> offsets;  // (n_expert + 1) the slots of each expert in `order`
  std::vector<int32_t> order;    // (n * n_used) slot indices (row * n_used + slot) grouped by expert
  std::vector<int32_t> next;     // (n_expert) the counting sort's fill positions
  std::vector<float> xs;         // (rows of one expert, n_embd) its gathered inputs
  std::vector<float> gate, up;   // (rows, n_ff_exp)
  std::vector<float> down;       // (rows, n_embd)
  std::vector<float> slots;      // (n, n_used, n_embd) each slot's weighted output
};

// out (n, n_embd) := the block over h (n, n_embd); out may be h.
void MoeFeedForward(const kernels::Ops& ops, const MoeWeights& w, const HParams& hp, const MoeOptions& options,
                    const float* h, int64_t n, ThreadPool& pool, MoeScratch& s, float* out);

// The chosen experts (n_used, largest weight first) and their weights for one
// row of router logits (n_expert); exposed for tests.
void RouteRow(const float* logits, int64_t n_expert, int64_t n_used, const MoeOptions& options, int32_t* chosen,
              float* weights);

}  // namespace trit::model
