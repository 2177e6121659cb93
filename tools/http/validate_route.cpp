#include "http/validate_route.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstring>
#include <new>

#include <nlohmann/json.hpp>

#include "http/server.hpp"
#include "report/report_json.hpp"

namespace inputanim::http {

report oversized(std::uint64_t max_bytes, std::uint64_t bytes) {
    report r;
    r.summary.bytes = bytes;
    limits lim;
    lim.max_bytes = max_bytes;
    r.error = size_error(bytes, lim);
    return r;
}

stream_status body_validator::feed(std::span<const std::byte> bytes) {
    if (not_as_declared()) return stream_status::error;
    const stream_status s = v_.feed(bytes);
    return not_as_declared() ? stream_status::error : s;
}

const report& body_validator::finish() {
    const report& r = v_.finish();
    if (!not_as_declared() && !(declared_gzip_ && !v_.gzip())) return r;
    mismatch_ = report{};
    mismatch_.error = error{errc::bad_compression, 0, error_place::none, {}, -1, limit_kind::none};
    return mismatch_;
}

response report_response(unsigned status, const std::string& name, const report& rep,
                         const validate_options& how, std::uint64_t bytes,
                         std::optional<std::uint64_t> compressed) {
    response r;
    r.status = status;
    r.body = tools::json_line(name, tools::report_json(rep, how, bytes, compressed)) + "\n";
    return r;
}

response health_response() {
    response r;
    r.body = "ok\n";
    r.content_type = "text/plain";
    return r;
}

namespace {

bool same_ascii_letters(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

}  // namespace

std::optional<archive_format> archive_content_type(std::string_view content_type) {
    std::string_view type = content_type.substr(0, content_type.find(';'));
    while (!type.empty() && (type.front() == ' ' || type.front() == '\t')) type.remove_prefix(1);
    while (!type.empty() && (type.back() == ' ' || type.back() == '\t')) type.remove_suffix(1);
    for (const std::string_view tar :
         {"application/x-tar", "application/tar", "application/x-gtar"}) {
        if (same_ascii_letters(type, tar)) return archive_format::tar;
    }
    for (const std::string_view zip : {"application/zip", "application/x-zip-compressed"}) {
        if (same_ascii_letters(type, zip)) return archive_format::zip;
    }
    return std::nullopt;
}

namespace {

// Whether `head`, the first bytes of a body, may still be the start of an archive that
// archive_format_of tells by its first 512 bytes: a zip's signature (a local header, or the end
// record of an empty zip), or a tar's first header (a name that is not empty, "ustar" at byte
// 257). A compressed tar is not told this way: its first header is not in its first bytes.
bool may_begin_archive(std::span<const std::byte> head) {
    const auto has_at = [&](std::size_t at, std::string_view magic) {
        for (std::size_t i = 0; i < magic.size() && at + i < head.size(); ++i) {
            if (head[at + i] != static_cast<std::byte>(magic[i])) return false;
        }
        return true;
    };
    if (has_at(0, std::string_view("PK\x03\x04", 4)) ||
        has_at(0, std::string_view("PK\x05\x06", 4))) {
        return true;
    }
    return (head.empty() || head[0] != std::byte{0}) && has_at(257, "ustar");
}

}  // namespace

upload_kind sniff_upload(std::span<const std::byte> head, bool whole) {
    if (head.size() >= recording_head_size &&
        starts_like_recording(head.first(recording_head_size))) {
        return upload_kind::recording;
    }
    if (head.size() >= 2 && starts_like_gzip(head.first(2))) return upload_kind::recording;
    // Bytes that begin no archive are a recording's, however few: an early error is answered as
    // early as it was.
    if (!may_begin_archive(head)) return upload_kind::recording;
    if (head.size() < upload_head_bytes && !whole) return upload_kind::undecided;
    // The library's sniff reads a file: the first bytes as one, in memory.
    std::error_code ec;
    const input first = input::from_bytes(head.first(std::min(head.size(), upload_head_bytes)), ec);
    if (ec) return upload_kind::recording;
    const std::optional<archive_format> format = archive_format_of(first, ec);
    if (ec || !format) return upload_kind::recording;
    return *format == archive_format::zip ? upload_kind::zip : upload_kind::tar;
}

// The body as libarchive pulls it: the queue's bytes, then its end. A cancelled walk's reads fail
// (operation_canceled), which ends libarchive's walk as an unreadable archive would.
class archive_walk::queued_body final : public byte_source {
  public:
    explicit queued_body(archive_walk& walk) : walk_(walk) {}
    std::size_t read(std::span<std::byte> buffer, std::error_code& ec) noexcept override {
        return walk_.pull(buffer, ec);
    }
    // The body's bytes are what they are: damage is the archive's, found by its walk.
    error fault() const noexcept override { return {}; }

