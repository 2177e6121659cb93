// inputanim convert: a recording to another version or layout, optionally cut to a time window,
// shifted to start at 0 and thinned as MRTK thins (the library's convert, inputanim/convert.hpp).
// A plain file is converted from its mapping, whose pages are given back behind the walk, so a
// file of any size converts in bounded memory. gzip and standard input are converted as they
// arrive when the conversion is sequential (arriving_conversion), else held whole.
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "commands.hpp"
#include "conversion_warnings.hpp"
#include "options.hpp"
#include "reading.hpp"

namespace inputanim::cli {

namespace {

struct convert_cli_options {
    std::string input;
    std::string output;
    std::string version = "1.1";
    // Empty: the target version's default (compact for 1.1, full for 1.0).
    std::optional<inputanim::layout> layout;
    time_window window;
    // What the messages call --version and the window's end: --to and --to-time unless the
    // command line gave --version or --until (spelled).
    std::string version_flag;
    std::string until_flag;
    bool shift_to_zero = false;
    bool thin = false;
    inputanim::level level = level::full;
    std::uint64_t max_bytes = default_max_whole_bytes;
};

// What the command line alone can tell is wrong, before any file is opened.
std::optional<std::string> option_problem(const convert_cli_options& o) {
    if (o.version == "1.0" && o.layout == layout::compact) {
        return "version 1.0 has only the full layout (--layout compact needs " + o.version_flag +
               " 1.1)";
    }
    if (o.window.problem()) return o.window.problem_text("--from", o.until_flag);
    return std::nullopt;
}

convert_options library_options(const convert_cli_options& o) {
    convert_options c;
    c.minor = o.version == "1.0" ? 0 : 1;
    c.layout = o.layout.value_or(layout::compact);
    if (o.window.from) c.from = static_cast<float>(*o.window.from);
    if (o.window.until) c.to = static_cast<float>(*o.window.until);
    c.shift_to_zero = o.shift_to_zero;
    if (o.thin) c.thin = thinning{};
    return c;
}

// Gives the pages of a read-only file mapping back to the system behind the conversion (their
// bytes stay in the page cache): pieces arrive in file order within a curve, so contiguous ones
// are joined and only whole pages are released.
class page_release {
  public:
    explicit page_release(std::span<const std::byte> mapping) : mapping_(mapping) {}

    void operator()(std::span<const std::byte> piece) {
        const auto start = static_cast<std::size_t>(piece.data() - mapping_.data());
        if (start != end_) begin_ = start;
        end_ = start + piece.size();
        const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
        const auto base = reinterpret_cast<std::uintptr_t>(mapping_.data());
        const std::uintptr_t first = (base + begin_ + page - 1) / page * page;
        const std::uintptr_t last = (base + end_) / page * page;
        if (last <= first) return;
        // Advice only: a failure leaves the pages where they are.
        ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
        begin_ = last - base;
    }

  private:
    std::span<const std::byte> mapping_;
    std::size_t begin_ = 0;
    std::size_t end_ = 0;
};

// A gzip file or standard input converted as it arrives, for a sequential conversion (no window,
// shift or thinning): every byte goes through a chunk_validator (inflating gzip, checking at the
// level asked for) to this receiver, which holds the bytes only until the validator knows the
// source's layout (for a v1 file after its header, or for a v1.1 file once the other layout's
// walk failed, within its first curves), then converts them as they arrive. A source whose
// layout only its end tells (a 2019 layout, a v1.1 file sound in both layouts) is held whole, up
// to --max-bytes, and converted from memory once the validator passed it. OUT is opened with the
// first byte converted, so a source refused at its start leaves it untouched.
class arriving_conversion final : public recording_receiver {
  public:
    enum class stop : std::uint8_t { none, output, too_large, no_memory };

    // `inputs`: the command's, which OUT must not be (they outlive the conversion).
    arriving_conversion(const chunk_validator& validator, output_file& out, const std::string& name,
                        std::span<const std::string> inputs, const convert_options& options,
                        std::uint64_t max_held) noexcept
        : validator_(validator),
          out_(out),
          name_(name),
          inputs_(inputs),
          options_(options),
          max_held_(max_held) {}

