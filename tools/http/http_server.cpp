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
#include "http/validate_route.hpp"
#include "http/viewer_routes.hpp"
#include "inputanim/input.hpp"
#include "os/ceilings.hpp"
#include "os/text.hpp"
#include "os/threads.hpp"

namespace inputanim::http {

using records::max_threads;
using records::printable;
using records::start_threads;

namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using steady = std::chrono::steady_clock;

// Every asynchronous operation reports its error as a value, as the library does.
auto to(beast::error_code& ec) {
    return net::redirect_error(net::use_awaitable, ec);
}

// The most body bytes read (and validated) at once; the read buffer holds no more either, so a
// connection costs about twice this, plus a validator, whatever the upload's size.
constexpr std::size_t read_size = 32 * 1024;
// A connection closed before the client finished sending its body first drains what is still
// coming for this long, so that the response is not lost to the reset that closing a socket
// with unread data causes (as nginx's lingering close).
constexpr std::chrono::seconds linger_time{2};
constexpr std::string_view server_name = "inputanim/" INPUTANIM_VERSION;

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

// A status for the log when nothing could be answered: the client went away mid-request
// (nginx's convention).
constexpr unsigned client_closed = 499;

// One of the viewer_max_uploads places of POST /view: taken at the request's header and given
// back once its answer, which holds the frames, has been sent or cannot be (the connection closed
// or timed out), so that the bound holds for clients that upload and do not read.
class upload_place {
  public:
    upload_place() = default;
    explicit upload_place(std::atomic<std::size_t>& taken) : taken_(&taken) {}
    upload_place(upload_place&& o) noexcept : taken_(std::exchange(o.taken_, nullptr)) {}
    upload_place& operator=(upload_place&& o) noexcept {
        release();
        taken_ = std::exchange(o.taken_, nullptr);
        return *this;
    }
    upload_place(const upload_place&) = delete;
    upload_place& operator=(const upload_place&) = delete;
    ~upload_place() { release(); }
    void release() {
        if (taken_ != nullptr) --*taken_;
        taken_ = nullptr;
    }

  private:
    std::atomic<std::size_t>* taken_ = nullptr;
};

// What to answer to one request, and what to do with the connection afterwards.
// The response (response.hpp), and how the connection goes on after it.
struct answer : response {
    // Sends `r` as it is; how the connection goes on is kept.
    void take(response r) { static_cast<response&>(*this) = std::move(r); }

    // For 405: the methods the resource accepts.
    const char* allow = nullptr;
    // The response cannot be sent (the connection is gone or timed out); it is only logged.
    bool unsendable = false;
    // The request body was not read to its end, or where it ends is unknown: answer with
    // Connection: close, then linger.
    bool body_unread = false;
    // For an upload to POST /view or an export: its place, held while the answer is sent.
    upload_place place;
    // The route has written the response itself, as it was made (an archive's lines): respond()
    // sends nothing more, and the connection goes on when `stays_open`.
    bool streamed = false;
    bool stays_open = false;
    // An export's body, made piece by piece on the workers as it is sent (its length known).
    std::shared_ptr<export_job> job;
};

answer error_answer(unsigned status, std::string_view code, std::string message) {
    answer a;
    a.take(error_response(status, code, std::move(message)));
    return a;
}

answer refused_answer(refusal r) {
    answer a;
    a.take(std::move(r.answer));
    a.body_unread = r.body_unread;
    return a;
}

answer report_answer(unsigned status, const std::string& name, const report& rep,
                     const validate_options& how, std::uint64_t bytes,
                     std::optional<std::uint64_t> compressed) {
    answer a;
    a.take(report_response(status, name, rep, how, bytes, compressed));
    return a;
}

bool is_http_syntax_error(const beast::error_code& ec) {
    return ec.category() == beast::http::make_error_code(http::error::bad_method).category() &&
           ec != http::error::end_of_stream && ec != http::error::partial_message;
}

struct connection {
    explicit connection(tcp::socket socket) : stream(std::move(socket)) {}
    beast::tcp_stream stream;
    std::string peer;
    // Waiting for a request header: nothing in flight. Used on the connection's strand only.
    bool idle = true;
};

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

// What the server's coroutines share with its destructor: declared before the io_context, so
// that it outlives the coroutine frames the io_context destroys.
struct server_state {
    std::atomic<std::size_t> active{0};
    std::atomic<std::size_t> rejecting{0};
    // Uploads to POST /view being answered.
    std::atomic<std::size_t> viewing{0};
    // Archives uploaded to POST /validate being walked.
    std::atomic<std::size_t> walking{0};
    std::atomic<bool> stopping{false};
    std::mutex mutex;
    // The connections being served, for the shutdown to close the idle ones.
    std::map<std::uint64_t, std::weak_ptr<connection>> connections;
    std::uint64_t next_id = 0;
    // The archives' walks, for a shutdown that stops the connections without finishing them to
    // free the threads that walk them.
    std::map<std::uint64_t, std::weak_ptr<archive_walk>> walks;
};

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

// A walk of an archive while its connection's coroutine lives: registered for the shutdown, and
// cancelled when the coroutine ends however it ends, so that its thread never waits for a body
// that will not come.
class walk_registration {
  public:
    walk_registration(server_state& s, const std::shared_ptr<archive_walk>& w)
        : state_(s), walk_(w) {
        const std::lock_guard lock(state_.mutex);
        id_ = state_.next_id++;
        state_.walks.emplace(id_, w);
    }
    ~walk_registration() {
        walk_->cancel();
        const std::lock_guard lock(state_.mutex);
        state_.walks.erase(id_);
    }
    walk_registration(const walk_registration&) = delete;
    walk_registration& operator=(const walk_registration&) = delete;

