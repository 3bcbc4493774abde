// measurement.cpp: the names of run statuses.
#include "common/domain/measurement.h"

namespace cc {

std::string_view to_string(Status status) {
  switch (status) {
    case Status::Ok: return "ok";
    case Status::Failed: return "failed";
    case Status::Skipped: return "skipped";
  }
  return "unknown";
}

}  // namespace cc
