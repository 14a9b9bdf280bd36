# Every `slsdbg record` starts a slsdbg process, so its start-up is part of
# the fixed cost of a recording (issue #18, docs/performance.md `### Fixed
# cost`). Resolving symbols across a dozen shared libraries took 3-4 ms of
# CPU per process; Debian's static archives of the same libraries link those
# symbols once, at build time (~1.4 ms per `slsdbg --version` instead of 3.5).
# libunwind stays shared: its archives are not position-independent (the
# tests are PIE) and define _Unwind_Resume, as libgcc_eh does.
# Turn off with -DSLSDBG_STATIC_DEPS=OFF.
option(SLSDBG_STATIC_DEPS "link Debian's static archives of slsdbg's libraries" ON)

function(slsdbg_static_archives target)
  set(libs)
  foreach(name IN LISTS ARGN)
    if(name MATCHES "^-")
      list(APPEND libs ${name})
    else()
      find_library(SLSDBG_ARCHIVE_${name} NAMES lib${name}.a REQUIRED)
      list(APPEND libs ${SLSDBG_ARCHIVE_${name}})
    endif()
  endforeach()
  set_property(TARGET ${target} PROPERTY INTERFACE_LINK_LIBRARIES ${libs})
endfunction()

if(SLSDBG_STATIC_DEPS)
  slsdbg_static_archives(PkgConfig::SQLITE3 sqlite3 -lm -ldl -pthread)
  slsdbg_static_archives(PkgConfig::ZSTD zstd -pthread)
  slsdbg_static_archives(PkgConfig::XXHASH xxhash)
  slsdbg_static_archives(PkgConfig::URING uring)
  slsdbg_static_archives(PkgConfig::LIBDW dw elf z lzma bz2 zstd)
  slsdbg_static_archives(PkgConfig::LIBELF elf z lzma bz2 zstd)

endif()

# The C++ runtime too, for the programs a recording or a restore starts.
function(slsdbg_static_runtime target)
  if(SLSDBG_STATIC_DEPS)
    target_link_options(${target} PRIVATE -static-libstdc++ -static-libgcc)
  endif()
endfunction()
