// The server's framing rules (tools/http/framing.hpp), called directly: the listen address, a
// Host's parts, whom the server answers as (host_policy), how a request's body is framed
// (framing_error), whose request it is (host_error), and the query and header helpers the routes
// read. The server's own tests (test_serve*) reach them through a socket.
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "http/framing.hpp"

using namespace inputanim::http;

namespace {

// `text`, a request's header (and any body after it), read by a parser set up as the server
// sets up its own.
std::unique_ptr<request_parser> parsed(std::string_view text) {
    auto parser = std::make_unique<request_parser>();
    limit_request(*parser);
    boost::beast::error_code ec;
    parser->put(boost::asio::buffer(text.data(), text.size()), ec);
    // A header whose body has not come yet asks for more: that is no failure here.
    if (ec == boost::beast::http::error::need_more) ec = {};
    EXPECT_FALSE(ec) << ec.message();
    EXPECT_TRUE(parser->is_header_done());
    return parser;
}

tcp::endpoint loopback_on(unsigned short port) {
    return {boost::asio::ip::make_address("127.0.0.1"), port};
}

// The error code of a refusal's body.
std::string code_of(const refusal& r) {
    return nlohmann::json::parse(r.answer.body)["error"].get<std::string>();
}

}  // namespace

TEST(HttpFraming, AListenAddressIsANumericAddressAndAPort) {
    const std::optional<tcp::endpoint> v4 = parse_listen("127.0.0.1:8080");
    ASSERT_TRUE(v4);
    EXPECT_EQ(v4->address().to_string(), "127.0.0.1");
    EXPECT_EQ(v4->port(), 8080);
    const std::optional<tcp::endpoint> v6 = parse_listen("[::1]:0");
    ASSERT_TRUE(v6);
    EXPECT_TRUE(v6->address().is_v6());
    EXPECT_EQ(v6->port(), 0);
}

TEST(HttpFraming, AListenAddressWithoutAPortANameOrAPortPast65535IsRefused) {
    EXPECT_FALSE(parse_listen("127.0.0.1"));
    EXPECT_FALSE(parse_listen("localhost:8080"));
    EXPECT_FALSE(parse_listen("127.0.0.1:65536"));
    EXPECT_FALSE(parse_listen("127.0.0.1:"));
    EXPECT_FALSE(parse_listen("127.0.0.1:80x"));
}

TEST(HttpFraming, AnAuthorityIsItsHostAndItsPortsText) {
    const std::optional<authority> a = split_authority("example.org:8080");
    ASSERT_TRUE(a);
    EXPECT_EQ(a->host, "example.org");
    EXPECT_EQ(a->port, "8080");
    const std::optional<authority> v6 = split_authority("[::1]");
    ASSERT_TRUE(v6);
    EXPECT_EQ(v6->host, "[::1]");
    EXPECT_EQ(v6->port, "");
}

TEST(HttpFraming, AnAuthorityWithAnUnclosedBracketALetterInItsPortOrAUserIsNone) {
    EXPECT_FALSE(split_authority("[::1"));
    EXPECT_FALSE(split_authority("example.org:80a"));
    EXPECT_FALSE(split_authority("user@example.org"));
    EXPECT_FALSE(split_authority(""));
    EXPECT_FALSE(split_authority(":80"));
}

TEST(HttpFraming, TheServerAnswersAsItsLoopbackNamesOnThePortItBound) {
    const host_policy hosts(loopback_on(8080), {});
    EXPECT_TRUE(hosts.allows("localhost:8080"));
    EXPECT_TRUE(hosts.allows("127.0.0.1:8080"));
    EXPECT_TRUE(hosts.allows("[::1]:8080"));
    EXPECT_TRUE(hosts.allows("LOCALHOST"));
    EXPECT_FALSE(hosts.allows("localhost:8081"));
    EXPECT_FALSE(hosts.allows("attacker.example:8080"));
}

TEST(HttpFraming, AnAllowedHostIsAnsweredOnAnyPort) {
    const host_policy hosts(loopback_on(8080), {"viewer.example"});
    EXPECT_TRUE(hosts.allows("viewer.example:443"));
    EXPECT_TRUE(hosts.allows("viewer.example"));
    EXPECT_FALSE(hosts.allows("other.example"));
}

