#include "conversion_warnings.hpp"

#include <iostream>

#include "os/text.hpp"

namespace inputanim::cli {

void warn(const std::string& file, const std::string& message) {
    std::cerr << "inputanim: " << tools::printable(file) << ": warning: " << message << '\n';
}

void print_conversion_warnings(const std::string& file, const convert_result& r) {
    const auto n = [](std::uint64_t v) { return std::to_string(v); };
    if (r.gaze_curves_dropped != 0) {
        warn(file, "version 1.0 has no eye gaze: " + n(r.gaze_curves_dropped) + " gaze curves (" +
                       n(r.gaze_keys_dropped) + " keys) left out");
    }
    if (r.empty_curves_added != 0) {
        warn(file, n(r.empty_curves_added) +
                       " curves written empty: the recording lacks their block and version 1.0 "
                       "always holds camera and hands");
    }
    if (r.curved_curves != 0) {
        warn(file, n(r.curved_curves) + " curves (" + n(r.curved_keys) +
                       " keys) have tangents or weights the compact layout cannot hold: they now "
                       "play back linearly between their keys");
    }
    if (r.curved_edges != 0) {
        warn(file, n(r.curved_edges) +
                       " curved segments cut by the window play back linearly from the cut to "
                       "their next key");
    }
    if (r.markers_dropped != 0) {
        warn(file, n(r.markers_dropped) + " markers outside the window left out");
    }
    if (r.keys_nudged != 0) {
        warn(file, n(r.keys_nudged) +
                       " keys moved to the next float time so that key times keep increasing "
                       "after the shift");
    }
    if (r.curves_not_thinned != 0) {
        warn(file, n(r.curves_not_thinned) +
                       " curves with tangents or weights not thinned (the thinning measures "
                       "straight lines)");
    }
    if (r.marker_list_added) {
        warn(file,
             "the recording has no marker list (markers unknown): the output has an empty "
             "one");
    }
}

}  // namespace inputanim::cli
