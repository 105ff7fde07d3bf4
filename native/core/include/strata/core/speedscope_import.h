// speedscope files (https://www.speedscope.app/file-format-schema.json: what py-spy, rbspy,
// speedscope's own exporters and `strata export --format speedscope` write) as Strata profiles:
// each of the file's profiles becomes a metric of one calling context tree over the shared
// frames, so a file exported from a Strata profile comes back with the same totals per metric
// and the same call paths.
#pragma once

#include <string>
#include <vector>

namespace strata::core {

// "sampled" profiles add each sample's weight along its stack; "evented" ones add the time
// between open/close events to the innermost open frame. Frames keep their name, file and line
// (as native-kind frames without module or address, whose names the core keeps as written:
// speedscope does not say what kind of code a frame is). Units map back
// to Strata's (nanoseconds -> ns, bytes -> bytes, none -> count). Throws Error (one line) when the
// text is not a speedscope file or a profile in it is malformed. `source` names the file in meta.
std::vector<unsigned char> SpeedscopeToProfile(const std::string& text, const std::string& source);

// Whether the JSON text looks like a speedscope file (its $schema, or "shared" and "profiles").
bool LooksLikeSpeedscope(const std::string& text);

}  // namespace strata::core