  private:
    server_state& state_;
    std::shared_ptr<archive_walk> walk_;
    std::uint64_t id_ = 0;
};

// Wakes a connection's coroutine from a thread that walks its archive: posted to the
// connection's strand, where it cancels what the coroutine waits on, the timer or a read of the
// body (the parser keeps the bytes it has). Wake-ups that come while one is posted are one; the
// coroutine looks at the walk after every wake-up, so none is lost.
class wake_signal : public std::enable_shared_from_this<wake_signal> {
  public:
    explicit wake_signal(const net::any_io_executor& strand) : timer_(strand) {}
    // Any thread. Without memory to post it, the coroutine goes on at its deadline.
    void wake() noexcept {
        if (posted_.exchange(true)) return;
        try {
            net::post(timer_.get_executor(), [self = shared_from_this()] {
                self->posted_ = false;
                self->timer_.cancel();
                if (self->reading_ != nullptr) self->reading_->socket().cancel();
            });
        } catch (const std::bad_alloc&) {
            posted_ = false;
        }
    }
    // The connection's strand only.
    net::steady_timer& timer() { return timer_; }
    // The stream a wake-up cancels the read of (null: none is in flight).
    void reading(beast::tcp_stream* stream) { reading_ = stream; }

  private:
    net::steady_timer timer_;
    beast::tcp_stream* reading_ = nullptr;
    std::atomic<bool> posted_{false};
};

// A request body being read: the connection, the parser and buffers it is read with, the bytes
// received, and when its deadlines started (body_read_deadline).
struct body_reading {
    connection& c;
    request_parser& parser;
    beast::flat_buffer& buffer;
    std::vector<std::byte>& chunk;
    std::uint64_t& received;
    steady::time_point header_end;
    steady::time_point body_start;
};

// The answer when the body could not be read to its end.
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

// The answer `make` builds, built on `worker` (off the connection's strand, which resumes here
// once it is built); 503 when it cannot be allocated.
template <typename Executor, typename Make>
net::awaitable<answer> answer_on(Executor worker, Make make) {
    answer a;
    try {
        response r = co_await net::co_spawn(
            worker, [&]() -> net::awaitable<response> { co_return make(); }, net::use_awaitable);
        a.take(std::move(r));
    } catch (const std::bad_alloc&) {
        a = error_answer(503, "out_of_memory",
                         "the answer to this upload could not be allocated; retry later");
    }
    co_return a;
}

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

// Threads off the I/O threads, so that a connection's strand is never held by their work: those
// that resample and measure uploads to POST /view (viewer_workers), and those that walk the
// archives uploaded to POST /validate (archive_walkers), each created once, before the server
// listens.
class worker_pool {
  public:
    worker_pool() = default;
    worker_pool(const worker_pool&) = delete;
    worker_pool& operator=(const worker_pool&) = delete;
    ~worker_pool() {
        // Work taken finishes; what is still queued is dropped with the connections.
        guard_.reset();
        io_.stop();
        for (std::thread& t : threads_) t.join();
    }
    // Starts `count` threads: the reason when fewer started.
    std::error_code start(unsigned count) {
        return start_threads(count, threads_, [this] { io_.run(); });
    }
    unsigned size() const { return static_cast<unsigned>(threads_.size()); }
    net::io_context::executor_type executor() { return io_.get_executor(); }

