#include "reading.hpp"

#include <array>
#include <iostream>
#include <system_error>

#include "commands.hpp"
#include "os/text.hpp"
#include "report/report_json.hpp"

namespace inputanim::cli {

using tools::add_member;
using tools::json_line;
using tools::report_json;

namespace {

int worse(int a, int b) {
    if (a == exit_unreadable || b == exit_unreadable) return exit_unreadable;
    return a == exit_valid ? b : a;
}

void say_unreadable(const std::string& name, std::error_code ec) {
    // Keeps the diagnostic after the results before it when both go to one terminal.
    std::cout.flush();
    std::cerr << "inputanim: " << printable(name) << ": " << ec.message() << '\n';
}

// Counts the members an archive's walk did not hand on, by why, for one line on stderr.
class skipped_members {
  public:
    void add(member_kind k) { ++by_kind_[static_cast<std::size_t>(k)]; }
    void not_recording() { ++not_recordings_; }
    // "inputanim: ARCHIVE: not read: 2 members that are not recordings, 1 directory, ..." when
    // any was skipped.
    void say(const std::string& archive) const {
        std::string list;
        const auto item = [&](std::uint64_t n, std::string_view what) {
            if (n == 0) return;
            list += (list.empty() ? "" : ", ") + std::to_string(n) + " " + std::string(what);
        };
        item(not_recordings_, not_recordings_ == 1 ? "member that is not a recording"
                                                   : "members that are not recordings");
        // By member_kind, from directory on.
        constexpr std::array<std::pair<std::string_view, std::string_view>, 7> kinds{{
            {"directory", "directories"},
            {"symbolic link", "symbolic links"},
            {"hard link", "hard links"},
            {"device", "devices"},
            {"FIFO", "FIFOs"},
            {"socket", "sockets"},
            {"sparse member", "sparse members"},
        }};
        for (std::size_t k = 0; k < kinds.size(); ++k) {
            const std::uint64_t n = by_kind_[k + 1];
            item(n, n == 1 ? kinds[k].first : kinds[k].second);
        }
        if (list.empty()) return;
        std::cout.flush();
        std::cerr << "inputanim: " << printable(archive) << ": not read: " << list << '\n';
    }

  private:
    std::uint64_t not_recordings_ = 0;
    std::array<std::uint64_t, 8> by_kind_{};
};

// The diagnostic and status of a whole read that failed.
std::optional<int> read_into(const std::string& name, const whole_input& whole) {
    if (whole.io) {
        std::cerr << "inputanim: " << printable(name) << ": " << whole.io.message() << '\n';
        return exit_unreadable;
    }
    if (whole.invalid) {
        std::cerr << "inputanim: " << printable(name) << ": invalid: " << error_line(whole.invalid)
                  << '\n';
        return exit_invalid;
    }
    return std::nullopt;
}

}  // namespace

int for_each_recording(const std::vector<std::string>& names, bool json,
                       const validate_options& how, const archive_limits& budgets,
                       const std::function<void(const named_recording&)>& each) {
    int status = exit_valid;
    std::vector<std::byte> buffer;
    for (const std::string& name : names) {
        std::error_code ec;
        input in = input::open(name, ec);
        if (ec) {
            say_unreadable(name, ec);
            status = exit_unreadable;
            continue;
        }
        const std::optional<archive_format> format = archive_format_of(in, ec);
        if (ec) {
            say_unreadable(name, ec);
            status = exit_unreadable;
            continue;
        }
        if (!format) {
            each({name, in, nullptr, nullptr, {}, nullptr, {}});
            continue;
        }
        archive_reader reader = archive_reader::open(in, budgets, ec);
        if (ec) {
            say_unreadable(name, ec);
            status = exit_unreadable;
            continue;
        }
        skipped_members skipped;
        archive_member m;
        while (reader.next(m)) {
            if (m.kind != member_kind::file) {
                skipped.add(m.kind);
                continue;
            }
            const std::string path = name + "/" + m.name;
            const file_check c = validate_member(reader, how, buffer);
            if (c.io) {
                say_unreadable(path, c.io);
                status = exit_unreadable;
                continue;
            }
            // Sorted from the other files as a folder's are (found_recording); one whose own
            // damage stopped its reading is kept, as its row says where.
            if (!reported_member(reader, c)) {
                skipped.not_recording();
                continue;
            }
            // In place: the member again, a part of the mapping; read through: the buffer.
            input member;
            if (m.data_offset && !reader.member_fault()) member = reader.member(ec);
            each({path, member, &reader, &m, name, &c, buffer});
        }
        skipped.say(name);
        if (const error& fault = reader.fault()) {
            const bool io = fault.code == errc::io_error;
            if (io) {
                say_unreadable(name, std::make_error_code(std::errc::io_error));
            } else if (json) {
                report r;
                r.error = fault;
                std::cout << json_line(name, report_json(r, how, 0)) << '\n';
            } else {
                std::cout.flush();
                std::cerr << "inputanim: " << printable(name) << ": invalid: " << error_line(fault)
                          << '\n';
            }
            status = worse(status, io ? exit_unreadable : exit_invalid);
        }
    }
    return status;
}

const whole_input& read_whole_named(const named_recording& r, const validate_options& how,
                                    loaded_recording& out) {
    if (r.member == nullptr || r.in.is_open()) return out.load(std::move(r.in), how);
    if (!r.held.empty()) return out.load_bytes(r.held, how);
    // Streamed past the buffer when it was checked: read through again, from the archive's
    // start.
    std::error_code ec;
    input archive = input::open(std::string(r.archive), ec);
    archive_reader again;
    if (!ec) again = archive_reader::open(archive, archive_limits{}, ec);
    archive_member m;
    while (!ec && again.next(m)) {
        if (m.ordinal != r.member->ordinal) continue;
        input member = again.member(ec);
        if (ec) break;
        // The bytes land in out's storage, which lets the member go with the reader.
        return out.load(std::move(member), how);
    }
    if (!ec) ec = std::make_error_code(std::errc::no_such_file_or_directory);
    return out.unreadable(ec);
}

std::optional<int> read_named(const named_recording& r, const validate_options& how,
                              loaded_recording& out) {
    return read_into(r.name, read_whole_named(r, how, out));
}

int check_files(const check_options& options, const report_printer& print) {
    const validate_options& how = options.how;
    int status = exit_valid;
    const int walked = for_each_recording(
        options.files, options.json(), how, options.archives, [&](const named_recording& r) {
            const file_check c = r.check != nullptr ? *r.check : validate_input(r.in, how);
            if (c.io) {
                say_unreadable(r.name, c.io);
                status = exit_unreadable;
                return;
            }
            if (options.json()) {
                nlohmann::json fields = report_json(c.rep, how, c.bytes, c.compressed_bytes);
                if (r.member != nullptr) add_member(fields, r.archive, *r.member);
                std::cout << json_line(r.name, std::move(fields)) << '\n';
            } else {
                print(r.name, c);
            }
            if (!c.rep.valid()) status = worse(status, exit_invalid);
        });
    return worse(status, walked);
}

std::optional<int> read_recording(const std::string& name, const validate_options& how,
                                  loaded_recording& out) {
    return read_into(name, out.load(name, how));
}

std::optional<int> open_evaluable(const std::string& name, loaded_recording& loaded,
                                  const validate_options& how, bool full, std::string_view anyway) {
    std::error_code io;
    const error structural = loaded.open({how.layout, how.limits}, false, io);
    report checked;
    if (!io && !structural && full) checked = loaded.check(how, false, io);
    if (io) {
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
