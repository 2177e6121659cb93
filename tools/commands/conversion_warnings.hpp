// What a conversion changed or left out (convert_result), said on stderr as warnings: by
// `convert`, and by `import`, whose model is converted to the version and layout asked for.
#pragma once

#include <string>

#include "inputanim/convert.hpp"

namespace inputanim::cli {

// "inputanim: FILE: warning: MESSAGE" on stderr.
void warn(const std::string& file, const std::string& message);

// A warning for each change of `r` that a reader of the output should know of.
void print_conversion_warnings(const std::string& file, const convert_result& r);

}  // namespace inputanim::cli
