// inputanim sample: resample curves at a fixed rate as CSV (or JSON), with every number written
// as the shortest text that reads back as the same float32.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common.hpp"

namespace inputanim::cli {

namespace {

struct sample_options {
    std::string file;
    double rate = 60.0;
    std::vector<std::string> globs;
    std::optional<double> from;
    std::optional<double> to;
    std::string format = "csv";
    // A gzip file or standard input is read into memory (sampling needs every curve at once):
    // this bounds it.
    std::uint64_t max_bytes = std::uint64_t{1} << 30;
};

// Rows are formatted into one buffer and written in large blocks: a long recording at a high
// rate is millions of numbers.
class row_writer {
  public:
    explicit row_writer(bool json) : json_(json) { buffer_.reserve(1 << 16); }
    ~row_writer() { flush(); }
    row_writer(const row_writer&) = delete;
    row_writer& operator=(const row_writer&) = delete;

    void text(std::string_view s) { buffer_.append(s); }
    void number(float v) {
        if (json_ && !std::isfinite(v)) {
            buffer_.append("null");
            return;
        }
        char digits[32];
        const auto r = std::to_chars(digits, digits + sizeof digits, v);
        buffer_.append(digits, r.ptr);
    }
    void end_row() {
        if (buffer_.size() > (1 << 16) - 4096) flush();
    }
    void flush() {
        std::fwrite(buffer_.data(), 1, buffer_.size(), stdout);
        buffer_.clear();
    }

  private:
    bool json_;
    std::string buffer_;
};

void write_json_string(row_writer& out, std::string_view s) {
    // Curve paths are ASCII identifiers and dots: nothing to escape.
    out.text("\"");
    out.text(s);
    out.text("\"");
}

int run_sample(const sample_options& o) {
    validate_options how;
    how.limits.max_bytes = o.max_bytes;
    // Sampling needs every curve at once: a gzip file or standard input is read into memory, once
    // its header passed, up to --max-bytes.
    whole_recording whole;
    if (const std::optional<int> status = read_recording(o.file, how, whole)) return *status;
    const std::span<const std::byte> bytes = whole.bytes;
    recording rec;
    error structural;
    // Reads of a mapping that another process truncates are an I/O error, not a SIGBUS.
    if (const std::error_code io = guarded(bytes, [&] {
            structural = rec.open(bytes, {how.layout, how.limits});
        })) {
        std::cerr << "inputanim: " << o.file << ": " << io.message() << '\n';
        return exit_unreadable;
    }
    if (structural) {
        std::cerr << "inputanim: " << o.file << ": invalid: " << error_text(structural) << '\n';
        return exit_invalid;
    }
    resampler rs(rec);
    if (o.globs.empty()) rs.select_all();
    for (const std::string& glob : o.globs) {
        if (rs.select(glob) == 0) {
            std::cerr << "inputanim sample: --curve " << glob << " matches no curve of " << o.file
                      << '\n';
            return exit_usage;
        }
    }
    if (const grid_error g = rs.set_grid(o.rate, o.from, o.to); g != grid_error::none) {
        std::cerr << "inputanim sample: " << grid_error_name(g) << '\n';
        return exit_usage;
    }

    const bool json = o.format == "json";
    row_writer out(json);
    out.text(json ? "{\"curves\":[" : "t");
    bool first = true;
    for (const curve_id id : rs.curves()) {
        if (json) {
            if (!first) out.text(",");
            write_json_string(out, curve_path(id));
        } else {
            out.text(",");
            out.text(curve_path(id));
        }
        first = false;
    }
    out.text(json ? "],\"rows\":[" : "\n");
    std::vector<float> values(rs.curves().size());
    first = true;
    int status = exit_valid;
    const std::error_code io = guarded(bytes, [&] {
        while (const std::optional<float> t = rs.next(values)) {
            if (json) out.text(first ? "[" : ",[");
            out.number(*t);
            for (const float v : values) {
                out.text(",");
                out.number(v);
            }
            out.text(json ? "]" : "\n");
            out.end_row();
            first = false;
        }
    });
    if (io) {
        out.flush();
        std::cerr << "inputanim: " << o.file << ": " << io.message() << '\n';
        status = exit_unreadable;
    }
    if (json) out.text("]}\n");
    return status;
}

}  // namespace

command add_sample_command(CLI::App& app) {
    auto o = std::make_shared<sample_options>();
    CLI::App* cmd = app.add_subcommand(
        "sample", "Evaluate curves at a fixed rate, as MRTK playback does (CSV or JSON)");
    cmd->add_option("FILE", o->file,
                    "The recording (.bin, or gzip-compressed: .bin.gz; - for standard input)")
        ->required();
    cmd->add_option("--rate", o->rate, "Samples per second")
        ->required()
        ->check(CLI::PositiveNumber);
    cmd->add_option("--curve", o->globs,
                    "Curves to sample, by path glob (* within a name, ** across dots); "
                    "repeatable; default every curve");
    cmd->add_option("--from", o->from, "First sample time (default: the first key time)");
    cmd->add_option("--to", o->to, "Last sample time, inclusive (default: the duration)");
    cmd->add_option("--format", o->format, "Output format")
        ->check(CLI::IsMember({"csv", "json"}))
        ->capture_default_str();
    cmd->add_option("--max-bytes", o->max_bytes,
                    "Largest recording accepted, in bytes; a gzip file or standard input is read "
                    "into memory up to this")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    return {cmd, [o] { return run_sample(*o); }};
}

}  // namespace inputanim::cli
