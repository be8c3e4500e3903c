#pragma once

// How a keep_last reader copies a record out of the ring while the writer may be overwriting
// it. The copy need not be consistent: the reader checks the record's header afterwards, and
// the writer invalidates that header before it stores a byte over the record (ring.hpp), so a
// copy that raced the writer is detected and dropped, never delivered.

#include <cstddef>
#include <cstdint>

namespace netprof::shm {

// Copies `length` bytes from `source` (8-byte aligned, inside a record) to `out`, in whole
// words: `out` must hold `length` rounded up to 8, and so must the record at `source` (records
// are padded to 64 B). Every load is done before the function returns and is ordered before
// the caller's next acquire load of the header.
void copy_racing_writer(const std::byte* source, std::uint64_t length, std::uint64_t* out) noexcept;

} // namespace netprof::shm
