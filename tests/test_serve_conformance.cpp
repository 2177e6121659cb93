// The HTTP/1.1 conformance list of `inputanim serve` (docs/SERVER.md, "Conformance"), over
// loopback with raw sockets: message framing by Transfer-Encoding and Content-Length (RFC 9112
// §6), HEAD (RFC 9110 §9.3.2), pipelining, and slow bodies. A request whose framing is refused
// carries a second request in the bytes after its header, as a smuggler's would: that request
// must never be answered nor logged.
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_fixture.hpp"
#include "support/serve_client.hpp"

using namespace inputanim;
using namespace inputanim::testing;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

// One HTTP response as a client reads it off a stream of responses.
struct response {
    int status = 0;
    // The status line and the header fields, up to and without the empty line.
    std::string head;
    std::string body;

    // The value of the header field `name` (as the server spells it), or "" without it.
    std::string field(const std::string& name) const {
        const std::string key = "\r\n" + name + ": ";
        const std::size_t at = head.find(key);
        if (at == std::string::npos) return "";
        const std::size_t start = at + key.size();
        return head.substr(start, head.find("\r\n", start) - start);
    }
};

// Responses read off a stream, and the bytes after the last whole one.
struct response_stream {
    std::vector<response> responses;
    std::string rest;
};

// The responses in `stream`, each ending after its Content-Length bytes of body, or with no body
// when the i-th request was HEAD (`head[i]`).
response_stream split_responses(std::string_view stream, const std::vector<bool>& head = {}) {
    response_stream out;
    for (;;) {
        const std::size_t end = stream.find("\r\n\r\n");
        if (!stream.starts_with("HTTP/1.") || end == std::string_view::npos) break;
        response r;
        r.head = std::string(stream.substr(0, end));
        r.status = std::stoi(r.head.substr(9, 3));
        const std::string length = r.field("Content-Length");
        const std::size_t body_size =
            head.size() > out.responses.size() && head[out.responses.size()]
                ? 0
                : static_cast<std::size_t>(length.empty() ? 0 : std::stoull(length));
        if (stream.size() < end + 4 + body_size) break;
        r.body = std::string(stream.substr(end + 4, body_size));
        stream.remove_prefix(end + 4 + body_size);
        out.responses.push_back(std::move(r));
    }
    out.rest = std::string(stream);
    return out;
}

// `text` in chunked coding: pieces of 100 bytes, then the last chunk.
std::string chunked(const std::string& text) {
    std::string out;
    for (std::size_t at = 0; at < text.size(); at += 100) {
        out += chunk(text.substr(at, 100));
    }
    return out + last_chunk;
}

// A valid recording of a few hundred bytes.
const std::string& small_recording() {
    static const std::string text = as_text(small_file(shape::v11_compact));
    return text;
}

// What a smuggler puts after a header whose framing a proxy in front reads otherwise.
const std::string smuggled = "GET /smuggled HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

// A POST to /validate with the given framing fields and body bytes.
std::string post(const std::string& fields, const std::string& body,
                 const std::string& version = "HTTP/1.1") {
    return "POST /validate " + version + "\r\nHost: 127.0.0.1\r\n" + fields + "\r\n" + body;
}

class ServeConformance : public serve_fixture {
  protected:
    // Sends `request` on a new connection; what came back until the server closed it (or 5
    // seconds passed), and whether it closed it.
    std::pair<std::string, bool> exchange(const std::string& request) {
        raw_client c(server_->port());
        EXPECT_TRUE(c.send(request));
        std::string in = c.read_all(5s);
        return {std::move(in), c.closed()};
    }

