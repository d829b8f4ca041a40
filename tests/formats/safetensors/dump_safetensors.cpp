// Prints what trit's safetensors reader sees, as JSON, for the cross-check
// against the Python `safetensors` package (tests/python/safetensors_crosscheck_test.py):
//
//   dump_safetensors FILE.safetensors   {"metadata": {...}, "tensors": [...]}
//   dump_safetensors CHECKPOINT_DIR     {"files": [...], "tensors": [...]}
//
// Each tensor is {"name", "dtype", "shape", "n_bytes", "sha256"} (of Data()),
// sorted by name. A file or directory the reader refuses: the message on
// stderr, exit status 1.
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "base/sha256.h"
#include "formats/safetensors/safetensors_file.h"
#include "formats/safetensors/safetensors_index.h"

namespace {

using Json = nlohmann::ordered_json;
using namespace trit::safetensors;

Json Describe(const TensorInfo& t, std::span<const uint8_t> data) {
  return Json{{"name", t.name},
              {"dtype", std::string(DtypeName(t.dtype))},
              {"shape", t.shape},
              {"n_bytes", t.n_bytes()},
              {"sha256", trit::Sha256Hex(data)}};
}

int Fail(const trit::Status& status) {
  std::fprintf(stderr, "dump_safetensors: %s\n", status.message().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: dump_safetensors FILE.safetensors|CHECKPOINT_DIR\n");
    return 2;
  }
  const std::string path = argv[1];
  Json out;
  if (std::filesystem::is_directory(path)) {
    trit::Expected<Checkpoint> checkpoint = OpenCheckpoint(path);
    if (!checkpoint.ok()) return Fail(checkpoint.status());
    out["files"] = Json::array();
    for (const File& f : checkpoint->files()) out["files"].push_back(std::filesystem::path(f.path()).filename().string());
    out["tensors"] = Json::array();
    for (const ShardTensor& t : checkpoint->Tensors()) out["tensors"].push_back(Describe(*t.tensor, t.Data()));
  } else {
    trit::Expected<File> file = File::Open(path);
    if (!file.ok()) return Fail(file.status());
    out["metadata"] = file->metadata();
    std::map<std::string, Json> by_name;
    for (const TensorInfo& t : file->tensors()) by_name.emplace(t.name, Describe(t, file->Data(t)));
    out["tensors"] = Json::array();
    for (auto& [name, t] : by_name) out["tensors"].push_back(std::move(t));
  }
  std::printf("%s\n", out.dump(1).c_str());
  return 0;
}
