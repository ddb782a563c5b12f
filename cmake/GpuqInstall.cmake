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

configure_file(cmake/gpuqueue.pc.in ${CMAKE_CURRENT_BINARY_DIR}/gpuqueue.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/gpuqueue.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
