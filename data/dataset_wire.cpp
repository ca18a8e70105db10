#include "data/dataset_wire.h"

#include "data/expression_table.h"
#include "data/image_set.h"
#include "data/point_cloud.h"
#include "data/series2d.h"
#include "data/sparse_matrix.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <type_traits>
#include <unistd.h>
#include <vector>

namespace ks::data::wire {

namespace {

constexpr char kMagic[8] = {'K', 'S', 'D', 'S', 'E', 'T', '0', '1'};
enum class Kind : std::uint32_t { Series2D = 1, Csr = 2, Points = 3, Expression = 4, Images = 5 };

/// Small fields gather in a buffer; a bulk array flushes it and goes to the file from the vector itself.
class Writer {
public:
    explicit Writer(int fd)
        : m_fd(fd)
    {
    }

    template <class T> void pod(const T& value)
    {
        static_assert(std::is_trivially_copyable_v<T>);
        m_buffer.append(reinterpret_cast<const char*>(&value), sizeof value);
        if (m_buffer.size() >= kFlushBytes)
            flush();
    }
    void text(const std::string& s)
    {
        pod<std::uint64_t>(s.size());
        m_buffer += s;
        if (m_buffer.size() >= kFlushBytes)
            flush();
    }
    template <class T> void array(const std::vector<T>& values)
    {
        static_assert(std::is_trivially_copyable_v<T>);
        pod<std::uint64_t>(values.size());
        if (values.size() * sizeof(T) < kFlushBytes) {
            m_buffer.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
            return;
        }
        flush();
        raw(values.data(), values.size() * sizeof(T));
    }
    /// A list of strings as its count, the lengths, then the characters: three reads at the other end, however
    /// many names (a million barcodes) there are.
    void texts(const std::vector<std::string>& values)
    {
        std::vector<std::uint64_t> lengths;
        lengths.reserve(values.size());
        for (const auto& s : values)
            lengths.push_back(s.size());
        array(lengths);
        for (const auto& s : values) {
            m_buffer += s;
            if (m_buffer.size() >= kFlushBytes)
                flush();
        }
    }
    void flush()
    {
        raw(m_buffer.data(), m_buffer.size());
        m_buffer.clear();
    }

private:
    static constexpr std::size_t kFlushBytes = 1 << 20;

    void raw(const void* data, std::size_t bytes)
    {
        const char* p = static_cast<const char*>(data);
        while (bytes > 0) {
            const ssize_t n = ::write(m_fd, p, std::min<std::size_t>(bytes, 1 << 30));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                throw std::runtime_error(std::string("cannot write the dataset: ") + std::strerror(errno));
            p += n;
            bytes -= static_cast<std::size_t>(n);
        }
    }

    int m_fd;
    std::string m_buffer;
};

class Reader {
public:
    Reader(int fd, std::uint64_t offset, std::uint64_t bytes, bool release)
        : m_fd(fd)
        , m_pos(offset)
        , m_fileRead(offset)
        , m_released(offset)
        , m_end(offset + bytes)
        , m_release(release)
    {
    }

    template <class T> T pod()
    {
        static_assert(std::is_trivially_copyable_v<T>);
        T value;
        raw(&value, sizeof value);
        return value;
    }
    std::string text()
    {
        const std::uint64_t n = count(1);
        std::string s(static_cast<std::size_t>(n), '\0');
        raw(s.data(), s.size());
        return s;
    }
    template <class T> std::vector<T> array()
    {
        static_assert(std::is_trivially_copyable_v<T>);
        const std::uint64_t n = count(sizeof(T));
        std::vector<T> values(static_cast<std::size_t>(n));
        raw(values.data(), values.size() * sizeof(T));
        return values;
    }
    std::vector<std::string> texts()
    {
        const auto lengths = array<std::uint64_t>();
        std::vector<std::string> values;
        values.reserve(lengths.size());
        for (const std::uint64_t length : lengths) {
            if (length > m_end - m_pos)
                throw std::runtime_error("dataset bytes: a string runs past the end");
            std::string s(static_cast<std::size_t>(length), '\0');
            raw(s.data(), s.size());
            values.push_back(std::move(s));
        }
        return values;
    }
    bool atEnd() const { return m_pos == m_end; }

private:
    static constexpr std::uint64_t kReleaseBytes = 8ull << 20; ///< read and given back in steps of this

