// scoped_env.h: an environment variable set for one scope (a test case and the commands it spawns), the old value restored after.
#pragma once

#include <stdlib.h>

#include <optional>
#include <string>

namespace cc::test {

struct ScopedEnv {
  std::string name;
  std::optional<std::string> old;
  ScopedEnv(std::string variable, const std::string& value) : name(std::move(variable)) {
    if (const char* previous = getenv(name.c_str())) old = previous;
    setenv(name.c_str(), value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old)
      setenv(name.c_str(), old->c_str(), 1);
    else
      unsetenv(name.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
};

}  // namespace cc::test