    // `request` (with a smuggled request after its header) is answered `status` with the error
    // `code`, Connection: close, and nothing else: the connection is closed and the smuggled
    // request is neither answered nor logged.
    void expect_refused(const std::string& request, int status, const std::string& code) {
        const auto [in, closed] = exchange(request);
        const response_stream rs = split_responses(in);
        ASSERT_EQ(rs.responses.size(), 1u) << ::testing::PrintToString(request) << " got " << in;
        EXPECT_EQ(rs.responses[0].status, status) << rs.responses[0].head;
        EXPECT_EQ(rs.responses[0].field("Connection"), "close");
        EXPECT_EQ(json::parse(rs.responses[0].body)["error"], code) << rs.responses[0].body;
        EXPECT_EQ(rs.rest, "");
        EXPECT_TRUE(closed);
        // Log lines are written before the connection closes.
        EXPECT_TRUE(server_->log_has(" " + std::to_string(status) + " ")) << server_->log();
        EXPECT_EQ(server_->log().find("/smuggled"), std::string::npos) << server_->log();
    }
};

// --- Transfer-Encoding (RFC 9112 §6.1, §6.3) ---

TEST_F(ServeConformance, TransferEncodingChunkedIsReadAsTheBodyAndTheConnectionStaysOpen) {
    start();
    const auto [in, closed] =
        exchange(post("Transfer-Encoding: chunked\r\n", chunked(small_recording())) +
                 get("/healthz", "Connection: close\r\n"));
    const response_stream rs = split_responses(in);
    ASSERT_EQ(rs.responses.size(), 2u) << in;
    EXPECT_EQ(rs.responses[0].status, 200);
    EXPECT_EQ(json::parse(rs.responses[0].body)["valid"], true) << rs.responses[0].body;
    EXPECT_EQ(json::parse(rs.responses[0].body)["bytes"], small_recording().size());
    EXPECT_EQ(rs.responses[1].body, "ok\n");
    EXPECT_TRUE(closed);
}

TEST_F(ServeConformance, TheChunkedCodingNameIsCaseInsensitive) {
    start();
    for (const std::string name : {"Chunked", "CHUNKED", " chunked "}) {
        const auto [in, closed] = exchange(post(
            "Transfer-Encoding:" + name + "\r\nConnection: close\r\n", chunked(small_recording())));
        const response_stream rs = split_responses(in);
        ASSERT_EQ(rs.responses.size(), 1u) << in;
        EXPECT_EQ(rs.responses[0].status, 200) << name;
        EXPECT_EQ(json::parse(rs.responses[0].body)["bytes"], small_recording().size()) << name;
    }
}

TEST_F(ServeConformance, TransferEncodingXchunkedIs400AndClosesTheConnection) {
    start();
    expect_refused(post("Transfer-Encoding: xchunked\r\n", smuggled), 400, "bad_request");
}

TEST_F(ServeConformance, TransferEncodingChunkedThenIdentityIs400AndClosesTheConnection) {
    start();
    expect_refused(post("Transfer-Encoding: chunked, identity\r\n", smuggled), 400, "bad_request");
}

TEST_F(ServeConformance, ChunkedThenIdentityInTwoFieldsIs400AndClosesTheConnection) {
    start();
    expect_refused(post("Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n", smuggled),
                   400, "bad_request");
}

TEST_F(ServeConformance, TransferEncodingIdentityIs400AndClosesTheConnection) {
    start();
    expect_refused(post("Transfer-Encoding: identity\r\n", smuggled), 400, "bad_request");
}

TEST_F(ServeConformance, TransferEncodingGzipAloneIs400AndClosesTheConnection) {
    start();
    expect_refused(post("Transfer-Encoding: gzip\r\n", smuggled), 400, "bad_request");
}

TEST_F(ServeConformance, AnEmptyTransferEncodingIs400AndClosesTheConnection) {
    start();
    expect_refused(post("Transfer-Encoding: \r\n", smuggled), 400, "bad_request");
    expect_refused(post("Transfer-Encoding: ,\r\n", smuggled), 400, "bad_request");
}

TEST_F(ServeConformance, ChunkedAppliedTwiceIs400AndClosesTheConnection) {
    start();
    expect_refused(post("Transfer-Encoding: chunked, chunked\r\n", "0\r\n\r\n" + smuggled), 400,
                   "bad_request");
    expect_refused(post("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n",
                        "0\r\n\r\n" + smuggled),
                   400, "bad_request");
}

