// The exit statuses of the command (docs/CLI.md, "Exit statuses"); `serve` and `view` map their
// server's end to them (exit_status_of). A file that cannot be read wins over an invalid one.
#pragma once

namespace inputanim::cli {

inline constexpr int exit_valid = 0;
inline constexpr int exit_invalid = 1;
inline constexpr int exit_usage = 2;
inline constexpr int exit_unreadable = 3;

}  // namespace inputanim::cli