    bool receive(std::span<const std::byte> piece) noexcept override {
        if (!converter_) {
            const std::optional<file_header> h = validator_.layout_known();
            if (!h || h->edition != edition::v1) return hold(piece);
            if (!open()) return false;
            converter_.emplace(h->layout, out_, options_);
            if (!convert(held_)) return false;
            // Given back without a reallocation (shrink_to_fit may allocate, and throw).
            std::vector<std::byte>().swap(held_);
        }
        return convert(piece);
    }

    stop stopped() const noexcept { return stop_; }
    // When stopped by the output: why.
    const std::optional<output_failure>& output_problem() const noexcept { return failure_; }
    // The converter's error when it stopped the input (the output's failure).
    std::error_code converter_error() const noexcept { return error_; }
    // The limit the held bytes passed, as validate says a recording passed --max-bytes.
    inputanim::error too_large() const noexcept {
        limits lim;
        lim.max_bytes = max_held_;
        return size_error(max_held_ + 1, lim);
    }

    // Once the validator passed the whole source: the end of the conversion, or the conversion of
    // the source held whole. Nullopt when OUT could not be opened (stopped() says why).
    std::optional<convert_result> finish() {
        if (converter_) return converter_->finish();
        if (!open()) return std::nullopt;
        recording rec;
        if (rec.open(held_)) {
            // Not after the validator passed the bytes (one walk's rules): said as the stream
            // converter says bytes it cannot frame.
            convert_result r;
            r.error = convert_error::cannot_frame;
            return r;
        }
        return inputanim::convert(rec, out_, options_);
    }

  private:
    bool open() noexcept {
        if (opened_) return true;
        opened_ = true;
        try {
            failure_ = out_.open(name_, inputs_);
        } catch (const std::bad_alloc&) {
            stop_ = stop::no_memory;
            return false;
        }
        if (failure_) stop_ = stop::output;
        return !failure_;
    }

    bool hold(std::span<const std::byte> piece) noexcept {
        if (piece.size() > max_held_ - std::min<std::uint64_t>(max_held_, held_.size())) {
            stop_ = stop::too_large;
            return false;
        }
        try {
            held_.insert(held_.end(), piece.begin(), piece.end());
        } catch (const std::bad_alloc&) {
            stop_ = stop::no_memory;
            return false;
        }
        return true;
    }

    bool convert(std::span<const std::byte> bytes) noexcept {
        if (const std::error_code e = converter_->feed(bytes)) {
            error_ = e;
            stop_ = stop::output;
            return false;
        }
        return true;
    }

