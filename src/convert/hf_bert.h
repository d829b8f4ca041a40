// BERT (transformers' BertModel, e.g. sentence-transformers/all-MiniLM-L6-v2)
// as llama.cpp's convert_hf_to_gguf.py writes it: GGUF architecture "bert".
// Facts from llama.cpp: gguf-py's tensor_mapping.py (the "# bert" rows),
// constants.py (MODEL_TENSORS[BERT], the key names, PoolingType) and the
// converter's BertModel class (the "bert." prefix, .gamma/.beta, the tensors
// it drops: embeddings.position_ids, pooler.dense.*, cls.predictions.*,
// cls.seq_relationship.*). docs/CONVERT.md has the table.
#pragma once

#include "convert/hf_architecture.h"

namespace trit::convert {

const HfArchitecture& BertArchitecture();

}  // namespace trit::convert
