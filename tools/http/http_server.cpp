#include "http/http_server.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <exception>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <system_error>
#include <thread>
// Boost 1.74's awaitable.hpp uses std::exchange without including <utility>.
#include <utility>
#include <vector>

#include "http/beast.hpp"

#include "http/framing.hpp"
#include "http/server.hpp"
#include "http/validate_route.hpp"
#include "http/viewer_routes.hpp"
#include "inputanim/input.hpp"
#include "os/ceilings.hpp"
#include "os/threads.hpp"

namespace inputanim::http {

using tools::max_threads;

namespace detail {

namespace {

// When the next read of a request body must end. Silence is bounded by `timeout`; the pace by
// `min_rate`: after a first `timeout`, each byte received buys 1/min_rate seconds more (as
// Apache's mod_reqtimeout MinRate), so that a client trickling bytes is cut once it falls
// behind; and the whole body by `request_deadline` from the end of the header, whatever its pace.
steady::time_point body_read_deadline(const server_config& config, steady::time_point header_end,
                                      steady::time_point body_start, std::uint64_t received) {
    steady::time_point deadline =
        std::min(steady::now() + config.timeout, header_end + config.request_deadline);
    if (config.min_rate > 0) {
        // Capped at the request deadline, which bounds the read anyway: no overflow of the clock.
        const std::chrono::duration<double> credit(
            std::min(static_cast<double>(received) / static_cast<double>(config.min_rate),
                     std::chrono::duration<double>(config.request_deadline).count()));
        deadline = std::min(deadline, body_start + config.timeout +
                                          std::chrono::duration_cast<steady::duration>(credit));
    }
    return deadline;
}

answer refused_answer(refusal r) {
    answer a;
    a.take(std::move(r.answer));
    a.body_unread = r.body_unread;
    return a;
}

bool is_http_syntax_error(const beast::error_code& ec) {
    return ec.category() == beast::http::make_error_code(http::error::bad_method).category() &&
           ec != http::error::end_of_stream && ec != http::error::partial_message;
}

void log_request(std::string_view peer, std::string_view method, std::string_view target,
                 unsigned status, std::uint64_t bytes, steady::time_point start) {
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(steady::now() - start).count();
    std::string line(peer);
    line += " \"";
    line += method;
    line += ' ';
    line += target;
    line += "\" " + std::to_string(status) + ' ' + std::to_string(bytes) + ' ' +
            std::to_string(ms) + "ms\n";
    // One write per line: lines from different threads never interleave.
    std::fwrite(line.data(), 1, line.size(), stderr);
}

std::string peer_of(const beast::tcp_stream& stream) {
    beast::error_code ec;
    const tcp::endpoint peer = stream.socket().remote_endpoint(ec);
    if (ec) return "-";
    return peer.address().to_string() + ":" + std::to_string(peer.port());
}

// Stops sending, drains what the client still sends for linger_time, and closes.
net::awaitable<void> linger_and_close(beast::tcp_stream& stream, net::mutable_buffer scratch) {
    beast::error_code ec;
    stream.socket().shutdown(tcp::socket::shutdown_send, ec);
    stream.expires_after(linger_time);
    while (!ec) co_await stream.async_read_some(scratch, to(ec));
    stream.close();
}

// Counts a connection being served and registers it while it lives.
class slot {
  public:
    slot(server_state& s, const std::shared_ptr<connection>& c) : state_(s) {
        const std::lock_guard lock(state_.mutex);
        id_ = state_.next_id++;
        state_.connections.emplace(id_, c);
    }
    ~slot() {
        {
            const std::lock_guard lock(state_.mutex);
            state_.connections.erase(id_);
        }
        --state_.active;
    }
    slot(const slot&) = delete;
    slot& operator=(const slot&) = delete;

  private:
    server_state& state_;
    std::uint64_t id_ = 0;
};

class counted {
  public:
    explicit counted(std::atomic<std::size_t>& n) : n_(n) {}
    ~counted() { --n_; }
    counted(const counted&) = delete;
    counted& operator=(const counted&) = delete;

