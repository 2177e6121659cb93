// Raw bytes as what a client sends on a connection to `inputanim serve`: read with the server's
// own parser set-up (limit_request: an 8 KiB header, no body limit of Beast's) once as they come
// all at once and once in small pieces, then its framing rules (framing_error) and its Host and
// Origin checks (host_error) under a listen address and --allow-host names chosen by the first
// byte, then the query helpers on the target, and the body read as the server reads it (into a
// buffer_body chunk); pipelined requests follow while each is read whole and accepted.
//
// Checked: the two readings agree (the header, and the body when whole; check_agree says where
// Beast makes them differ), and a header read at once is at most twice the limit; a refusal is
// 4xx/5xx with a JSON body that says its status, and closes the connection exactly when bytes
// of the request are left; a request the framing rules accept has one length (no
// Transfer-Encoding and Content-Length together, chunked last and alone, one Content-Length
// whose digits are the length read) and its body is exactly that long; Host is accepted exactly
// for the policy's names (the loopback names and the listen address on the port bound or none,
// an --allow-host name on any port), a Host made of a policy's own names always is, and an
// Origin exactly for http:// on those terms (port 80 when it gives none) or for https:// and an
// --allow-host name; split_authority's parts are the text's; query_value never gives an empty
// value and decodes as application/x-www-form-urlencoded does (never longer than its input);
// upload_name, with_head and trimmed keep their contracts.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "http/framing.hpp"
#include "invariants.hpp"

