// hostile_support.cpp: whether the backend the suite was asked for can run on this machine.
#include "tests/hostile/hostile_support.h"

#include <cctype>

namespace cc::hostile {

std::string backend_unavailable() {
  if (backend() == "cpu") return "";
  const CommandResult list = convcompare({"--list", "--backend", backend()});
  if (list.status != 0) return "convcompare --list failed: " + list.err;
  // A device line reads "  opencl:0:0  name"; without one the backend line says why ("  opencl: no device: ...").
  const std::string device_prefix = "\n  " + backend() + ":";
  for (std::size_t at = list.out.find(device_prefix); at != std::string::npos; at = list.out.find(device_prefix, at + 1))
    if (std::isdigit(static_cast<unsigned char>(list.out[at + device_prefix.size()]))) return "";
  return backend() + " has no device on this machine";
}

}  // namespace cc::hostile
