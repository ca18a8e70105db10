#pragma once

#include <initializer_list>
#include <string>

namespace ks::device {

/// A shared library opened with dlopen: vendor libraries are optional at run time, so a machine without them still
/// runs everything else and says which variant needs what.
class DynamicLibrary {
public:
    /// Tries each name in turn (sonames first, then full paths); check loaded() and error().
    explicit DynamicLibrary(std::initializer_list<const char*> candidates);
    DynamicLibrary(const DynamicLibrary&) = delete;
    DynamicLibrary& operator=(const DynamicLibrary&) = delete;
    ~DynamicLibrary();

    bool loaded() const { return m_handle != nullptr; }
    const std::string& error() const { return m_error; }
    /// The symbol, or nullptr (and error() says which) when it is missing.
    void* symbol(const char* name);

    template <class Fn> bool bind(Fn& fn, const char* name)
    {
        fn = reinterpret_cast<Fn>(symbol(name));
        return fn != nullptr;
    }

private:
    void* m_handle = nullptr;
    std::string m_error;
};

} // namespace ks::device
