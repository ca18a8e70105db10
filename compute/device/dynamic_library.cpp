#include "compute/device/dynamic_library.h"

#include <dlfcn.h>

namespace ks::device {

DynamicLibrary::DynamicLibrary(std::initializer_list<const char*> candidates)
{
    for (const char* name : candidates) {
        m_handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
        if (m_handle) {
            m_error.clear();
            return;
        }
        if (m_error.empty())
            m_error = dlerror();
    }
}

DynamicLibrary::~DynamicLibrary()
{
    // Vendor libraries stay loaded for the life of the process: their own destructors run at exit.
}

void* DynamicLibrary::symbol(const char* name)
{
    if (!m_handle)
        return nullptr;
    void* s = dlsym(m_handle, name);
    if (!s)
        m_error = std::string("missing symbol ") + name;
    return s;
}

} // namespace ks::device
