#include "reading.hpp"

#include <iostream>
#include <system_error>

#include "commands.hpp"
#include "records/report_json.hpp"
#include "records/text.hpp"

namespace inputanim::cli {

using records::json_line;
using records::report_json;

int check_files(const check_options& options, const report_printer& print) {
    const validate_options& how = options.how;
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
        std::cerr << "inputanim: " << printable(name) << ": invalid: " << error_line(whole.invalid)
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
    std::cerr << "inputanim: " << printable(name) << ": invalid: " << error_line(e);
    if (!structural) std::cerr << " (--level structure " << anyway << ")";
    std::cerr << '\n';
    return exit_invalid;
}

std::string error_line(const error& e) {
    std::string line(error_name(e.code));
    line += ' ';
    line += e.message();
    return line;
}

std::string warning_text(const warning& w) {
    std::string text(warning_name(w.code));
    text += ", curve ";
    text += w.path();
    text += ": ";
    text += w.message();
    return text;
}

}  // namespace inputanim::cli