    /// A count of elements of `width` bytes that the bytes left can hold: a corrupted count is an error, never a
    /// huge allocation.
    std::uint64_t count(std::size_t width)
    {
        const auto n = pod<std::uint64_t>();
        if (n > (m_end - m_pos) / width)
            throw std::runtime_error("dataset bytes: a count of " + std::to_string(n) + " runs past the end");
        return n;
    }

    void raw(void* data, std::size_t bytes)
    {
        // An empty vector's data() may be null, which memcpy must not get even for 0 bytes.
        if (bytes == 0)
            return;
        if (bytes > m_end - m_pos)
            throw std::runtime_error("dataset bytes: truncated");
        char* p = static_cast<char*>(data);
        // Names (a few bytes each) come from a buffer; anything larger straight from the file into its vector.
        if (bytes <= kSmall) {
            if (m_bufferPos + bytes > m_buffer.size())
                refill();
            std::memcpy(p, m_buffer.data() + m_bufferPos, bytes);
            m_bufferPos += bytes;
            m_pos += bytes;
            return;
        }
        const std::size_t buffered = std::min(bytes, m_buffer.size() - m_bufferPos);
        std::memcpy(p, m_buffer.data() + m_bufferPos, buffered);
        m_bufferPos += buffered;
        m_pos += buffered;
        p += buffered;
        bytes -= buffered;
        m_fileRead = m_pos;
        m_buffer.clear();
        m_bufferPos = 0;
        while (bytes > 0) {
            const ssize_t n = ::pread(m_fd, p, std::min<std::size_t>(bytes, kReleaseBytes), static_cast<off_t>(m_pos));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                throw std::runtime_error(std::string("dataset bytes: read failed: ")
                    + (n == 0 ? std::string("unexpected end") : std::strerror(errno)));
            p += n;
            m_pos += static_cast<std::uint64_t>(n);
            bytes -= static_cast<std::size_t>(n);
            m_fileRead = m_pos;
            release();
        }
    }

    void refill()
    {
        // Keep what is left, then read on from where the file was read up to.
        m_buffer.erase(0, m_bufferPos);
        m_bufferPos = 0;
        const std::size_t have = m_buffer.size();
        const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(kBuffer, m_end - m_fileRead));
        m_buffer.resize(have + want);
        std::size_t got = 0;
        while (got < want) {
            const ssize_t n = ::pread(m_fd, m_buffer.data() + have + got, want - got, static_cast<off_t>(m_fileRead));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                throw std::runtime_error("dataset bytes: read failed");
            got += static_cast<std::size_t>(n);
            m_fileRead += static_cast<std::uint64_t>(n);
        }
        release();
    }

    void release()
    {
        if (!m_release || m_pos - m_released < kReleaseBytes)
            return;
        const std::uint64_t upTo = m_pos & ~std::uint64_t {4095};
        if (upTo > m_released
            && ::fallocate(m_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(m_released),
                   static_cast<off_t>(upTo - m_released))
                == 0)
            m_released = upTo;
    }

