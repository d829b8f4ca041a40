// `trit pull`: fetch a model into the store, check it, and record it.
//
// The steps, each of which leaves the previous state intact when it fails:
// take the name's lock (waiting for another pull of the same name), fetch
// into <name>.gguf.partial (resuming a URL's partial), verify the sha256
// when one was given (it is recorded always), check that the file parses as
// GGUF, rename it into place, then write the manifest.
#pragma once

#include <optional>
#include <string>

#include "base/status.h"
#include "store/download.h"
#include "store/manifest.h"
#include "store/model_store.h"
#include "store/pull_event.h"

namespace trit::store {

struct PullOptions {
  std::optional<std::string> name;    // default: NameFromSource()
  std::optional<std::string> sha256;  // expected digest, 64 hex digits (any case)
  DownloadOptions download;
};

struct PullResult {
  Manifest manifest;
  std::string path;             // the model file
  bool already_present = false;  // nothing was fetched
};

// Pulls `source` (URL, hf.co path, or local file; see source.h) into `store`.
// Usage errors (bad name, bad sha256, unknown source) are kInvalidArgument
// or kNotFound; the rest name the step that failed.
Expected<PullResult> Pull(const ModelStore& store, const std::string& source, const PullOptions& options,
                          const PullObserver& observer);

// The sha256 of a file, as 64 lower-case hex digits.
Expected<std::string> FileSha256(const std::string& path);

}  // namespace trit::store
