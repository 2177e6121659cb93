// Raw bytes split at NUL bytes into up to 8 command-line arguments (an argument never holds a
// NUL), given to the parsers of the command's option values (tools/commands/options.cpp) and to
// the listen address's (parse_listen): each argument alone as every value parser's text,
// directly and through a CLI11 option as a command declares it (--rate as add_rate_option
// declares it for sample, metrics, export, gen and view), to `index --shard`'s (parse_shard), and
// all of them as a command line of the shared options (the limits, --upload-limits, the archive
// budgets, the names, --max-rows).
//
// Checked: the same text always parses the same way; a count (count_between, count_up_to) is
// taken exactly when it is plain decimal digits within its bounds (never octal, hexadecimal,
// signed or with spaces, whatever CLI11 would make of it) and stored as that number; a number
// (number_between, positive_number, --rate) taken is within its bounds (a positive one finite
// and above 0, a rate at most its ceiling) and stored as the value its text reads as; the
// canonical text a value parser hands on parses again to itself; a refusal says why without
// control characters; a listen address taken is an address and a port up to 65535 that reads
// back from its own text; a shard K/N is taken exactly when it is two runs of decimal digits
// around its first slash with K < N and N from 1 to tools::max_shards, and stored as those
// numbers; a command line of the shared options parses the same in any order,
// sets the limits it names exactly to their numbers, and the others to their defaults or, with
// --upload-limits, to the upload limits.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "commands/options.hpp"
#include "http/framing.hpp"
#include "index/index_pool.hpp"
#include "invariants.hpp"
#include "os/ceilings.hpp"

namespace {

using namespace inputanim;
namespace cli = inputanim::cli;

constexpr std::uint64_t u64_max = std::numeric_limits<std::uint64_t>::max();

// A validator's outcome on one text: its message (empty: taken) and the text it hands on.
struct outcome {
    std::string message;
    std::string text;
    bool operator==(const outcome&) const = default;
};

outcome validate(const CLI::Validator& v, const std::string& text) {
    outcome o{{}, text};
    o.message = v(o.text);
    return o;
}

bool printable_message(std::string_view m) {
    return std::none_of(m.begin(), m.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u < 0x20 || u == 0x7f;
    });
}

// `text` through an option of `value`'s type with `validator` as its transform, as a command
// declares one: the value stored, or none when the parse fails.
template <typename T>
std::optional<T> through_option(const CLI::Validator& validator, const std::string& text) {
    CLI::App app{"fuzz"};
    app.set_help_flag();
    T value{};
    app.add_option("--value", value)->transform(validator);
    try {
        app.parse(std::vector<std::string>{"--value=" + text});
    } catch (const CLI::ParseError&) {
        return std::nullopt;
    }
    return value;
}

// Plain decimal digits, the number they say (none past 2^64 - 1), written out in full.
std::optional<std::uint64_t> plain_count(std::string_view text) {
    if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos) {
        return std::nullopt;
    }
    std::uint64_t value = 0;
    for (const char c : text) {
        const auto d = static_cast<std::uint64_t>(c - '0');
        if (value > (u64_max - d) / 10) return std::nullopt;
        value = value * 10 + d;
    }
    return value;
}

// `through`: a text taken is also given to a CLI11 option (once per text is enough: the bounds
// are the validator's alone; a text refused is refused there by the same validator).
void check_count(std::uint64_t min, std::uint64_t max, const std::string& text, bool through) {
    const CLI::Validator v = cli::count_between(min, max);
    const outcome o = validate(v, text);
    FUZZ_CHECK(validate(v, text) == o);
    const std::optional<std::uint64_t> n = plain_count(text);
    const bool taken = n && *n >= min && *n <= max;
    FUZZ_CHECK(o.message.empty() == taken);
    if (!taken) {
        FUZZ_CHECK(printable_message(o.message));
        return;
    }
    // Handed on canonical (no leading zeros), which parses again to itself and is stored as the
    // number the digits say.
    FUZZ_CHECK(o.text == std::to_string(*n));
    FUZZ_CHECK(validate(v, o.text) == (outcome{{}, o.text}));
    if (through) FUZZ_CHECK(through_option<std::uint64_t>(v, text) == n);
    if (min == 0) FUZZ_CHECK(validate(cli::count_up_to(max), text) == o);
}

