#pragma once

#include <string>
#include <string_view>

namespace netprof {

// Writes `contents` to `path` so that it holds either its old contents or all of the new ones,
// never a part (a full disk must not leave a report cut short, nor destroy the last one): a
// temporary file in the same directory, created exclusively, written and synced, then renamed
// over `path`. The new file gets the mode and group the old one had; a new name gets 0644 less
// the umask.
//
// Refused first, whatever is there, as options::output_file_refusal says: a symbolic link in a
// directory others may write to, and another user's file (never replaced, even by root).
//
// Only a regular file (or a name not yet taken) can be replaced that way. Anything else is
// written in place, as it always was: a symbolic link in a directory only its owner writes
// (written through, since it may be /dev/stdout or another /proc link), a device, a pipe.
//
// On failure the temporary is removed, `path` is left as it was, and TransportError says what
// failed and why.
void replace_file(const std::string& path, std::string_view contents);

} // namespace netprof
