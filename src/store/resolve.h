// Turns the MODEL argument of a command (trit run, show, verify, serve) into
// the path of a GGUF file (or of a pack directory):
//   - an existing file or directory, or anything with a '/' or ending in
//     ".gguf" that is not a URL: the path as given (opening it reports what
//     is wrong);
//   - an http(s):// URL or hf.co/ORG/REPO/FILE.gguf: pulled into the store
//     first (or found there, already pulled), with progress on stderr;
//   - a bare name: the model of that name in the store.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "store/pull_event.h"

namespace trit::store {

// `observer` sees the pull of a URL; a default one prints progress on
// stderr (a bar on a terminal, plain lines otherwise).
Expected<std::string> ResolveModelArgument(std::string_view arg);
Expected<std::string> ResolveModelArgument(std::string_view arg, const PullObserver& observer);

// True when `arg` would be taken as a model rather than text: an existing
// file, a pack (a directory holding plan.json), a URL or Hub path, or the
// name of a model in the store. For
// commands (trit run) whose first argument is a model or a prompt.
bool LooksLikeModelArgument(std::string_view arg);

}  // namespace trit::store
