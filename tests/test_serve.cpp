// `inputanim serve`, started on loopback (127.0.0.1, port 0) as an operator starts it, and talked
// to with curl and with raw sockets: valid, invalid, truncated, chunked, gzip, oversize and
// malformed uploads, early answers, timeouts, the connection ceiling, the request log and a
// graceful shutdown on SIGTERM. The HTTP conformance list is test_serve_conformance.cpp.
#include <signal.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "inputanim/evaluate.hpp"
#include "inputanim/generate.hpp"
#include "support/cli_fixture.hpp"
#include "support/generated.hpp"
#include "support/gzip_bytes.hpp"
#include "support/serve_client.hpp"

using namespace inputanim;
using namespace inputanim::testing;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

// A ten-second synthetic recording with markers: about 400 KB, many reads of the server.
const bytes& recording() {
    static const bytes b = [] {
        generate_options o;
        o.markers = 3;
        return write(generated_model(o));
    }();
    return b;
}

bytes first_bytes(const bytes& b, std::size_t n) {
    return bytes(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n));
}

class Serve : public serve_fixture {
  protected:
    void SetUp() override {
        if (std::string_view(INPUTANIM_CURL).empty()) GTEST_SKIP() << "curl is not installed";
    }

    // curl ARGS... URL: the status, headers and body of the (last) response.
    reply curl(std::vector<std::string> args) const {
        return curl_with(INPUTANIM_CURL, std::move(args));
    }

    // POSTs `file` to /validate`query`, with extra curl arguments.
    reply post(const std::string& file, const std::string& query = "",
               const std::vector<std::string>& extra = {}) const {
        std::vector<std::string> args = {"--data-binary", "@" + file};
        args.insert(args.end(), extra.begin(), extra.end());
        args.push_back(server_->url("/validate" + query));
        return curl(args);
    }

    // What `inputanim validate --json --upload-limits FILE` prints (serve's ceilings are the
    // upload limits unless `options` say otherwise), as the server's report of an upload named
    // `name` would hold it.
    json validate_json(const std::string& file, const std::string& name,
                       const std::vector<std::string>& options = {}) const {
        std::vector<std::string> args = {"validate", "--json", "--upload-limits"};
        args.insert(args.end(), options.begin(), options.end());
        args.push_back(file);
        json j = json::parse(run(args).out);
        j["path"] = name;
        return j;
    }

    // What `inputanim metrics --level LEVEL ARGS... FILE` prints, each object without its path.
    std::vector<json> metrics_of(const std::string& file, const std::vector<std::string>& args,
                                 const std::string& level = "full") const {
        std::vector<std::string> argv = {"metrics", "--json", "--level", level};
        argv.insert(argv.end(), args.begin(), args.end());
        argv.push_back(file);
        const run_result r = run(argv);
        EXPECT_EQ(r.status, 0) << r.err;
        std::vector<json> objects = json_lines(r.out);
        for (json& o : objects) o.erase("path");
        return objects;
    }

    // The description's metrics and timeline events are what `inputanim metrics` measures with
    // its default options: its object (but the path and the level), and its tables of
    // `--events pinch` and `--events fixations`.
    void expect_cli_metrics(const std::string& file, const json& d,
                            const std::string& level = "full") const {
        std::vector<json> summary = metrics_of(file, {}, level);
        ASSERT_EQ(summary.size(), 1u);
        summary[0]["measured_with"].erase("level");
        EXPECT_EQ(d["metrics"], summary[0]);
        EXPECT_EQ(d["events"]["pinch"], json(metrics_of(file, {"--events", "pinch"}, level)));
        EXPECT_EQ(d["events"]["fixations"],
                  json(metrics_of(file, {"--events", "fixations"}, level)));
    }
};

bool all_digits(std::string_view s) {
    return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

// `127.0.0.1:PORT "REQUEST" STATUS BYTES MSms`
bool is_log_line(const std::string& line, const std::string& request, int status) {
    const std::string peer = "127.0.0.1:";
    const std::string middle = " \"" + request + "\" " + std::to_string(status) + " ";
    const std::size_t at = line.find(middle);
    if (line.rfind(peer, 0) != 0 || at == std::string::npos) return false;
    if (!all_digits(std::string_view(line).substr(peer.size(), at - peer.size()))) return false;
    const std::string_view rest = std::string_view(line).substr(at + middle.size());
    const std::size_t space = rest.find(' ');
    return space != std::string_view::npos && all_digits(rest.substr(0, space)) &&
           rest.ends_with("ms") && all_digits(rest.substr(space + 1, rest.size() - space - 3));
}

TEST_F(Serve, PrintsTheBoundAddressFirstAndAnswersHealthz) {
    server_process& s = start();
    EXPECT_EQ(s.first_line(), "listening on 127.0.0.1:" + std::to_string(s.port()));
    EXPECT_GT(s.port(), 0);
    const reply r = curl({s.url("/healthz")});
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.body, "ok\n");
}

TEST_F(Serve, AValidUploadGetsTheJsonOfValidateJson) {
    server_process& s = start();
    const std::string file = write_file("rec.bin", recording());
    const reply r = post(file);
    EXPECT_EQ(r.status, 200);
    EXPECT_NE(r.headers.find("Content-Type: application/json"), std::string::npos) << r.headers;
    const json j = r.object();
    EXPECT_EQ(j["valid"], true);
    EXPECT_EQ(j["markers"], 3);
    EXPECT_EQ(j["bytes"], recording().size());
    EXPECT_EQ(j, validate_json(file, "upload"));
    EXPECT_TRUE(s.log_has("\"POST /validate\" 200 " + std::to_string(recording().size()) + " "));
}

TEST_F(Serve, TheNameParameterIsTheReportsPath) {
    server_process& s = start();
    const std::string file = write_file("rec.bin", recording());
    EXPECT_EQ(post(file, "?name=InputAnimation-20200101-000000.bin").object()["path"],
              "InputAnimation-20200101-000000.bin");
    EXPECT_EQ(post(file, "?x=1&name=my%20take+2.bin&y").object()["path"], "my take 2.bin");
    EXPECT_EQ(post(file, "?name=").object()["path"], "upload");
    EXPECT_TRUE(s.log_has("\"POST /validate?x=1&name=my%20take+2.bin&y\" 200"));
}

TEST_F(Serve, AnInvalidUploadGetsItsErrorWithStatus200) {
    start();
    model m = generated_model(generate_options{});
    m[camera_curve(pose_channel::position_x)].keys[2].time = 0.0f;
    const std::string file = write_file("unsorted.bin", write(m));
    const reply r = post(file, "?name=u.bin");
    EXPECT_EQ(r.status, 200);
    const json j = r.object();
    EXPECT_EQ(j["valid"], false);
    EXPECT_EQ(j["error"]["code"], "unsorted_keys");
    EXPECT_EQ(j["error"]["curve"], "camera.position.x");
    EXPECT_EQ(j, validate_json(file, "u.bin"));
}

TEST_F(Serve, ATruncatedRecordingIsInvalidAsTruncated) {
    start();
    const std::string file =
        write_file("cut.bin", first_bytes(recording(), recording().size() / 2 + 3));
    const reply r = post(file);
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.object()["error"]["code"], "truncated");
    EXPECT_EQ(r.object(), validate_json(file, "upload"));
}

TEST_F(Serve, AChunkedUploadIsValidatedAsItArrives) {
    server_process& s = start();
    const std::string file = write_file("rec.bin", recording());
    const reply r = post(file, "", {"-H", "Transfer-Encoding: chunked"});
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.object(), validate_json(file, "upload"));
    // Raw chunks of 1, 7 and the rest of a small file.
    const bytes small = small_file(shape::v11_compact);
    const std::string text = as_text(small);
    std::string chunked =
        "POST /validate HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        "Transfer-Encoding: chunked\r\n\r\n";
    chunked += chunk(text.substr(0, 1)) + chunk(text.substr(1, 7)) + chunk(text.substr(8));
    chunked += last_chunk;
    raw_client c(s.port());
    ASSERT_TRUE(c.send(chunked));
    const std::string response = c.read_all();
    EXPECT_EQ(response.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << response;
    EXPECT_EQ(body_json(response)["bytes"], small.size());
}

