// inputanim serve: validate recordings uploaded over HTTP (docs/SERVER.md).
#include <chrono>
#include <cstdint>
#include <memory>

#include "commands.hpp"
#include "http/http_server.hpp"
#include "options.hpp"
#include "os/ceilings.hpp"
#include "reading.hpp"

namespace inputanim::cli {

namespace {

struct serve_options {
    http::server_config server;
    // Level, layout and limits, as validate takes them.
    validate_options how;
    unsigned timeout_seconds = 30;
    unsigned request_deadline_seconds = 600;
    unsigned shutdown_seconds = 10;
};

}  // namespace

command add_serve_command(CLI::App& app) {
    auto o = std::make_shared<serve_options>();
    // Uploads come from strangers: docs/SECURITY.md's ceilings unless told otherwise.
    o->how.limits = upload_limits();
    CLI::App* cmd = app.add_subcommand(
        "serve",
        "Validate recordings (or tar and zip archives of them) uploaded over HTTP: POST /validate, "
        "GET /healthz");
    cmd->add_option("--listen", o->server.listen,
                    "HOST:PORT to listen on (IPv4, or [IPv6]); port 0 picks a free one")
        ->capture_default_str();
    cmd->add_option("--threads", o->server.threads,
                    "Threads serving connections (0: one per CPU); at most 256")
        ->transform(count_between(0, max_threads))
        ->type_name("N")
        ->capture_default_str();
    cmd->add_option("--allow-host", o->server.allow_hosts,
                    "A host name (no port) requests may name besides localhost, 127.0.0.1, "
                    "[::1] and the listen address, e.g. a reverse proxy's; repeatable")
        ->allow_extra_args(false);
    cmd->add_option("--max-connections", o->server.max_connections,
                    "Connections served at once (1 to 1048576); more are answered 503")
        ->transform(count_between(1, std::uint64_t{1} << 20))
        ->type_name("N")
        ->capture_default_str();
    cmd->add_option("--timeout", o->timeout_seconds,
                    "Seconds a client may take to send its header, stay silent during its body, "
                    "or take to read the response (1 to 86400)")
        ->transform(count_between(1, 86400))
        ->type_name("S")
        ->capture_default_str();
    cmd->add_option("--min-rate", o->server.min_rate,
                    "Bytes per second a request body must average after its first --timeout "
                    "seconds (0: no minimum; at most 1099511627776)")
        ->transform(count_up_to(std::uint64_t{1} << 40))
        ->type_name("B")
        ->capture_default_str();
    cmd->add_option("--request-deadline", o->request_deadline_seconds,
                    "Seconds a request body may take from the end of its header, whatever its rate "
                    "(1 to 86400)")
        ->transform(count_between(1, 86400))
        ->type_name("S")
        ->capture_default_str();
    cmd->add_option("--shutdown-timeout", o->shutdown_seconds,
                    "Seconds requests in flight may take to finish after SIGTERM or SIGINT (at "
                    "most 86400)")
        ->transform(count_up_to(86400))
        ->type_name("S")
        ->capture_default_str();
    add_level_option(*cmd, o->how.level,
                     "structure: headers and counts only; full: also every keyframe and marker");
    add_layout_choice_option(*cmd, o->how.layout);
    // The archives' budgets default to upload_archive_limits() (server_config's).
    add_limit_options(*cmd, o->how.limits, &o->server.archives);
    cmd->footer(
        "Limits default to docs/SECURITY.md's upload ceilings (--max-bytes 67108864 ...); "
        "--max-bytes also caps the request body, compressed or not (413 past it). A request body "
        "is cut (no answer, logged 408) when it falls below --min-rate after its first --timeout "
        "seconds, or at --request-deadline: a slow client holds a connection at most --timeout "
        "(header) + --request-deadline (body) + --timeout (response) seconds. A tar or zip body "
        "is answered a JSON line per recording it holds; its walk is bounded by the archive "
        "budgets and by --request-deadline.");
    return {cmd, [o] {
                http::server_config config = o->server;
                config.how = o->how;
                config.timeout = std::chrono::seconds(o->timeout_seconds);
                config.request_deadline = std::chrono::seconds(o->request_deadline_seconds);
                config.shutdown_timeout = std::chrono::seconds(o->shutdown_seconds);
                return exit_status_of(http::run_server(config));
            }};
}

}  // namespace inputanim::cli