namespace {

using namespace inputanim::http;
namespace net = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;

// Listen addresses, and --allow-host lists, the first byte picks from.
const std::array<tcp::endpoint, 8> listen_addresses = {
    tcp::endpoint(net::ip::make_address("127.0.0.1"), 8080),
    tcp::endpoint(net::ip::make_address("::1"), 8080),
    tcp::endpoint(net::ip::make_address("0.0.0.0"), 80),
    tcp::endpoint(net::ip::make_address("192.168.1.5"), 8000),
    tcp::endpoint(net::ip::make_address("::"), 8080),
    tcp::endpoint(net::ip::make_address("2001:db8::1"), 443),
    tcp::endpoint(net::ip::make_address("127.0.0.1"), 80),
    tcp::endpoint(net::ip::make_address("127.0.0.2"), 65535)};

const std::array<std::vector<std::string>, 4> allowed_lists = {
    std::vector<std::string>{}, std::vector<std::string>{"proxy.example"},
    std::vector<std::string>{"Example.COM", "[::2]"}, std::vector<std::string>{"localhost"}};

// A policy and the names it is documented to answer as (docs/SERVER.md, "Host and Origin").
struct policy_case {
    host_policy policy;
    std::vector<std::string> local;
    std::vector<std::string> allowed;
    std::string port;
};

policy_case make_case(const tcp::endpoint& bound, std::vector<std::string> allowed) {
    std::vector<std::string> local = {"localhost", "127.0.0.1", "[::1]"};
    const net::ip::address a = bound.address();
    if (!a.is_unspecified()) local.push_back(a.is_v6() ? "[" + a.to_string() + "]" : a.to_string());
    return {host_policy(bound, allowed), std::move(local), std::move(allowed),
            std::to_string(bound.port())};
}

bool names_any(std::string_view host, const std::vector<std::string>& names) {
    return std::any_of(names.begin(), names.end(),
                       [&](const std::string& n) { return beast::iequals(host, n); });
}

std::string upper(std::string s) {
    for (char& c : s) {
        if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    }
    return s;
}

// split_authority's parts are the text's: host[:port], the host never empty and without a space,
// tab, '/' or '@', bracketed up to its first ']' or else without ':', the port digits only.
void check_split(std::string_view text) {
    const std::optional<authority> a = split_authority(text);
    if (!a) {
        // A plain name without a colon, nor a character that may not be in one, always splits.
        FUZZ_CHECK(text.empty() || text.front() == '[' ||
                   text.find_first_of(": \t/@") != std::string_view::npos);
        return;
    }
    FUZZ_CHECK(!a->host.empty());
    FUZZ_CHECK(a->host.find_first_of(" \t/@") == std::string_view::npos);
    FUZZ_CHECK(text.substr(0, a->host.size()) == a->host);
    if (text.front() == '[') {
        FUZZ_CHECK(a->host.back() == ']' && a->host.find(']') == a->host.size() - 1);
    } else {
        FUZZ_CHECK(a->host.find(':') == std::string_view::npos);
    }
    FUZZ_CHECK(a->port.find_first_not_of("0123456789") == std::string_view::npos);
    if (text.size() > a->host.size()) {
        FUZZ_CHECK(text[a->host.size()] == ':' && text.substr(a->host.size() + 1) == a->port);
    } else {
        FUZZ_CHECK(a->port.empty());
    }
}

// The Host rule, said from the names: an --allow-host name on any port, a local name on the port
// bound or none.
void check_host(const policy_case& c, std::string_view text) {
    check_split(text);
    const bool any = c.policy.allows(text);
    const bool allowed_only = c.policy.allows(text, true);
    const std::optional<authority> a = split_authority(text);
    if (!a) {
        FUZZ_CHECK(!any && !allowed_only);
        return;
    }
    FUZZ_CHECK(allowed_only == names_any(a->host, c.allowed));
    FUZZ_CHECK(any == (allowed_only ||
                       ((a->port.empty() || a->port == c.port) && names_any(a->host, c.local))));
}

// The Origin rule: http:// and a name the Host rule takes with the port (80 when none), or an
// --allow-host name on any port; https:// and an --allow-host name.
void check_origin(const policy_case& c, std::string_view origin) {
    const bool allows = c.policy.allows_origin(origin);
    const auto scheme = [&](std::string_view s) {
        return origin.size() > s.size() && beast::iequals(origin.substr(0, s.size()), s);
    };
    bool expected = false;
    if (scheme("http://")) {
        const std::string_view rest = origin.substr(7);
        check_host(c, rest);
        const std::optional<authority> a = split_authority(rest);
        expected = a && (names_any(a->host, c.allowed) ||
                         (names_any(a->host, c.local) &&
                          (a->port.empty() ? std::string_view("80") : a->port) == c.port));
    } else if (scheme("https://")) {
        const std::string_view rest = origin.substr(8);
        check_host(c, rest);
        const std::optional<authority> a = split_authority(rest);
        expected = a && names_any(a->host, c.allowed);
    }
    FUZZ_CHECK(allows == expected);
}

// What a policy's own names make: always accepted.
void check_own_names(const policy_case& c) {
    for (const std::string& n : c.local) {
        FUZZ_CHECK(c.policy.allows(n));
        FUZZ_CHECK(c.policy.allows(upper(n) + ":" + c.port));
        FUZZ_CHECK(c.policy.allows_origin("http://" + n + ":" + c.port));
        if (c.port == "80") FUZZ_CHECK(c.policy.allows_origin("HTTP://" + upper(n)));
        check_host(c, n + ":1");
        check_origin(c, "https://" + n);
    }
    for (const std::string& n : c.allowed) {
        if (!split_authority(n)) continue;
        FUZZ_CHECK(c.policy.allows(n, true));
        FUZZ_CHECK(c.policy.allows(upper(n) + ":1"));
        FUZZ_CHECK(c.policy.allows_origin("https://" + n));
        FUZZ_CHECK(c.policy.allows_origin("http://" + upper(n) + ":65535"));
    }
}

// application/x-www-form-urlencoded as written out in full: '+' a space, %XX a byte, anything
// else (a stray '%' too) itself.
std::string reference_decode(std::string_view s) {
    const auto hex = [](char ch) {
        const std::string_view digits = "0123456789abcdef";
        const char lower = ch >= 'A' && ch <= 'F' ? static_cast<char>(ch - 'A' + 'a') : ch;
        const std::size_t at = digits.find(lower);
        return at == std::string_view::npos ? -1 : static_cast<int>(at);
    };
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '+') {
            out += ' ';
        } else if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
            out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
            i += 2;
        } else {
            out += s[i];
        }
    }
    return out;
}

