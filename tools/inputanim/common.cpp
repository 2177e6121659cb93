#include "common.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <iostream>
#include <limits>
#include <memory>
#include <system_error>
#include <thread>

#include "report_json.hpp"

namespace inputanim::cli {

namespace {

// A plain decimal count up to `max`. CLI11 itself would read "010" as octal 8 and "-1" as the
// largest unsigned value, so the text is checked here and handed on in canonical form.
CLI::Validator count_up_to(std::uint64_t max) {
    return CLI::Validator(
        [max](std::string& text) -> std::string {
            std::uint64_t value = 0;
            const char* end = text.data() + text.size();
            const auto [ptr, ec] = std::from_chars(text.data(), end, value);
            if (ec == std::errc::invalid_argument || ptr != end) {
                return "'" + text + "' is not a non-negative decimal integer";
            }
            if (ec == std::errc::result_out_of_range || value > max) {
                return text + " is above the largest accepted value " + std::to_string(max);
            }
            text = std::to_string(value);
            return {};
        },
        "");
}

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

void add_check_options(CLI::App& cmd, check_options& options) {
    cmd.add_option("FILE", options.files,
                   "Recordings to read (.bin, or gzip-compressed: .bin.gz; - for standard input)")
        ->required();
    cmd.add_flag("--json", options.json, "Print one JSON object per file and line (JSON Lines)");
    cmd.add_option("--level", options.level,
                   "structure: headers and counts only; full: also every keyframe and marker")
        ->check(CLI::IsMember({"structure", "full"}))
        ->capture_default_str();
    cmd.add_option("--layout", options.layout,
                   "v1.1 float keyframes: compact (8 bytes, MRTK), full (28 bytes) or auto-detect")
        ->check(CLI::IsMember({"auto", "compact", "full"}))
        ->capture_default_str();
    cmd.add_option("--jobs", options.jobs,
                   "Threads that check a large file's keyframes at level full (default: one per "
                   "core)")
        ->check(CLI::Range(1u, 1024u));
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
            std::cerr << "inputanim: " << path << ": " << c.io.message() << '\n';
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
        std::cerr << "inputanim: " << name << ": " << ec.message() << '\n';
        return exit_unreadable;
    }
    const whole_input whole = read_whole(out.in, how, out.storage);
    if (whole.io) {
        std::cerr << "inputanim: " << name << ": " << whole.io.message() << '\n';
        return exit_unreadable;
    }
    if (whole.invalid) {
        std::cerr << "inputanim: " << name << ": invalid: " << error_text(whole.invalid) << '\n';
        return exit_invalid;
    }
    out.bytes = whole.bytes;
    return std::nullopt;
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

std::string float_text(float v) {
    std::array<char, 32> text{};
    const auto result = std::to_chars(text.data(), text.data() + text.size(), v);
    return std::string(text.data(), result.ptr);
}

}  // namespace inputanim::cli