    static constexpr std::size_t kSmall = 4096;
    static constexpr std::size_t kBuffer = 1 << 20;
    int m_fd;
    std::uint64_t m_pos; ///< the next byte the caller reads
    std::uint64_t m_fileRead; ///< the next byte not yet in the buffer
    std::uint64_t m_released;
    std::uint64_t m_end;
    bool m_release;
    std::string m_buffer;
    std::size_t m_bufferPos = 0;
};

void writeMeta(Writer& w, const DatasetMeta& m)
{
    w.text(m.kind);
    w.text(m.name);
    w.text(m.source);
    w.text(m.contentHash);
    w.pod<std::uint64_t>(m.size);
    w.pod<std::uint64_t>(m.properties.size());
    for (const auto& [key, value] : m.properties) {
        w.text(key);
        w.text(value);
    }
    w.texts(m.notes);
}

DatasetMeta readMeta(Reader& r)
{
    DatasetMeta m;
    m.kind = r.text();
    m.name = r.text();
    m.source = r.text();
    m.contentHash = r.text();
    m.size = r.pod<std::uint64_t>();
    const auto properties = r.pod<std::uint64_t>();
    for (std::uint64_t i = 0; i < properties; ++i) {
        std::string key = r.text();
        m.properties.emplace_back(std::move(key), r.text());
    }
    m.notes = r.texts();
    return m;
}

void writeImages(Writer& w, const ImageSet& s)
{
    w.pod(s.channels);
    w.pod(s.height);
    w.pod(s.width);
    w.pod(s.classes);
    w.array(s.pixels);
    w.array(s.labels);
    w.texts(s.classNames);
    w.array(s.channelMean);
    w.array(s.channelStd);
    w.pod(s.rawMin);
    w.pod(s.rawMax);
    w.text(s.storedType);
    w.texts(s.sourceFiles);
    w.texts(s.notes);
    w.pod<std::uint8_t>(s.heldOut ? 1 : 0);
    if (s.heldOut)
        writeImages(w, *s.heldOut);
}

ImageSet readImages(Reader& r, int depth)
{
    ImageSet s;
    s.channels = r.pod<std::uint32_t>();
    s.height = r.pod<std::uint32_t>();
    s.width = r.pod<std::uint32_t>();
    s.classes = r.pod<std::uint32_t>();
    s.pixels = r.array<float>();
    s.labels = r.array<std::uint8_t>();
    s.classNames = r.texts();
    s.channelMean = r.array<double>();
    s.channelStd = r.array<double>();
    s.rawMin = r.pod<double>();
    s.rawMax = r.pod<double>();
    s.storedType = r.text();
    s.sourceFiles = r.texts();
    s.notes = r.texts();
    if (r.pod<std::uint8_t>() != 0) {
        // A held-out split has none of its own.
        if (depth > 0)
            throw std::runtime_error("dataset bytes: a held-out split inside a held-out split");
        s.heldOut = std::make_shared<const ImageSet>(readImages(r, depth + 1));
    }
    return s;
}

} // namespace

void writeDataset(int fd, const Dataset& dataset)
{
    Writer w(fd);
    for (char c : kMagic)
        w.pod(c);
    Kind kind;
    if (dataset.holds<Series2D>())
        kind = Kind::Series2D;
    else if (dataset.holds<SparseSystem>())
        kind = Kind::Csr;
    else if (dataset.holds<PointCloud>())
        kind = Kind::Points;
    else if (dataset.holds<ExpressionTable>())
        kind = Kind::Expression;
    else if (dataset.holds<ImageSet>())
        kind = Kind::Images;
    else
        throw std::logic_error("dataset '" + dataset.meta().name + "' of kind '" + dataset.meta().kind
            + "' has a payload the wire format does not know");
    w.pod(kind);
    writeMeta(w, dataset.meta());
    switch (kind) {
    case Kind::Series2D: {
        const auto& s = dataset.as<Series2D>();
        w.array(s.x);
        w.array(s.y);
        w.text(s.xName);
        w.text(s.yName);
        w.text(s.storedType);
        break;
    }
    case Kind::Csr: {
        const auto& s = dataset.as<SparseSystem>();
        const CsrMatrix& m = s.matrix;
        w.pod(m.rows);
        w.pod(m.cols);
        w.array(m.rowPtr);
        w.array(m.colIdx);
        w.array(m.values);
        w.texts(m.rowNames);
        w.texts(m.colNames);
        w.text(m.storedType);
        w.texts(m.notes);
        w.array(s.x);
        w.text(s.vectorSource);
        break;
    }
    case Kind::Points: {
        const auto& p = dataset.as<PointCloud>();
        w.array(p.x);
        w.array(p.y);
        w.array(p.z);
        w.text(p.storedType);
        w.texts(p.notes);
        break;
    }
    case Kind::Expression: {
        const auto& t = dataset.as<ExpressionTable>();
        w.pod<std::uint64_t>(t.samples);
        w.pod<std::uint64_t>(t.features);
        w.array(t.values);
        w.texts(t.sampleNames);
        w.texts(t.featureNames);
        w.text(t.storedType);
        w.texts(t.notes);
        w.array(t.weights);
        w.pod<std::uint64_t>(t.referenceSamples);
        w.array(t.reference);
        w.array(t.referenceWeights);
        w.text(t.weightsSource);
        w.text(t.referenceSource);
        w.text(t.referenceWeightsSource);
        break;
    }
    case Kind::Images:
        writeImages(w, dataset.as<ImageSet>());
        break;
    }
    w.flush();
}