void check_query_key(std::string_view query, std::string_view key) {
    const std::optional<std::string> value = query_value(query, key);
    std::optional<std::string> expected;
    std::string_view rest = query;
    while (!expected && !rest.empty()) {
        const std::size_t amp = rest.find('&');
        const std::string_view part = rest.substr(0, amp);
        rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
        const std::size_t eq = part.find('=');
        if (eq == std::string_view::npos || part.substr(0, eq) != key) continue;
        std::string decoded = reference_decode(part.substr(eq + 1));
        if (!decoded.empty()) expected = std::move(decoded);
    }
    FUZZ_CHECK(value == expected);
    if (value) FUZZ_CHECK(!value->empty() && value->size() <= query.size());
}

void check_query(std::string_view query) {
    check_query_key(query, "name");
    check_query_key(query, "member");
    const std::string_view first = query.substr(0, std::min(query.find('='), query.find('&')));
    check_query_key(query, first);
    const std::string name = upload_name(query);
    FUZZ_CHECK(name == query_value(query, "name").value_or("upload"));
    // Each parameter's value alone: decoded, never longer.
    std::string_view rest = query;
    while (!rest.empty()) {
        const std::size_t amp = rest.find('&');
        const std::string_view part = rest.substr(0, amp);
        rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
        const std::optional<std::string> v = query_value("k=" + std::string(part), "k");
        FUZZ_CHECK(v.value_or(std::string()) == reference_decode(part));
        if (v) FUZZ_CHECK(v->size() <= part.size());
    }
}

void check_trimmed(std::string_view s) {
    const std::string_view t = trimmed(s);
    FUZZ_CHECK(t.data() >= s.data() && t.data() + t.size() <= s.data() + s.size());
    FUZZ_CHECK(t.empty() ||
               (t.front() != ' ' && t.front() != '\t' && t.back() != ' ' && t.back() != '\t'));
    FUZZ_CHECK(
        s.substr(0, static_cast<std::size_t>(t.data() - s.data())).find_first_not_of(" \t") ==
        std::string_view::npos);
    FUZZ_CHECK(s.substr(static_cast<std::size_t>(t.data() - s.data()) + t.size())
                   .find_first_not_of(" \t") == std::string_view::npos);
}

void check_with_head(std::string_view allow) {
    const std::string out = with_head(allow);
    FUZZ_CHECK(out == allow || out == std::string(allow) + ", HEAD");
}

// A refusal: an error status, its JSON body saying so, and the connection closed exactly when
// bytes of the request are left unread (framing refusals always close).
void check_refusal(const refusal& r) {
    FUZZ_CHECK(r.answer.status >= 400 && r.answer.status <= 599);
    const nlohmann::json body = nlohmann::json::parse(r.answer.body, nullptr, false);
    FUZZ_CHECK(!body.is_discarded() && body.is_object());
    FUZZ_CHECK(body.value("status", 0u) == r.answer.status);
    FUZZ_CHECK(body.contains("error") && body["error"].is_string());
    FUZZ_CHECK(body.contains("message") && body["message"].is_string());
}

