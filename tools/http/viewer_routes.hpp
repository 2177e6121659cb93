// The browser viewer's side of the HTTP server (docs/VIEWER.md): the page at GET /, and each
// recording as the page reads it -- a small JSON description (curve paths, rate, markers, the
// validation report, the metrics and the timeline's events) and the curves resampled by the
// library's resampler as little-endian float32 frames. The page never receives the file itself.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "http/response.hpp"
#include "inputanim/archive.hpp"
#include "inputanim/compare.hpp"
#include "inputanim/export.hpp"
#include "inputanim/input.hpp"
#include "inputanim/loaded.hpp"
#include "inputanim/recording.hpp"
#include "inputanim/validate.hpp"

namespace inputanim::http {

// The rate the page asks for unless told otherwise.
inline constexpr double viewer_default_rate = 60.0;
// The lowest rate a recording too long for its frame ceiling is resampled at (the lowest `view
// --rate`): below one frame a second nothing plays as motion, and the frames are refused instead.
inline constexpr double viewer_min_rate = 1.0;
// The most frame bytes one recording is resampled into: a longer recording is resampled at a lower
// rate (the description says which), down to viewer_min_rate, past which its frames are refused,
// so that neither the server nor the page holds more. An upload (a stranger's bytes, answered
// while other uploads are) gets less.
inline constexpr std::uint64_t viewer_max_frame_bytes = std::uint64_t{256} << 20;
inline constexpr std::uint64_t viewer_max_upload_frame_bytes = std::uint64_t{64} << 20;
// Uploads to POST /view answered at once, from their header until their answer is sent or their
// connection closed; more are answered 503 (each holds its body and frames).
inline constexpr std::size_t viewer_max_uploads = 4;
// The threads that build the answers to POST /view (inflate, resample, measure), off the threads
// that serve connections: one per upload answered at once, so that none waits for another.
inline constexpr unsigned viewer_workers = viewer_max_uploads;
// The metrics and the timeline's events are measured on the metrics' own grid (metrics_options{},
// 60 Hz whatever the frames' rate), up to a number of grid samples: for an upload about 4.6 hours
// (a longer one is shown without them; `view` passes the ceiling of `inputanim metrics`).
inline constexpr std::uint64_t viewer_max_upload_samples = 1'000'000;
// The most events of each kind (pinches of both hands, fixations) the description lists: the
// first to end. The metrics count them all.
inline constexpr std::size_t viewer_max_events = 10'000;

// One recording ready to be sent: its description (JSON text) and its frames, row after row,
// each row the row's time then one value per column of the description.
struct viewer_recording {
    std::string description;
    std::string frames;
    // An upload's answer, its description and frames in one body, since the server keeps nothing
    // of an upload (`frames` is then empty): a little-endian uint32 length, the description, zero
    // bytes up to a multiple of four, then the frames.
    std::string bundle;
    // The frames would pass their ceiling even at viewer_min_rate: none were built (the
    // description's note says why).
    bool frames_refused = false;
};

// Resamples `bytes` (a whole recording, already checked by `rep`) at `rate` Hz from its first key
// time to its duration, into at most `max_frame_bytes`. A curve the report names as invalid is left
// out, and so are the curves after a structural error; what remains still plays. A recording whose
// structure is whole is also measured (measure(), at most `max_samples` grid samples) for the
// metrics and the timeline's pinches and fixations. Reads `bytes` through their run(): a mapping
// under guarded(), and sampled before the description is written (a page cut off leaves no
// frames, which it says). `frames_url` is what the description tells the page to fetch the frames
// from (empty: the frames come in the same response, in `bundle`, for bytes in memory).
viewer_recording prepare_recording(std::string_view name, held_bytes bytes, const report& rep,
                                   std::uint64_t file_bytes,
                                   std::optional<std::uint64_t> compressed_bytes,
                                   const validate_options& how, double rate,
                                   std::uint64_t max_frame_bytes, std::uint64_t max_samples,
                                   std::string_view frames_url, std::string_view note = {});

// What of a recording read whole (loaded_recording::load) can be played: its bytes, or when they
// are damaged (a structural error, a gzip stream damaged or cut short) those read before the
// damage, into memory.
held_bytes playable_bytes(const loaded_recording& loaded);
// The note the description gives for what playable_bytes left out (empty when nothing was, or
// when prepare_recording places the break itself: a structural error of the recording).
std::string playable_note(const whole_input& whole);

// What `inputanim view` serves: the recordings named on its command line.
struct viewer_site {
    std::vector<std::string> names;
    std::vector<viewer_recording> recordings;
    // Each recording's bytes, for its export (/api/recordings/N/export.glb): the recording as
    // loaded (a mapping, or the bytes read into memory), what of it plays (playable_bytes), and
    // the layout it was read as.
    struct source {
        loaded_recording loaded;
        std::span<const std::byte> bytes;
        layout_choice layout = layout_choice::automatic;
    };
    std::vector<source> sources;
    // `inputanim view A --compare B`: GET /api/compare's body (viewer_compare); empty without
    // --compare.
    std::string comparison;
    // The tolerances of the comparisons: --compare's, and those of an upload compared with a
    // listed recording (POST /view?compare=N).
    compare_tolerances tolerance;
};

// One side of a comparison: a recording's bytes (a mapping is read under the guard) and the
// layout it is read as.
struct compared_bytes {
    std::span<const std::byte> bytes;
    layout_choice layout = layout_choice::automatic;
};

// The body of GET /api/compare: B (`b`) compared with A (`a`) by inputanim::compare on A's frames
// (`a_description`'s rate, start and frames: one row per frame), under `tolerance`. JSON:
// {"rate", "start", "tolerance": {"position" (m), "angle" (deg)}, "same", "first_exceeded":
// {"name", "kind", "time", "error"} or null, "time": [...], "position": [...] (metres),
// "angle": [...] (degrees)}, null in a series where nothing of that kind was compared on the row.
// Errors: compare()'s, std::errc::io_error when either file could not be read again,
// std::errc::invalid_argument when either structure is not sound.
std::error_code viewer_compare(compared_bytes a, std::string_view a_description, compared_bytes b,
                               const compare_tolerances& tolerance, std::string& out);

// The page, embedded into the program at build time; empty when the build had no npm
// (then viewer_missing_page explains how to build it).
std::string_view viewer_page();
std::string_view viewer_missing_page();
// How to build the page, for a person.
std::string_view viewer_build_hint();

// Which of the viewer's resources a path names: /, /api/recordings, /api/recordings/N,
// /api/recordings/N/frames, /api/recordings/N/export.glb, /api/compare, or an N the site does not
// have (missing). `site` is null for `serve`, which has no recordings of its own.
struct viewer_resource {
    enum class kind : std::uint8_t {
        none,
        page,
        list,
        description,
        frames,
        export_glb,
        comparison,
        missing
    };
    kind what = kind::none;
    // description, frames, export_glb: the recording; missing: how many the site has.
    std::size_t index = 0;
    // missing: the N asked for, as the path gives it.
    std::string_view asked;
};
viewer_resource find_viewer_resource(const viewer_site* site, std::string_view path);

// Answers GET of a resource found by find_viewer_resource, but export_glb (an export_job's) and
// none. `site` must outlive the response.
std::optional<response> viewer_get(const viewer_site* site, const viewer_resource& r);

// The answer to GET /api/recordings/N/export.glb: `inputanim export`'s .glb at 60 Hz under its
// default ceiling on the size (default_max_export_bytes), planned whole before its first byte and
// then made in pieces (inputanim::exporter), so that nothing the size of the export is held: the
// exporter's piece and its JSON (export_result::buffer_bytes), at most export_max_held_bytes.
// The source's mapping is read under the guard. Each step is a call the server makes on a
// worker thread.
class export_job {
  public:
    // Opens the recording and plans its export. The source must outlive the job.
    explicit export_job(const viewer_site::source& source);
    ~export_job();
    export_job(const export_job&) = delete;
    export_job& operator=(const export_job&) = delete;

