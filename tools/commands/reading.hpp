// How a command reads the files it is given: through the front door (inputanim::input), checked
// under the command's options, with one diagnostic line per file that cannot be read or is
// invalid.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "inputanim/inputanim.hpp"
#include "options.hpp"

namespace inputanim::cli {

// Prints the result for one file that could be read (human output; JSON is printed by
// check_files itself).
using report_printer = std::function<void(const std::string& path, const file_check& check)>;

// Validates every file in order (validate_file; `-` is standard input). A file that cannot be
// read is a diagnostic
// on stderr; the others are printed on stdout as JSON Lines with --json, else by `print`. Returns
// the exit status.
int check_files(const check_options& options, const report_printer& print);

// A recording held whole for random access (dump, sample): its input (which owns a mapping) and
// the bytes read or inflated into memory when it is gzip or a stream.
struct whole_recording {
    input in;
    std::vector<std::byte> storage;
    std::span<const std::byte> bytes;
};
// Opens `name` through the front door and reads the recording whole (read_whole) under `how`'s
// layout and limits. On failure prints the diagnostic and returns the exit status: unreadable,
// or invalid when its structure fails on the way.
std::optional<int> read_recording(const std::string& name, const validate_options& how,
                                  whole_recording& out);

// Opens `bytes` (read by read_recording) as `rec` for a command that evaluates it (sample,
// metrics): the structure walked and, when `full`, the content validated, so that keys out of order
// or values that are not finite are not taken for motion. On failure prints why, naming what
// `--level structure` would do instead (`anyway`: "samples it anyway"), and returns the exit
// status: unreadable (a read fault of the mapping) or invalid.
std::optional<int> open_evaluable(const std::string& name, std::span<const std::byte> bytes,
                                  const validate_options& how, bool full, std::string_view anyway,
                                  recording& rec);

// An error for a line of human-readable output: its code's name, then error::message():
// "unsorted_keys at byte 120, curve camera.position.x keyframe 2: key time is not ...".
std::string error_line(const error& e);
// "negative_time, curve camera.position.x: first key time is negative (-0.500000)"
std::string warning_text(const warning& w);

}  // namespace inputanim::cli
