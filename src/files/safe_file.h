#pragma once
/// Files a user names: the one way the programs read an input file and write an output file.
///
/// An input must be a regular file no larger than the reader's limit: a FIFO, a device or a
/// directory is refused before anything is read (opening a FIFO would block, /dev/zero would
/// never end). An output is a regular file (created, or replaced whole through a temporary file
/// beside it; a symlink stays a symlink and its target is replaced) or a character device such
/// as /dev/null, written through; a FIFO, a directory, a socket or a block device is refused.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ro::files {

/// Why a file cannot be read or written; what() names the path and the reason.
struct FileError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// The whole of the regular file at `path`; throws FileError for a missing, unreadable or
/// non-regular file, or one larger than `maxBytes`. Never blocks on a FIFO.
[[nodiscard]] std::string readRegularFile(const std::string& path, std::uint64_t maxBytes);

/// Why `path` cannot be written (a FIFO, a directory, a missing directory, no permission), or
/// empty when it can. Nothing is created or changed to find out.
[[nodiscard]] std::string whyNotWritable(const std::string& path);

/// Writes `bytes` to `path`, whole or not at all for a regular file (see above); throws
/// FileError naming the path when it cannot, a full disk included.
void writeOutputFile(const std::string& path, std::string_view bytes);

/// `text` for a message: at most `maxChars` characters of it, control characters and bytes
/// that are not UTF-8 as \xNN, and "..." where it was cut.
[[nodiscard]] std::string escaped(std::string_view text, std::size_t maxChars = 80);
/// The same in quotes, and how long the text was when it was cut.
[[nodiscard]] std::string quoted(std::string_view text, std::size_t maxChars = 80);

}  // namespace ro::files
