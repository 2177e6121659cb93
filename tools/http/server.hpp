// The server of `serve` and `view` as its files share it: the server (http_server.cpp holds its
// lifecycle and the connection), and what the routes' code beside it needs of the connection: the
// answer, the body being read, the upload places and the worker threads (validate_route.cpp
// reads and walks uploads, viewer_routes.cpp views them and sends exports). Internal to
// inputanim_http: it includes Boost.Beast and Boost.Asio (beast.hpp).
#pragma once

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "http/beast.hpp"

#include "http/framing.hpp"
#include "http/http_server.hpp"
#include "http/response.hpp"
#include "http/validate_route.hpp"
#include "http/viewer_routes.hpp"
#include "inputanim/archive.hpp"
#include "inputanim/validate.hpp"
#include "os/threads.hpp"

namespace inputanim::http::detail {

using tools::start_threads;

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using steady = std::chrono::steady_clock;

// Every asynchronous operation reports its error as a value, as the library does.
inline auto to(beast::error_code& ec) {
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

answer error_answer(unsigned status, std::string_view code, std::string message);

answer report_answer(unsigned status, const std::string& name, const report& rep,
                     const validate_options& how, std::uint64_t bytes,
                     std::optional<std::uint64_t> compressed);

struct connection {
    explicit connection(tcp::socket socket) : stream(std::move(socket)) {}
    beast::tcp_stream stream;
    std::string peer;
    // Waiting for a request header: nothing in flight. Used on the connection's strand only.
    bool idle = true;
};

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
answer body_failure(const beast::error_code& ec, std::uint64_t received);

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

}  // namespace inputanim::http::detail