// strtod's reading, as the number parsers take it (the program keeps the C locale).
std::optional<double> strtod_value(const std::string& text) {
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size()) return std::nullopt;
    return value;
}

bool same_double(double a, double b) {
    return std::memcmp(&a, &b, sizeof a) == 0;
}

void check_number(const CLI::Validator& v, double min, double max, bool positive,
                  const std::string& text) {
    const outcome o = validate(v, text);
    FUZZ_CHECK(validate(v, text) == o);
    const std::optional<double> read = strtod_value(text);
    const bool taken = read && !std::isnan(*read) && *read >= min && *read <= max &&
                       (!positive || (*read > 0 && std::isfinite(*read)));
    FUZZ_CHECK(o.message.empty() == taken);
    if (!taken) {
        FUZZ_CHECK(printable_message(o.message));
        return;
    }
    const std::optional<double> stored = through_option<double>(v, text);
    // The canonical text reads as the same value, parses again to itself, and is what CLI11
    // stores (strtold, then rounded to double).
    const std::optional<double> again = strtod_value(o.text);
    FUZZ_CHECK(again && same_double(*again, *read));
    FUZZ_CHECK(validate(v, o.text) == (outcome{{}, o.text}));
    // CLI11 reads the canonical text with strtold and rounds that to double: for a decimal that
    // lies within a long double's rounding of a halfway point, that double rounding gives the
    // neighbour of strtod's value (fuzz/regressions/options). One ulp, never more.
    FUZZ_CHECK(stored && (same_double(*stored, *read) ||
                          same_double(*stored, std::nextafter(*read, *stored))));
    FUZZ_CHECK(!std::isnan(*stored) && *stored >= min && *stored <= max);
    if (positive) FUZZ_CHECK(std::isfinite(*stored) && *stored > 0);
}

// --rate as every command declares it (add_rate_option): without a ceiling, and with view's.
void check_rate(const std::string& text, std::optional<double> max) {
    CLI::App app{"fuzz"};
    app.set_help_flag();
    double rate = 0;
    cli::add_rate_option(app, rate, "rate", max);
    bool taken = true;
    try {
        app.parse(std::vector<std::string>{"--rate=" + text});
    } catch (const CLI::ParseError&) {
        taken = false;
    }
    const std::optional<double> read = strtod_value(text);
    FUZZ_CHECK(taken == (read && std::isfinite(*read) && *read > 0 && (!max || *read <= *max)));
    // One ulp at most, as check_number says of CLI11's reading through long double.
    if (taken) {
        FUZZ_CHECK(same_double(rate, *read) || same_double(rate, std::nextafter(*read, rate)));
    }
}

// The refusal quotes the text as given (index's --shard always has), so it is not checked for
// control characters.
void check_shard(const std::string& text) {
    cli::shard_choice choice;
    const std::string why = cli::parse_shard(text, choice);
    cli::shard_choice again;
    FUZZ_CHECK(cli::parse_shard(text, again) == why);
    const std::size_t slash = text.find('/');
    std::optional<std::uint64_t> k;
    std::optional<std::uint64_t> n;
    if (slash != std::string::npos) {
        k = plain_count(std::string_view(text).substr(0, slash));
        n = plain_count(std::string_view(text).substr(slash + 1));
    }
    const bool taken = k && n && *n >= 1 && *n <= tools::max_shards && *k < *n;
    FUZZ_CHECK(why.empty() == taken);
    if (!taken) {
        FUZZ_CHECK(why.starts_with("K/N with 0 <= K < N and 1 <= N <= "));
        return;
    }
    FUZZ_CHECK(choice == again);
    FUZZ_CHECK(choice.shard == *k && choice.shards == *n);
}

