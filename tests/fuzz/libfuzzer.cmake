# Real libFuzzer binaries, clang only (included by CMakeLists.txt when GQ_FUZZ is ON).
#
# The harnesses need coverage instrumentation in the code they fuzz, so the
# library sources they reach are compiled again here, into gq_fuzz_lib,
# with -fsanitize=fuzzer-no-link,address,undefined at -O1 (libFuzzer's own
# advice: fast, and the sanitizers still see everything). Sources that no
# harness reaches (the daemon's sync loop, the informers, the simulator)
# are left out, which keeps the build that fuzz_short makes small.
if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "GQ_FUZZ=ON needs clang: configure with -DCMAKE_C_COMPILER=clang")
endif()

set(GQ_FUZZ_SAN -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
set(GQ_FUZZ_LIB_SOURCES ${GQ_LIB_SOURCES})
list(FILTER GQ_FUZZ_LIB_SOURCES EXCLUDE REGEX "/lib/[a-z]+/(${GQ_FUZZ_LIB_EXCLUDE})\\.c$")

# The schema migrations, embedded as lib/ embeds them (a generated file is per directory).
set(GQ_FUZZ_SCHEMA_C "${CMAKE_CURRENT_BINARY_DIR}/schema_gen.c")
file(GLOB GQ_FUZZ_SCHEMA_FILES CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/schema/*.sql")
add_custom_command(
  OUTPUT "${GQ_FUZZ_SCHEMA_C}"
  COMMAND ${CMAKE_COMMAND} -DSCHEMA_DIR=${PROJECT_SOURCE_DIR}/schema -DOUTPUT=${GQ_FUZZ_SCHEMA_C}
          -P ${PROJECT_SOURCE_DIR}/cmake/EmbedSchema.cmake
  DEPENDS ${GQ_FUZZ_SCHEMA_FILES} ${PROJECT_SOURCE_DIR}/cmake/EmbedSchema.cmake)

add_library(gq_fuzz_lib STATIC ${GQ_FUZZ_LIB_SOURCES} "${GQ_FUZZ_SCHEMA_C}")
target_include_directories(gq_fuzz_lib
  PUBLIC "${PROJECT_SOURCE_DIR}/lib/include" ${GQ_PRIVATE_INCLUDE_DIRS})
target_compile_options(gq_fuzz_lib PRIVATE -O1 -fsanitize=fuzzer-no-link ${GQ_FUZZ_SAN})
target_link_libraries(gq_fuzz_lib PUBLIC
  PkgConfig::SQLITE3 PkgConfig::CURL PkgConfig::JSONC PkgConfig::YAML PkgConfig::UUID
  Threads::Threads m)

set(GQ_FUZZERS "")
foreach(src IN LISTS GQ_FUZZ_HARNESSES)
  get_filename_component(name "${src}" NAME_WE)
  add_executable(${name}_fuzzer "${src}")
  target_include_directories(${name}_fuzzer PRIVATE "${GQ_FUZZ_DIR}")
  target_compile_options(${name}_fuzzer PRIVATE -O1 -fsanitize=fuzzer ${GQ_FUZZ_SAN})
  target_link_options(${name}_fuzzer PRIVATE -fsanitize=fuzzer ${GQ_FUZZ_SAN})
  target_link_libraries(${name}_fuzzer PRIVATE gq_fuzz_lib)
  list(APPEND GQ_FUZZERS ${name}_fuzzer)
endforeach()
add_custom_target(fuzzers DEPENDS ${GQ_FUZZERS})
