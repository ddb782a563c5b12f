# The Debian package, built by CPack from the install rules (cmake/GpuqInstall.cmake
# and whatever else installs: man pages, completions): `cpack -G DEB` in the build
# directory writes gpuq_<version>_<arch>.deb, installed under /usr. One package
# holds everything (programs, the library with its SONAME, headers, pkg-config and
# CMake files); a distribution would split it into gpuq, libgpuqueue0 and -dev.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME gpuq)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_DESCRIPTION "gpuq queues GPU batch jobs as Kueue does, and gpuqd admits them,
in front of GKE's Dynamic Workload Scheduler or a simulated cluster. libgpuqueue is
the library both are built on.")
set(CPACK_PACKAGE_CONTACT "gpuq maintainers <maintainers@users.noreply.a-seed-0da0ac58.example>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
# Name, version and architecture only: gpuq_0.1.0_amd64.deb.
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
# Depends computed by dpkg-shlibdeps from every ELF file in the package, and
# libcurl4, which no ELF file names: the library loads it with dlopen
# (lib/kube/kube_curl.c) for cluster mode. 7.66.0 brought curl_multi_poll.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libcurl4 (>= 7.66.0)")
# A shlibs file for libgpuqueue.so.0, and postinst/postrm scripts that run ldconfig.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