void check_listen(const std::string& text) {
    const std::optional<inputanim::http::tcp::endpoint> ep = inputanim::http::parse_listen(text);
    FUZZ_CHECK(inputanim::http::parse_listen(text) == ep);
    if (!ep) return;
    // HOST:PORT, the port its digits after the last colon.
    const std::size_t colon = text.rfind(':');
    FUZZ_CHECK(colon != std::string::npos);
    const std::optional<std::uint64_t> port = plain_count(std::string_view(text).substr(colon + 1));
    FUZZ_CHECK(port && *port <= 65535 && *port == ep->port());
    const boost::asio::ip::address a = ep->address();
    const std::string own =
        (a.is_v6() ? "[" + a.to_string() + "]" : a.to_string()) + ":" + std::to_string(ep->port());
    FUZZ_CHECK(inputanim::http::parse_listen(own) == ep);
}

template <typename Enum, typename Parse, typename Add>
void check_name(const std::string& flag, const std::string& text, Parse parse, Add add) {
    CLI::App app{"fuzz"};
    app.set_help_flag();
    Enum value{};
    add(app, value);
    bool taken = true;
    try {
        app.parse(std::vector<std::string>{flag + "=" + text});
    } catch (const CLI::ParseError&) {
        taken = false;
    }
    const std::optional<Enum> expected = parse(text);
    FUZZ_CHECK(taken == expected.has_value());
    if (taken) FUZZ_CHECK(value == *expected);
}

// The shared options as one command declares them all.
struct shared_options {
    limits lim{};
    archive_limits archives{};
    level lvl = level::full;
    layout_choice choice = layout_choice::automatic;
    std::uint64_t max_rows = unlimited_rows;
    std::optional<event_kind> events;
    // --upload-limits as CLI11 took it (--upload-limits=false is given but not set).
    bool upload = false;

    bool operator==(const shared_options& o) const {
        for (const limit_field& f : limit_fields) {
            if (f.get(lim) != f.get(o.lim)) return false;
        }
        return archives.max_members == o.archives.max_members &&
               archives.max_inflated_bytes == o.archives.max_inflated_bytes &&
               archives.max_ratio == o.archives.max_ratio && lvl == o.lvl && choice == o.choice &&
               max_rows == o.max_rows && events == o.events && upload == o.upload;
    }
};

std::optional<shared_options> parse_shared(std::vector<std::string> args) {
    CLI::App app{"fuzz"};
    app.set_help_flag();
    shared_options s;
    cli::add_limit_options(app, s.lim, &s.archives);
    cli::add_level_option(app, s.lvl, "level");
    cli::add_layout_choice_option(app, s.choice);
    cli::add_max_rows_option(app, s.max_rows, "rows");
    cli::add_event_kind_option(app, s.events);
    cli::strict_flags(app);
    std::reverse(args.begin(), args.end());
    try {
        app.parse(args);
    } catch (const CLI::ParseError&) {
        return std::nullopt;
    }
    const CLI::Option* upload = app.get_option("--upload-limits");
    s.upload = upload->count() > 0 && upload->as<bool>();
    return s;
}

std::string flag_of(const limit_field& f) {
    std::string flag = "--" + std::string(limit_name(f.kind));
    std::replace(flag.begin(), flag.end(), '_', '-');
    return flag;
}