TEST_F(ServeConformance, AnotherCodingBeforeChunkedIs501AndClosesTheConnection) {
    start();
    expect_refused(post("Transfer-Encoding: gzip, chunked\r\n", "0\r\n\r\n" + smuggled), 501,
                   "unsupported_transfer_encoding");
}

TEST_F(ServeConformance, TransferEncodingWithContentLengthIs400AndClosesTheConnection) {
    start();
    // Both orders, with chunked (the classic CL.TE and TE.CL smuggling) and with a coding that
    // is not chunked.
    for (const std::string& fields :
         {std::string("Content-Length: 5\r\nTransfer-Encoding: chunked\r\n"),
          std::string("Transfer-Encoding: chunked\r\nContent-Length: 5\r\n"),
          std::string("Content-Length: 5\r\nTransfer-Encoding: identity\r\n"),
          std::string("Transfer-Encoding: identity\r\nContent-Length: 5\r\n")}) {
        expect_refused(post(fields, "0\r\n\r\n" + smuggled), 400, "bad_request");
    }
}

TEST_F(ServeConformance, TransferEncodingInAnHttp10RequestIs400AndClosesTheConnection) {
    start();
    const std::string body = chunked(small_recording()) + smuggled;
    const auto [in, closed] = exchange(post("Transfer-Encoding: chunked\r\n", body, "HTTP/1.0"));
    const response_stream rs = split_responses(in);
    ASSERT_EQ(rs.responses.size(), 1u) << in;
    EXPECT_EQ(rs.responses[0].head.rfind("HTTP/1.0 400 Bad Request\r\n", 0), 0u);
    EXPECT_EQ(json::parse(rs.responses[0].body)["error"], "bad_request");
    EXPECT_EQ(rs.rest, "");
    EXPECT_TRUE(closed);
    EXPECT_EQ(server_->log().find("/smuggled"), std::string::npos);
}

// --- Content-Length (RFC 9112 §6.3, RFC 9110 §8.6) ---

TEST_F(ServeConformance, AValidContentLengthIsReadAsTheBodyAndTheConnectionStaysOpen) {
    start();
    const auto [in, closed] =
        exchange(post("Content-Length: " + std::to_string(small_recording().size()) + "\r\n",
                      small_recording()) +
                 get("/healthz", "Connection: close\r\n"));
    const response_stream rs = split_responses(in);
    ASSERT_EQ(rs.responses.size(), 2u) << in;
    EXPECT_EQ(rs.responses[0].status, 200);
    EXPECT_EQ(json::parse(rs.responses[0].body)["bytes"], small_recording().size());
    EXPECT_EQ(rs.responses[1].body, "ok\n");
    EXPECT_TRUE(closed);
}

TEST_F(ServeConformance, ADuplicateContentLengthOfTheSameValueIs400) {
    start();
    const std::string n = std::to_string(small_recording().size());
    expect_refused(post("Content-Length: " + n + "\r\nContent-Length: " + n + "\r\n",
                        small_recording() + smuggled),
                   400, "bad_request");
    expect_refused(post("Content-Length: " + n + ", " + n + "\r\n", small_recording() + smuggled),
                   400, "bad_request");
}

TEST_F(ServeConformance, ConflictingContentLengthsAre400) {
    start();
    expect_refused(post("Content-Length: 0\r\nContent-Length: 50\r\n", smuggled), 400,
                   "bad_request");
    expect_refused(post("Content-Length: 0, 50\r\n", smuggled), 400, "bad_request");
}

TEST_F(ServeConformance, ANonNumericContentLengthIs400) {
    start();
    for (const std::string value : {"abc", "12a", "+12", "0x10", "1 2", "1.5", ""}) {
        expect_refused(post("Content-Length: " + value + "\r\n", smuggled), 400, "bad_request");
    }
}

TEST_F(ServeConformance, ANegativeContentLengthIs400) {
    start();
    expect_refused(post("Content-Length: -1\r\n", smuggled), 400, "bad_request");
}

TEST_F(ServeConformance, AContentLengthThatOverflows64BitsIs400) {
    start();
    for (const std::string value : {"18446744073709551616", "99999999999999999999999999"}) {
        expect_refused(post("Content-Length: " + value + "\r\n", smuggled), 400, "bad_request");
    }
}