  private:
    net::io_context io_;
    net::executor_work_guard<net::io_context::executor_type> guard_{io_.get_executor()};
    std::vector<std::thread> threads_;
};

class server {
  public:
    explicit server(const server_config& config)
        : config_(config),
          control_(net::make_strand(io_)),
          acceptor_(control_),
          signals_(control_, SIGINT, SIGTERM) {}

    server_end run(const tcp::endpoint& at);

  private:
    net::awaitable<void> accept_loop();
    net::awaitable<void> watch_signals();
    net::awaitable<void> drain();
    void begin_shutdown();
    net::awaitable<void> serve(std::shared_ptr<connection> c);
    net::awaitable<void> reject(tcp::socket socket);
    net::awaitable<answer> route(connection& c, request_parser& parser, beast::flat_buffer& buffer,
                                 std::vector<std::byte>& chunk, std::uint64_t& received);
    net::awaitable<answer> validate_upload(connection& c, request_parser& parser,
                                           beast::flat_buffer& buffer,
                                           std::vector<std::byte>& chunk, std::uint64_t& received,
                                           std::string_view query, bool for_viewer);
    net::awaitable<std::size_t> read_body(body_reading& b, beast::error_code& ec);
    net::awaitable<answer> walk_archive(body_reading& b, archive_format format,
                                        std::vector<std::byte> head, const std::string& name,
                                        upload_place place);
    net::awaitable<std::optional<answer>> hold_body(body_reading& b, std::vector<std::byte>& held,
                                                    const std::string& name);
    net::awaitable<answer> view_member(body_reading& b, std::vector<std::byte> held,
                                       const std::string& name, const std::string& member);
    bool admit_walk(upload_place& place);
    net::awaitable<bool> respond(connection& c, answer& a, unsigned version, bool keep_alive,
                                 bool head);
    net::awaitable<bool> send_export(connection& c, answer& a, unsigned version, bool keep_alive,
                                     bool head);
    net::awaitable<answer> export_recording(std::size_t index);

