# Warnings we build with, each for a reason.  BT_WERROR turns them into errors (CI does).
set(BT_WARNINGS
  -Wall -Wextra                 # the baseline
  -Wshadow                      # a local hiding another is a bug waiting to happen
  -Wformat=2                    # printf-family misuse, non-literal formats
  -Wstrict-prototypes           # f() means "unknown arguments" in C
  -Wmissing-prototypes          # a non-static function without a header declaration
  -Wpointer-arith -Wcast-align
  -Wwrite-strings               # string literals are const
  -Wnull-dereference
  -Wvla                         # no unbounded stack allocations
  -Wimplicit-fallthrough
  -Wundef
  -Wno-unused-parameter         # FUSE and GLib callbacks have fixed signatures
  -Wno-missing-field-initializers # designated initialisers leave the rest zero on purpose
)
add_compile_options(${BT_WARNINGS})
if(BT_WERROR)
  add_compile_options(-Werror)
endif()