  private:
    std::atomic<std::size_t>& n_;
};

void report_failure(std::exception_ptr e) {
    if (!e) return;
    try {
        std::rethrow_exception(e);
    } catch (const std::exception& x) {
        std::cerr << "inputanim serve: a connection failed: " << x.what() << '\n';
    } catch (...) {
        std::cerr << "inputanim serve: a connection failed\n";
    }
}

// SIGINT and SIGTERM blocked in this thread while alive. Threads inherit the mask: the threads the
// server starts never take a stop signal, so the thread that called run_server can stop taking
// them all before the handlers are torn down.
class stop_signals_blocked {
  public:
    stop_signals_blocked() {
        sigemptyset(&stop_);
        sigaddset(&stop_, SIGINT);
        sigaddset(&stop_, SIGTERM);
        pthread_sigmask(SIG_BLOCK, &stop_, &before_);
    }
    stop_signals_blocked(const stop_signals_blocked&) = delete;
    stop_signals_blocked& operator=(const stop_signals_blocked&) = delete;
    ~stop_signals_blocked() { pthread_sigmask(SIG_SETMASK, &before_, nullptr); }

  private:
    sigset_t stop_{};
    sigset_t before_{};
};

// Reads a request header into `parser`, as http::async_read_header does, but with the header's
// size bounded: Beast's header limit bounds what is left unparsed after each read, and its fields
// are parsed a line at a time, so a client whose every piece ends one byte into the next line
// would pass it with megabytes (fuzz/regressions/http). Here the bytes the parser has taken and
// those waiting in `buffer` (all of them the header's while it is not done) are counted together.
net::awaitable<void> read_header(connection& c, beast::flat_buffer& buffer, request_parser& parser,
                                 beast::error_code& ec) {
    std::size_t taken = 0;
    for (;;) {
        if (buffer.size() > 0) {
            const std::size_t used = parser.put(buffer.data(), ec);
            buffer.consume(used);
            taken += used;
            if (ec == http::error::need_more) ec = {};
            if (ec || parser.is_header_done()) co_return;
        }
        if (taken + buffer.size() > request_header_limit) {
            ec = http::error::header_limit;
            co_return;
        }
        const std::size_t n =
            co_await c.stream.async_read_some(buffer.prepare(read_size - buffer.size()), to(ec));
        buffer.commit(n);
        if (ec == net::error::eof) {
            // As Beast says it: a header cut short is partial_message, nothing at all
            // end_of_stream.
            ec = {};
            if (!parser.got_some()) {
                ec = http::error::end_of_stream;
            } else {
                parser.put_eof(ec);
            }
            co_return;
        }
        if (ec) co_return;
    }
}

}  // namespace

answer error_answer(unsigned status, std::string_view code, std::string message) {
    answer a;
    a.take(error_response(status, code, std::move(message)));
    return a;
}

answer report_answer(unsigned status, const std::string& name, const report& rep,
                     const validate_options& how, std::uint64_t bytes,
                     std::optional<std::uint64_t> compressed) {
    answer a;
    a.take(report_response(status, name, rep, how, bytes, compressed));
    return a;
}

answer body_failure(const beast::error_code& ec, std::uint64_t received) {
    answer a;
    if (ec == beast::error::timeout) {
        a.status = 408;
        a.unsendable = true;
    } else if (ec == http::error::partial_message) {
        // The client may have closed only its sending side: it can still read this.
        a = error_answer(400, "incomplete_body",
                         "the request body ended after " + std::to_string(received) +
                             " bytes, before its declared length");
    } else if (is_http_syntax_error(ec)) {
        a = error_answer(400, "bad_request", "malformed request body: " + ec.message());
        a.body_unread = true;
    } else {
        a.status = client_closed;
        a.unsendable = true;
    }
    return a;
}

server_end server::run(const tcp::endpoint& at) {
    const std::error_code workers_refused = [this] {
        const stop_signals_blocked blocked;
        return workers_.start(viewer_workers);
    }();
    if (const std::error_code refused = workers_refused) {
        if (workers_.size() == 0) {
            std::cerr << "inputanim serve: cannot start a thread: " << refused.message() << '\n';
            return server_end::refused;
        }
        std::cerr << "inputanim serve: warning: started " << workers_.size() << " of "
                  << viewer_workers << " threads for uploads to view (" << refused.message()
                  << ")\n";
    }
    const std::error_code walkers_refused = [this] {
        const stop_signals_blocked blocked;
        return walkers_.start(archive_walkers);
    }();
    if (const std::error_code refused = walkers_refused) {
        // Archives are then walked fewer at once (none: each is answered 503).
        std::cerr << "inputanim serve: warning: started " << walkers_.size() << " of "
                  << archive_walkers << " threads for archive uploads (" << refused.message()
                  << ")\n";
    }
    beast::error_code ec;
    acceptor_.open(at.protocol(), ec);
    if (!ec) acceptor_.set_option(net::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_.bind(at, ec);
    if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
    if (ec) {
        std::cerr << "inputanim serve: cannot listen on " << config_.listen << ": " << ec.message()
                  << '\n';
        return server_end::refused;
    }
    hosts_.emplace(acceptor_.local_endpoint(), config_.allow_hosts);
    // First thing on stdout, flushed: scripts and tests read the port from it.
    std::cout << "listening on " << acceptor_.local_endpoint() << std::endl;
    const tcp::endpoint bound = acceptor_.local_endpoint();
    const std::string host = bound.address().is_v6() ? "[" + bound.address().to_string() + "]"
                                                     : bound.address().to_string();
    const std::string url = "http://" + host + ":" + std::to_string(bound.port()) + "/";
    std::cout << "viewer at " << url << std::endl;
    if (config_.on_listening) config_.on_listening(url);
    // A client that goes away while its response is written must not kill the server.
    std::signal(SIGPIPE, SIG_IGN);

    net::co_spawn(control_, accept_loop(), report_failure);
    net::co_spawn(control_, watch_signals(), report_failure);
    const unsigned threads = config_.threads != 0
                                 ? config_.threads
                                 : std::clamp(std::thread::hardware_concurrency(), 1u, max_threads);
    std::vector<std::thread> pool;
    const std::error_code pool_refused = [&] {
        const stop_signals_blocked blocked;
        return start_threads(threads - 1, pool, [this] { io_.run(); });
    }();
    if (const std::error_code refused = pool_refused) {
        std::cerr << "inputanim serve: warning: serving with " << pool.size() + 1 << " of "
                  << threads << " threads (" << refused.message() << ")\n";
    }
    io_.run();
    for (std::thread& t : pool) t.join();
    // Stopped with connections still open (the shutdown's deadline, a second signal): their
    // archives' walks end, so that the threads walking them can be joined.
    {
        const std::lock_guard lock(state_.mutex);
        for (const auto& [id, weak] : state_.walks) {
            if (const std::shared_ptr<archive_walk> w = weak.lock()) w->cancel();
        }
    }
    return server_end::stopped;
}

net::awaitable<void> server::accept_loop() {
    for (;;) {
        beast::error_code ec;
        tcp::socket socket = co_await acceptor_.async_accept(net::make_strand(io_), to(ec));
        if (state_.stopping || ec == net::error::operation_aborted) co_return;
        if (ec) {
            // Out of file descriptors, or a connection reset before it was accepted: pause
            // rather than spin.
            net::steady_timer pause(control_, std::chrono::milliseconds(50));
            co_await pause.async_wait(to(ec));
            continue;
        }
        const auto executor = socket.get_executor();
        if (state_.active >= config_.max_connections) {
            // Answering 503 is cheap but not free: past as many refusals again, just close.
            if (state_.rejecting < config_.max_connections) {
                ++state_.rejecting;
                net::co_spawn(executor, reject(std::move(socket)), report_failure);
            }
            continue;
        }
        ++state_.active;
        auto c = std::make_shared<connection>(std::move(socket));
        net::co_spawn(executor, serve(std::move(c)), report_failure);
    }
}

net::awaitable<void> server::watch_signals() {
    beast::error_code ec;
    co_await signals_.async_wait(to(ec));
    if (ec) co_return;
    begin_shutdown();
    net::co_spawn(control_, drain(), report_failure);
    // A second signal does not wait for the requests in flight.
    co_await signals_.async_wait(to(ec));
    if (!ec) io_.stop();
}

void server::begin_shutdown() {
    state_.stopping = true;
    beast::error_code ec;
    acceptor_.close(ec);
    std::vector<std::shared_ptr<connection>> live;
    {
        const std::lock_guard lock(state_.mutex);
        for (const auto& [id, weak] : state_.connections) {
            if (auto c = weak.lock()) live.push_back(std::move(c));
        }
    }
    // A connection waiting for its next request is closed now; one with a request in flight
    // finishes it (with Connection: close) and closes itself.
    for (const std::shared_ptr<connection>& c : live) {
        net::post(c->stream.get_executor(), [c] {
            if (c->idle) c->stream.cancel();
        });
    }
}

net::awaitable<void> server::drain() {
    const steady::time_point deadline = steady::now() + config_.shutdown_timeout;
    net::steady_timer tick(control_);
    beast::error_code ec;
    while (state_.active + state_.rejecting > 0 && steady::now() < deadline) {
        tick.expires_after(std::chrono::milliseconds(20));
        co_await tick.async_wait(to(ec));
    }
    if (state_.active > 0) {
        std::cerr << "inputanim serve: shutdown deadline passed, closing the connections still "
                     "busy: "
                  << state_.active << '\n';
    }
    io_.stop();
}

net::awaitable<void> server::reject(tcp::socket socket) {
    const counted guard(state_.rejecting);
    const steady::time_point start = steady::now();
    beast::tcp_stream stream(std::move(socket));
    http::response<http::string_body> res{http::status::service_unavailable, 11};
    res.set(http::field::server, server_name);
    res.set(http::field::content_type, "application/json");
    res.set(http::field::retry_after, "1");
    res.keep_alive(false);
    res.body() = error_answer(503, "busy",
                              "the server is serving its maximum number of connections (" +
                                  std::to_string(config_.max_connections) + "); retry later")
                     .body;
    res.prepare_payload();
    beast::error_code ec;
    stream.expires_after(linger_time);
    co_await http::async_write(stream, res, to(ec));
    log_request(peer_of(stream), "-", "-", 503, 0, start);
    std::array<char, 4096> scratch;
    co_await linger_and_close(stream, net::buffer(scratch));
}

net::awaitable<void> server::serve(std::shared_ptr<connection> c) {
    const slot guard(state_, c);
    c->peer = peer_of(c->stream);
    beast::flat_buffer buffer(read_size);
    // Beast reads as much as the buffer's free capacity (at least 512 bytes): without this, every
    // read of the socket would take 512 bytes.
    buffer.reserve(read_size);
    std::vector<std::byte> chunk(read_size);
    for (;;) {
        request_parser parser;
        // The byte ceiling is enforced below, with a 413 and a report.
        limit_request(parser);
        c->idle = true;
        if (state_.stopping) break;
        beast::error_code ec;
        c->stream.expires_after(config_.timeout);
        co_await read_header(*c, buffer, parser, ec);
        c->idle = false;
        const steady::time_point start = steady::now();
        std::uint64_t received = 0;
        answer a;
        unsigned version = 11;
        bool keep_alive = false;
        // HEAD is GET without the response body (RFC 9110 §9.3.2): the routes see GET, so that
        // every GET resource answers HEAD, and respond() sends the headers only.
        bool head = false;
        std::string method = "-";
        if (ec) {
            // Closed, quiet or shut down between requests: nothing to answer.
            if (buffer.size() == 0 && !parser.got_some()) break;
            if (is_http_syntax_error(ec)) {
                a = ec == http::error::header_limit || ec == http::error::buffer_overflow
                        ? error_answer(431, "header_too_large",
                                       "the request header is larger than " +
                                           std::to_string(request_header_limit) + " bytes")
                        : error_answer(400, "bad_request", "malformed request: " + ec.message());
                a.body_unread = true;
            } else {
                a.status = ec == beast::error::timeout ? 408 : client_closed;
                a.unsendable = true;
            }
        } else {
            auto& req = parser.get();
            version = req.version();
            method = req.method_string();
            if (std::optional<refusal> refused = framing_error(parser)) {
                a = refused_answer(std::move(*refused));
            } else if (std::optional<refusal> foreign = host_error(parser, *hosts_)) {
                a = refused_answer(std::move(*foreign));
            } else {
                head = req.method() == http::verb::head;
                if (head) req.method(http::verb::get);
                a = co_await route(*c, parser, buffer, chunk, received);
            }
            keep_alive = parser.is_done() && req.keep_alive();
        }
        const bool kept = co_await respond(*c, a, version, keep_alive, head);
        // Sent, or never to be: the frames or the export are freed and the place given back
        // before any lingering.
        std::string().swap(a.body);
        a.job.reset();
        a.place.release();
        log_request(c->peer, method, ec ? "-" : parser.get().target(), a.status, received, start);
        if (!kept) {
            if (a.body_unread && !a.unsendable) {
                co_await linger_and_close(c->stream, net::buffer(chunk.data(), chunk.size()));
            }
            break;
        }
    }
    beast::error_code ignored;
    c->stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
    c->stream.close();
}

// Sends `a`, without its body but with its Content-Length for HEAD; returns whether the
// connection stays open for another request.
net::awaitable<bool> server::respond(connection& c, answer& a, unsigned version, bool keep_alive,
                                     bool head) {
    if (a.unsendable) co_return false;
    if (a.streamed) co_return a.stays_open;
    if (a.job) co_return co_await send_export(c, a, version, keep_alive, head);
    http::response<http::span_body<const char>> res{static_cast<http::status>(a.status), version};
    res.set(http::field::server, server_name);
    res.set(http::field::content_type, a.content_type);
    if (a.allow != nullptr) res.set(http::field::allow, with_head(a.allow));
    res.keep_alive(keep_alive && !a.body_unread && !state_.stopping);
    // `a` outlives the write.
    const std::string_view body = a.lasting_body.data() != nullptr ? a.lasting_body : a.body;
    res.body() = {body.data(), body.size()};
    res.prepare_payload();
    if (head) res.body() = {};
    beast::error_code ec;
    c.stream.expires_after(config_.timeout);
    co_await http::async_write(c.stream, res, to(ec));
    co_return !ec && res.keep_alive();
}

net::awaitable<answer> server::route(connection& c, request_parser& parser,
                                     beast::flat_buffer& buffer, std::vector<std::byte>& chunk,
                                     std::uint64_t& received) {
    const auto& req = parser.get();
    const std::string_view target = req.target();
    const std::size_t question = target.find('?');
    const std::string_view path = target.substr(0, question);
    const std::string_view query =
        question == std::string_view::npos ? std::string_view() : target.substr(question + 1);
    answer a;
    const bool post_only = path == "/validate" || path == "/view";
    if (path == "/view" && req.method() == http::verb::post) {
        if (++state_.viewing > viewer_max_uploads) {
            --state_.viewing;
            a = error_answer(503, "busy",
                             "the server is answering its maximum number of uploads to view (" +
                                 std::to_string(viewer_max_uploads) + "); retry later");
            a.body_unread = !parser.is_done();
            co_return a;
        }
        upload_place place(state_.viewing);
        a = co_await validate_upload(c, parser, buffer, chunk, received, query, true);
        a.place = std::move(place);
        co_return a;
    }
    if (path == "/validate" && req.method() == http::verb::post) {
        co_return co_await validate_upload(c, parser, buffer, chunk, received, query, false);
    }
    const viewer_resource resource = find_viewer_resource(config_.site.get(), path);
    if (req.method() == http::verb::get && resource.what == viewer_resource::kind::export_glb) {
        a = co_await export_recording(resource.index);
        a.body_unread = !parser.is_done();
        co_return a;
    }
    std::optional<response> page;
    if (req.method() == http::verb::get) page = viewer_get(config_.site.get(), resource);
    if (page) {
        a.take(std::move(*page));
    } else if (path == "/healthz" && req.method() == http::verb::get) {
        a.take(health_response());
    } else if (post_only || path == "/healthz" || resource.what != viewer_resource::kind::none) {
        a = error_answer(405, "method_not_allowed",
                         std::string(path) + " accepts " + (post_only ? "POST" : "GET") + " only");
        a.allow = post_only ? "POST" : "GET";
    } else {
        a = error_answer(404, "not_found",
                         "no resource " + std::string(path) +
                             ": the service has POST /validate, POST /view, GET /healthz and "
                             "GET / (the viewer)");
    }
    a.body_unread = !parser.is_done();
    co_return a;
}

net::awaitable<std::size_t> server::read_body(body_reading& b, beast::error_code& ec) {
    auto& req = b.parser.get();
    req.body().data = b.chunk.data();
    req.body().size = b.chunk.size();
    b.c.stream.expires_at(body_read_deadline(config_, b.header_end, b.body_start, b.received));
    co_await http::async_read_some(b.c.stream, b.buffer, b.parser, to(ec));
    if (ec == http::error::need_buffer) ec = {};
    const std::size_t n = b.chunk.size() - req.body().size;
    b.received += n;
    co_return n;
}

}  // namespace detail

server_end run_server(const server_config& config) {
    const std::optional<tcp::endpoint> at = parse_listen(config.listen);
    if (!at) {
        std::cerr << "inputanim serve: --listen " << config.listen
                  << ": expected HOST:PORT with a numeric IPv4 or [IPv6] address\n";
        return server_end::bad_config;
    }
    for (const std::string& name : config.allow_hosts) {
        const std::optional<authority> a = split_authority(name);
        if (!a || !a->port.empty() || a->host.size() != name.size()) {
            std::cerr << "inputanim serve: --allow-host " << name
                      << ": expected a host name or address without a port (any port is "
                         "allowed)\n";
            return server_end::bad_config;
        }
    }
    std::optional<detail::server> s(std::in_place, config);
    const server_end status = s->run(*at);
    {
        // A stop signal after the shutdown (GNU timeout sends SIGTERM twice) must not kill a
        // server that has finished. The signal set's destruction restores the default actions,
        // so it happens with the signals blocked, and ignoring them then discards any pending.
        // The process is about to exit: nothing needs them back.
        const detail::stop_signals_blocked blocked;
        s.reset();
        std::signal(SIGINT, SIG_IGN);
        std::signal(SIGTERM, SIG_IGN);
    }
    return status;
}

}  // namespace inputanim::http
