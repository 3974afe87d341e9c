// TraceReader: one frame at a time into buffers reused between frames; every count checked
// against the limit (and a binary file's size) before anything is allocated for it.
#include <cerrno>
#include <charconv>
#include <cstring>
#include <string_view>

#include "trace/trace_common.h"

namespace ro {
namespace {

/// The longest CSV line read: a row is under 120 characters, and a file with no line breaks
/// must not be read whole into memory.
constexpr std::size_t kMaxLineLength = 4096;
/// The CSV is read in blocks of this size.
constexpr std::size_t kBlockSize = 1 << 16;

template <typename T>
bool parseNumber(std::string_view text, T& value) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return !text.empty() && ec == std::errc{} && end == text.data() + text.size();
}

}  // namespace

TraceReader::TraceReader(const std::string& path, std::optional<TraceEncoding> encoding)
    : m_path(path), m_encoding(encoding.value_or(traceEncodingOf(path))) {
    m_file.reset(std::fopen(path.c_str(), "rb"));
    if (m_file == nullptr) fail("", std::string("cannot open the file: ") + std::strerror(errno));
    if (m_encoding == TraceEncoding::Binary) {
        // A regular file's size bounds every count read from it (a pipe's does not).
        if (std::fseek(m_file.get(), 0, SEEK_END) == 0) {
            const long size = std::ftell(m_file.get());
            if (size >= 0) m_bytesLeft = static_cast<std::uint64_t>(size);
        }
        if (std::fseek(m_file.get(), 0, SEEK_SET) != 0) m_bytesLeft.reset();
        std::array<unsigned char, 8> magic{};
        readExactly(magic.data(), magic.size(), "the header");
        if (magic != trace::kMagic)
            fail("", "not a binary trace (wrong magic; a CSV trace needs a name ending in .csv)");
        std::uint32_t words[2] = {};
        readExactly(words, sizeof words, "the header");
        trace::toLittleEndian(words, 2);
        if (words[0] != kTraceVersion)
            fail("", "version " + std::to_string(words[0]) + ", and this reader reads version " +
                         std::to_string(kTraceVersion));
        if ((words[1] & ~trace::kFlagFilters) != 0)
            fail("", "unknown flags " + std::to_string(words[1]) + " in the header");
        m_filters = (words[1] & trace::kFlagFilters) != 0;
    } else {
        if (!readLine()) fail("line 1", "empty file: a CSV trace starts with its header");
        std::string_view header = m_line;
        if (header.starts_with("\xEF\xBB\xBF")) header.remove_prefix(3);  // a spreadsheet's byte-order mark
        const std::string plain = trace::kCsvHeader;
        if (header == plain + trace::kCsvFilterColumns)
            m_filters = true;
        else if (header != plain)
            fail("line 1", "the header must be '" + plain + "' or '" + plain + trace::kCsvFilterColumns + "', got '" +
                               std::string(header.substr(0, 200)) + "'");
        m_haveRow = readLine();
        if (m_haveRow) parseRow();
    }
}

bool TraceReader::next() {
    if (m_done) return false;
    const bool more = m_encoding == TraceEncoding::Binary ? nextBinary() : nextCsv();
    if (!more) {
        m_done = true;
        return false;
    }
    finishFrame();
    ++m_framesRead;
    return true;
}

