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

// What for_each_recording hands over: a recording's name (ARCHIVE/MEMBER for a member of an
// archive) and its input. For a member, also the archive's reader (on that member), the member,
// the archive's name, the member's verdict (validate_member's) and, when it was read through
// whole, its bytes; `in` is then the member itself only when the archive holds its bytes as they
// are (a part of the mapping), else not open (read_named reads it).
struct named_recording {
    const std::string& name;
    input& in;
    archive_reader* reader = nullptr;
    const archive_member* member = nullptr;
    std::string_view archive;
    const file_check* check = nullptr;
    std::span<const std::byte> held;
};

// Calls `each` for every recording `names` stand for, in order: a file as it is (`-` is standard
// input), or, when the file's content is an archive (archive.hpp), each member of it that is a
// recording (found_recording, as `index` sorts the files of a folder, and any whose reading the
// archive's damage stopped), named ARCHIVE/MEMBER. The other members are counted on one line of
// stderr ("inputanim: ARCHIVE: not read: ..."), never read as recordings nor followed. A name
// that cannot be opened is said on stderr; an archive's damage or budget that ended its walk too,
// as "inputanim: ARCHIVE: invalid: CODE ..." (or, with `json`, as a line of its own); an archive
// is walked under `budgets`. Returns the
// worst status of those: unreadable, else invalid, else valid.
int for_each_recording(const std::vector<std::string>& names, bool json,
                       const validate_options& how, const archive_limits& budgets,
                       const std::function<void(const named_recording&)>& each);

// Loads `name` through the front door (loaded_recording::load: read_whole under `how`'s layout
// and limits). On failure prints the diagnostic and returns the exit status: unreadable, or
// invalid when its structure fails on the way.
std::optional<int> read_recording(const std::string& name, const validate_options& how,
                                  loaded_recording& out);

// The recording `r` whole, as read_recording loads it: a file or a member in place, a member read
// through from the bytes held, or one streamed when it was checked read through again from the
// archive's start.
std::optional<int> read_named(const named_recording& r, const validate_options& how,
                              loaded_recording& out);
// The same loaded into `out` without a diagnostic: its read_whole result, for a command that
// plays what comes before damage (view).
const whole_input& read_whole_named(const named_recording& r, const validate_options& how,
                                    loaded_recording& out);

// Walks the structure of `loaded` (read by read_recording) for a command that evaluates it
// (sample, metrics) and, when `full`, validates the content, so that keys out of order or values
// that are not finite are not taken for motion. On failure prints why, naming what `--level
// structure` would do instead (`anyway`: "samples it anyway"), and returns the exit status:
// unreadable (a read fault of the mapping) or invalid.
std::optional<int> open_evaluable(const std::string& name, loaded_recording& loaded,
                                  const validate_options& how, bool full, std::string_view anyway);

// An error for a line of human-readable output: its code's name, then error::message():
// "unsorted_keys at byte 120, curve camera.position.x keyframe 2: key time is not ...".
std::string error_line(const error& e);
// "negative_time, curve camera.position.x: first key time is negative (-0.500000)"
std::string warning_text(const warning& w);

}  // namespace inputanim::cli
