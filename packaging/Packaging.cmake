# CPack: a Debian package of the CLI (and the desktop app when it is built).
if(KS_BUILD_GUI)
    install(FILES "${PROJECT_SOURCE_DIR}/packaging/kernelscope.desktop" DESTINATION share/applications)
    install(FILES "${PROJECT_SOURCE_DIR}/packaging/io.kernelscope.KernelScope.metainfo.xml" DESTINATION share/metainfo)
    install(FILES "${PROJECT_SOURCE_DIR}/resources/icons/kernelscope.svg"
        DESTINATION share/icons/hicolor/scalable/apps)
endif()
set(CPACK_PACKAGE_NAME "kernelscope")
set(CPACK_PACKAGE_VENDOR "KernelScope")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_GENERATOR "DEB")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "KernelScope developers")
set(CPACK_DEBIAN_PACKAGE_SECTION "devel")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# Shared-library dependencies are read off the binaries; the CUDA runtime is linked statically.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
include(CPack)
