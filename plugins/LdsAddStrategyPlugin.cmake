# lds_add_strategy_plugin(<name> SOURCES ... [LIBRARIES ...] [OUTPUT_DIRECTORY dir] [TARGET target]):
# builds liblds_<name>.so, the one way to build a plugin. The target is lds_<name> unless TARGET
# names another (two builds of one strategy, in different output folders).
#
# The module exports only lds_strategy_get (linker version script), hides everything else, is built
# with -fno-gnu-unique so dlclose really unloads it, and must not have undefined symbols. Without a
# build type it is built with -O2.
#
# The same file serves the source tree and an installed SDK (lib/cmake/LogDirStrategy/, included by
# LogDirStrategyConfig.cmake): the exports map is looked up beside this file, and the ABI header
# comes from the LogDirStrategy::abi target when it exists.

function(lds_add_strategy_plugin name)
  cmake_parse_arguments(ARG "" "OUTPUT_DIRECTORY;TARGET" "SOURCES;LIBRARIES" ${ARGN})
  if(NOT name MATCHES "^[a-z0-9_]+$")
    message(FATAL_ERROR "lds_add_strategy_plugin: strategy name '${name}' must match [a-z0-9_]+")
  endif()
  set(target lds_${name})
  if(ARG_TARGET)
    set(target ${ARG_TARGET})
  endif()
  add_library(${target} MODULE ${ARG_SOURCES})
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    OUTPUT_NAME "lds_${name}"
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(ARG_OUTPUT_DIRECTORY)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIRECTORY})
  elseif(DEFINED LDS_PLUGIN_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${LDS_PLUGIN_OUTPUT_DIR})
  endif()
  # A plugin is optimised even when the build names no type (CMake then passes no -O at all).
  if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
    target_compile_options(${target} PRIVATE -O2)
  endif()
  # GCC only: clang has no such flag and never emits STB_GNU_UNIQUE symbols.
  target_compile_options(${target} PRIVATE -fvisibility=hidden
                         $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-fno-gnu-unique>)
  set(map ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/lds_plugin_exports.map)
  target_link_options(${target} PRIVATE -Wl,--version-script=${map})
  # Every symbol must resolve at link time, except in a clang sanitizer build: clang links the
  # sanitizer runtime into the executable only, which exports it to the modules it loads.
  if(NOT (LDS_SANITIZE AND CMAKE_CXX_COMPILER_ID STREQUAL "Clang"))
    target_link_options(${target} PRIVATE -Wl,--no-undefined)
  endif()
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${map})
  if(TARGET LogDirStrategy::abi)
    target_link_libraries(${target} PRIVATE LogDirStrategy::abi)
  endif()
  if(ARG_LIBRARIES)
    target_link_libraries(${target} PRIVATE ${ARG_LIBRARIES})
  endif()
endfunction()