  private:
    archive_walk& walk_;
};

archive_walk::archive_walk(const validate_options& how, const archive_limits& budgets,
                           std::string name, std::function<void()> wake)
    : how_(how), budgets_(budgets), name_(std::move(name)), wake_(std::move(wake)) {
    queue_.reserve(walk_queue_bytes);
}

std::size_t archive_walk::room() const {
    const std::lock_guard lock(mutex_);
    return walk_queue_bytes - (queue_.size() - front_);
}

void archive_walk::put(std::span<const std::byte> bytes) {
    {
        const std::lock_guard lock(mutex_);
        // The pulled bytes make room at the front (the queue's capacity is never passed).
        queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(front_));
        front_ = 0;
        queue_.insert(queue_.end(), bytes.begin(), bytes.end());
    }
    walker_.notify_all();
}

void archive_walk::end_body() {
    {
        const std::lock_guard lock(mutex_);
        body_ended_ = true;
    }
    walker_.notify_all();
}

void archive_walk::cancel() {
    {
        const std::lock_guard lock(mutex_);
        cancelled_ = true;
    }
    walker_.notify_all();
}

archive_walk::progress archive_walk::take(std::string& lines) {
    progress p;
    {
        const std::lock_guard lock(mutex_);
        lines += lines_;
        lines_.clear();
        p = progress_;
        if (cancelled_) p.ended = true;
    }
    walker_.notify_all();
    return p;
}

std::size_t archive_walk::pull(std::span<std::byte> out, std::error_code& ec) {
    ec.clear();
    std::size_t n = 0;
    {
        std::unique_lock lock(mutex_);
        walker_.wait(lock, [&] { return front_ < queue_.size() || body_ended_ || cancelled_; });
        if (cancelled_) {
            ec = std::make_error_code(std::errc::operation_canceled);
            return 0;
        }
        n = std::min(out.size(), queue_.size() - front_);
        std::memcpy(out.data(), queue_.data() + front_, n);
        front_ += n;
    }
    // Room for more of the body.
    if (n > 0) wake_();
    return n;
}

void archive_walk::emit(std::string line) {
    {
        std::unique_lock lock(mutex_);
        walker_.wait(lock, [&] { return lines_.size() < walk_lines_bytes || cancelled_; });
        if (cancelled_) return;
        lines_ += line;
    }
    wake_();
}

bool archive_walk::cancelled() const {
    const std::lock_guard lock(mutex_);
    return cancelled_;
}

void archive_walk::open_ended(std::error_code refused) {
    {
        const std::lock_guard lock(mutex_);
        progress_.opened = !refused;
        progress_.refused = refused;
    }
    wake_();
}

void archive_walk::ended(bool out_of_memory) {
    {
        const std::lock_guard lock(mutex_);
        progress_.ended = true;
        progress_.out_of_memory = out_of_memory;
    }
    wake_();
}

void archive_walk::walk_body() {
    std::error_code ec;
    input in = input::from_source(std::make_unique<queued_body>(*this), ec);
    if (ec) {
        open_ended(ec);
        ended(false);
        return;
    }
    walk(in);
}

void archive_walk::walk_held(std::vector<std::byte> body) {
    std::error_code ec;
    input in = input::from_bytes(body, ec);
    // The walk reads its own copy.
    std::vector<std::byte>().swap(body);
    if (ec) {
        open_ended(ec);
        ended(false);
        return;
    }
    walk(in);
}

void archive_walk::walk(input& in) {
    try {
        std::error_code ec;
        archive_reader reader = archive_reader::open(in, budgets_, ec);
        open_ended(ec);
        if (ec) {
            ended(false);
            return;
        }
        // A member read through whole, kept from member to member.
        std::vector<std::byte> buffer;
        archive_member m;
        while (!cancelled() && reader.next(m)) {
            if (m.kind != member_kind::file) continue;
            file_check c = validate_member(reader, how_, buffer);
            if (cancelled()) break;
            if (c.io) {
                // No verdict: the member could not be read whole (memory).
                c.rep = report{};
                c.rep.error.code = errc::io_error;
            } else if (!reported_member(reader, c)) {
                continue;
            }
            nlohmann::json fields = tools::report_json(c.rep, how_, c.bytes, c.compressed_bytes);
            tools::add_member(fields, name_, m);
            emit(tools::json_line(name_ + "/" + m.name, std::move(fields)) + "\n");
        }
        if (const error& fault = reader.fault(); fault && !cancelled()) {
            report r;
            r.error = fault;
            emit(tools::json_line(name_, tools::report_json(r, how_, 0)) + "\n");
        }
        ended(false);
    } catch (const std::bad_alloc&) {
        ended(true);
    }
}

}  // namespace inputanim::http

namespace inputanim::http::detail {

namespace {

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

}  // namespace

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
    // POST /view?compare=N: the upload compared with the server's recording N (`view`'s).
    std::optional<std::size_t> compare_with;
    if (const std::optional<std::string> n =
            for_viewer ? query_value(query, "compare") : std::nullopt) {
        const viewer_site* site = config_.site.get();
        const std::size_t count = site != nullptr ? site->recordings.size() : 0;
        std::size_t index = 0;
        const auto [end, problem] = std::from_chars(n->data(), n->data() + n->size(), index);
        if (problem != std::errc() || end != n->data() + n->size() || index >= count || member) {
            answer a = error_answer(
                404, "not_found",
                member ? "an archive's member is played alone: compare=N takes a recording"
                       : "no recording " + *n + " to compare with: the server has " +
                             std::to_string(count));
            a.body_unread = !parser.is_done();
            co_return a;
        }
        compare_with = index;
    }
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
                                     config_.how, config_.site.get(), compare_with);
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

}  // namespace inputanim::http::detail