bool all_digits(std::string_view s) {
    return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

std::size_t fields_named(const bhttp::fields& f, bhttp::field name) {
    return f.count(name);
}

// The elements of a header list (RFC 9110 §5.6.1) over every field of that name, written out in
// full: split at commas, without the spaces and tabs around them, empty ones left out.
std::vector<std::string> list_of(const bhttp::fields& f, bhttp::field name) {
    std::vector<std::string> out;
    for (auto [field, end] = f.equal_range(name); field != end; ++field) {
        const std::string_view value = field->value();
        std::size_t from = 0;
        for (;;) {
            const std::size_t comma = std::min(value.find(',', from), value.size());
            const std::string_view element = trimmed(value.substr(from, comma - from));
            if (!element.empty()) out.emplace_back(element);
            if (comma == value.size()) break;
            from = comma + 1;
        }
    }
    return out;
}

// One request read from `bytes` (starting at `at`), `step` bytes arriving at a time, its body
// read `chunk` bytes at a time.
struct reading {
    bool header_done = false;
    bool done = false;
    beast::error_code ec;
    std::size_t header_bytes = 0;
    std::size_t used = 0;
    std::string body;
    std::vector<std::pair<std::string, std::string>> fields;
    std::string method;
    std::string target;
    unsigned version = 0;
};

// Two readings of the same bytes, the first arrived at once, the second in pieces, agree: the
// same header, or none; the same body, or none whole. Two exceptions, both Beast's: it finds
// some malformed bytes (a CR before a byte other than LF) only when they arrive in one piece,
// so that the one reading fails where the other waits for more (the server answers 400 where it
// would answer 408 or 431: either refuses); and its header limit bounds what is left unread at
// each put, not the header: read at once, the start line and the fields may each be up to the
// limit; read in pieces, the fields a put takes whole no longer count, so that a header longer
// than the limit may be taken either way (`oversized`), and one that arrives a field at a time
// is not bounded by it at all (only by the server's header timeout): a finding of this
// harness, for the server to bound itself.
bool oversized(const reading& r) {
    return r.header_done && r.header_bytes > request_header_limit;
}

void check_agree(const reading& a, const reading& b) {
    FUZZ_CHECK(!a.header_done || a.header_bytes <= 2 * request_header_limit);
    if (a.header_done != b.header_done) {
        FUZZ_CHECK((oversized(a) && b.ec == bhttp::error::header_limit) ||
                   (oversized(b) && a.ec == bhttp::error::header_limit));
        return;
    }
    if (!a.header_done) return;
    FUZZ_CHECK(a.header_bytes == b.header_bytes && a.fields == b.fields && a.method == b.method &&
               a.target == b.target && a.version == b.version);
    FUZZ_CHECK(a.done == b.done);
    if (a.done) {
        FUZZ_CHECK(!a.ec && !b.ec && a.used == b.used && a.body == b.body);
    } else {
        const std::size_t n = std::min(a.body.size(), b.body.size());
        FUZZ_CHECK(a.body.compare(0, n, b.body, 0, n) == 0);
    }
}

class connection_bytes {
  public:
    connection_bytes(std::string_view bytes, std::size_t at, std::size_t step)
        : bytes_(bytes), used_(at), avail_(std::min(bytes.size(), at + step)), step_(step) {}

    // Gives the parser what has arrived and it has not taken yet; the bytes it takes.
    template <typename Parser>
    std::size_t put(Parser& parser, beast::error_code& ec) {
        const std::size_t n = parser.put(net::buffer(bytes_.data() + used_, avail_ - used_), ec);
        used_ += n;
        return n;
    }
    // The next piece arrives; false when nothing more will.
    bool arrive() {
        if (avail_ == bytes_.size()) return false;
        avail_ = std::min(bytes_.size(), avail_ + step_);
        return true;
    }
    std::size_t used() const { return used_; }

  private:
    std::string_view bytes_;
    std::size_t used_;
    std::size_t avail_;
    std::size_t step_;
};

// Reads the header as http::async_read_header does, then, when `body` and the framing rules
// take it, the body as the server's read_body does.
reading read(request_parser& parser, std::string_view bytes, std::size_t at, std::size_t step,
             std::size_t chunk, bool body) {
    reading r;
    connection_bytes in(bytes, at, step);
    limit_request(parser);
    // Enough rounds for a byte at a time, and a bound should the parser make no progress.
    for (std::size_t rounds = 0; !parser.is_header_done() && rounds <= 2 * bytes.size() + 4;
         ++rounds) {
        const std::size_t n = in.put(parser, r.ec);
        if (r.ec == bhttp::error::need_more || (!r.ec && n == 0)) {
            r.ec = {};
            if (!in.arrive()) break;
            continue;
        }
        if (r.ec) break;
    }
    r.header_done = parser.is_header_done();
    r.header_bytes = in.used() - at;
    if (r.header_done) {
        const auto& req = parser.get();
        r.method = std::string(req.method_string());
        r.target = std::string(req.target());
        r.version = req.version();
        for (const auto& f : req.base()) {
            r.fields.emplace_back(std::string(f.name_string()), std::string(f.value()));
        }
    }
    if (r.header_done && !r.ec && body && !framing_error(parser)) {
        std::vector<char> buffer(chunk);
        for (std::size_t rounds = 0; !parser.is_done() && rounds <= 4 * bytes.size() + 4;
             ++rounds) {
            auto& b = parser.get().body();
            b.data = buffer.data();
            b.size = buffer.size();
            const std::size_t n = in.put(parser, r.ec);
            const std::size_t got = buffer.size() - b.size;
            r.body.append(buffer.data(), got);
            if (r.ec == bhttp::error::need_buffer) {
                r.ec = {};
                continue;
            }
            if (r.ec == bhttp::error::need_more || (!r.ec && n == 0 && got == 0)) {
                r.ec = {};
                if (!in.arrive()) break;
                continue;
            }
            if (r.ec) break;
        }
    }
    r.done = parser.is_done();
    r.used = in.used() - at;
    return r;
}

// What the framing rules accept has one length, read as a proxy in front would read it.
void check_framing(const request_parser& parser, const std::optional<refusal>& refused) {
    const auto& req = parser.get();
    const std::size_t codings = fields_named(req.base(), bhttp::field::transfer_encoding);
    const std::size_t lengths = fields_named(req.base(), bhttp::field::content_length);
    if (refused) {
        check_refusal(*refused);
        FUZZ_CHECK(refused->answer.status == 400 || refused->answer.status == 501);
        FUZZ_CHECK(refused->body_unread);
        // Only what carries a length is refused.
        FUZZ_CHECK(codings > 0 || lengths > 0);
        return;
    }
    FUZZ_CHECK(codings == 0 || lengths == 0);
    if (codings > 0) {
        FUZZ_CHECK(req.version() >= 11);
        FUZZ_CHECK(parser.chunked() && !parser.content_length());
        // `chunked` alone, however the fields and commas say it.
        const std::vector<std::string> list = list_of(req.base(), bhttp::field::transfer_encoding);
        FUZZ_CHECK(list.size() == 1 && beast::iequals(list.front(), "chunked"));
    } else {
        FUZZ_CHECK(!parser.chunked());
    }
    if (lengths > 0) {
        FUZZ_CHECK(lengths == 1);
        const std::vector<std::string> list = list_of(req.base(), bhttp::field::content_length);
        FUZZ_CHECK(list.size() == 1 && all_digits(list.front()));
        const std::string_view text = list.front();
        FUZZ_CHECK(parser.content_length().has_value());
        // The digits are the length (an overflow was refused by Beast).
        std::uint64_t value = 0;
        for (const char d : text) value = value * 10 + static_cast<unsigned>(d - '0');
        FUZZ_CHECK(value == *parser.content_length());
    }
    // Without either, a request has no body (RFC 9112 §6.3): it ends with its header.
    if (codings == 0 && lengths == 0) FUZZ_CHECK(parser.is_done());
}

void check_hosts(const request_parser& parser, const policy_case& c) {
    const auto& req = parser.get();
    const std::optional<refusal> refused = host_error(parser, c.policy);
    const std::size_t hosts = fields_named(req.base(), bhttp::field::host);
    const std::string_view host = trimmed(req[bhttp::field::host]);
    if (hosts == 1) check_host(c, host);
    const bool guarded =
        req.method() == bhttp::verb::post || std::string_view(req.target()).starts_with("/api/");
    const bool has_origin = fields_named(req.base(), bhttp::field::origin) > 0;
    const std::string_view origin = trimmed(req[bhttp::field::origin]);
    if (has_origin) check_origin(c, origin);
    if (!refused) {
        // Accepted: exactly one Host (or none in HTTP/1.0), naming this server; a guarded
        // request from no other site.
        FUZZ_CHECK(hosts == 1 || (hosts == 0 && req.version() < 11));
        if (hosts == 1) FUZZ_CHECK(c.policy.allows(host));
        if (guarded) {
            FUZZ_CHECK(!has_origin || c.policy.allows_origin(origin));
            FUZZ_CHECK(!beast::iequals(trimmed(req["Sec-Fetch-Site"]), "cross-site"));
        }
        return;
    }
    check_refusal(*refused);
    FUZZ_CHECK(refused->body_unread == !parser.is_done());
    switch (refused->answer.status) {
        case 400:
            FUZZ_CHECK(hosts > 1 || (hosts == 0 && req.version() >= 11));
            break;
        case 421:
            FUZZ_CHECK(hosts == 1 && !c.policy.allows(host));
            break;
        case 403:
            FUZZ_CHECK(hosts <= 1 && guarded && (hosts == 0 || c.policy.allows(host)));
            FUZZ_CHECK((has_origin && !c.policy.allows_origin(origin)) ||
                       beast::iequals(trimmed(req["Sec-Fetch-Site"]), "cross-site"));
            break;
        default:
            FUZZ_CHECK(!"host_error answers 400, 421 or 403");
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const unsigned choice = data[0];
    const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
    // Pieces of 1 to 64 bytes, and body chunks of 1 to 64, from the input.
    const std::size_t step = 1 + ((choice >> 5) * 9 + bytes.size()) % 64;
    const std::size_t chunk = 1 + (bytes.size() * 7 + choice) % 64;
    const policy_case policy =
        make_case(listen_addresses[choice & 7], allowed_lists[(choice >> 3) & 3]);
    check_own_names(policy);

    std::size_t at = 0;
    // Pipelined requests: the server reads the next one only after a whole request it accepted.
    for (int request = 0; request < 8 && at < bytes.size(); ++request) {
        request_parser whole;
        const reading a = read(whole, bytes, at, bytes.size(), 32 * 1024, true);
        request_parser pieces;
        const reading b = read(pieces, bytes, at, step, chunk, true);
        // However the bytes arrive and whatever the chunk, the same request and body.
        check_agree(a, b);
        if (!a.header_done) {
            // The server answers 431 past the limit, 400 for a malformed header, or waits.
            FUZZ_CHECK(!a.ec || a.ec == bhttp::error::header_limit ||
                       a.ec.category() ==
                           bhttp::make_error_code(bhttp::error::bad_method).category());
            // 431 for a header past the limit, or for a field folded (obs-fold) into a value
            // past the 4 KiB Beast unfolds into.
            if (a.ec == bhttp::error::header_limit) FUZZ_CHECK(bytes.size() - at > 4096);
            break;
        }
        const auto& req = whole.get();
        check_trimmed(req[bhttp::field::host]);
        check_with_head(req[bhttp::field::allow]);
        check_with_head(req.method_string());
        const std::string_view target = req.target();
        const std::size_t question = target.find('?');
        if (question != std::string_view::npos) check_query(target.substr(question + 1));

        const std::optional<refusal> framing = framing_error(whole);
        check_framing(whole, framing);
        // The Host and Origin rules under the chosen policy, and under one whose --allow-host
        // name is this Host's: a Host made of the policy's own names is always accepted.
        check_hosts(whole, policy);
        const std::string_view host = trimmed(req[bhttp::field::host]);
        if (const std::optional<authority> h = split_authority(host)) {
            const policy_case own = make_case(listen_addresses[(choice + 1) & 7],
                                              std::vector<std::string>{std::string(h->host)});
            FUZZ_CHECK(own.policy.allows(host) && own.policy.allows(host, true));
            FUZZ_CHECK(own.policy.allows_origin("https://" + std::string(host)));
            check_own_names(own);
            check_hosts(whole, own);
        }
        if (framing || host_error(whole, policy.policy)) break;
        if (a.done) {
            // A body read whole is exactly the length declared.
            if (const auto length = whole.content_length()) FUZZ_CHECK(a.body.size() == *length);
            FUZZ_CHECK(a.body.size() <= a.used);
        }
        if (!a.done || !req.keep_alive() || a.used == 0) break;
        at += a.used;
    }
    return 0;
}