bool TraceReader::nextBinary() {
    m_frameNumber = m_framesRead;
    std::uint32_t count = 0;
    readExactly(&count, 4, "the next frame's box count (or the end marker)");
    trace::toLittleEndian(&count, 1);
    if (count == trace::kEndMarker) {
        std::uint32_t frames[2] = {};
        readExactly(frames, sizeof frames, "the frame count after the end marker");
        trace::toLittleEndian(frames, 2);
        const std::uint64_t declared = frames[0] | (std::uint64_t{frames[1]} << 32);
        if (declared != m_framesRead)
            fail("", "the end marker says " + std::to_string(declared) + " frames, and the file holds " +
                         std::to_string(m_framesRead));
        if (std::fgetc(m_file.get()) != EOF) fail("", "bytes after the end of the trace");
        return false;
    }
    // Messages are built only on failure: a frame read allocates nothing once warm.
    const auto where = [&] { return "frame " + std::to_string(m_frameNumber); };
    if (m_framesRead >= kTraceMaxFrames)
        fail(where(), "over the limit of " + std::to_string(kTraceMaxFrames) + " frames");
    if (count > kTraceMaxBoxesPerFrame)
        fail(where(), std::to_string(count) + " boxes, over the limit of " + std::to_string(kTraceMaxBoxesPerFrame) +
                          " a frame");
    const std::uint64_t bytes = count * trace::binaryBoxBytes(m_filters);
    if (m_bytesLeft && bytes > *m_bytesLeft)
        fail(where(), "truncated: " + std::to_string(count) + " boxes need " + std::to_string(bytes) +
                          " bytes, and the file has " + std::to_string(*m_bytesLeft) + " left");
    resize(count);
    const char* what = "a frame's boxes";
    readExactly(m_ids.data(), 4 * std::size_t{count}, what);
    trace::toLittleEndian(m_ids.data(), count);
    for (std::vector<float>* column : {&m_minX, &m_minY, &m_maxX, &m_maxY}) {
        readExactly(column->data(), 4 * std::size_t{count}, what);
        trace::toLittleEndian(column->data(), count);
    }
    readExactly(m_static.data(), count, what);
    for (std::uint32_t i = 0; i < count; ++i)
        if (m_static[i] > 1)
            fail(whereInFrame(i), "static flag " + std::to_string(m_static[i]) + ", expected 0 or 1");
    if (m_filters) {
        for (std::vector<std::uint32_t>* column : {&m_category, &m_mask}) {
            readExactly(column->data(), 4 * std::size_t{count}, what);
            trace::toLittleEndian(column->data(), count);
        }
    }
    return true;
}

bool TraceReader::nextCsv() {
    if (!m_haveRow) return false;
    m_frameNumber = m_framesRead == 0 ? m_row.frame : m_frameNumber + 1;
    std::uint32_t count = 0;
    // A frame number skipped is an empty frame: its boxes are none, and the pending row waits.
    while (m_haveRow && m_row.frame == m_frameNumber) {
        if (count == kTraceMaxBoxesPerFrame)
            fail("frame " + std::to_string(m_frameNumber) + ", line " + std::to_string(m_lineNumber),
                 "over the limit of " + std::to_string(kTraceMaxBoxesPerFrame) + " boxes a frame");
        if (count == m_ids.size()) resize(std::min<std::uint32_t>(kTraceMaxBoxesPerFrame, std::max(1024u, 2 * count)));
        m_ids[count] = m_row.id;
        m_minX[count] = m_row.minX, m_minY[count] = m_row.minY, m_maxX[count] = m_row.maxX, m_maxY[count] = m_row.maxY;
        m_static[count] = m_row.isStatic;
        if (m_filters) m_category[count] = m_row.category, m_mask[count] = m_row.mask;
        m_lines[count] = m_lineNumber;
        ++count;
        m_haveRow = readLine();
        if (m_haveRow) parseRow();
    }
    if (m_haveRow && m_row.frame < m_frameNumber)
        fail("frame " + std::to_string(m_row.frame) + ", line " + std::to_string(m_lineNumber),
             "frames out of order: after frame " + std::to_string(m_frameNumber) +
                 " (frames must increase, the rows of a frame together)");
    // The buffers may hold more than this frame: the view's count says how many are its.
    m_view.count = count;
    return true;
}

bool TraceReader::readLine() {
    // Read in blocks and split at '\n' by hand: fgets would stop a line's text at a NUL byte
    // and hide what follows it.
    m_line.clear();
    bool any = false;
    while (true) {
        if (m_blockAt == m_blockEnd) {
            m_block.resize(kBlockSize);
            m_blockEnd = std::fread(m_block.data(), 1, m_block.size(), m_file.get());
            m_blockAt = 0;
            if (m_blockEnd == 0) break;
        }
        any = true;
        const char* from = m_block.data() + m_blockAt;
        const auto* newline = static_cast<const char*>(std::memchr(from, '\n', m_blockEnd - m_blockAt));
        const std::size_t length = newline != nullptr ? static_cast<std::size_t>(newline - from) : m_blockEnd - m_blockAt;
        if (m_line.size() + length > kMaxLineLength)
            fail("line " + std::to_string(m_lineNumber + 1),
                 "longer than " + std::to_string(kMaxLineLength) + " characters (is this a CSV trace?)");
        m_line.append(from, length);
        m_blockAt += length + (newline != nullptr ? 1 : 0);
        if (newline != nullptr) break;
    }
    if (std::ferror(m_file.get()))
        fail("line " + std::to_string(m_lineNumber + 1), std::string("read failed: ") + std::strerror(errno));
    if (!any) return false;
    ++m_lineNumber;
    if (std::memchr(m_line.data(), '\0', m_line.size()) != nullptr)
        fail("line " + std::to_string(m_lineNumber), "a NUL byte: not a CSV trace (a binary one needs another name than .csv)");
    if (!m_line.empty() && m_line.back() == '\r') m_line.pop_back();
    return true;
}

