#include "http/framing.hpp"

#include <charconv>

namespace inputanim::http {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

namespace {

refusal framing_refusal(unsigned status, std::string_view code, std::string message) {
    // Where this request ends is not known the way a proxy in front may know it: no byte after
    // its header is read as a request.
    return {error_response(status, code, std::move(message)), true};
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// application/x-www-form-urlencoded: '+' is a space, %XX a byte; a stray '%' stays as it is.
std::string percent_decode(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '+') {
            out += ' ';
        } else if (s[i] == '%' && i + 2 < s.size() && hex_digit(s[i + 1]) >= 0 &&
                   hex_digit(s[i + 2]) >= 0) {
            out += static_cast<char>(hex_digit(s[i + 1]) * 16 + hex_digit(s[i + 2]));
            i += 2;
        } else {
            out += s[i];
        }
    }
    return out;
}

// Adds the elements of a comma-separated header list (RFC 9110 §5.6.1) to `elements`, without
// their surrounding whitespace; empty elements are ignored, as the RFC asks.
void add_list_elements(std::string_view value, std::vector<std::string_view>& elements) {
    while (!value.empty()) {
        const std::size_t comma = value.find(',');
        const std::string_view element = trimmed(value.substr(0, comma));
        if (!element.empty()) elements.push_back(element);
        value = comma == std::string_view::npos ? std::string_view() : value.substr(comma + 1);
    }
}

// The elements of a list over every field of that name: several fields are one list.
std::vector<std::string_view> list_elements(const http::fields& fields, http::field name) {
    std::vector<std::string_view> elements;
    for (auto [field, end] = fields.equal_range(name); field != end; ++field) {
        add_list_elements(field->value(), elements);
    }
    return elements;
}

std::string joined(const std::vector<std::string_view>& elements) {
    std::string text;
    for (const std::string_view e : elements) {
        if (!text.empty()) text += ", ";
        text += e;
    }
    return text;
}

}  // namespace

std::optional<tcp::endpoint> parse_listen(const std::string& text) {
    const std::size_t colon = text.rfind(':');
    if (colon == std::string::npos) return std::nullopt;
    std::string host = text.substr(0, colon);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
        host = host.substr(1, host.size() - 2);
    }
    beast::error_code ec;
    const net::ip::address address = net::ip::make_address(host, ec);
    if (ec) return std::nullopt;
    const std::string_view port_text = std::string_view(text).substr(colon + 1);
    unsigned port = 0;
    const char* end = port_text.data() + port_text.size();
    const auto [ptr, err] = std::from_chars(port_text.data(), end, port);
    if (port_text.empty() || err != std::errc{} || ptr != end || port > 65535) return std::nullopt;
    return tcp::endpoint(address, static_cast<unsigned short>(port));
}

