#include "common.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <memory>
#include <system_error>
#include <thread>

#include "records/report_json.hpp"

namespace inputanim::cli {

using records::json_line;
using records::report_json;

namespace {

// --level and --layout accept only the library's names (CLI::IsMember), so the fallbacks are the
// defaults and never taken.
level level_named(const std::string& name) {
    return parse_level_name(name).value_or(level::full);
}

layout_choice layout_named(const std::string& name) {
    return parse_layout_choice_name(name).value_or(layout_choice::automatic);
}

}  // namespace

validate_options check_options::to_validate_options() const {
    validate_options how{level_named(level), layout_named(layout), limits};
    how.threads = jobs;
    return how;
}

CLI::Validator count_between(std::uint64_t min, std::uint64_t max) {
    return CLI::Validator(
        [min, max](std::string& text) -> std::string {
            std::uint64_t value = 0;
            const char* end = text.data() + text.size();
            const auto [ptr, ec] = std::from_chars(text.data(), end, value);
            if (ec == std::errc::invalid_argument || ptr != end) {
                return "'" + printable(text) + "' is not a non-negative decimal integer";
            }
            if (ec == std::errc::result_out_of_range || value > max) {
                return text + " is above the largest accepted value " + std::to_string(max);
            }
            if (value < min) {
                return text + " is below the smallest accepted value " + std::to_string(min);
            }
            text = std::to_string(value);
            return {};
        },
        "");
}

CLI::Option* add_max_bytes_option(CLI::App& cmd, std::uint64_t& max_bytes) {
    return cmd
        .add_option("--max-bytes", max_bytes,
                    "Largest recording accepted, in bytes; a gzip file or standard input is read "
                    "into memory up to this")
        ->transform(count_between(1, std::numeric_limits<std::uint64_t>::max()))
        ->type_name("N")
        ->capture_default_str();
}

CLI::Option* add_layout_option(CLI::App& cmd, std::string& layout) {
    return cmd
        .add_option("--layout", layout,
                    "auto: detect; compact (8-byte, MRTK) or full (28-byte) v1.1 float keyframes; "
                    "2019-06 or 2019-05: a headerless 2019 pre-release file")
        ->check(CLI::IsMember({"auto", "compact", "full", "2019-06", "2019-05"}))
        ->type_name("NAME")
        ->capture_default_str();
}

CLI::Validator count_up_to(std::uint64_t max) {
    return count_between(0, max);
}

namespace {

// strtod (the program keeps the C locale) reads what a user may type, 1e9 or 0x10, and saturates
// to infinity past the double range. Empty when `text` is not a number.
std::optional<double> read_number(const std::string& text) {
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || std::isnan(value)) return std::nullopt;
    return value;
}

}  // namespace

CLI::Validator number_between(double min, double max) {
    return CLI::Validator(
        [min, max](std::string& text) -> std::string {
            const std::optional<double> value = read_number(text);
            if (!value) return "'" + printable(text) + "' is not a decimal number";
            if (*value > max) {
                return printable(text) + " is above the largest accepted value " + number_text(max);
            }
            if (*value < min) {
                return printable(text) + " is below the smallest accepted value " +
                       number_text(min);
            }
            text = number_text(*value);
            return {};
        },
        "");
}

CLI::Validator positive_number() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            const std::optional<double> value = read_number(text);
            if (!value || !std::isfinite(*value) || !(*value > 0)) {
                return "'" + printable(text) + "' is not a positive finite number";
            }
            text = number_text(*value);
            return {};
        },
        "");
}

void add_check_options(CLI::App& cmd, check_options& options) {
    cmd.add_option("FILE", options.files,
                   "Recordings to read (.bin, or gzip-compressed: .bin.gz; - for standard input)")
        ->required();
    cmd.add_flag("--json", options.json, "Print one JSON object per file and line (JSON Lines)");
    cmd.add_option("--level", options.level,
                   "structure: headers and counts only; full: also every keyframe and marker")
        ->check(CLI::IsMember({"structure", "full"}))
        ->capture_default_str();
    add_layout_option(cmd, options.layout);
    cmd.add_option("--jobs", options.jobs,
                   "Threads that check a large file's keyframes at level full (default: one per "
                   "core)")
        ->transform(count_between(1, max_threads));
}

