#include "options.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <type_traits>

#include "exit_status.hpp"
#include "http/http_server.hpp"
#include "index/index_pool.hpp"
#include "os/ceilings.hpp"
#include "os/text.hpp"

namespace inputanim::cli {

using tools::max_threads;
using tools::number_text;
using tools::printable;

namespace {

// An enumeration's names as the library's name function gives them, in the enumeration's
// order: each value's name up to the first that does not parse back to that value.
template <typename Enum, typename Name, typename Parse>
std::vector<std::string> names_of(Name name, Parse parse) {
    std::vector<std::string> names;
    for (unsigned v = 0; v <= std::numeric_limits<std::underlying_type_t<Enum>>::max(); ++v) {
        const std::string_view n = name(static_cast<Enum>(v));
        if (parse(n) != std::optional<Enum>(static_cast<Enum>(v))) break;
        names.emplace_back(n);
    }
    return names;
}

// FLAG NAME: one of the library's names for an Enum, handed to `store` parsed.
template <typename Enum, typename Name, typename Parse, typename Store>
CLI::Option* add_named_option(CLI::App& cmd, const std::string& flag, Name name, Parse parse,
                              Store store, const std::string& description) {
    return cmd
        .add_option_function<std::string>(
            flag, [parse, store](const std::string& text) { store(*parse(text)); }, description)
        ->check(CLI::IsMember(names_of<Enum>(name, parse)));
}

// --max-bytes, --max-keyframes-per-curve, ...: a limit's name as a flag.
std::string flag_of(const limit_field& field) {
    std::string flag = "--" + std::string(limit_name(field.kind));
    std::replace(flag.begin(), flag.end(), '_', '-');
    return flag;
}

const std::string old_spellings_group = "Old spellings (each prints a note; docs/CLI.md)";
// An old spelling's description is this and what it is now, which alias_note reads back.
const std::string old_spelling_of = "Old spelling of ";

// Makes `old`, declared to parse and store as `canonical` does, an old spelling of it; `now` is
// what the note says it is now ("--until", "--format json"). The check runs as a validator,
// after the whole command line is read, so that `canonical` given after `old` counts too.
CLI::Option* old_spelling(CLI::Option* old, const CLI::Option* canonical, const std::string& now) {
    const std::string name = old->get_name();
    return old->description(old_spelling_of + now)
        ->group(old_spellings_group)
        ->each([name, canonical](const std::string&) {
            // Both would set one value, and which wins would hang on their order.
            if (canonical->count() > 0) {
                throw CLI::ExcludesError(name + " is the old spelling of " + canonical->get_name() +
                                             ": give one of them",
                                         CLI::ExitCodes::ExcludesError);
            }
        });
}

// `declare(flag)` for the canonical flag and, when `old` names one, again for its old spelling,
// which so takes and checks its values the same way.
template <typename Declare>
CLI::Option* declare_with_old(const std::string& flag, const std::string& old, Declare declare) {
    CLI::Option* option = declare(flag);
    if (!old.empty()) old_spelling(declare(old), option, flag);
    return option;
}

}  // namespace

CLI::Option* add_level_option(CLI::App& cmd, level& value, const std::string& description) {
    return add_named_option<level>(
               cmd, "--level", level_name, parse_level_name, [&value](level l) { value = l; },
               description)
        ->default_str(std::string(level_name(value)));
}

CLI::Option* add_layout_choice_option(CLI::App& cmd, layout_choice& value) {
    return add_named_option<layout_choice>(
               cmd, "--layout", layout_choice_name, parse_layout_choice_name,
               [&value](layout_choice l) { value = l; },
               "auto: detect; compact (8-byte, MRTK) or full (28-byte) v1.1 float keyframes; "
               "2019-06 or 2019-05: a headerless 2019 pre-release file")
        ->type_name("NAME")
        ->default_str(std::string(layout_choice_name(value)));
}

CLI::Option* add_layout_option(CLI::App& cmd, std::optional<layout>& value,
                               const std::string& description) {
    return add_named_option<layout>(
        cmd, "--layout", layout_name, parse_layout_name, [&value](layout l) { value = l; },
        description);
}

CLI::Option* add_layout_option(CLI::App& cmd, layout& value, const std::string& description) {
    return add_named_option<layout>(
               cmd, "--layout", layout_name, parse_layout_name, [&value](layout l) { value = l; },
               description)
        ->default_str(std::string(layout_name(value)));
}

CLI::Option* add_event_kind_option(CLI::App& cmd, std::optional<event_kind>& value) {
    return add_named_option<event_kind>(
        cmd, "--events", event_kind_name, parse_event_kind_name,
        [&value](event_kind kind) { value = kind; },
        "Instead of the metrics, a table of one kind of event per file");
}

CLI::Option* add_recording_argument(CLI::App& cmd, const std::string& name, std::string& value) {
    return cmd
        .add_option(name, value,
                    "The recording (.bin, or gzip-compressed: .bin.gz; ARCHIVE/MEMBER for a member "
                    "of a tar or zip; - for standard input)")
        ->required();
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

void add_tolerance_options(CLI::App& cmd, compare_tolerances& tolerance,
                           const std::string& prefix) {
    cmd.add_option("--position", tolerance.position,
                   prefix + "Position tolerance, metres (default: MRTK's thinning tolerance)")
        ->transform(number_between(0.0, 1e30))
        ->capture_default_str()
        ->type_name("M");
    cmd.add_option("--angle", tolerance.angle,
                   prefix + "Rotation and gaze direction tolerance, degrees")
        ->transform(number_between(0.0, 180.0))
        ->capture_default_str()
        ->type_name("DEG");
    cmd.add_option(
           "--time", tolerance.time,
           prefix + "Tolerance on tracked and pinch interval ends and marker times, seconds")
        ->transform(number_between(0.0, 1e30))
        ->capture_default_str()
        ->type_name("S");
}

CLI::Option* add_max_rows_option(CLI::App& cmd, std::uint64_t& max_rows,
                                 const std::string& description) {
    return cmd.add_option("--max-rows", max_rows, description)
        ->transform(count_up_to(unlimited_rows))
        ->type_name("N")
        ->capture_default_str();
}

void add_check_options(CLI::App& cmd, check_options& options, bool json_is_old) {
    cmd.add_option("FILE", options.files,
                   "Recordings to read (.bin, or gzip-compressed: .bin.gz; a tar or zip for every "
                   "recording "
                   "in it, ARCHIVE/MEMBER for one; - for standard input)")
        ->required();
    const CLI::Option* format =
        add_format_option(cmd, options.format, {"text", "json"},
                          "text: a line per file; json: one JSON object per file and line (JSON "
                          "Lines)");
    if (json_is_old) {
        add_format_flag(cmd, format, options.format, "--json", "json");
    } else {
        cmd.add_flag_callback(
            "--json", [&options] { options.format = "json"; }, "The same as --format json");
    }
    add_level_option(cmd, options.how.level,
                     "structure: headers and counts only; full: also every keyframe and marker");
    add_layout_choice_option(cmd, options.how.layout);
    cmd.add_option("--jobs", options.how.threads,
                   "Threads that check a large file's keyframes at level full (default: one per "
                   "core)")
        ->transform(count_between(1, max_threads));
}

void add_archive_options(CLI::App& cmd, archive_limits& archives) {
    const std::string group = "Archive budgets (passing one stops the archive's walk there)";
    const auto add = [&](const char* flag, std::uint64_t& value, std::uint64_t min,
                         const char* description) {
        cmd.add_option(flag, value, description)
            ->transform(count_between(min, std::numeric_limits<std::uint64_t>::max()))
            ->type_name("N")
            ->group(group)
            ->capture_default_str();
    };
    add("--max-members", archives.max_members, 0, "Most entries an archive may hold");
    add("--max-archive-bytes", archives.max_inflated_bytes, 0,
        "Most bytes an archive's members may inflate to (or be read through), all together");
    add("--max-ratio", archives.max_ratio, 1,
        "Most times its compressed size a member (a compressed tar: the stream so far) may "
        "inflate to");
}

void add_limit_options(CLI::App& cmd, inputanim::limits& limits, archive_limits* archives) {
    const std::string group = "Limits (a file passing one is invalid: limit_exceeded)";
    for (const limit_field& field : limit_fields) {
        cmd.add_option_function<std::uint64_t>(
               flag_of(field), [&limits, &field](std::uint64_t value) { field.set(limits, value); },
               std::string(field.description))
            ->transform(count_up_to(field.largest))
            ->type_name("N")
            ->group(group);
    }
    auto upload = std::make_shared<bool>(false);
    cmd.add_flag("--upload-limits", *upload,
                 "Apply the limits docs/SECURITY.md recommends for uploads (each --max-* flag "
                 "given still wins)")
        ->group(group);
    if (archives != nullptr) add_archive_options(cmd, *archives);
    // After parsing, so that the order of the flags on the command line does not matter.
    cmd.parse_complete_callback([&cmd, &limits, archives, upload] {
        if (!*upload) return;
        const inputanim::limits recommended = upload_limits();
        for (const limit_field& field : limit_fields) {
            if (cmd.count(flag_of(field)) == 0) field.set(limits, field.get(recommended));
        }
        if (archives == nullptr) return;
        const archive_limits budgets = upload_archive_limits();
        if (cmd.count("--max-members") == 0) archives->max_members = budgets.max_members;
        if (cmd.count("--max-archive-bytes") == 0) {
            archives->max_inflated_bytes = budgets.max_inflated_bytes;
        }
        if (cmd.count("--max-ratio") == 0) archives->max_ratio = budgets.max_ratio;
    });
}

void strict_flags(CLI::App& app) {
    const CLI::Validator word(
        [](std::string& text) -> std::string {
            static constexpr std::array<std::string_view, 14> words = {
                "true",    "false", "yes", "no", "on", "off", "enable",
                "disable", "t",     "f",   "y",  "n",  "1",   "0"};
            std::string lower = text;
            std::transform(lower.begin(), lower.end(), lower.begin(),
                           [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
            if (std::find(words.begin(), words.end(), lower) != words.end()) return {};
            return "'" + printable(text) + "' is not true or false";
        },
        "");
    // --help and --version end the parse wherever they stand; they are left as CLI11 has them.
    const auto checked = [&app](CLI::Option* o) {
        return o->get_expected_max() == 0 && o != app.get_help_ptr() && o != app.get_version_ptr();
    };
    for (CLI::Option* flag : app.get_options(checked)) {
        flag->multi_option_policy(CLI::MultiOptionPolicy::Throw)->check(word);
    }
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) strict_flags(*sub);
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

CLI::Option* add_rate_option(CLI::App& cmd, double& rate, const std::string& description,
                             std::optional<double> max) {
    // One validator: CLI11 runs a later transform first, and a rate's first check (a positive
    // finite number) must say the same words in every command.
    const CLI::Validator positive = positive_number();
    return cmd.add_option("--rate", rate, description)
        ->transform(CLI::Validator(
            [positive, max](std::string& text) -> std::string {
                if (std::string why = positive(text); !why.empty()) return why;
                // Not std::stod, which throws out_of_range for a subnormal rate (5e-324).
                if (max && read_number(text).value_or(0) > *max) {
                    return text + " is above the largest accepted value " + number_text(*max);
                }
                return {};
            },
            ""))
        ->type_name("R");
}

CLI::Option* add_version_option(CLI::App& cmd, std::string& value, const std::string& description,
                                const std::string& old) {
    return declare_with_old("--version", old, [&](const std::string& flag) {
        return cmd.add_option(flag, value, description)
            ->check(CLI::IsMember({"1.0", "1.1"}))
            ->capture_default_str();
    });
}

void add_window_options(CLI::App& cmd, time_window& window, const std::string& old_until,
                        const std::string& from_description, const std::string& until_description) {
    cmd.add_option("--from", window.from, from_description)->type_name("T");
    declare_with_old("--until", old_until, [&](const std::string& flag) {
        return cmd.add_option(flag, window.until, until_description)->type_name("T");
    });
}

CLI::Option* add_format_option(CLI::App& cmd, std::string& value,
                               const std::vector<std::string>& names,
                               const std::string& description, const std::string& old) {
    return declare_with_old("--format", old, [&](const std::string& flag) {
        CLI::Option* option =
            cmd.add_option(flag, value, description)->check(CLI::IsMember(names))->type_name("F");
        if (!value.empty()) option->capture_default_str();
        return option;
    });
}

CLI::Option* add_format_flag(CLI::App& cmd, const CLI::Option* format, std::string& value,
                             const std::string& flag, const std::string& name) {
    return old_spelling(cmd.add_flag_callback(flag, [&value, name] { value = name; }), format,
                        "--format " + name);
}

void alias_note(const CLI::App& cmd) {
    std::string said;
    std::size_t count = 0;
    for (const CLI::Option* old : cmd.get_options([](const CLI::Option* o) {
             return o->get_group() == old_spellings_group && o->count() > 0;
         })) {
        said += (count++ == 0 ? "" : ", ") + old->get_name() + " is now " +
                old->get_description().substr(old_spelling_of.size());
    }
    if (count == 0) return;
    std::cerr << "inputanim " << cmd.get_name() << ": note: " << said
              << (count == 1 ? " (the old spelling still works)\n"
                             : " (the old spellings still work)\n");
}

std::string spelled(const CLI::App& cmd, const std::string& canonical, const std::string& old) {
    return cmd.count(canonical) > 0 ? canonical : old;
}

std::string parse_shard(const std::string& text, shard_choice& choice) {
    const auto digits = [](std::string_view t) {
        return !t.empty() && t.find_first_not_of("0123456789") == std::string_view::npos;
    };
    const auto number = [](std::string_view t, unsigned& v) {
        const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
        return ec == std::errc() && end == t.data() + t.size();
    };
    const std::string max_n = std::to_string(tools::max_shards);
    const auto refusal = [&](const std::string& why) {
        return "K/N with 0 <= K < N and 1 <= N <= " + max_n + ", not " + text + ": " + why;
    };
    const std::size_t slash = text.find('/');
    if (slash == std::string::npos || !digits(std::string_view(text).substr(0, slash)) ||
        !digits(std::string_view(text).substr(slash + 1))) {
        return refusal("two whole numbers with a / between them");
    }
    unsigned k = 0;
    unsigned n = 0;
    if (!number(std::string_view(text).substr(slash + 1), n) || n == 0) {
        return refusal("N is out of range (1 to " + max_n + ")");
    }
    if (!number(std::string_view(text).substr(0, slash), k) || k >= n) {
        return refusal("K is out of range (0 to " + std::to_string(n - 1) + ")");
    }
    choice = {k, n};
    return {};
}

bool names_any_curve(std::string_view glob) {
    for (std::size_t i = 0; i < curve_id_count; ++i) {
        if (path_matches(glob, curve_path(curve_id(i)))) return true;
    }
    return false;
}

int usage_error(std::string_view command, const std::string& message) {
    std::cerr << "inputanim " << command << ": " << message << '\n';
    return exit_usage;
}

int exit_status_of(http::server_end end) {
    switch (end) {
        case http::server_end::stopped:
            return exit_valid;
        case http::server_end::bad_config:
            return exit_usage;
        case http::server_end::refused:
            break;
    }
    return exit_unreadable;
}

int invalid_file(const std::string& file, const std::string& message) {
    std::cerr << "inputanim: " << tools::printable(file) << ": " << message << '\n';
    return exit_invalid;
}

}  // namespace inputanim::cli
