// The exit statuses of the command, which the server's run returns too (docs/CLI.md, "Exit
// statuses"). A file that cannot be read wins over an invalid one.
#pragma once

namespace inputanim::records {

inline constexpr int exit_valid = 0;
inline constexpr int exit_invalid = 1;
inline constexpr int exit_usage = 2;
inline constexpr int exit_unreadable = 3;

}  // namespace inputanim::records