TEST(HttpFraming, AnUnspecifiedListenAddressIsNoNameAClientMayGive) {
    const host_policy hosts({boost::asio::ip::make_address("0.0.0.0"), 8080}, {});
    EXPECT_FALSE(hosts.allows("0.0.0.0:8080"));
    EXPECT_TRUE(hosts.allows("localhost:8080"));
}

TEST(HttpFraming, AnOriginIsTheServersOwnOnThePortItBoundOrPort80WithoutOne) {
    const host_policy on_8080(loopback_on(8080), {});
    EXPECT_TRUE(on_8080.allows_origin("http://localhost:8080"));
    EXPECT_FALSE(on_8080.allows_origin("http://localhost:9000"));
    EXPECT_FALSE(on_8080.allows_origin("http://localhost"));
    EXPECT_FALSE(on_8080.allows_origin("https://localhost:8080"));
    EXPECT_FALSE(on_8080.allows_origin("null"));
    const host_policy on_80(loopback_on(80), {});
    EXPECT_TRUE(on_80.allows_origin("http://localhost"));
}

TEST(HttpFraming, AnAllowedHostsOriginIsTheServersOverHttpOrHttpsOnAnyPort) {
    const host_policy hosts(loopback_on(8080), {"viewer.example"});
    EXPECT_TRUE(hosts.allows_origin("https://viewer.example"));
    EXPECT_TRUE(hosts.allows_origin("http://viewer.example:3000"));
    EXPECT_FALSE(hosts.allows_origin("https://other.example"));
}

TEST(HttpFraming, ARequestWithOneContentLengthOrChunkedAloneIsFramed) {
    EXPECT_FALSE(
        framing_error(*parsed("POST /validate HTTP/1.1\r\nHost: localhost\r\n"
                              "Content-Length: 3\r\n\r\n")));
    EXPECT_FALSE(
        framing_error(*parsed("POST /validate HTTP/1.1\r\nHost: localhost\r\n"
                              "Transfer-Encoding: chunked\r\n\r\n")));
    EXPECT_FALSE(framing_error(*parsed("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")));
}

TEST(HttpFraming, BothTransferEncodingAndContentLengthAreRefusedAndTheRestLeftUnread) {
    // Beast refuses them itself when the coding is chunked; with another it reads the length.
    const std::optional<refusal> r =
        framing_error(*parsed("POST /validate HTTP/1.1\r\nHost: localhost\r\n"
                              "Transfer-Encoding: gzip\r\nContent-Length: 3\r\n\r\n"));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->answer.status, 400u);
    EXPECT_EQ(code_of(*r), "bad_request");
    EXPECT_TRUE(r->body_unread);
}

TEST(HttpFraming, TransferEncodingInHttp10IsRefused) {
    const std::optional<refusal> r =
        framing_error(*parsed("POST /validate HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n"));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->answer.status, 400u);
}

TEST(HttpFraming, ACodingOtherThanChunkedAloneIsUnsupportedOrAmbiguous) {
    const std::optional<refusal> gzip_then_chunked =
        framing_error(*parsed("POST /validate HTTP/1.1\r\nHost: localhost\r\n"
                              "Transfer-Encoding: gzip, chunked\r\n\r\n"));
    ASSERT_TRUE(gzip_then_chunked);
    EXPECT_EQ(gzip_then_chunked->answer.status, 501u);
    EXPECT_EQ(code_of(*gzip_then_chunked), "unsupported_transfer_encoding");
    const std::optional<refusal> chunked_twice =
        framing_error(*parsed("POST /validate HTTP/1.1\r\nHost: localhost\r\n"
                              "Transfer-Encoding: chunked, chunked\r\n\r\n"));
    ASSERT_TRUE(chunked_twice);
    EXPECT_EQ(chunked_twice->answer.status, 400u);
}

TEST(HttpFraming, AListOfContentLengthsIsRefused) {
    const std::optional<refusal> r = framing_error(
        *parsed("POST /validate HTTP/1.1\r\nHost: localhost\r\nContent-Length: 3, 3\r\n\r\n"));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->answer.status, 400u);
    EXPECT_NE(r->answer.body.find("more than one Content-Length"), std::string::npos);
}

