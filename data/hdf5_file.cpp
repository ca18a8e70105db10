#include "data/hdf5_file.h"

#include "data/dataset_error.h"
#include "data/host_memory.h"
#include "data/input_file.h"
#include "data/quote.h"
#include "data/read_place.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <hdf5.h>
#include <mutex>
#include <set>
#include <sys/stat.h>

namespace ks::data::h5 {

namespace {
std::recursive_mutex& libraryMutex()
{
    static std::recursive_mutex mutex;
    return mutex;
}

/// Holds the library lock and keeps HDF5 from printing its error stack to stderr.
class LibraryLock {
public:
    LibraryLock()
        : m_lock(libraryMutex())
    {
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    }

private:
    std::unique_lock<std::recursive_mutex> m_lock;
};

herr_t collectError(unsigned depth, const H5E_error2_t* error, void* data)
{
    auto* text = static_cast<std::string*>(data);
    if (depth > 3 || !error->desc || !*error->desc)
        return 0;
    if (!text->empty())
        *text += "; ";
    *text += error->desc;
    return 0;
}

/// HDF5's error stack, innermost first, as one line (empty when HDF5 recorded nothing).
std::string errorStack()
{
    std::string text;
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, collectError, &text);
    H5Eclear2(H5E_DEFAULT);
    return text;
}

/// RAII owner of an HDF5 identifier with the matching close function.
class Id {
public:
    Id() = default;
    Id(hid_t id, herr_t (*close)(hid_t))
        : m_id(id)
        , m_close(close)
    {
    }
    Id(Id&& o) noexcept
        : m_id(o.m_id)
        , m_close(o.m_close)
    {
        o.m_id = H5I_INVALID_HID;
    }
    Id& operator=(Id&& o) noexcept
    {
        std::swap(m_id, o.m_id);
        std::swap(m_close, o.m_close);
        return *this;
    }
    Id(const Id&) = delete;
    Id& operator=(const Id&) = delete;
    ~Id()
    {
        if (m_id >= 0 && m_close)
            m_close(m_id);
    }
    hid_t get() const { return m_id; }
    bool valid() const { return m_id >= 0; }

private:
    hid_t m_id = H5I_INVALID_HID;
    herr_t (*m_close)(hid_t) = nullptr;
};

std::string typeName(hid_t type)
{
    const H5T_class_t cls = H5Tget_class(type);
    const std::size_t size = H5Tget_size(type);
    switch (cls) {
    case H5T_FLOAT:
        return "float" + std::to_string(size * 8);
    case H5T_INTEGER:
        return std::string(H5Tget_sign(type) == H5T_SGN_NONE ? "uint" : "int") + std::to_string(size * 8);
    case H5T_STRING:
        return "string";
    case H5T_COMPOUND:
        return "compound";
    case H5T_ENUM:
        return "enum";
    case H5T_ARRAY:
        return "array";
    case H5T_BITFIELD:
        return "bitfield";
    case H5T_OPAQUE:
        return "opaque";
    case H5T_REFERENCE:
        return "reference";
    case H5T_VLEN:
        return "variable-length";
    default:
        return "unknown";
    }
}

struct FilterInfo {
    std::string description;
    bool available = true;
    std::string name;
    int id = 0;
};

std::vector<FilterInfo> filtersOf(hid_t dataset)
{
    std::vector<FilterInfo> result;
    Id plist(H5Dget_create_plist(dataset), H5Pclose);
    if (!plist.valid())
        return result;
    const int count = H5Pget_nfilters(plist.get());
    for (int i = 0; i < count; ++i) {
        unsigned flags = 0;
        std::size_t nelmts = 0;
        char name[128] = {0};
        unsigned config = 0;
        const H5Z_filter_t id = H5Pget_filter2(
            plist.get(), static_cast<unsigned>(i), &flags, &nelmts, nullptr, sizeof name, name, &config);
        FilterInfo info;
        info.id = id;
        switch (id) {
        case H5Z_FILTER_DEFLATE:
            info.name = "gzip";
            break;
        case H5Z_FILTER_SHUFFLE:
            info.name = "shuffle";
            break;
        case H5Z_FILTER_FLETCHER32:
            info.name = "fletcher32";
            break;
        case H5Z_FILTER_SZIP:
            info.name = "szip";
            break;
        case H5Z_FILTER_NBIT:
            info.name = "nbit";
            break;
        case H5Z_FILTER_SCALEOFFSET:
            info.name = "scaleoffset";
            break;
        case 32000:
            info.name = "lzf";
            break;
        case 32001:
            info.name = "blosc";
            break;
        case 32004:
            info.name = "lz4";
            break;
        case 32008:
            info.name = "bitshuffle";
            break;
        case 32015:
            info.name = "zstd";
            break;
        default:
            info.name = name[0] ? name : "unknown";
        }
        info.available = id >= 0 && H5Zfilter_avail(id) > 0;
        info.description = info.name + " (" + std::to_string(id) + (info.available ? ")" : ", not available)");
        H5Eclear2(H5E_DEFAULT);
        result.push_back(std::move(info));
    }
    return result;
}

/// The memory type a fixed-length string of `width` bytes is read into. NULLPAD, not C_S1's NULLTERM: converting to
/// NULLTERM of the same width writes a terminator over the last byte, so "abc" in three bytes would read as "ab".
/// From SPACEPAD the conversion drops the trailing spaces; from NULLTERM and NULLPAD it stops at the first NUL; the
/// reader then takes the bytes up to the first NUL or the full width.
Id fixedStringMemoryType(hid_t fileType, std::size_t width)
{
    Id memType(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(memType.get(), width);
    H5Tset_strpad(memType.get(), H5T_STR_NULLPAD);
    H5Tset_cset(memType.get(), H5Tget_cset(fileType));
    return memType;
}

struct LinkEntry {
    std::string name;
    H5L_type_t type;
};

herr_t collectLink(hid_t, const char* name, const H5L_info_t* info, void* data)
{
    static_cast<std::vector<LinkEntry>*>(data)->push_back({name, info->type});
    return 0;
}

/// What a file holds: the objects reached through hard links (each once, however many links lead to it) and the
/// paths of soft and external links, which are not followed.
struct Listing {
    std::vector<std::pair<std::string, H5O_type_t>> objects; ///< "/" first, then depth first in name order
    std::vector<std::string> links;
};

/// Lists the file as H5Ovisit does, but looks each link up in its own group: H5Ovisit finds every object again
/// from the root, which costs the square of the nesting depth (a second per few hundred levels). False, with
/// HDF5's error stack set, when a group cannot be read.
bool listObjects(hid_t file, const std::string& filePath, Listing& out)
{
    struct Frame {
        Id group;
        std::string path;
        std::vector<LinkEntry> links;
        std::size_t next = 0;
    };
    std::set<std::pair<unsigned long, haddr_t>> visited;
    std::vector<Frame> stack;
    const auto enter = [&](Id group, std::string path) {
        if (!group.valid())
            return false;
        Frame frame {std::move(group), std::move(path), {}, 0};
        hsize_t index = 0;
        if (H5Literate(frame.group.get(), H5_INDEX_NAME, H5_ITER_INC, &index, collectLink, &frame.links) < 0)
            return false;
        stack.push_back(std::move(frame));
        return true;
    };
    H5O_info_t root;
    noteHdf5Place(filePath, "/");
    if (H5Oget_info_by_name2(file, "/", &root, H5O_INFO_BASIC, H5P_DEFAULT) < 0)
        return false;
    visited.insert({root.fileno, root.addr});
    out.objects.emplace_back("/", H5O_TYPE_GROUP);
    if (!enter(Id(H5Gopen2(file, "/", H5P_DEFAULT), H5Gclose), "/"))
        return false;
    while (!stack.empty()) {
        Frame& top = stack.back();
        if (top.next == top.links.size()) {
            stack.pop_back();
            continue;
        }
        const LinkEntry link = top.links[top.next++];
        std::string path = childPath(top.path, link.name);
        if (link.type != H5L_TYPE_HARD) {
            out.links.push_back(std::move(path));
            continue;
        }
        H5O_info_t info;
        noteHdf5Place(filePath, path);
        if (H5Oget_info_by_name2(top.group.get(), link.name.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT) < 0)
            return false;
        if (!visited.insert({info.fileno, info.addr}).second)
            continue;
        out.objects.emplace_back(path, info.type);
        // `top` is not used after this: entering a group may move the stack.
        if (info.type == H5O_TYPE_GROUP
            && !enter(Id(H5Gopen2(top.group.get(), link.name.c_str(), H5P_DEFAULT), H5Gclose), std::move(path)))
            return false;
    }
    return true;
}
} // namespace

std::uint64_t DatasetInfo::elementCount() const
{
    std::uint64_t count = 1;
    for (auto d : dims) {
        if (d != 0 && count > UINT64_MAX / d)
            return UINT64_MAX;
        count *= d;
    }
    return count;
}

bool looksLikeHdf5(const std::string& path)
{
    static const unsigned char kSignature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    // Only a regular file can be HDF5; opening a FIFO to look would block until a writer comes.
    struct stat status { };
    if (::stat(path.c_str(), &status) != 0 || !S_ISREG(status.st_mode))
        return false;
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return false;
    for (std::streamoff offset = 0; offset <= 8192; offset = offset == 0 ? 512 : offset * 2) {
        in.clear();
        in.seekg(offset);
        unsigned char buffer[8] = {0};
        in.read(reinterpret_cast<char*>(buffer), 8);
        if (in.gcount() != 8)
            return false;
        if (std::memcmp(buffer, kSignature, 8) == 0)
            return true;
    }
    return false;
}

File::File(std::string path, std::int64_t id)
    : m_path(std::move(path))
    , m_id(id)
{
}

File::File(File&& other) noexcept
    : m_path(std::move(other.m_path))
    , m_id(other.m_id)
{
    other.m_id = -1;
}

File& File::operator=(File&& other) noexcept
{
    std::swap(m_path, other.m_path);
    std::swap(m_id, other.m_id);
    return *this;
}

File::~File()
{
    if (m_id >= 0) {
        LibraryLock lock;
        H5Fclose(m_id);
    }
}

void File::fail(const std::string& place, const std::string& problem) const
{
    throw DatasetError(m_path, place, problem);
}

File File::open(const std::string& path)
{
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        throw DatasetError(path, "", "no such file");
    requireReadableKind(path);
    LibraryLock lock;
    noteHdf5Place(path, "/");
    if (H5Fis_hdf5(path.c_str()) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        throw DatasetError(path, "", "not an HDF5 file (no HDF5 signature)");
    }
    const hid_t id = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (id < 0)
        throw DatasetError(path, "", "cannot open as HDF5: " + errorStack());
    return File(path, id);
}

File File::create(const std::string& path)
{
    LibraryLock lock;
    const hid_t id = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (id < 0)
        throw DatasetError(path, "", "cannot create HDF5 file: " + errorStack());
    return File(path, id);
}

std::vector<std::string> File::groups() const
{
    LibraryLock lock;
    Listing listing;
    if (!listObjects(m_id, m_path, listing))
        fail("", "cannot list the file's contents: " + errorStack());
    std::vector<std::string> result;
    for (auto& [path, type] : listing.objects)
        if (type == H5O_TYPE_GROUP)
            result.push_back(path);
    return result;
}

std::vector<DatasetInfo> File::datasets() const
{
    LibraryLock lock;
    Listing listing;
    if (!listObjects(m_id, m_path, listing))
        fail("", "cannot list the file's contents: " + errorStack());
    std::vector<DatasetInfo> result;
    for (auto& [path, type] : listing.objects)
        if (type == H5O_TYPE_DATASET)
            result.push_back(info(path));
    return result;
}

bool Contents::hasDataset(const std::string& path) const
{
    return datasetSet.contains(path);
}

bool File::hasDataset(const Contents& contents, const std::string& path) const
{
    return contents.hasDataset(path) || (contents.links.contains(path) && hasDataset(path));
}

Contents File::contents() const
{
    LibraryLock lock;
    Listing listing;
    if (!listObjects(m_id, m_path, listing))
        fail("", "cannot list the file's contents: " + errorStack());
    Contents result;
    for (auto& [path, type] : listing.objects)
        if (type == H5O_TYPE_GROUP)
            result.groups.push_back(std::move(path));
        else if (type == H5O_TYPE_DATASET)
            result.datasets.push_back(std::move(path));
    result.datasetSet.insert(result.datasets.begin(), result.datasets.end());
    result.links.insert(listing.links.begin(), listing.links.end());
    return result;
}

std::vector<DatasetInfo> File::datasets(const std::string& group) const
{
    const std::string prefix = childPath(group, "");
    std::vector<DatasetInfo> inGroup;
    for (auto& d : datasets())
        if (d.path.compare(0, prefix.size(), prefix) == 0)
            inGroup.push_back(std::move(d));
    return inGroup;
}

namespace {
/// The type of the object at `path`, or H5O_TYPE_UNKNOWN when there is none. Walks the path one link at a time from
/// the group reached so far, so a missing parent group is an answer, not an HDF5 error, and a path of depth d costs d
/// lookups (checking each prefix from the root would cost d² and make searches of deep files cubic).
H5O_type_t objectTypeAt(hid_t file, const std::string& path)
{
    if (path == "/")
        return H5O_TYPE_GROUP;
    if (path.empty() || path.front() != '/')
        return H5O_TYPE_UNKNOWN;
    Id current;
    hid_t location = file;
    std::size_t pos = 1;
    while (true) {
        const std::size_t next = path.find('/', pos);
        const std::string name = path.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
        if (name.empty() || H5Lexists(location, name.c_str(), H5P_DEFAULT) <= 0) {
            H5Eclear2(H5E_DEFAULT);
            return H5O_TYPE_UNKNOWN;
        }
        if (next == std::string::npos) {
            H5O_info_t objectInfo;
            if (H5Oget_info_by_name(location, name.c_str(), &objectInfo, H5P_DEFAULT) < 0) {
                H5Eclear2(H5E_DEFAULT);
                return H5O_TYPE_UNKNOWN;
            }
            return objectInfo.type;
        }
        Id child(H5Oopen(location, name.c_str(), H5P_DEFAULT), H5Oclose);
        if (!child.valid() || H5Iget_type(child.get()) != H5I_GROUP) {
            H5Eclear2(H5E_DEFAULT);
            return H5O_TYPE_UNKNOWN;
        }
        current = std::move(child);
        location = current.get();
        pos = next + 1;
    }
}
} // namespace

bool File::hasDataset(const std::string& path) const
{
    LibraryLock lock;
    noteHdf5Place(m_path, path);
    return objectTypeAt(m_id, path) == H5O_TYPE_DATASET;
}

bool File::hasGroup(const std::string& path) const
{
    LibraryLock lock;
    noteHdf5Place(m_path, path);
    return objectTypeAt(m_id, path) == H5O_TYPE_GROUP;
}

DatasetInfo File::info(const std::string& path) const
{
    LibraryLock lock;
    if (!hasDataset(path))
        fail("dataset " + path, "no such dataset in the file");
    noteHdf5Place(m_path, path);
    Id dataset(H5Dopen2(m_id, path.c_str(), H5P_DEFAULT), H5Dclose);
    if (!dataset.valid())
        fail("dataset " + path, "cannot open: " + errorStack());
    Id type(H5Dget_type(dataset.get()), H5Tclose);
    Id space(H5Dget_space(dataset.get()), H5Sclose);
    if (!type.valid() || !space.valid())
        fail("dataset " + path, "cannot read its type or shape: " + errorStack());
    DatasetInfo result;
    result.path = path;
    result.type = typeName(type.get());
    result.isFloat = H5Tget_class(type.get()) == H5T_FLOAT;
    result.isInteger = H5Tget_class(type.get()) == H5T_INTEGER;
    const int rank = H5Sget_simple_extent_ndims(space.get());
    if (rank < 0)
        fail("dataset " + path, "cannot read its shape: " + errorStack());
    std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
    if (rank > 0)
        H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
    result.dims.assign(dims.begin(), dims.end());
    Id plist(H5Dget_create_plist(dataset.get()), H5Pclose);
    result.chunked = plist.valid() && H5Pget_layout(plist.get()) == H5D_CHUNKED;
    for (auto& filter : filtersOf(dataset.get()))
        result.filters.push_back(filter.description);
    return result;
}

namespace {
enum class Accept { Numbers, Floats, Integers, Int32Exact };

/// Rows [first, first + count) along the first extent; count = kAllRows reads the whole dataset.
constexpr std::uint64_t kAllRows = UINT64_MAX;

template <class T>
std::vector<T> readNumeric(const File& file, std::int64_t fileId, const std::string& path, int expectedRank,
    Accept accept, hid_t memType, std::uint64_t firstRow = 0, std::uint64_t rowCount = kAllRows)
{
    LibraryLock lock;
    const std::string place = "dataset " + path;
    const DatasetInfo info = file.info(path);
    if (!info.isFloat && !info.isInteger)
        file.fail(place, "holds " + info.type + " values; expected numbers");
    if (accept == Accept::Floats && !info.isFloat)
        file.fail(place, "holds " + info.type + " values; expected float32 or float64");
    if ((accept == Accept::Integers || accept == Accept::Int32Exact) && !info.isInteger)
        file.fail(place, "holds " + info.type + " values; expected integers");
    if (accept == Accept::Int32Exact && info.type != "int8" && info.type != "int16" && info.type != "int32"
        && info.type != "uint8" && info.type != "uint16")
        file.fail(place, "holds " + info.type + " values, which int32 does not hold exactly");
    if (expectedRank > 0 && static_cast<int>(info.dims.size()) != expectedRank)
        file.fail(
            place, "has rank " + std::to_string(info.dims.size()) + "; expected rank " + std::to_string(expectedRank));
    Id dataset(H5Dopen2(fileId, path.c_str(), H5P_DEFAULT), H5Dclose);
    if (!dataset.valid())
        file.fail(place, "cannot open: " + errorStack());
    for (auto& filter : filtersOf(dataset.get()))
        if (!filter.available)
            file.fail(place,
                "uses the HDF5 filter " + quotedToken(filter.name) + " (id " + std::to_string(filter.id)
                    + "), which this HDF5 library does not have; re-save it (h5repack -f NONE in.h5 out.h5)");
    noteHdf5Place(file.path(), path);
    const bool slab = rowCount != kAllRows;
    if (slab && (info.dims.empty() || firstRow > info.dims[0] || rowCount > info.dims[0] - firstRow))
        file.fail(place,
            "rows " + std::to_string(firstRow) + ".." + std::to_string(firstRow + rowCount) + " lie outside its "
                + std::to_string(info.dims.empty() ? 0 : info.dims[0]));
    std::uint64_t count = slab ? rowCount : info.elementCount();
    for (std::size_t d = 1; slab && d < info.dims.size(); ++d)
        count = info.dims[d] != 0 && count > UINT64_MAX / info.dims[d] ? UINT64_MAX : count * info.dims[d];
    if (count == UINT64_MAX || count > UINT64_MAX / sizeof(T))
        file.fail(place, "its extents overflow 64-bit sizes");
    requireHostMemory(count * sizeof(T), file.path(), place, slab ? "reading its rows" : "reading the dataset");
    std::vector<T> values(static_cast<std::size_t>(count));
    if (count == 0)
        return values;
    if (!slab) {
        if (H5Dread(dataset.get(), memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0)
            file.fail(place, "read failed: " + errorStack());
        return values;
    }
    // Only the rows asked for are read: a hyperslab of the file's space, into a memory space of their extents.
    Id fileSpace(H5Dget_space(dataset.get()), H5Sclose);
    std::vector<hsize_t> start(info.dims.size(), 0), extent(info.dims.begin(), info.dims.end());
    start[0] = firstRow;
    extent[0] = rowCount;
    if (!fileSpace.valid()
        || H5Sselect_hyperslab(fileSpace.get(), H5S_SELECT_SET, start.data(), nullptr, extent.data(), nullptr) < 0)
        file.fail(place, "cannot select its rows: " + errorStack());
    Id memSpace(H5Screate_simple(static_cast<int>(extent.size()), extent.data(), nullptr), H5Sclose);
    if (H5Dread(dataset.get(), memType, memSpace.get(), fileSpace.get(), H5P_DEFAULT, values.data()) < 0)
        file.fail(place, "read failed: " + errorStack());
    return values;
}

template <class T>
void writeNumeric(File& file, std::int64_t fileId, const std::string& path, std::span<const T> values,
    const std::vector<std::uint64_t>& dims, bool compress, hid_t memType, hid_t fileType)
{
    LibraryLock lock;
    std::uint64_t count = 1;
    for (auto d : dims)
        count *= d;
    if (count != values.size())
        file.fail("dataset " + path, "extents do not match the number of values");
    std::vector<hsize_t> extents(dims.begin(), dims.end());
    Id space(H5Screate_simple(static_cast<int>(extents.size()), extents.data(), nullptr), H5Sclose);
    Id lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
    H5Pset_create_intermediate_group(lcpl.get(), 1);
    Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    if (compress && count >= 1024 && !extents.empty()) {
        std::vector<hsize_t> chunk(extents.size(), 1);
        chunk.back() = std::min<hsize_t>(extents.back(), 65536);
        H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data());
        H5Pset_deflate(dcpl.get(), 4);
    }
    Id dataset(H5Dcreate2(fileId, path.c_str(), fileType, space.get(), lcpl.get(), dcpl.get(), H5P_DEFAULT), H5Dclose);
    if (!dataset.valid())
        file.fail("dataset " + path, "cannot create: " + errorStack());
    if (count > 0 && H5Dwrite(dataset.get(), memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0)
        file.fail("dataset " + path, "write failed: " + errorStack());
}
} // namespace

std::vector<double> File::readDoubles(const std::string& path, int expectedRank, bool floatOnly) const
{
    return readNumeric<double>(
        *this, m_id, path, expectedRank, floatOnly ? Accept::Floats : Accept::Numbers, H5T_NATIVE_DOUBLE);
}

std::vector<double> File::readDoubleRows(
    const std::string& path, int expectedRank, std::uint64_t firstRow, std::uint64_t rowCount) const
{
    return readNumeric<double>(*this, m_id, path, expectedRank, Accept::Numbers, H5T_NATIVE_DOUBLE, firstRow,
        std::min(rowCount, kAllRows - 1));
}

std::vector<float> File::readFloats(const std::string& path, int expectedRank, bool floatOnly) const
{
    return readNumeric<float>(
        *this, m_id, path, expectedRank, floatOnly ? Accept::Floats : Accept::Numbers, H5T_NATIVE_FLOAT);
}

std::vector<std::int64_t> File::readInt64s(const std::string& path, int expectedRank) const
{
    return readNumeric<std::int64_t>(*this, m_id, path, expectedRank, Accept::Integers, H5T_NATIVE_INT64);
}

std::vector<std::int32_t> File::readInt32s(const std::string& path, int expectedRank) const
{
    return readNumeric<std::int32_t>(*this, m_id, path, expectedRank, Accept::Int32Exact, H5T_NATIVE_INT32);
}

namespace {
/// The characters of variable-length strings, allocated for libhdf5 up to a limit (H5Pset_vlen_mem_manager).
struct VlenBudget {
    std::uint64_t used;
    std::uint64_t limit;
    bool refused;
};

void* vlenAllocate(std::size_t bytes, void* info)
{
    auto* budget = static_cast<VlenBudget*>(info);
    if (bytes > budget->limit - std::min(budget->used, budget->limit)) {
        budget->refused = true;
        return nullptr;
    }
    void* memory = std::malloc(bytes);
    if (memory != nullptr)
        budget->used += bytes;
    return memory;
}

void vlenFree(void* memory, void*)
{
    std::free(memory);
}
} // namespace

std::vector<std::string> File::readStrings(const std::string& path) const
{
    LibraryLock lock;
    const std::string place = "dataset " + path;
    const DatasetInfo meta = info(path);
    if (meta.type != "string")
        fail(place, "holds " + meta.type + " values; expected strings");
    if (meta.dims.size() != 1)
        fail(place, "has rank " + std::to_string(meta.dims.size()) + "; expected a 1-D list of strings");
    noteHdf5Place(m_path, path);
    Id dataset(H5Dopen2(m_id, path.c_str(), H5P_DEFAULT), H5Dclose);
    Id fileType(H5Dget_type(dataset.get()), H5Tclose);
    const std::size_t count = static_cast<std::size_t>(meta.dims[0]);
    std::vector<std::string> result;
    result.reserve(count);
    if (H5Tis_variable_str(fileType.get()) > 0) {
        // The pointers and the strings' own objects are counted first; the characters, whose total only the read
        // finds, come from an allocator that refuses past what the memory budget leaves (they are held twice:
        // libhdf5's copies and ours).
        const std::uint64_t fixed = saturatingMul(count, sizeof(char*) + sizeof(std::string));
        requireHostMemory(fixed, m_path, place, "reading the strings");
        Id memType(H5Tcopy(H5T_C_S1), H5Tclose);
        H5Tset_size(memType.get(), H5T_VARIABLE);
        H5Tset_cset(memType.get(), H5Tget_cset(fileType.get()));
        const std::uint64_t budget = availableHostMemory();
        VlenBudget characters {0, budget > fixed ? (budget - fixed) / 2 : 0, false};
        Id xfer(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
        if (!xfer.valid() || H5Pset_vlen_mem_manager(xfer.get(), vlenAllocate, &characters, vlenFree, nullptr) < 0)
            fail(place, "cannot set up the string read: " + errorStack());
        std::vector<char*> raw(count, nullptr);
        Id space(H5Dget_space(dataset.get()), H5Sclose);
        const bool read
            = count == 0 || H5Dread(dataset.get(), memType.get(), H5S_ALL, H5S_ALL, xfer.get(), raw.data()) >= 0;
        // Whatever libhdf5 allocated before a failure is given back before the error.
        std::string error = read ? std::string() : errorStack();
        if (!read && characters.refused)
            error = "its strings need more than the " + formatBytes(characters.limit) + " the memory budget leaves ("
                + memoryBudgetSource() + ")";
        if (read)
            for (char* s : raw)
                result.emplace_back(s ? s : "");
        if (count > 0 && space.valid())
            H5Dvlen_reclaim(memType.get(), space.get(), xfer.get(), raw.data());
        if (!read)
            fail(place, characters.refused ? error : "read failed: " + error);
    } else {
        const std::size_t width = H5Tget_size(fileType.get());
        requireHostMemory(static_cast<std::uint64_t>(width) * count, m_path, place, "reading the strings");
        Id memType = fixedStringMemoryType(fileType.get(), width);
        std::vector<char> raw(width * count);
        if (count > 0 && H5Dread(dataset.get(), memType.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data()) < 0)
            fail(place, "read failed: " + errorStack());
        for (std::size_t i = 0; i < count; ++i) {
            const char* s = raw.data() + i * width;
            result.emplace_back(s, strnlen(s, width));
        }
    }
    return result;
}

void File::writeDoubles(
    const std::string& path, std::span<const double> values, std::vector<std::uint64_t> dims, bool compress)
{
    writeNumeric<double>(*this, m_id, path, values, dims, compress, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE);
}

void File::writeFloats(
    const std::string& path, std::span<const float> values, std::vector<std::uint64_t> dims, bool compress)
{
    writeNumeric<float>(*this, m_id, path, values, dims, compress, H5T_NATIVE_FLOAT, H5T_IEEE_F32LE);
}

void File::writeUInt64s(
    const std::string& path, std::span<const std::uint64_t> values, std::vector<std::uint64_t> dims, bool compress)
{
    writeNumeric<std::uint64_t>(*this, m_id, path, values, dims, compress, H5T_NATIVE_UINT64, H5T_STD_U64LE);
}

void File::writeInt32s(
    const std::string& path, std::span<const std::int32_t> values, std::vector<std::uint64_t> dims, bool compress)
{
    writeNumeric<std::int32_t>(*this, m_id, path, values, dims, compress, H5T_NATIVE_INT32, H5T_STD_I32LE);
}

void File::writeUInt8s(
    const std::string& path, std::span<const std::uint8_t> values, std::vector<std::uint64_t> dims, bool compress)
{
    writeNumeric<std::uint8_t>(*this, m_id, path, values, dims, compress, H5T_NATIVE_UINT8, H5T_STD_U8LE);
}

void File::writeInt64s(
    const std::string& path, std::span<const std::int64_t> values, std::vector<std::uint64_t> dims, bool compress)
{
    writeNumeric<std::int64_t>(*this, m_id, path, values, dims, compress, H5T_NATIVE_INT64, H5T_STD_I64LE);
}

void File::writeStrings(const std::string& path, const std::vector<std::string>& values)
{
    LibraryLock lock;
    Id type(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(type.get(), H5T_VARIABLE);
    H5Tset_cset(type.get(), H5T_CSET_UTF8);
    const hsize_t extent = values.size();
    Id space(H5Screate_simple(1, &extent, nullptr), H5Sclose);
    Id lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
    H5Pset_create_intermediate_group(lcpl.get(), 1);
    Id dataset(H5Dcreate2(m_id, path.c_str(), type.get(), space.get(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
    if (!dataset.valid())
        fail("dataset " + path, "cannot create: " + errorStack());
    std::vector<const char*> raw;
    raw.reserve(values.size());
    for (auto& s : values)
        raw.push_back(s.c_str());
    if (!raw.empty() && H5Dwrite(dataset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data()) < 0)
        fail("dataset " + path, "write failed: " + errorStack());
}

void File::writeStringAttribute(const std::string& objectPath, const std::string& name, const std::string& value)
{
    LibraryLock lock;
    Id object(H5Oopen(m_id, objectPath.c_str(), H5P_DEFAULT), H5Oclose);
    if (!object.valid())
        fail(objectPath, "cannot open to set attribute '" + name + "': " + errorStack());
    Id type(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(type.get(), value.empty() ? 1 : value.size());
    H5Tset_cset(type.get(), H5T_CSET_UTF8);
    Id space(H5Screate(H5S_SCALAR), H5Sclose);
    if (H5Aexists(object.get(), name.c_str()) > 0)
        H5Adelete(object.get(), name.c_str());
    Id attribute(H5Acreate2(object.get(), name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    if (!attribute.valid() || H5Awrite(attribute.get(), type.get(), value.empty() ? "" : value.c_str()) < 0)
        fail(objectPath, "cannot write attribute '" + name + "': " + errorStack());
}

std::string File::readStringAttribute(const std::string& objectPath, const std::string& name) const
{
    LibraryLock lock;
    noteHdf5Place(m_path, objectPath + "@" + name);
    Id object(H5Oopen(m_id, objectPath.c_str(), H5P_DEFAULT), H5Oclose);
    if (!object.valid()) {
        H5Eclear2(H5E_DEFAULT);
        return {};
    }
    if (H5Aexists(object.get(), name.c_str()) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return {};
    }
    Id attribute(H5Aopen(object.get(), name.c_str(), H5P_DEFAULT), H5Aclose);
    Id fileType(H5Aget_type(attribute.get()), H5Tclose);
    if (H5Tget_class(fileType.get()) != H5T_STRING)
        fail(objectPath, "attribute '" + name + "' is not a string");
    Id memType(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_cset(memType.get(), H5Tget_cset(fileType.get()));
    if (H5Tis_variable_str(fileType.get()) > 0) {
        H5Tset_size(memType.get(), H5T_VARIABLE);
        char* raw = nullptr;
        if (H5Aread(attribute.get(), memType.get(), &raw) < 0)
            fail(objectPath, "cannot read attribute '" + name + "': " + errorStack());
        std::string value = raw ? raw : "";
        H5free_memory(raw);
        return value;
    }
    const std::size_t width = H5Tget_size(fileType.get());
    memType = fixedStringMemoryType(fileType.get(), width);
    std::string value(width, '\0');
    if (H5Aread(attribute.get(), memType.get(), value.data()) < 0)
        fail(objectPath, "cannot read attribute '" + name + "': " + errorStack());
    value.resize(strnlen(value.c_str(), width));
    return value;
}

bool File::hasAttribute(const std::string& objectPath, const std::string& name) const
{
    LibraryLock lock;
    noteHdf5Place(m_path, objectPath + "@" + name);
    if (objectTypeAt(m_id, objectPath) == H5O_TYPE_UNKNOWN)
        return false;
    const htri_t exists = H5Aexists_by_name(m_id, objectPath.c_str(), name.c_str(), H5P_DEFAULT);
    H5Eclear2(H5E_DEFAULT);
    return exists > 0;
}

std::vector<double> File::readNumericAttribute(const std::string& objectPath, const std::string& name) const
{
    LibraryLock lock;
    if (!hasAttribute(objectPath, name))
        fail(objectPath, "has no attribute '" + name + "'");
    noteHdf5Place(m_path, objectPath + "@" + name);
    Id attribute(H5Aopen_by_name(m_id, objectPath.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    if (!attribute.valid())
        fail(objectPath, "cannot open attribute '" + name + "': " + errorStack());
    Id fileType(H5Aget_type(attribute.get()), H5Tclose);
    Id space(H5Aget_space(attribute.get()), H5Sclose);
    const H5T_class_t cls = H5Tget_class(fileType.get());
    if (cls != H5T_INTEGER && cls != H5T_FLOAT)
        fail(objectPath, "attribute '" + name + "' holds " + typeName(fileType.get()) + " values; expected numbers");
    const hssize_t count = H5Sget_simple_extent_npoints(space.get());
    if (count < 0)
        fail(objectPath, "cannot read the shape of attribute '" + name + "': " + errorStack());
    std::vector<double> values(static_cast<std::size_t>(count));
    if (count > 0 && H5Aread(attribute.get(), H5T_NATIVE_DOUBLE, values.data()) < 0)
        fail(objectPath, "cannot read attribute '" + name + "': " + errorStack());
    return values;
}

void File::writeInt64Attribute(
    const std::string& objectPath, const std::string& name, std::span<const std::int64_t> values)
{
    LibraryLock lock;
    Id object(H5Oopen(m_id, objectPath.c_str(), H5P_DEFAULT), H5Oclose);
    if (!object.valid())
        fail(objectPath, "cannot open to set attribute '" + name + "': " + errorStack());
    const hsize_t extent = values.size();
    Id space(H5Screate_simple(1, &extent, nullptr), H5Sclose);
    if (H5Aexists(object.get(), name.c_str()) > 0)
        H5Adelete(object.get(), name.c_str());
    Id attribute(
        H5Acreate2(object.get(), name.c_str(), H5T_STD_I64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    if (!attribute.valid() || H5Awrite(attribute.get(), H5T_NATIVE_INT64, values.data()) < 0)
        fail(objectPath, "cannot write attribute '" + name + "': " + errorStack());
}

void File::createGroup(const std::string& path)
{
    LibraryLock lock;
    if (hasGroup(path))
        return;
    Id lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
    H5Pset_create_intermediate_group(lcpl.get(), 1);
    Id group(H5Gcreate2(m_id, path.c_str(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
    if (!group.valid())
        fail("group " + path, "cannot create: " + errorStack());
}

std::string normalisedPath(std::string path)
{
    if (path.empty() || path.front() != '/')
        path.insert(path.begin(), '/');
    while (path.size() > 1 && path.back() == '/')
        path.pop_back();
    return path;
}

std::string parentPath(const std::string& path)
{
    const auto slash = path.find_last_of('/');
    return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

std::string childPath(const std::string& group, const std::string& name)
{
    return group == "/" ? "/" + name : group + "/" + name;
}

std::string describe(const DatasetInfo& info)
{
    std::string shape;
    for (std::size_t i = 0; i < info.dims.size(); ++i)
        shape += (i == 0 ? "" : "×") + std::to_string(info.dims[i]);
    return info.path + " (" + info.type + (shape.empty() ? "" : " " + shape) + ")";
}

std::vector<std::string> describe(const std::vector<DatasetInfo>& infos)
{
    std::vector<std::string> text;
    text.reserve(infos.size());
    for (const auto& info : infos)
        text.push_back(describe(info));
    return text;
}

PathTarget resolvePath(const File& file, const std::string& h5Path)
{
    PathTarget target;
    if (h5Path.empty())
        return target;
    const std::string path = normalisedPath(h5Path);
    if (file.hasDataset(path)) {
        target.dataset = path;
        return target;
    }
    if (!file.hasGroup(path))
        file.fail("", "no dataset or group named " + path + " (--h5-path)");
    target.group = path;
    return target;
}

std::string DatasetSearch::where() const
{
    return group == "/" ? "the file" : "group " + group;
}

DatasetSearch searchDatasets(
    const File& file, const std::string& h5Path, const std::function<bool(const DatasetInfo&)>& fits)
{
    const PathTarget target = resolvePath(file, h5Path);
    DatasetSearch search;
    if (!target.dataset.empty()) {
        search.chosen = target.dataset;
        return search;
    }
    search.group = target.group;
    search.all = file.datasets(search.group);
    for (const auto& d : search.all)
        if (fits(d))
            search.fitting.push_back(d);
    if (search.fitting.size() == 1)
        search.chosen = search.fitting.front().path;
    return search;
}

} // namespace ks::data::h5
