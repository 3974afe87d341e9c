#include "files/safe_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ro::files {
namespace {

/// What a path that is not a regular file is, for messages.
std::string kindOf(const struct stat& st) {
    if (S_ISDIR(st.st_mode)) return "a directory";
    if (S_ISFIFO(st.st_mode)) return "a FIFO";
    if (S_ISSOCK(st.st_mode)) return "a socket";
    if (S_ISBLK(st.st_mode)) return "a block device";
    if (S_ISCHR(st.st_mode)) return "a character device";
    return "not a regular file";
}

[[noreturn]] void fail(const std::string& path, const std::string& why) {
    throw FileError(quoted(path, 200) + ": " + why);
}

/// Closes the descriptor when it goes out of scope.
struct Fd {
    int fd = -1;
    ~Fd() {
        if (fd >= 0) close(fd);
    }
};

void writeAll(int fd, std::string_view bytes, const std::string& path) {
    while (!bytes.empty()) {
        const ssize_t n = write(fd, bytes.data(), bytes.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) fail(path, std::string("cannot write: ") + (n < 0 ? std::strerror(errno) : "no progress"));
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
}

}  // namespace

std::string readRegularFile(const std::string& path, std::uint64_t maxBytes) {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) fail(path, std::string("cannot open the file: ") + std::strerror(errno));
    if (S_ISDIR(st.st_mode)) fail(path, "is a directory, not a file");
    if (!S_ISREG(st.st_mode)) fail(path, "is " + kindOf(st) + ", not a regular file");
    // O_NONBLOCK: should the path have become a FIFO since, opening it does not wait for a writer.
    Fd file{open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
    if (file.fd < 0) fail(path, std::string("cannot open the file: ") + std::strerror(errno));
    if (fstat(file.fd, &st) != 0 || !S_ISREG(st.st_mode)) fail(path, "is not a regular file");
    const auto tooLarge = [&](std::uint64_t bytes) {
        fail(path, "is " + std::to_string(bytes) + " bytes, more than the " + std::to_string(maxBytes) +
                       " a file may have");
    };
    if (static_cast<std::uint64_t>(st.st_size) > maxBytes) tooLarge(static_cast<std::uint64_t>(st.st_size));
    std::string text(static_cast<std::size_t>(st.st_size), '\0');
    std::size_t size = 0;
    // Read to the end, not to the size seen: a file that grows past the limit meanwhile stops at it.
    while (true) {
        if (size == text.size()) {
            if (size > maxBytes) tooLarge(size);
            text.resize(std::min<std::uint64_t>(maxBytes + 1, size + 65536));
        }
        const ssize_t n = read(file.fd, text.data() + size, text.size() - size);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) fail(path, std::string("cannot read the file: ") + std::strerror(errno));
        if (n == 0) break;
        size += static_cast<std::size_t>(n);
    }
    if (size > maxBytes) tooLarge(size);
    text.resize(size);
    return text;
}

std::string whyNotWritable(const std::string& path) {
    struct stat st {};
    if (stat(path.c_str(), &st) == 0) {
        if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode)) return "it is " + kindOf(st) + ", not a file";
        // Opened to append and closed: the file is left as it was.
        const Fd file{open(path.c_str(), O_WRONLY | O_APPEND | O_NONBLOCK | O_CLOEXEC)};
        return file.fd < 0 ? std::strerror(errno) : std::string();
    }
    if (errno != ENOENT) return std::strerror(errno);
    if (lstat(path.c_str(), &st) == 0) return "it is a symlink to nothing";
    // Created to find out (a directory can refuse it where access() as root says yes), then removed.
    const Fd file{open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NONBLOCK | O_CLOEXEC, 0644)};
    if (file.fd < 0) return std::strerror(errno);
    unlink(path.c_str());
    return {};
}

void writeOutputFile(const std::string& path, std::string_view bytes) {
    struct stat st {};
    const bool exists = stat(path.c_str(), &st) == 0;
    if (!exists && errno != ENOENT) fail(path, std::string("cannot write: ") + std::strerror(errno));
    if (exists && S_ISCHR(st.st_mode)) {  // /dev/null, /dev/full, a terminal: written through
        Fd device{open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC)};
        if (device.fd < 0) fail(path, std::string("cannot write: ") + std::strerror(errno));
        if (fstat(device.fd, &st) != 0 || !S_ISCHR(st.st_mode)) fail(path, "is no longer a character device");
        fcntl(device.fd, F_SETFL, fcntl(device.fd, F_GETFL) & ~O_NONBLOCK);
        writeAll(device.fd, bytes, path);
        return;
    }
    if (exists && !S_ISREG(st.st_mode)) fail(path, "cannot write: it is " + kindOf(st) + ", not a file");
    struct stat link {};
    if (!exists && lstat(path.c_str(), &link) == 0) fail(path, "cannot write: it is a symlink to nothing");
    // A symlink stays one: its target is what gets replaced.
    std::string target = path;
    if (exists) {
        char resolved[PATH_MAX];
        if (!realpath(path.c_str(), resolved)) fail(path, std::string("cannot write: ") + std::strerror(errno));
        target = resolved;
    }
    std::string temporary = target + ".XXXXXX";
    Fd out{mkostemp(temporary.data(), O_CLOEXEC)};
    if (out.fd < 0) fail(path, std::string("cannot write: ") + std::strerror(errno));
    try {
        fchmod(out.fd, exists ? (st.st_mode & 07777) : 0644);
        writeAll(out.fd, bytes, path);
        const int closed = close(out.fd);
        out.fd = -1;
        if (closed != 0) fail(path, std::string("cannot write: ") + std::strerror(errno));
        if (std::rename(temporary.c_str(), target.c_str()) != 0)
            fail(path, std::string("cannot replace it: ") + std::strerror(errno));
    } catch (...) {
        unlink(temporary.c_str());
        throw;
    }
}

std::string escaped(std::string_view text, std::size_t maxChars) {
    std::string out;
    std::size_t chars = 0, i = 0;
    while (i < text.size() && chars < maxChars) {
        const auto c = static_cast<unsigned char>(text[i]);
        // The length of a well-formed UTF-8 sequence starting here, 0 for a byte that starts none.
        std::size_t length = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
        if (length > 1 && (c == 0xC0 || c == 0xC1 || c > 0xF4)) length = 0;  // overlong or beyond U+10FFFF
        for (std::size_t k = 1; k < length; ++k)
            if (i + k >= text.size() || (static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) length = 0;
        if (length == 0 || (length == 1 && (c < 0x20 || c == 0x7F))) {
            char hex[5];
            std::snprintf(hex, sizeof hex, "\\x%02X", c);
            out += hex;
            ++i;
        } else {
            out.append(text.substr(i, length));
            i += length;
        }
        ++chars;
    }
    if (i < text.size()) out += "...";
    return out;
}

std::string quoted(std::string_view text, std::size_t maxChars) {
    const std::string inside = escaped(text, maxChars);
    std::string out;
    out.reserve(inside.size() + 24);
    out.append(1, '\'').append(inside).append(1, '\'');
    if (inside.ends_with("...")) out.append(" (").append(std::to_string(text.size())).append(" bytes)");
    return out;
}

}  // namespace ro::files