std::string_view trimmed(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

std::optional<std::string> query_value(std::string_view query, std::string_view key) {
    while (!query.empty()) {
        const std::size_t amp = query.find('&');
        const std::string_view part = query.substr(0, amp);
        query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
        const std::size_t eq = part.find('=');
        if (eq != std::string_view::npos && part.substr(0, eq) == key) {
            std::string value = percent_decode(part.substr(eq + 1));
            if (!value.empty()) return value;
        }
    }
    return std::nullopt;
}

std::string upload_name(std::string_view query) {
    return query_value(query, "name").value_or("upload");
}

std::optional<authority> split_authority(std::string_view text) {
    authority a;
    std::size_t host_end = 0;
    if (text.starts_with('[')) {
        host_end = text.find(']');
        if (host_end == std::string_view::npos) return std::nullopt;
        ++host_end;
    } else {
        host_end = std::min(text.find(':'), text.size());
    }
    a.host = text.substr(0, host_end);
    std::string_view rest = text.substr(host_end);
    if (!rest.empty()) {
        if (rest.front() != ':') return std::nullopt;
        a.port = rest.substr(1);
        if (a.port.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
    }
    if (a.host.empty() || a.host.find_first_of(" \t/@") != std::string_view::npos) {
        return std::nullopt;
    }
    return a;
}

std::optional<refusal> framing_error(const request_parser& parser) {
    const auto& req = parser.get();
    const std::vector<std::string_view> codings =
        list_elements(req.base(), http::field::transfer_encoding);
    const std::size_t lengths = req.base().count(http::field::content_length);
    if (req.base().count(http::field::transfer_encoding) > 0) {
        if (req.version() < 11) {
            return framing_refusal(400, "bad_request",
                                   "Transfer-Encoding in an HTTP/1.0 request: the body's length "
                                   "is unknown");
        }
        if (lengths > 0) {
            return framing_refusal(400, "bad_request",
                                   "both Transfer-Encoding and Content-Length: the body's length "
                                   "is ambiguous");
        }
        const auto chunked = [](std::string_view c) { return beast::iequals(c, "chunked"); };
        if (std::count_if(codings.begin(), codings.end(), chunked) > 1) {
            return framing_refusal(400, "bad_request",
                                   "Transfer-Encoding: chunked is applied more than once");
        }
        // Beast reads the body as chunked when `chunked` ends a field: both readings must agree.
        if (codings.empty() || !chunked(codings.back()) || !parser.chunked()) {
            return framing_refusal(400, "bad_request",
                                   "Transfer-Encoding: " + joined(codings) +
                                       ": the final transfer coding must be chunked");
        }
        if (codings.size() > 1) {
            return framing_refusal(501, "unsupported_transfer_encoding",
                                   "transfer coding " + std::string(codings.front()) +
                                       " is not supported: send Transfer-Encoding: chunked alone");
        }
    }
    if (lengths > 1 || list_elements(req.base(), http::field::content_length).size() > 1) {
        return framing_refusal(400, "bad_request", "more than one Content-Length");
    }
    return std::nullopt;
}

std::optional<refusal> host_error(const request_parser& parser, const host_policy& policy) {
    const auto& req = parser.get();
    const std::size_t hosts = req.base().count(http::field::host);
    std::optional<response> refused;
    if (hosts > 1 || (hosts == 0 && req.version() >= 11)) {
        refused = error_response(
            400, "bad_request", hosts > 1 ? "more than one Host" : "no Host: HTTP/1.1 requires it");
    } else if (hosts == 1 && !policy.allows(trimmed(req[http::field::host]))) {
        refused = error_response(421, "misdirected_request",
                                 "this server does not answer as host " +
                                     std::string(trimmed(req[http::field::host])) +
                                     ": it answers as localhost, 127.0.0.1, [::1], its listen "
                                     "address and the names given with --allow-host");
    } else if (req.method() == http::verb::post ||
               std::string_view(req.target()).starts_with("/api/")) {
        const bool post = req.method() == http::verb::post;
        const bool cross_site = req.base().count(http::field::origin) > 0 &&
                                !policy.allows_origin(trimmed(req[http::field::origin]));
        if (cross_site || beast::iequals(trimmed(req["Sec-Fetch-Site"]), "cross-site")) {
            const std::string from =
                cross_site ? "Origin " + std::string(trimmed(req[http::field::origin]))
                           : std::string("Sec-Fetch-Site: cross-site");
            refused = error_response(
                403, "cross_site",
                post ? "a POST from an other site's page (" + from +
                           ") is refused: upload from this server's own page"
                     : "the viewer's data is for its own page: a request from an other site's "
                       "page (" +
                           from + ") is refused");
        }
    }
    if (!refused) return std::nullopt;
    return refusal{std::move(*refused), !parser.is_done()};
}

std::string with_head(std::string_view allow) {
    std::vector<std::string_view> methods;
    add_list_elements(allow, methods);
    const bool get = std::find(methods.begin(), methods.end(), "GET") != methods.end();
    const bool head = std::find(methods.begin(), methods.end(), "HEAD") != methods.end();
    return get && !head ? std::string(allow) + ", HEAD" : std::string(allow);
}

}  // namespace inputanim::http