TEST_F(ServeConformance, AContentLengthOverTheLimitIs413AndTheBodyIsNotRead) {
    start({"--max-bytes", "1000"});
    const auto [in, closed] = exchange(post("Content-Length: 1001\r\n", smuggled));
    const response_stream rs = split_responses(in);
    ASSERT_EQ(rs.responses.size(), 1u) << in;
    EXPECT_EQ(rs.responses[0].status, 413);
    EXPECT_EQ(rs.responses[0].field("Connection"), "close");
    EXPECT_EQ(json::parse(rs.responses[0].body)["error"]["limit"], "max_bytes");
    EXPECT_TRUE(closed);
    EXPECT_TRUE(server_->log_has("\"POST /validate\" 413 0 "));
    EXPECT_EQ(server_->log().find("/smuggled"), std::string::npos);
}

// --- HEAD (RFC 9110 §9.3.2) ---

TEST_F(ServeConformance, HeadIsAnsweredWithTheHeadersOfGetAndNoBodyOnEveryRoute) {
    start();
    for (const std::string target :
         {"/healthz", "/healthz?x=1", "/validate", "/validate?name=a.bin", "/nowhere", "/"}) {
        const auto [in, closed] =
            exchange(head_request(target) + get(target) + get("/healthz", "Connection: close\r\n"));
        const response_stream rs = split_responses(in, {true, false, false});
        ASSERT_EQ(rs.responses.size(), 3u) << target << ": " << in;
        const response& head = rs.responses[0];
        const response& get = rs.responses[1];
        EXPECT_EQ(head.head, get.head) << target;
        EXPECT_EQ(head.body, "") << target;
        EXPECT_FALSE(get.body.empty()) << target;
        EXPECT_EQ(head.field("Content-Length"), std::to_string(get.body.size())) << target;
        // Still in step: the third answer is healthz's, and nothing is left over.
        EXPECT_EQ(rs.responses[2].body, "ok\n") << target;
        EXPECT_EQ(rs.rest, "") << target;
        EXPECT_TRUE(closed) << target;
    }
}

TEST_F(ServeConformance, HeadThenGetOnOneConnectionReadsBothResponsesInStep) {
    server_process& s = start();
    raw_client c(s.port());
    ASSERT_TRUE(c.send(head_request("/healthz")));
    // The answer to HEAD, and no body after it even when the client waits for one.
    const response_stream first = split_responses(c.read_all(500ms), {true});
    ASSERT_EQ(first.responses.size(), 1u);
    EXPECT_EQ(first.responses[0].status, 200);
    EXPECT_EQ(first.responses[0].field("Content-Length"), "3");
    EXPECT_EQ(first.rest, "");
    EXPECT_FALSE(c.closed());
    ASSERT_TRUE(c.send(get("/healthz", "Connection: close\r\n")));
    const std::string in = c.read_all(5s);
    const response_stream second = split_responses(in);
    ASSERT_EQ(second.responses.size(), 1u) << in;
    EXPECT_EQ(second.responses[0].status, 200);
    EXPECT_EQ(second.responses[0].body, "ok\n");
    EXPECT_EQ(second.rest, "");
    EXPECT_TRUE(s.log_has("\"HEAD /healthz\" 200 0 "));
}

TEST_F(ServeConformance, HeadOfAPostOnlyResourceIs405WithoutABody) {
    start();
    const auto [in, closed] = exchange(head_request("/validate", "Connection: close\r\n"));
    const response_stream rs = split_responses(in, {true});
    ASSERT_EQ(rs.responses.size(), 1u) << in;
    EXPECT_EQ(rs.responses[0].status, 405);
    EXPECT_EQ(rs.responses[0].field("Allow"), "POST");
    EXPECT_NE(rs.responses[0].field("Content-Length"), "0");
    EXPECT_EQ(rs.rest, "");
    EXPECT_TRUE(closed);
}

