# Script mode: cmake -DSCHEMA_DIR=... -DOUTPUT=... -P EmbedSchema.cmake
# Turns schema/NNNN_name.sql into a C table of migrations, in file-name order.
# The number in the file name is the user_version the migration brings the
# database to; numbers must run 1, 2, 3, ... without gaps.
file(GLOB files RELATIVE "${SCHEMA_DIR}" "${SCHEMA_DIR}/[0-9][0-9][0-9][0-9]_*.sql")
list(SORT files)
set(body "")
set(arrays "")
set(expect 1)
foreach(f IN LISTS files)
  string(SUBSTRING "${f}" 0 4 num)
  math(EXPR num "${num}" OUTPUT_FORMAT DECIMAL)
  if(NOT num EQUAL expect)
    message(FATAL_ERROR "schema/${f}: expected migration number ${expect}")
  endif()
  math(EXPR expect "${expect} + 1")
  # As bytes, not a string literal: ISO C caps literals at 4095 characters.
  # Each is cast to char, so that UTF-8 in comments (bytes above 0x7f) fits.
  file(READ "${SCHEMA_DIR}/${f}" hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "(char)0x\\1," bytes "${hex}")
  # Eight bytes a line (CMake's regular expressions have no {n}).
  set(b8 "\\(char\\)0x..,")
  string(REGEX REPLACE "(${b8}${b8}${b8}${b8}${b8}${b8}${b8}${b8})" "\\1\n    " bytes "${bytes}")
  string(REGEX REPLACE "\\.sql$" "" name "${f}")
  string(APPEND arrays "static const char sql_${num}[] = {\n    ${bytes}0x00};\n")
  string(APPEND body "    {${num}, \"${name}\", sql_${num}},\n")
endforeach()
math(EXPR count "${expect} - 1")
file(WRITE "${OUTPUT}.tmp" "/* Generated from the schema directory by cmake/EmbedSchema.cmake. Do not edit. */
#include \"store_migrations.h\"

${arrays}
const struct gq__migration gq__migrations[] = {
${body}};
const int gq__migration_count = ${count};
")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
