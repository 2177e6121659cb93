// The JSON of a comparison (docs/DIFF.md, "JSON"), for `inputanim diff --format json` and for any
// other front end that reports one.
#pragma once

#include <nlohmann/json.hpp>

#include "inputanim/compare.hpp"

namespace inputanim::tools {

// {"same", "a", "b" (summary_json of each side), "tolerance", "grid", "structure", "motion",
// "tracking_mismatch_rows", "state", "markers", "keys"}: every field documented in docs/DIFF.md.
// Times are the float32 times of the grid rows (json_number); errors that are not finite are null.
nlohmann::json compare_json(const comparison& c);

}  // namespace inputanim::tools