void add_limit_options(CLI::App& cmd, inputanim::limits& limits) {
    constexpr std::uint64_t u32_max = std::numeric_limits<std::uint32_t>::max();
    constexpr std::uint64_t u64_max = std::numeric_limits<std::uint64_t>::max();
    const auto add = [&](const char* name, auto& value, std::uint64_t max, const char* what) {
        cmd.add_option(name, value, what)
            ->transform(count_up_to(max))
            ->type_name("N")
            ->group("Limits (a file passing one is invalid: limit_exceeded)");
    };
    add("--max-bytes", limits.max_bytes, u64_max, "Largest accepted file size in bytes");
    add("--max-keyframes-per-curve", limits.max_keyframes_per_curve, u32_max,
        "Most keyframes accepted in one curve");
    add("--max-total-keyframes", limits.max_total_keyframes, u64_max,
        "Most keyframes accepted in the whole file");
    add("--max-markers", limits.max_markers, u32_max, "Most markers accepted");
    add("--max-marker-name-bytes", limits.max_marker_name_bytes, u32_max,
        "Longest accepted marker name in bytes");
    auto upload = std::make_shared<bool>(false);
    cmd.add_flag("--upload-limits", *upload,
                 "Apply the limits docs/SECURITY.md recommends for uploads (each --max-* flag "
                 "given still wins)")
        ->group("Limits (a file passing one is invalid: limit_exceeded)");
    // After parsing, so that the order of the flags on the command line does not matter.
    cmd.parse_complete_callback([&cmd, &limits, upload] {
        if (!*upload) return;
        const inputanim::limits recommended = upload_limits();
        const auto unless_given = [&](const char* name, auto& value, auto preset_value) {
            if (cmd.count(name) == 0) value = preset_value;
        };
        unless_given("--max-bytes", limits.max_bytes, recommended.max_bytes);
        unless_given("--max-keyframes-per-curve", limits.max_keyframes_per_curve,
                     recommended.max_keyframes_per_curve);
        unless_given("--max-total-keyframes", limits.max_total_keyframes,
                     recommended.max_total_keyframes);
        unless_given("--max-markers", limits.max_markers, recommended.max_markers);
        unless_given("--max-marker-name-bytes", limits.max_marker_name_bytes,
                     recommended.max_marker_name_bytes);
    });
}

int check_files(const check_options& options, const report_printer& print) {
    const validate_options how = options.to_validate_options();
    int status = exit_valid;
    for (const std::string& path : options.files) {
        const file_check c = validate_file(path, how);
        if (c.io) {
            // Keeps the diagnostic after the results before it when both go to one terminal.
            std::cout.flush();
            std::cerr << "inputanim: " << printable(path) << ": " << c.io.message() << '\n';
            status = exit_unreadable;
            continue;
        }
        if (options.json) {
            std::cout << json_line(path, report_json(c.rep, how, c.bytes, c.compressed_bytes))
                      << '\n';
        } else {
            print(path, c);
        }
        if (!c.rep.valid() && status == exit_valid) status = exit_invalid;
    }
    return status;
}

std::optional<int> read_recording(const std::string& name, const validate_options& how,
                                  whole_recording& out) {
    std::error_code ec;
    out.in = input::open(name, ec);
    if (ec) {
        std::cerr << "inputanim: " << printable(name) << ": " << ec.message() << '\n';
        return exit_unreadable;
    }
    const whole_input whole = read_whole(out.in, how, out.storage);
    if (whole.io) {
        std::cerr << "inputanim: " << printable(name) << ": " << whole.io.message() << '\n';
        return exit_unreadable;
    }
    if (whole.invalid) {
        std::cerr << "inputanim: " << printable(name) << ": invalid: " << error_text(whole.invalid)
                  << '\n';
        return exit_invalid;
    }
    out.bytes = whole.bytes;
    return std::nullopt;
}

