#include "store/models_home.h"

#include <cstdlib>

namespace trit::store {

Expected<std::string> ModelsHome() {
  const char* home = std::getenv("TRIT_HOME");
  if (home != nullptr && home[0] != '\0') return std::string(home);
  const char* user_home = std::getenv("HOME");
  if (user_home != nullptr && user_home[0] != '\0') return std::string(user_home) + "/.trit";
  return Error(ErrorCode::kNotFound, "no models directory: neither TRIT_HOME nor HOME is set");
}

Expected<std::string> ModelsDir() {
  Expected<std::string> home = ModelsHome();
  if (!home.ok()) return home.status();
  return *home + "/models";
}

Expected<std::string> LocksDir() {
  Expected<std::string> home = ModelsHome();
  if (!home.ok()) return Error(ErrorCode::kNotFound, "no lock directory: neither TRIT_HOME nor HOME is set");
  return *home + "/locks";
}

}  // namespace trit::store
