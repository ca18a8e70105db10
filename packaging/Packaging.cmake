# Installed files beyond the two programs, and CPack's Debian package of them (`cpack -G DEB` in the build
# folder; packaging/check-package.sh builds, lints, installs and runs it).
set(KS_DEB_RELEASE 1)
set(KS_MAINTAINER "KernelScope developers <kernelscope@example.org>")
set(KS_HOMEPAGE "https://github.com/kernelscope/kernelscope")

# The changelog's newest entry and the AppStream release must name the version being built, so a version bump
# cannot ship a package whose changelog and metadata describe an older one.
file(STRINGS "${PROJECT_SOURCE_DIR}/packaging/changelog" ks_changelog_top LIMIT_COUNT 1)
if(NOT ks_changelog_top MATCHES "^kernelscope \\(${PROJECT_VERSION}-${KS_DEB_RELEASE}\\) ")
    message(FATAL_ERROR "packaging/changelog starts with '${ks_changelog_top}', not an entry for "
                        "${PROJECT_VERSION}-${KS_DEB_RELEASE}: add one")
endif()
file(READ "${PROJECT_SOURCE_DIR}/packaging/io.kernelscope.KernelScope.metainfo.xml" ks_metainfo)
if(NOT ks_metainfo MATCHES "<release version=\"${PROJECT_VERSION}\"")
    message(FATAL_ERROR "packaging/io.kernelscope.KernelScope.metainfo.xml has no <release> for ${PROJECT_VERSION}")
endif()

if(KS_BUILD_GUI)
    install(FILES "${PROJECT_SOURCE_DIR}/packaging/kernelscope.desktop" DESTINATION share/applications)
    install(FILES "${PROJECT_SOURCE_DIR}/packaging/io.kernelscope.KernelScope.metainfo.xml" DESTINATION share/metainfo)
    install(FILES "${PROJECT_SOURCE_DIR}/resources/icons/kernelscope.svg"
        DESTINATION share/icons/hicolor/scalable/apps)
endif()

# Debian's documentation: the DEP-5 copyright file and the changelog, compressed as policy asks (gzip -9n: no
# name or time stamp, so the package is reproducible).
set(ks_doc_dir "${PROJECT_BINARY_DIR}/packaging")
add_custom_command(OUTPUT "${ks_doc_dir}/changelog.Debian.gz"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${ks_doc_dir}"
    COMMAND gzip -9n < "${PROJECT_SOURCE_DIR}/packaging/changelog" > "${ks_doc_dir}/changelog.Debian.gz"
    DEPENDS "${PROJECT_SOURCE_DIR}/packaging/changelog"
    VERBATIM)
set(ks_packaging_outputs "${ks_doc_dir}/changelog.Debian.gz")
install(FILES "${PROJECT_SOURCE_DIR}/packaging/copyright" "${ks_doc_dir}/changelog.Debian.gz"
    DESTINATION share/doc/kernelscope)
install(FILES "${PROJECT_SOURCE_DIR}/packaging/lintian-overrides" DESTINATION share/lintian/overrides
    RENAME kernelscope)

# Manual pages written from each program's --help (packaging/man-page.sh, with help2man from install-deps.sh).
find_program(KS_HELP2MAN help2man)
if(KS_HELP2MAN)
    set(ks_cli_subcommands list info run compare new-kernel compile)
    add_custom_command(OUTPUT "${ks_doc_dir}/kernelscope-cli.1.gz"
        COMMAND bash "${PROJECT_SOURCE_DIR}/packaging/man-page.sh" "${ks_doc_dir}/kernelscope-cli.1.gz"
            "$<TARGET_FILE:kernelscope-cli>" "${PROJECT_VERSION}"
            "run, time and compare CUDA kernel variants headless" ${ks_cli_subcommands}
        DEPENDS kernelscope-cli "${PROJECT_SOURCE_DIR}/packaging/man-page.sh" "${PROJECT_SOURCE_DIR}/packaging/changelog"
        VERBATIM)
    list(APPEND ks_packaging_outputs "${ks_doc_dir}/kernelscope-cli.1.gz")
    install(FILES "${ks_doc_dir}/kernelscope-cli.1.gz" DESTINATION share/man/man1)
    if(KS_BUILD_GUI)
        add_custom_command(OUTPUT "${ks_doc_dir}/kernelscope.1.gz"
            COMMAND bash "${PROJECT_SOURCE_DIR}/packaging/man-page.sh" "${ks_doc_dir}/kernelscope.1.gz"
                "$<TARGET_FILE:kernelscope>" "${PROJECT_VERSION}" "desktop profiler for CUDA kernel variants"
            DEPENDS kernelscope "${PROJECT_SOURCE_DIR}/packaging/man-page.sh" "${PROJECT_SOURCE_DIR}/packaging/changelog"
            VERBATIM)
        list(APPEND ks_packaging_outputs "${ks_doc_dir}/kernelscope.1.gz")
        install(FILES "${ks_doc_dir}/kernelscope.1.gz" DESTINATION share/man/man1)
    endif()
else()
    message(STATUS "KernelScope: no help2man (packaging/install-deps.sh installs it): no manual pages")
endif()
add_custom_target(ks_packaging_files ALL DEPENDS ${ks_packaging_outputs})

set(CPACK_PACKAGE_NAME "kernelscope")
set(CPACK_PACKAGE_VENDOR "KernelScope developers")
set(CPACK_PACKAGE_CONTACT "${KS_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "profiler for CUDA kernel variants, desktop and headless")
# CPack puts the summary above this as the synopsis line.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "KernelScope runs several kernel variants of the same workload (linear
regression, sparse matrix-vector product, distance histograms, correlation of
expression tables, a small CNN) on a real dataset or generated data, times
them with CUDA events until the measurement is stable, and checks each result
against a CPU reference.
.
kernelscope is the Qt desktop application: it streams time, bandwidth and
correctness into live charts and exports them to CSV, JSON, PNG, PDF and SVG.
kernelscope-cli runs the same engine headless, compares two runs, and compiles
and times a user's own kernels with NVRTC. Without an NVIDIA GPU the CPU
variants run and the CUDA ones say why they cannot.")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_GENERATOR "DEB")
set(CPACK_DEBIAN_PACKAGE_RELEASE "${KS_DEB_RELEASE}")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${KS_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${KS_HOMEPAGE}")
set(CPACK_DEBIAN_PACKAGE_SECTION "devel")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# Shared-library dependencies are read off the binaries; the CUDA runtime is linked statically.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Binaries without their 10+ MB of debug information, and the permissions and owner Debian policy asks for.
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
    OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
include(CPack)
