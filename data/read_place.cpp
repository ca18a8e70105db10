#include "data/read_place.h"

#include <algorithm>
#include <cstring>

namespace ks::data {

ReadPlacePage* g_readPlacePage = nullptr;

namespace {
void (*g_onHdf5Place)(std::string_view) = nullptr;

void store(char* text, std::atomic<std::uint32_t>& length, std::string_view value)
{
    const std::size_t n = std::min(value.size(), ReadPlacePage::kTextBytes - 1);
    // The length goes to 0 first, so a note torn by a kill is read as empty or as the new text, never as the old
    // length over new bytes.
    length.store(0, std::memory_order_relaxed);
    if (n > 0) // an empty string_view may hold a null pointer, which memcpy must not get even for 0 bytes
        std::memcpy(text, value.data(), n);
    text[n] = '\0';
    length.store(static_cast<std::uint32_t>(n), std::memory_order_release);
}
} // namespace

void setReadPlacePage(ReadPlacePage* page, void (*onHdf5Place)(std::string_view place))
{
    g_readPlacePage = page;
    g_onHdf5Place = onHdf5Place;
}

void noteReadFile(std::string_view file)
{
    ReadPlacePage* page = g_readPlacePage;
    if (!page)
        return;
    if (file != std::string_view(page->file, page->fileLength.load(std::memory_order_relaxed)))
        store(page->file, page->fileLength, file);
    store(page->place, page->placeLength, {});
    page->line.store(0, std::memory_order_relaxed);
    page->source.store(ReadPlacePage::None, std::memory_order_relaxed);
}

void noteHdf5Place(std::string_view file, std::string_view place)
{
    ReadPlacePage* page = g_readPlacePage;
    if (!page)
        return;
    if (file != std::string_view(page->file, page->fileLength.load(std::memory_order_relaxed)))
        store(page->file, page->fileLength, file);
    store(page->place, page->placeLength, place);
    page->source.store(ReadPlacePage::Hdf5, std::memory_order_release);
    if (g_onHdf5Place)
        g_onHdf5Place(place);
}

} // namespace ks::data