    server_config config_;
    server_state state_;
    net::io_context io_;
    // After io_: joined before the coroutine frames its work refers to are destroyed.
    worker_pool workers_;
    worker_pool walkers_;
    // Set once bound, before the first connection.
    std::optional<host_policy> hosts_;
    // The acceptor and the signals are used on this strand only.
    net::strand<net::io_context::executor_type> control_;
    tcp::acceptor acceptor_;
    net::signal_set signals_;
};

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

// The export's body as it is made: each piece made on a worker, then written, so that a slow
// client holds one piece and an export never holds a connection's strand while it evaluates.
net::awaitable<bool> server::send_export(connection& c, answer& a, unsigned version,
                                         bool keep_alive, bool head) {
    http::response<http::buffer_body> res{static_cast<http::status>(a.status), version};
    res.set(http::field::server, server_name);
    res.set(http::field::content_type, a.content_type);
    res.keep_alive(keep_alive && !a.body_unread && !state_.stopping);
    res.content_length(a.job->size());
    res.body().data = nullptr;
    res.body().more = true;
    http::response_serializer<http::buffer_body> serializer{res};
    beast::error_code ec;
    c.stream.expires_after(config_.timeout);
    co_await http::async_write_header(c.stream, serializer, to(ec));
    if (ec) co_return false;
    if (head) co_return res.keep_alive();
    for (;;) {
        std::error_code io;
        std::span<const std::byte> piece;
        try {
            piece = co_await net::co_spawn(
                workers_.executor(),
                [&]() -> net::awaitable<std::span<const std::byte>> { co_return a.job->next(io); },
                net::use_awaitable);
        } catch (const std::exception&) {
            io = std::make_error_code(std::errc::not_enough_memory);
        }
        if (io) {
            // The status is sent: the body can only be cut short, and the connection closed.
            std::cerr << "inputanim serve: an export could not be finished: " << io.message()
                      << '\n';
            co_return false;
        }
        res.body().data = const_cast<std::byte*>(piece.data());
        res.body().size = piece.size();
        res.body().more = !piece.empty();
        c.stream.expires_after(config_.timeout);
        co_await http::async_write(c.stream, serializer, to(ec));
        if (ec == http::error::need_buffer) ec = {};
        if (ec) co_return false;
        if (piece.empty()) break;
    }
    co_return res.keep_alive();
}

// GET /api/recordings/N/export.glb: one of the places of POST /view, and the plan made on a
// worker (it reads the whole recording's times and keys once).
net::awaitable<answer> server::export_recording(std::size_t index) {
    answer a;
    if (++state_.viewing > viewer_max_uploads) {
        --state_.viewing;
        co_return error_answer(503, "busy",
                               "the server is answering its maximum number of uploads to view "
                               "and exports (" +
                                   std::to_string(viewer_max_uploads) + "); retry later");
    }
    upload_place place(state_.viewing);
    try {
        const viewer_site::source& source = config_.site->sources[index];
        std::shared_ptr<export_job> job = co_await net::co_spawn(
            workers_.executor(),
            [&]() -> net::awaitable<std::shared_ptr<export_job>> {
                co_return std::make_shared<export_job>(source);
            },
            net::use_awaitable);
        if (job->refused()) {
            a.take(*job->refused());
        } else {
            a.job = std::move(job);
            a.content_type = "model/gltf-binary";
        }
    } catch (const std::bad_alloc&) {
        a = error_answer(503, "out_of_memory", "the export could not be allocated; retry later");
    }
    a.place = std::move(place);
    co_return a;
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

// Takes one of the archive walks' places (each a thread of walkers_): false when they are all
// taken.
bool server::admit_walk(upload_place& place) {
    if (++state_.walking > walkers_.size()) {
        --state_.walking;
        return false;
    }
    place = upload_place(state_.walking);
    return true;
}

answer busy_walking() {
    return error_answer(503, "busy",
                        "the server is walking its maximum number of archives (" +
                            std::to_string(archive_walkers) + "); retry later");
}

answer pick_member(archive_format format) {
    return error_answer(
        400, "member_required",
        "the body is a " + std::string(archive_format_name(format)) +
            " archive: name the recording to open with ?member=NAME, its name in the archive "
            "(POST /validate answers a line for each recording it holds, with its \"member\")");
}

net::awaitable<answer> server::validate_upload(connection& c, request_parser& parser,
                                               beast::flat_buffer& buffer,
                                               std::vector<std::byte>& chunk,
                                               std::uint64_t& received, std::string_view query,
                                               bool for_viewer) {
    const steady::time_point header_end = steady::now();
    const std::string name = upload_name(query);
    auto& req = parser.get();
    const std::string_view encoding = trimmed(req[http::field::content_encoding]);
    const bool gzip = beast::iequals(encoding, "gzip") || beast::iequals(encoding, "x-gzip");
    if (!gzip && !encoding.empty() && !beast::iequals(encoding, "identity")) {
        answer a = error_answer(415, "unsupported_encoding",
                                "Content-Encoding " + std::string(encoding) +
                                    " is not supported: send gzip or identity");
        a.body_unread = !parser.is_done();
        co_return a;
    }
    const std::optional<archive_format> typed =
        archive_content_type(req[http::field::content_type]);
    if (typed == archive_format::zip && gzip) {
        answer a = error_answer(415, "unsupported_encoding",
                                "a zip is read as it is: send it without Content-Encoding");
        a.body_unread = !parser.is_done();
        co_return a;
    }
    const std::uint64_t max_bytes = config_.how.limits.max_bytes;
    if (const auto length = parser.content_length(); length && *length > max_bytes) {
        // Known from the header: the body is never read (nor asked for, under
        // Expect: 100-continue).
        answer a = report_answer(413, name, oversized(max_bytes, *length), config_.how, *length,
                                 std::nullopt);
        a.body_unread = true;
        co_return a;
    }
    const std::optional<std::string> member =
        for_viewer ? query_value(query, "member") : std::nullopt;
    // An archive known from the header is refused before its body is asked for.
    upload_place walking;
    if (typed && ((for_viewer && !member) || (!for_viewer && !admit_walk(walking)))) {
        answer a = for_viewer ? pick_member(*typed) : busy_walking();
        a.body_unread = !parser.is_done();
        co_return a;
    }
    beast::error_code ec;
    if (beast::iequals(trimmed(req[http::field::expect]), "100-continue")) {
        http::response<http::empty_body> go{http::status::continue_, req.version()};
        c.stream.expires_at(
            std::min(steady::now() + config_.timeout, header_end + config_.request_deadline));
        co_await http::async_write(c.stream, go, to(ec));
        if (ec) {
            answer a;
            a.status = client_closed;
            a.unsendable = true;
            co_return a;
        }
    }
    body_reading b{c, parser, buffer, chunk, received, header_end, steady::now()};

    // What the body is: its Content-Type's archive, a gzip stream (a .bin.gz), or what its first
    // bytes say, read into `head` until they say it.
    upload_kind kind = typed == archive_format::zip ? upload_kind::zip
                       : typed                      ? upload_kind::tar
                       : gzip                       ? upload_kind::recording
                                                    : upload_kind::undecided;
    std::vector<std::byte> head;
    while (kind == upload_kind::undecided) {
        if (parser.is_done()) {
            kind = sniff_upload(head, true);
            break;
        }
        const std::size_t n = co_await read_body(b, ec);
        if (ec) co_return body_failure(ec, received);
        if (received > max_bytes) {
            answer a = report_answer(413, name, oversized(max_bytes, received), config_.how,
                                     received, std::nullopt);
            a.body_unread = !parser.is_done();
            co_return a;
        }
        head.insert(head.end(), chunk.begin(), chunk.begin() + static_cast<std::ptrdiff_t>(n));
        kind = sniff_upload(head, false);
    }
    if (kind == upload_kind::tar || kind == upload_kind::zip) {
        const archive_format format =
            kind == upload_kind::zip ? archive_format::zip : archive_format::tar;
        if (for_viewer) {
            if (!member) {
                answer a = pick_member(format);
                a.body_unread = !parser.is_done();
                co_return a;
            }
            co_return co_await view_member(b, std::move(head), name, *member);
        }
        if (!typed && !admit_walk(walking)) {
            answer a = busy_walking();
            a.body_unread = !parser.is_done();
            co_return a;
        }
        co_return co_await walk_archive(b, format, std::move(head), name, std::move(walking));
    }

    body_validator v(config_.how, gzip);
    bool too_large = false;
    // The viewer plays what it can of an invalid recording: its body is kept (up to the byte
    // ceiling) and read to its end past the verdict.
    std::vector<std::byte> kept;
    bool decided = false;
    // Whether the bytes leave the rest of the body unread: the verdict is final.
    const auto take = [&](std::span<const std::byte> bytes) {
        if (for_viewer) kept.insert(kept.end(), bytes.begin(), bytes.end());
        if (!bytes.empty() && !decided && v.feed(bytes) == stream_status::error) {
            decided = true;
            // The verdict is final: answer now, and leave the rest of the body unread.
            return !for_viewer;
        }
        return false;
    };
    bool answered = take(head);
    while (!answered && !parser.is_done()) {
        const std::size_t n = co_await read_body(b, ec);
        if (ec) co_return body_failure(ec, received);
        if (received > max_bytes) {
            too_large = true;
            break;
        }
        answered = take({chunk.data(), n});
    }
    answer a;
    if (too_large) {
        a = report_answer(413, name, oversized(max_bytes, received), config_.how, received,
                          std::nullopt);
    } else {
        // A damaged gzip body is an invalid recording (bad_compression), as for a file.
        const report& rep = v.finish();
        const bool over =
            rep.error.code == errc::limit_exceeded && rep.error.limit == limit_kind::bytes;
        if (for_viewer && !over) {
            const bool inflate = gzip || v.gzip();
            a = co_await answer_on(workers_.executor(), [&] {
                return viewer_upload(name, kept, inflate, rep, v.bytes(), v.compressed(),
                                     config_.how);
            });
        } else {
            a = report_answer(over ? 413 : 200, name, rep, config_.how, v.bytes(), v.compressed());
        }
    }
    a.body_unread = !parser.is_done();
    co_return a;
}

// Reads the rest of the body into `held` (which has its first bytes), up to the byte ceiling:
// the answer when it could not be held whole.
net::awaitable<std::optional<answer>> server::hold_body(body_reading& b,
                                                        std::vector<std::byte>& held,
                                                        const std::string& name) {
    const std::uint64_t max_bytes = config_.how.limits.max_bytes;
    beast::error_code ec;
    try {
        // The declared length is at most the ceiling (larger ones were refused from the header).
        if (const auto length = b.parser.content_length()) {
            held.reserve(static_cast<std::size_t>(*length));
        }
        while (!b.parser.is_done()) {
            const std::size_t n = co_await read_body(b, ec);
            if (ec) co_return body_failure(ec, b.received);
            if (b.received > max_bytes) {
                answer a = report_answer(413, name, oversized(max_bytes, b.received), config_.how,
                                         b.received, std::nullopt);
                a.body_unread = true;
                co_return a;
            }
            held.insert(held.end(), b.chunk.begin(),
                        b.chunk.begin() + static_cast<std::ptrdiff_t>(n));
        }
    } catch (const std::bad_alloc&) {
        answer a = error_answer(503, "out_of_memory", "the body could not be held; retry later");
        a.body_unread = !b.parser.is_done();
        co_return a;
    }
    co_return std::nullopt;
}

// POST /view?member=NAME of an archive: the body held whole (up to the byte ceiling), then the
// member opened and answered on a worker.
net::awaitable<answer> server::view_member(body_reading& b, std::vector<std::byte> held,
                                           const std::string& name, const std::string& member) {
    if (std::optional<answer> failed = co_await hold_body(b, held, name)) {
        co_return std::move(*failed);
    }
    co_return co_await answer_on(workers_.executor(), [&] {
        return viewer_member_upload(name, member, std::move(held), config_.how, config_.archives);
    });
}

// POST /validate of an archive: its walk on a thread of walkers_, and its lines written as they
// are made, chunked, from the moment the archive is open. A tar's body is put into the walk's
// queue as it arrives (read only while the queue has room for a whole read); a zip's is held
// whole first, since its directory is at its end. The coroutine waits for whatever comes first:
// body bytes, or the walk's wake-up (lines, room, its end), which cancels the wait. The request
// deadline bounds the whole walk: past it the walk is cancelled and a last line says so.
net::awaitable<answer> server::walk_archive(body_reading& b, archive_format format,
                                            std::vector<std::byte> head, const std::string& name,
                                            upload_place place) {
    connection& c = b.c;
    request_parser& parser = b.parser;
    const std::uint64_t max_bytes = config_.how.limits.max_bytes;
    const steady::time_point deadline = b.header_end + config_.request_deadline;
    const auto signal = std::make_shared<wake_signal>(c.stream.get_executor());
    const auto walk = std::make_shared<archive_walk>(config_.how, config_.archives, name,
                                                     [signal] { signal->wake(); });
    const walk_registration registered(state_, walk);
    beast::error_code ec;

    if (format == archive_format::zip) {
        std::vector<std::byte> held = std::move(head);
        if (std::optional<answer> failed = co_await hold_body(b, held, name)) {
            co_return std::move(*failed);
        }
        // The place is held by the walk's thread until the walk ends.
        net::post(walkers_.executor(),
                  [walk, held = std::move(held), place = std::move(place)]() mutable {
                      walk->walk_held(std::move(held));
                  });
    } else {
        walk->put(head);
        if (parser.is_done()) walk->end_body();
        net::post(walkers_.executor(), [walk, place = std::move(place)] { walk->walk_body(); });
    }

    auto& req = parser.get();
    http::response<http::buffer_body> res{http::status::ok, req.version()};
    res.set(http::field::server, server_name);
    res.set(http::field::content_type, "application/x-ndjson");
    // Made once the header's fields are set, when the first line is there.
    std::optional<http::response_serializer<http::buffer_body>> serializer;
    bool started = false;
    answer a;
    a.status = 200;
    // Writes `text` as the next piece of the body (more: false ends it); false when the client
    // cannot take it.
    const auto write = [&](std::string_view text, bool more) -> net::awaitable<bool> {
        res.body().data = const_cast<char*>(text.data());
        res.body().size = text.size();
        res.body().more = more;
        c.stream.expires_after(config_.timeout);
        beast::error_code wrote;
        co_await http::async_write(c.stream, *serializer, to(wrote));
        co_return !wrote || wrote == http::error::need_buffer;
    };
    std::string lines;
    // The server's own last line, when it stops the walk: before the first line, the answer.
    std::string last;
    const auto stop = [&](answer why) -> std::optional<answer> {
        walk->cancel();
        why.body_unread = why.body_unread || !parser.is_done();
        if (!started) return why;
        last = why.body;
        a.body_unread = why.body_unread;
        return std::nullopt;
    };
    for (;;) {
        lines.clear();
        const archive_walk::progress p = walk->take(lines);
        if (!started && p.refused) {
            answer refused =
                error_answer(422, "not_an_archive",
                             "the body is no " + std::string(archive_format_name(format)) +
                                 " archive this server reads: " + p.refused.message());
            refused.body_unread = !parser.is_done();
            co_return refused;
        }
        // What the walk said may be out of date once a write has waited: it is asked again
        // before anything waits for it.
        bool wrote = false;
        if (!started && (p.opened || !lines.empty())) {
            started = true;
            wrote = true;
            // Its lines may start before its body ends: the connection goes on only after a body
            // read whole before them, in HTTP/1.1 (the last chunk ends the answer; in 1.0 the
            // connection's end does).
            res.keep_alive(parser.is_done() && req.keep_alive() && req.version() >= 11 &&
                           !state_.stopping);
            res.chunked(req.version() >= 11);
            res.body().data = nullptr;
            res.body().more = true;
            serializer.emplace(res);
            c.stream.expires_after(config_.timeout);
            co_await http::async_write_header(c.stream, *serializer, to(ec));
            if (ec) {
                a.status = client_closed;
                a.unsendable = true;
                co_return a;
            }
        }
        if (!lines.empty()) {
            if (!co_await write(lines, true)) {
                a.unsendable = true;
                co_return a;
            }
            wrote = true;
        }
        if (p.ended && !p.out_of_memory) break;
        if (p.ended) {
            std::optional<answer> stopped =
                stop(error_answer(503, "out_of_memory",
                                  "the walk of the archive could not allocate what it needed: "
                                  "the members after the last line were not read"));
            if (stopped) co_return std::move(*stopped);
            break;
        }
        if (wrote) continue;
        if (format == archive_format::tar && !parser.is_done() && walk->room() >= read_size) {
            signal->reading(&c.stream);
            const std::size_t n = co_await read_body(b, ec);
            signal->reading(nullptr);
            std::optional<answer> stopped;
            if (b.received > max_bytes) {
                answer over = report_answer(413, name, oversized(max_bytes, b.received),
                                            config_.how, b.received, std::nullopt);
                over.body_unread = true;
                stopped = stop(std::move(over));
            } else if (ec && ec != net::error::operation_aborted) {
                answer failed = body_failure(ec, b.received);
                if (failed.unsendable) co_return failed;
                stopped = stop(std::move(failed));
            } else {
                // A wake-up cancels the read with what it had.
                if (n > 0) walk->put({b.chunk.data(), n});
                if (parser.is_done()) walk->end_body();
            }
            if (stopped) co_return std::move(*stopped);
            continue;
        }
        // Waits for the walk: its lines, room in the queue, its end.
        const steady::time_point waiting = steady::now();
        signal->timer().expires_at(deadline);
        co_await signal->timer().async_wait(to(ec));
        // A pause the server makes is not the client's: the body's minimum rate starts later.
        b.body_start += steady::now() - waiting;
        if (!ec) {
            std::optional<answer> stopped =
                stop(error_answer(503, "deadline_exceeded",
                                  "the walk of the archive passed the request deadline (" +
                                      std::to_string(config_.request_deadline.count()) +
                                      " s): the members after the last line were not read"));
            if (stopped) co_return std::move(*stopped);
        }
    }
    if (!last.empty() && !co_await write(last, true)) {
        a.unsendable = true;
        co_return a;
    }
    if (!co_await write({}, false)) {
        a.unsendable = true;
        co_return a;
    }
    a.streamed = true;
    a.body_unread = a.body_unread || !parser.is_done();
    a.stays_open = res.keep_alive() && !a.body_unread;
    co_return a;
}

}  // namespace

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
    std::optional<server> s(std::in_place, config);
    const server_end status = s->run(*at);
    {
        // A stop signal after the shutdown (GNU timeout sends SIGTERM twice) must not kill a
        // server that has finished. The signal set's destruction restores the default actions,
        // so it happens with the signals blocked, and ignoring them then discards any pending.
        // The process is about to exit: nothing needs them back.
        const stop_signals_blocked blocked;
        s.reset();
        std::signal(SIGINT, SIG_IGN);
        std::signal(SIGTERM, SIG_IGN);
    }
    return status;
}

}  // namespace inputanim::http
