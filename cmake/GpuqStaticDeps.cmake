# gpuq and gpuqd link sqlite3, json-c, libyaml and libuuid statically when
# their archives are installed (Debian's -dev packages ship them), and libc
# dynamically. A short gpuq command is mostly process start-up: measured on
# the CI machine, the dynamic loader's relocations for those four libraries
# cost about 0.2 ms per run, which is 12% of `gpuq submit`. libcurl stays
# out: nothing the command runs today needs it (the library links it).
option(GQ_STATIC_DEPS "Link gpuq and gpuqd with static sqlite3, json-c, libyaml, libuuid" ON)

set(GQ_PROGRAM_LIBS gpuqueue_static)
if(GQ_STATIC_DEPS)
  set(_archives "")
  foreach(lib sqlite3 json-c yaml uuid)
    find_library(GQ_STATIC_${lib} NAMES lib${lib}.a)
    if(NOT GQ_STATIC_${lib})
      message(STATUS "gpuq: no static lib${lib}.a; linking the programs dynamically")
      set(_archives "")
      break()
    endif()
    list(APPEND _archives ${GQ_STATIC_${lib}})
  endforeach()
  if(_archives)
    # The archives come before the shared libraries gpuqueue_static brings,
    # so --as-needed leaves those out of the programs' DT_NEEDED.
    set(GQ_PROGRAM_LIBS gpuqueue_static ${_archives} m ${CMAKE_DL_LIBS} Threads::Threads)
  endif()
endif()

function(gq_program target)
  target_link_libraries(${target} PRIVATE ${GQ_PROGRAM_LIBS})
  target_link_options(${target} PRIVATE -Wl,--as-needed)
endfunction()
