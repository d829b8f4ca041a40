// Where the model store lives: $TRIT_HOME, else $HOME/.trit. Models and
// their manifests are in <home>/models/ (docs/MODELS.md).
#pragma once

#include <string>

#include "base/status.h"

namespace trit::store {

// The trit home directory ($TRIT_HOME, else $HOME/.trit). Not created here.
// An error when neither variable is set (or set empty).
Expected<std::string> ModelsHome();

// <home>/models: where model files and manifests are.
Expected<std::string> ModelsDir();

// <home>/locks: the device locks (system/device_lock.h, docs/DEVICE_LOCK.md).
Expected<std::string> LocksDir();

}  // namespace trit::store
