// How a request is framed and whom it is for, decided before it is routed: the listen address,
// the body's framing (RFC 9112 §6), Host and Origin (docs/SERVER.md, "Host and Origin"), and the
// header lists and query parameters the routes read.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "http/beast.hpp"
#include "http/response.hpp"

namespace inputanim::http {

using tcp = boost::asio::ip::tcp;
using request_parser = boost::beast::http::request_parser<boost::beast::http::buffer_body>;

// The request header limit given to Beast (431 past it). Beast bounds with it what is left
// unread at each parse, not the whole header: fuzz/fuzz_http.cpp's check_agree says how.
inline constexpr std::size_t request_header_limit = 8 * 1024;

// A request's parser set up as server::serve (http_server.cpp) sets up its own: the header
// limit, and no body limit of Beast's (the byte ceiling is the server's, with a 413 and a
// report; not boost::none: Beast 1.74 then rejects every Content-Length).
inline void limit_request(request_parser& parser) {
    parser.header_limit(static_cast<std::uint32_t>(request_header_limit));
    parser.body_limit(std::numeric_limits<std::uint64_t>::max());
}

// A request refused before it is routed: the answer, and whether bytes of the request are left
// unread (the connection is then closed after the answer).
struct refusal {
    response answer;
    bool body_unread = false;
};

// HOST:PORT, an IPv4 address or a bracketed IPv6 one.
std::optional<tcp::endpoint> parse_listen(const std::string& text);

// A Host or an Origin's authority, host[:port], split: the host (an IPv6 address with its
// brackets) and the port's text (empty when there is none).
struct authority {
    std::string_view host;
    std::string_view port;
};

std::optional<authority> split_authority(std::string_view text);

// Which hosts the server answers as (docs/SERVER.md, "Host and Origin"): the loopback names and
// the listen address on the port bound, and the --allow-host names (a reverse proxy's) on any
// port. A page that a DNS name rebound to 127.0.0.1 reaches gives its own name and is refused.
class host_policy {
  public:
    host_policy(const tcp::endpoint& bound, const std::vector<std::string>& allowed)
        : port_(std::to_string(bound.port())), allowed_(allowed) {
        // 0.0.0.0 and [::] listen on every address but are none a client should name.
        const boost::asio::ip::address a = bound.address();
        if (!a.is_unspecified()) {
            local_.push_back(a.is_v6() ? "[" + a.to_string() + "]" : a.to_string());
        }
    }

    // `host` names this server: a loopback name or the listen address with the port bound or
    // none (which, for a browser, is port 80 only: never an other port's page), or an allowed
    // name with any port.
    bool allows(std::string_view text, bool allowed_only = false) const {
        const std::optional<authority> a = split_authority(text);
        if (!a) return false;
        const auto same = [&](std::string_view name) {
            return boost::beast::iequals(a->host, name);
        };
        if (std::any_of(allowed_.begin(), allowed_.end(), same)) return true;
        if (allowed_only || !(a->port.empty() || a->port == port_)) return false;
        return std::any_of(local_.begin(), local_.end(), same);
    }

    // An Origin (RFC 6454 §7) this server's pages have: http:// and a --allow-host name on any
    // port (behind a proxy the port is the proxy's), or a loopback name or the listen address on
    // the port bound (80 when the Origin gives none: a page on another port is another origin);
    // or https:// and a --allow-host name (a proxy in front ending TLS).
    bool allows_origin(std::string_view origin) const {
        constexpr std::string_view http = "http://";
        constexpr std::string_view https = "https://";
        if (origin.size() > http.size() &&
            boost::beast::iequals(origin.substr(0, http.size()), http)) {
            const std::string_view rest = origin.substr(http.size());
            if (allows(rest, true)) return true;
            const std::optional<authority> a = split_authority(rest);
            return a && (a->port.empty() ? std::string_view("80") : a->port) == port_ &&
                   allows(rest);
        }
        if (origin.size() > https.size() &&
            boost::beast::iequals(origin.substr(0, https.size()), https)) {
            return allows(origin.substr(https.size()), true);
        }
        return false;
    }

  private:
    std::string port_;
    std::vector<std::string> local_ = {"localhost", "127.0.0.1", "[::1]"};
    std::vector<std::string> allowed_;
};

// RFC 9112 §6: a request whose body length two readers could see differently is refused and its
// connection closed, or the bytes a proxy in front takes for this request's body could be read
// here as a next request (request smuggling). The framings taken: no body, one Content-Length
// (Beast has refused values that are not decimal numbers or conflict), or Transfer-Encoding
// with the one coding `chunked` in HTTP/1.1 and without Content-Length.
std::optional<refusal> framing_error(const request_parser& parser);

// Refuses a request whose Host is not this server's (421: a DNS rebinding, or a client that
// meant an other server), a POST, or a GET of the viewer's data (/api/...), from an other site's
// page (403: its Origin, or Sec-Fetch-Site: cross-site; an export is hundreds of megabytes no
// other site should be able to ask for), and an HTTP/1.1 request without exactly one Host (400,
// RFC 9112 §3.2). A request without Origin (curl, scripts) is not a browser's cross-site request.
std::optional<refusal> host_error(const request_parser& parser, const host_policy& policy);

// An Allow list: a resource that accepts GET accepts HEAD too (the server routes HEAD as GET).
std::string with_head(std::string_view allow);

// The value of the query's first parameter `key` that has one (percent-decoded; `+` is a space).
std::optional<std::string> query_value(std::string_view query, std::string_view key);

// The report's "path" of an upload: the query's `name` parameter, else "upload".
std::string upload_name(std::string_view query);

// `s` without the spaces and tabs around it (a header field's value).
std::string_view trimmed(std::string_view s);

}  // namespace inputanim::http
