// The HTTP/1.1 validation service behind `inputanim serve` (docs/SERVER.md): POST /validate
// streams the request body through the streaming validator (inflating it first when it is
// gzip-encoded) and answers the JSON object of `validate --json`; GET /healthz answers "ok"; GET /
// is the browser viewer, which POST /view feeds (viewer_routes.hpp). Every GET resource answers
// HEAD with its headers. Requests whose body length is ambiguous (RFC 9112 §6) are refused and
// their connection closed.
// Boost.Beast over Boost.Asio, one strand per connection, on a pool of threads.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "inputanim/archive.hpp"
#include "inputanim/validate.hpp"

namespace inputanim::http {

struct viewer_site;

struct server_config {
    // HOST:PORT, an IPv4 address or a bracketed IPv6 one; port 0 picks a free port.
    std::string listen = "127.0.0.1:8080";
    // Threads that run the connections; 0: one per processor.
    unsigned threads = 0;
    // Level, layout and limits of the validation; limits.max_bytes also caps the request body.
    validate_options how{};
    // The budgets of an archive uploaded (a tar or zip body), checked as it is walked.
    archive_limits archives = upload_archive_limits();
    // How long a client may take to send its request header, or stay silent while sending the
    // body (each read), or take to receive the response.
    std::chrono::seconds timeout{30};
    // After a first `timeout`, the body must keep an average of this many bytes per second: each
    // byte received extends its deadline by 1/min_rate seconds. 0: no minimum rate.
    std::uint64_t min_rate = 1024;
    // How long the body of a request may take, from the end of its header, whatever its rate.
    std::chrono::seconds request_deadline{600};
    // Connections served at once; more are answered 503 and closed.
    std::size_t max_connections = 256;
    // After SIGTERM or SIGINT: how long requests in flight may take to finish.
    std::chrono::seconds shutdown_timeout{10};
    // Host names the server also answers as, besides localhost, 127.0.0.1, [::1] and the listen
    // address: a reverse proxy's (--allow-host). Any port; an Origin https://NAME is allowed too.
    std::vector<std::string> allow_hosts;
    // The recordings `inputanim view` serves to its page (null for `serve`: uploads only).
    std::shared_ptr<const viewer_site> site;
    // Called once listening, with the page's URL.
    std::function<void(std::string_view url)> on_listening;
};

// How a server's run ended (the commands say it with their exit statuses).
enum class server_end : std::uint8_t {
    // SIGTERM or SIGINT stopped it, once the requests in flight finished or their time was up.
    stopped,
    // The configuration cannot be served: `listen` is not HOST:PORT, or an `allow_hosts` name
    // carries a port. Said on stderr.
    bad_config,
    // The system refused: the address cannot be bound, or not one worker thread starts. Said on
    // stderr.
    refused,
};

// Listens, prints "listening on HOST:PORT" (the port actually bound) then the viewer page's URL on
// stdout, and serves until SIGTERM or SIGINT; then stops accepting and lets requests in flight
// finish (up to shutdown_timeout).
server_end run_server(const server_config& config);

}  // namespace inputanim::http