    const chunk_validator& validator_;
    output_file& out_;
    const std::string& name_;
    std::span<const std::string> inputs_;
    const convert_options& options_;
    const std::uint64_t max_held_;
    std::vector<std::byte> held_;
    std::optional<stream_converter> converter_;
    bool opened_ = false;
    std::optional<output_failure> failure_;
    std::error_code error_;
    stop stop_ = stop::none;
};

// The error line of `validate` for a source found invalid; a content error says that level
// structure would convert it.
int invalid_source(const std::string& file, const inputanim::error& e) {
    std::cerr << "inputanim: " << printable(file) << ": invalid: " << error_line(e);
    if (is_content(e.code)) std::cerr << " (--level structure converts it anyway)";
    std::cerr << '\n';
    return exit_invalid;
}

int unreadable(const std::string& file, std::error_code e) {
    std::cerr << "inputanim: " << printable(file) << ": " << e.message() << '\n';
    return exit_unreadable;
}

// The conversion of a gzip file or standard input as it arrives (arriving_conversion).
int convert_arriving(const convert_cli_options& o, std::span<const std::string> inputs, input& in,
                     const validate_options& how, const convert_options& c) {
    chunk_validator v(how);
    output_file out;
    arriving_conversion conversion(v, out, o.output, inputs, c, o.max_bytes);
    v.pass_to(&conversion);
    std::vector<std::byte> chunk(std::size_t{256} << 10);
    std::error_code io;
    for (;;) {
        const std::size_t n = in.read(chunk, io);
        if (io || n == 0) break;
        if (v.feed(std::span(chunk.data(), n)) == stream_status::error) break;
    }
    const report& r = v.finish();
    std::optional<convert_result> result;
    if (conversion.stopped() == arriving_conversion::stop::none) {
        if (io || r.error.code == errc::io_error) {
            return unreadable(o.input, io ? io : make_error_code(errc::io_error));
        }
        if (!r.valid()) return invalid_source(o.input, r.error);
        result = conversion.finish();
    }
    switch (conversion.stopped()) {
        case arriving_conversion::stop::output:
            if (conversion.output_problem()) return output_failed(*conversion.output_problem());
            if (conversion.converter_error() != convert_error::cannot_frame) {
                return output_failed(out.failure(conversion.converter_error()));
            }
            break;
        case arriving_conversion::stop::too_large:
            return invalid_source(o.input, conversion.too_large());
        case arriving_conversion::stop::no_memory:
            return unreadable(o.input, std::make_error_code(std::errc::not_enough_memory));
        case arriving_conversion::stop::none:
            break;
    }
    if (result && result->error != convert_error::cannot_frame) {
        if (const std::optional<int> failed = commit_output(out, result->error)) return *failed;
        print_conversion_warnings(o.input, *result);
        return finish_output(o.output);
    }
    // The converter could not frame bytes the validator passed (the fuzz harness checks that it
    // always can).
    std::cerr << "inputanim: " << printable(o.input)
              << ": cannot convert: its bytes do not frame as the recording validate passed\n";
    return exit_invalid;
}

int run_convert(const convert_cli_options& o) {
    if (const std::optional<std::string> problem = option_problem(o))
        return usage_error("convert", *problem);
    const std::vector<std::string> inputs{o.input};
    if (const std::optional<output_failure> itself = output_is_input(o.output, inputs)) {
        return output_failed(*itself);
    }
    std::error_code ec;
    input in = input::open(o.input, ec);
    if (ec) {
        std::cerr << "inputanim: " << printable(o.input) << ": " << ec.message() << '\n';
        return exit_unreadable;
    }
    validate_options how;
    how.level = o.level;
    std::error_code sniffed;
    const bool gzip = is_gzip(in, sniffed);
    if (sniffed) {
        std::cerr << "inputanim: " << printable(o.input) << ": " << sniffed.message() << '\n';
        return exit_unreadable;
    }
    const bool streamed = in.is_mapped() && !gzip;
    convert_options c = library_options(o);
    if (!streamed && c.sequential()) return convert_arriving(o, inputs, in, how, c);
    // A plain file is read from its mapping, whatever its size; gzip and standard input are
    // inflated or read into memory, up to --max-bytes.
    validate_options whole_how = how;
    whole_how.limits.max_bytes = o.max_bytes;
    loaded_recording loaded;
    const whole_input& whole = loaded.load(std::move(in), whole_how);
    if (whole.io) {
        std::cerr << "inputanim: " << printable(o.input) << ": " << whole.io.message() << '\n';
        return exit_unreadable;
    }
    if (whole.invalid) {
        std::cerr << "inputanim: " << printable(o.input)
                  << ": invalid: " << error_line(whole.invalid) << '\n';
        return exit_invalid;
    }
    const std::span<const std::byte> bytes = loaded.bytes();

    // The structure of a mapped file is read by reads of the file: a read through the mapping
    // maps the pages around each curve header, which for a large file is far more memory than
    // the conversion needs. open() says why when that walk fails. The content is checked by
    // reads a MiB at a time likewise, rather than through the mapping, whose pages would all stay
    // in memory.
    std::error_code read_fault;
    const error structural = loaded.open({}, streamed, read_fault);
    if (read_fault) {
        std::cerr << "inputanim: " << printable(o.input) << ": " << read_fault.message() << '\n';
        return exit_unreadable;
    }
    const recording& rec = loaded.recording();
    if (structural) return invalid_source(o.input, structural);
    // The content check at level full: reads of the file a MiB at a time (its pages would all
    // stay in memory through the mapping). A source it fails is refused whatever else failed.
    auto check_content = [&]() -> std::optional<int> {
        if (how.level != level::full) return std::nullopt;
        std::error_code io;
        const report checked = loaded.check(how, streamed, io);
        if (io || checked.error.code == errc::io_error) {
            return unreadable(o.input, io ? io : make_error_code(errc::io_error));
        }
        if (checked.error) return invalid_source(o.input, checked.error);
        return std::nullopt;
    };

    bool itself = false;
    if (const std::error_code io = loaded.run([&] { itself = converts_to_itself(rec, c); })) {
        return unreadable(o.input, io);
    }
    // The output is the source's bytes: copied by the kernel, not decoded and encoded again. At
    // level full the copy runs while this thread checks the content, when it goes to a temporary
    // file that only a passed check commits; a FIFO or a device is opened only after the check,
    // as every other output is.
    const bool copied = streamed && itself;
    const bool alongside =
        copied && how.level == level::full && output_file::replaced_when_written(o.output);
    output_file out;
    if (!alongside) {
        if (const std::optional<int> refused = check_content()) return *refused;
    }
    if (const std::optional<output_failure> failure = out.open(o.output, inputs)) {
        if (alongside) {
            if (const std::optional<int> refused = check_content()) return *refused;
        }
        return output_failed(*failure);
    }
    if (copied) {
        std::error_code copy_error;
        std::error_code source_error;
        const auto copy = [&] {
            copy_error = out.copy_from(loaded.input().descriptor(), 0, bytes.size(), source_error);
        };
        std::optional<int> refused;
        if (alongside) {
            std::optional<std::thread> copier;
            try {
                copier.emplace(copy);
            } catch (const std::system_error&) {
                // No second thread: checked, then copied.
            }
            refused = check_content();
            if (copier) {
                copier->join();
            } else if (!refused) {
                copy();
            }
        } else {
            copy();
        }
        if (refused) {
            out.discard();
            return *refused;
        }
        if (copy_error) return output_failed(out.failure(copy_error));
        if (source_error) {
            out.discard();
            return unreadable(o.input, source_error);
        }
        if (const std::optional<int> failed = commit_output(out)) return *failed;
        return finish_output(o.output);
    }
    page_release release(bytes);
    if (streamed) {
        c.consumed = [&](std::span<const std::byte> piece) { release(piece); };
        c.source = &loaded.input();
    }
    convert_result result;
    const std::error_code io = loaded.run([&] { result = convert(rec, out, c); });
    if (io || result.source_failed) {
        out.discard();
        std::cerr << "inputanim: " << printable(o.input) << ": "
                  << (io ? io : result.error).message() << '\n';
        return exit_unreadable;
    }
    if (result.error == convert_error::shift_out_of_range) {
        out.discard();
        std::cerr << "inputanim: " << printable(o.input)
                  << ": cannot convert: shifted to start at 0, some key or marker time would "
                     "pass the largest float time ("
                  << number_text(std::numeric_limits<float>::max())
                  << "); convert a window nearer its start (--from, " << o.until_flag
                  << ") or without --shift-to-zero\n";
        return exit_invalid;
    }
    if (const std::optional<int> failed = commit_output(out, result.error)) return *failed;
    print_conversion_warnings(o.input, result);
    return finish_output(o.output);
}

}  // namespace

command add_convert_command(CLI::App& app) {
    auto o = std::make_shared<convert_cli_options>();
    CLI::App* cmd = app.add_subcommand(
        "convert",
        "Write a recording in another version or layout, optionally cut to a time window, "
        "shifted to 0 and thinned as MRTK thins");
    add_recording_argument(*cmd, "IN", o->input);
    cmd->add_option("OUT", o->output,
                    "The file to write (replaced only once complete; a device or FIFO is written "
                    "through; - for standard output)")
        ->required();
    add_version_option(*cmd, o->version, "Target file version", "--to");
    add_layout_option(*cmd, o->layout,
                      "Target float keyframes: compact (MRTK 2.6+, the default for 1.1) or full "
                      "(28 bytes; 1.0 is always full)");
    add_window_options(*cmd, o->window, "--to-time",
                       "Keep keys and markers from this time on (a key is added here where a "
                       "curve needs one)",
                       "Keep keys and markers up to this time, inclusive; not before --from");
    cmd->add_flag("--shift-to-zero", o->shift_to_zero,
                  "Subtract the window's start (--from, else the first key time) from every key "
                  "and marker time");
    cmd->add_flag("--thin", o->thin,
                  "Thin the keys as MRTK 2.6+ does (1 mm, 0.02 degrees; vectors together)");
    add_level_option(*cmd, o->level,
                     "full: refuse a file that fails validation at level full; structure: convert "
                     "any file whose structure is sound");
    add_max_bytes_option(*cmd, o->max_bytes);
    return {cmd, [o, cmd] {
                o->version_flag = spelled(*cmd, "--version", "--to");
                o->until_flag = spelled(*cmd, "--until", "--to-time");
                return run_convert(*o);
            }};
}

}  // namespace inputanim::cli
