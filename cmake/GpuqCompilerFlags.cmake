# Warnings, sanitizers and the POSIX level, applied to every target in the tree.
add_compile_definitions(_POSIX_C_SOURCE=200809L)

set(GQ_WARNINGS
  -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes
  -Wformat=2 -Wundef -Wcast-qual -Wwrite-strings -Wvla -Wimplicit-fallthrough)
add_compile_options(${GQ_WARNINGS})
if(GQ_WERROR)
  add_compile_options(-Werror)
endif()

if(GQ_SANITIZE)
  add_compile_options(-fsanitize=${GQ_SANITIZE} -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${GQ_SANITIZE} -fno-sanitize-recover=all)
endif()

# Test hooks (GQ_CRASH_AT crash points, catalogue §6 B) exist only in Debug
# builds, which is what the test suite builds; a release binary has none.
add_compile_definitions($<$<CONFIG:Debug>:GQ_TEST_HOOKS>)