Dataset readDataset(int fd, std::uint64_t offset, std::uint64_t bytes, bool release)
{
    Reader r(fd, offset, bytes, release);
    for (char c : kMagic)
        if (r.pod<char>() != c)
            throw std::runtime_error("dataset bytes: not a dataset (no signature)");
    const auto kind = r.pod<Kind>();
    DatasetMeta meta = readMeta(r);
    Dataset dataset;
    switch (kind) {
    case Kind::Series2D: {
        Series2D s;
        s.x = r.array<double>();
        s.y = r.array<double>();
        s.xName = r.text();
        s.yName = r.text();
        s.storedType = r.text();
        dataset = Dataset::make(std::move(meta), std::move(s));
        break;
    }
    case Kind::Csr: {
        SparseSystem s;
        CsrMatrix& m = s.matrix;
        m.rows = r.pod<std::uint64_t>();
        m.cols = r.pod<std::uint64_t>();
        m.rowPtr = r.array<std::int64_t>();
        m.colIdx = r.array<std::int32_t>();
        m.values = r.array<double>();
        m.rowNames = r.texts();
        m.colNames = r.texts();
        m.storedType = r.text();
        m.notes = r.texts();
        s.x = r.array<double>();
        s.vectorSource = r.text();
        dataset = Dataset::make(std::move(meta), std::move(s));
        break;
    }
    case Kind::Points: {
        PointCloud p;
        p.x = r.array<double>();
        p.y = r.array<double>();
        p.z = r.array<double>();
        p.storedType = r.text();
        p.notes = r.texts();
        dataset = Dataset::make(std::move(meta), std::move(p));
        break;
    }
    case Kind::Expression: {
        ExpressionTable t;
        t.samples = static_cast<std::size_t>(r.pod<std::uint64_t>());
        t.features = static_cast<std::size_t>(r.pod<std::uint64_t>());
        t.values = r.array<double>();
        t.sampleNames = r.texts();
        t.featureNames = r.texts();
        t.storedType = r.text();
        t.notes = r.texts();
        t.weights = r.array<double>();
        t.referenceSamples = static_cast<std::size_t>(r.pod<std::uint64_t>());
        t.reference = r.array<double>();
        t.referenceWeights = r.array<double>();
        t.weightsSource = r.text();
        t.referenceSource = r.text();
        t.referenceWeightsSource = r.text();
        dataset = Dataset::make(std::move(meta), std::move(t));
        break;
    }
    case Kind::Images:
        dataset = Dataset::make(std::move(meta), readImages(r, 0));
        break;
    default:
        throw std::runtime_error("dataset bytes: unknown payload kind " + std::to_string(static_cast<int>(kind)));
    }
    if (!r.atEnd())
        throw std::runtime_error("dataset bytes: trailing bytes after the dataset");
    return dataset;
}

} // namespace ks::data::wire