TEST_F(Serve, AGzipEncodedUploadIsInflatedAsItStreams) {
    start();
    const bytes compressed = gzip_compress(recording());
    const std::string file = write_file("rec.bin.gz", compressed);
    for (const std::vector<std::string>& extra :
         {std::vector<std::string>{"-H", "Content-Encoding: gzip"},
          std::vector<std::string>{"-H", "Content-Encoding: gzip", "-H",
                                   "Transfer-Encoding: chunked"}}) {
        const reply r = post(file, "", extra);
        EXPECT_EQ(r.status, 200);
        const json j = r.object();
        EXPECT_EQ(j["valid"], true);
        EXPECT_EQ(j["bytes"], recording().size());
        EXPECT_EQ(j["compressed_bytes"], compressed.size());
        // The command reads the same file as gzip too.
        EXPECT_EQ(j, validate_json(file, "upload"));
    }
}

TEST_F(Serve, ADamagedOrTruncatedGzipBodyIsAnInvalidRecordingWithBadCompression) {
    start();
    bytes damaged = gzip_compress(recording());
    damaged[damaged.size() - 8] ^= std::byte{1};
    reply r = post(write_file("bad.gz", damaged), "", {"-H", "Content-Encoding: gzip"});
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.object()["valid"], false);
    EXPECT_EQ(r.object()["error"]["code"], "bad_compression");
    // zlib finds the bad CRC once it has read it: the trailer's first 4 bytes.
    EXPECT_EQ(r.object()["error"]["offset"], damaged.size() - 4) << r.body;

    const bytes compressed = gzip_compress(recording());
    const bytes cut = first_bytes(compressed, compressed.size() - 8);
    r = post(write_file("cut.gz", cut), "", {"-H", "Content-Encoding: gzip"});
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.object()["error"]["code"], "bad_compression");
    EXPECT_EQ(r.object()["error"]["offset"], cut.size());

    // A body that says gzip and is not.
    r = post(write_file("raw.bin", recording()), "", {"-H", "Content-Encoding: gzip"});
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.object()["error"]["code"], "bad_compression");
    EXPECT_EQ(r.object()["error"]["offset"], 0);
}

TEST_F(Serve, AnUnsupportedContentEncodingIs415) {
    start();
    const reply r = post(write_file("rec.bin", recording()), "", {"-H", "Content-Encoding: br"});
    EXPECT_EQ(r.status, 415);
    EXPECT_EQ(r.object()["error"], "unsupported_encoding");
}

TEST_F(Serve, AnUploadOverMaxBytesIsRefusedFromItsContentLengthWithoutReadingIt) {
    server_process& s = start({"--max-bytes", "100000"});
    // Only the header is sent: the answer cannot wait for the body.
    raw_client c(s.port());
    ASSERT_TRUE(c.send(request_head("/validate?name=big.bin", 100001)));
    const std::string response = c.read_all(5s);
    EXPECT_EQ(response.rfind("HTTP/1.1 413 Payload Too Large\r\n", 0), 0u) << response;
    EXPECT_NE(response.find("Connection: close\r\n"), std::string::npos);
    const json j = body_json(response);
    EXPECT_EQ(j["path"], "big.bin");
    EXPECT_EQ(j["valid"], false);
    EXPECT_EQ(j["bytes"], 100001);
    EXPECT_EQ(j["error"]["code"], "limit_exceeded");
    EXPECT_EQ(j["error"]["limit"], "max_bytes");
    EXPECT_EQ(j["error"]["offset"], 100000);
    EXPECT_TRUE(c.closed());
    EXPECT_TRUE(s.log_has("\"POST /validate?name=big.bin\" 413 0 "));

    // With curl, whole.
    const reply r = post(write_file("rec.bin", recording()));
    EXPECT_EQ(r.status, 413);
    EXPECT_EQ(r.object()["error"]["limit"], "max_bytes");
}

TEST_F(Serve, AChunkedUploadIsRefusedWhenItPassesMaxBytes) {
    server_process& s = start({"--max-bytes", "100000"});
    const reply r =
        post(write_file("rec.bin", recording()), "", {"-H", "Transfer-Encoding: chunked"});
    EXPECT_EQ(r.status, 413);
    EXPECT_EQ(r.object()["error"]["code"], "limit_exceeded");
    EXPECT_EQ(r.object()["error"]["offset"], 100000);
    // Cut as soon as the total passed the ceiling: the rest of the upload was never read.
    EXPECT_GT(r.object()["bytes"].get<std::uint64_t>(), 100000u);
    EXPECT_LT(r.object()["bytes"].get<std::uint64_t>(), recording().size());
    EXPECT_TRUE(s.log_has("\"POST /validate\" 413 "));
}

TEST_F(Serve, AGzipBombIsRefusedWhenItsInflatedBytesPassMaxBytes) {
    // Only the byte ceiling: the keyframe ceilings of the upload limits would stop it first.
    start({"--max-bytes", "1048576", "--max-keyframes-per-curve", "2147483647",
           "--max-total-keyframes", "18446744073709551615"});
    // 64 MiB inflated, 64 KiB compressed: a v1.1 header whose camera.position.x claims
    // 2^31-1 keys, then zeros.
    bytes raw(std::size_t{64} << 20);
    const bytes head = small_file(shape::v11_compact);
    std::copy(head.begin(), head.begin() + 16, raw.begin());
    raw[16] = std::byte{1};
    put_i32(raw, 19 + 8, 0x7fffffff);
    const bytes bomb = gzip_compress(raw, 9);
    ASSERT_LT(bomb.size(), std::size_t{1} << 20);
    const reply r = post(write_file("bomb.gz", bomb), "", {"-H", "Content-Encoding: gzip"});
    EXPECT_EQ(r.status, 413);
    const json j = r.object();
    EXPECT_EQ(j["error"]["limit"], "max_bytes");
    EXPECT_EQ(j["error"]["offset"], 1048576);
    EXPECT_LE(j["bytes"].get<std::uint64_t>(), 1048576u + 16 * 1024);
    EXPECT_LT(j["compressed_bytes"].get<std::uint64_t>(), bomb.size());
}

