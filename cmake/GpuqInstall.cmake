# Install rules: the shared and static library, headers, pkg-config file, an
# exported CMake package (find_package(gpuqueue)), and the two programs.
include(CMakePackageConfigHelpers)

install(TARGETS gpuqueue gpuqueue_static
  EXPORT gpuqueueTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY lib/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS gpuq gpuqd RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# kubectl finds plugins by name on PATH: `kubectl gpuq list` runs kubectl-gpuq with the
# words after "gpuq" (issue 16). A relative symlink, so the prefix may move.
install(CODE "execute_process(COMMAND \${CMAKE_COMMAND} -E create_symlink gpuq
  \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/kubectl-gpuq\")")

install(EXPORT gpuqueueTargets
  NAMESPACE gpuqueue::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gpuqueue)
configure_package_config_file(cmake/gpuqueueConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/gpuqueueConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gpuqueue)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/gpuqueueConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES
  ${CMAKE_CURRENT_BINARY_DIR}/gpuqueueConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/gpuqueueConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gpuqueue)

# gpuqueue.pc names its prefix relative to ${pcfiledir} (LIBDIR/pkgconfig), so
# it holds wherever the tree is installed or moved; an absolute LIBDIR or
# INCLUDEDIR is written as it is. The dependencies are Libs.private flags, not
# Requires.private modules: the public headers include none of theirs, and
# pkg-config refuses --cflags while a Requires.private module is missing, so a
# user of the shared library would need five -dev packages for nothing.
# libcurl is absent: the library loads it with dlopen (lib/kube/kube_curl.c).
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(GQ_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(GQ_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  file(RELATIVE_PATH up "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
  string(REGEX REPLACE "/$" "" up "${up}")
  set(GQ_PC_PREFIX "\${pcfiledir}/${up}")
  set(GQ_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(GQ_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(GQ_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
configure_file(cmake/gpuqueue.pc.in ${CMAKE_CURRENT_BINARY_DIR}/gpuqueue.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/gpuqueue.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