void check_shared(const std::vector<std::string>& args) {
    const std::optional<shared_options> s = parse_shared(args);
    FUZZ_CHECK(parse_shared(args) == s);
    // Every argument whole in itself (--flag=value, or --upload-limits): any order is the same.
    const bool self_contained = std::all_of(args.begin(), args.end(), [](const std::string& a) {
        return a.starts_with("--") && (a.find('=') != std::string::npos || a == "--upload-limits");
    });
    if (self_contained) {
        std::vector<std::string> reversed(args.rbegin(), args.rend());
        FUZZ_CHECK(parse_shared(reversed) == s);
    }
    if (!s) return;
    const limits defaults = s->upload ? upload_limits() : limits{};
    const archive_limits budgets = s->upload ? upload_archive_limits() : archive_limits{};
    // The text of the last --flag=N among the arguments, if any.
    const auto given = [&](const std::string& flag) -> std::optional<std::string> {
        std::optional<std::string> value;
        for (const std::string& a : args) {
            if (a.starts_with(flag + "=")) value = a.substr(flag.size() + 1);
        }
        return value;
    };
    for (const limit_field& f : limit_fields) {
        const std::uint64_t value = f.get(s->lim);
        FUZZ_CHECK(value <= f.largest);
        const std::optional<std::string> text = given(flag_of(f));
        if (text && plain_count(*text)) FUZZ_CHECK(value == *plain_count(*text));
        const bool named =
            text || std::count_if(args.begin(), args.end(),
                                  [&](const std::string& a) { return a == flag_of(f); }) > 0;
        if (!named) FUZZ_CHECK(value == f.get(defaults));
    }
    FUZZ_CHECK(s->archives.max_ratio >= 1);
    const auto budget = [&](const char* flag, std::uint64_t value, std::uint64_t otherwise) {
        const std::optional<std::string> text = given(flag);
        if (text && plain_count(*text)) FUZZ_CHECK(value == *plain_count(*text));
        const bool named = text || std::find(args.begin(), args.end(), flag) != args.end();
        if (!named) FUZZ_CHECK(value == otherwise);
    };
    budget("--max-members", s->archives.max_members, budgets.max_members);
    budget("--max-archive-bytes", s->archives.max_inflated_bytes, budgets.max_inflated_bytes);
    budget("--max-ratio", s->archives.max_ratio, budgets.max_ratio);
    FUZZ_CHECK(s->max_rows <= unlimited_rows);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::vector<std::string> args;
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    for (std::size_t from = 0; from <= bytes.size() && args.size() < 8;) {
        const std::size_t nul = std::min(bytes.find('\0', from), bytes.size());
        args.emplace_back(bytes.substr(from, nul - from));
        from = nul + 1;
    }
    for (const std::string& text : args) {
        // The bounds the commands give: --max-bytes, --max-output-bytes; the archive budgets;
        // --jobs; --max-rows; each limit's flag.
        check_count(1, u64_max, text, true);
        check_count(0, u64_max, text, false);
        check_count(1, tools::max_threads, text, false);
        check_count(0, unlimited_rows, text, true);
        for (const limit_field& f : limit_fields) check_count(0, f.largest, text, false);
        // gen --seconds (a day at most), metrics' thresholds, the --rate of sample, metrics and
        // export.
        check_number(cli::number_between(0, 86400), 0, 86400, false, text);
        const double most = std::numeric_limits<double>::max();
        check_number(cli::number_between(0, most), 0, most, false, text);
        check_number(cli::positive_number(), 0, std::numeric_limits<double>::infinity(), true,
                     text);
        check_rate(text, std::nullopt);
        check_rate(text, 1000.0);
        check_listen(text);
        check_shard(text);
        check_name<level>("--level", text, parse_level_name,
                          [](CLI::App& app, level& v) { cli::add_level_option(app, v, "level"); });
        check_name<layout_choice>(
            "--layout", text, parse_layout_choice_name,
            [](CLI::App& app, layout_choice& v) { cli::add_layout_choice_option(app, v); });
        check_name<layout>("--layout", text, parse_layout_name, [](CLI::App& app, layout& v) {
            cli::add_layout_option(app, v, "layout");
        });
    }
    check_shared(args);
    return 0;
}