std::optional<int> open_evaluable(const std::string& name, std::span<const std::byte> bytes,
                                  const validate_options& how, bool full, std::string_view anyway,
                                  recording& rec) {
    error structural;
    report checked;
    // Reads of a mapping that another process truncates are an I/O error, not a SIGBUS.
    if (const std::error_code io = guarded(bytes, [&] {
            structural = rec.open(bytes, {how.layout, how.limits});
            if (!structural && full) checked = validate(bytes, how);
        })) {
        std::cerr << "inputanim: " << printable(name) << ": " << io.message() << '\n';
        return exit_unreadable;
    }
    const error& e = structural ? structural : checked.error;
    if (!e) return std::nullopt;
    std::cerr << "inputanim: " << printable(name) << ": invalid: " << error_text(e);
    if (!structural) std::cerr << " (--level structure " << anyway << ")";
    std::cerr << '\n';
    return exit_invalid;
}

std::string csv_field(std::string_view text) {
    if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
    std::string quoted = "\"";
    for (const char c : text) {
        if (c == '"') quoted += '"';
        quoted += c;
    }
    return quoted + '"';
}

std::string error_text(const error& e) {
    std::string text(error_name(e.code));
    text += " at byte " + std::to_string(e.offset);
    if (e.place == error_place::curve) {
        text += ", curve ";
        text += e.path();
        if (e.index >= 0) text += ", keyframe " + std::to_string(e.index);
    } else if (e.place == error_place::markers && e.index >= 0) {
        text += ", marker " + std::to_string(e.index);
    } else if (e.place == error_place::markers) {
        text += ", marker list";
    }
    text += ": ";
    text += error_description(e.code);
    if (e.code == errc::limit_exceeded) {
        text += " (";
        text += limit_name(e.limit);
        text += ")";
    }
    return text;
}

std::string warning_text(const warning& w) {
    std::string text(warning_name(w.code));
    text += ", curve ";
    text += w.path();
    text += ": ";
    text += w.message();
    return text;
}

bool names_any_curve(std::string_view glob) {
    for (std::size_t i = 0; i < curve_id_count; ++i) {
        if (path_matches(glob, curve_path(curve_id(i)))) return true;
    }
    return false;
}

namespace {

// The first errno of a failed write to stdout: what finish_stdout reports.
int stdout_errno = 0;

void note_stdout_error() {
    if (stdout_errno == 0) stdout_errno = errno != 0 ? errno : EIO;
}

}  // namespace

bool stdout_writer::flush() {
    if (!failed_ && !buffer_.empty()) {
        errno = 0;
        if (std::fwrite(buffer_.data(), 1, buffer_.size(), stdout) != buffer_.size()) {
            note_stdout_error();
            failed_ = true;
        }
    }
    buffer_.clear();
    return !failed_;
}

int finish_stdout(int status) {
    errno = 0;
    std::cout.flush();
    if (!std::cout) note_stdout_error();
    errno = 0;
    if (std::fflush(stdout) != 0) note_stdout_error();
    if (std::ferror(stdout) != 0 && stdout_errno == 0) stdout_errno = EIO;
    if (stdout_errno == 0) {
        const int copy = ::dup(STDOUT_FILENO);
        errno = 0;
        if (copy < 0 || ::close(copy) != 0) note_stdout_error();
    }
    if (stdout_errno == 0) return status;
    std::cerr << "inputanim: stdout: cannot write: " << std::strerror(stdout_errno) << '\n';
    return exit_unreadable;
}

int write_failed(std::string_view name, int error_number) {
    std::cerr << "inputanim: " << printable(name)
              << ": cannot write: " << std::strerror(error_number != 0 ? error_number : EIO)
              << '\n';
    return exit_unreadable;
}

int output_failed(const output_failure& failure) {
    std::cerr << "inputanim: " << failure.message() << '\n';
    return failure.refused ? exit_usage : exit_unreadable;
}

void hold_standard_descriptors() noexcept {
    for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; ++fd) {
        if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
        // open() takes the lowest free descriptor: this one, as the lower ones are open.
        const int opened = ::open("/dev/null", O_RDONLY);
        if (opened >= 0 && opened != fd) ::close(opened);
    }
}

}  // namespace inputanim::cli