TEST_F(Serve, AnEarlyErrorIsAnsweredBeforeTheBodyIsSent) {
    server_process& s = start();
    bytes bad = first_bytes(recording(), 64);
    bad[0] = std::byte{0};
    raw_client c(s.port());
    // A megabyte announced, 64 bytes sent: the magic is wrong, nothing more is needed.
    ASSERT_TRUE(c.send(request_head("/validate", 1'000'000) + as_text(bad)));
    const std::string response = c.read_all(5s);
    EXPECT_EQ(response.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << response;
    EXPECT_NE(response.find("Connection: close\r\n"), std::string::npos);
    const json j = body_json(response);
    EXPECT_EQ(j["error"]["code"], "bad_magic");
    EXPECT_EQ(j["bytes"], 64);
}

TEST_F(Serve, ABodyShorterThanItsContentLengthIsABadRequest) {
    server_process& s = start();
    raw_client c(s.port());
    const std::string half = as_text(first_bytes(recording(), recording().size() / 2));
    ASSERT_TRUE(c.send(request_head("/validate", recording().size()) + half));
    // The client stops sending but still listens.
    c.shut_write();
    const std::string response = c.read_all(5s);
    EXPECT_EQ(response.rfind("HTTP/1.1 400 Bad Request\r\n", 0), 0u) << response;
    EXPECT_EQ(body_json(response)["error"], "incomplete_body");
    EXPECT_TRUE(s.log_has("\"POST /validate\" 400 " + std::to_string(half.size()) + " "));
}

TEST_F(Serve, AClientThatResetsTheConnectionMidBodyIsLoggedAndTheServerGoesOn) {
    server_process& s = start();
    raw_client c(s.port());
    ASSERT_TRUE(c.send(request_head("/validate", recording().size()) +
                       as_text(first_bytes(recording(), 1000))));
    std::this_thread::sleep_for(100ms);
    c.reset();
    EXPECT_TRUE(s.log_has("\"POST /validate\" 499 1000 ")) << s.log();
    EXPECT_EQ(curl({s.url("/healthz")}).status, 200);
}

TEST_F(Serve, MalformedRequestsAreBadRequests) {
    server_process& s = start();
    const std::vector<std::string> malformed = {
        std::string("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", 15),
        "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: zz\r\n\r\n",
        "GET /healthz HTTP/7.0\r\n\r\n",
        "GET /healthz\r\n\r\n",
        "GET /healthz HTTP/1.1\r\nno colon here\r\n\r\n",
        "POST /validate HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    };
    for (const std::string& request : malformed) {
        raw_client c(s.port());
        ASSERT_TRUE(c.send(request));
        const std::string response = c.read_all(5s);
        EXPECT_EQ(response.rfind("HTTP/1.1 400 Bad Request\r\n", 0), 0u)
            << "request " << ::testing::PrintToString(request) << " got " << response;
        EXPECT_EQ(body_json(response)["error"], "bad_request");
        EXPECT_TRUE(c.closed());
    }
    raw_client huge(s.port());
    ASSERT_TRUE(
        huge.send("GET /healthz HTTP/1.1\r\nX-Padding: " + std::string(10000, 'a') + "\r\n\r\n"));
    EXPECT_EQ(huge.read_all(5s).rfind("HTTP/1.1 431 ", 0), 0u);
    EXPECT_EQ(curl({s.url("/healthz")}).status, 200);
}

TEST_F(Serve, AHeaderSentALineAtATimePastEightKibibytesIs431) {
    server_process& s = start();
    // Each piece ends one byte into the next line, so that every read parses whole lines and
    // leaves one byte unparsed: Beast's own limit, on what is left unparsed, never sees 8 KiB.
    raw_client c(s.port());
    ASSERT_TRUE(c.send("GET /healthz HTTP/1.1\r\nH"));
    std::string next = "ost: 127.0.0.1\r\nX";
    std::size_t sent = 0;
    for (int i = 0; i < 200 && c.send(next); ++i) {
        sent += next.size();
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        if (c.answered()) break;
        next = "-F" + std::to_string(i) + ": " + std::string(80, 'v') + "\r\nX";
    }
    const std::string response = c.read_all(5s);
    EXPECT_EQ(response.rfind("HTTP/1.1 431 ", 0), 0u) << response.substr(0, 200);
    EXPECT_NE(response.find("larger than 8192 bytes"), std::string::npos);
    // Refused once past the limit, not at the end of the 17 KB sent at most.
    EXPECT_LT(sent, 8192u + 2 * 100);
    EXPECT_EQ(curl({s.url("/healthz")}).status, 200);
}

TEST_F(Serve, UnknownPathsAre404AndWrongMethods405WithAllow) {
    server_process& s = start();
    reply r = curl({s.url("/validate/x")});
    EXPECT_EQ(r.status, 404);
    EXPECT_EQ(r.object()["error"], "not_found");
    r = curl({s.url("/nothing/here")});
    EXPECT_EQ(r.status, 404);

    r = curl({s.url("/validate")});
    EXPECT_EQ(r.status, 405);
    EXPECT_NE(r.headers.find("Allow: POST\r\n"), std::string::npos) << r.headers;
    EXPECT_EQ(r.object()["error"], "method_not_allowed");
    const std::string file = write_file("rec.bin", recording());
    r = curl({"-X", "PUT", "--data-binary", "@" + file, s.url("/validate")});
    EXPECT_EQ(r.status, 405);
    r = curl({"-X", "POST", s.url("/healthz")});
    EXPECT_EQ(r.status, 405);
    EXPECT_NE(r.headers.find("Allow: GET, HEAD\r\n"), std::string::npos) << r.headers;
}

TEST_F(Serve, AConnectionServesRequestsOneAfterAnother) {
    server_process& s = start();
    const std::string small = as_text(small_file(shape::v10));
    raw_client c(s.port());
    ASSERT_TRUE(c.send(get("/healthz") + request_head("/validate?name=a.bin", small.size()) +
                       small + get("/healthz", "Connection: close\r\n")));
    const std::string responses = c.read_all();
    EXPECT_TRUE(c.closed());
    std::size_t count = 0;
    for (std::size_t at = responses.find("HTTP/1.1 200 OK"); at != std::string::npos;
         at = responses.find("HTTP/1.1 200 OK", at + 1)) {
        ++count;
    }
    EXPECT_EQ(count, 3u) << responses;
    EXPECT_NE(responses.find("\"path\":\"a.bin\""), std::string::npos);
}

TEST_F(Serve, ConnectionsBeyondTheMaximumAre503) {
    server_process& s = start({"--max-connections", "1"});
    auto holder = std::make_unique<raw_client>(s.port());
    // The held connection is being served once it has answered a request.
    ASSERT_TRUE(holder->send(get("/healthz")));
    EXPECT_NE(holder->read_all(500ms).find("200 OK"), std::string::npos);
    const reply r = curl({s.url("/healthz")});
    EXPECT_EQ(r.status, 503);
    EXPECT_NE(r.headers.find("Retry-After: 1\r\n"), std::string::npos) << r.headers;
    EXPECT_EQ(r.object()["error"], "busy");
    holder.reset();
    // The slot frees as soon as the server sees the close.
    int status = 0;
    for (int i = 0; i < 100 && status != 200; ++i) {
        std::this_thread::sleep_for(20ms);
        status = curl({s.url("/healthz")}).status;
    }
    EXPECT_EQ(status, 200);
}

TEST_F(Serve, ASlowClientTimesOut) {
    server_process& s = start({"--timeout", "1"});
    raw_client header(s.port());
    ASSERT_TRUE(header.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
    const steady::time_point start_time = steady::now();
    EXPECT_EQ(header.read_all(5s), "");
    EXPECT_TRUE(header.closed());
    EXPECT_LT(steady::now() - start_time, 3s);

    raw_client body(s.port());
    ASSERT_TRUE(body.send(request_head("/validate", recording().size()) +
                          as_text(first_bytes(recording(), 100))));
    EXPECT_EQ(body.read_all(5s), "");
    EXPECT_TRUE(body.closed());
    EXPECT_TRUE(s.log_has("\"- -\" 408 0 "));
    EXPECT_TRUE(s.log_has("\"POST /validate\" 408 100 "));
}

TEST_F(Serve, SigtermFinishesTheRequestInFlightAndExits0) {
    server_process& s = start();
    const std::string text = as_text(recording());
    raw_client upload(s.port());
    ASSERT_TRUE(upload.send(request_head("/validate", text.size()) + text.substr(0, 1000)));
    raw_client idle(s.port());
    std::this_thread::sleep_for(200ms);
    s.signal(SIGTERM);
    std::this_thread::sleep_for(200ms);
    // The idle connection is closed, the upload goes on.
    EXPECT_EQ(idle.read_all(2s), "");
    EXPECT_TRUE(idle.closed());
    ASSERT_TRUE(upload.send(text.substr(1000)));
    const std::string response = upload.read_all(5s);
    EXPECT_EQ(response.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << response;
    EXPECT_NE(response.find("Connection: close\r\n"), std::string::npos);
    EXPECT_EQ(body_json(response)["valid"], true);
    EXPECT_EQ(s.wait(10s), 0) << s.log();
    // Nothing listens any more.
    EXPECT_NE(curl({s.url("/healthz")}).status, 200);
}

TEST_F(Serve, SigtermOrSigintWithNothingInFlightExits0AtOnce) {
    for (int sig : {SIGTERM, SIGINT}) {
        server_process& s = start();
        EXPECT_EQ(curl({s.url("/healthz")}).status, 200);
        const steady::time_point start_time = steady::now();
        s.signal(sig);
        EXPECT_EQ(s.wait(10s), 0) << s.log();
        EXPECT_LT(steady::now() - start_time, 2s);
    }
}

TEST_F(Serve, StopSignalsThatGoOnArrivingWhileItShutsDownStillLeaveExit0) {
    // GNU timeout, for one, sends SIGTERM twice; a signal that comes as the server finishes
    // must not turn a clean shutdown into death by signal.
    for (int sig : {SIGTERM, SIGINT}) {
        for (int round = 0; round < 5; ++round) {
            server_process& s = start();
            EXPECT_EQ(curl({s.url("/healthz")}).status, 200);
            EXPECT_EQ(s.wait(10s, sig), 0) << "signal " << sig << ", round " << round << '\n'
                                           << s.log();
        }
    }
}

TEST_F(Serve, AnUploadStalledPastTheShutdownDeadlineIsCut) {
    server_process& s = start({"--shutdown-timeout", "1"});
    raw_client upload(s.port());
    ASSERT_TRUE(upload.send(request_head("/validate", recording().size()) +
                            as_text(first_bytes(recording(), 1000))));
    std::this_thread::sleep_for(200ms);
    const steady::time_point start_time = steady::now();
    s.signal(SIGTERM);
    EXPECT_EQ(s.wait(10s), 0);
    EXPECT_LT(steady::now() - start_time, 4s);
    EXPECT_NE(s.log().find("shutdown deadline passed, closing the connections still busy: 1\n"),
              std::string::npos)
        << s.log();
}

TEST_F(Serve, EachRequestIsLoggedOnOneLine) {
    server_process& s = start();
    const std::string file = write_file("rec.bin", recording());
    post(file, "?name=a.bin");
    curl({s.url("/nowhere")});
    ASSERT_TRUE(s.log_has("/nowhere"));
    const std::vector<std::string> lines = lines_of(s.log());
    ASSERT_EQ(lines.size(), 2u) << s.log();
    EXPECT_TRUE(is_log_line(lines[0], "POST /validate?name=a.bin", 200)) << lines[0];
    EXPECT_TRUE(is_log_line(lines[1], "GET /nowhere", 404)) << lines[1];
    EXPECT_NE(lines[0].find(" 200 " + std::to_string(recording().size()) + " "), std::string::npos)
        << lines[0];
}

TEST_F(Serve, HelpGivesTheSlowBodyLimitsWithTheirDefaults) {
    const run_result help = run({"serve", "--help"});
    EXPECT_EQ(help.status, 0);
    for (const char* option : {"--timeout S=30", "--min-rate B=1024", "--request-deadline S=600"}) {
        EXPECT_NE(help.out.find(option), std::string::npos) << option << " in " << help.out;
    }
    EXPECT_NE(help.out.find("a slow client holds a connection at most"), std::string::npos);
    for (const std::vector<std::string>& bad : {std::vector<std::string>{"--request-deadline", "0"},
                                                std::vector<std::string>{"--min-rate", "-1"},
                                                std::vector<std::string>{"--min-rate", "fast"}}) {
        std::vector<std::string> args = {"serve"};
        args.insert(args.end(), bad.begin(), bad.end());
        EXPECT_EQ(run(args).status, 2) << bad[0] << ' ' << bad[1];
    }
}

TEST_F(Serve, ItsCountsAndSecondsAreDecimalAsEveryOtherCountOfTheCommand) {
    // CLI11's own conversion would read 010 as 8 and 0x10 as 16.
    for (const char* option : {"--threads", "--max-connections", "--timeout", "--min-rate",
                               "--request-deadline", "--shutdown-timeout"}) {
        for (const char* value : {"0x10", "1e3", "-1", "2 "}) {
            const run_result r = run({"serve", "--listen", "127.0.0.1:0", option, value});
            EXPECT_EQ(r.status, 2) << option << ' ' << value;
            EXPECT_NE(r.err.find("is not a non-negative decimal integer"), std::string::npos)
                << option << ' ' << value << ": " << r.err;
        }
    }
    const run_result above = run({"serve", "--listen", "127.0.0.1:0", "--threads", "257"});
    EXPECT_NE(above.err.find("--threads: 257 is above the largest accepted value 256"),
              std::string::npos)
        << above.err;
    // 010 is ten, as everywhere else (not CLI11's octal 8): taken, and the server serves.
    server_process& s = start({"--timeout", "010", "--threads", "02"});
    EXPECT_EQ(curl({s.url("/healthz")}).status, 200);
}

TEST_F(Serve, ABadListenAddressIsAUsageErrorAndABusyPortExit3) {
    for (const char* listen : {"localhost:8080", "127.0.0.1", "127.0.0.1:70000", "1.2.3:80"}) {
        const run_result r =
            run_process({INPUTANIM_CLI, "serve", "--listen", listen}, {scratch_.path()});
        EXPECT_EQ(r.status, 2) << listen;
        EXPECT_NE(r.err.find("expected HOST:PORT"), std::string::npos) << r.err;
    }
    server_process& s = start();
    const run_result busy =
        run_process({INPUTANIM_CLI, "serve", "--listen", "127.0.0.1:" + std::to_string(s.port())},
                    {scratch_.path()});
    EXPECT_EQ(busy.status, 3);
    EXPECT_NE(busy.err.find("cannot listen on 127.0.0.1:"), std::string::npos) << busy.err;
}

// ---- the browser viewer's data (docs/VIEWER.md) ------------------------------------------------

// The frames of a viewer response: little-endian float32, row after row.
std::vector<float> floats_of(std::string_view body) {
    std::vector<float> out(body.size() / 4);
    for (std::size_t i = 0; i < out.size(); ++i) {
        std::uint32_t u = 0;
        for (int b = 3; b >= 0; --b) u = (u << 8) | static_cast<unsigned char>(body[4 * i + b]);
        out[i] = std::bit_cast<float>(u);
    }
    return out;
}

// The answer to POST /view: a uint32 length, the description, padding to four bytes, the frames.
std::pair<json, std::vector<float>> bundle_of(const std::string& body) {
    std::uint32_t length = 0;
    for (int b = 3; b >= 0; --b) length = (length << 8) | static_cast<unsigned char>(body[b]);
    const std::size_t frames = (4 + length + 3) / 4 * 4;
    return {json::parse(body.substr(4, length)), floats_of(std::string_view(body).substr(frames))};
}

// Every row is its time then the value of each described curve, exactly what the library's
// evaluate gives at that time.
void expect_library_values(const bytes& file, const json& description,
                           const std::vector<float>& frames) {
    inputanim::recording rec;
    ASSERT_FALSE(rec.open(file));
    const std::size_t columns = description["curves"].size() + 1;
    const std::uint64_t rows = description["frames"];
    ASSERT_EQ(frames.size(), rows * columns);
    resampler rs(rec);
    rs.select_all();
    ASSERT_EQ(rs.set_grid(description["rate"].get<double>()), grid_error::none);
    ASSERT_EQ(rs.row_count(), rows);
    for (const std::uint64_t row : {std::uint64_t{0}, rows / 3, rows - 1}) {
        const float t = frames[row * columns];
        EXPECT_EQ(t, rs.row_time(row));
        for (std::size_t c = 1; c < columns; c += 37) {
            const curve_view* curve = rec.find(description["curves"][c - 1].get<std::string>());
            ASSERT_NE(curve, nullptr);
            EXPECT_EQ(frames[row * columns + c], evaluate(*curve, t))
                << curve->path() << " at " << t;
        }
    }
}

TEST_F(Serve, ViewServesEachFilesDescriptionAndResampledFrames) {
    const std::string file = write_file("rec.bin", recording());
    server_process& s = start_view({file});
    ASSERT_GT(s.port(), 0) << s.log();

    reply r = curl({s.url("/api/recordings")});
    EXPECT_EQ(r.status, 200);
    ASSERT_EQ(r.object().size(), 1u);
    EXPECT_EQ(r.object()[0]["name"], file);

    r = curl({s.url("/api/recordings/0")});
    EXPECT_EQ(r.status, 200);
    const json d = r.object();
    EXPECT_EQ(d["rate"], 60.0);
    EXPECT_EQ(d["curves"].size(), curve_id_count);
    EXPECT_EQ(d["curves"][0], "camera.position.x");
    EXPECT_EQ(d["keys"].size(), curve_id_count);
    EXPECT_EQ(d["report"]["valid"], true);
    EXPECT_EQ(d["report"]["path"], file);
    ASSERT_EQ(d["markers"].size(), 3u);
    EXPECT_EQ(d["markers"][0]["name"], "marker 1");
    EXPECT_EQ(d["frames_url"], "/api/recordings/0/frames");
    // Ten seconds at 60 Hz, both ends included.
    EXPECT_EQ(d["frames"], 601);
    // The timeline's pinches of both hands and gaze fixations, and the metrics.
    expect_cli_metrics(file, d);
    EXPECT_GT(d["events"]["pinch"].size(), 0u);
    EXPECT_GT(d["events"]["fixations"].size(), 0u);
    EXPECT_EQ(d["metrics_note"], "");

    r = curl({s.url("/api/recordings/0/frames")});
    EXPECT_EQ(r.status, 200);
    EXPECT_NE(r.headers.find("Content-Type: application/octet-stream"), std::string::npos);
    // Not the file: its magic number is nowhere in the frames.
    EXPECT_EQ(r.body.find(as_text(first_bytes(recording(), 8))), std::string::npos);
    expect_library_values(recording(), d, floats_of(r.body));

    EXPECT_EQ(curl({s.url("/api/recordings/1")}).status, 404);
    EXPECT_EQ(curl({s.url("/api/recordings/x/frames")}).status, 404);
    r = curl({"-X", "POST", s.url("/api/recordings/0")});
    EXPECT_EQ(r.status, 405);
    EXPECT_NE(r.headers.find("Allow: GET, HEAD\r\n"), std::string::npos) << r.headers;

    // HEAD of the frames: GET's headers, no body.
    const reply frames = curl({s.url("/api/recordings/0/frames")});
    raw_client head(s.port());
    ASSERT_TRUE(head.send(head_request("/api/recordings/0/frames", "Connection: close\r\n")));
    const std::string response = head.read_all();
    EXPECT_TRUE(response.starts_with("HTTP/1.1 200 OK\r\n")) << response;
    EXPECT_NE(response.find("Content-Length: " + std::to_string(frames.body.size()) + "\r\n"),
              std::string::npos)
        << response;
    EXPECT_TRUE(response.ends_with("\r\n\r\n")) << "no body";
}

TEST_F(Serve, ViewExportsEachRecordingAsTheExportCommandDoes) {
    const std::string file = write_file("rec.bin", recording());
    ASSERT_EQ(run({"export", file, path("rec.glb")}).status, 0);
    std::ifstream in(path("rec.glb"), std::ios::binary);
    const std::string expected((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
    server_process& s = start_view({file});
    ASSERT_GT(s.port(), 0) << s.log();
    const reply r = curl({s.url("/api/recordings/0/export.glb")});
    EXPECT_EQ(r.status, 200);
    EXPECT_NE(r.headers.find("Content-Type: model/gltf-binary"), std::string::npos) << r.headers;
    EXPECT_EQ(r.body, expected);
    EXPECT_EQ(curl({s.url("/api/recordings/1/export.glb")}).status, 404);
}

TEST_F(Serve, ViewReadsARecordingFromStandardInputOnce) {
    for (const bool gzip : {false, true}) {
        const bytes b = gzip ? gzip_compress(view(recording())) : recording();
        server_.emplace(scratch_.path(), std::vector<std::string>{"-"}, "view", &b);
        server_process& s = *server_;
        ASSERT_GT(s.port(), 0) << s.log();
        const json d = curl({s.url("/api/recordings/0")}).object();
        EXPECT_EQ(d["report"]["valid"], true) << gzip;
        EXPECT_EQ(d["report"]["path"], "-");
        EXPECT_EQ(d["report"]["bytes"], recording().size());
        EXPECT_EQ(d["report"].contains("compressed_bytes"), gzip);
        EXPECT_EQ(d["frames"], 601);
        expect_library_values(recording(), d,
                              floats_of(curl({s.url("/api/recordings/0/frames")}).body));
        server_.reset();
    }
}

TEST_F(Serve, ThePageIsServedAtTheRootWithNothingFromElsewhere) {
    server_process& s = start();
    EXPECT_EQ(s.first_line().rfind("listening on 127.0.0.1:", 0), 0u);
    const reply r = curl({s.url("/")});
    EXPECT_EQ(r.status, 200);
    EXPECT_NE(r.headers.find("Content-Type: text/html; charset=utf-8"), std::string::npos);
    EXPECT_NE(r.body.find("<html"), std::string::npos);
    // Everything is inline: no script, style or font from another origin.
    EXPECT_EQ(r.body.find("<script src"), std::string::npos);
    EXPECT_EQ(r.body.find("<link rel=\"stylesheet\""), std::string::npos);
    // serve has no recordings of its own: the page offers the upload box.
    EXPECT_EQ(curl({s.url("/api/recordings")}).body, "[]");
}

TEST_F(Serve, AnUploadToViewIsValidatedAndAnsweredWithItsFrames) {
    server_process& s = start_view({write_file("rec.bin", recording())});
    const reply listed = curl({s.url("/api/recordings/0/frames")});
    const std::string file = write_file("upload.bin", recording());
    const reply r = curl({"--data-binary", "@" + file, s.url("/view?name=mine.bin")});
    EXPECT_EQ(r.status, 200);
    EXPECT_NE(r.headers.find("Content-Type: application/vnd.inputanim.view"), std::string::npos);
    const auto [d, frames] = bundle_of(r.body);
    EXPECT_EQ(d["report"], validate_json(file, "mine.bin"));
    EXPECT_EQ(d["frames_url"], "");
    expect_library_values(recording(), d, frames);
    expect_cli_metrics(file, d);
    EXPECT_EQ(frames, floats_of(listed.body));
    EXPECT_TRUE(
        s.log_has("\"POST /view?name=mine.bin\" 200 " + std::to_string(recording().size())));
}

TEST_F(Serve, AGzipUploadToViewPlaysAsTheFileItInflatesTo) {
    server_process& s = start();
    const std::string plain = write_file("rec.bin", recording());
    const std::string packed = write_file("rec.bin.gz", gzip_compress(recording()));
    const auto [want, want_frames] =
        bundle_of(curl({"--data-binary", "@" + plain, s.url("/view")}).body);
    const auto [d, frames] = bundle_of(curl({"--data-binary", "@" + packed, s.url("/view")}).body);
    EXPECT_EQ(d["report"]["valid"], true);
    EXPECT_EQ(d["report"]["compressed_bytes"], std::filesystem::file_size(packed));
    EXPECT_EQ(frames, want_frames);
}

TEST_F(Serve, AnInvalidUploadToViewStillPlaysItsGoodCurves) {
    server_process& s = start();
    const std::string file = write_file("bad.bin", unsorted_model());
    const reply r = curl({"--data-binary", "@" + file, s.url("/view?name=bad.bin")});
    EXPECT_EQ(r.status, 200);
    const auto [d, frames] = bundle_of(r.body);
    EXPECT_EQ(d["report"], validate_json(file, "bad.bin"));
    EXPECT_EQ(d["report"]["error"]["code"], "unsorted_keys");
    EXPECT_EQ(d["omitted"], json::array({"camera.position.x"}));
    EXPECT_EQ(std::count(d["curves"].begin(), d["curves"].end(), "camera.position.x"), 0);
    EXPECT_GT(d["curves"].size(), 0u);
    EXPECT_GT(d["frames"].get<std::uint64_t>(), 0u);
    EXPECT_EQ(frames.size(), d["frames"].get<std::uint64_t>() * (d["curves"].size() + 1));
    EXPECT_NE(d["note"].get<std::string>().find("left out"), std::string::npos);
    // Its structure is whole: measured as `inputanim metrics --level structure` measures it.
    expect_cli_metrics(file, d, "structure");
    EXPECT_NE(d["metrics_note"].get<std::string>().find("the file is invalid"), std::string::npos);
}

TEST_F(Serve, AStructurallyBrokenUploadToViewShowsWhatCameBeforeTheBreak) {
    server_process& s = start();
    const std::string file =
        write_file("cut.bin", first_bytes(recording(), recording().size() / 2));
    const auto [d, frames] = bundle_of(curl({"--data-binary", "@" + file, s.url("/view")}).body);
    EXPECT_EQ(d["report"]["error"]["code"], "truncated");
    EXPECT_GT(d["curves"].size(), 0u);
    EXPECT_LT(d["curves"].size(), curve_id_count);
    EXPECT_NE(d["note"].get<std::string>().find("structure breaks"), std::string::npos);
    // Metrics of part of a recording would be wrong: none, and why.
    EXPECT_EQ(d["metrics"], nullptr);
    EXPECT_EQ(d["events"], nullptr);
    EXPECT_NE(d["metrics_note"].get<std::string>().find("structure breaks"), std::string::npos);
}

TEST_F(Serve, AnUploadToViewTooLongToMeasureStillPlaysWithoutMetrics) {
    // Only the camera, keyed from 0 to 17000 s: 1020001 samples at 60 Hz, past the upload's
    // 1000000 (the frames, 8 columns, still fit their 64 MiB).
    model m;
    m.blocks = {true, false, false};
    m[camera_curve(pose_channel::position_x)].keys = {{0.0f, 0.0f}, {17000.0f, 1.0f}};
    server_process& s = start();
    const std::string file = write_file("long.bin", m);
    const auto [d, frames] = bundle_of(curl({"--data-binary", "@" + file, s.url("/view")}).body);
    EXPECT_EQ(d["report"]["valid"], true);
    EXPECT_EQ(d["frames"], 1020001);
    EXPECT_EQ(frames.size(), 1020001u * 8);
    EXPECT_EQ(d["metrics"], nullptr);
    EXPECT_EQ(d["events"], nullptr);
    EXPECT_EQ(d["metrics_note"],
              "no metrics: more than 1000000 samples at 60 per second from 0 to 17000 s");
}

TEST_F(Serve, TheTimelineListsTheFirstTenThousandPinchesToEnd) {
    // The left hand tracked throughout and pinching every other sample: 10001 pinches.
    model m;
    m[hand_state_curve(hand_state::left_tracked)].keys = {{0.0f, 1.0f}, {400.0f, 1.0f}};
    std::vector<keyframe>& pinching = m[hand_state_curve(hand_state::left_pinching)].keys;
    for (int i = 0; i <= 20002; ++i) {
        pinching.push_back({static_cast<float>(i / 60.0), i % 2 == 0 && i < 20002 ? 1.0f : 0.0f});
    }
    const std::string file = write_file("pinches.bin", m);
    server_process& s = start_view({file});
    const json d = curl({s.url("/api/recordings/0")}).object();
    EXPECT_EQ(d["metrics"]["hands"]["left"]["pinches"], 10001);
    const std::vector<json> all = metrics_of(file, {"--events", "pinch"});
    ASSERT_EQ(all.size(), 10001u);
    EXPECT_EQ(d["events"]["pinch"], json(std::vector<json>(all.begin(), all.end() - 1)));
    EXPECT_EQ(d["metrics_note"], "the timeline shows the first 10000 pinches of 10001");
}

TEST_F(Serve, AnUploadToViewOverTheByteCeilingIs413WithItsReport) {
    server_process& s = start({"--max-bytes", "1000"});
    const std::string file = write_file("rec.bin", recording());
    const reply r = curl({"--data-binary", "@" + file, s.url("/view")});
    EXPECT_EQ(r.status, 413);
    EXPECT_EQ(r.object()["error"]["limit"], "max_bytes");
    EXPECT_EQ(curl({s.url("/view")}).status, 405);
}

TEST_F(Serve, ViewOpenStartsTheDesktopsBrowserOnThePage) {
    // A stand-in for xdg-open, first on PATH, that notes what it was asked to open.
    const std::string opened = path("opened.txt");
    const std::string script = write_file("bin/xdg-open", bytes{});
    {
        std::ofstream out(script);
        out << "#!/bin/sh\necho \"$1\" > '" << opened << "'\n";
    }
    std::filesystem::permissions(script, std::filesystem::perms::owner_all);
    const std::string old_path = std::getenv("PATH") != nullptr ? std::getenv("PATH") : "";
    ::setenv("PATH", (path("bin") + ":" + old_path).c_str(), 1);
    server_process& s = start_view({write_file("rec.bin", recording()), "--open"});
    ::setenv("PATH", old_path.c_str(), 1);
    const steady::time_point deadline = steady::now() + 10s;
    while (slurp(opened).empty() && steady::now() < deadline) std::this_thread::sleep_for(10ms);
    EXPECT_EQ(slurp(opened), s.url("/") + "\n");
}

TEST_F(Serve, UploadsToViewBeyondFourAtOnceAre503) {
    server_process& s = start();
    // Four uploads in progress: each has sent its header and part of its body.
    std::vector<std::unique_ptr<raw_client>> slow;
    for (int i = 0; i < 4; ++i) {
        slow.push_back(std::make_unique<raw_client>(s.port()));
        ASSERT_TRUE(slow.back()->send(request_head("/view", 100000) +
                                      as_text(first_bytes(recording(), 1000))));
    }
    const std::string file = write_file("rec.bin", recording());
    const steady::time_point deadline = steady::now() + 10s;
    reply r;
    do {
        r = curl({"--data-binary", "@" + file, s.url("/view")});
    } while (r.status != 503 && steady::now() < deadline);
    EXPECT_EQ(r.status, 503);
    EXPECT_EQ(r.object()["error"], "busy");
    // /validate is not held back by them.
    EXPECT_EQ(post(file).status, 200);
    // Once they are gone (their connections closed), uploads to view are answered again.
    slow.clear();
    do {
        r = curl({"--data-binary", "@" + file, s.url("/view")});
    } while (r.status != 200 && steady::now() < deadline + 10s);
    EXPECT_EQ(r.status, 200);
}

TEST_F(Serve, ViewRefusesAFileItCannotRead) {
    const run_result r = run({"view", path("missing.bin"), "--listen", "127.0.0.1:0"});
    EXPECT_EQ(r.status, 3);
    EXPECT_NE(r.err.find("missing.bin"), std::string::npos);
}

// ---- budgets: frames within their ceiling, uploads within their bound, work off the I/O -------

// Only the camera, its position.x keyed at `first` and `last` (about 200 bytes): at 60 Hz its
// frames span every time between.
model camera_keyed_at(float first, float last) {
    model m;
    m.blocks = {true, false, false};
    m[camera_curve(pose_channel::position_x)].keys = {{first, 0.0f}, {last, 1.0f}};
    return m;
}

TEST_F(Serve, AnUploadToViewWhoseFramesWouldPassTheirCeilingIsRefused422WithItsReport) {
    server_process& s = start();
    for (const float last : {1e7f, 1e9f, 1e12f}) {
        const std::string file = write_file("far.bin", camera_keyed_at(0.0f, last));
        const reply r = curl({"--data-binary", "@" + file, s.url("/view?name=far.bin")});
        EXPECT_EQ(r.status, 422) << last;
        EXPECT_NE(r.headers.find("Content-Type: application/vnd.inputanim.view"),
                  std::string::npos);
        // No frame built: the answer is the description alone.
        EXPECT_LT(r.body.size(), 64u * 1024) << last;
        const auto [d, frames] = bundle_of(r.body);
        EXPECT_EQ(d.value("error", json()), "frames_too_large");
        EXPECT_EQ(d["frames"], 0);
        EXPECT_TRUE(frames.empty());
        // The report and the reason are still shown.
        EXPECT_EQ(d["report"], validate_json(file, "far.bin"));
        const std::string note = d["note"];
        EXPECT_NE(note.find("no frames"), std::string::npos) << note;
        EXPECT_NE(note.find("64 MiB"), std::string::npos) << note;
        EXPECT_EQ(note.find("no curve has a keyframe"), std::string::npos) << note;
        EXPECT_NE(d["metrics_note"].get<std::string>().find("no metrics"), std::string::npos);
    }
    EXPECT_EQ(curl({s.url("/healthz")}).status, 200);
}

TEST_F(Serve, AnUploadToViewTooLongForItsCeilingAt60HzIsResampledAtTheRateThatFits) {
    // 300000 s at 60 Hz would be 18000001 rows of 8 columns, 549 MiB: at a lower rate, at most
    // 64 MiB.
    server_process& s = start();
    const bytes b = write(camera_keyed_at(0.0f, 300000.0f));
    const std::string file = write_file("long.bin", b);
    const reply r = curl({"--data-binary", "@" + file, s.url("/view")});
    EXPECT_EQ(r.status, 200);
    EXPECT_LE(r.body.size(), (64u << 20) + 64 * 1024);
    const auto [d, frames] = bundle_of(r.body);
    EXPECT_EQ(d.value("error", json()), nullptr);
    EXPECT_LT(d["rate"].get<double>(), 60.0);
    EXPECT_GE(d["rate"].get<double>(), 1.0);
    EXPECT_LE(frames.size() * 4, 64u << 20);
    expect_library_values(b, d, frames);
    EXPECT_NE(d["note"].get<std::string>().find("instead of 60"), std::string::npos) << d["note"];
}

TEST_F(Serve, AnUploadFarFromZeroPlaysOneRowPerDistinctFloatTimeAndSaysSo) {
    // From 2^20 s on float32 times are 1/8 s apart: the 60001 grid points of 1000 s at 60 Hz
    // fall on 8001 times.
    server_process& s = start();
    const bytes b = write(camera_keyed_at(1048576.0f, 1049576.0f));
    const std::string file = write_file("far.bin", b);
    const reply r = curl({"--data-binary", "@" + file, s.url("/view")});
    EXPECT_EQ(r.status, 200);
    const auto [d, frames] = bundle_of(r.body);
    EXPECT_EQ(d["rate"], 60.0);
    EXPECT_EQ(d["frames"], 8001);
    expect_library_values(b, d, frames);
    const std::string note = d["note"];
    EXPECT_NE(note.find("60001 grid points"), std::string::npos) << note;
    EXPECT_NE(note.find("8001 distinct float32 times"), std::string::npos) << note;
}

TEST_F(Serve, ARecordingWhoseKeysLieTooFarApartForAnyGridIsNotSaidToHaveNoKeyframe) {
    // Keys 1e15 s apart, or at both ends of float32's range: 2^52 grid points or more even at
    // 1 frame per second. The recording is valid and has keys: its frames are refused.
    for (const auto& [first, last] : {std::pair{0.0f, 1e15f}, std::pair{-3e38f, 3e38f}}) {
        const std::string file = write_file("far.bin", camera_keyed_at(first, last));
        server_process& s = start_view({file});
        ASSERT_GT(s.port(), 0) << s.log();
        const json listed = curl({s.url("/api/recordings/0")}).object();
        const reply r = curl({"--data-binary", "@" + file, s.url("/view")});
        EXPECT_EQ(r.status, 422) << last;
        for (const json& d : {listed, bundle_of(r.body).first}) {
            EXPECT_EQ(d["report"]["valid"], true);
            EXPECT_EQ(d["frames"], 0);
            EXPECT_EQ(d.value("error", json()), "frames_too_large");
            const std::string note = d["note"];
            EXPECT_EQ(note.find("no curve has a keyframe"), std::string::npos) << note;
            EXPECT_NE(note.find("no frames"), std::string::npos) << note;
        }
        server_.reset();
    }
}

TEST_F(Serve, ViewListsARecordingWhoseFramesWouldPassTheirCeilingWithoutBuildingThem) {
    const std::string file = write_file("far.bin", camera_keyed_at(0.0f, 1e12f));
    server_process& s = start_view({file});
    ASSERT_GT(s.port(), 0) << s.log();
    EXPECT_EQ(curl({s.url("/api/recordings")}).object().size(), 1u);
    const json d = curl({s.url("/api/recordings/0")}).object();
    EXPECT_EQ(d["report"]["valid"], true);
    EXPECT_EQ(d.value("error", json()), "frames_too_large");
    EXPECT_EQ(d["frames"], 0);
    EXPECT_NE(d["note"].get<std::string>().find("256 MiB"), std::string::npos) << d["note"];
    const reply frames = curl({s.url("/api/recordings/0/frames")});
    EXPECT_EQ(frames.status, 200);
    EXPECT_EQ(frames.body, "");
    EXPECT_NE(s.log().find("far.bin: no frames"), std::string::npos) << s.log();
}

// An upload to view whose answer (900001 rows of 8 columns, 29 MB) is more than the sockets
// between the server and a client that does not read can hold.
std::string large_answer_upload() {
    const std::string body = as_text(write(camera_keyed_at(0.0f, 15000.0f)));
    return request_head("/view", body.size()) + body;
}

TEST_F(Serve, AnUploadToViewHoldsItsPlaceUntilItsAnswerIsSent) {
    server_process& s = start();
    const std::string request = large_answer_upload();
    // Four clients upload and never read: each answer is built and stays in flight.
    std::vector<std::unique_ptr<raw_client>> stuck;
    for (int i = 0; i < 4; ++i) {
        stuck.push_back(std::make_unique<raw_client>(s.port()));
        ASSERT_TRUE(stuck.back()->send(request));
    }
    for (const auto& c : stuck) EXPECT_EQ(c->peek(12, 60s), "HTTP/1.1 200");
    // Four more, now that every answer is built: refused while the four are being sent.
    for (int i = 0; i < 4; ++i) {
        raw_client late(s.port());
        ASSERT_TRUE(late.send(request));
        const std::string in = late.peek(12, 30s);
        EXPECT_EQ(in, "HTTP/1.1 503") << i;
    }
    // /validate is not held back by them.
    EXPECT_EQ(post(write_file("rec.bin", recording())).status, 200);
    // Once their connections are gone, uploads to view are answered again.
    for (const auto& c : stuck) c->reset();
    const std::string file = write_file("small.bin", recording());
    const steady::time_point deadline = steady::now() + 30s;
    reply r;
    do {
        r = curl({"--data-binary", "@" + file, s.url("/view")});
    } while (r.status != 200 && steady::now() < deadline);
    EXPECT_EQ(r.status, 200);
}

// Every curve keyed at 0 and 16000 s: its answer takes the most an upload may ask for, 64 MiB of
// frames and 960001 metrics samples of every hand.
std::string slow_upload() {
    model m;
    for (curve& c : m.curves) c.keys = {{0.0f, 0.0f}, {16000.0f, 1.0f}};
    const std::string body = as_text(write(m));
    return request_head("/view", body.size()) + body;
}

TEST_F(Serve, HealthzAndValidateAreAnsweredWhileUploadsToViewAreBuilt) {
    // As many threads for connections as builds: were the builds on them, nothing else would be
    // answered until they end.
    server_process& s = start({"--threads", "2"});
    const std::string request = slow_upload();
    raw_client first(s.port());
    raw_client second(s.port());
    ASSERT_TRUE(first.send(request));
    ASSERT_TRUE(second.send(request));
    // The bodies are small: by now both are read and their answers being built.
    std::this_thread::sleep_for(300ms);
    raw_client health(s.port());
    std::vector<std::chrono::milliseconds> latencies;
    for (int i = 0; i < 5; ++i) {
        const steady::time_point sent = steady::now();
        ASSERT_TRUE(health.send(get("/healthz")));
        const std::string in = health.peek(1, 30s);
        latencies.push_back(
            std::chrono::duration_cast<std::chrono::milliseconds>(steady::now() - sent));
        // The whole answer, then the next request on the same connection.
        std::string answer;
        while (answer.find("ok\n") == std::string::npos) answer += health.read_some();
    }
    const reply validated = post(write_file("rec.bin", recording()));
    // Both answers are still being built: nothing of them has arrived.
    EXPECT_FALSE(first.answered());
    EXPECT_FALSE(second.answered());
    std::sort(latencies.begin(), latencies.end());
    EXPECT_LT(latencies[latencies.size() / 2], 100ms)
        << "healthz took " << latencies.front().count() << " to " << latencies.back().count()
        << " ms";
    EXPECT_EQ(validated.status, 200);
    // And they do arrive.
    EXPECT_EQ(first.peek(12, 120s), "HTTP/1.1 200");
    EXPECT_EQ(second.peek(12, 120s), "HTTP/1.1 200");
}

TEST_F(Serve, ThreadsPastTheCeilingAreAUsageError) {
    const run_result r = run({"serve", "--listen", "127.0.0.1:0", "--threads", "257"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--threads"), std::string::npos) << r.err;
}

TEST_F(Serve, AThreadTheSystemRefusesIsAnErrorWithAMessageNotAnAbort) {
    // RLIMIT_NPROC counts the tasks of a user and does not bind root: run as a user of its own
    // (no other process) allowed one task, the server itself, every thread it starts is refused.
    // (LeakSanitizer's exit check needs a thread too.)
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to run as another user";
    if (!std::filesystem::exists("/usr/bin/setpriv")) GTEST_SKIP() << "no setpriv (util-linux)";
    const run_result r =
        run_process({"/usr/bin/setpriv", "--reuid=54321", "--regid=54321", "--clear-groups",
                     "prlimit", "--nproc=1", "env", "ASAN_OPTIONS=detect_leaks=0", INPUTANIM_CLI,
                     "serve", "--listen", "127.0.0.1:0", "--threads", "4"},
                    {scratch_.path()});
    EXPECT_EQ(r.status, 3) << r.err;
    EXPECT_NE(r.err.find("cannot start a thread"), std::string::npos) << r.err;
}

TEST_F(Serve, ThreadsTheSystemRefusesLeaveFewerWithAWarningNotAnAbort) {
    // Four tasks for the user: `timeout`, the server and two threads. The workers get two of
    // their four, the connections only the main thread; the server listens and, at timeout's
    // SIGTERM, shuts down as usual (exit 0). A user of its own, not the other test's: ctest -j
    // may run both at once.
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to run as another user";
    if (!std::filesystem::exists("/usr/bin/setpriv")) GTEST_SKIP() << "no setpriv (util-linux)";
    const run_result r = run_process(
        {"/usr/bin/setpriv", "--reuid=54322", "--regid=54322", "--clear-groups", "prlimit",
         "--nproc=4", "env", "ASAN_OPTIONS=detect_leaks=0", "timeout", "--preserve-status", "5",
         INPUTANIM_CLI, "serve", "--listen", "127.0.0.1:0", "--threads", "4"},
        {scratch_.path()});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out.rfind("listening on 127.0.0.1:", 0), 0u) << r.out;
    EXPECT_NE(r.err.find("warning: started 2 of 4 threads for uploads to view"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("warning: serving with 1 of 4 threads"), std::string::npos) << r.err;
}

}  // namespace

namespace {

// Every curve keyed at 0 and 600 s: a file of 10 KB whose .glb is 55 MB at 60 Hz.
bytes long_export_file() {
    model m;
    for (curve& c : m.curves) c.keys = {{0.0f, 0.0f}, {600.0f, 1.0f}};
    return write(m);
}

// The value of a header field of a response, "" without it.
std::string field_of(const std::string& response, const std::string& name) {
    const std::size_t at = response.find("\r\n" + name + ": ");
    if (at == std::string::npos) return "";
    const std::size_t start = at + name.size() + 4;
    return response.substr(start, response.find("\r\n", start) - start);
}

TEST_F(Serve, AnExportIsStreamedOffTheConnectionsThreadsWithItsExactLength) {
    const std::string file = write_file("long.bin", long_export_file());
    ASSERT_EQ(run({"export", file, path("long.glb")}).status, 0);
    const std::uintmax_t size = std::filesystem::file_size(path("long.glb"));
    ASSERT_GT(size, std::uintmax_t{50} << 20);
    server_process& s = start_view({file});
    ASSERT_GT(s.port(), 0) << s.log();
    const long before = s.resident_kib();
    // Four clients ask for the export and read only its head: each answer is in flight.
    std::vector<std::unique_ptr<raw_client>> readers;
    for (int i = 0; i < 4; ++i) {
        readers.push_back(std::make_unique<raw_client>(s.port()));
        ASSERT_TRUE(readers.back()->send(get("/api/recordings/0/export.glb")));
    }
    for (const auto& c : readers) {
        const std::string head = c->peek(512, 60s);
        EXPECT_TRUE(head.starts_with("HTTP/1.1 200 OK\r\n")) << head.substr(0, 200);
        EXPECT_EQ(field_of(head, "Content-Length"), std::to_string(size));
        EXPECT_EQ(field_of(head, "Content-Type"), "model/gltf-binary");
    }
    // Nothing the size of the export is held: four of them in flight cost a few pieces each
    // (held whole, they would be 220 MB).
    EXPECT_LT(s.resident_kib() - before, 32 * 1024) << before << " KiB before";
    // A fifth is refused while the four hold their places; /healthz is answered at once.
    raw_client fifth(s.port());
    ASSERT_TRUE(fifth.send(get("/api/recordings/0/export.glb")));
    EXPECT_EQ(fifth.peek(12, 30s), "HTTP/1.1 503");
    raw_client health(s.port());
    const steady::time_point sent = steady::now();
    ASSERT_TRUE(health.send(get("/healthz")));
    EXPECT_EQ(health.peek(12, 30s), "HTTP/1.1 200");
    EXPECT_LT(steady::now() - sent, 1s);
    // Once their connections are gone their places are free again, and an export read to its end
    // is the export command's file, byte for byte.
    for (const auto& c : readers) c->reset();
    const steady::time_point deadline = steady::now() + 30s;
    reply r;
    do {
        r = curl({"--max-time", "120", s.url("/api/recordings/0/export.glb")});
    } while (r.status == 503 && steady::now() < deadline);
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.body.size(), size);
    EXPECT_TRUE(r.body == slurp(path("long.glb")));
}

TEST_F(Serve, AnExportOverItsCeilingIs413BeforeItsFirstByte) {
    // Keyed at 0 and 16000 s: 1.4 GB of glTF, over the command's default ceiling of 1 GiB.
    model m;
    for (curve& c : m.curves) c.keys = {{0.0f, 0.0f}, {16000.0f, 1.0f}};
    const std::string file = write_file("longer.bin", m);
    server_process& s = start_view({file});
    const reply r = curl({s.url("/api/recordings/0/export.glb")});
    EXPECT_EQ(r.status, 413);
    EXPECT_EQ(r.object()["error"], "too_large");
    EXPECT_NE(r.object()["message"].get<std::string>().find("more than the ceiling 1073741824"),
              std::string::npos)
        << r.body;
}

TEST_F(Serve, TheViewersDataIsNotForOtherSitesPages) {
    const std::string file = write_file("rec.bin", recording());
    server_process& s = start_view({file});
    for (const std::string& target :
         {std::string("/api/recordings/0/export.glb"), std::string("/api/recordings/0/frames"),
          std::string("/api/recordings/0"), std::string("/api/recordings")}) {
        for (const std::string& fields : {std::string("Sec-Fetch-Site: cross-site\r\n"),
                                          std::string("Origin: http://attacker.example\r\n")}) {
            const reply r = curl({"-H", fields.substr(0, fields.size() - 2), s.url(target)});
            EXPECT_EQ(r.status, 403) << target << ' ' << fields;
            EXPECT_EQ(r.object()["error"], "cross_site") << r.body;
        }
        // The page's own requests, and a client that is no browser's page.
        EXPECT_EQ(curl({"-H", "Sec-Fetch-Site: same-origin", s.url(target)}).status, 200) << target;
        EXPECT_EQ(curl({s.url(target)}).status, 200) << target;
    }
    // A link from another site to the page itself is a navigation: answered.
    EXPECT_EQ(curl({"-H", "Sec-Fetch-Site: cross-site", s.url("/")}).status, 200);
}

TEST_F(Serve, ADamagedGzipFileStillPlaysWhatWasInflatedBeforeTheDamage) {
    const bytes file = recording();
    const bytes packed = gzip_compress(file);
    bytes trailing = packed;
    for (int i = 0; i < 16; ++i) trailing.push_back(std::byte{0x5a});
    bytes cut = packed;
    cut.resize(packed.size() * 2 / 3);
    server_process& s = start_view({write_file("trailing.bin.gz", trailing),
                                    write_file("cut.bin.gz", cut), write_file("plain.bin", file)});
    ASSERT_GT(s.port(), 0) << s.log();
    const json whole = curl({s.url("/api/recordings/2")}).object();
    const json after = curl({s.url("/api/recordings/0")}).object();
    // Garbage after the gzip stream: every frame plays, and the note places the damage.
    EXPECT_EQ(after["frames"], whole["frames"]);
    EXPECT_EQ(after["report"]["error"]["code"], "bad_compression");
    EXPECT_NE(after["note"].get<std::string>().find(
                  "the gzip stream is damaged at compressed byte " +
                  std::to_string(after["report"]["error"]["offset"].get<std::uint64_t>())),
              std::string::npos)
        << after["note"];
    // Cut short: what was inflated plays, and the structure breaks where its bytes end.
    const json short_one = curl({s.url("/api/recordings/1")}).object();
    EXPECT_GT(short_one["frames"].get<std::uint64_t>(), 0u);
    const std::string note = short_one["note"];
    EXPECT_NE(note.find("the structure breaks at byte "), std::string::npos) << note;
    EXPECT_EQ(note.find("the structure breaks at byte 0:"), std::string::npos) << note;
}

}  // namespace
