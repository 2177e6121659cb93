// inputanim view: replay recordings in the browser (docs/VIEWER.md). Each file is validated and
// resampled once at startup; the server of `serve` then hands the page its description and frames.
#include <spawn.h>
#include <sys/wait.h>

#include <iostream>
#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "commands.hpp"
#include "http/http_server.hpp"
#include "http/viewer_routes.hpp"
#include "options.hpp"
#include "reading.hpp"

extern char** environ;

namespace inputanim::cli {

namespace {

struct view_options {
    std::vector<std::string> files;
    std::string listen = "127.0.0.1:0";
    double rate = http::viewer_default_rate;
    bool open = false;
    layout_choice layout = layout_choice::automatic;
    std::vector<std::string> allow_hosts;
    // --compare B, with diff's tolerances.
    std::string compare;
    compare_tolerances tolerance;
};

// Starts the desktop's browser on `url` (xdg-open), without waiting for it.
void open_browser(std::string_view url) {
    std::string program = "xdg-open";
    std::string target(url);
    char* argv[] = {program.data(), target.data(), nullptr};
    pid_t pid = 0;
    if (posix_spawnp(&pid, argv[0], nullptr, nullptr, argv, environ) != 0) {
        std::cerr << "inputanim view: cannot run xdg-open; open " << url << " in a browser\n";
        return;
    }
    try {
        std::thread([pid] { ::waitpid(pid, nullptr, 0); }).detach();
    } catch (const std::system_error& e) {
        // The browser runs anyway; only its exit status is left unread until view exits.
        std::cerr << "inputanim view: warning: cannot start a thread to wait for xdg-open: "
                  << e.what() << '\n';
    }
}

int run_view(const view_options& o) {
    if (http::viewer_page().empty()) {
        std::cerr << "inputanim view: " << http::viewer_build_hint() << '\n';
        return exit_usage;
    }
    if (!o.compare.empty() && o.files.size() != 1) {
        return usage_error("view", "--compare compares one recording: give one FILE");
    }
    validate_options how;
    how.layout = o.layout;
    std::vector<std::string> files = o.files;
    if (!o.compare.empty()) files.push_back(o.compare);
    auto site = std::make_shared<http::viewer_site>();
    site->tolerance = o.tolerance;
    int status = exit_valid;
    // Each file, or each member of an archive (ARCHIVE/MEMBER).
    const int walked =
        for_each_recording(files, false, how, archive_limits{}, [&](const named_recording& r) {
            const std::string& name = r.name;
            file_check c;
            loaded_recording held;
            if (r.check != nullptr) {
                // A member, checked by the walk.
                c = *r.check;
                read_whole_named(r, how, held);
            } else if (r.in.is_mapped()) {
                // Checked as `validate` checks it, then read whole from the same open file: from
                // its start again, since validate_input reads a gzip file through.
                c = validate_input(r.in, how);
                std::error_code ec;
                input again;
                if (!c.io) again = input::part(r.in, 0, r.in.mapped().size(), ec);
                if (ec) {
                    held.unreadable(ec);
                } else if (!c.io) {
                    held.load(std::move(again), how);
                }
            } else {
                // A stream (standard input) is read once: into memory, then validated there.
                const whole_input& whole = read_whole_named(r, how, held);
                c.bytes = whole.bytes.size();
                c.compressed_bytes = whole.compressed_bytes;
                if (whole.invalid) {
                    c.rep.error = whole.invalid;
                } else if (!whole.io) {
                    c.rep = validate(whole.bytes, how);
                }
            }
            const whole_input& whole = held.whole();
            if (c.io || whole.io) {
                std::cerr << "inputanim: " << printable(name) << ": "
                          << (c.io ? c.io : whole.io).message() << '\n';
                status = exit_unreadable;
                return;
            }
            const std::string url = "/api/recordings/" + std::to_string(site->recordings.size());
            // What can be played: all of it, or what was read before the damage.
            const held_bytes playable = http::playable_bytes(held);
            site->names.push_back(name);
            site->recordings.push_back(
                http::prepare_recording(name, playable, c.rep, c.bytes, c.compressed_bytes, how,
                                        o.rate, http::viewer_max_frame_bytes, default_max_rows,
                                        url + "/frames", http::playable_note(whole)));
            http::viewer_site::source& kept = site->sources.emplace_back();
            kept.layout = how.layout;
            // The storage moves with its buffer: `playable` still points into it.
            kept.bytes = playable.span();
            kept.loaded = std::move(held);
            if (site->recordings.back().frames_refused) {
                std::cerr << "inputanim view: " << printable(name)
                          << ": no frames: they would pass " << (http::viewer_max_frame_bytes >> 20)
                          << " MiB even at " << http::viewer_min_rate
                          << " per second (the page lists it with its report)\n";
            }
            if (!c.rep.valid()) {
                std::cerr << "inputanim view: " << printable(name)
                          << ": invalid: " << error_line(c.rep.error)
                          << " (the page shows what can still be played)\n";
                if (status == exit_valid) status = exit_invalid;
            }
        });
    if (walked == exit_unreadable) return exit_unreadable;
    if (walked == exit_invalid && status == exit_valid) status = exit_invalid;
    if (status == exit_unreadable) return exit_unreadable;
    if (!o.compare.empty()) {
        if (site->recordings.size() != 2) {
            return usage_error("view", "--compare compares two recordings, not archives' members");
        }
        const std::error_code ec = http::viewer_compare(
            {site->sources[0].bytes, site->sources[0].layout}, site->recordings[0].description,
            {site->sources[1].bytes, site->sources[1].layout}, o.tolerance, site->comparison);
        if (ec == std::errc::io_error) {
            std::cerr << "inputanim: " << ec.message() << '\n';
            return exit_unreadable;
        }
        if (ec) {
            std::cerr << "inputanim view: cannot compare " << printable(o.files[0]) << " with "
                      << printable(o.compare) << ": "
                      << (ec == std::errc::invalid_argument
                              ? std::string("the structure of one is not sound (compare() reads "
                                            "both whole)")
                              : ec.message())
                      << '\n';
            return exit_unreadable;
        }
    }
    http::server_config config;
    config.listen = o.listen;
    config.site = site;
    config.allow_hosts = o.allow_hosts;
    // Uploads through the page are strangers' bytes as in `serve`.
    config.how.limits = upload_limits();
    config.how.layout = how.layout;
    if (o.open) config.on_listening = open_browser;
    const int served = exit_status_of(http::run_server(config));
    return served != exit_valid ? served : status;
}

}  // namespace

command add_view_command(CLI::App& app) {
    auto o = std::make_shared<view_options>();
    CLI::App* cmd = app.add_subcommand(
        "view", "Replay recordings in a browser: hands, head, gaze, timeline, plots, validation");
    cmd->add_option(
           "FILE", o->files,
           "Recordings (.bin, or gzip-compressed: .bin.gz; a tar or zip for every recording in it, "
           "ARCHIVE/MEMBER for one; - for standard input)")
        ->required();
    cmd->add_option("--listen", o->listen,
                    "HOST:PORT to serve the page on; port 0 picks a free one")
        ->capture_default_str();
    add_rate_option(*cmd, o->rate, "Frames per second the recordings are resampled at", 1000.0)
        ->capture_default_str();
    add_layout_choice_option(*cmd, o->layout);
    cmd->add_option("--allow-host", o->allow_hosts,
                    "A host name (no port) requests may name besides localhost, 127.0.0.1, "
                    "[::1] and the listen address; repeatable")
        ->allow_extra_args(false);
    cmd->add_option("--compare", o->compare,
                    "Replay B as a ghost over FILE, with their error on the timeline (one FILE)");
    add_tolerance_options(*cmd, o->tolerance, "With --compare: ");
    cmd->add_flag("--open", o->open, "Open the page in the desktop's browser (xdg-open)");
    cmd->footer(
        "Prints the page's URL and serves until Ctrl-C. Exit status 1 when a file is "
        "invalid (it is still shown).");
    return {cmd, [o] { return run_view(*o); }};
}

}  // namespace inputanim::cli