TEST(HttpFraming, AnHttp11RequestNeedsExactlyOneHost) {
    const host_policy hosts(loopback_on(8080), {});
    const std::optional<refusal> none = host_error(*parsed("GET / HTTP/1.1\r\n\r\n"), hosts);
    ASSERT_TRUE(none);
    EXPECT_EQ(none->answer.status, 400u);
    const std::optional<refusal> two = host_error(
        *parsed("GET / HTTP/1.1\r\nHost: localhost:8080\r\nHost: localhost:8080\r\n\r\n"), hosts);
    ASSERT_TRUE(two);
    EXPECT_EQ(two->answer.status, 400u);
    EXPECT_FALSE(host_error(*parsed("GET / HTTP/1.0\r\n\r\n"), hosts));
}

TEST(HttpFraming, AnotherServersHostIsMisdirected) {
    const host_policy hosts(loopback_on(8080), {});
    const std::optional<refusal> r =
        host_error(*parsed("GET / HTTP/1.1\r\nHost: rebound.example:8080\r\n\r\n"), hosts);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->answer.status, 421u);
    EXPECT_EQ(code_of(*r), "misdirected_request");
    EXPECT_FALSE(host_error(*parsed("GET / HTTP/1.1\r\nHost: localhost:8080\r\n\r\n"), hosts));
}

TEST(HttpFraming, APostOrAViewerDataRequestFromAnotherSitesPageIsRefused) {
    const host_policy hosts(loopback_on(8080), {});
    const std::optional<refusal> post =
        host_error(*parsed("POST /validate HTTP/1.1\r\nHost: localhost:8080\r\n"
                           "Origin: http://attacker.example\r\nContent-Length: 1\r\n\r\n"),
                   hosts);
    ASSERT_TRUE(post);
    EXPECT_EQ(post->answer.status, 403u);
    EXPECT_EQ(code_of(*post), "cross_site");
    // Its body was not read.
    EXPECT_TRUE(post->body_unread);
    const std::optional<refusal> data =
        host_error(*parsed("GET /api/recordings HTTP/1.1\r\nHost: localhost:8080\r\n"
                           "Sec-Fetch-Site: cross-site\r\n\r\n"),
                   hosts);
    ASSERT_TRUE(data);
    EXPECT_EQ(data->answer.status, 403u);
}

TEST(HttpFraming, APostFromTheServersOwnPageOrWithoutOriginIsTaken) {
    const host_policy hosts(loopback_on(8080), {});
    EXPECT_FALSE(host_error(*parsed("POST /validate HTTP/1.1\r\nHost: localhost:8080\r\n"
                                    "Origin: http://localhost:8080\r\n\r\n"),
                            hosts));
    EXPECT_FALSE(
        host_error(*parsed("POST /validate HTTP/1.1\r\nHost: localhost:8080\r\n\r\n"), hosts));
    // A page of another site may still link to the viewer's page itself.
    EXPECT_FALSE(host_error(*parsed("GET / HTTP/1.1\r\nHost: localhost:8080\r\n"
                                    "Origin: http://attacker.example\r\n\r\n"),
                            hosts));
}

TEST(HttpFraming, AnAllowListWithGetAllowsHeadToo) {
    EXPECT_EQ(with_head("GET"), "GET, HEAD");
    EXPECT_EQ(with_head("GET, HEAD"), "GET, HEAD");
    EXPECT_EQ(with_head("POST"), "POST");
}

TEST(HttpFraming, AQueryValueIsPercentDecodedAndAPlusIsASpace) {
    EXPECT_EQ(query_value("name=a%2Fb+c&member=x", "name"), "a/b c");
    EXPECT_EQ(query_value("name=a%2Fb+c&member=x", "member"), "x");
    // The first parameter that has a value.
    EXPECT_EQ(query_value("name=&name=second", "name"), "second");
    EXPECT_EQ(query_value("name=100%", "name"), "100%");
    EXPECT_FALSE(query_value("names=x", "name"));
}

TEST(HttpFraming, AnUploadIsNamedByItsQueryElseUpload) {
    EXPECT_EQ(upload_name("name=take.bin"), "take.bin");
    EXPECT_EQ(upload_name(""), "upload");
}

TEST(HttpFraming, AFieldValueIsTrimmedOfSpacesAndTabsOnly) {
    EXPECT_EQ(trimmed(" \tgzip \t"), "gzip");
    EXPECT_EQ(trimmed("a b"), "a b");
    EXPECT_EQ(trimmed("  "), "");
}
