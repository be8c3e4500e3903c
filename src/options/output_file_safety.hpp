#pragma once

#include <optional>
#include <string>

namespace netprof::options {

// Why netprof must not write a report to `path`, or nothing when it may. Two rules, as ssh and
// logrotate keep them (the kernel's fs.protected_symlinks covers sticky directories only, and
// not when it is switched off):
//
// - a symbolic link in a directory that its group or others may write to is never followed:
//   whoever can write there could have planted it, pointing at any file we can write (as root,
//   any file at all). A link in a directory only its owner writes (/dev/stdout) is followed.
// - an existing file owned by another user is never replaced or written into, whether it is a
//   regular file we would rename over or, in such a shared directory, a FIFO someone reads.
//
// Only the last component is looked at: the directories above it are the caller's choice.
std::optional<std::string> output_file_refusal(const std::string& path);

} // namespace netprof::options
