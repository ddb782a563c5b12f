# The five dependencies, found uniformly through pkg-config. Only json-c ships a
# CMake config on Debian 12; the others ship .pc files only.
find_package(PkgConfig REQUIRED)
pkg_check_modules(SQLITE3 REQUIRED IMPORTED_TARGET sqlite3)
pkg_check_modules(CURL REQUIRED IMPORTED_TARGET libcurl)
pkg_check_modules(JSONC REQUIRED IMPORTED_TARGET json-c)
pkg_check_modules(YAML REQUIRED IMPORTED_TARGET yaml-0.1)
pkg_check_modules(UUID REQUIRED IMPORTED_TARGET uuid)
# gpuqd's own endpoints (/healthz, /readyz, /metrics, the status API); only gpuqd links it.
pkg_check_modules(MHD REQUIRED IMPORTED_TARGET libmicrohttpd)
find_package(Threads REQUIRED)
