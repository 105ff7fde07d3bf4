// A recorded run's processes in one profile, to see them together: under the root, one frame of
// kind "process" per process (its address the pid, its name the command and pid), and under each
// the process's own calling context tree with its metrics. Built in memory; every view, line
// total and analyzer works on it as on one process's profile.
#pragma once

#include <memory>
#include <vector>

#include "strata/core/api.h"
#include "strata/core/run_family.h"

namespace strata::core {

// `members` as RunFamily returns them (tree order). Metrics are matched by name and unit; meta
// is the first member's, plus `processes` (how many were merged) and `run` (their folder).
// Blobs (cubins and their listings) come along; in-kernel region launches do not (the timeline
// opens them from the process's own profile). Throws Error (one line) when a member cannot be
// read or there is none.
std::unique_ptr<Profile> MergeRun(const std::vector<RunMember>& members, const OpenOptions& options = {});

// The process frame's name for a member: "<command> (pid N)", or "pid N" without a command.
std::string ProcessFrameName(const RunMember& member);

}  // namespace strata::core