    // Why nothing is sent: 413 too_large over the ceiling (or past export_max_held_bytes), 422
    // when the recording cannot be exported, 500 when it could not be read, 503 when the buffers
    // could not be had; nullopt when the body follows.
    const std::optional<response>& refused() const noexcept { return refused_; }
    // The body's exact length.
    std::uint64_t size() const noexcept { return size_; }
    // The next piece of the body, valid until the next call; empty at its end. `io` when the
    // file could not be read (the body is then cut short).
    std::span<const std::byte> next(std::error_code& io) noexcept;

  private:
    const viewer_site::source& source_;
    recording rec_;
    std::optional<exporter> exporter_;
    std::optional<response> refused_;
    std::uint64_t size_ = 0;
};
// What one export may hold while it is sent: the /view upload's own bound on what it holds.
inline constexpr std::uint64_t export_max_held_bytes = viewer_max_upload_frame_bytes;

// The answer to POST /view: the upload's report, and when its bytes can still be read, its
// description and frames (viewer_recording::bundle). `kept` holds the body as received (gzip or
// not).
// With `compare_with` (POST /view?compare=N, N a recording of `site`), the description also holds
// `comparison`: the upload (B) compared with that recording (A) as GET /api/compare compares
// them, or `comparison_error`, why they could not be (an upload whose structure is not sound).
response viewer_upload(std::string_view name, std::span<const std::byte> kept, bool gzip,
                       const report& rep, std::uint64_t recording_bytes,
                       std::optional<std::uint64_t> compressed_bytes, const validate_options& how,
                       const viewer_site* site = nullptr,
                       std::optional<std::size_t> compare_with = std::nullopt);

// The answer to POST /view?member=MEMBER whose body is a tar or a zip (`body`, as received): the
// last member of that name, with the verdict POST /validate's line for it gives (validate_member),
// played as an upload is and named NAME/MEMBER, as `inputanim view ARCHIVE` shows it. The body is
// freed as soon as the walk has its copy (input::from_bytes). Refused, 422: a body that is no
// archive the server reads (not_an_archive), an archive without such a member (no_such_member), a
// member that is not a file (not_a_file); 503 (out_of_memory) when it cannot be held.
response viewer_member_upload(std::string_view name, std::string_view member,
                              std::vector<std::byte> body, const validate_options& how,
                              const archive_limits& budgets);

}  // namespace inputanim::http
