# One INTERFACE target carries the language standard and warnings for every target.
add_library(hips_options INTERFACE)
target_compile_features(hips_options INTERFACE cxx_std_17)
target_compile_options(hips_options INTERFACE -Wall -Wextra -Wno-unused-parameter)
target_compile_definitions(hips_options INTERFACE
  QT_NO_KEYWORDS                       # LibTorch uses `slots`/`signals` as identifiers
  HIPS_VERSION="${PROJECT_VERSION}")
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE Release CACHE STRING "" FORCE)
endif()