TEST_F(ServeConformance, TheAllowListOfAGetResourceNamesHead) {
    start();
    const auto [in, closed] =
        exchange("POST /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    const response_stream rs = split_responses(in);
    ASSERT_EQ(rs.responses.size(), 1u) << in;
    EXPECT_EQ(rs.responses[0].status, 405);
    EXPECT_EQ(rs.responses[0].field("Allow"), "GET, HEAD");
}

// --- Pipelining (RFC 9112 §9.3.2) ---

TEST_F(ServeConformance, ThreeRequestsInOneWriteAreAnsweredInOrder) {
    start();
    const auto [in, closed] =
        exchange(get("/healthz") +
                 post("Content-Length: " + std::to_string(small_recording().size()) + "\r\n",
                      small_recording()) +
                 get("/nowhere", "Connection: close\r\n"));
    const response_stream rs = split_responses(in);
    ASSERT_EQ(rs.responses.size(), 3u) << in;
    EXPECT_EQ(rs.responses[0].body, "ok\n");
    EXPECT_EQ(json::parse(rs.responses[1].body)["bytes"], small_recording().size());
    EXPECT_EQ(rs.responses[2].status, 404);
    EXPECT_EQ(rs.rest, "");
    EXPECT_TRUE(closed);
}

TEST_F(ServeConformance, RequestsAfterAChunkedBodyInTheSameWriteAreAnsweredInOrder) {
    start();
    const auto [in, closed] =
        exchange(post("Transfer-Encoding: chunked\r\n", chunked(small_recording())) +
                 head_request("/healthz") + get("/healthz", "Connection: close\r\n"));
    const response_stream rs = split_responses(in, {false, true, false});
    ASSERT_EQ(rs.responses.size(), 3u) << in;
    EXPECT_EQ(json::parse(rs.responses[0].body)["valid"], true);
    EXPECT_EQ(rs.responses[1].status, 200);
    EXPECT_EQ(rs.responses[1].body, "");
    EXPECT_EQ(rs.responses[2].body, "ok\n");
    EXPECT_EQ(rs.rest, "");
    EXPECT_TRUE(closed);
}

// --- Slow bodies ---

// Sends one byte of `body` every `interval` after `header` until the server closes the
// connection or `limit` passes: how long the server kept it.
steady::duration trickle(raw_client& c, const std::string& header, const std::string& body,
                         std::chrono::milliseconds interval, std::chrono::seconds limit) {
    const steady::time_point start = steady::now();
    EXPECT_TRUE(c.send(header));
    for (std::size_t i = 0; i < body.size() && steady::now() - start < limit; ++i) {
        c.read_all(interval);
        if (c.closed()) break;
        c.send(body.substr(i, 1));
    }
    return steady::now() - start;
}

TEST_F(ServeConformance, ABodyBelowTheMinimumRateIsCutAfterTheTimeoutPlusItsCredit) {
    // 10 bytes a second against a minimum of 100: cut at 1 s + received/100 s, about 1.1 s,
    // although no read waits as long as the timeout.
    server_process& s = start({"--timeout", "1", "--min-rate", "100", "--request-deadline", "60"});
    raw_client c(s.port());
    const std::string header = "POST /validate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " +
                               std::to_string(small_recording().size()) + "\r\n\r\n";
    const steady::duration kept = trickle(c, header, small_recording(), 100ms, 10s);
    EXPECT_TRUE(c.closed());
    EXPECT_GT(kept, 900ms);
    EXPECT_LT(kept, 2500ms);
    EXPECT_TRUE(s.log_has("\"POST /validate\" 408 ")) << s.log();
}

TEST_F(ServeConformance, ABodyIsCutAtTheRequestDeadlineWhateverItsRate) {
    // No minimum rate, each read well within the timeout: only the deadline stops it.
    server_process& s = start({"--timeout", "1", "--min-rate", "0", "--request-deadline", "2"});
    raw_client c(s.port());
    const std::string header =
        "POST /validate HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        "Transfer-Encoding: chunked\r\n\r\n";
    const steady::duration kept = trickle(c, header, chunked(small_recording()), 100ms, 10s);
    EXPECT_TRUE(c.closed());
    EXPECT_GT(kept, 1800ms);
    EXPECT_LT(kept, 3500ms);
    EXPECT_TRUE(s.log_has("\"POST /validate\" 408 ")) << s.log();
}

TEST_F(ServeConformance, ABodyAtTheMinimumRateIsReadWholePastTheTimeout) {
    // Ten pieces 150 ms apart: longer than the timeout, faster than the minimum rate.
    const std::string& body = small_recording();
    const std::size_t piece = body.size() / 10 + 1;
    ASSERT_GT(piece * 1000 / 150, 100u);
    server_process& s = start({"--timeout", "1", "--min-rate", "100"});
    raw_client c(s.port());
    ASSERT_TRUE(
        c.send("POST /validate HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
               "Content-Length: " +
               std::to_string(body.size()) + "\r\n\r\n"));
    const steady::time_point start_time = steady::now();
    for (std::size_t at = 0; at < body.size(); at += piece) {
        std::this_thread::sleep_for(150ms);
        ASSERT_TRUE(c.send(body.substr(at, piece)));
    }
    ASSERT_GT(steady::now() - start_time, 1s) << "the body must take longer than the timeout";
    const response_stream rs = split_responses(c.read_all(5s));
    ASSERT_EQ(rs.responses.size(), 1u);
    EXPECT_EQ(rs.responses[0].status, 200);
    EXPECT_EQ(json::parse(rs.responses[0].body)["valid"], true);
}

TEST_F(ServeConformance, TricklingClientsReleaseTheirConnectionsWithinTheDocumentedTime) {
    // Two clients holding both connections by each sending a byte more often than the timeout:
    // others are refused (503) only until the minimum rate cuts them.
    server_process& s = start({"--max-connections", "2", "--timeout", "1", "--min-rate", "100",
                               "--request-deadline", "60"});
    const std::string header = "POST /validate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " +
                               std::to_string(small_recording().size()) + "\r\n\r\n";
    raw_client a(s.port());
    raw_client b(s.port());
    ASSERT_TRUE(a.send(header));
    ASSERT_TRUE(b.send(header));
    {
        raw_client refused(s.port());
        ASSERT_TRUE(refused.send(get("/healthz")));
        EXPECT_EQ(refused.read_all(300ms).rfind("HTTP/1.1 503 ", 0), 0u);
    }
    const steady::time_point start_time = steady::now();
    for (std::size_t i = 0; i < small_recording().size() && !(a.closed() && b.closed()); ++i) {
        a.read_all(50ms);
        b.read_all(50ms);
        if (!a.closed()) a.send(small_recording().substr(i, 1));
        if (!b.closed()) b.send(small_recording().substr(i, 1));
        ASSERT_LT(steady::now() - start_time, 5s) << "the trickling clients are still served";
    }
    EXPECT_LT(steady::now() - start_time, 2500ms);
    const response_stream rs =
        split_responses(exchange(get("/healthz", "Connection: close\r\n")).first);
    ASSERT_EQ(rs.responses.size(), 1u);
    EXPECT_EQ(rs.responses[0].status, 200);
}

// --- Host and Origin (docs/SERVER.md, "Host and Origin") ---

// A request with these header fields, on a new connection: the first response.
response answer_to(raw_client& c, const std::string& request) {
    EXPECT_TRUE(c.send(request));
    const response_stream rs = split_responses(c.read_all(5s));
    return rs.responses.empty() ? response{} : rs.responses[0];
}

std::string request_to(const std::string& line, const std::string& fields,
                       const std::string& body = "") {
    return line + "\r\n" + fields + "Content-Length: " + std::to_string(body.size()) +
           "\r\nConnection: close\r\n\r\n" + body;
}

TEST_F(ServeConformance, AHostThatIsNotThisServersIs421WithAnErrorObject) {
    server_process& s = start();
    const std::string port = std::to_string(s.port());
    // A page of attacker.example whose name was rebound to 127.0.0.1, a name with this port
    // that is not the server's, and the server's own name on an other port.
    for (const std::string& host : std::vector<std::string>{
             "attacker.example:" + port, "attacker.example", "127.0.0.1.nip.io:" + port,
             "127.0.0.1:" + std::to_string(s.port() == 65535 ? 1 : s.port() + 1)}) {
        raw_client c(s.port());
        const response r =
            answer_to(c, request_to("GET /healthz HTTP/1.1", "Host: " + host + "\r\n"));
        EXPECT_EQ(r.status, 421) << host;
        EXPECT_EQ(r.field("Content-Type"), "application/json");
        EXPECT_EQ(json::parse(r.body, nullptr, false)["error"], "misdirected_request") << r.body;
    }
    raw_client upload(s.port());
    EXPECT_EQ(
        answer_to(upload, request_to("POST /validate HTTP/1.1",
                                     "Host: attacker.example:" + port + "\r\n", small_recording()))
            .status,
        421);
}

TEST_F(ServeConformance, TheLoopbackNamesAndTheListenAddressWithTheirPortAreThisServers) {
    server_process& s = start();
    const std::string port = std::to_string(s.port());
    for (const std::string& host :
         std::vector<std::string>{"127.0.0.1:" + port, "localhost:" + port, "LocalHost:" + port,
                                  "[::1]:" + port, "127.0.0.1", "localhost"}) {
        raw_client c(s.port());
        EXPECT_EQ(
            answer_to(c, request_to("GET /healthz HTTP/1.1", "Host: " + host + "\r\n")).status, 200)
            << host;
    }
}

TEST_F(ServeConformance, AnHttp11RequestWithoutExactlyOneHostIs400) {
    server_process& s = start();
    raw_client none(s.port());
    EXPECT_EQ(answer_to(none, request_to("GET /healthz HTTP/1.1", "")).status, 400);
    raw_client two(s.port());
    EXPECT_EQ(answer_to(two, request_to("GET /healthz HTTP/1.1",
                                        "Host: 127.0.0.1\r\nHost: localhost\r\n"))
                  .status,
              400);
    // HTTP/1.0 has no Host to require.
    raw_client old(s.port());
    EXPECT_EQ(answer_to(old, request_to("GET /healthz HTTP/1.0", "")).status, 200);
}

TEST_F(ServeConformance, APostFromAnOtherSitesPageIs403) {
    server_process& s = start();
    const std::string port = std::to_string(s.port());
    const std::string host = "Host: 127.0.0.1:" + port + "\r\n";
    for (const std::string& target : {std::string("/validate"), std::string("/view")}) {
        for (const std::string& fields : std::vector<std::string>{
                 "Origin: http://attacker.example\r\n", "Origin: null\r\n",
                 "Origin: http://127.0.0.1:" +
                     std::to_string(s.port() == 65535 ? 1 : s.port() + 1) + "\r\n",
                 "Origin: https://127.0.0.1:" + port + "\r\n", "Sec-Fetch-Site: cross-site\r\n"}) {
            raw_client c(s.port());
            const response r = answer_to(
                c, request_to("POST " + target + " HTTP/1.1", host + fields, small_recording()));
            EXPECT_EQ(r.status, 403) << target << " " << fields;
            EXPECT_EQ(json::parse(r.body, nullptr, false)["error"], "cross_site") << r.body;
        }
    }
}

TEST_F(ServeConformance, APostFromThisServersPageOrWithoutOriginIsAnswered) {
    server_process& s = start();
    const std::string port = std::to_string(s.port());
    const std::string host = "Host: 127.0.0.1:" + port + "\r\n";
    for (const std::string& fields : std::vector<std::string>{
             std::string(),
             "Origin: http://127.0.0.1:" + port + "\r\nSec-Fetch-Site: same-origin\r\n",
             "Origin: http://localhost:" + port + "\r\n"}) {
        raw_client c(s.port());
        const response r =
            answer_to(c, request_to("POST /validate HTTP/1.1", host + fields, small_recording()));
        EXPECT_EQ(r.status, 200) << fields;
        EXPECT_EQ(json::parse(r.body, nullptr, false)["valid"], true) << r.body;
    }
    // A GET from an other site's page reads nothing it could not read anyway: answered.
    raw_client c(s.port());
    EXPECT_EQ(
        answer_to(c, request_to("GET /healthz HTTP/1.1", host + "Sec-Fetch-Site: cross-site\r\n"))
            .status,
        200);
}

TEST_F(ServeConformance, AnOriginOnTheLoopbackNamesMustBeOnThePortBound) {
    server_process& s = start({"--allow-host", "viewer.example"});
    const std::string port = std::to_string(s.port());
    const std::string host = "Host: 127.0.0.1:" + port + "\r\n";
    const auto status_of = [&](const std::string& origin) {
        raw_client c(s.port());
        return answer_to(c, request_to("POST /validate HTTP/1.1",
                                       host + "Origin: " + origin + "\r\n", small_recording()))
            .status;
    };
    // A page on port 80 (no port in its Origin) or on another port is another origin.
    for (const std::string& other :
         {std::string("http://localhost"), std::string("http://127.0.0.1"),
          std::string("http://[::1]"), std::string("http://localhost:80"),
          "http://localhost:" + std::to_string(s.port() == 65535 ? 1 : s.port() + 1)}) {
        EXPECT_EQ(status_of(other), 403) << other;
    }
    for (const std::string& own :
         {"http://localhost:" + port, "http://127.0.0.1:" + port, "http://LOCALHOST:" + port}) {
        EXPECT_EQ(status_of(own), 200) << own;
    }
    // A --allow-host name: any port (behind a proxy the port is the proxy's).
    for (const std::string& proxied :
         {std::string("http://viewer.example"), std::string("http://viewer.example:8080")}) {
        EXPECT_EQ(status_of(proxied), 200) << proxied;
    }
}

TEST_F(ServeConformance, AllowHostAddsAProxysNameOnAnyPortAndItsHttpsOrigin) {
    server_process& s = start({"--allow-host", "viewer.example", "--allow-host", "other.example"});
    for (const std::string& fields : std::vector<std::string>{
             "Host: viewer.example\r\n", "Host: other.example:8443\r\n",
             "Host: viewer.example\r\nOrigin: https://viewer.example\r\n",
             "Host: viewer.example\r\nOrigin: http://viewer.example:8080\r\n"}) {
        raw_client c(s.port());
        EXPECT_EQ(
            answer_to(c, request_to("POST /validate HTTP/1.1", fields, small_recording())).status,
            200)
            << fields;
    }
    raw_client c(s.port());
    EXPECT_EQ(
        answer_to(c, request_to("GET /healthz HTTP/1.1", "Host: attacker.example\r\n")).status,
        421);
}

TEST_F(ServeConformance, AllowHostWithAPortIsAUsageError) {
    for (const std::string& name : std::vector<std::string>{"viewer.example:8080", "", "a b"}) {
        const run_result r = run({"serve", "--listen", "127.0.0.1:0", "--allow-host", name});
        EXPECT_EQ(r.status, 2) << name;
        EXPECT_NE(r.err.find("--allow-host"), std::string::npos) << r.err;
    }
}

TEST_F(ServeConformance, ViewChecksHostAndOriginAsServeDoes) {
    const std::string file = write_file("rec.bin", small_file(shape::v11_compact));
    server_process& s = start_view({file});
    const std::string port = std::to_string(s.port());
    raw_client rebound(s.port());
    EXPECT_EQ(answer_to(rebound, request_to("GET /api/recordings/0/frames HTTP/1.1",
                                            "Host: attacker.example:" + port + "\r\n"))
                  .status,
              421);
    raw_client cross(s.port());
    EXPECT_EQ(answer_to(cross, request_to("POST /view HTTP/1.1",
                                          "Host: 127.0.0.1:" + port +
                                              "\r\nOrigin: http://attacker.example\r\n",
                                          small_recording()))
                  .status,
              403);
    raw_client own(s.port());
    EXPECT_EQ(answer_to(own, request_to("POST /view HTTP/1.1",
                                        "Host: 127.0.0.1:" + port +
                                            "\r\nOrigin: http://127.0.0.1:" + port + "\r\n",
                                        small_recording()))
                  .status,
              200);
}

}  // namespace