void TraceReader::parseRow() {
    // Built only on failure: rows are read without allocating.
    const auto where = [&] { return "line " + std::to_string(m_lineNumber); };
    std::string_view fields[9];
    std::size_t n = 0;
    std::string_view rest = m_line;
    const std::size_t expected = m_filters ? 9 : 7;
    while (true) {
        const std::size_t comma = rest.find(',');
        if (n == expected) fail(where(), "more than " + std::to_string(expected) + " fields");
        fields[n++] = rest.substr(0, comma);
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
    }
    if (m_line.empty()) fail(where(), "an empty line");
    if (n != expected) fail(where(), std::to_string(n) + " fields, expected " + std::to_string(expected));
    static constexpr const char* kNames[9] = {"frame", "id", "min_x", "min_y", "max_x", "max_y", "static", "category", "mask"};
    const auto bad = [&](std::size_t k, const char* expectedWhat) {
        fail(where(), std::string(kNames[k]) + " '" + std::string(fields[k].substr(0, 40)) + "' is not " + expectedWhat);
    };
    if (!parseNumber(fields[0], m_row.frame) || m_row.frame >= kTraceMaxFrames)
        bad(0, "a frame number (0 to 9999999)");
    if (!parseNumber(fields[1], m_row.id)) bad(1, "a 32-bit unsigned id");
    float* corners[4] = {&m_row.minX, &m_row.minY, &m_row.maxX, &m_row.maxY};
    for (std::size_t k = 0; k < 4; ++k)
        if (!parseNumber(fields[2 + k], *corners[k])) bad(2 + k, "a number");
    if (fields[6] != "0" && fields[6] != "1") bad(6, "0 or 1");
    m_row.isStatic = fields[6] == "1" ? 1 : 0;
    if (m_filters) {
        if (!parseNumber(fields[7], m_row.category)) bad(7, "a 32-bit unsigned number");
        if (!parseNumber(fields[8], m_row.mask)) bad(8, "a 32-bit unsigned number");
    }
}

void TraceReader::resize(std::uint32_t count) {
    for (std::vector<float>* column : {&m_minX, &m_minY, &m_maxX, &m_maxY}) column->resize(count);
    m_ids.resize(count);
    m_static.resize(count);
    if (m_filters) m_category.resize(count), m_mask.resize(count);
    if (m_encoding == TraceEncoding::Csv) m_lines.resize(count);
    m_view.count = count;
}

void TraceReader::finishFrame() {
    const std::uint32_t count = m_view.count;
    m_view.minX = m_minX.data(), m_view.minY = m_minY.data(), m_view.maxX = m_maxX.data(), m_view.maxY = m_maxY.data();
    m_view.ids = m_ids.data();
    m_view.isStatic = std::any_of(m_static.begin(), m_static.begin() + count, [](std::uint8_t s) { return s != 0; })
                          ? m_static.data()
                          : nullptr;
    m_view.category = m_filters ? m_category.data() : nullptr;
    m_view.mask = m_filters ? m_mask.data() : nullptr;
    if (const auto problem = trace::firstProblem(m_view, m_scratch)) fail(whereInFrame(problem->box), problem->what);
}

void TraceReader::readExactly(void* data, std::size_t bytes, const char* what) {
    if (bytes == 0) return;
    const std::size_t got = std::fread(data, 1, bytes, m_file.get());
    if (got != bytes) {
        if (std::ferror(m_file.get())) fail("", std::string("read failed: ") + std::strerror(errno));
        fail(std::strcmp(what, "the header") == 0 ? "" : "frame " + std::to_string(m_framesRead),
             std::string("truncated: the file ends in ") + what + " (after " + std::to_string(m_framesRead) +
                 " whole frames; was the writer closed?)");
    }
    if (m_bytesLeft) *m_bytesLeft -= bytes;
}

std::string TraceReader::whereInFrame(std::uint32_t box) const {
    std::string where = "frame " + std::to_string(m_frameNumber) + ", ";
    if (m_encoding == TraceEncoding::Csv)
        where += "line " + std::to_string(m_lines[box]);
    else
        where += "box " + std::to_string(box);
    return where + " (id " + std::to_string(m_ids[box]) + ")";
}

void TraceReader::fail(const std::string& where, const std::string& what) const {
    throw TraceError(trace::message(m_path, where.empty() ? what : where + ": " + what));
}

}  // namespace ro
